"""A sum reduction with warp shuffles: the 32 lanes of a warp add their values without memory.

`shfl_down_sync(mask, v, d)` returns `v` from the lane `d` places higher, so after steps
d = 16, 8, 4, 2, 1 lane 0 holds the sum of the warp's 32 values. Each warp then leaves its
sum in shared memory, the first warp reduces those the same way, and thread 0 of the block
adds the block's total to the result with one atomic. A grid-stride loop first sums many
elements per thread, so a small grid covers a large array.

    PYJIT_SIMULATOR=1 python examples/gpu_warp_reduce.py    # without a GPU
"""
import numpy as np

from pyjit import gpu, float32

FULL_MASK = 0xFFFFFFFF
THREADS = 128                    # 4 warps a block
WARPS = THREADS // 32


@gpu.jit(device=True)
def warp_sum(v):
    offset = 16
    while offset > 0:
        v += gpu.shfl_down_sync(FULL_MASK, v, offset)
        offset //= 2
    return v                     # complete in lane 0 only


@gpu.jit
def reduce_sum(x, result):
    partial = gpu.shared.array(WARPS, dtype=float32)
    acc = float32(0)
    for i in range(gpu.grid(1), x.shape[0], gpu.gridsize(1)):
        acc += x[i]

    lane = gpu.threadIdx.x % gpu.warpsize
    warp = gpu.threadIdx.x // gpu.warpsize
    acc = warp_sum(acc)
    if lane == 0:
        partial[warp] = acc
    gpu.syncthreads()

    if warp == 0:
        acc = partial[lane] if lane < WARPS else float32(0)
        acc = warp_sum(acc)
        if lane == 0:
            gpu.atomic.add(result, 0, acc)


@gpu.jit
def warp_max_index(x, out):
    """Each warp finds its largest value with shfl_xor_sync (all lanes end with the answer)."""
    i = gpu.grid(1)
    v = x[i]
    mask = 16
    while mask > 0:
        v = max(v, gpu.shfl_xor_sync(FULL_MASK, v, mask))
        mask //= 2
    if gpu.laneid == 0:
        out[i // 32] = v


def main():
    rng = np.random.default_rng(3)
    x = rng.random(30000, dtype=np.float32)

    result = gpu.to_device(np.zeros(1, dtype=np.float32))
    reduce_sum[16, THREADS](gpu.to_device(x), result)
    total = result.copy_to_host()[0]
    assert np.isclose(total, x.sum(dtype=np.float64), rtol=1e-5), f"sum {total} is wrong"

    y = x[:32 * 64]
    maxima = np.zeros(64, dtype=np.float32)
    warp_max_index[y.size // THREADS, THREADS](y, maxima)
    assert np.array_equal(maxima, y.reshape(64, 32).max(axis=1)), "warp maxima are wrong"

    print(f"warp-shuffle sum of {x.size} float32 and per-warp maxima: OK")


if __name__ == "__main__":
    main()
