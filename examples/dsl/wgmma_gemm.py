"""Hopper bf16 GEMM tile: TMA double buffering and ``wgmma.mma_async`` m64n128k16 (sm_90a).

``C = A @ B.T`` with ``A`` (M x K) and ``B`` (N x K) bf16, ``C`` (M x N) f32. One warpgroup
(128 threads) computes a 64 x 128 tile of ``C``:

* ``smem.wgmma_tile`` allocates each operand in the canonical 128B-swizzled GMMA layout
  (two stages, 1024-byte aligned), which is exactly what a 64-column bf16 TMA box with
  ``Layout.TMA_128B`` writes. Passing the stage (``sA[s]``) to ``ptx.wgmma.mma_async``
  builds the 64-bit matrix descriptors on first use (``mov``/``bfe``/``cvt``/``or``) and
  offsets them with one ``add.s64`` for each 16-wide ``k_block``.
* Thread 0 runs the TMA side: ``mbarrier.arrive.expect_tx`` with the bytes of both boxes,
  then two ``cp.async.bulk.tensor.2d`` loads into the next stage while the current one is
  consumed.
* Per k-tile: ``mbarrier.try_wait.parity`` on the stage's barrier, ``wgmma.fence``, four
  ``wgmma.mma_async`` (K = 64), ``wgmma.commit_group`` and ``wgmma.wait_group 0``. The first
  MMA of the first k-tile passes a predicate as ``scale-d`` so it overwrites the uninitialized
  accumulators instead of adding to them.
* A ``bar.sync`` before each refill guarantees that every warp has finished reading the
  stage being overwritten.

The epilogue stores the 64 accumulator registers per thread (fragment layout: warp ``w``
owns rows ``16w .. 16w+15``) with ``st.global.v2.f32``.
"""

from pyptx import Layout, Tile, kernel, ptx, reg, smem
from pyptx.types import bf16, f32, u32, u64

SHAPE = {"M": 4096, "N": 4096, "K": 4096}  # the size the snapshot is traced at
BM, BN, BK = 64, 128, 64
STAGES = 2
STAGE_TX = (BM + BN) * BK * 2  # bytes one k-tile brings in


@kernel(
    in_specs=(
        Tile.wgmma_a("M", "K", bf16, tile_m=BM, tile_k=BK),
        Tile("N", "K", bf16, layout=Layout.TMA_128B, tma_box=(BN, BK)),
    ),
    out_specs=(Tile("M", "N", f32),),
    grid=lambda M, N: (N // BN, M // BM, 1),
    block=(128, 1, 1),
    arch="sm_90a",
)
def wgmma_gemm(a, b, c):
    K, N = a.shape[1], b.shape[0]
    desc_a, desc_b, pc = a.tma_desc(), b.tma_desc(), c.ptr()
    s_a = smem.wgmma_tile(bf16, (STAGES, BM, BK), name="sA")  # K-major A
    s_b = smem.wgmma_tile(bf16, (STAGES, BN, BK), name="sB")  # K-major B (N x K)
    full = smem.mbarrier(STAGES, name="full")
    tid = reg.from_(ptx.special.tid.x(), u32)
    m0 = reg.from_(ptx.special.ctaid.y(), u32) << 6  # * BM
    n0 = reg.from_(ptx.special.ctaid.x(), u32) << 7  # * BN
    leader = tid == 0

    def load(stage, k0):
        ptx.mbarrier.arrive.expect_tx(full[stage], STAGE_TX)
        ptx.cp.async_.bulk.tensor(s_a[stage], desc_a, (k0, m0), full[stage])
        ptx.cp.async_.bulk.tensor(s_b[stage], desc_b, (k0, n0), full[stage])

    with ptx.if_(leader):
        for s in range(STAGES):
            ptx.mbarrier.init(full[s], 1)
        ptx.fence.mbarrier_init()
    ptx.bar.sync(0)
    with ptx.if_(leader):
        load(0, 0)

    acc = reg.wgmma_frag(BN)
    k_tiles = K // BK
    for kt in ptx.range_(0, k_tiles, STAGES):
        phase = (kt >> 1) & 1  # stage s holds k-tile kt + s for the (kt / 2)-th time
        accumulate = kt != 0
        for s in range(STAGES):
            ptx.bar.sync(0)  # all warps are done with the stage refilled below
            refill = leader & (kt < k_tiles - s - 1)
            with ptx.if_(refill):
                k_next = reg.scalar(u32)
                ptx.mad(k_next, kt, BK, (s + 1) * BK, mode="lo")
                load((s + 1) % STAGES, k_next)
            ptx.mbarrier.wait(full[s], phase)
            ptx.wgmma.fence()
            for kk in range(BK // 16):
                scale_d = accumulate if s == 0 and kk == 0 else 1
                ptx.wgmma.mma_async(acc, s_a[s], s_b[s], k_block=kk, scale_d=scale_d)
            ptx.wgmma.commit_group()
            ptx.wgmma.wait_group(0)

    # d[4j], d[4j+1] -> row 16w + g, cols 8j + 2q, +1; d[4j+2], d[4j+3] -> row + 8.
    lane, warp = tid & 31, tid >> 5
    row, col = reg.scalar(u32), reg.scalar(u32)
    ptx.mad(row, warp, 16, m0 + (lane >> 2), mode="lo")
    ptx.mad(col, lane & 3, 2, n0, mode="lo")
    elem, out = reg.scalar(u32), reg.scalar(u64)
    ptx.mad(elem, row, N, col, mode="lo")
    ptx.mad(out, elem, 4, pc, mode="wide")
    for j in range(BN // 8):
        for half in range(2):
            pair = (acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1])
            ptx.st(ptx.addr(out, (half * 8 * N + 8 * j) * 4), pair, space="global")


if __name__ == "__main__":
    print(wgmma_gemm.ptx(**SHAPE), end="")
