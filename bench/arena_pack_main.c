/* arena_pack_main.c - stand-alone air-bench-arena-pack; the benchmark itself is
 * air_bench_arena_pack() so the air-bench front end can link the same code. */
int air_bench_arena_pack(int argc, char** argv);

int main(int argc, char** argv) { return air_bench_arena_pack(argc, argv); }
