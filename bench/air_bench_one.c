/* air_bench_one.c - a stand-alone air-bench-<name> binary: main() is the bench's
 * entry, named by AIR_BENCH_ENTRY at compile time (see air_bench.cmake). */
int AIR_BENCH_ENTRY(int argc, char** argv);

int main(int argc, char** argv) { return AIR_BENCH_ENTRY(argc, argv); }
