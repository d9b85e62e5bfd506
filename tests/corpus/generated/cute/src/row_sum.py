"""One warp per row: a strided loop over the row, then a butterfly shuffle reduction."""

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import make_fake_compact_tensor

WARPS = 4


@cute.kernel
def kernel(gX: cute.Tensor, gOut: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    lane = tidx % 32
    row = bidx * WARPS + tidx // 32
    _, n = gX.shape
    total = cutlass.Float32(0.0)
    for i in cutlass.range(lane, n, 32):
        total += gX[row, i].to(cutlass.Float32)
    total = cute.arch.warp_reduction_sum(total)
    if lane == 0:
        gOut[row] = total


@cute.jit
def launch(mX: cute.Tensor, mOut: cute.Tensor):
    rows = cute.size(mOut)
    kernel(mX, mOut).launch(grid=(rows // WARPS, 1, 1), block=(WARPS * 32, 1, 1))


def arguments() -> tuple:
    x = make_fake_compact_tensor(cutlass.BFloat16, (16, 256), stride_order=(1, 0))
    return x, make_fake_compact_tensor(cutlass.Float32, (16,))
