#!/usr/bin/env bash
# run.sh: the benchmark suite in one GPU run. Builds bench/baseline/suite.cu twice with nvcc
# (-O3, and -O3 --fmad=false) and runs qdsuite, which times qd's kernels and both builds and
# prints the table (kernel, qd ms, nvcc ms, nvcc --fmad=false ms, ratios, checksums).
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
nvcc -O3 -arch=native -o "$out/suite" bench/baseline/suite.cu
nvcc -O3 -arch=native --fmad=false -o "$out/suite-nofma" bench/baseline/suite.cu
CUDA_CACHE_DISABLE=1 "$bin" -nvcc "$out/suite" -nofma "$out/suite-nofma" "$@"
