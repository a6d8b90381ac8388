/* chan_remote.c - the origin side of a channel put/get on a lane another
 * process holds (chan_remote.h). One record per op in flight, kept in
 * r->remote_ops (under the run lock) so a reply naming a record that is gone is
 * dropped instead of followed. */
#include "hal/cpu/interp/chan_remote.h"

#include <string.h>

#include "hal/cpu/interp/split.h"
#include "hal/cpu/interp/tables.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

typedef struct ix_rop_t {
  bool reserved, sent, done;
  uint32_t home;
  ix_wlist_t waiters;
  /* DATA: the transfer as the home's put sent it. */
  void* data;
  size_t n;
  int64_t count;
  uint32_t elem, line, col;
} ix_rop_t;

static const ix_wmsg_t* msg_of(ix_wmsg_t* m, const ix_strand_t* s, const air_op_t* op,
                               const ix_rio_t* io, uint32_t type, const ix_rop_t* rop) {
  (void)s;
  *m = (ix_wmsg_t){.type = type, .chan = io->chan, .id = (uint64_t)(uintptr_t)rop, .p = io->p,
                   .rv = io->rv, .count = io->count, .rank = io->rank, .elem = io->elem,
                   .flags = (op->kind == AIR_OP_PUT ? IX_WF_PUT : 0) |
                            (rop->reserved ? IX_WF_RESERVED : 0),
                   .line = op->line, .col = op->col};
  return m;
}

/* Under lock. */
static ix_rop_t* rop_new(ix_run_t* r, uint32_t home) {
  ix_rop_t* rop = air_mem_calloc(&r->alloc, 1, sizeof *rop);
  if (rop && !air_ptrmap_put(&r->remote_ops, &r->alloc, rop, rop)) {
    air_mem_free(&r->alloc, rop);
    return NULL;
  }
  if (rop) rop->home = home;
  return rop;
}

/* Under lock. */
static void rop_free(ix_run_t* r, ix_rop_t* rop) {
  air_ptrmap_del(&r->remote_ops, rop);
  air_mem_free(&r->alloc, rop->data);
  air_mem_free(&r->alloc, rop);
}

bool ix_chan_remote_issue(ix_strand_t* s, const air_op_t* op, const ix_rio_t* io, uint64_t* id) {
  ix_run_t* r = s->run;
  ix_wmsg_t m;
  ix_lock(r);
  ix_rop_t* rop = rop_new(r, io->home);
  if (rop) rop->reserved = true;
  bool ok = rop && ix_wire_post_locked(r, io->home, msg_of(&m, s, op, io, IX_W_RESERVE, rop),
                                       NULL, 0);
  if (rop && !ok) rop_free(r, rop);
  ix_unlock(r);
  if (ok) *id = (uint64_t)(uintptr_t)rop;
  return ok;
}

int ix_chan_remote_io(ix_strand_t* s, ix_frame_t* f, const air_op_t* op, const ix_rio_t* io) {
  ix_run_t* r = s->run;
  bool put = op->kind == AIR_OP_PUT;
  ix_wmsg_t m;
  ix_lock(r);
  ix_rop_t* rop = f->tk_op == op ? air_ptrmap_get(&r->remote_ops, (void*)(uintptr_t)f->ticket)
                                 : NULL;
  if (!rop && !(rop = rop_new(r, io->home))) {
    ix_unlock(r);
    return ix_oom(s);
  }
  f->tk_op = op;
  f->tk_lp = 0; /* not a lane of this process (channel.c) */
  f->ticket = (uint64_t)(uintptr_t)rop;
  if (!rop->sent) {
    /* The put's bytes are packed outside the lock (nothing else touches a record
     * that has not been sent). */
    size_t bytes = (size_t)io->count * io->esize;
    void* buf = NULL;
    if (put && bytes) {
      ix_unlock(r);
      buf = air_mem_alloc(&r->alloc, bytes);
      if (!buf)
        return ix_failed(s, AIR_STATUS(&r->alloc, AIR_STATUS_RESOURCE_EXHAUSTED,
                                       "out of memory for a %zu-byte channel transfer", bytes));
      if (io->padded) {
        ix_pat_gather_padded(buf, io->pat, io->pb, io->pa);
      } else {
        ix_pat_t lin;
        ix_pat_linear(&lin, buf, io->esize, io->count);
        ix_split_copy(r, &lin, io->pat);
      }
      ix_lock(r);
    }
    bool ok = ix_wire_post_locked(r, io->home,
                                  msg_of(&m, s, op, io, put ? IX_W_PUT : IX_W_GET, rop), buf,
                                  put ? bytes : 0);
    air_mem_free(&r->alloc, buf);
    if (!ok) {
      ix_unlock(r);
      return ix_oom(s);
    }
    rop->sent = true;
  }
  if (!rop->done) {
    ix_wake_t w = {0};
    s->w.park = (ix_park_t){.why = IX_WHY_REMOTE, .op = op, .ch = io->c, .ticket = io->home,
                            .rank = io->c->rank, .rank_id = io->rank};
    memcpy(s->w.park.idx, io->idx, io->c->rank * sizeof(int64_t));
    bool parked = ix_park_locked(r, &s->w, &rop->waiters, &w);
    ix_unlock(r);
    ix_wake_flush(r, &w);
    return parked ? IX_PARKED : IX_FAILED;
  }
  /* Done: a put is in the channel; a get has its transfer in rop->data. */
  air_status_t st = NULL;
  if (!put && (rop->count != io->count || rop->elem != io->elem))
    st = ix_err(r, op, AIR_STATUS_FAILED_PRECONDITION,
                "%s @%s receives %lld %s elements but the air.channel.put at %s:%u:%u sent "
                "%lld %s elements; a transfer must keep its element count and type",
                ix_opname(op), io->c->name, (long long)io->count,
                air_elem_name((air_elem_kind_t)io->elem), r->p->filename, rop->line, rop->col,
                (long long)rop->count, air_elem_name((air_elem_kind_t)rop->elem));
  air_ptrmap_del(&r->remote_ops, rop); /* ours alone now */
  ix_unlock(r);
  f->tk_op = NULL;
  if (!st && !put && io->count) {
    ix_pat_t lin;
    ix_pat_linear(&lin, rop->data, io->esize, io->count);
    ix_split_copy(r, io->pat, &lin);
  }
  air_mem_free(&r->alloc, rop->data);
  air_mem_free(&r->alloc, rop);
  if (st) return ix_failed(s, st);
  ix_next(s);
  return IX_CONT;
}

void ix_chan_remote_reply(ix_run_t* r, uint32_t from, const ix_wmsg_t* m, const void* payload,
                          size_t n) {
  ix_wake_t w = {0};
  if (!ix_wire_lock_live(r)) return;
  ix_wire_recvd_locked(r);
  ix_rop_t* rop = air_ptrmap_get(&r->remote_ops, (void*)(uintptr_t)m->id);
  if (rop && rop->home == from && rop->sent && !rop->done) {
    if (m->type == IX_W_DATA &&
        (m->count < 0 || n != (size_t)m->count * air_elem_size((air_elem_kind_t)m->elem))) {
      ix_fail_locked(r,
                     AIR_STATUS(&r->alloc, AIR_STATUS_INTERNAL,
                                "process %u answered a channel get with %zu bytes for %lld "
                                "elements",
                                from, n, (long long)m->count),
                     &w);
    } else if (m->type == IX_W_DATA) {
      rop->data = n ? air_mem_alloc(&r->alloc, n) : NULL;
      if (n && !rop->data) {
        ix_fail_locked(r, AIR_STATUS_OOM(&r->alloc, "a channel transfer from another process"),
                       &w);
      } else {
        if (n) memcpy(rop->data, payload, n);
        rop->n = n;
        rop->count = m->count;
        rop->elem = m->elem;
        rop->line = m->line;
        rop->col = m->col;
      }
    }
    rop->done = true;
    ix_wake_all(r, &rop->waiters, &w);
  }
  ix_unlock(r);
  ix_wake_flush(r, &w);
}

void ix_chan_remote_describe(ix_run_t* r, const ix_strand_t* s, air_sb_t* sb) {
  const ix_park_t* k = &s->w.park;
  air_sb_printf(sb, "%s:%u:%u: %s @%s[", r->p->filename, k->op->line, k->op->col,
                ix_opname(k->op), k->ch->name);
  for (uint32_t i = 0; i < k->rank; ++i)
    air_sb_printf(sb, "%s%lld", i ? ", " : "", (long long)k->idx[i]);
  air_sb_printf(sb, "] blocked: waiting for process %u, which holds this channel index, to %s "
                "(rank %lld)",
                (uint32_t)k->ticket,
                k->op->kind == AIR_OP_PUT ? "take the transfer (channel full)"
                                          : "hand over a transfer (no put reached it)",
                (long long)k->rank_id);
}

void ix_chan_remote_free(ix_run_t* r) {
  air_ptrmap_t* m = &r->remote_ops;
  for (uint32_t i = 0; i < m->cap; ++i) {
    const void* k = m->keys[i];
    if (!k || k == (const void*)(uintptr_t)1) continue;
    ix_rop_t* rop = m->vals[i];
    air_mem_free(&r->alloc, rop->data);
    air_mem_free(&r->alloc, rop);
  }
  air_ptrmap_free(m, &r->alloc);
}
