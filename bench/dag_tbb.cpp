// dag_tbb.cpp - the oneTBB anchor: a flow graph with one continue_node per task and
// one make_edge per dependency. Build = constructing the graph (nodes + edges);
// replay = try_put to every source and wait_for_all on the already-built graph.
// The thread count is set with global_control (the calling thread takes part in
// wait_for_all, so "2 threads" is the caller plus one worker).
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>

#include <deque>
#include <vector>

#include "dag_gen.h"

namespace {
using node_t = oneapi::tbb::flow::continue_node<oneapi::tbb::flow::continue_msg>;

struct body_t {
  dag_ctx_t* c;
  uint32_t i;
  void operator()(const oneapi::tbb::flow::continue_msg&) const { dag_body(c, i); }
};
}  // namespace

extern "C" int dag_run_tbb(const dag_t* g, unsigned threads, int reps, dag_result_t* out) {
  out->build_ns = out->replay_ns = -1;
  dag_ctx_t c;
  if (dag_ctx_init(&c, g) != 0) return -1;
  int rc = 0;
  std::vector<double> tb, tr;
  {
    oneapi::tbb::global_control limit(oneapi::tbb::global_control::max_allowed_parallelism,
                                      threads);
    for (int r = -1; r < reps && rc == 0; ++r) {
      double t0 = dag_now_ns();
      oneapi::tbb::flow::graph graph;
      std::deque<node_t> nodes;
      for (uint32_t i = 0; i < g->n; ++i) nodes.emplace_back(graph, body_t{&c, i});
      for (uint32_t i = 0; i < g->n; ++i)
        for (uint32_t k = g->kid_off[i]; k < g->kid_off[i + 1]; ++k)
          oneapi::tbb::flow::make_edge(nodes[i], nodes[g->kid[k]]);
      double t1 = dag_now_ns();
      // First run of the fresh graph (checked on the warm-up rep), then the replay.
      dag_ctx_begin(&c, r < 0);
      for (uint32_t s = 0; s < g->nsources; ++s)
        nodes[g->sources[s]].try_put(oneapi::tbb::flow::continue_msg());
      graph.wait_for_all();
      if (dag_ctx_end(&c) != 0) rc = -1;
      dag_ctx_begin(&c, 0);
      double t2 = dag_now_ns();
      for (uint32_t s = 0; s < g->nsources; ++s)
        nodes[g->sources[s]].try_put(oneapi::tbb::flow::continue_msg());
      graph.wait_for_all();
      double t3 = dag_now_ns();
      if (dag_ctx_end(&c) != 0) rc = -1;
      if (r >= 0) {
        tb.push_back((t1 - t0) / g->n);
        tr.push_back((t3 - t2) / g->n);
      }
    }
  }
  if (rc == 0) {
    out->build_ns = dag_median(tb.data(), (int)tb.size());
    out->replay_ns = dag_median(tr.data(), (int)tr.size());
  }
  dag_ctx_free(&c);
  return rc;
}
