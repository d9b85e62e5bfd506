"""tcgen05 matrix multiply (``tcgen05.mma``, ``.ws``), copies into TMEM (``tcgen05.cp``), commit.

**MMA.** ``D = A * B (+ D)``: A is ``M x K`` (a shared-memory descriptor, or ``[a-tmem]``), B is
``K x N`` (a descriptor of the ``N x K`` operand, K- or N-major), D is ``M x N`` in tensor
memory; the instruction descriptor gives the types, M, N, negation and major-ness
(:mod:`.tcgen05_desc`). Issued by one thread: every thread that executes the instruction
issues one MMA, and the MMAs of one CTA (pair) take effect in lane order. The emulator performs
an MMA when it is issued (it is complete before any later instruction runs), so
``tcgen05.commit`` only has to arrive on its mbarrier.

Where D (and an A held in TMEM) lives: the PTX ISA's data-path layouts, cross-checked against
CUTLASS ``UMMA::tmem_frg``/``tmem_frg_ws`` (``cute/atom/mma_traits_sm100_frag.hpp``). Row
``r`` (of the rows this CTA holds) and column ``n`` of D go to TMEM lane ``lane(taddr) + l``
and column ``col(taddr) + c`` with

* M = 128 (``.cta_group::1``, and ``.ws``), M = 256 (``.cta_group::2``, 128 rows per CTA):
  ``l = r``, ``c = n`` (layouts D and A);
* M = 64, ``.cta_group::1``: ``l = 32 * (r // 16) + r % 16``, ``c = n`` (layout F: 16 rows in
  each warp's quarter);
* M = 128, ``.cta_group::2`` (64 rows per CTA) and M = 64 ``.ws``: ``l = r + 64 * (n // (N/2))``,
  ``c = n % (N/2)`` (layouts B and E: the two column halves in the two 64-lane halves);
* M = 32 ``.ws``: ``l = r + 32 * (n // (N/4))``, ``c = n % (N/4)`` (layout G).

Each data-path lane reads A from the same lane of ``[a-tmem]`` (so layouts B, E, G expect A
duplicated across the lane groups, as CUTLASS's ``TmemAllocMode::Duplicated`` lays it out), at
32 bits per column, element ``k`` in column ``k * bits // 32``, low bits first.

With ``.cta_group::2`` the pair (cluster ranks 2k, 2k+1) computes one MMA: the even CTA holds
rows ``0 .. M/2-1`` of A and D and columns ``0 .. N/2-1`` of B, the odd CTA the rest, each at
the descriptors' (and ``taddr``'s) offsets in its own shared and tensor memory (CUTLASS
``SM100_MMA_*_2x1SM`` ``ALayout``/``BLayout``/``CLayout``).

``enable-input-d`` false: D = A*B (old D not read). ``scale-input-d`` s (``.kind::f16``/
``.kind::tf32``): D = A*B + D * 2^-s. ``disable-output-lane``: bit ``i`` of the mask (word
``i // 32``) keeps TMEM lane ``i % 128`` of the pair's CTA ``i // 128`` unchanged.
``.collector::a::fill/use/lastuse/discard`` (and ``::bN::`` of ``.ws``) keep A (B) in a
collector buffer: ``use``/``lastuse`` take the operand from the buffer instead of memory.

Numerics: products are exact in ``float64`` (every operand format has at most 11 significant
bits), their sum with the scaled D is formed in ``float64`` and rounded once to the D type
(round to nearest even; NaN canonical). The order and width of the hardware's accumulation are
implementation-defined, so results agree with hardware exactly when the ``float64`` sum is
exact and otherwise within the D type's rounding. ``.kind::i8`` sums exactly in integers and
wraps to 32 bits, or clamps with the saturate bit.

**Not emulated** (``NotEmulated``): ``.sp`` (sparse), the block-scaled kinds (their
scale-factor TMEM layouts and scale-ID selection are not pinned down by the ISA text this was
built from), ``.ashift``, the ``.ws`` zero-column mask, ``.kind::f8f6f4`` with the 6- and 4-bit
types (the packed shared-memory formats), ``tcgen05.cp`` decompression.

**Copy.** ``tcgen05.cp.shape [taddr], s-desc`` copies rows of 128 or 256 bits from shared
memory, laid out as a K-major canonical matrix of 32-bit elements (rows along SBO, 16-byte
chunks along LBO), to consecutive TMEM lanes (CUTLASS ``SM100_UTCCP_*`` traits): ``.128x256b``,
``.128x128b`` (row ``r`` -> lane ``r``), ``.4x256b`` (row ``r`` -> lane ``32 r``),
``.64x128b.warpx2::02_13`` (row ``r`` -> lanes ``r``, ``r + 64``), ``.64x128b.warpx2::01_23``
(row ``r`` -> lanes ``r % 32 + 64 * (r // 32)`` and that + 32), ``.32x128b.warpx4`` (row ``r``
-> lanes ``r + 32 q``). ``.cta_group::2`` copies in both CTAs of the pair, each from its own
shared memory.

**Commit.** ``tcgen05.commit.mbarrier::arrive::one`` arrives once on the mbarrier (with
``.multicast::cluster``, on the mbarrier at the same offset in each CTA of ``ctaMask``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pyptx.ir import Address, PtxType

from .. import _mbar
from .._errors import EmuError, Fault, NotEmulated
from .._lanes import Lanes
from .._machine import Executor
from .._memory import RANK_SHIFT, WINDOW_SHIFT, WINDOWS, Space
from .._site import Site
from .tcgen05_desc import (
    InstrDesc,
    decode_idesc,
    decode_smem_desc,
    decode_values,
    desc_layouts,
    operand_offsets,
    read_operand,
)
from .tcgen05_tmem import LANES, TensorMemory, pair_of, rounds, tmem

__all__ = ["commit", "cp", "mma"]

_SCALED = ("kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4")
_SUBBYTE = (PtxType.E2M3, PtxType.E3M2, PtxType.E2M1)
_EBITS = {
    PtxType.F16: 16,
    PtxType.BF16: 16,
    PtxType.TF32: 32,
    PtxType.E4M3: 8,
    PtxType.E5M2: 8,
    PtxType.U8: 8,
    PtxType.S8: 8,
}


def _u32(site: Site, name: str) -> Callable[[Any, Lanes], np.ndarray]:
    """A reader of a TMEM address operand (``[reg]``/``[reg+imm]``) as ``int64``."""
    reader = site.addr(name)

    def read(m: Any, lanes: Lanes) -> np.ndarray:
        return (reader(m, lanes) & np.uint64(0xFFFF_FFFF)).astype(np.int64)

    return read


def _units(m: Any, lanes: Lanes, group: int) -> tuple[np.ndarray, np.ndarray]:
    """Per lane: its unit (CTA, or the pair's even CTA) and the CTAs it acts on ``(n, P)``."""
    ctas = m.cta_of[lanes.sel]
    if group == 1:
        return ctas, ctas[:, None]
    first, second = pair_of(m, ctas, lanes.idx)
    return first, np.stack([first, second], axis=1)


# -------------------------------------------------------------------- data paths


def _datapath(m_rows: int, group: int, ws: bool) -> tuple[np.ndarray, int, int]:
    """(lane of each of a CTA's D rows in block 0, column blocks, lane stride of a block)."""
    rows = m_rows // group
    r = np.arange(rows, dtype=np.int64)
    if rows == 128:
        return r, 1, 0
    if rows == 64 and group == 1 and not ws:
        return 32 * (r // 16) + r % 16, 1, 0
    if rows == 64:
        return r, 2, 64
    return r, 4, 32


@dataclass(frozen=True)
class _Batch:
    """The MMAs of ``L`` issuing lanes, one per unit, that share an instruction descriptor.

    Attributes:
        who: the wave lane of each.
        units: its unit (CTA, or the pair's even CTA), which keys the collector buffers.
        targets: ``(L, P)`` the CTAs it computes in (``P`` = 1 or 2).
        d_addr: the TMEM address of D.
        a: the A descriptor, or the TMEM address of A.
        b: the B descriptor.
        enable: enable-input-d.
        disable: the disable-output-lane words ``(L, 4 * P)``, if given.
    """

    who: np.ndarray
    units: np.ndarray
    targets: np.ndarray
    d_addr: np.ndarray
    a: np.ndarray
    b: np.ndarray
    enable: np.ndarray
    disable: np.ndarray | None


class _Mma:
    """What one ``tcgen05.mma`` site needs at run time (decoded once)."""

    def __init__(self, site: Site, ws: bool) -> None:
        kind = site.slot("kind") or ""
        if kind in _SCALED or site.has("block_scale"):
            raise site.not_emulated(
                f"block-scaled tcgen05.mma (.{kind}): the scale-factor tensor-memory layouts and"
                " scale-ID selection"
            )
        if site.has("ashift"):
            raise site.not_emulated("tcgen05.mma .ashift")
        if ws and site.operand("zero-column-mask-desc") is not None:
            raise site.not_emulated("the zero-column mask of tcgen05.mma.ws")
        self.kind = kind
        self.ws = ws
        self.group = 2 if site.slot("cta_group") == "cta_group::2" else 1
        # .collector::a::<use> (A) or .collector::bN::<use> (.ws, B); none means ::discard.
        buffer, self.use = "a" if not ws else "b0", "discard"
        collector = site.slot("collector")
        if collector is not None:
            _, buffer, self.use = collector.split("::")
        self.buffer = buffer
        self.a_tmem = isinstance(site.operand("a"), Address)
        self.d_addr = _u32(site, "d-tmem")
        self.a = _u32(site, "a") if self.a_tmem else site.src("a", PtxType.B64)
        self.b = site.src("b-desc", PtxType.B64)
        self.idesc = site.src("idesc", PtxType.B32)
        self.enable = site.src("enable-input-d", PtxType.PRED)
        self.disable = (
            site.vec_src("disable-output-lane", PtxType.B32)
            if not ws and site.operand("disable-output-lane") is not None
            else None
        )
        self.scale_d = 0
        if not ws and site.operand("scale-input-d") is not None:
            self.scale_d = int(site.imm("scale-input-d"))
            if not 0 <= self.scale_d <= 15 or kind not in ("kind::f16", "kind::tf32"):
                raise site.not_emulated(
                    f"scale-input-d {self.scale_d} with .{kind} (the ISA allows 0-15, f16/tf32)"
                )
        self.decoded: dict[int, InstrDesc] = {}

    def decode(self, raw: int, lane: int) -> InstrDesc:
        """The checked instruction descriptor ``raw`` (cached)."""
        found = self.decoded.get(raw)
        if found is None:
            try:
                found = decode_idesc(raw, self.kind, cta_group=self.group, ws=self.ws)
            except Fault as fault:
                fault.lane = lane
                raise
            for ty in (found.atype, found.btype):
                if ty in _SUBBYTE:
                    raise Fault(
                        NotEmulated,
                        f"tcgen05.mma.{self.kind} with .{ty.value} operands (the packed 6- and"
                        " 4-bit shared-memory formats) is not emulated",
                        lane=lane,
                    )
            self.decoded[raw] = found
        return found

    def run(self, m: Any, lanes: Lanes) -> None:
        """Issue one MMA per lane: units in parallel, one unit's MMAs in lane order."""
        state = tmem(m)
        units, targets = _units(m, lanes, self.group)
        d_addr = self.d_addr(m, lanes)
        a = self.a(m, lanes)
        b = self.b(m, lanes)
        idesc = self.idesc(m, lanes).astype(np.int64)
        enable = self.enable(m, lanes)
        disable = self.disable(m, lanes) if self.disable is not None else None
        a_layout = np.full(lanes.n, -1) if self.a_tmem else desc_layouts(a)
        keys = np.stack([idesc, a_layout, desc_layouts(b)], axis=1)
        for sel in rounds(units):
            uniq, inverse = np.unique(keys[sel], axis=0, return_inverse=True)
            for g in range(uniq.shape[0]):
                idx = sel[inverse.reshape(-1) == g]
                batch = _Batch(
                    lanes.idx[idx],
                    units[idx],
                    targets[idx],
                    d_addr[idx],
                    a[idx],
                    b[idx],
                    enable[idx],
                    None if disable is None else disable[idx],
                )
                self.issue(m, state, self.decode(int(uniq[g, 0]), int(batch.who[0])), batch)
        m.touch()

    def issue(self, m: Any, state: TensorMemory, desc: InstrDesc, batch: _Batch) -> None:
        """Perform the MMAs of one batch."""
        rowmap, blocks, stride = _datapath(desc.m, self.group, self.ws)
        n_block = desc.n // blocks
        b_vals = self.operand_b(m, state, desc, batch)
        a_blocks = self.operand_a(m, state, desc, batch, rowmap, stride, blocks)
        prod = np.concatenate(
            [
                np.einsum("lpmk,lnk->lpmn", a_blocks[i], b_vals[:, i * n_block : (i + 1) * n_block])
                for i in range(blocks)
            ],
            axis=3,
        )
        n = np.arange(desc.n, dtype=np.int64)
        lane_rel = rowmap[:, None] + stride * (n // n_block)[None, :]
        lane = (batch.d_addr >> 16)[:, None, None, None] + lane_rel[None, None]
        col = (batch.d_addr & 0xFFFF)[:, None, None, None] + (n % n_block)[None, None, None, :]
        cta = batch.targets[:, :, None, None]
        state.check(m, cta, lane, col, batch.who, "tcgen05.mma (matrix D)")
        old = state.cells[cta, lane, col]
        on = batch.enable[:, None, None, None]
        if desc.dtype is PtxType.S32:
            acc = prod + np.where(on, old.view(np.int32).astype(np.int64), 0)
            if desc.saturate:
                acc = np.clip(acc, -(2**31), 2**31 - 1)
            new = (acc & 0xFFFF_FFFF).astype(np.uint32)
        else:
            new = _round(prod, old, on, desc.dtype, self.scale_d)
        if batch.disable is not None:
            new = np.where(_disabled(batch.disable, self.group, lane, new.shape), old, new)
        state.cells[cta, lane, col] = new

    def operand_b(self, m: Any, state: TensorMemory, desc: InstrDesc, batch: _Batch) -> Any:
        """B as ``(L, N, K)`` values (each CTA of a pair holds ``N / 2`` of its rows)."""
        buffer = self.buffer if self.ws else None
        if buffer is not None and self.use in ("use", "lastuse"):
            return _from_collector(state, batch, buffer, self.use == "lastuse")
        sdesc = decode_smem_desc(batch.b, batch.who)
        ebits = _EBITS[desc.btype]
        offsets = operand_offsets(sdesc, desc.n // self.group, desc.k, ebits, desc.b_mn_major)
        parts = [
            read_operand(m, batch.targets[:, p], offsets, ebits, batch.who, "tcgen05.mma (B)")
            for p in range(self.group)
        ]
        values = decode_values(np.concatenate(parts, axis=1), desc.btype)
        if desc.negate_b:
            values = -values
        if buffer is not None:
            _to_collector(state, batch, buffer, values, self.use == "fill")
        return values

    def operand_a(
        self,
        m: Any,
        state: TensorMemory,
        desc: InstrDesc,
        batch: _Batch,
        rowmap: np.ndarray,
        stride: int,
        blocks: int,
    ) -> Any:
        """A for each column block of D as ``(L, P, rows, K)`` values (``(blocks, ...)``)."""
        buffer = None if self.ws else self.buffer
        if buffer is not None and self.use in ("use", "lastuse"):
            return _from_collector(state, batch, buffer, self.use == "lastuse").swapaxes(0, 1)
        ebits = _EBITS[desc.atype]
        if self.a_tmem:
            values = self.tmem_a(m, state, desc, batch, ebits, rowmap, stride, blocks)
        else:
            sdesc = decode_smem_desc(batch.a, batch.who)
            rows = desc.m // self.group
            offsets = operand_offsets(sdesc, rows, desc.k, ebits, desc.a_mn_major)
            parts = [
                read_operand(m, batch.targets[:, p], offsets, ebits, batch.who, "tcgen05.mma (A)")
                for p in range(self.group)
            ]
            single = decode_values(np.stack(parts, axis=1), desc.atype)
            values = np.broadcast_to(single, (blocks, *single.shape))
        if desc.negate_a:
            values = -values
        if buffer is not None:
            _to_collector(state, batch, buffer, values.swapaxes(0, 1), self.use == "fill")
        return values

    def tmem_a(
        self,
        m: Any,
        state: TensorMemory,
        desc: InstrDesc,
        batch: _Batch,
        ebits: int,
        rowmap: np.ndarray,
        stride: int,
        blocks: int,
    ) -> np.ndarray:
        """A read from ``[a-tmem]``: each data-path lane reads the same lane, K packed."""
        if desc.a_mn_major:
            raise Fault(
                EmuError,
                "tcgen05.mma with A in tensor memory needs a K-major A (transpose A, bit 15 of"
                " the instruction descriptor, must be 0)",
                lane=int(batch.who[0]),
            )
        k = np.arange(desc.k, dtype=np.int64)
        cta = batch.targets[:, :, None, None]
        col = (batch.a & 0xFFFF)[:, None, None, None] + (k * ebits // 32)[None, None, None, :]
        shift = (k * ebits % 32).astype(np.uint32)
        mask = np.uint32((1 << ebits) - 1 if ebits < 32 else 0xFFFF_FFFF)
        out = []
        for blk in range(blocks):
            lanes = (rowmap + stride * blk)[None, None, :, None]
            lane = (batch.a >> 16)[:, None, None, None] + lanes
            state.check(m, cta, lane, col, batch.who, "tcgen05.mma (A in tensor memory)")
            out.append(decode_values((state.cells[cta, lane, col] >> shift) & mask, desc.atype))
        return np.stack(out)


def _disabled(
    words: np.ndarray, group: int, lane: np.ndarray, shape: tuple[int, ...]
) -> np.ndarray:
    """Which D cells disable-output-lane leaves unchanged.

    Bit ``i`` of word ``w`` stands for lane ``32 * (w % 4) + i`` of the pair's CTA ``w // 4``.
    """
    bits = (words.astype(np.uint32)[:, :, None] >> np.arange(32, dtype=np.uint32)) & 1
    off = bits.reshape(words.shape[0], group, LANES).astype(bool)
    index = np.broadcast_to(lane, shape).reshape(shape[0], group, -1)
    return np.take_along_axis(off, index, axis=2).reshape(shape)


def _to_collector(
    state: TensorMemory, batch: _Batch, buffer: str, values: np.ndarray, fill: bool
) -> None:
    """``::fill`` keeps each unit's operand; any other use leaves the buffer empty after."""
    for i, u in enumerate(batch.units):
        if fill:
            state.collector[(int(u), buffer)] = values[i]
        else:
            state.collector.pop((int(u), buffer), None)


def _from_collector(state: TensorMemory, batch: _Batch, buffer: str, last: bool) -> np.ndarray:
    """The operands kept by ``::fill`` (``::lastuse`` empties the buffer)."""
    out = []
    for i, u in enumerate(batch.units):
        found = state.collector.get((int(u), buffer))
        if found is None:
            raise Fault(
                EmuError,
                f"tcgen05.mma .collector::{buffer}::use/lastuse, but no earlier MMA of this CTA"
                f" filled collector buffer {buffer} with ::fill",
                lane=int(batch.who[i]),
            )
        if last:
            del state.collector[(int(u), buffer)]
        out.append(found)
    return np.stack(out)


def _round(
    prod: np.ndarray, old: np.ndarray, on: np.ndarray, dtype: PtxType, scale_d: int
) -> np.ndarray:
    """``prod (+ old D * 2^-scale)`` rounded once to ``dtype``, as 32-bit cells."""
    with np.errstate(all="ignore"):
        if dtype is PtxType.F32:
            prev = old.view(np.float32).astype(np.float64)
        else:
            prev = (old & np.uint32(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float64)
        if scale_d:
            prev = prev * np.float64(2.0**-scale_d)
        total = np.where(on, prod + prev, prod)
        nan = np.isnan(total)
        if dtype is PtxType.F32:
            bits = total.astype(np.float32).view(np.uint32)
            return np.where(nan, np.uint32(0x7FFF_FFFF), bits)
        half = total.astype(np.float16).view(np.uint16).astype(np.uint32)
        return np.where(nan, np.uint32(0x7FFF), half)


def mma(site: Site) -> Executor:
    """``tcgen05.mma.cta_group.kind [d-tmem], a, b-desc, idesc, ...`` (dense kinds)."""
    op = _Mma(site, ws=False)

    def run(m: Any, lanes: Lanes) -> Any:
        op.run(m, lanes)

    return run


def mma_ws(site: Site) -> Executor:
    """``tcgen05.mma.ws.cta_group::1.kind [d-tmem], a, b-desc, idesc, enable-input-d``."""
    op = _Mma(site, ws=True)

    def run(m: Any, lanes: Lanes) -> Any:
        op.run(m, lanes)

    return run


def sparse(site: Site) -> Executor:
    """``tcgen05.mma.sp`` / ``.ws.sp``: not emulated."""
    raise site.not_emulated(f"{site.match.spec.name} (sparse A with metadata in tensor memory)")


# -------------------------------------------------------------------- cp

_CP_ROWS = {"128x256b": 128, "4x256b": 4, "128x128b": 128, "64x128b": 64, "32x128b": 32}
_CP_MULTICAST = {"64x128b": ("warpx2::02_13", "warpx2::01_23"), "32x128b": ("warpx4",)}


def _cp_lanes(shape: str, multicast: str | None) -> np.ndarray:
    """``(rows, copies)``: the TMEM lanes (from ``taddr``'s) each source row is written to."""
    r = np.arange(_CP_ROWS[shape], dtype=np.int64)[:, None]
    if shape == "4x256b":
        return 32 * r
    if multicast == "warpx2::02_13":
        return r + np.array([[0, 64]])
    if multicast == "warpx2::01_23":
        return r % 32 + 64 * (r // 32) + np.array([[0, 32]])
    if multicast == "warpx4":
        return r + np.array([[0, 32, 64, 96]])
    return r


def cp(site: Site) -> Executor:
    """``tcgen05.cp.cta_group.shape{.multicast} [taddr], s-desc``."""
    shape = site.slot("shape") or ""
    multicast = site.slot("multicast")
    if site.slot("dst_fmt") or site.slot("src_fmt"):
        raise site.not_emulated("tcgen05.cp decompression (.b8x16.b6x16_p32/.b4x16_p64)")
    allowed = _CP_MULTICAST.get(shape, ())
    if (multicast is None) != (not allowed) or (multicast and multicast not in allowed):
        raise site.not_emulated(f"tcgen05.cp.{shape} with multicast {multicast}")
    group = 2 if site.slot("cta_group") == "cta_group::2" else 1
    dest = _cp_lanes(shape, multicast)
    cols = 8 if shape.endswith("256b") else 4
    rows = dest.shape[0]
    taddr = _u32(site, "taddr")
    sdesc = site.src("s-desc", PtxType.B64)
    c = np.arange(cols, dtype=np.int64)

    def run(m: Any, lanes: Lanes) -> Any:
        state = tmem(m)
        units, targets = _units(m, lanes, group)
        addr = taddr(m, lanes)
        descs = sdesc(m, lanes)
        layouts = desc_layouts(descs)
        for sel in rounds(units):
            for layout in np.unique(layouts[sel]):
                idx = sel[layouts[sel] == layout]
                who = lanes.idx[idx]
                offsets = operand_offsets(decode_smem_desc(descs[idx], who), rows, cols, 32, False)
                lane = (addr[idx] >> 16)[:, None, None, None] + dest[None, :, :, None]
                col = (addr[idx] & 0xFFFF)[:, None, None, None] + c[None, None, None, :]
                for p in range(group):
                    cta = targets[idx, p][:, None, None, None]
                    data = read_operand(m, targets[idx, p], offsets, 32, who, "tcgen05.cp")
                    state.check(m, cta, lane, col, who, "tcgen05.cp")
                    state.cells[cta, lane, col] = data[:, :, None, :]
        m.touch()
        return None

    return run


# -------------------------------------------------------------------- commit


def commit(site: Site) -> Executor:
    """``tcgen05.commit.cta_group.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}``.

    The MMAs and copies issued before are complete already, so the mbarrier gets its arrival
    now.
    """
    space = site.space()
    mbar = site.addr("mbar")
    mask = site.src("ctaMask", PtxType.B16) if site.has("multicast::cluster") else None
    window = np.uint64(WINDOWS[Space.SHARED] << WINDOW_SHIFT)
    low = np.uint64((1 << RANK_SHIFT) - 1)

    def run(m: Any, lanes: Lanes) -> Any:
        addrs = mbar(m, lanes)
        if mask is None:
            _mbar.arrive(m, _mbar.mbarrier_flat(m, space, addrs, lanes), 1)
            m.touch()
            return None
        local = addrs - window if space is Space.GENERIC else addrs
        local = local & low
        bits = mask(m, lanes).astype(np.int64)
        size = m.config.cluster_size
        ranks = np.arange(16, dtype=np.int64)
        hit = ((bits[:, None] >> ranks) & 1).astype(bool) & (ranks < size)
        lane_pos, rank = np.nonzero(hit)
        if lane_pos.size:
            targets = ((rank.astype(np.uint64) + np.uint64(1)) << np.uint64(RANK_SHIFT)) | local[
                lane_pos
            ]
            who = Lanes(lanes.idx[lane_pos], m.n)
            flat = _mbar.mbarrier_flat(m, Space.SHARED_CLUSTER, targets, who)
            _mbar.arrive(m, flat, 1)
        m.touch()
        return None

    return run
