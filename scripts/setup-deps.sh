#!/usr/bin/env bash
# setup-deps.sh - installs the Debian packages libairrt's build, tests, sanitizers
# and fuzzer need. Idempotent: when every package is already installed it touches
# nothing (no apt-get update, no network); otherwise it updates the package lists
# once and installs only what is missing. Uses sudo only when not root.
set -euo pipefail

packages=(
  cmake ninja-build gcc clang pkg-config binutils
  libcmocka-dev   # unit tests
  libelf-dev      # artifact files (ELF containers)
  libclang-rt-dev # clang's sanitizer and libFuzzer runtimes
  g++ libtbb-dev  # dag-overhead benchmark: the oneTBB flow-graph anchor (C++)
  libomp-dev      # dag-overhead benchmark: the libomp anchor (clang -fopenmp)
  python3
  # GPU (hsa) driver, issue 11: code-object metadata, the HSA headers (the library
  # itself is dlopen'ed), and Debian's clang/lld 14 and 16 that build the test code
  # objects (16 for gfx940, gfx1100 and code-object v5); llvm-16 for llvm-readelf.
  libmsgpack-dev
  libhsa-runtime-dev
  clang-16 lld lld-16 llvm llvm-16
  python3-yaml    # tests/amdgpu/inspect_vs_readelf.py reads llvm-readelf's YAML
  # issue 14 (CPU driver at native speed):
  llvm-16-dev            # the code generator (src/codegen): LLVM C API, ORC LLJIT
  libxsmm-dev            # GEMM kernels of the CPU driver's linalg ops (JIT small GEMMs)
  libopenblas-dev        # benchmarks: the OpenBLAS sgemm anchor (loaded with dlopen)
  libblis-pthread-dev    # benchmarks: BLIS, measured in bench/gemm_libs.c
  # issue 13 (ranks: scale-out over MPI):
  libopenmpi-dev openmpi-bin  # the MPI transport (src/rank_mpi), mpirun for its tests
)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup-deps: not a Debian system; install these yourself: ${packages[*]}" >&2
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || {
    echo "setup-deps: need root or sudo to install: ${missing[*]}" >&2
    exit 1
  }
  sudo=(sudo)
fi
echo "setup-deps: installing ${missing[*]}" >&2
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
  --no-install-recommends "${missing[@]}"
