/* lex.h - tokens of MLIR's textual form, as the AIR parser needs them.
 *
 * The lexer never fails: bad input becomes an AIR_TK_ERROR token carrying a
 * message, and the parser reports it where it meets it. Trailing locations
 * `loc(...)` and `//` comments are skipped as whitespace. Memref shapes such as
 * `64x64xf32` are not tokens: the type parser reads them character by character
 * through air_lex_skip_space / the `pos` cursor, then resumes lexing. */
#ifndef AIR_RUNTIME_TEXT_LEX_H_
#define AIR_RUNTIME_TEXT_LEX_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum air_tk_e {
  AIR_TK_EOF, AIR_TK_ERROR,
  AIR_TK_BARE,    /* foo, air.herd, f32 */
  AIR_TK_PERCENT, /* %name or %name#N */
  AIR_TK_CARET,   /* ^bb0 */
  AIR_TK_AT,      /* @sym or @"sym" */
  AIR_TK_HASH,    /* #alias, #dialect.attr */
  AIR_TK_BANG,    /* !air.token */
  AIR_TK_INT, AIR_TK_FLOAT, AIR_TK_STRING,
  AIR_TK_LPAREN, AIR_TK_RPAREN, AIR_TK_LSQUARE, AIR_TK_RSQUARE, AIR_TK_LBRACE,
  AIR_TK_RBRACE, AIR_TK_LESS, AIR_TK_GREATER, AIR_TK_COMMA, AIR_TK_COLON,
  AIR_TK_EQUAL, AIR_TK_ARROW, AIR_TK_STAR, AIR_TK_PLUS, AIR_TK_MINUS,
  AIR_TK_QUESTION,
  AIR_TK_FILE_META, /* `{-#`, the start of a trailing dialect-resources block */
} air_tk_t;

typedef struct air_token_t {
  air_tk_t kind;
  const char* s;      /* the token's text */
  uint32_t len;
  uint32_t line, col; /* 1-based column in bytes; line includes first_line */
  const char* name;   /* sigil ids: the name without sigil, quotes or #N */
  uint32_t name_len;
  int32_t resno;      /* PERCENT: the N of %x#N, else -1 */
  uint64_t u;         /* INT: magnitude (saturated when `overflow`) */
  bool overflow;
  bool hex;           /* INT written 0x... */
  bool quoted;        /* AT: written @"..." (name holds the escaped text) */
  double f;           /* FLOAT */
  const char* err;    /* ERROR: what is wrong */
} air_token_t;

typedef struct air_lexer_t {
  const char* text;
  size_t len;
  size_t pos;        /* next unread byte */
  uint32_t line;     /* line of `pos` */
  size_t line_start; /* offset of the first byte of that line */
  bool keep_loc;     /* return `loc` as a BARE token instead of skipping loc(...) */
} air_lexer_t;

void air_lex_init(air_lexer_t* lx, const char* text, size_t len, uint32_t first_line);
/* Lexes the token at `pos` and advances past it. */
void air_lex_next(air_lexer_t* lx, air_token_t* out);
/* Skips whitespace and comments (not loc(...)). */
void air_lex_skip_space(air_lexer_t* lx);
/* Moves `pos` to `to` (>= pos) keeping the line count right. */
void air_lex_advance(air_lexer_t* lx, size_t to);
static inline uint32_t air_lex_col(const air_lexer_t* lx) {
  return (uint32_t)(lx->pos - lx->line_start) + 1;
}
static inline int air_lex_peekc(const air_lexer_t* lx, size_t ahead) {
  return lx->pos + ahead < lx->len ? (unsigned char)lx->text[lx->pos + ahead] : -1;
}
/* From `pos`, finds the end of a bracketed group that starts there with one of
 * `<([{`, honouring nesting, strings and `->`. Returns false when unbalanced. */
bool air_lex_balanced_end(const air_lexer_t* lx, size_t from, size_t* out_end);
/* Decodes a string token's contents (escapes \" \\ \n \t \XX) into `dst`, which
 * holds at least tok->len bytes; returns the decoded length. */
size_t air_lex_decode_string(const air_token_t* tok, char* dst);
/* True when `c` may continue a bare identifier. */
bool air_lex_is_id_char(int c);

#endif /* AIR_RUNTIME_TEXT_LEX_H_ */
