#!/usr/bin/env bash
# run.sh: the block-level examples beside CUDA C, cuBLAS, a device-to-
# device copy and CUB, in one GPU run, printed as one table (bench/blocks).
#
# The GPU machine has nvcc but no Go: build the Go programs where Go is,
# from the repository root, into bench/blocks/bin (which git ignores),
#
#	go build -o bench/blocks/bin/ ./example/sgemm ./example/transpose \
#		./example/scan ./example/stencil ./example/histogram ./bench/blocks
#
# then carry the repository (with bench/blocks/bin) to the GPU machine and
# run, from the repository root there,
#
#	bash bench/blocks/run.sh [-reps 20]
#	bash bench/blocks/run.sh sanitize   # racecheck and synccheck instead
#
# It builds bench/blocks/blocks.cu twice with nvcc -O3 (--fmad=false,
# which computes Go's float results, and nvcc's default, with fused
# multiply-adds, for the fma SGEMM) and runs the driver, which runs each
# example and the CUDA programs and prints the table. Where Go is
# installed, it builds the Go programs itself first.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=bench/blocks/bin
if command -v go >/dev/null; then
  go build -o "$bin/" ./example/sgemm ./example/transpose ./example/scan \
    ./example/stencil ./example/histogram ./bench/blocks
fi
mkdir -p "$bin"
if [ "${1:-}" = sanitize ]; then
  # Each example at a small size under compute-sanitizer's race and
  # barrier checks; any hazard it reports fails the run.
  status=0
  for tool in racecheck synccheck; do
    for ex in "sgemm -n 256" "transpose -height 100 -width 70" "scan -n 100000" \
      "stencil -nx 300 -ny 200" "histogram -n 100000 -blocks 16"; do
      set -- $ex
      echo "== $tool $ex"
      compute-sanitizer --tool "$tool" --error-exitcode 1 "$bin/$1" "${@:2}" -reps 1 || status=1
    done
  done
  exit $status
fi
nvcc -O3 -arch=native --fmad=false -o "$bin/blocks-cuda" bench/blocks/blocks.cu -lcublas
nvcc -O3 -arch=native -o "$bin/blocks-cuda-fma" bench/blocks/blocks.cu -lcublas
"$bin/blocks" -bin "$bin" -cuda "$bin/blocks-cuda" -cuda-fma "$bin/blocks-cuda-fma" "$@"
