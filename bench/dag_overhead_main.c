/* dag_overhead_main.c - stand-alone air-bench-dag-overhead; the benchmark itself is
 * air_bench_dag_overhead() so the air-bench front end can link the same code. */
int air_bench_dag_overhead(int argc, char** argv);

int main(int argc, char** argv) { return air_bench_dag_overhead(argc, argv); }
