"""The pieces every Blackwell GEMM kernel of :mod:`pyptx.kernels.blackwell.gemm` is made of.

A CTA of four warps (128 threads) computes a 128-row slice of a ``BM x BN`` output tile:

* warp 0, one lane: the **TMA producer** (:func:`produce`) fills a ring of ``stages`` shared
  memory stages, each one k-tile (``BK = 64``) of A and of B;
* warp 1, one lane: the **MMA issuer** (:func:`issue_mmas`) runs four ``tcgen05.mma``
  (K = 16 each) per k-tile into a Tensor Memory (TMEM) accumulator and hands each stage back
  with ``tcgen05.commit``;
* all four warps: the **epilogue** (:func:`epilogue`) reads the accumulator out of TMEM
  (warp ``w`` may only touch TMEM lanes ``32w .. 32w + 31``, i.e. its 32 rows), converts it to
  bf16 and stores it with predicated ``st.global``.

With ``cta_group = 2`` two CTAs of a cluster (ranks 0 and 1) share one ``M = 256`` MMA:
each loads its own 128 rows of A and half of the tile's columns of B, rank 0 issues the MMAs
for both, and each CTA's TMEM receives its own 128 rows of D (PTX ISA "Matrix multiply
with .cta_group::2", data-path layout "Layout A").

Layouts (PTX ISA "Shared memory descriptor" and the canonical layouts of "Matrix
descriptors"):

* A is ``(M, K)`` row-major, so K-major: the TMA box is ``128 rows x 64 K`` with the 128-byte
  swizzle, i.e. 8-row x 128-byte swizzle atoms stacked along M, ``SBO = 1024`` bytes between
  8-row groups (``LBO`` is unused by swizzled K-major layouts). One MMA consumes 16 K = 32
  bytes, so the descriptor's start address moves by 32 bytes per MMA inside the atom.
* B is ``(K, N)`` row-major, so N-major ("MN-major", transpose-B bit set in the instruction
  descriptor): each TMA box is ``64 K rows x 64 N`` (128 bytes per row, 128-byte swizzle),
  one box per 64 columns. In the canonical MN-major SW128 layout
  ``((8,8,n),(8,k)) : ((1,8,LBO),(64,SBO))`` (elements) the 64 contiguous N of a row form a
  swizzle row, K rows are 128 bytes apart, 8-row K groups ``SBO = 1024`` bytes apart, and the
  64-column chunks ``LBO = 64 * 128 = 8192`` bytes apart (one box each). One MMA consumes
  16 K rows = 2048 bytes.
* The accumulator (f32) is ``BN`` TMEM columns of 128 lanes: row ``r`` of the CTA's slice in
  lane ``r``, column ``n`` in column ``n`` (layout D).
"""

from __future__ import annotations

from dataclasses import dataclass

from pyptx import ptx, reg, smem
from pyptx.dsl import umma
from pyptx.reg import Reg
from pyptx.types import b32, bf16, bf16x2, f32, u32, u64

__all__ = [
    "BK",
    "BM",
    "THREADS",
    "Config",
    "Pipeline",
    "epilogue",
    "issue_mmas",
    "produce",
    "setup",
    "teardown",
]

BM = 128
"""Rows of the output tile one CTA holds (the TMEM lanes)."""
BK = 64
"""K per pipeline stage: one 128-byte swizzle row of bf16."""
CHUNK = 64
"""Columns of B per TMA box (one 128-byte swizzle row)."""
MMA_K = 16
"""K of one ``tcgen05.mma.kind::f16``."""
THREADS = 128
"""Four warps: TMEM lanes are split in four 32-lane quarters, one per warp."""

A_STAGE = BM * BK * 2
B_CHUNK = BK * CHUNK * 2
SW128_SBO = 8 * 128  # bytes between 8-row groups of 128-byte rows


@dataclass(frozen=True)
class Config:
    """A kernel configuration.

    Attributes:
        bn: columns of the output tile of one MMA (and TMEM columns): 128 or 256.
        stages: depth of the shared-memory ring (a power of two, 2 to 8).
        cta_group: 1 (one CTA per MMA) or 2 (a CTA pair shares an ``M = 256`` MMA).
    """

    bn: int
    stages: int
    cta_group: int

    @property
    def b_cols(self) -> int:
        """Columns of B each CTA loads per stage (half the tile with ``cta_group = 2``)."""
        return self.bn // self.cta_group

    @property
    def b_stage(self) -> int:
        """Bytes of B per stage in one CTA."""
        return BK * self.b_cols * 2

    @property
    def stage_tx(self) -> int:
        """Bytes the TMA loads of one stage bring to its ``full`` barrier (both CTAs)."""
        return (A_STAGE + self.b_stage) * self.cta_group

    @property
    def idesc(self) -> int:
        """The instruction descriptor: bf16 x bf16 -> f32, M = 128 * cta_group, N = bn."""
        return umma.instr_desc(
            "f16",
            m=BM * self.cta_group,
            n=self.bn,
            d_type=f32,
            a_type=bf16,
            b_type=bf16,
            transpose_b=True,  # B is N-major in shared memory
        )

    @property
    def smem_bytes(self) -> int:
        """Shared memory of the operand ring (barriers and the TMEM slot add < 256 bytes)."""
        return self.stages * (A_STAGE + self.b_stage)


@dataclass
class Pipeline:
    """What the roles share: shared memory, barriers, TMEM address and thread coordinates."""

    cfg: Config
    s_a: Reg  # shared address of stage 0 of A
    s_b: Reg  # shared address of stage 0 of B
    full: Reg  # shared address of full[0] (8 bytes per stage)
    empty: Reg  # shared address of empty[0]
    done: Reg  # shared address of the accumulator-ready barrier
    tmem: Reg  # TMEM address of the accumulator (lane 0, first column)
    warp: Reg
    lane: Reg
    rank: Reg | None  # cluster rank (0 or 1) with cta_group = 2


def setup(cfg: Config) -> Pipeline:
    """Allocate shared memory, initialize the barriers, allocate TMEM; sync the CTA (pair).

    Emits the allocation by warp 0 (``tcgen05.alloc`` writes the TMEM address into shared
    memory; ``relinquish_alloc_permit`` lets other CTAs on the SM allocate), the barrier
    initialization by thread 0 with ``fence.mbarrier_init``, then the
    ``tcgen05.fence::before_thread_sync`` / barrier / ``fence::after_thread_sync`` sandwich
    that orders the allocation before every thread reads the address. With
    ``cta_group = 2`` the barrier is the cluster barrier: the peer's TMA completes on rank
    0's ``full`` barriers and rank 0's commits arrive on the peer's ``empty`` barriers, so
    both must be initialized before either CTA starts.
    """
    group = cfg.cta_group
    s_a = smem.alloc(bf16, (cfg.stages, BM, BK), align=1024, name="sA")
    s_b = smem.alloc(bf16, (cfg.stages, cfg.b_cols // CHUNK, BK, CHUNK), align=1024, name="sB")
    full = smem.mbarrier(cfg.stages, name="full")
    empty = smem.mbarrier(cfg.stages, name="empty")
    done = smem.mbarrier(1, name="done")
    slot = smem.alloc(u32, 1, align=16, name="tmem_slot")

    tid = reg.from_(ptx.special.tid.x(), u32)
    warp, lane = tid >> 5, tid & 31
    rank = reg.from_(ptx.special.cluster_ctarank(), u32) if group == 2 else None

    with ptx.if_(warp == 0):
        ptx.tcgen05.alloc(slot, cfg.bn, cta_group=group)
        ptx.tcgen05.relinquish_alloc_permit(cta_group=group)
    with ptx.if_(tid == 0):
        for s in range(cfg.stages):
            ptx.mbarrier.init(full[s], 1)  # one arrive.expect_tx per phase (rank 0's)
            ptx.mbarrier.init(empty[s], 1)  # one tcgen05.commit per phase
        ptx.mbarrier.init(done[0], 1)
        ptx.fence.mbarrier_init()
    _sync_with_tcgen05(group)
    tmem = smem.load(u32, slot)
    return Pipeline(
        cfg=cfg,
        s_a=smem.base(s_a),
        s_b=smem.base(s_b),
        full=smem.base(full),
        empty=smem.base(empty),
        done=smem.base(done),
        tmem=tmem,
        warp=warp,
        lane=lane,
        rank=rank,
    )


def _sync_with_tcgen05(group: int) -> None:
    """A CTA barrier (cluster barrier with ``cta_group = 2``) that orders tcgen05 operations.

    Every thread of the CTA, or of both CTAs of the pair, meets; the tcgen05 operations
    before the barrier are ordered before those after it. Emits
    ``tcgen05.fence::before_thread_sync``, then ``barrier.cluster.arrive.release`` +
    ``barrier.cluster.wait`` (pair) or ``bar.sync 0`` (one CTA), then
    ``tcgen05.fence::after_thread_sync``.
    """
    ptx.tcgen05.fence.before_thread_sync()
    if group == 2:
        ptx.cluster.arrive(sem="release", aligned=True)
        ptx.cluster.wait(aligned=True)
    else:
        ptx.bar.sync(0)
    ptx.tcgen05.fence.after_thread_sync()


def _stage(p: Pipeline, kt: Reg) -> tuple[Reg, Reg, Reg, Reg]:
    """(stage index, phase parity, full barrier, empty barrier) of k-tile ``kt``.

    k-tile ``kt`` uses stage ``kt % stages`` for the ``kt // stages``-th time, so it waits
    for the phase of that parity (``stages`` is a power of two: a mask and a shift).
    """
    stages = p.cfg.stages
    stage = kt & (stages - 1)
    phase = (kt >> (stages.bit_length() - 1)) & 1
    full, empty = reg.scalar(u32), reg.scalar(u32)
    ptx.mad(full, stage, 8, p.full, mode="lo")
    ptx.mad(empty, stage, 8, p.empty, mode="lo")
    return stage, phase, full, empty


def produce(
    p: Pipeline,
    k_tiles: int,
    desc_a: Reg,
    desc_b: Reg,
    a_row: Reg,
    b_col: Reg,
    b_group: Reg | None = None,
) -> None:
    """The TMA producer loop (call it from one thread of each CTA).

    For k-tile ``kt``: wait until the MMAs that last read its stage have completed (the
    ``empty`` barrier; a fresh barrier passes the wait on parity 1 at once), arm ``full``
    with the stage's byte count (rank 0 only, for both CTAs), and load 128 rows of A at
    ``(kt * BK, a_row)`` and ``b_cols / 64`` boxes of B at ``(b_col + 64 j, kt * BK)``
    (``(..., b_group)`` for a 3-D grouped B). Out-of-bounds elements of a box read as zero
    and still count in the transaction bytes, so edge tiles need no special case.

    With ``cta_group = 2`` the copies carry ``.cta_group::2`` and signal rank 0's ``full``
    barrier (its address mapped into the cluster window with ``mapa``): rank 0 waits for
    both halves before it issues the pair's MMA.
    """
    cfg = p.cfg
    for kt in ptx.range_(0, k_tiles, 1):
        stage, phase, full, empty = _stage(p, kt)
        ptx.mbarrier.wait(empty, phase ^ 1)
        if cfg.cta_group == 2:
            assert p.rank is not None
            with ptx.if_(p.rank == 0):
                ptx.mbarrier.arrive.expect_tx(full, cfg.stage_tx)
            full = ptx.mapa(full, 0)
        else:
            ptx.mbarrier.arrive.expect_tx(full, cfg.stage_tx)
        group = 2 if cfg.cta_group == 2 else None
        k0 = kt << 6  # * BK
        a_dst, b_dst = reg.scalar(u32), reg.scalar(u32)
        ptx.mad(a_dst, stage, A_STAGE, p.s_a, mode="lo")
        ptx.mad(b_dst, stage, cfg.b_stage, p.s_b, mode="lo")
        ptx.cp.async_.bulk.tensor(a_dst, desc_a, (k0, a_row), full, cta_group=group)
        for j in range(cfg.b_cols // CHUNK):
            col = b_col + j * CHUNK if j else b_col
            coords = (col, k0) if b_group is None else (col, k0, b_group)
            ptx.cp.async_.bulk.tensor(
                ptx.addr(b_dst, j * B_CHUNK), desc_b, coords, full, cta_group=group
            )


def issue_mmas(p: Pipeline, k_tiles: int) -> None:
    """The MMA loop (call it from one thread; with ``cta_group = 2`` from rank 0 only).

    For k-tile ``kt``: wait until both operands of its stage have landed (``full``), build
    the stage's shared-memory descriptors and issue ``BK / 16 = 4`` MMAs, the first of
    k-tile 0 overwriting the accumulator (``enable_input_d`` false), then ``tcgen05.commit``
    the stage's ``empty`` barrier: it arrives once those MMAs (and every earlier one) have
    finished reading shared memory, which is when the producer may refill it. A last commit
    on ``done`` tells the epilogue the accumulator is complete. With ``cta_group = 2`` the
    commits are multicast to the barrier at the same offset in both CTAs (mask ``0b11``).
    """
    cfg = p.cfg
    mask = 0b11 if cfg.cta_group == 2 else None
    for kt in ptx.range_(0, k_tiles, 1):
        stage, phase, full, empty = _stage(p, kt)
        ptx.mbarrier.wait(full, phase)
        a_addr, b_addr = reg.scalar(u32), reg.scalar(u32)
        ptx.mad(a_addr, stage, A_STAGE, p.s_a, mode="lo")
        ptx.mad(b_addr, stage, cfg.b_stage, p.s_b, mode="lo")
        a_desc = umma.smem_desc_reg(a_addr, lbo=16, sbo=SW128_SBO, swizzle="128B")
        b_desc = umma.smem_desc_reg(b_addr, lbo=B_CHUNK, sbo=SW128_SBO, swizzle="128B")
        accumulate = kt != 0
        for kk in range(BK // MMA_K):
            a_k = umma.smem_desc_advance(a_desc, kk * MMA_K * 2) if kk else a_desc
            b_k = umma.smem_desc_advance(b_desc, kk * MMA_K * 128) if kk else b_desc
            ptx.tcgen05.mma(
                p.tmem,
                a_k,
                b_k,
                cfg.idesc,
                kind="f16",
                cta_group=cfg.cta_group,
                enable_input_d=accumulate if kk == 0 else True,
            )
        ptx.tcgen05.commit(empty, cta_group=cfg.cta_group, multicast_mask=mask)
    ptx.tcgen05.commit(p.done, cta_group=cfg.cta_group, multicast_mask=mask)


def epilogue(p: Pipeline, out: Reg, row: Reg, row_end: Reg | int, col: Reg, n: int) -> None:
    """Accumulator -> bf16 -> global memory, one row per thread (all 128 threads).

    Thread ``(warp, lane)`` owns output row ``row`` (the caller passes the tile's first row
    plus ``32 * warp + lane``), i.e. TMEM lane ``32 * warp + lane``. For each 32 columns:
    ``tcgen05.ld.32x32b.x32`` (lane ``l`` of the warp receives 32 consecutive columns of TMEM
    lane ``32 * warp + l``), ``tcgen05.wait::ld`` (the registers are not valid before it),
    16 ``cvt.rn.bf16x2.f32`` and four predicated ``st.global.v4.b32`` of 8 columns each.
    A store is skipped when the row is ``>= row_end`` or its 8 columns are ``>= n`` (``n`` is
    a multiple of 8, so 8 columns are all in or all out).

    Args:
        p: the pipeline.
        out: global address of the output matrix (row-major, ``n`` columns, bf16).
        row: this thread's output row.
        row_end: rows ``>= row_end`` are not stored.
        col: the tile's first column.
        n: columns of the output.
    """
    ptx.mbarrier.wait(p.done, 0)
    # The mbarrier wait orders the MMAs' TMEM writes before this thread's tcgen05.ld.
    ptx.tcgen05.fence.after_thread_sync()
    # The waits above leave each lane on its own; tcgen05.ld is .sync.aligned.
    ptx.bar.warp.sync(0xFFFFFFFF)
    in_rows = row < row_end
    left = reg.scalar(u32)  # columns this thread may store: n - col, or 0 past the last row
    ptx.selp(left, n - col, 0, in_rows)
    row_off, row_ptr, dst = reg.scalar(u64), reg.scalar(u64), reg.scalar(u64)
    ptx.mul(row_off, row, n, mode="wide")  # row * n, 64-bit
    ptx.mad(row_ptr, row_off, 2, out, mode="lo")
    ptx.mad(dst, col, 2, row_ptr, mode="wide")  # + 2 * col
    taddr = p.tmem + (p.warp << 21)  # lane field (bits 31..16) = 32 * warp
    vals = reg.array(f32, 32)
    packed = reg.array(bf16x2, 16)
    for chunk in range(p.cfg.bn // 32):
        ptx.tcgen05.ld(vals, ptx.addr(taddr, 32 * chunk), shape="32x32b", num=32)
        ptx.tcgen05.wait.ld()
        for i in range(16):  # the upper half takes the odd column
            ptx.cvt(packed[i], vals[2 * i + 1], vals[2 * i], rnd="rn")
        for v in range(4):
            c = 32 * chunk + 8 * v
            ptx.st(
                ptx.addr(dst, 2 * c),
                tuple(packed[4 * v : 4 * v + 4]),
                ty=b32,
                space="global",
                pred=left > c,
            )


def teardown(p: Pipeline) -> None:
    """Free the TMEM columns once every warp (of both CTAs) has read them.

    ``tcgen05.fence::before_thread_sync`` orders this thread's ``tcgen05.ld`` before the
    barrier; with ``cta_group = 2`` the cluster barrier also keeps each CTA (its shared
    memory and barriers, which the peer's MMAs and commits use) alive until both are done.
    """
    group = p.cfg.cta_group
    _sync_with_tcgen05(group)
    with ptx.if_(p.warp == 0):
        ptx.tcgen05.dealloc(p.tmem, p.cfg.bn, cta_group=group)
