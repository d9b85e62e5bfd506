"""Tensor memory (TMEM) of the tcgen05 family: its state, allocation, and register moves.

Each CTA has 128 lanes x 512 columns of 32-bit cells. A TMEM address is a 32-bit value with
the lane in bits 31-16 and the column in bits 15-0. The state lives in ``m.ext["tcgen05"]``
(:class:`TensorMemory`); storage grows with the highest column ever allocated, so kernels
that allocate a few columns in many CTAs stay small.

Instructions here (PTX ISA "Tensor Memory", "tcgen05.alloc/dealloc/relinquish_alloc_permit",
"tcgen05.ld", "tcgen05.st", "tcgen05.wait", "tcgen05.shift"):

* ``tcgen05.alloc`` allocates ``nCols`` columns (a power of two in [32, 512]) of all lanes,
  first fit at a multiple of ``nCols``, and writes the address (lane 0) to shared memory at
  ``[dst]`` (``.shared::cta``, or a generic address that must point there). It blocks while the
  columns are not free (a deadlock report names the allocation when nothing can free them),
  and is an error after ``tcgen05.relinquish_alloc_permit`` in the CTA. With
  ``.cta_group::2`` one warp of each CTA of the pair (cluster ranks 2k, 2k+1) allocates the same
  columns in both CTAs: the first warp to execute allocates in both, the peer's warp receives
  the same address. ``tcgen05.dealloc`` frees an allocation (the address and ``nCols`` must
  match one), pairwise likewise.
* ``tcgen05.ld`` / ``tcgen05.st`` move data between registers and the 32-lane quarter of TMEM
  that warp ``w`` of the CTA may access (lanes ``32 * (w % 4)`` to ``32 * (w % 4) + 31``).
  The ISA draws the register <-> (lane, column) map of each shape as a figure; the maps here
  are read off CUTLASS ``cute/atom/copy_traits_sm100.hpp``, which encodes those figures as the
  ``SM100_TMEM_LOAD_*`` ``ValID``/``DstLayout`` pairs (evaluated for ``.x1``, ``.x2`` and
  ``.x4``; each repetition repeats the ``.x1`` pattern in the next columns):

  - ``.32x32b``: thread ``t`` reads lane ``t``; register ``j`` is column ``j``.
  - ``.16x64b``: lane ``8*(t%2) + t//4``, column ``(t//2)%2 + 2j``.
  - ``.16x128b``: lane ``t//4 + 8*(j%2)``, column ``t%4 + 4*(j//2)``.
  - ``.16x256b``: lane ``t//4 + 8*((j//2)%2)``, column ``2*(t%4) + j%2 + 8*(j//4)``.
  - ``.16x32bx2``: lane ``t%16``, column ``j``, plus ``immHalfSplitoff`` for threads 16-31.

  ``.pack::16b`` (ld) reads the low 16 bits of two adjacent columns into one register (the
  lower-numbered column in the low half): the access pattern above is applied to a view of
  TMEM in which each column holds one 16-bit element, so column ``c`` of the pattern means
  physical columns ``2c`` and ``2c + 1``. ``.unpack::16b`` (st) is the inverse; the upper 16
  bits of the written cells are left zero.
* ``tcgen05.wait::ld`` / ``wait::st``: loads and stores complete when executed, so no-ops.
* ``tcgen05.shift.down [taddr]``: in the 32 lanes starting at ``taddr``'s lane (a multiple of
  32), the 256 bits (8 columns) at ``taddr``'s column of rows 0-30 move down one row; row 0
  keeps its old value (the implicit ``.31x256b`` shape). ``.cta_group::2`` shifts both CTAs
  of the pair.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .._errors import EmuError, Fault, OutOfBounds
from .._lanes import WARP, Lanes
from .._machine import YIELD, Executor
from .._memory import RANK_SHIFT, WINDOW_SHIFT, WINDOWS, Space
from .._site import Site
from .._warp import converged

__all__ = [
    "COLUMNS",
    "LANES",
    "TensorMemory",
    "alloc",
    "dealloc",
    "ld",
    "pair_of",
    "relinquish",
    "rounds",
    "shift",
    "st",
    "tmem",
    "wait",
]

LANES = 128
"""Lanes (rows) of a CTA's tensor memory."""
COLUMNS = 512
"""Columns of 32-bit cells of a CTA's tensor memory."""


class TensorMemory:
    """The tensor memory of every CTA of a wave, and its allocation state.

    Attributes:
        cells: ``(ctas, 128, width)`` ``uint32``; ``width`` grows with the allocations.
        size: ``(ctas, 512)``: at the first column of an allocation, its column count.
        used: ``(ctas, 512)``: which columns are allocated.
        relinquished: per CTA, whether it gave up its allocation permit.
        pending: ``.cta_group::2`` allocations/deallocations done by one CTA of a pair and not
            yet executed by the other: pair -> list of (kind, CTA that did it, column, count).
        collector: ``tcgen05.mma`` collector buffers: (unit, buffer) -> operand values.
    """

    def __init__(self, m: Any) -> None:
        self.cells = np.zeros((m.ctas, LANES, 0), dtype=np.uint32)
        self.size = np.zeros((m.ctas, COLUMNS), dtype=np.int64)
        self.used = np.zeros((m.ctas, COLUMNS), dtype=bool)
        self.relinquished = np.zeros(m.ctas, dtype=bool)
        self.pending: dict[int, list[tuple[str, int, int, int]]] = {}
        self.collector: dict[tuple[int, str], np.ndarray] = {}

    def grow(self, end: int) -> None:
        """Make storage for columns below ``end``."""
        width = self.cells.shape[2]
        if end <= width:
            return
        new = max(32, 1 << (end - 1).bit_length())
        cells = np.zeros((self.cells.shape[0], LANES, new), dtype=np.uint32)
        cells[:, :, :width] = self.cells
        self.cells = cells

    def free_start(self, ctas: list[int], ncols: int) -> int | None:
        """The first multiple of ``ncols`` whose ``ncols`` columns are free in all ``ctas``."""
        used = self.used[ctas].any(axis=0).reshape(-1, ncols).any(axis=1)
        free = np.flatnonzero(~used)
        return int(free[0]) * ncols if free.size else None

    def check(
        self,
        m: Any,
        ctas: np.ndarray,
        tlanes: np.ndarray,
        cols: np.ndarray,
        who: np.ndarray,
        what: str,
    ) -> None:
        """Raise unless every (CTA, lane, column) is inside TMEM and allocated.

        ``ctas``, ``tlanes`` and ``cols`` broadcast together; their first axis is the wave
        lane ``who`` (an array) that does the access.
        """
        ctas, tlanes, cols = np.broadcast_arrays(ctas, tlanes, cols)
        bad_lane = (tlanes < 0) | (tlanes >= LANES)
        bad_col = (cols < 0) | (cols >= COLUMNS)
        if bad_lane.any() or bad_col.any():
            i = np.unravel_index(int(np.argmax(bad_lane | bad_col)), cols.shape)
            raise Fault(
                OutOfBounds,
                f"{what} reaches tensor memory lane {int(tlanes[i])}, column {int(cols[i])};"
                f" a CTA has lanes 0-{LANES - 1} and columns 0-{COLUMNS - 1}",
                lane=int(who[i[0]]),
                space="tensor",
            )
        ok = self.used[ctas, cols]
        if not ok.all():
            i = np.unravel_index(int(np.argmax(~ok)), ok.shape)
            raise Fault(
                OutOfBounds,
                f"{what} accesses tensor memory column {int(cols[i])}, which is not allocated"
                " (tcgen05.alloc first, and only use the columns it returned)",
                lane=int(who[i[0]]),
                space="tensor",
            )


def tmem(m: Any) -> TensorMemory:
    """The wave's tensor memory, created on first use."""
    state = m.ext.get("tcgen05")
    if state is None:
        state = m.ext["tcgen05"] = TensorMemory(m)
    return state


def rounds(units: np.ndarray) -> list[np.ndarray]:
    """Split issuing lanes into rounds in which each unit (CTA or CTA pair) appears once.

    Single-thread tcgen05 instructions issued by several threads of one CTA take effect one
    after the other, in lane order; different CTAs are independent. Round ``k`` holds the
    positions of each unit's ``k``-th lane.
    """
    order = np.argsort(units, kind="stable")
    sorted_units = units[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_units)) + 1]
    occurrence = np.arange(units.size) - np.repeat(starts, np.diff(np.r_[starts, units.size]))
    occ = np.empty_like(occurrence)
    occ[order] = occurrence
    return [np.flatnonzero(occ == k) for k in range(int(occ.max()) + 1)] if units.size else []


def pair_of(m: Any, ctas: np.ndarray, lanes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (even-rank, odd-rank) wave CTAs of each CTA's ``.cta_group::2`` pair.

    Raises:
        EmuError: the cluster has an odd number of CTAs (the pair is incomplete).
    """
    size = m.config.cluster_size
    if size % 2:
        raise Fault(
            EmuError,
            f".cta_group::2 needs CTA pairs (cluster ranks 2k, 2k+1), but the cluster has {size}"
            " CTA(s); launch with an even cluster size",
            lane=int(lanes[0]),
        )
    rank = m.wave.rank[ctas]
    first = m.wave.cluster_first[ctas] + (rank & ~1)
    return first, first + 1


def _taddr(site: Site, name: str) -> Any:
    reader = site.addr(name)

    def read(m: Any, lanes: Lanes) -> np.ndarray:
        return (reader(m, lanes) & np.uint64(0xFFFF_FFFF)).astype(np.int64)

    return read


def _group(site: Site) -> int:
    return 2 if site.slot("cta_group") == "cta_group::2" else 1


def _uniform(values: np.ndarray, lanes: Lanes, what: str) -> np.ndarray:
    """Check a value is the same in every lane of each warp; return it per warp."""
    warps = lanes.idx // WARP
    _, first, inverse = np.unique(warps, return_index=True, return_inverse=True)
    ref = values[first]
    bad = ref[inverse] != values
    if bad.any():
        i = int(np.argmax(bad))
        raise Fault(
            EmuError,
            f"{what} must be the same in every thread of the warp (.aligned); thread"
            f" {int(lanes.idx[i]) % WARP} has {int(values[i]):#x}, thread"
            f" {int(lanes.idx[first[inverse[i]]]) % WARP} has {int(ref[inverse[i]]):#x}",
            lane=int(lanes.idx[i]),
        )
    return ref


def _ncols(values: np.ndarray, lanes: Lanes) -> np.ndarray:
    per_warp = _uniform(values, lanes, "nCols")
    bad = (per_warp < 32) | (per_warp > COLUMNS) | ((per_warp & (per_warp - 1)) != 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise Fault(
            EmuError,
            f"nCols must be a power of two from 32 to {COLUMNS}, got {int(per_warp[i])}",
            lane=int(lanes.warps[i]) * WARP,
        )
    return per_warp


class _AllocWait:
    """Warps whose ``tcgen05.alloc`` waits for columns to be freed."""

    reexecute = True
    soft = False
    merge_key = None

    def __init__(self, ncols: int, ctas: list[int]) -> None:
        self.ncols = ncols
        self.ctas = ctas

    def poll(self, m: Any, lanes: Lanes) -> np.ndarray | None:
        if tmem(m).free_start(self.ctas, self.ncols) is None:
            return None
        return np.ones(lanes.n, dtype=bool)

    def release(self, m: Any, lanes: Lanes, ok: bool) -> None:
        """The allocation runs again."""

    def describe(self, m: Any, lanes: Lanes) -> str:
        used = int(tmem(m).used[self.ctas].any(axis=0).sum())
        return (
            f"tcgen05.alloc of {self.ncols} columns waits for tensor memory, but {used} of"
            f" {COLUMNS} columns stay allocated and nothing deallocates them"
        )


def _dst_writer(site: Site) -> Any:
    """Store the allocated address to ``[dst]``, which must be in the CTA's shared memory."""
    space = site.space()
    addr = site.addr("dst")
    window = np.uint64(WINDOWS[Space.SHARED])
    base = window << np.uint64(WINDOW_SHIFT)

    def write(m: Any, lanes: Lanes, values: np.ndarray) -> None:
        a = addr(m, lanes)
        if space is Space.GENERIC:
            bad = (a >> np.uint64(WINDOW_SHIFT)) != window
            local = a - base
        else:
            bad = np.zeros(a.shape, dtype=bool)
            local = a
        # A shared::cluster address of another CTA (mapa) carries its rank above RANK_SHIFT.
        bad |= (local >> np.uint64(RANK_SHIFT)) != 0
        if bad.any():
            i = int(np.argmax(bad))
            raise Fault(
                OutOfBounds,
                f"tcgen05.alloc writes the TMEM address to {int(a[i]):#x}, which is not in the"
                " executing CTA's shared memory (.shared::cta)",
                lane=int(lanes.idx[i]),
                address=int(a[i]),
            )
        m.mem.store(space, a, lanes.idx, values.astype(np.uint32)[:, None])

    return write


def alloc(site: Site) -> Executor:
    """``tcgen05.alloc.cta_group.sync.aligned{.shared::cta}.b32 [dst], nCols``."""
    group = _group(site)
    ncols_reader = site.src("nCols", PtxType.U32)
    write = _dst_writer(site)

    def run(m: Any, lanes: Lanes) -> Any:
        if not converged(m, site, lanes):
            return YIELD
        state = tmem(m)
        per_warp = _ncols(ncols_reader(m, lanes).astype(np.int64), lanes)
        warps = lanes.idx // WARP
        result = np.zeros(lanes.n, dtype=np.int64)
        waiting = np.zeros(lanes.n, dtype=bool)
        for w, n in zip(lanes.warps, per_warp, strict=True):
            sel = warps == w
            lane0 = int(w) * WARP
            cta = int(m.cta_of[lane0])
            if state.relinquished[cta]:
                raise Fault(
                    EmuError,
                    "tcgen05.alloc after this CTA executed tcgen05.relinquish_alloc_permit",
                    lane=lane0,
                )
            start = _alloc_one(m, state, cta, int(n), group, lane0)
            if start is None:
                waiting |= sel
                ctas = [cta] if group == 1 else _pair_list(m, cta, lane0)
                m.move(lanes.idx[sel], site.pc, _AllocWait(int(n), ctas))
                continue
            result[sel] = start
        # The warp's one write of the address: made by its first lane.
        first = np.r_[True, warps[1:] != warps[:-1]] & ~waiting
        if first.any():
            write(m, lanes.subset(first, m.n), result[first])
            m.touch()
        return YIELD if waiting.any() else None

    return run


def _pair_list(m: Any, cta: int, lane: int) -> list[int]:
    first, second = pair_of(m, np.array([cta]), np.array([lane]))
    return [int(first[0]), int(second[0])]


def _alloc_one(m: Any, state: TensorMemory, cta: int, n: int, group: int, lane: int) -> int | None:
    """Allocate ``n`` columns for one warp; ``None`` when they are not free."""
    if group == 1:
        start = state.free_start([cta], n)
        if start is not None:
            _mark(state, [cta], start, n)
        return start
    pair = _pair_list(m, cta, lane)
    queue = state.pending.setdefault(pair[0], [])
    for i, (kind, who, start, count) in enumerate(queue):
        if kind == "alloc" and who != cta:
            if count != n:
                raise Fault(
                    EmuError,
                    f"tcgen05.alloc.cta_group::2 of {n} columns, but the peer CTA allocated"
                    f" {count}; both warps of the pair must ask for the same nCols",
                    lane=lane,
                )
            del queue[i]
            return start
    start = state.free_start(pair, n)
    if start is not None:
        _mark(state, pair, start, n)
        queue.append(("alloc", cta, start, n))
    return start


def _mark(state: TensorMemory, ctas: list[int], start: int, n: int) -> None:
    state.grow(start + n)
    for c in ctas:
        state.used[c, start : start + n] = True
        state.size[c, start] = n


def dealloc(site: Site) -> Executor:
    """``tcgen05.dealloc.cta_group.sync.aligned.b32 taddr, nCols``."""
    group = _group(site)
    taddr = site.src("taddr", PtxType.U32)
    ncols_reader = site.src("nCols", PtxType.U32)

    def run(m: Any, lanes: Lanes) -> Any:
        if not converged(m, site, lanes):
            return YIELD
        state = tmem(m)
        per_warp = _ncols(ncols_reader(m, lanes).astype(np.int64), lanes)
        addrs = _uniform(taddr(m, lanes).astype(np.int64), lanes, "taddr")
        for w, n, a in zip(lanes.warps, per_warp, addrs, strict=True):
            lane0 = int(w) * WARP
            cta = int(m.cta_of[lane0])
            _dealloc_one(m, state, cta, int(a), int(n), group, lane0)
        m.touch()
        return None

    return run


def _dealloc_one(
    m: Any, state: TensorMemory, cta: int, addr: int, n: int, group: int, lane: int
) -> None:
    start = addr & 0xFFFF
    ctas = [cta] if group == 1 else _pair_list(m, cta, lane)
    if group == 2:
        queue = state.pending.setdefault(ctas[0], [])
        for i, (kind, who, s, count) in enumerate(queue):
            if kind == "dealloc" and who != cta and s == start and count == n:
                del queue[i]
                return
    for c in ctas:
        if addr >> 16 or state.size[c, start] != n:
            have = int(state.size[c, start])
            found = f"an allocation of {have} columns" if have else "no allocation"
            raise Fault(
                EmuError,
                f"tcgen05.dealloc of {n} columns at TMEM address {addr:#x}, but there is"
                f" {found} there; taddr and nCols must match a tcgen05.alloc",
                lane=lane,
            )
    for c in ctas:
        state.used[c, start : start + n] = False
        state.size[c, start] = 0
    if group == 2:
        state.pending.setdefault(ctas[0], []).append(("dealloc", cta, start, n))


def relinquish(site: Site) -> Executor:
    """``tcgen05.relinquish_alloc_permit``: the CTA may not allocate any more."""

    def run(m: Any, lanes: Lanes) -> Any:
        if not converged(m, site, lanes):
            return YIELD
        tmem(m).relinquished[m.cta_of[lanes.idx]] = True
        return None

    return run


def wait(site: Site) -> Executor:
    """``tcgen05.wait::ld`` / ``::st``: every load and store has completed already."""

    def run(m: Any, lanes: Lanes) -> Any:
        return None if converged(m, site, lanes) else YIELD

    return run


# -------------------------------------------------------------------- ld / st

_REGS_PER_REP = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}


def _fragment(shape: str, num: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (lane, column, half) of each thread's registers for a shape and ``.num``.

    Returns:
        ``lane[t, j]`` and ``col[t, j]`` offsets from ``taddr`` (``.unpack``ed layout), and
        ``half[t]``: 1 for the threads of the second ``.16x32bx2`` half (whose columns are also
        offset by ``immHalfSplitoff``), else 0.
    """
    regs = _REGS_PER_REP[shape] * num
    t = np.arange(WARP, dtype=np.int64)[:, None]
    j = np.arange(regs, dtype=np.int64)[None, :]
    half = np.zeros(WARP, dtype=np.int64)
    if shape == "32x32b":
        lane, col = t + 0 * j, j + 0 * t
    elif shape == "16x64b":
        lane, col = 8 * (t % 2) + t // 4 + 0 * j, (t // 2) % 2 + 2 * j
    elif shape == "16x128b":
        lane, col = t // 4 + 8 * (j % 2), t % 4 + 4 * (j // 2)
    elif shape == "16x256b":
        lane, col = t // 4 + 8 * ((j // 2) % 2), 2 * (t % 4) + j % 2 + 8 * (j // 4)
    else:
        lane, col = t % 16 + 0 * j, j + 0 * t
        half = np.arange(WARP, dtype=np.int64) // 16
    return lane, col, half


def _ldst_layout(site: Site) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, bool]:
    shape = site.slot("shape") or ""
    num = int((site.slot("num") or "x1")[1:])
    lane, col, half = _fragment(shape, num)
    split = int(site.imm("immHalfSplitoff")) if shape == "16x32bx2" else 0
    packed = site.slot("pack") is not None
    return lane, col, half * split, num, packed


def _cells(m: Any, site: Site, lanes: Lanes, taddr: np.ndarray, layout: Any, what: str) -> Any:
    """Per lane and register: the (CTA, TMEM lane, column) arrays it touches, checked."""
    lane_off, col_off, split_off, _, packed = layout
    addrs = _uniform(taddr, lanes, "taddr")
    _, inverse = np.unique(lanes.idx // WARP, return_inverse=True)
    base = addrs[inverse]
    t = m.laneid[lanes.sel].astype(np.int64)
    tl = (base >> 16)[:, None] + lane_off[t]
    cols = (base & 0xFFFF)[:, None] + split_off[t][:, None]
    if packed:
        cols = np.stack([cols + 2 * col_off[t], cols + 2 * col_off[t] + 1], axis=2)
        tl = tl[:, :, None]
    else:
        cols = cols + col_off[t]
    ctas = m.cta_of[lanes.sel]
    quarter = ((m.tid_linear[lanes.sel] // WARP) % 4)[:, None]
    wrong = (tl.reshape(lanes.n, -1) // 32) != quarter
    if wrong.any():
        i, _ = np.unravel_index(int(np.argmax(wrong)), wrong.shape)
        q = int(quarter[i, 0])
        raise Fault(
            OutOfBounds,
            f"{what}: warp {int(m.tid_linear[lanes.idx[i]]) // WARP} of the CTA may access only"
            f" TMEM lanes {32 * q}-{32 * q + 31} (warp % 4 = {q}), but taddr {int(base[i]):#x}"
            " makes it reach other lanes",
            lane=int(lanes.idx[i]),
            space="tensor",
        )
    extra = (slice(None), None, None) if packed else (slice(None), None)
    tmem(m).check(m, ctas[extra], tl, cols, lanes.idx, what)
    return ctas[extra], tl, cols


def ld(site: Site) -> Executor:
    """``tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32 r, [taddr]{, immHalfSplitoff}``."""
    layout = _ldst_layout(site)
    taddr = _taddr(site, "taddr")
    dst = site.vec_dst("r", PtxType.B32)
    what = f"tcgen05.ld.{site.slot('shape')}"

    def run(m: Any, lanes: Lanes) -> Any:
        if not converged(m, site, lanes):
            return YIELD
        ctas, tl, cols = _cells(m, site, lanes, taddr(m, lanes), layout, what)
        cells = tmem(m).cells[ctas, tl, cols]
        if layout[4]:
            low = np.uint32(0xFFFF)
            cells = (cells[:, :, 0] & low) | ((cells[:, :, 1] & low) << np.uint32(16))
        dst(m, lanes, cells)
        return None

    return run


def st(site: Site) -> Executor:
    """``tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32 [taddr]{, immHalfSplitoff}, r``."""
    layout = _ldst_layout(site)
    taddr = _taddr(site, "taddr")
    src = site.vec_src("r", PtxType.B32)
    what = f"tcgen05.st.{site.slot('shape')}"

    def run(m: Any, lanes: Lanes) -> Any:
        if not converged(m, site, lanes):
            return YIELD
        values = src(m, lanes).astype(np.uint32)
        ctas, tl, cols = _cells(m, site, lanes, taddr(m, lanes), layout, what)
        if layout[4]:
            values = np.stack([values & np.uint32(0xFFFF), values >> np.uint32(16)], axis=2)
        tmem(m).cells[ctas, tl, cols] = values
        m.touch()
        return None

    return run


# -------------------------------------------------------------------- shift


def shift(site: Site) -> Executor:
    """``tcgen05.shift.cta_group.down [taddr]``: rows 0-30 of 32 lanes move down one row."""
    group = _group(site)
    taddr = _taddr(site, "taddr")

    def run(m: Any, lanes: Lanes) -> Any:
        state = tmem(m)
        addrs = taddr(m, lanes)
        ctas = m.cta_of[lanes.sel]
        if group == 2:
            first, second = pair_of(m, ctas, lanes.idx)
            units, targets = first, np.stack([first, second], axis=1)
        else:
            units, targets = ctas, ctas[:, None]
        lane0 = addrs >> 16
        if (lane0 % 32).any():
            i = int(np.argmax(lane0 % 32 != 0))
            raise Fault(
                EmuError,
                f"tcgen05.shift: the lane of taddr {int(addrs[i]):#x} must be a multiple of 32",
                lane=int(lanes.idx[i]),
            )
        col0 = addrs & 0xFFFF
        rows = np.arange(32, dtype=np.int64)
        cols = np.arange(8, dtype=np.int64)
        for sel in rounds(units):
            c = targets[sel][:, :, None, None]
            tl = (lane0[sel][:, None, None, None] + rows[None, None, :, None]) + 0 * c
            tc = col0[sel][:, None, None, None] + cols[None, None, None, :]
            state.check(m, c, tl, tc, lanes.idx[sel], "tcgen05.shift")
            moved = state.cells[c, tl[:, :, :-1], tc]
            state.cells[c, tl[:, :, 1:], tc] = moved
        m.touch()
        return None

    return run
