"""The Hopper flash-attention forward kernel (sm_90a), written in the pyptx DSL.

One CTA computes ``BM = 128`` query rows of one (batch, head) against every key of that head
(causal: every key up to the tile's last row). 384 threads, three warpgroups:

* warpgroup 0 is the **producer**. It gives registers back (``setmaxnreg.dec``) and one
  elected thread of its first warp issues every TMA load: the Q tile once, then the K and V
  tiles of ``BN = 128`` keys through a ``STAGES``-deep ring of shared-memory stages, each
  stage guarded by a ``k_full``/``v_full`` barrier (TMA transaction bytes) and an ``empty``
  barrier (one arrival per consumer warp).
* warpgroups 1 and 2 are the **consumers**, 64 query rows each. Per K/V tile j they compute
  ``S = Q K_j^T`` (``wgmma`` m64n128k16, both operands from shared memory, f32
  accumulators), mask it, run the online softmax in registers, convert ``P`` to 16-bit pairs
  in registers and accumulate ``O += P V_j`` with a ``wgmma`` whose A operand is those
  registers.

Two overlaps keep the tensor cores busy (FlashAttention-3):

* **within a warpgroup**, the loop is software-pipelined: iteration j issues ``S_j = Q K_j^T``
  *and* ``O += P_{j-1} V_{j-1}`` back to back, waits only for ``S_j``
  (``wgmma.wait_group 1``), runs the softmax of tile j while the P V product is still in
  flight, and waits for it (``wait_group 0``) only before rescaling O and overwriting the P
  registers;
* **between the two warpgroups** ("ping-pong"), named barriers 1 and 2 make them take turns
  issuing their wgmmas, so that one warpgroup's softmax runs while the other's matrix
  products do.

Tensors are seen as 2-D row-major matrices ``(batch * heads * seq, head_dim)``: one TMA
descriptor each for Q, K and V, with a box of 128 rows by 64 columns (64 16-bit elements are
one 128-byte swizzle row; a 128-wide head is two boxes). Head ``bh``'s rows start at
``bh * seq``; a tile that runs past its head's last row reads the next head's rows (or, for
the last head, TMA's zero fill), and those keys are masked to ``-inf`` and those query rows
never stored. Sequence lengths are run-time parameters, so one PTX serves every length.

Shared-memory layouts (``smem.wgmma_tile``): a tile of R rows x D columns is stored as D/64
*chunks*; chunk c holds columns 64c..64c+63 of every row, 128 bytes per row, 16-byte pieces
XORed with the row index modulo 8 (the 128B swizzle, exactly what a 128-row x 64-column TMA
box with ``SWIZZLE_128B`` writes). Q and K are read K-major (rows are the M/N dimension, the
head dim is the reduction), V MN-major (keys are the reduction, the head dim is N): the very
same bytes serve both, only the descriptor's fields and the transpose flag differ.

Register fragments (PTX ISA, wgmma m64nNk16 figures), for lane ``4g + q`` of warp ``w`` of a
warpgroup: accumulator element ``d[4j + e]`` (``e`` = 0..3) holds row ``16w + g + 8 * (e >= 2)``,
column ``8j + 2q + e % 2``. The 16-bit A fragment of the k-th 16-column slice is four 32-bit
registers: rows ``g`` and ``g + 8`` by columns ``2q, 2q + 1`` and ``2q + 8, 2q + 9``, which are
the accumulator elements ``d[8k .. 8k + 7]`` packed pairwise. So ``P`` needs no data
movement: ``cvt.rn.bf16x2.f32`` of neighbouring accumulators is already the A operand of
``O += P V``. The row max and sum reduce over the four lanes of a quad (two ``shfl.bfly``).
The code reads element ``i``'s place from ``ptx.wgmma_acc_offsets(N)[i]`` = (``8 * (e >= 2)``,
``8j + e % 2``), relative to the thread's row ``16w + g`` and column ``2q``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from pyptx import Kernel, Layout, TensorArg, Tile, kernel, ptx, reg, smem
from pyptx.reg import Reg
from pyptx.smem import MbarrierArray, SharedAlloc
from pyptx.types import bf16, bf16x2, f16, f16x2, f32, pred, s32, u32, u64

__all__ = ["BM", "BN", "HEAD_DIMS", "STAGES", "THREADS", "attention_kernel"]

BM = 128
"""Query rows per CTA: two consumer warpgroups of 64 rows."""
BN = 128
"""Keys per K/V tile (the N of ``S = Q K^T``, the K of ``O += P V``)."""
STAGES = 2
"""K/V tiles in flight: the producer loads tile ``j + 1`` while the consumers use tile ``j``."""
THREADS = 384
"""One producer warpgroup and two consumer warpgroups."""
HEAD_DIMS = (64, 128)
"""The head dims the kernel is built for."""

_CHUNK = 64  # 16-bit elements in one 128-byte swizzle row (one TMA box width)
_ROW_BYTES = 128  # bytes of one row of one chunk
_LOG2E = 1.4426950408889634
_NEG_INF = float("-inf")
_PRODUCER_REGS = 40  # setmaxnreg budgets: 128 * 40 + 256 * 232 = 64512 <= 65536
_CONSUMER_REGS = 232
_CONSUMER_WARPS = 8
# The ping-pong's named barriers (0 is the CTA-wide bar.sync): barrier 1 gives consumer
# warpgroup 0 its turn, barrier 2 warpgroup 1; both warpgroups (256 threads) take part in each.
_TURNS = (ptx.named_barrier(1, count=256), ptx.named_barrier(2, count=256))

_TYPES = {"bf16": (bf16, bf16x2), "f16": (f16, f16x2)}


@dataclass(frozen=True)
class _Config:
    """What one build of the kernel is specialized on (Python constants at trace time)."""

    head_dim: int
    causal: bool
    elem: Any  # bf16 / f16
    pair: Any  # bf16x2 / f16x2

    @property
    def chunks(self) -> int:
        """64-column chunks (TMA boxes) per row of Q, K or V."""
        return self.head_dim // _CHUNK

    @property
    def stage_bytes(self) -> int:
        """Bytes of one K (or V) stage."""
        return BN * self.head_dim * 2

    @property
    def scale_log2(self) -> float:
        """``log2(e) / sqrt(head_dim)``: ``exp(s * scale - m) = 2^(s * c - m * c)``."""
        return _LOG2E / math.sqrt(self.head_dim)


@dataclass(frozen=True)
class _Shared:
    """The kernel's shared memory: the tiles and their barriers."""

    q: SharedAlloc  # (BM, D), K-major
    k: SharedAlloc  # (STAGES, BN, D), K-major
    v: SharedAlloc  # (STAGES, BN, D), MN-major (the same bytes, read transposed)
    q_full: MbarrierArray  # Q landed (TMA bytes)
    k_full: MbarrierArray  # K stage s landed
    v_full: MbarrierArray  # V stage s landed
    empty: MbarrierArray  # stage s released by every consumer warp


@dataclass(frozen=True)
class _Tile:
    """Per-CTA run-time values every role uses."""

    seq_q: Reg
    seq_k: Reg
    bh: Reg  # batch * heads index
    m_tile: Reg  # query tile index within the head
    m0: Reg  # first query row of the tile within the head
    n_tiles: Reg  # K/V tiles this CTA reads


@cache
def attention_kernel(head_dim: int, causal: bool, dtype: str = "bf16") -> Kernel:
    """The flash-attention forward kernel for one head dim, mask and element type.

    The kernel takes ``q`` ``(BH * SQ, D)``, ``k`` and ``v`` ``(BH * SK, D)`` (TMA tiles),
    writes ``o`` ``(BH, SQ, D)`` and reads the scalars ``seq_q`` and ``seq_k``; the grid is
    ``(ceil(SQ / 128), BH)``. The output's dims ``BH`` and ``SQ`` must be passed as keywords
    at the call (no input fixes them).

    Args:
        head_dim: 64 or 128.
        causal: mask key ``j > i`` for query ``i`` (top-left aligned, as torch's
            ``is_causal``).
        dtype: ``"bf16"`` or ``"f16"``, for Q, K, V and O.

    Raises:
        ValueError: an unsupported head dim or dtype.
    """
    if head_dim not in HEAD_DIMS:
        raise ValueError(f"head_dim must be one of {HEAD_DIMS}, got {head_dim}")
    if dtype not in _TYPES:
        raise ValueError(f"dtype must be one of {tuple(_TYPES)}, got {dtype!r}")
    cfg = _Config(head_dim, causal, *_TYPES[dtype])

    def tma_tile(rows: str, box_rows: int) -> Tile:
        return Tile(rows, head_dim, cfg.elem, layout=Layout.TMA_128B, tma_box=(box_rows, _CHUNK))

    # zero_outputs=False: the grid has a CTA per 128 query rows of every head, and the
    # epilogue stores every column of each of its rows below seq_q (= SQ, as the call
    # passes it), so every element of o is written.
    @kernel(
        in_specs=(tma_tile("RQ", BM), tma_tile("RK", BN), tma_tile("RK", BN)),
        out_specs=(Tile("BH", "SQ", head_dim, cfg.elem),),
        raw_params=[("u32", "seq_q"), ("u32", "seq_k")],
        grid=lambda BH, SQ: ((SQ + BM - 1) // BM, BH, 1),
        block=(THREADS, 1, 1),
        raw_directives=[("maxntid", (THREADS, 1, 1)), ("minnctapersm", (1,))],
        arch="sm_90a",
        zero_outputs=False,
    )
    def flash_attention_fwd(q: TensorArg, k: TensorArg, v: TensorArg, o: TensorArg) -> None:
        sh = _Shared(
            q=smem.wgmma_tile(cfg.elem, (BM, head_dim), name="sQ"),
            k=smem.wgmma_tile(cfg.elem, (STAGES, BN, head_dim), name="sK"),
            v=smem.wgmma_tile(cfg.elem, (STAGES, BN, head_dim), major="MN", name="sV"),
            q_full=smem.mbarrier(1, name="q_full"),
            k_full=smem.mbarrier(STAGES, name="k_full"),
            v_full=smem.mbarrier(STAGES, name="v_full"),
            empty=smem.mbarrier(STAGES, name="empty"),
        )
        tid = reg.from_(ptx.special.tid.x(), u32)
        warp = tid >> 5
        tile = _tile_values(cfg)

        with ptx.if_(tid == 0):
            ptx.mbarrier.init(sh.q_full[0], 1)
            for s in range(STAGES):
                ptx.mbarrier.init(sh.k_full[s], 1)
                ptx.mbarrier.init(sh.v_full[s], 1)
                ptx.mbarrier.init(sh.empty[s], _CONSUMER_WARPS)
            ptx.fence.mbarrier_init()  # make the initialized barriers visible to the async proxy
        ptx.bar.sync(0)  # ... and to every thread before anyone waits or arrives on them

        with ptx.if_(warp < 4):
            ptx.setmaxnreg.dec(_PRODUCER_REGS)
            with ptx.if_(warp == 0), ptx.if_(ptx.elect.sync()):
                _producer(cfg, sh, tile, q, k, v)
        with ptx.else_():
            ptx.setmaxnreg.inc(_CONSUMER_REGS)
            _consumer(cfg, sh, tile, o, warp, tid & 31)

    return flash_attention_fwd


def _tile_values(cfg: _Config) -> _Tile:
    """Read the lengths and this CTA's coordinates; count the K/V tiles it reads."""
    seq_q, seq_k = ptx.param("seq_q"), ptx.param("seq_k")
    bh = reg.from_(ptx.special.ctaid.y(), u32)
    m_tile = reg.from_(ptx.special.ctaid.x(), u32)
    if cfg.causal:  # the longest rows first: the CTAs that start last have the least work
        m_tile = reg.from_(ptx.special.nctaid.x(), u32) - 1 - m_tile
    m0 = m_tile << 7  # * BM
    kv_end = seq_k  # keys read: all, or (causal) none past the tile's last row
    if cfg.causal:
        kv_end = reg.scalar(u32)
        ptx.min(kv_end, seq_k, m0 + BM)
    n_tiles = (kv_end + (BN - 1)) >> 7  # ceil(kv_end / BN) >= 1
    return _Tile(seq_q, seq_k, bh, m_tile, m0, n_tiles)


# ---------------------------------------------------------------------------------- producer


def _producer(
    cfg: _Config, sh: _Shared, tile: _Tile, q: TensorArg, k: TensorArg, v: TensorArg
) -> None:
    """One thread: load Q once, then stream K/V tiles into the ring of stages."""
    q_row = reg.scalar(u32)  # rows of the 2-D views: head bh starts at bh * seq
    ptx.mad(q_row, tile.bh, tile.seq_q, tile.m0, mode="lo")
    ptx.mbarrier.arrive.expect_tx(sh.q_full[0], BM * cfg.head_dim * 2)
    for c in range(cfg.chunks):
        box = sh.q.addr(c * BM * _ROW_BYTES)
        ptx.tma.load_2d(box, q.tma_desc(), row=q_row, col=c * _CHUNK, mbar=sh.q_full[0])

    k_row = reg.scalar(u32)
    ptx.mul(k_row, tile.bh, tile.seq_k, mode="lo")
    e_base = smem.base(sh.empty)
    loads = [(k.tma_desc(), smem.base(sh.k), smem.base(sh.k_full))]
    loads.append((v.tma_desc(), smem.base(sh.v), smem.base(sh.v_full)))
    for kt in ptx.range_(0, tile.n_tiles, 1):
        stage = kt & (STAGES - 1)
        # The stage's (kt / STAGES)-th fill: wait until every consumer warp released the
        # previous one, i.e. for the parity of the phase before. For the first fill that is
        # the phase "before" the barrier's first, which try_wait.parity counts as complete.
        free = ((kt >> 1) & 1) ^ 1
        bar_off = stage << 3
        ptx.mbarrier.wait(ptx.addr(e_base + bar_off), free)
        buf_off = reg.scalar(u32)
        ptx.mul(buf_off, stage, cfg.stage_bytes, mode="lo")
        for desc, buf_base, full_base in loads:
            full = full_base + bar_off
            # Arm the barrier with the stage's bytes (out-of-bounds rows of the box are
            # zero-filled and still counted), then let the copies complete them.
            ptx.mbarrier.arrive.expect_tx(ptx.addr(full), cfg.stage_bytes)
            dst = buf_base + buf_off
            for c in range(cfg.chunks):
                box = ptx.addr(dst, c * BN * _ROW_BYTES)
                ptx.tma.load_2d(box, desc, row=k_row, col=c * _CHUNK, mbar=ptx.addr(full))
        ptx.add(k_row, k_row, BN)


# --------------------------------------------------------------------------------- consumers


@dataclass
class _Softmax:
    """One consumer thread's registers: its two rows' running state and its fragments."""

    s: Sequence[Reg]  # S (then P in f32): m64n128 accumulator
    o: Sequence[Reg]  # O: m64nD accumulator
    p: Sequence[Reg]  # P packed in pairs: BN / 16 A fragments of 4 registers
    m: list[Reg]  # running row max of the raw scores, rows g and g + 8
    sums: list[Reg]  # running row sum over this lane's columns (the quad adds up at the end)
    limits: list[Reg]  # the first key each row may not see: seq_k, or (causal) row + 1


def _consumer(cfg: _Config, sh: _Shared, tile: _Tile, o: TensorArg, warp: Reg, lane: Reg) -> None:
    """The two consumer warpgroups: the software-pipelined key loop, then the epilogue."""
    cw = warp - 4  # consumer warp 0..7: rows 16 cw .. 16 cw + 15 of the tile
    wg = cw >> 2  # consumer warpgroup 0 or 1: rows 64 wg .. 64 wg + 63
    g, qd = lane >> 2, lane & 3
    row0 = reg.scalar(u32)  # this thread's rows (within the head): row0 and row0 + 8
    ptx.mad(row0, cw, 16, tile.m0 + g, mode="lo")
    rows = (row0, row0 + 8)

    # Descriptors of the stage-0 tiles; the warpgroup's Q rows start 64 rows into each chunk
    # (the descriptor's address field counts 16-byte units).
    q_desc = reg.scalar(u64)
    ptx.mad(q_desc, wg, 64 * _ROW_BYTES >> 4, ptx.wgmma.descriptor(sh.q), mode="wide")
    k_desc0 = ptx.wgmma.descriptor(sh.k[0])
    v_desc0 = ptx.wgmma.descriptor(sh.v[0])
    kf_base, vf_base, e_base = smem.base(sh.k_full), smem.base(sh.v_full), smem.base(sh.empty)
    is_wg0 = wg == 0

    st = _Softmax(
        s=reg.wgmma_frag(BN),
        o=reg.wgmma_frag(cfg.head_dim),
        p=reg.array(cfg.pair, BN // 2 // 2),
        m=[reg.scalar(f32, _NEG_INF), reg.scalar(f32, _NEG_INF)],
        sums=[reg.scalar(f32, 0.0), reg.scalar(f32, 0.0)],
        limits=[tile.seq_k, tile.seq_k],
    )
    if cfg.causal:
        st.limits = []
        for row in rows:
            lim = reg.scalar(u32)
            ptx.min(lim, tile.seq_k, row + 1)
            st.limits.append(lim)
    for r in st.o:
        ptx.mov(r, 0.0)
    o_offsets = ptx.wgmma_acc_offsets(cfg.head_dim)  # each O register's row (+0/+8), column
    # Tiles from `mask_from` on hold keys some row of the tile may not see: past seq_k, or
    # (causal) past the tile's first row m0. Earlier tiles skip the masking code.
    mask_from = reg.scalar(u32)
    ptx.shr(mask_from, tile.seq_k, 7)
    if cfg.causal:
        ptx.min(mask_from, mask_from, tile.m_tile)

    def stage_of(kt: Reg) -> tuple[Reg, Reg, Reg]:
        """Stage index, fill parity and barrier byte offset of K/V tile ``kt``."""
        stage = kt & (STAGES - 1)
        return stage, (kt >> 1) & 1, stage << 3

    def issue_s(kt: Reg) -> None:
        """Wait for K tile ``kt`` and issue ``S = Q K^T`` (D / 16 wgmmas, one group)."""
        stage, phase, bar_off = stage_of(kt)
        ptx.mbarrier.wait(ptx.addr(kf_base + bar_off), phase)
        k_desc = reg.scalar(u64)
        ptx.mad(k_desc, stage, cfg.stage_bytes >> 4, k_desc0, mode="wide")
        for kk in range(cfg.head_dim // 16):
            # A K-major 16-column slice starts 32 bytes further into the swizzled row, or
            # at the next 64-column chunk.
            chunk, col = divmod(kk * 32, _ROW_BYTES)
            a_op = q_desc + ((chunk * BM * _ROW_BYTES + col) >> 4) if kk else q_desc
            b_op = k_desc + ((chunk * BN * _ROW_BYTES + col) >> 4) if kk else k_desc
            ptx.wgmma.mma_async(st.s, a_op, b_op, dtype_a=cfg.elem, scale_d=int(kk > 0))
        ptx.wgmma.commit_group()

    def issue_pv(kt: Reg) -> None:
        """Wait for V tile ``kt`` and issue ``O += P V`` (BN / 16 wgmmas, one group)."""
        stage, phase, bar_off = stage_of(kt)
        ptx.mbarrier.wait(ptx.addr(vf_base + bar_off), phase)
        v_desc = reg.scalar(u64)
        ptx.mad(v_desc, stage, cfg.stage_bytes >> 4, v_desc0, mode="wide")
        for kk in range(BN // 16):
            # MN-major V: a slice of 16 keys starts 16 rows (2048 bytes) into every chunk.
            b_op = v_desc + (kk * 16 * _ROW_BYTES >> 4) if kk else v_desc
            frag = tuple(st.p[4 * kk : 4 * kk + 4])
            ptx.wgmma.mma_async(st.o, frag, b_op, dtype_a=cfg.elem, trans_b=1)
        ptx.wgmma.commit_group()

    def release(kt: Reg) -> None:
        """This warp is done with K/V tile ``kt``'s stage (its wgmmas completed)."""
        ptx.mbarrier.arrive(ptx.addr(e_base + stage_of(kt)[2]), pred=lane == 0)

    def softmax(kt: Reg) -> list[Reg]:
        """Mask tile ``kt`` if it needs it and run the online softmax on S (in place)."""
        with ptx.if_(kt >= mask_from):
            _mask(st, kt, qd)
        return _online_softmax(st, cfg.scale_log2)

    def pack_p() -> None:
        """P (f32 in S) to 16-bit pairs: exactly the A fragments of ``O += P V``."""
        for i, p in enumerate(st.p):
            ptx.cvt(p, st.s[2 * i + 1], st.s[2 * i], rnd="rn")

    def take_turn() -> None:
        """Ping-pong: wait for this warpgroup's turn to issue wgmmas.

        ``bar.sync`` on the warpgroup's named barrier completes once the other warpgroup has
        handed the turn over with ``bar.arrive``. Immediate barrier ids (one predicated
        instruction per warpgroup): with a register id ptxas reserves all sixteen barriers
        and serializes the wgmmas.
        """
        _TURNS[0].sync(pred=is_wg0)
        _TURNS[1].sync(pred=~is_wg0)

    def hand_over(*, last: bool = False) -> None:
        """Give the other warpgroup its turn (warpgroup 1 keeps its last hand-over)."""
        _TURNS[1].arrive(pred=is_wg0)
        if not last:
            _TURNS[0].arrive(pred=~is_wg0)

    # Warpgroup 1 hands warpgroup 0 the first turn.
    _TURNS[0].arrive(pred=~is_wg0)
    ptx.mbarrier.wait(sh.q_full[0], 0)

    # Tile 0: S_0 and its softmax (O is zero: nothing to rescale).
    first = reg.scalar(u32, 0)
    take_turn()
    ptx.wgmma.fence()  # S and O were written by ordinary instructions
    issue_s(first)
    hand_over()
    ptx.wgmma.wait_group(0)
    softmax(first)
    pack_p()

    # Tile j: issue S_j and O += P_{j-1} V_{j-1}; softmax of S_j while the P V runs.
    for kt in ptx.range_(1, tile.n_tiles, 1):
        prev = kt - 1
        take_turn()
        ptx.wgmma.fence()  # S, O and P were written by ordinary instructions
        issue_s(kt)
        issue_pv(prev)
        hand_over()
        ptx.wgmma.wait_group(1)  # S_j is complete; O += P_{j-1} V_{j-1} may still run
        alpha = softmax(kt)
        ptx.wgmma.wait_group(0)  # now O is final for tile j - 1, and P is free
        release(prev)
        # Rescale O's rows by 2^(m_old c - m_new c).
        for r, (drow, _) in zip(st.o, o_offsets, strict=True):
            ptx.mul(r, r, alpha[drow // 8])
        pack_p()

    # The last tile's P V. Warpgroup 1 keeps its last hand-over: its first turn was given,
    # so each turn barrier sees as many arrivals as waits.
    last = tile.n_tiles - 1
    take_turn()
    ptx.wgmma.fence()
    issue_pv(last)
    hand_over(last=True)
    ptx.wgmma.wait_group(0)
    release(last)
    _epilogue(cfg, st, o, tile, rows, qd)


def _mask(st: _Softmax, kt: Reg, qd: Reg) -> None:
    """Set ``S`` to ``-inf`` where the key is at or past its row's limit (2 instructions each).

    Element ``d[4j + e]`` is key ``kt * BN + 8j + 2q + e % 2`` of row ``e >= 2``; it is kept
    when ``8j + e % 2 < limit - kt * BN - 2q`` (a signed comparison: the right side may be
    negative on the causal diagonal).
    """
    col0 = reg.scalar(u32)
    ptx.mad(col0, kt, BN, qd << 1, mode="lo")
    rel = []
    for lim in st.limits:
        r = reg.scalar(s32)
        ptx.sub(r, lim, col0, ty=s32)
        rel.append(r)
    for x, (drow, dcol) in zip(st.s, ptx.wgmma_acc_offsets(BN), strict=True):
        keep = reg.scalar(pred)
        ptx.setp(keep, rel[drow // 8], dcol, cmp="gt")
        ptx.selp(x, x, _NEG_INF, keep)


def _tree(op: Callable[..., object], values: list[Any]) -> Any:
    """Reduce ``values`` pairwise with ``op(d, a, b)``: a balanced tree, short dependencies."""
    while len(values) > 1:
        nxt: list[Any] = []
        for i in range(0, len(values) - 1, 2):
            d = reg.scalar(f32)
            op(d, values[i], values[i + 1])
            nxt.append(d)
        if len(values) % 2:
            nxt.append(values[-1])
        values = nxt
    return values[0]


def _online_softmax(st: _Softmax, c: float) -> list[Reg]:
    """Turn S into P (f32, in place) and update the row max and partial sums.

    Per row: ``m_new = max(m, max_j s_j)`` (over the quad), ``p_j = 2^(s_j c - m_new c)``,
    ``alpha = 2^(m c - m_new c)``, ``l = l alpha + sum_j p_j``. Returns the two rows'
    ``alpha`` (the factor O must be rescaled by). Key 0 is in the first tile and visible to
    every row, so ``m_new`` is finite from the first tile on, and a masked ``s = -inf`` gives
    ``p = 2^-inf = 0`` (never ``inf - inf``); the first tile's alpha is ``2^-inf = 0``.
    """
    alphas = []
    offsets = ptx.wgmma_acc_offsets(BN)
    for half in range(2):
        row = [x for x, (drow, _) in zip(st.s, offsets, strict=True) if drow == 8 * half]
        tile_max = ptx.warp_reduce_max(_tree(ptx.max, row), width=4)
        m_new = reg.scalar(f32)
        ptx.max(m_new, st.m[half], tile_max)
        neg_mc = m_new * -c
        alpha = reg.scalar(f32)
        ptx.fma(alpha, st.m[half], c, neg_mc, rnd="rn")
        ptx.ex2(alpha, alpha, ftz=True)
        ptx.mov(st.m[half], m_new)
        for x in row:
            ptx.fma(x, x, c, neg_mc, rnd="rn")
            ptx.ex2(x, x, ftz=True)
        ptx.fma(st.sums[half], st.sums[half], alpha, _tree(ptx.add, row), rnd="rn")
        alphas.append(alpha)
    return alphas


def _epilogue(
    cfg: _Config, st: _Softmax, o: TensorArg, tile: _Tile, rows: tuple[Reg, Reg], qd: Reg
) -> None:
    """``O / l``, rounded to the input type, stored row by row (rows past ``seq_q`` skipped).

    Lane ``4g + q`` holds columns ``8j + 2q, 8j + 2q + 1`` of its two rows: one 32-bit store
    per pair, at ``o + ((bh * seq_q + row) * D + 8j + 2q) * 2``.
    """
    for half, row in enumerate(rows):
        total = ptx.warp_reduce_sum(st.sums[half], width=4)
        inv = reg.scalar(f32)
        ptx.rcp(inv, total, approx=True, ftz=True)  # total >= 1: the row max contributes 1
        elem_row = reg.scalar(u32)
        ptx.mad(elem_row, tile.bh, tile.seq_q, row, mode="lo")
        offset = reg.scalar(u64)
        ptx.mul(offset, elem_row, cfg.head_dim * 2, mode="wide")
        out = reg.scalar(u64)
        ptx.mad(out, qd, 4, o.ptr() + offset, mode="wide")
        inside = row < tile.seq_q
        for i, (drow, dcol) in enumerate(ptx.wgmma_acc_offsets(cfg.head_dim)):
            if drow != 8 * half or dcol % 2:
                continue  # another row, or the odd column of a pair
            lo, hi = st.o[i], st.o[i + 1]
            ptx.mul(lo, lo, inv)
            ptx.mul(hi, hi, inv)
            packed = reg.scalar(cfg.pair)
            ptx.cvt(packed, hi, lo, rnd="rn")
            ptx.st(ptx.addr(out, 2 * dcol), packed, space="global", pred=inside)
