# All-reduce of 1 GiB of float32 through PyTorch and NCCL, as bus bandwidth
# (NCCL's measure: size / time × 2(n-1)/n). Run under torchrun.
import os
import time

import torch
import torch.distributed as dist

dist.init_process_group("nccl")
rank, n = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
x = torch.ones(1 << 28, dtype=torch.float32, device="cuda")
for _ in range(5):
    dist.all_reduce(x)
torch.cuda.synchronize()
reps = 20
start = time.perf_counter()
for _ in range(reps):
    dist.all_reduce(x)
torch.cuda.synchronize()
secs = (time.perf_counter() - start) / reps
if rank == 0:
    bus = x.numel() * 4 / secs * 2 * (n - 1) / n / 1e9
    print(f"torch all_reduce 1 GiB float32 on {n} GPUs: {bus:.1f} GB/s bus bandwidth")
dist.destroy_process_group()
