"""fp16 GEMM tile on the warp-level tensor cores (mma.sync m16n8k16), operands from global."""

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import make_fake_compact_tensor

BM, BN, BK = 64, 64, 32


@cute.kernel
def kernel(tiled_mma: cute.TiledMma, gA: cute.Tensor, gB: cute.Tensor, gC: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bm, bn, _ = cute.arch.block_idx()
    cta_a = cute.local_tile(gA, (BM, BK), (bm, None))
    cta_b = cute.local_tile(gB, (BN, BK), (bn, None))
    cta_c = cute.local_tile(gC, (BM, BN), (bm, bn))
    thr = tiled_mma.get_slice(tidx)
    t_a = thr.partition_A(cta_a)
    t_b = thr.partition_B(cta_b)
    t_c = thr.partition_C(cta_c)
    r_a = tiled_mma.make_fragment_A(t_a[None, None, None, 0])
    r_b = tiled_mma.make_fragment_B(t_b[None, None, None, 0])
    acc = tiled_mma.make_fragment_C(t_c)
    acc.fill(0.0)
    for k in range(cute.size(t_a, mode=[3])):
        cute.autovec_copy(t_a[None, None, None, k], r_a)
        cute.autovec_copy(t_b[None, None, None, k], r_b)
        cute.gemm(tiled_mma, acc, r_a, r_b, acc)
    cute.autovec_copy(acc, t_c)


@cute.jit
def launch(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
    op = cute.nvgpu.warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (16, 8, 16))
    tiled_mma = cute.make_tiled_mma(op, (2, 2, 1))
    m, n = mC.shape
    kernel(tiled_mma, mA, mB, mC).launch(grid=(m // BM, n // BN, 1), block=(128, 1, 1))


def arguments() -> tuple:
    return (
        make_fake_compact_tensor(cutlass.Float16, (128, 64), stride_order=(1, 0)),
        make_fake_compact_tensor(cutlass.Float16, (128, 64), stride_order=(1, 0)),
        make_fake_compact_tensor(cutlass.Float32, (128, 128), stride_order=(1, 0)),
    )
