/* trace.c - execution traces: recording (trace_impl.h) and Chrome JSON output.
 *
 * Recording takes one mutex. Drivers record one event per op execution, which is
 * coarse enough (microseconds of work per event) that a short critical section
 * costs less than per-thread buffers would in bookkeeping, and it keeps the
 * writer trivially consistent. Strings are interned: a run records the same few
 * track and op names thousands of times, so an event is 24 bytes and a record
 * usually allocates nothing.
 *
 * Output follows the Trace Event Format (the one chrome://tracing and Perfetto
 * read): one process per track kind, one thread per track, "M" events naming
 * them, "X" (complete) events with ts/dur in microseconds from the first event.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal/trace_impl.h"
#include "runtime/ir/context_impl.h"
#include "runtime/base/status_util.h"

/* A bound on memory: a runaway trace (an op inside a hot loop) stops growing here
 * and the writer says how many events were dropped, rather than exhausting RAM. */
#define AIR_TRACE_MAX_EVENTS ((size_t)1 << 22)

typedef struct trace_event_t {
  int64_t t0, t1;
  uint32_t track;
  uint32_t name; /* string id */
} trace_event_t;

typedef struct trace_track_t {
  uint32_t kind;
  uint32_t name; /* string id */
} trace_track_t;

struct air_trace_t {
  air_allocator_t allocator;
  pthread_mutex_t mutex;
  /* Interned strings and their hash set (slot = id + 1, 0 = empty). */
  char** strings;
  uint32_t n_strings, cap_strings;
  uint32_t* string_slots;
  uint32_t string_slot_count; /* power of two */
  /* Tracks keyed by (kind, name) with their own hash set. */
  trace_track_t* tracks;
  uint32_t n_tracks, cap_tracks;
  uint32_t* track_slots;
  uint32_t track_slot_count;
  trace_event_t* events;
  size_t cap_events;
  _Atomic size_t n_events; /* written under the mutex, read without it */
  uint64_t dropped;
};

static const char* const k_kind_names[] = {"host", "processing elements", "DMA", "channels"};
#define TRACK_KIND_COUNT (sizeof k_kind_names / sizeof k_kind_names[0])

air_status_t air_trace_create(air_context_t* context, air_trace_t** out_trace) {
  if (!context || !out_trace)
    return AIR_STATUS(context ? &context->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_trace_create: NULL %s", context ? "out_trace" : "context");
  *out_trace = NULL;
  const air_allocator_t* a = &context->allocator;
  air_trace_t* t = a->alloc(a->self, sizeof *t);
  if (!t) return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory creating a trace");
  memset(t, 0, sizeof *t);
  t->allocator = *a;
  atomic_init(&t->n_events, 0);
  if (pthread_mutex_init(&t->mutex, NULL) != 0) {
    a->free(a->self, t);
    return AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "cannot create a trace's mutex");
  }
  *out_trace = t;
  return NULL;
}

void air_trace_destroy(air_trace_t* trace) {
  if (!trace) return;
  air_allocator_t a = trace->allocator;
  for (uint32_t i = 0; i < trace->n_strings; ++i) a.free(a.self, trace->strings[i]);
  a.free(a.self, trace->strings);
  a.free(a.self, trace->string_slots);
  a.free(a.self, trace->tracks);
  a.free(a.self, trace->track_slots);
  a.free(a.self, trace->events);
  pthread_mutex_destroy(&trace->mutex);
  a.free(a.self, trace);
}

size_t air_trace_event_count(const air_trace_t* trace) {
  return trace ? atomic_load_explicit(&trace->n_events, memory_order_acquire) : 0;
}

/* ---- recording ---------------------------------------------------------- */

static uint32_t hash_bytes(const char* s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static uint32_t hash_track(uint32_t kind, uint32_t name) {
  uint32_t h = name * 0x9e3779b1u ^ (kind + 0x7f4a7c15u) * 0x85ebca6bu;
  return h ^ (h >> 15);
}

/* Grows `*array` (element size `elem`) to hold at least `need` elements. */
static int grow(const air_allocator_t* a, void** array, size_t* cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t ncap = *cap ? *cap : 64;
  while (ncap < need) ncap *= 2;
  void* n = a->realloc(a->self, *array, ncap * elem);
  if (!n) return -1;
  *array = n;
  *cap = ncap;
  return 0;
}

/* Rebuilds a hash set of ids at twice the size once it is half full, so probes
 * stay short. `key_hash(trace, id)` rehashes an existing entry. */
static int rehash(air_trace_t* t, uint32_t** slots, uint32_t* slot_count, uint32_t used,
                  uint32_t (*key_hash)(const air_trace_t*, uint32_t)) {
  if ((used + 1) * 2 <= *slot_count) return 0;
  uint32_t ncount = *slot_count ? *slot_count * 2 : 256;
  uint32_t* n = t->allocator.alloc(t->allocator.self, ncount * sizeof *n);
  if (!n) return -1;
  memset(n, 0, ncount * sizeof *n);
  for (uint32_t i = 0; i < *slot_count; ++i) {
    uint32_t id1 = (*slots)[i];
    if (!id1) continue;
    uint32_t j = key_hash(t, id1 - 1) & (ncount - 1);
    while (n[j]) j = (j + 1) & (ncount - 1);
    n[j] = id1;
  }
  t->allocator.free(t->allocator.self, *slots);
  *slots = n;
  *slot_count = ncount;
  return 0;
}

static uint32_t string_hash_of(const air_trace_t* t, uint32_t id) {
  return hash_bytes(t->strings[id]);
}
static uint32_t track_hash_of(const air_trace_t* t, uint32_t id) {
  return hash_track(t->tracks[id].kind, t->tracks[id].name);
}

/* Returns the id of `s`, adding a copy when new; UINT32_MAX when out of memory. */
static uint32_t intern(air_trace_t* t, const char* s) {
  if (rehash(t, &t->string_slots, &t->string_slot_count, t->n_strings, string_hash_of))
    return UINT32_MAX;
  uint32_t mask = t->string_slot_count - 1;
  uint32_t j = hash_bytes(s) & mask;
  for (; t->string_slots[j]; j = (j + 1) & mask)
    if (strcmp(t->strings[t->string_slots[j] - 1], s) == 0) return t->string_slots[j] - 1;
  size_t cap = t->cap_strings;
  if (grow(&t->allocator, (void**)&t->strings, &cap, (size_t)t->n_strings + 1,
           sizeof *t->strings))
    return UINT32_MAX;
  t->cap_strings = (uint32_t)cap;
  size_t len = strlen(s);
  char* copy = t->allocator.alloc(t->allocator.self, len + 1);
  if (!copy) return UINT32_MAX;
  memcpy(copy, s, len + 1);
  uint32_t id = t->n_strings++;
  t->strings[id] = copy;
  t->string_slots[j] = id + 1;
  return id;
}

static uint32_t find_track(air_trace_t* t, uint32_t kind, uint32_t name) {
  if (rehash(t, &t->track_slots, &t->track_slot_count, t->n_tracks, track_hash_of))
    return UINT32_MAX;
  uint32_t mask = t->track_slot_count - 1;
  uint32_t j = hash_track(kind, name) & mask;
  for (; t->track_slots[j]; j = (j + 1) & mask) {
    const trace_track_t* k = &t->tracks[t->track_slots[j] - 1];
    if (k->kind == kind && k->name == name) return t->track_slots[j] - 1;
  }
  size_t cap = t->cap_tracks;
  if (grow(&t->allocator, (void**)&t->tracks, &cap, (size_t)t->n_tracks + 1, sizeof *t->tracks))
    return UINT32_MAX;
  t->cap_tracks = (uint32_t)cap;
  uint32_t id = t->n_tracks++;
  t->tracks[id].kind = kind;
  t->tracks[id].name = name;
  t->track_slots[j] = id + 1;
  return id;
}

void air_trace_record(air_trace_t* trace, air_track_kind_t kind, const char* track,
                      const char* name, int64_t t0_ns, int64_t t1_ns) {
  if (!trace) return;
  uint32_t k = (uint32_t)kind < TRACK_KIND_COUNT ? (uint32_t)kind : AIR_TRACK_HOST;
  pthread_mutex_lock(&trace->mutex);
  size_t n = atomic_load_explicit(&trace->n_events, memory_order_relaxed);
  uint32_t track_name = UINT32_MAX, event_name = UINT32_MAX, track_id = UINT32_MAX;
  if (n < AIR_TRACE_MAX_EVENTS &&
      grow(&trace->allocator, (void**)&trace->events, &trace->cap_events, n + 1,
           sizeof *trace->events) == 0)
    track_name = intern(trace, track ? track : "");
  if (track_name != UINT32_MAX) event_name = intern(trace, name ? name : "");
  if (event_name != UINT32_MAX) track_id = find_track(trace, k, track_name);
  if (track_id == UINT32_MAX) {
    /* Out of memory or over the bound: a trace is a diagnostic aid, so losing an
     * event must not fail the run; the writer reports the count. */
    ++trace->dropped;
  } else {
    trace_event_t* e = &trace->events[n];
    e->t0 = t0_ns;
    e->t1 = t1_ns < t0_ns ? t0_ns : t1_ns;
    e->track = track_id;
    e->name = event_name;
    atomic_store_explicit(&trace->n_events, n + 1, memory_order_release);
  }
  pthread_mutex_unlock(&trace->mutex);
}

/* ---- JSON output -------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when it is not one. */
static size_t utf8_sequence(const unsigned char* s) {
  unsigned c = s[0];
  size_t n;
  unsigned min;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) n = 2, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef) n = 3, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, min = 0x10000;
  else return 0;
  unsigned cp = c & (0x7fu >> n);
  for (size_t i = 1; i < n; ++i) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3fu);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

/* Writes `s` as a JSON string. Control characters are escaped and bytes that are
 * not UTF-8 become U+FFFD, so the file always parses whatever names a program
 * used. */
static void put_json_string(FILE* f, const char* s) {
  const unsigned char* p = (const unsigned char*)s;
  fputc('"', f);
  while (*p) {
    unsigned c = *p;
    if (c == '"' || c == '\\') {
      fputc('\\', f);
      fputc((int)c, f);
      ++p;
    } else if (c < 0x20) {
      switch (c) {
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default: fprintf(f, "\\u%04x", c); break;
      }
      ++p;
    } else {
      size_t n = utf8_sequence(p);
      if (n == 0) {
        fputs("\\ufffd", f);
        ++p;
      } else {
        fwrite(p, 1, n, f);
        p += n;
      }
    }
  }
  fputc('"', f);
}

/* Microseconds with nanosecond precision, as the format wants. */
static void put_us(FILE* f, int64_t ns) {
  if (ns < 0) {
    fputc('-', f);
    ns = -ns;
  }
  fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

/* Compares names so that embedded numbers sort by value: "[1, 2]" before
 * "[1, 10]", so PE tracks appear in tile order. */
static int natural_compare(const char* a, const char* b) {
  while (*a && *b) {
    if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
      while (*a == '0') ++a;
      while (*b == '0') ++b;
      size_t la = 0, lb = 0;
      while (a[la] >= '0' && a[la] <= '9') ++la;
      while (b[lb] >= '0' && b[lb] <= '9') ++lb;
      if (la != lb) return la < lb ? -1 : 1;
      int c = memcmp(a, b, la);
      if (c) return c;
      a += la;
      b += lb;
    } else {
      if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
      ++a;
      ++b;
    }
  }
  return *a ? 1 : *b ? -1 : 0;
}

static int compare_tracks_by(const air_trace_t* t, uint32_t x, uint32_t y) {
  const trace_track_t* a = &t->tracks[x];
  const trace_track_t* b = &t->tracks[y];
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  int c = natural_compare(t->strings[a->name], t->strings[b->name]);
  if (c) return c;
  return x < y ? -1 : x > y;
}

/* Insertion sort for the tracks (hundreds at most) and a merge sort for events
 * (possibly millions), both stable and free of qsort's missing context. */
static void sort_tracks(const air_trace_t* t, uint32_t* idx, uint32_t n) {
  for (uint32_t i = 1; i < n; ++i) {
    uint32_t v = idx[i], j = i;
    while (j > 0 && compare_tracks_by(t, idx[j - 1], v) > 0) {
      idx[j] = idx[j - 1];
      --j;
    }
    idx[j] = v;
  }
}

static int event_before(const trace_event_t* a, const trace_event_t* b) {
  if (a->t0 != b->t0) return a->t0 < b->t0;
  return a->track < b->track;
}

static void merge_sort_events(trace_event_t* e, trace_event_t* tmp, size_t n) {
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = lo + width < n ? lo + width : n;
      size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = event_before(&e[j], &e[i]) ? e[j++] : e[i++];
      while (i < mid) tmp[k++] = e[i++];
      while (j < hi) tmp[k++] = e[j++];
    }
    memcpy(e, tmp, n * sizeof *e);
  }
}

static air_status_t file_error(const air_allocator_t* a, const char* path, const char* what,
                               int err) {
  air_status_code_t code = err == ENOENT || err == ENOTDIR ? AIR_STATUS_NOT_FOUND
                           : err == EACCES || err == EPERM || err == EROFS
                               ? AIR_STATUS_PERMISSION_DENIED
                               : AIR_STATUS_UNAVAILABLE;
  return AIR_STATUS(a, code, "%s: error: %s trace file: %s", path, what, strerror(err));
}

air_status_t air_trace_write_json(const air_trace_t* trace, const char* path) {
  if (!trace || !path || !*path)
    return AIR_STATUS(trace ? &trace->allocator : NULL, AIR_STATUS_INVALID_ARGUMENT,
                      "air_trace_write_json: NULL or empty %s", trace ? "path" : "trace");
  /* Writing holds the mutex throughout: traces are written after a run, and a
   * recorder that races the writer only waits, it never sees a half-grown array.
   * The mutex is the trace's own, so locking it through a const pointer changes
   * nothing the caller can observe. */
  air_trace_t* t = (air_trace_t*)trace;
  const air_allocator_t* a = &t->allocator;
  air_status_t status = NULL;
  pthread_mutex_lock(&t->mutex);
  size_t n = atomic_load_explicit(&t->n_events, memory_order_relaxed);
  uint32_t n_tracks = t->n_tracks;
  uint64_t dropped = t->dropped;
  /* The events are sorted by start time in a copy (plus merge scratch), so the
   * file reads in time order while the trace keeps recording order. */
  trace_event_t* events = a->alloc(a->self, (n ? n : 1) * 2 * sizeof *events);
  uint32_t* order = a->alloc(a->self, (n_tracks ? n_tracks : 1) * sizeof *order);
  if (!events || !order) {
    status = AIR_STATUS(a, AIR_STATUS_RESOURCE_EXHAUSTED, "out of memory writing a trace");
    goto done;
  }
  if (n) memcpy(events, t->events, n * sizeof *events);
  for (uint32_t i = 0; i < n_tracks; ++i) order[i] = i;
  merge_sort_events(events, events + n, n);
  sort_tracks(t, order, n_tracks);

  FILE* f = fopen(path, "wb");
  if (!f) {
    status = file_error(a, path, "cannot create", errno);
    goto done;
  }
  int64_t origin = n ? events[0].t0 : 0;
  fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"libairrt\",", f);
  fprintf(f, "\"events\":%llu,\"dropped_events\":%llu},\"traceEvents\":[\n",
          (unsigned long long)n, (unsigned long long)dropped);
  int first = 1;
  /* Name each process that has tracks, and order them host, PEs, DMA, channels. */
  for (uint32_t k = 0; k < TRACK_KIND_COUNT; ++k) {
    int used = 0;
    for (uint32_t i = 0; i < n_tracks && !used; ++i) used = t->tracks[i].kind == k;
    if (!used) continue;
    fprintf(f, "%s{\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":",
            first ? "" : ",\n", k + 1);
    put_json_string(f, k_kind_names[k]);
    fprintf(f, "}},\n{\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"name\":\"process_sort_index\","
               "\"args\":{\"sort_index\":%u}}",
            k + 1, k);
    first = 0;
  }
  for (uint32_t r = 0; r < n_tracks; ++r) {
    uint32_t i = order[r];
    const trace_track_t* tr = &t->tracks[i];
    fprintf(f, "%s{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":",
            first ? "" : ",\n", tr->kind + 1, i + 1);
    put_json_string(f, t->strings[tr->name]);
    fprintf(f, "}},\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_sort_index\","
               "\"args\":{\"sort_index\":%u}}",
            tr->kind + 1, i + 1, r);
    first = 0;
  }
  for (size_t i = 0; i < n; ++i) {
    const trace_event_t* e = &events[i];
    const trace_track_t* tr = &t->tracks[e->track];
    fprintf(f, "%s{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":", first ? "" : ",\n",
            tr->kind + 1, e->track + 1);
    put_us(f, e->t0 - origin);
    fputs(",\"dur\":", f);
    put_us(f, e->t1 - e->t0);
    fputs(",\"cat\":", f);
    put_json_string(f, k_kind_names[tr->kind]);
    fputs(",\"name\":", f);
    put_json_string(f, t->strings[e->name]);
    fputc('}', f);
    first = 0;
  }
  fputs("\n]}\n", f);
  int write_failed = ferror(f);
  int err = errno;
  if (fclose(f) != 0 && !write_failed) {
    write_failed = 1;
    err = errno;
  }
  if (write_failed) status = file_error(a, path, "cannot write", err ? err : EIO);
done:
  pthread_mutex_unlock(&t->mutex);
  a->free(a->self, events);
  a->free(a->self, order);
  return status;
}
