"""TMA: tensor copies and reductions in tile mode, and the instructions that edit maps.

``cp.async.bulk.tensor`` and ``cp.reduce.async.bulk.tensor`` (``.tile``), and
``tensormap.replace`` and ``tensormap.cp_fenceproxy``.

The tensor-map operand is the address (param, const, global or generic) of a 128-byte
object. The emulator's maps hold a tag there (see :mod:`pyptx.emu._tensor_map`): a launch
map's number, or after ``tensormap.replace`` every field inline. Anything else is an error
saying the address does not hold a tensor map made by ``pyptx.emu.tensor_map``.

Where the data goes (checked against the PTX ISA's "Tensors" and ``cp.async.bulk.tensor``
sections, the CUDA programming guide's TMA chapter and its swizzle tables, and CUTLASS's
``cute/arch/copy_sm90_tma.hpp``/``cute/atom/copy_traits_sm90_tma.hpp``):

* Coordinates come innermost first (``{c0, c1, ...}``; ``c0`` indexes the array's last
  numpy axis) as signed 32-bit values. Along dimension ``d`` the box covers elements
  ``c_d + i * elementStride_d`` for ``i < ceil(box_d / elementStride_d)``; the stride of
  dimension 0 is ignored (as the driver does without interleave).
* In shared memory the box is dense and row-major in box order: the innermost dimension
  contiguous, then dimension 1, and so on (``box_bytes`` in all: the count a load's
  complete-tx reports, out-of-bounds elements included).
* With a swizzle of span ``S`` (32, 64, 128 bytes) each 16-byte chunk moves within its
  128-byte line: address bits [4, 4 + log2(S/16)) are XORed with bits [7, ...) of the same
  width, computed on the *shared-memory address* (``_swizzle.swizzle`` of the CTA offset).
  With the box at a multiple of the pattern's repeat (``8 * S``) that is the PTX ISA's
  swizzle tables exactly; a box 128-byte but not repeat aligned gets the programming guide's
  "swizzle pattern pointer offset" ``(addr / 128) % (S / 16)`` added to its row index, which
  is the same thing. CuTe maps ``Swizzle<B,4,3>`` on byte offsets (16-byte base, bits
  [4, 4 + B) XOR [7, 7 + B)) to the 32/64/128-byte modes for B = 1/2/3
  (``copy_traits_sm90_tma_swizzle.hpp``): the same function. CUTLASS's
  ``SM90_TMA_LOAD_2D`` passes ``crd0`` (the contiguous mode) first, as here.
* Loads fill out-of-bounds elements with zero, or for NaN-fill maps with the type's
  canonical NaN (all exponent and mantissa bits set, sign clear: ``0x7FFF`` for f16 and
  bf16, ``0x7FFFFFFF`` for f32); PTX names it OOB-NaN without giving its bits. Stores and
  reductions skip out-of-bounds elements; their box may not start at a negative coordinate.
* ``.multicast::cluster`` writes the box at the same CTA offset in every CTA of
  ``ctaMask`` and signals the mbarrier at the same offset in each (``.cta_group::2``: in
  the CTA of each destination's pair with the parity of the mbarrier's CTA).

Not emulated, each with its reason in the error: im2col and gather4/scatter4 load modes,
interleaved maps, the 96-byte swizzle and 128-byte swizzle atomicities other than 16 bytes
(sm_100 sub-modes), a swizzled box whose innermost side is narrower than the swizzle span
(the programming guide says each row then occupies the whole span, but not what the
transaction count or the gap holds), and ``.tf32`` maps (whether the copy rounds to tf32 is
not specified).

Completion follows :mod:`.async_copy`: loads land and complete-tx when issued; stores and
reductions are performed when issued and their shared-memory source is checked at the
``cp.async.bulk.wait_group`` that covers them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyptx.ir import Address, PtxType, Register, StateSpace, Symbol, VectorOperand

from .. import _mbar
from .._errors import EmuError, Fault, NotEmulated, OutOfBounds
from .._lanes import Lanes
from .._machine import YIELD, Executor
from .._memory import Space
from .._program import Var
from .._site import Reader, Site
from .._swizzle import swizzle
from .._tensor_map import (
    TENSOR_MAP_BYTES,
    Descriptor,
    TensorMap,
    decode,
    encode_inline,
)
from .._warp import converged
from .async_copy import bulk_issued, multicast_targets, own_cta, reduce_global

__all__ = ["SEMANTICS"]

_MAP_ALIGN = 64
"""A ``CUtensorMap`` is 64-byte aligned."""

_BOX_ALIGN = 128
"""Shared-memory boxes of tensor copies are 128-byte aligned."""

_VAR_SPACES = {
    StateSpace.PARAM: Space.PARAM,
    StateSpace.CONST: Space.CONST,
    StateSpace.GLOBAL: Space.GLOBAL,
    StateSpace.SHARED: Space.SHARED,
}

_NAN_BITS = {
    PtxType.F16: 0x7FFF,
    PtxType.BF16: 0x7FFF,
    PtxType.F32: 0x7FFF_FFFF,
    PtxType.F64: 0x7FFF_FFFF_FFFF_FFFF,
}

_ADD = frozenset({PtxType.U32, PtxType.S32, PtxType.U64, PtxType.F32, PtxType.F16, PtxType.BF16})
_MIN_MAX = frozenset(
    {PtxType.U32, PtxType.S32, PtxType.U64, PtxType.S64, PtxType.F16, PtxType.BF16}
)
_BITWISE = frozenset({PtxType.U32, PtxType.S32, PtxType.U64, PtxType.S64})

_REDUCTIONS: dict[str, frozenset[PtxType]] = {
    "add": _ADD,
    "min": _MIN_MAX,
    "max": _MIN_MAX,
    "inc": frozenset({PtxType.U32}),
    "dec": frozenset({PtxType.U32}),
    "and": _BITWISE,
    "or": _BITWISE,
    "xor": _BITWISE,
}
"""Element types each ``.redOp`` of ``cp.reduce.async.bulk.tensor`` accepts (PTX ISA table;
``.b32``/``.b64`` for the bitwise ones: any 32- or 64-bit integer map)."""


# --------------------------------------------------------------------------------- the map


def _map_operand(site: Site) -> tuple[Reader, Space, Reader]:
    """Readers of the tensor map's address, its space, and the coordinates ``{c0, ...}``."""
    op = site.require("tensorMap")
    if not isinstance(op, Address) or not op.extra or not isinstance(op.extra[0], VectorOperand):
        raise NotEmulated(f"{site.mnemonic}: expected [tensorMap, {{coordinates}}]")
    coords = site.vector_reader(op.extra[0].elements, PtxType.S32)
    space = Space.GENERIC
    if isinstance(op.base, Register | Symbol):
        bound = site.scope.resolve(op.base.name)
        if isinstance(bound, Var):
            space = _VAR_SPACES.get(bound.space, Space.GENERIC)
    return site.address_reader(op), space, coords


def _launch_descriptor(m: Any, index: int, lane: int) -> Descriptor:
    cache = m.ext.setdefault("tma-maps", {})
    found = cache.get(index)
    if found is not None:
        return found
    maps = m.tensor_maps
    if not 0 <= index < len(maps) or not isinstance(maps[index], TensorMap):
        raise Fault(
            EmuError,
            f"the tensor map names map number {index}, which this launch does not have",
            lane=lane,
        )
    tmap: TensorMap = maps[index]
    ptr = tmap.array.__array_interface__["data"][0]
    for seg in m.mem.segments:
        if seg.data.size and seg.data.__array_interface__["data"][0] == ptr:
            desc = tmap.descriptor(seg.base)
            cache[index] = desc
            return desc
    raise Fault(EmuError, f"the array of tensor map {index} is not in global memory", lane=lane)


def descriptors(
    m: Any, space: Space, addr: np.ndarray, lanes: np.ndarray
) -> list[tuple[Descriptor, np.ndarray]]:
    """The tensor maps at ``addr``: each distinct map and the entries that use it."""
    raw = m.mem.load_bytes(space, addr, lanes, TENSOR_MAP_BYTES, _MAP_ALIGN)
    rows, inverse = np.unique(raw, axis=0, return_inverse=True)
    out = []
    for j, row in enumerate(rows):
        sel = np.flatnonzero(inverse.reshape(-1) == j)
        found = decode(row)
        if found is None:
            i = int(sel[0])
            raise Fault(
                EmuError,
                f"address {int(addr[i]):#x} ({space.value}) does not hold a tensor map made by"
                " pyptx.emu.tensor_map (pass one in the launch arguments, or copy one there)",
                lane=int(lanes[i]),
                address=int(addr[i]),
                space=space.value,
            )
        if isinstance(found, int):
            found = _launch_descriptor(m, found, int(lanes[sel[0]]))
        out.append((found, sel))
    return out


def _usable(desc: Descriptor, dim: int, lane: int) -> None:
    """Raise if the map cannot serve a tile-mode copy of ``dim`` dimensions here."""
    problem = desc.problem(dim)
    if problem is not None:
        raise Fault(EmuError, f"invalid tensor map: {problem}", lane=lane)
    inner = desc.box[0] * desc.element_bytes
    reason = None
    if desc.interleave:
        reason = f"an interleaved ({desc.interleave}-byte) tensor map"
    elif desc.swizzle == 96:
        reason = "the 96-byte swizzle mode"
    elif desc.swizzle is not None and desc.atomicity != 16:
        reason = f"a {desc.swizzle}-byte swizzle with {abs(desc.atomicity)}-byte atomicity"
    elif desc.swizzle is not None and inner < desc.swizzle:
        reason = (
            f"a {desc.swizzle}-byte swizzle over a {inner}-byte inner box side (the box rows"
            " then occupy the whole swizzle span; the transaction count of such a copy is"
            " not documented)"
        )
    elif desc.dtype is PtxType.TF32:
        reason = "a .tf32 tensor map (whether TMA rounds the elements to tf32 is not documented)"
    if reason is not None:
        raise Fault(NotEmulated, f"TMA with {reason} is not emulated", lane=lane)


class _Geometry:
    """Where each element of one box lives, relative to its corner and its smem base."""

    def __init__(self, desc: Descriptor) -> None:
        rank = desc.rank
        ext = desc.extents[:rank]
        grid = np.indices(tuple(reversed(ext))).reshape(rank, -1)[::-1].astype(np.int64)
        step = np.array([1, *desc.elem_strides[1:rank]], dtype=np.int64)
        self.offsets = grid.T * step  # (E, rank): element minus box corner
        self.dims = np.array(desc.dims[:rank], dtype=np.int64)
        e = desc.element_bytes
        self.strides = np.array([e, *desc.strides[1:rank]], dtype=np.int64)
        self.elements = self.offsets.shape[0]
        self.esize = e
        self.nbytes = self.elements * e
        self.address = desc.address
        self.swizzle = desc.swizzle

    def locate(self, corner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """In-bounds mask ``(k, E)`` and global addresses ``(k, E)`` for box corners ``(k, r)``."""
        x = corner[:, None, :] + self.offsets[None, :, :]
        inside = ((x >= 0) & (x < self.dims)).all(axis=2)
        x = np.where(inside[:, :, None], x, 0)
        addr = (x * self.strides).sum(axis=2) + self.address
        return inside, addr.astype(np.uint64)

    def positions(self, m: Any, base: np.ndarray) -> np.ndarray:
        """Flat shared-memory position ``(k, nbytes)`` of every byte of boxes at ``base``."""
        row = m.mem.shared_row
        start = base - base % row
        logical = base[:, None] % row + np.arange(self.nbytes, dtype=np.int64)
        return start[:, None] + swizzle(logical, self.swizzle)


def _geometry(m: Any, desc: Descriptor) -> _Geometry:
    cache = m.ext.setdefault("tma-geometry", {})
    g = cache.get(desc)
    if g is None:
        g = cache[desc] = _Geometry(desc)
    return g


def _fill(desc: Descriptor) -> np.ndarray:
    e = desc.element_bytes
    bits = _NAN_BITS.get(desc.dtype, 0) if desc.oob_nan else 0
    return np.frombuffer(bits.to_bytes(8, "little")[:e], dtype=np.uint8)


# --------------------------------------------------------------------------------- copies


def _mode(site: Site) -> None:
    mode = site.slot("load_mode") or "tile"
    if mode != "tile":
        raise site.not_emulated(f"{site.mnemonic}: the .{mode} mode")


def _dims(site: Site) -> int:
    return int((site.slot("dim") or "0d")[0])


def tensor_copy(site: Site) -> Executor:
    """``cp.async.bulk.tensor``: global to shared (mbarrier), or shared to global (group)."""
    _mode(site)
    if site.slot("dst") == "global":
        return _store(site, None)
    return _load(site)


def _load(site: Site) -> Executor:
    dim = _dims(site)
    space = Space.of([site.slot("dst") or "shared::cluster"])
    dst = site.addr("dstMem")
    mbar = site.addr("mbar")
    tmap, tspace, coords = _map_operand(site)
    cta_mask = site.src("ctaMask", PtxType.B16) if site.has("multicast::cluster") else None
    pair = site.slot("cta_group") == "cta_group::2"
    name = site.mnemonic

    def run(m: Any, lanes: Lanes) -> Any:
        idx = lanes.idx
        d = dst(m, lanes)
        bar = _mbar.mbarrier_flat(m, space, mbar(m, lanes), idx)
        corner = coords(m, lanes).astype(np.int64)
        mask = cta_mask(m, lanes) if cta_mask is not None else None
        for desc, sel in descriptors(m, tspace, tmap(m, lanes), idx):
            who = idx[sel]
            _usable(desc, dim, int(who[0]))
            g = _geometry(m, desc)
            base = _mbar.shared_flat(m, space, d[sel], who, g.nbytes, _BOX_ALIGN, "a TMA box")
            if space is Space.SHARED:
                own_cta(m, who, base, name)
            inside, addr = g.locate(corner[sel])
            data = np.broadcast_to(_fill(desc), (who.size, g.elements, g.esize)).copy()
            if inside.any():
                rep = np.broadcast_to(who[:, None], inside.shape)[inside]
                data[inside] = m.mem.load_bytes(Space.GLOBAL, addr[inside], rep, g.esize, g.esize)
            data = data.reshape(who.size, g.nbytes)
            if mask is not None:
                entry, targets = multicast_targets(m, who, base, mask[sel])
                bars = _signal_targets(m, who, entry, targets, bar[sel], pair)
                m.mem.shared[g.positions(m, targets)] = data[entry]
                _mbar.complete_tx(m, bars, g.nbytes, lanes=who[entry])
            else:
                _check_mbar(m, who, base, bar[sel], pair, name)
                m.mem.shared[g.positions(m, base)] = data
                _mbar.complete_tx(m, bar[sel], g.nbytes, lanes=who)
        m.touch()

    return run


def _signal_targets(
    m: Any, who: np.ndarray, entry: np.ndarray, targets: np.ndarray, bar: np.ndarray, pair: bool
) -> np.ndarray:
    """The mbarrier each multicast destination signals (same CTA, or its pair's)."""
    row = m.mem.shared_row
    dst_cta = targets // row
    if not pair:
        return dst_cta * row + bar[entry] % row
    first = m.wave.cluster_first[m.cta_of[who[entry]]]
    dst_rank = m.wave.rank[dst_cta]
    bar_rank = m.wave.rank[bar[entry] // row]
    rank = (dst_rank & ~1) | (bar_rank & 1)
    return (first + rank) * row + bar[entry] % row


def _check_mbar(
    m: Any, who: np.ndarray, base: np.ndarray, bar: np.ndarray, pair: bool, name: str
) -> None:
    row = m.mem.shared_row
    dst_cta, bar_cta = base // row, bar // row
    ok = dst_cta == bar_cta
    if pair:
        ok |= m.wave.rank[dst_cta] ^ 1 == m.wave.rank[bar_cta]
        ok &= m.wave.cluster_first[dst_cta] == m.wave.cluster_first[bar_cta]
    if not ok.all():
        i = int(np.argmin(ok))
        where = "the same CTA as" + (" the destination or its pair" if pair else " the box")
        raise Fault(
            EmuError,
            f"{name}: the mbarrier ({_mbar.where(m, int(bar[i]))}) must be in {where}"
            f" ({_mbar.where(m, int(base[i]))})",
            lane=int(who[i]),
        )


def tensor_reduce(site: Site) -> Executor:
    """``cp.reduce.async.bulk.tensor.{add,min,...}``: reduce a box into global memory."""
    _mode(site)
    return _store(site, site.slot("op") or "")


def _store(site: Site, op: str | None) -> Executor:
    dim = _dims(site)
    src = site.addr("srcMem")
    tmap, tspace, coords = _map_operand(site)
    name = site.mnemonic

    def run(m: Any, lanes: Lanes) -> Any:
        idx = lanes.idx
        s = src(m, lanes)
        corner = coords(m, lanes).astype(np.int64)
        for desc, sel in descriptors(m, tspace, tmap(m, lanes), idx):
            who = idx[sel]
            _usable(desc, dim, int(who[0]))
            if op is not None and desc.dtype not in _REDUCTIONS[op]:
                raise Fault(
                    EmuError,
                    f"{name}: .{op} is not defined for .{desc.dtype.value} tensors",
                    lane=int(who[0]),
                )
            negative = (corner[sel] < 0).any(axis=1)
            if negative.any():
                i = int(np.argmax(negative))
                raise Fault(
                    OutOfBounds,
                    f"{name}: a box written to global memory must not start at a negative"
                    f" coordinate, got {tuple(int(c) for c in corner[sel][i])}",
                    lane=int(who[i]),
                )
            g = _geometry(m, desc)
            base = _mbar.shared_flat(
                m, Space.SHARED, s[sel], who, g.nbytes, _BOX_ALIGN, "a TMA box"
            )
            own_cta(m, who, base, name)
            data = m.mem.shared[g.positions(m, base)].reshape(who.size, g.elements, g.esize)
            inside, addr = g.locate(corner[sel])
            if inside.any():
                rep = np.broadcast_to(who[:, None], inside.shape)[inside]
                values = np.ascontiguousarray(data[inside])
                if op is None:
                    m.mem.store_bytes(Space.GLOBAL, addr[inside], rep, values, g.esize)
                else:
                    raw = values.view(np.dtype(f"u{g.esize}")).reshape(-1)
                    reduce_global(m, op, desc.dtype, addr[inside], rep, raw, desc.ftz)
            footprint = base[:, None] + np.arange(g.nbytes)
            bulk_issued(m, who, base, m.mem.shared[footprint])
        m.touch()

    return run


# --------------------------------------------------------------------------------- editing maps


def replace(site: Site) -> Executor:
    """``tensormap.replace.tile.field [addr], {ord,} new_val``: edit a map in memory.

    The map at ``addr`` (global or shared::cta) is rewritten inline with the field changed.
    """
    field = site.slot("field") or ""
    ordinal = int(site.imm("ord")) if site.operand("ord") is not None else None
    ty = site.type()
    value: Reader = site.src("new_val", ty)
    space = site.space()
    addr = site.addr("addr")

    def run(m: Any, lanes: Lanes) -> Any:
        idx = lanes.idx
        a = addr(m, lanes)
        new = value(m, lanes).astype(np.uint64).astype(np.int64)
        raw = m.mem.load_bytes(space, a, idx, TENSOR_MAP_BYTES, _MAP_ALIGN)
        out = raw.copy()
        for desc, sel in descriptors(m, space, a, idx):
            for v in np.unique(new[sel]):
                part = sel[new[sel] == v]
                try:
                    edited = desc.with_field(field, int(v), ordinal)
                except ValueError as err:
                    raise Fault(
                        EmuError, f"{site.mnemonic}: {err}", lane=int(idx[part[0]])
                    ) from None
                out[part] = np.frombuffer(encode_inline(edited), dtype=np.uint8)
        m.mem.store_bytes(space, a, idx, out, _MAP_ALIGN)
        m.touch()

    return run


def cp_fenceproxy(site: Site) -> Executor:
    """``tensormap.cp_fenceproxy.global.shared::cta...sync.aligned [dst], [src], 128``."""
    size = int(site.imm("size"))
    if size != TENSOR_MAP_BYTES:
        raise site.not_emulated(f"tensormap.cp_fenceproxy of {size} bytes (the ISA allows 128)")
    dst = site.addr("dst")
    src = site.addr("src")

    def run(m: Any, lanes: Lanes) -> Any:
        if not converged(m, site, lanes, None):
            return YIELD
        idx = lanes.idx
        data = m.mem.load_bytes(Space.SHARED, src(m, lanes), idx, size, _MAP_ALIGN)
        m.mem.store_bytes(Space.GLOBAL, dst(m, lanes), idx, data, _MAP_ALIGN)
        m.touch()
        return None

    return run


SEMANTICS = {
    "cp.async.bulk.tensor": tensor_copy,
    "cp.reduce.async.bulk.tensor": tensor_reduce,
    "tensormap.replace": replace,
    "tensormap.cp_fenceproxy": cp_fenceproxy,
}
