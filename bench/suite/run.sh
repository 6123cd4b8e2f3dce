#!/usr/bin/env bash
# run.sh: the benchmark suites in one GPU run. Builds bench/baseline/suite.cu and nests.cu twice
# with nvcc (-O3, and -O3 --fmad=false) and runs qdsuite, which times qd's kernels and all builds
# and prints the table (kernel, qd ms, nvcc ms, nvcc --fmad=false ms, ratios, checksums).
#
# Where Go is installed it builds qdsuite first; on a GPU machine without Go, build it where Go
# is and carry it:   go build -o .gpu/qdsuite ./bench/qdsuite     (run from the repository root)
# Usage: bash bench/suite/run.sh [qdsuite flags, e.g. -reps 20 -run Matmul]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${QDSUITE:-.gpu/qdsuite}
if command -v go >/dev/null; then
  mkdir -p "$(dirname "$bin")"
  go build -o "$bin" ./bench/qdsuite
fi
out=$(mktemp -d)
for s in suite nests; do
  nvcc -O3 -arch=native -o "$out/$s" bench/baseline/$s.cu
  nvcc -O3 -arch=native --fmad=false -o "$out/$s-nofma" bench/baseline/$s.cu
done
CUDA_CACHE_DISABLE=1 "$bin" -nvcc "$out/suite,$out/nests" -nofma "$out/suite-nofma,$out/nests-nofma" "$@"
