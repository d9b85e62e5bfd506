"""Warp-specialized Hopper GEMM: a producer and two consumer warpgroups, a 2-CTA cluster.

``C = A @ B.T`` (bf16 in, f32 out), a 128 x 128 tile per CTA, a ``STAGES``-deep smem ring.

Roles (384 threads, three warpgroups):

* warpgroup 0 is the **producer**. It hands registers back (``setmaxnreg.dec 40``) and one
  thread, chosen with ``elect.sync``, streams k-tiles: wait until stage ``s`` is empty, arm
  ``full[s]`` with the stage's byte count (``mbarrier.arrive.expect_tx``), issue the TMA
  loads.
* warpgroups 1 and 2 are **consumers**. They take the registers (``setmaxnreg.inc 232``),
  wait on ``full[s]``, run four ``wgmma.mma_async`` m64n128k16 on their 64 rows of the
  stage, and release it. ``.maxntid 384`` with ``.minnctapersm 1`` tells ptxas the register
  budget at entry (168), without which it ignores ``setmaxnreg``.

The two CTAs of a cluster (``cluster=(2, 1, 1)``) compute neighbouring N tiles of the same
rows, so they need the same A tile. Each CTA loads half of it (64 rows) with
``.multicast::cluster`` and mask ``0b11``: the box lands at the same offset in both CTAs and
completes the transaction count of both CTAs' ``full[s]``, so each ``full[s]`` expects the
whole A tile plus its own B tile. Because a producer writes into its peer's stage too,
``empty[s]`` counts sixteen arrivals: every consumer warp of *both* CTAs arrives on both
CTAs' barriers (``mapa`` gives the cluster address, ``mbarrier.arrive.release.cluster
.shared::cluster`` signals it).

A consumer warpgroup's A operand starts 64 rows into the stage, a run-time choice: its
descriptor is built once from the tile's layout (``ptx.wgmma.descriptor``), moved by
``mad.wide`` and then advanced per stage and k step by one ``add``. B stays a tile operand,
so ``ptx.wgmma.mma_async`` derives its descriptors itself.

Cluster barriers bracket the kernel: the first makes every CTA's mbarrier initialization
visible before a peer can multicast into it or arrive on it; the last keeps a CTA (and its
shared memory) alive until its peer has stopped arriving on its barriers.
"""

from pyptx import Layout, Tile, kernel, ptx, reg, smem
from pyptx.types import bf16, f32, u32, u64

SHAPE = {"M": 4096, "N": 4096, "K": 4096}  # the size the snapshot is traced at
BM, BN, BK = 128, 128, 64
STAGES = 4
CLUSTER = 2
HALF_A = BM // CLUSTER  # rows of A each CTA of the pair loads
A_STAGE_BYTES = BM * BK * 2
STAGE_TX = (BM + BN) * BK * 2  # bytes that complete full[s]: all of A, this CTA's B
CONSUMER_WARPS = 8
THREADS = 384


@kernel(
    in_specs=(
        Tile.wgmma_a("M", "K", bf16, tile_m=HALF_A, tile_k=BK),
        Tile("N", "K", bf16, layout=Layout.TMA_128B, tma_box=(BN, BK)),
    ),
    out_specs=(Tile("M", "N", f32),),
    grid=lambda M, N: (N // BN, M // BM, 1),
    block=(THREADS, 1, 1),
    cluster=(CLUSTER, 1, 1),
    raw_directives=[("maxntid", (THREADS, 1, 1)), ("minnctapersm", (1,))],
    arch="sm_90a",
)
def ws_gemm(a, b, c):
    K, N = a.shape[1], b.shape[0]
    desc_a, desc_b, pc = a.tma_desc(), b.tma_desc(), c.ptr()
    s_a = smem.wgmma_tile(bf16, (STAGES, BM, BK), name="sA")  # K-major A
    s_b = smem.wgmma_tile(bf16, (STAGES, BN, BK), name="sB")  # K-major B (N x K)
    full = smem.mbarrier(STAGES, name="full")
    empty = smem.mbarrier(STAGES, name="empty")

    tid = reg.from_(ptx.special.tid.x(), u32)
    warp, lane = tid >> 5, tid & 31
    rank = reg.from_(ptx.special.cluster_ctarank(), u32)
    m0 = reg.from_(ptx.special.ctaid.y(), u32) << 7  # * BM
    n0 = reg.from_(ptx.special.ctaid.x(), u32) << 7  # * BN
    k_tiles = K // BK

    with ptx.if_(tid == 0):
        for s in range(STAGES):
            ptx.mbarrier.init(full[s], 1)
            ptx.mbarrier.init(empty[s], CONSUMER_WARPS * CLUSTER)
        ptx.fence.mbarrier_init()
    ptx.cluster.arrive(sem="release", aligned=True)
    ptx.cluster.wait(aligned=True)

    with ptx.if_(warp < 4):
        # ------------------------------------------------------------------ producer
        ptx.setmaxnreg.dec(40)
        with ptx.if_(warp == 0), ptx.if_(ptx.elect.sync()):
            a_row = reg.scalar(u32)
            ptx.mad(a_row, rank, HALF_A, m0, mode="lo")
            a_dst = reg.scalar(u32)  # this CTA's half of stage 0 of sA
            ptx.mad(a_dst, rank, HALF_A * BK * 2, smem.base(s_a), mode="lo")
            for kt in ptx.range_(0, k_tiles, STAGES):
                free = ((kt >> 2) & 1) ^ 1  # parity of the consumers' last release
                k_base = kt << 6  # * BK
                for s in range(STAGES):
                    k0 = k_base + s * BK if s else k_base
                    ptx.mbarrier.wait(empty[s], free)
                    ptx.mbarrier.arrive.expect_tx(full[s], STAGE_TX)
                    a_box = ptx.addr(a_dst, s * A_STAGE_BYTES)
                    ptx.cp.async_.bulk.tensor(a_box, desc_a, (k0, a_row), full[s], multicast=0b11)
                    ptx.cp.async_.bulk.tensor(s_b[s], desc_b, (k0, n0), full[s])
    with ptx.else_():
        # ----------------------------------------------------------------- consumers
        ptx.setmaxnreg.inc(232)
        consumer = (tid >> 7) - 1  # 0 or 1: which 64 rows of the tile
        a_desc = reg.scalar(u64)
        ptx.mad(a_desc, consumer, 64 * BK * 2 >> 4, ptx.wgmma.descriptor(s_a[0]), mode="wide")
        acc = reg.wgmma_frag(BN)
        signaller = ptx.elect.sync()  # one lane per consumer warp releases stages
        empty_base = smem.base(empty)
        empty_here = ptx.mapa(empty_base, rank)
        empty_peer = ptx.mapa(empty_base, rank ^ 1)
        for kt in ptx.range_(0, k_tiles, STAGES):
            phase = (kt >> 2) & 1
            accumulate = kt != 0
            for s in range(STAGES):
                ptx.mbarrier.wait(full[s], phase)
                ptx.wgmma.fence()
                for kk in range(BK // 16):
                    # the descriptor's address field counts 16-byte units
                    step = (s * A_STAGE_BYTES + kk * 32) >> 4
                    a_op = a_desc + step if step else a_desc
                    scale_d = accumulate if s == 0 and kk == 0 else 1
                    ptx.wgmma.mma_async(acc, a_op, s_b[s], k_block=kk, scale_d=scale_d)
                ptx.wgmma.commit_group()
                ptx.wgmma.wait_group(0)
                with ptx.if_(signaller):
                    for target in (empty_here, empty_peer):
                        ptx.mbarrier.arrive(
                            ptx.addr(target, 8 * s),
                            sem="release",
                            scope="cluster",
                            space="shared::cluster",
                        )

        # Epilogue: consumer warp w (0..7) owns rows 16w .. 16w + 15 of the tile.
        row, col = reg.scalar(u32), reg.scalar(u32)
        ptx.mad(row, warp - 4, 16, m0 + (lane >> 2), mode="lo")
        ptx.mad(col, lane & 3, 2, n0, mode="lo")
        elem, out = reg.scalar(u32), reg.scalar(u64)
        ptx.mad(elem, row, N, col, mode="lo")
        ptx.mad(out, elem, 4, pc, mode="wide")
        for j in range(BN // 8):
            for half in range(2):
                pair = (acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1])
                ptx.st(ptx.addr(out, (half * 8 * N + 8 * j) * 4), pair, space="global")

    ptx.cluster.arrive(sem="release")
    ptx.cluster.wait()


if __name__ == "__main__":
    print(ws_gemm.ptx(**SHAPE), end="")
