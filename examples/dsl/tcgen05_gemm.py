"""Blackwell bf16 GEMM tile with ``tcgen05``: TMEM accumulator, UMMA descriptors (sm_100a).

``C = A @ B.T`` with ``A`` (M x K) and ``B`` (N x K) bf16, ``C`` (M x N) f32. One CTA of
four warps computes a 128 x 128 tile:

1. warp 0 allocates 128 Tensor Memory columns (``tcgen05.alloc``, which writes the TMEM
   address to shared memory) and gives up its allocation permit; the
   ``tcgen05.fence::before_thread_sync`` / ``bar.sync`` / ``fence::after_thread_sync``
   sandwich hands the address to the other warps.
2. Thread 0 is both the TMA producer and the MMA issuer. It builds the shared-memory matrix
   descriptors of both stages once (``umma.smem_desc_reg``: K-major, 128-byte swizzle, 1024
   bytes between 8-row groups) and, per k-tile, issues four
   ``tcgen05.mma.cta_group::1.kind::f16`` (M=128, N=128, K=16 each, the K step moving the
   descriptors by 32 bytes with ``umma.smem_desc_advance``). The 32-bit instruction
   descriptor is a constant computed at trace time by ``umma.instr_desc``.
3. ``tcgen05.commit`` makes an mbarrier track the completion of the MMAs issued so far:
   ``empty[s]`` tells the producer when stage ``s`` may be refilled (the TMA for k-tile
   ``t + 1`` overlaps the MMAs of k-tile ``t``), ``done`` tells every thread the
   accumulator is final.
4. Each warp reads its 32 TMEM lanes (rows) with ``tcgen05.ld.sync.aligned.32x32b.x32``,
   32 columns at a time, waits with ``tcgen05.wait::ld`` and stores with
   ``st.global.v4.f32``. Finally warp 0 frees the columns (``tcgen05.dealloc``).

Two 32 KB stages exceed 48 KB, so the kernel uses dynamic shared memory automatically.
"""

from pyptx import Layout, Tile, kernel, ptx, reg, smem
from pyptx.dsl import umma
from pyptx.types import bf16, f32, u32, u64

SHAPE = {"M": 4096, "N": 4096, "K": 4096}  # the size the snapshot is traced at
BM, BN, BK = 128, 128, 64
STAGES = 2
STAGE_TX = (BM + BN) * BK * 2
TMEM_COLS = BN  # one f32 column per output column, one lane per output row
IDESC = umma.instr_desc("f16", m=BM, n=BN, d_type=f32, a_type=bf16, b_type=bf16)
SW128_K_MAJOR = {"lbo": 16, "sbo": 8 * 128, "swizzle": "128B"}  # 8 rows x 128 B atoms


@kernel(
    in_specs=(
        Tile("M", "K", bf16, layout=Layout.TMA_128B, tma_box=(BM, BK)),
        Tile("N", "K", bf16, layout=Layout.TMA_128B, tma_box=(BN, BK)),
    ),
    out_specs=(Tile("M", "N", f32),),
    grid=lambda M, N: (N // BN, M // BM, 1),
    block=(128, 1, 1),
    arch="sm_100a",
)
def tcgen05_gemm(a, b, c):
    K, N = a.shape[1], b.shape[0]
    desc_a, desc_b, pc = a.tma_desc(), b.tma_desc(), c.ptr()
    s_a = smem.alloc(bf16, (STAGES, BM, BK), swizzle="128B", align=1024, name="sA")
    s_b = smem.alloc(bf16, (STAGES, BN, BK), swizzle="128B", align=1024, name="sB")
    full = smem.mbarrier(STAGES, name="full")
    empty = smem.mbarrier(STAGES, name="empty")
    done = smem.mbarrier(1, name="done")
    tmem_slot = smem.alloc(u32, 1, align=16, name="tmem_slot")

    tid = reg.from_(ptx.special.tid.x(), u32)
    warp, lane = tid >> 5, tid & 31
    m0 = reg.from_(ptx.special.ctaid.y(), u32) << 7  # * BM
    n0 = reg.from_(ptx.special.ctaid.x(), u32) << 7  # * BN
    leader = tid == 0
    k_tiles = K // BK

    with ptx.if_(warp == 0):
        ptx.tcgen05.alloc(tmem_slot, TMEM_COLS)
        ptx.tcgen05.relinquish_alloc_permit()
    with ptx.if_(leader):
        for s in range(STAGES):
            ptx.mbarrier.init(full[s], 1)
            ptx.mbarrier.init(empty[s], 1)
        ptx.mbarrier.init(done[0], 1)
        ptx.fence.mbarrier_init()
    ptx.tcgen05.fence.before_thread_sync()
    ptx.bar.sync(0)
    ptx.tcgen05.fence.after_thread_sync()
    tmem = reg.scalar(u32)
    ptx.ld(tmem, tmem_slot.addr(), space="shared")

    with ptx.if_(leader):

        def load(stage, k0):
            ptx.mbarrier.arrive.expect_tx(full[stage], STAGE_TX)
            ptx.cp.async_.bulk.tensor(s_a[stage], desc_a, (k0, m0), full[stage])
            ptx.cp.async_.bulk.tensor(s_b[stage], desc_b, (k0, n0), full[stage])

        a_desc = [umma.smem_desc_reg(s_a[s], **SW128_K_MAJOR) for s in range(STAGES)]
        b_desc = [umma.smem_desc_reg(s_b[s], **SW128_K_MAJOR) for s in range(STAGES)]
        load(0, 0)
        for kt in ptx.range_(0, k_tiles, STAGES):
            phase = (kt >> 1) & 1
            accumulate = kt != 0
            for s in range(STAGES):
                # Refill the other stage with k-tile kt + s + 1 once the MMAs of k-tile
                # kt + s - 1, which read it, have completed (fresh barriers pass parity 1).
                with ptx.if_(kt < k_tiles - s - 1):
                    ptx.mbarrier.wait(empty[1 - s], phase ^ 1 if s == 0 else phase)
                    k_next = reg.scalar(u32)
                    ptx.mad(k_next, kt, BK, (s + 1) * BK, mode="lo")
                    load(1 - s, k_next)
                ptx.mbarrier.wait(full[s], phase)
                for kk in range(BK // 16):
                    a_k = umma.smem_desc_advance(a_desc[s], 32 * kk) if kk else a_desc[s]
                    b_k = umma.smem_desc_advance(b_desc[s], 32 * kk) if kk else b_desc[s]
                    enable = accumulate if s == 0 and kk == 0 else True
                    ptx.tcgen05.mma(tmem, a_k, b_k, IDESC, kind="f16", enable_input_d=enable)
                ptx.tcgen05.commit(empty[s])
        ptx.tcgen05.commit(done[0])

    ptx.mbarrier.wait(done[0], 0)
    ptx.tcgen05.fence.after_thread_sync()

    # Warp w owns TMEM lanes (tile rows) 32w .. 32w + 31; lane l holds row 32w + l.
    row = reg.scalar(u32)
    ptx.mad(row, warp, 32, m0 + lane, mode="lo")
    elem, out = reg.scalar(u32), reg.scalar(u64)
    ptx.mad(elem, row, N, n0, mode="lo")
    ptx.mad(out, elem, 4, pc, mode="wide")
    taddr = reg.scalar(u32)
    ptx.mad(taddr, warp, 32 << 16, tmem, mode="lo")  # lane field: bits 31..16
    vals = reg.array(f32, 32)
    for chunk in range(BN // 32):
        ptx.tcgen05.ld(vals, ptx.addr(taddr, 32 * chunk), shape="32x32b", num=32)
        ptx.tcgen05.wait.ld()
        for v in range(0, 32, 4):
            ptx.st(ptx.addr(out, (32 * chunk + v) * 4), tuple(vals[v : v + 4]), space="global")

    ptx.tcgen05.fence.before_thread_sync()
    ptx.bar.sync(0)
    with ptx.if_(warp == 0):
        ptx.tcgen05.dealloc(tmem, TMEM_COLS)


if __name__ == "__main__":
    print(tcgen05_gemm.ptx(**SHAPE), end="")
