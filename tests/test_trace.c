/* Traces: thread-safe recording and Chrome trace-event JSON that parses back.
 *
 * The JSON is read with a small strict parser below (no library available), so a
 * missing comma, a bad escape or a raw control character fails the test. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "air/context.h"
#include "air/trace.h"
#include "hal/trace_impl.h"
#include "support/threads.h"

/* ---- a minimal strict JSON reader -------------------------------------- */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype_t;

typedef struct jnode_t {
  jtype_t type;
  double num;
  char* str;            /* J_STR: decoded UTF-8 */
  size_t n;             /* J_ARR / J_OBJ children */
  struct jnode_t** kids;
  char** keys;          /* J_OBJ */
} jnode_t;

typedef struct jparser_t {
  const char* p;
  const char* end;
  int error;
} jparser_t;

static void jws(jparser_t* j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
    ++j->p;
}

static jnode_t* jnew(jtype_t t) {
  jnode_t* n = calloc(1, sizeof *n);
  assert_non_null(n);
  n->type = t;
  return n;
}

static void jfree(jnode_t* n) {
  if (!n) return;
  for (size_t i = 0; i < n->n; ++i) {
    jfree(n->kids[i]);
    if (n->keys) free(n->keys[i]);
  }
  free(n->kids);
  free(n->keys);
  free(n->str);
  free(n);
}

static void put_utf8(char** out, size_t* len, unsigned cp) {
  char* o = *out + *len;
  if (cp < 0x80) {
    o[0] = (char)cp;
    *len += 1;
  } else if (cp < 0x800) {
    o[0] = (char)(0xc0 | (cp >> 6));
    o[1] = (char)(0x80 | (cp & 0x3f));
    *len += 2;
  } else {
    o[0] = (char)(0xe0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[2] = (char)(0x80 | (cp & 0x3f));
    *len += 3;
  }
}

static char* jstring(jparser_t* j) {
  if (j->p >= j->end || *j->p != '"') {
    j->error = 1;
    return NULL;
  }
  ++j->p;
  /* Bound the decoded size by the raw length up to the closing quote (an escape
   * never decodes to more bytes than it takes). */
  const char* q = j->p;
  while (q < j->end && *q != '"') q += *q == '\\' && q + 1 < j->end ? 2 : 1;
  char* out = malloc((size_t)(q - j->p) + 4);
  assert_non_null(out);
  size_t len = 0;
  while (j->p < j->end && *j->p != '"') {
    unsigned char c = (unsigned char)*j->p;
    if (c < 0x20) { /* raw control characters are not JSON */
      j->error = 1;
      break;
    }
    if (c != '\\') {
      out[len++] = (char)c;
      ++j->p;
      continue;
    }
    if (j->p + 1 >= j->end) {
      j->error = 1;
      break;
    }
    char e = j->p[1];
    j->p += 2;
    switch (e) {
      case '"': out[len++] = '"'; break;
      case '\\': out[len++] = '\\'; break;
      case '/': out[len++] = '/'; break;
      case 'n': out[len++] = '\n'; break;
      case 't': out[len++] = '\t'; break;
      case 'r': out[len++] = '\r'; break;
      case 'b': out[len++] = '\b'; break;
      case 'f': out[len++] = '\f'; break;
      case 'u': {
        if (j->end - j->p < 4) {
          j->error = 1;
          break;
        }
        unsigned cp = 0;
        for (int i = 0; i < 4; ++i) {
          char h = j->p[i];
          cp <<= 4;
          if (h >= '0' && h <= '9') cp |= (unsigned)(h - '0');
          else if (h >= 'a' && h <= 'f') cp |= (unsigned)(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F') cp |= (unsigned)(h - 'A' + 10);
          else j->error = 1;
        }
        j->p += 4;
        put_utf8(&out, &len, cp);
        break;
      }
      default: j->error = 1; break;
    }
    if (j->error) break;
  }
  if (j->p >= j->end) j->error = 1;
  else ++j->p;
  out[len] = '\0';
  return out;
}

static jnode_t* jvalue(jparser_t* j, int depth);

static void jpush(jnode_t* n, jnode_t* kid, char* key) {
  if ((n->n & (n->n - 1)) == 0) { /* grow at powers of two */
    size_t cap = n->n ? n->n * 2 : 1;
    n->kids = realloc(n->kids, cap * sizeof *n->kids);
    assert_non_null(n->kids);
    if (n->type == J_OBJ) {
      n->keys = realloc(n->keys, cap * sizeof *n->keys);
      assert_non_null(n->keys);
    }
  }
  if (n->type == J_OBJ) n->keys[n->n] = key;
  n->kids[n->n++] = kid;
}

static jnode_t* jcontainer(jparser_t* j, int depth, int is_obj) {
  jnode_t* n = jnew(is_obj ? J_OBJ : J_ARR);
  ++j->p;
  jws(j);
  if (j->p < j->end && *j->p == (is_obj ? '}' : ']')) {
    ++j->p;
    return n;
  }
  for (;;) {
    char* key = NULL;
    if (is_obj) {
      jws(j);
      key = jstring(j);
      jws(j);
      if (j->error || j->p >= j->end || *j->p != ':') {
        free(key);
        j->error = 1;
        return n;
      }
      ++j->p;
    }
    jnode_t* kid = jvalue(j, depth + 1);
    jpush(n, kid, key);
    if (j->error) return n;
    jws(j);
    if (j->p < j->end && *j->p == ',') {
      ++j->p;
      continue;
    }
    if (j->p < j->end && *j->p == (is_obj ? '}' : ']')) {
      ++j->p;
      return n;
    }
    j->error = 1;
    return n;
  }
}

static jnode_t* jvalue(jparser_t* j, int depth) {
  jws(j);
  if (depth > 64 || j->p >= j->end) {
    j->error = 1;
    return jnew(J_NULL);
  }
  char c = *j->p;
  if (c == '{' || c == '[') return jcontainer(j, depth, c == '{');
  if (c == '"') {
    jnode_t* n = jnew(J_STR);
    n->str = jstring(j);
    return n;
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    char* endp = NULL;
    jnode_t* n = jnew(J_NUM);
    n->num = strtod(j->p, &endp);
    if (endp == j->p) j->error = 1;
    j->p = endp;
    return n;
  }
  static const char* const words[] = {"true", "false", "null"};
  for (int i = 0; i < 3; ++i) {
    size_t l = strlen(words[i]);
    if ((size_t)(j->end - j->p) >= l && memcmp(j->p, words[i], l) == 0) {
      j->p += l;
      return jnew(i < 2 ? J_BOOL : J_NULL);
    }
  }
  j->error = 1;
  return jnew(J_NULL);
}

static jnode_t* jparse_file(const char* path) {
  FILE* f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* data = malloc((size_t)size + 1);
  assert_non_null(data);
  assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  data[size] = '\0';
  jparser_t j = {data, data + size, 0};
  jnode_t* root = jvalue(&j, 0);
  jws(&j);
  if (j.error || j.p != j.end) fail_msg("invalid JSON near byte %ld", (long)(j.p - data));
  free(data);
  return root;
}

static const jnode_t* jget(const jnode_t* obj, const char* key) {
  if (!obj || obj->type != J_OBJ) return NULL;
  for (size_t i = 0; i < obj->n; ++i)
    if (strcmp(obj->keys[i], key) == 0) return obj->kids[i];
  return NULL;
}

static const char* jget_str(const jnode_t* obj, const char* key) {
  const jnode_t* v = jget(obj, key);
  return v && v->type == J_STR ? v->str : NULL;
}

static double jget_num(const jnode_t* obj, const char* key) {
  const jnode_t* v = jget(obj, key);
  assert_non_null(v);
  assert_int_equal(v->type, J_NUM);
  return v->num;
}

/* ---- fixtures ----------------------------------------------------------- */

static int setup(void** state) {
  air_context_t* c = NULL;
  assert_null(air_context_create(NULL, NULL, &c));
  *state = c;
  return 0;
}

static int teardown(void** state) {
  air_context_destroy(*state);
  return 0;
}

static void temp_path(char* out, size_t n, const char* stem) {
  const char* dir = getenv("TMPDIR");
  snprintf(out, n, "%s/air_test_trace_%s_%ld.json", dir && *dir ? dir : "/tmp", stem,
           (long)getpid());
}

/* ---- tests -------------------------------------------------------------- */

static void test_empty_trace(void** state) {
  air_trace_t* t = NULL;
  assert_null(air_trace_create(*state, &t));
  assert_int_equal(air_trace_event_count(t), 0);
  char path[256];
  temp_path(path, sizeof path, "empty");
  assert_null(air_trace_write_json(t, path));
  jnode_t* root = jparse_file(path);
  const jnode_t* ev = jget(root, "traceEvents");
  assert_non_null(ev);
  assert_int_equal(ev->type, J_ARR);
  assert_int_equal(ev->n, 0);
  jfree(root);
  remove(path);
  air_trace_destroy(t);
  air_trace_destroy(NULL); /* NULL-safe */
  air_trace_record(NULL, AIR_TRACK_PE, "x", "y", 0, 1); /* a NULL trace records nothing */
}

enum { PER_THREAD = 2000 };

typedef struct recorder_t {
  air_trace_t* trace;
  int id;
} recorder_t;

static void* recorder_main(void* arg) {
  recorder_t* r = arg;
  char track[64], name[64];
  for (int i = 0; i < PER_THREAD; ++i) {
    /* Four PE tracks per thread, shared DMA and channel tracks: both threads
     * intern the same names concurrently. */
    air_track_kind_t kind = i % 3 == 0 ? AIR_TRACK_PE : i % 3 == 1 ? AIR_TRACK_DMA
                                                                    : AIR_TRACK_CHANNEL;
    if (kind == AIR_TRACK_PE)
      snprintf(track, sizeof track, "herd @h [%d, %d]", r->id, i % 4);
    else if (kind == AIR_TRACK_DMA)
      snprintf(track, sizeof track, "dma %d", i % 2);
    else
      snprintf(track, sizeof track, "channel @c[%d]", i % 2);
    snprintf(name, sizeof name, "op %d", i % 7);
    int64_t t0 = 1000000 + (int64_t)i * 1000 + r->id;
    air_trace_record(r->trace, kind, track, name, t0, t0 + 500);
  }
  return NULL;
}

static void test_two_threads(void** state) {
  air_trace_t* t = NULL;
  assert_null(air_trace_create(*state, &t));
  recorder_t r[2] = {{t, 0}, {t, 1}};
  test_threads_run(2, recorder_main, r, sizeof r[0]);
  assert_int_equal(air_trace_event_count(t), 2 * PER_THREAD);

  char path[256];
  temp_path(path, sizeof path, "threads");
  assert_null(air_trace_write_json(t, path));
  jnode_t* root = jparse_file(path);
  const jnode_t* ev = jget(root, "traceEvents");
  assert_non_null(ev);
  size_t complete = 0, thread_names = 0, process_names = 0, pe_threads = 0;
  double last_ts = -1;
  int pid_pe = -1, pid_dma = -1, pid_chan = -1;
  for (size_t i = 0; i < ev->n; ++i) {
    const jnode_t* e = ev->kids[i];
    const char* ph = jget_str(e, "ph");
    assert_non_null(ph);
    if (strcmp(ph, "X") == 0) {
      ++complete;
      double ts = jget_num(e, "ts");
      assert_true(ts >= last_ts); /* written in time order */
      last_ts = ts;
      assert_true(jget_num(e, "dur") == 0.5); /* 500 ns */
      assert_non_null(jget_str(e, "name"));
      jget_num(e, "pid");
      jget_num(e, "tid");
    } else if (strcmp(ph, "M") == 0) {
      const char* what = jget_str(e, "name");
      const jnode_t* args = jget(e, "args");
      assert_non_null(what);
      if (strcmp(what, "thread_name") == 0) {
        ++thread_names;
        const char* tn = jget_str(args, "name");
        assert_non_null(tn);
        if (strncmp(tn, "herd @h [", 9) == 0) {
          ++pe_threads;
          int pid = (int)jget_num(e, "pid");
          assert_true(pid_pe < 0 || pid_pe == pid); /* one process for every PE */
          pid_pe = pid;
        }
      } else if (strcmp(what, "process_name") == 0) {
        ++process_names;
        const char* pn = jget_str(args, "name");
        int pid = (int)jget_num(e, "pid");
        if (strcmp(pn, "processing elements") == 0) pid_pe = pid;
        if (strcmp(pn, "DMA") == 0) pid_dma = pid;
        if (strcmp(pn, "channels") == 0) pid_chan = pid;
      }
    } else {
      fail_msg("unexpected phase %s", ph);
    }
  }
  assert_int_equal(complete, 2 * PER_THREAD);
  assert_int_equal(pe_threads, 8);               /* 2 threads x 4 tiles */
  assert_int_equal(thread_names, 8 + 2 + 2);     /* PEs, 2 DMA, 2 channel tracks */
  assert_int_equal(process_names, 3);            /* no host events: no host process */
  assert_true(pid_pe > 0 && pid_dma > 0 && pid_chan > 0);
  assert_true(pid_pe != pid_dma && pid_dma != pid_chan && pid_pe != pid_chan);
  /* The first event starts the clock. */
  assert_true(jget_num(ev->kids[ev->n - 2 * PER_THREAD], "ts") == 0.0);
  jfree(root);
  remove(path);
  air_trace_destroy(t);
}

static void test_escaping(void** state) {
  air_trace_t* t = NULL;
  assert_null(air_trace_create(*state, &t));
  static const char k_track[] = "chan \"q\" \\ back\nnew\ttab\x01 caf\xc3\xa9";
  static const char k_bad[] = "bad \xff\xfe byte \xe2\x82"; /* not UTF-8 */
  air_trace_record(t, AIR_TRACK_CHANNEL, k_track, "put \"x\"", 2000, 5500);
  air_trace_record(t, AIR_TRACK_HOST, "host", k_bad, 1000, 1000);
  air_trace_record(t, AIR_TRACK_PE, NULL, NULL, 1500, 1400); /* NULL names, t1 < t0 */
  air_trace_record(t, (air_track_kind_t)99, "odd kind", "e", 3000, 3001);
  assert_int_equal(air_trace_event_count(t), 4);
  char path[256];
  temp_path(path, sizeof path, "escape");
  assert_null(air_trace_write_json(t, path));
  jnode_t* root = jparse_file(path);
  const jnode_t* ev = jget(root, "traceEvents");
  int saw_track = 0, saw_put = 0, saw_bad = 0, saw_clamped = 0;
  for (size_t i = 0; i < ev->n; ++i) {
    const jnode_t* e = ev->kids[i];
    const char* name = jget_str(e, "name");
    const char* ph = jget_str(e, "ph");
    if (strcmp(ph, "M") == 0 && strcmp(name, "thread_name") == 0 &&
        strcmp(jget_str(jget(e, "args"), "name"), k_track) == 0)
      saw_track = 1;
    if (strcmp(ph, "X") != 0) continue;
    if (strcmp(name, "put \"x\"") == 0) {
      saw_put = 1;
      assert_true(jget_num(e, "ts") == 1.0); /* 2000 ns after the first event */
      assert_true(jget_num(e, "dur") == 3.5);
    }
    if (strcmp(name, "bad \xef\xbf\xbd\xef\xbf\xbd byte \xef\xbf\xbd\xef\xbf\xbd") == 0) saw_bad = 1;
    if (strcmp(name, "") == 0) {
      saw_clamped = 1;
      assert_true(jget_num(e, "dur") == 0.0);
    }
  }
  assert_true(saw_track);
  assert_true(saw_put);
  assert_true(saw_bad);
  assert_true(saw_clamped);
  jfree(root);
  remove(path);
  air_trace_destroy(t);
}

static void test_write_errors(void** state) {
  air_trace_t* t = NULL;
  assert_null(air_trace_create(*state, &t));
  air_trace_record(t, AIR_TRACK_PE, "pe", "op", 0, 1);
  air_status_t s = air_trace_write_json(t, "/nonexistent-dir/x/trace.json");
  assert_int_equal(air_status_code(s), AIR_STATUS_NOT_FOUND);
  assert_non_null(strstr(air_status_message(s), "/nonexistent-dir/x/trace.json"));
  air_status_free(s);
  s = air_trace_write_json(t, NULL);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(s);
  s = air_trace_write_json(NULL, "x.json");
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(s);
  s = air_trace_create(NULL, &t);
  assert_int_equal(air_status_code(s), AIR_STATUS_INVALID_ARGUMENT);
  air_status_free(s);
  air_trace_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_empty_trace, setup, teardown),
      cmocka_unit_test_setup_teardown(test_two_threads, setup, teardown),
      cmocka_unit_test_setup_teardown(test_escaping, setup, teardown),
      cmocka_unit_test_setup_teardown(test_write_errors, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
