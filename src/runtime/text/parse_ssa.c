/* parse_ssa.c - SSA names while parsing: scopes and forward references.
 *
 * One open-addressing hash table maps each visible name to its entry; an entry
 * that hides an outer one of the same name remembers it (`shadowed`) and puts it
 * back when its scope closes. `undo` lists live entries in scope order, so closing
 * a scope pops a suffix. Every region opens a scope; an isolated region (func,
 * launch, segment, herd, module) also starts a new naming domain, where outer
 * names may be redefined (they are still found when used: the verifier, not the
 * parser, reports an isolation breach).
 *
 * A use before any definition creates a placeholder value typed by the use site.
 * It moves outwards as scopes close until its definition fills it in (the result
 * or argument slot takes the placeholder's id) or its isolated scope closes, which
 * is the "use of undefined value" error.
 *
 * Most uses name a value defined a few lines earlier, while the table of a large
 * program is far bigger than the cache; `recent` is a small direct-mapped copy
 * of the visible entry per hash, updated whenever visibility changes, which
 * turns most lookups into cache hits. */
#include "runtime/text/parse_ssa.h"

#include <string.h>

#include "runtime/text/parse_type.h"

enum { MIN_SLOTS = 1024, MAX_FWD_RESULT = 4096 };

static uint32_t hash_name(const char* s, uint32_t len) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < len; ++i) h = (h ^ (unsigned char)s[i]) * 16777619u;
  h ^= h >> 16; /* FNV's low bits alone probe poorly */
  h *= 0x85ebca6bu;
  return h ^ (h >> 13);
}

/* Returns the slot holding `s`, or -1 with *ins = where to insert it. Slots keep
 * the hash so a probe rarely touches an entry that does not match. */
static int32_t probe(const air_parser_t* P, const char* s, uint32_t len, uint32_t h,
                     int32_t* ins) {
  uint32_t mask = P->cap_slots - 1, i = h & mask;
  int32_t first_del = -1;
  for (;;) {
    int32_t e = P->slots[i].e;
    if (e == -1) {
      if (ins) *ins = first_del >= 0 ? first_del : (int32_t)i;
      return -1;
    }
    if (e == -2) {
      if (first_del < 0) first_del = (int32_t)i;
    } else if (P->slots[i].h == h) {
      const air_psym_t* y = &P->syms[e];
      if (y->len == len && memcmp(y->s, s, len) == 0) return (int32_t)i;
    }
    i = (i + 1) & mask;
  }
}

static air_pslot_t* recent(air_parser_t* P, uint32_t h) {
  return &P->recent[(h ^ (h >> 20)) & (AIR_PARSE_RECENT - 1)];
}

static void set_slot(air_parser_t* P, int32_t at, int32_t e, uint32_t h) {
  P->slots[at].e = e;
  P->slots[at].h = h;
}

/* Rebuilds the table (dropping deleted slots) with room for more names. */
static bool rehash(air_parser_t* P) {
  uint32_t cap = MIN_SLOTS;
  while (cap < P->n_undo * 4 + 16) { /* load stays under 1/2 until the next rehash */
    if (cap > (UINT32_MAX >> 2)) return false;
    cap *= 2;
  }
  air_pslot_t* slots = air_mem_alloc(&P->p->allocator, cap * sizeof(air_pslot_t));
  if (!slots) return false;
  air_mem_free(&P->p->allocator, P->slots);
  P->slots = slots;
  P->cap_slots = cap;
  memset(slots, 0xff, cap * sizeof(air_pslot_t)); /* all entries -1 */
  P->used_slots = 0;
  /* Scope order is creation order, so a later entry of a name is the visible one. */
  for (uint32_t k = 0; k < P->n_undo; ++k) {
    const air_psym_t* y = &P->syms[P->undo[k]];
    int32_t ins = -1;
    int32_t at = probe(P, y->s, y->len, y->hash, &ins);
    if (at < 0) {
      at = ins;
      P->used_slots++;
    }
    set_slot(P, at, (int32_t)P->undo[k], y->hash);
  }
  return true;
}

static air_status_t new_entry(air_parser_t* P, const air_pref_t* r, uint32_t h,
                              int32_t* out) {
  if ((P->used_slots + 1) * 2 > P->cap_slots && !rehash(P)) return air_parse_oom(P);
  int32_t e;
  if (P->free_sym >= 0) {
    e = P->free_sym;
    P->free_sym = P->syms[e].shadowed;
  } else {
    if (!air_mem_grow(&P->p->allocator, (void**)&P->syms, &P->cap_syms, (size_t)P->n_syms + 1,
                      sizeof(air_psym_t)))
      return air_parse_oom(P);
    e = (int32_t)P->n_syms++;
  }
  if (!air_mem_grow(&P->p->allocator, (void**)&P->undo, &P->cap_undo, (size_t)P->n_undo + 1,
                    sizeof(uint32_t)))
    return air_parse_oom(P);
  air_psym_t* y = &P->syms[e];
  memset(y, 0, sizeof(*y));
  y->s = r->s;
  y->len = r->len;
  y->hash = h;
  y->shadowed = -1;
  y->level = P->n_scopes - 1;
  y->line = r->line;
  y->col = r->col;
  P->undo[P->n_undo++] = (uint32_t)e;
  int32_t ins = -1;
  int32_t at = probe(P, r->s, r->len, h, &ins);
  if (at >= 0) {
    y->shadowed = P->slots[at].e;
  } else {
    at = ins;
    if (P->slots[at].e == -1) P->used_slots++;
  }
  set_slot(P, at, e, h);
  air_pslot_t* c = recent(P, h);
  c->e = e;
  c->h = h;
  *out = e;
  return NULL;
}

air_status_t air_parse_scope_push(air_parser_t* P, bool isolated) {
  if (!P->slots) {
    /* Sized from the text (about a name per 32 bytes) so large inputs do not
     * pay for rehashing a table that outgrows the cache anyway. */
    uint32_t cap = MIN_SLOTS;
    while (cap < (1u << 26) && cap < P->lx.len / 32) cap *= 2;
    memset(P->recent, 0xff, sizeof(P->recent));
    P->slots = air_mem_alloc(&P->p->allocator, cap * sizeof(air_pslot_t));
    if (!P->slots) return air_parse_oom(P);
    memset(P->slots, 0xff, cap * sizeof(air_pslot_t));
    P->cap_slots = cap;
  }
  if (!air_mem_grow(&P->p->allocator, (void**)&P->scopes, &P->cap_scopes, P->n_scopes + 1,
                      sizeof(air_pscope_t)))
    return air_parse_oom(P);
  air_pscope_t* sc = &P->scopes[P->n_scopes++];
  sc->undo_mark = P->n_undo;
  sc->isolated = isolated;
  sc->prev_iso = P->iso_level;
  if (isolated) P->iso_level = P->n_scopes - 1;
  return NULL;
}

static void unlink_entry(air_parser_t* P, uint32_t e) {
  air_psym_t* y = &P->syms[e];
  int32_t at = probe(P, y->s, y->len, y->hash, NULL);
  if (at >= 0 && P->slots[at].e == (int32_t)e) P->slots[at].e = y->shadowed >= 0 ? y->shadowed : -2;
  air_pslot_t* c = recent(P, y->hash);
  if (c->e == (int32_t)e) c->e = y->shadowed >= 0 ? y->shadowed : -1;
  y->shadowed = P->free_sym;
  P->free_sym = (int32_t)e;
}

air_status_t air_parse_scope_pop(air_parser_t* P) {
  if (P->n_scopes == 0) return NULL;
  air_pscope_t sc = P->scopes[P->n_scopes - 1];
  uint32_t level = P->n_scopes - 1;
  bool keep_fwd = !sc.isolated && level > 0;
  int32_t undefined = -1;
  for (uint32_t k = sc.undo_mark; k < P->n_undo; ++k) {
    const air_psym_t* y = &P->syms[P->undo[k]];
    if (y->fwd && !keep_fwd && undefined < 0) undefined = (int32_t)P->undo[k];
  }
  if (undefined >= 0) {
    const air_psym_t* y = &P->syms[undefined];
    /* The table is dropped with the parser after an error; no need to unwind. */
    return PERR(P, y->line, y->col, "use of undefined value '%%%s'", air_parse_q(P, y->s, y->len));
  }
  uint32_t kept = sc.undo_mark;
  for (uint32_t k = P->n_undo; k-- > sc.undo_mark;) {
    uint32_t e = P->undo[k];
    if (!P->syms[e].fwd) unlink_entry(P, e);
  }
  /* Unresolved forward references move out to the parent scope, in order. */
  for (uint32_t k = sc.undo_mark; k < P->n_undo; ++k) {
    uint32_t e = P->undo[k];
    if (P->syms[e].fwd) {
      P->syms[e].level = level - 1;
      P->undo[kept++] = e;
    }
  }
  P->n_undo = kept;
  P->iso_level = sc.prev_iso;
  P->n_scopes--;
  return NULL;
}

static air_status_t type_clash(air_parser_t* P, const air_pref_t* r, air_tid_t want,
                               air_tid_t have) {
  char a[128], b[128];
  return PERR(P, r->line, r->col,
              "use of value '%%%s' expects different type than prior uses: '%s' vs '%s'",
              air_parse_q(P, r->s, r->len), air_parse_type_str(P, want, a, sizeof a),
              air_parse_type_str(P, have, b, sizeof b));
}

/* A placeholder value for result `idx` of the forward entry `e`. */
static air_status_t placeholder(air_parser_t* P, int32_t e, uint32_t idx, air_tid_t type,
                                air_vid_t* out) {
  air_psym_t* y = &P->syms[e];
  if (idx >= y->n) {
    uint32_t n = y->n ? y->n : 1;
    while (n <= idx) n *= 2;
    air_vid_t* v = air_ir_alloc(P->p, n * sizeof(air_vid_t));
    if (!v) return air_parse_oom(P);
    if (y->n) memcpy(v, y->vids, y->n * sizeof(air_vid_t));
    y->vids = v;
    y->n = n;
  }
  if (!y->vids[idx]) {
    air_vid_t v = air_ir_value_new(P->p, type, NULL, NULL, 0, NULL);
    char* nm = air_ir_strndup(P->p, y->s, y->len);
    if (!v || !nm) return air_parse_oom(P);
    P->p->values[v].name = nm;
    y->vids[idx] = v;
  }
  *out = y->vids[idx];
  return NULL;
}

air_status_t air_parse_use(air_parser_t* P, const air_pref_t* r, air_tid_t type,
                           air_vid_t* out) {
  uint32_t h = hash_name(r->s, r->len);
  uint32_t idx = r->num < 0 ? 0 : (uint32_t)r->num;
  int32_t e = -1;
  const air_pslot_t* c = recent(P, h);
  if (c->e >= 0 && c->h == h && P->syms[c->e].len == r->len &&
      memcmp(P->syms[c->e].s, r->s, r->len) == 0) {
    e = c->e;
  } else {
    int32_t at = probe(P, r->s, r->len, h, NULL);
    if (at >= 0) e = P->slots[at].e;
  }
  if (e >= 0) {
    air_psym_t* y = &P->syms[e];
    if (!y->fwd) {
      if (idx >= y->n)
        return PERR(P, r->line, r->col,
                    "result number %u is out of range: '%%%s' has %u value%s", idx,
                    air_parse_q(P, r->s, r->len), y->n, y->n == 1 ? "" : "s");
      air_vid_t v = y->vids[idx];
      if (type && !air_parse_types_match(P, type, air_ir_value_type(P->p, v)))
        return type_clash(P, r, type, air_ir_value_type(P->p, v));
      *out = v;
      return NULL;
    }
    if (idx >= MAX_FWD_RESULT)
      return PERR(P, r->line, r->col, "result number %u is too large", idx);
    if (idx < y->n && y->vids[idx]) {
      air_vid_t v = y->vids[idx];
      if (type && !air_parse_types_match(P, type, air_ir_value_type(P->p, v)))
        return type_clash(P, r, type, air_ir_value_type(P->p, v));
      *out = v;
      return NULL;
    }
    if (!type)
      return PERR(P, r->line, r->col, "use of undefined value '%%%s'", air_parse_q(P, r->s, r->len));
    return placeholder(P, e, idx, type, out);
  }
  if (!type)
    return PERR(P, r->line, r->col, "use of undefined value '%%%s'", air_parse_q(P, r->s, r->len));
  if (idx >= MAX_FWD_RESULT)
    return PERR(P, r->line, r->col, "result number %u is too large", idx);
  TRY(new_entry(P, r, h, &e));
  P->syms[e].fwd = true;
  return placeholder(P, e, idx, type, out);
}

air_status_t air_parse_bind(air_parser_t* P, const air_pref_t* name, air_vid_t* slots,
                            uint32_t n, const air_tid_t* types, air_op_t* def,
                            air_block_t* blk, uint32_t first) {
  air_program_t* p = P->p;
  char* nm = NULL;
  int32_t e = -1;
  if (name) {
    uint32_t h = hash_name(name->s, name->len);
    int32_t at = probe(P, name->s, name->len, h, NULL);
    if (at >= 0 && P->syms[P->slots[at].e].level >= P->iso_level) {
      air_psym_t* y = &P->syms[P->slots[at].e];
      if (!y->fwd)
        return PERR(P, name->line, name->col,
                    "redefinition of value '%%%s' (first defined at %u:%u)",
                    air_parse_q(P, name->s, name->len), y->line, y->col);
      for (uint32_t i = 0; i < y->n; ++i) {
        air_vid_t v = y->vids[i];
        if (!v) continue;
        if (i >= n)
          return PERR(P, y->line, y->col,
                      "use of '%%%s#%u', but its definition at %u:%u has %u value%s",
                      air_parse_q(P, name->s, name->len), i, name->line, name->col, n,
                      n == 1 ? "" : "s");
        if (!air_parse_types_match(P, air_ir_value_type(p, v), types[i])) {
          char a[128], b[128];
          return PERR(P, name->line, name->col,
                      "'%%%s' is defined with type '%s' but was used at %u:%u as '%s'",
                      air_parse_q(P, name->s, name->len), air_parse_type_str(P, types[i], a, sizeof a),
                      y->line, y->col,
                      air_parse_type_str(P, air_ir_value_type(p, v), b, sizeof b));
        }
      }
      e = P->slots[at].e;
      nm = (char*)(y->n ? air_ir_value(p, y->vids[0])->name : NULL);
      for (uint32_t i = 0; i < y->n && !nm; ++i)
        if (y->vids[i]) nm = (char*)air_ir_value(p, y->vids[i])->name;
    } else {
      TRY(new_entry(P, name, h, &e));
    }
    if (!nm && !(nm = air_ir_strndup(p, name->s, name->len))) return air_parse_oom(P);
  }
  const air_psym_t* y = e >= 0 ? &P->syms[e] : NULL;
  for (uint32_t i = 0; i < n; ++i) {
    air_vid_t v = y && y->fwd && i < y->n ? y->vids[i] : 0;
    if (v) {
      air_value_info_t* vi = &p->values[v];
      vi->type = types[i];
      vi->def = def;
      vi->block = blk;
      vi->index = first + i;
    } else {
      v = air_ir_value_new(p, types[i], def, blk, first + i, NULL);
      if (!v) return air_parse_oom(P);
      p->values[v].name = nm;
    }
    slots[i] = v;
  }
  if (e >= 0) {
    air_psym_t* w = &P->syms[e];
    if (w->fwd) {
      w->line = name->line;
      w->col = name->col;
    }
    w->fwd = false;
    w->vids = slots;
    w->n = n;
  }
  return NULL;
}

void air_parse_ssa_free(air_parser_t* P) {
  const air_allocator_t* a = &P->p->allocator;
  a->free(a->self, P->syms);
  a->free(a->self, P->slots);
  a->free(a->self, P->undo);
  a->free(a->self, P->scopes);
  P->syms = NULL;
  P->slots = NULL;
  P->undo = NULL;
  P->scopes = NULL;
}
