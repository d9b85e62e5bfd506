"""Vectorized fp16 a * b + a: 8-element tiles per thread through zipped_divide."""

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import make_fake_compact_tensor

THREADS = 128


@cute.kernel
def kernel(gA: cute.Tensor, gB: cute.Tensor, gC: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    idx = bidx * THREADS + tidx
    _, n = gA.shape[1]
    coord = (None, (idx // n, idx % n))
    a = gA[coord].load()
    b = gB[coord].load()
    gC[coord] = a * b + a


@cute.jit
def launch(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
    tiles = [cute.zipped_divide(t, (1, 8)) for t in (mA, mB, mC)]
    blocks = cute.size(tiles[2], mode=[1]) // THREADS
    kernel(*tiles).launch(grid=(blocks, 1, 1), block=(THREADS, 1, 1))


def arguments() -> tuple:
    return tuple(
        make_fake_compact_tensor(cutlass.Float16, (32, 256), stride_order=(1, 0), assumed_align=16)
        for _ in range(3)
    )
