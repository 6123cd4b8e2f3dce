#!/bin/bash
# Build here, on a machine with Go, from the repository root (strips and
# compresses the binaries into bench/nccl/bin, about 8 MiB in all):
#
#	bash bench/nccl/run.sh build
#
# then, on the GPU machine (2 or 4 GPUs, nvcc, python3 with torch; no Go),
# with bench/nccl/bin carried over, from the repository root:
#
#	bash bench/nccl/run.sh [OUTDIR] [PARTS]
#
# It measures qd on the machine's N GPUs beside its baselines, in one run:
#   a  all-reduce of 1 GiB float32, bus bandwidth: qd's nccl package in one
#      process driving N GPUs and in N processes through qdrun, and
#      PyTorch's all-reduce (allreduce.py), and NCCL's all_reduce_perf
#      where it is on the PATH;
#   b  copies between GPU 0 and GPU 1: qd's rt.CopyPeer and
#      cudaMemcpyPeerAsync (peer.cu), GB/s;
#   c  the Jacobi example's weak scaling on 1..N GPUs, with efficiency, and
#      a QD_TRACE of the N-GPU run in OUTDIR (drawn as an SVG beside it);
#   d  the GPU tests of nccl and rt as N ranks through qdrun -n N, and
#      nccl's in one process.
# OUTDIR is $OUT, else bench/nccl/out; PARTS is any of "a b c d" (all by
# default), to split the run. Every step has a time limit; a step that
# fails is reported and the others still run; the exit status is 1 if any
# failed. NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
set -euo pipefail
export NCCL_NVLS_ENABLE=0

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$here/bin

# The programs: name, then the package built into it (a test binary when
# the package ends in .test).
programs="allreduce:./bench/nccl/allreduce peer:./bench/nccl/peer jacobi:./example/jacobi
qdrun:./cmd/qdrun qdtrace:./cmd/qdtrace nccl.test:./nccl rt.test:./rt"

if [ "${1:-}" = build ]; then
	cd "$root"
	mkdir -p "$bin"
	for p in $programs; do
		name=${p%%:*} pkg=${p#*:}
		echo "building $name from $pkg"
		rm -f "$bin/$name" "$bin/$name.xz"
		case $name in
		*.test) CGO_ENABLED=1 go test -c -trimpath -ldflags='-s -w' -o "$bin/$name" "$pkg" ;;
		*) CGO_ENABLED=1 go build -trimpath -ldflags='-s -w' -o "$bin/$name" "$pkg" ;;
		esac
		xz -9 -T0 "$bin/$name"
	done
	du -ch "$bin"/*.xz | tail -1
	exit 0
fi

out=${1:-${OUT:-$here/out}}
parts=${2:-a b c d}
mkdir -p "$out"
out=$(cd "$out" && pwd)
exec > >(tee "$out/bench.log") 2>&1

failed=()
results=()
# step NAME SECONDS COMMAND...: runs COMMAND with a time limit and notes a
# failure without stopping the run.
step() {
	local name=$1 secs=$2 rc=0 start=$SECONDS
	shift 2
	echo
	echo "== $name"
	timeout -k 10 "$secs" "$@" || rc=$?
	if [ "$rc" -ne 0 ]; then
		local why="exit status $rc"
		[ "$rc" -eq 124 ] && why="timed out after ${secs}s"
		echo "!! FAILED: $name ($why)"
		failed+=("$name ($why)")
		results+=("FAILED $name ($why)")
	else
		results+=("ok     $name ($((SECONDS - start))s)")
	fi
}
want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }

# Unpack the binaries carried from the build.
for p in $programs; do
	name=${p%%:*}
	if [ -f "$bin/$name.xz" ]; then
		xz -dc "$bin/$name.xz" >"$bin/$name" || python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" "$bin/$name.xz" >"$bin/$name"
		chmod +x "$bin/$name"
	fi
	[ -x "$bin/$name" ] || { echo "!! missing $bin/$name: run 'bash bench/nccl/run.sh build' on a machine with Go and carry bench/nccl/bin"; exit 1; }
done

gpus=$(nvidia-smi -L | wc -l)
echo "== $gpus GPUs: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
[ "$gpus" -ge 2 ] || { echo "!! needs 2 GPUs or more"; exit 1; }
n=$gpus
torchrun=(torchrun)
command -v torchrun >/dev/null || torchrun=(python3 -m torch.distributed.run)

if want a; then
	step "a: qd all-reduce 1 GiB, one process, $n GPUs" 240 "$bin/allreduce"
	step "a: qd all-reduce 1 GiB, $n processes (qdrun)" 240 "$bin/qdrun" -n "$n" "$bin/allreduce"
	step "a: torch all-reduce 1 GiB, $n processes" 300 "${torchrun[@]}" --standalone --nproc-per-node "$n" "$here/allreduce.py"
	# NCCL's own test program, where the machine has it (nccl-tests).
	if command -v all_reduce_perf >/dev/null; then
		step "a: nccl-tests all_reduce_perf 1 GiB, $n GPUs" 240 all_reduce_perf -b 1G -e 1G -d float -g "$n" -w 5 -n 20
	fi
fi

if want b; then
	step "b: cudaMemcpyPeerAsync, GPU 0 to 1" 240 bash -c "nvcc -O2 -o '$bin/peer_cuda' '$here/peer.cu' && '$bin/peer_cuda'"
	step "b: qd CopyPeer, GPU 0 to 1" 120 "$bin/peer"
	step "b: qd CopyPeer on a stream, GPU 0 to 1" 120 "$bin/peer" -stream
fi

if want c; then
	step "c: jacobi weak scaling, 16384 columns, 8192 rows a GPU, 1..$n GPUs" 420 \
		"$bin/jacobi" -nx 16384 -weak 8192 -steps 200
	step "c: jacobi on $n GPUs, traced" 180 env QD_TRACE="$out/jacobi-trace.json" \
		"$bin/jacobi" -nx 16384 -ny $((8192 * n)) -steps 20 -check=false
	step "c: drawing the trace" 60 "$bin/qdtrace" -o "$out/jacobi-trace.svg" "$out/jacobi-trace.json"
	echo "trace: $out/jacobi-trace.json and .svg (ui.perfetto.dev opens the JSON)"
fi

if want d; then
	# Test binaries read their package's testdata: run each in its folder.
	step "d: nccl GPU tests, $n processes (qdrun)" 300 \
		bash -c "cd '$root/nccl' && '$bin/qdrun' -n $n '$bin/nccl.test' -test.run 'GPU\$' -test.v -test.timeout 280s"
	step "d: nccl GPU tests, one process" 300 \
		bash -c "cd '$root/nccl' && '$bin/nccl.test' -test.run 'GPU\$' -test.v -test.timeout 280s"
	step "d: rt GPU tests, $n processes (qdrun)" 420 \
		bash -c "cd '$root/rt' && '$bin/qdrun' -n $n '$bin/rt.test' -test.run 'GPU' -test.timeout 400s"
fi

echo
echo "== summary ($n GPUs), log in $out/bench.log"
grep -hE "bus bandwidth|GB/s|efficiency|same as on one device|--- FAIL" "$out/bench.log" | grep -v "^== " || true
printf '%s\n' "${results[@]}"
if [ ${#failed[@]} -gt 0 ]; then
	echo "!! failed steps:"
	printf '   %s\n' "${failed[@]}"
	exit 1
fi
echo "all steps passed"
