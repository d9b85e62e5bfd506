"""32x32 tile transpose through padded shared memory, with a barrier between the phases."""

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import make_fake_compact_tensor

TILE = 32
ROWS = 8


@cute.kernel
def kernel(gIn: cute.Tensor, gOut: cute.Tensor):
    tx, ty, _ = cute.arch.thread_idx()
    bx, by, _ = cute.arch.block_idx()
    smem = cute.arch.alloc_smem(cutlass.Float32, TILE * (TILE + 1))
    tile = cute.make_tensor(smem, cute.make_layout((TILE, TILE), stride=(TILE + 1, 1)))
    for j in cutlass.range_constexpr(0, TILE, ROWS):
        tile[ty + j, tx] = gIn[by * TILE + ty + j, bx * TILE + tx]
    cute.arch.barrier()
    for j in cutlass.range_constexpr(0, TILE, ROWS):
        gOut[bx * TILE + ty + j, by * TILE + tx] = tile[tx, ty + j]


@cute.jit
def launch(mIn: cute.Tensor, mOut: cute.Tensor):
    m, n = mIn.shape
    kernel(mIn, mOut).launch(grid=(n // TILE, m // TILE, 1), block=(TILE, ROWS, 1))


def arguments() -> tuple:
    return (
        make_fake_compact_tensor(cutlass.Float32, (64, 96), stride_order=(1, 0)),
        make_fake_compact_tensor(cutlass.Float32, (96, 64), stride_order=(1, 0)),
    )
