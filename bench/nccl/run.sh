#!/bin/sh
# Measures qd beside its baselines on a machine with 2 or 4 GPUs: peer
# copies (qd's rt.CopyPeer beside cudaMemcpyPeerAsync), all-reduce of 1 GiB
# float32 (PyTorch's, the baseline for qd's nccl package), and the Jacobi
# example on 1, 2 and 4 GPUs with a QD_TRACE of the largest run.
#
# Build the Go programs first, on a machine with Go, from the repository
# root, into a folder git ignores:
#
#	go build -o bench/nccl/bin/peer ./bench/nccl/peer
#	go build -o bench/nccl/bin/jacobi ./example/jacobi
#
# then copy the repository to the GPU machine and run bench/nccl/run.sh
# there. It needs nvcc and python3 with torch, not Go. Until package nccl
# runs collectives on GPUs, the Jacobi lines report its error, and qd's
# peer copies are staged through the host.
set -u
export NCCL_NVLS_ENABLE=0 # NVLink multicast stays off on these machines
cd "$(dirname "$0")"
gpus=$(nvidia-smi -L | wc -l)
echo "== $gpus GPUs: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"

mkdir -p bin
echo "== peer copies"
nvcc -O2 -o bin/peer_cuda peer.cu && ./bin/peer_cuda
./bin/peer

for n in 2 4; do
	[ "$n" -le "$gpus" ] || continue
	echo "== all-reduce on $n GPUs"
	torchrun --standalone --nproc-per-node "$n" allreduce.py
done

echo "== jacobi, weak scaling: 4096 columns, 4096 rows per GPU"
for n in 1 2 4; do
	[ "$n" -le "$gpus" ] || continue
	visible=$(seq -s, 0 $((n - 1)))
	CUDA_VISIBLE_DEVICES=$visible ./bin/jacobi -nx 4096 -ny $((4096 * n)) -steps 200
done
n=$([ "$gpus" -ge 4 ] && echo 4 || echo 2)
CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((n - 1))) QD_TRACE=jacobi-trace.json \
	./bin/jacobi -nx 4096 -ny $((4096 * n)) -steps 20
echo "trace: $(pwd)/jacobi-trace.json (go run ./cmd/qdtrace to draw it)"
