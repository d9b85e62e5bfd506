"""``wmma.load``, ``wmma.store`` and ``wmma.mma`` on the ``m16n16k16`` and ``m16n16k8`` shapes.

The PTX ISA leaves the distribution of a ``wmma`` fragment over the warp's lanes unspecified
(a portable program only moves fragments between ``wmma`` instructions or applies the same
operation to every element), so any consistent layout is faithful. The emulator lays the
fragments out as ``mma.m16n8k*`` tiles (how sm_80 and later build ``wmma``; the exact
hardware placement is not claimed):

* A (16xK) is the ``mma.m16n8k16`` A fragment (``m16n8k8`` for ``.tf32``);
* B (Kx16) is two ``mma`` B fragments, columns 0..7 then 8..15;
* C and D (16x16) are two ``mma`` accumulator fragments, columns 0..7 then 8..15.

``.f16`` A and B fragments have twice as many elements as the matrix (8 registers each, a
Volta legacy); the second half repeats the first, and ``wmma.mma`` reads the first copy.
Numerics are those of ``mma`` (:mod:`.matrix_mma`): exact products, a ``float64`` sum,
one rounding to the accumulator type; integer forms exact (``.satfinite`` clamps).

Supported: ``m16n16k16`` with ``.f16``, ``.bf16``, ``.s8``/``.u8`` multiplicands and
``.f16``/``.f32``/``.s32`` accumulators, ``m16n16k8`` with ``.tf32``. Other shapes raise
:class:`~pyptx.emu.NotEmulated`. ``p`` and ``stride`` must be the same in every lane of the
warp; ``stride`` (in elements) defaults to the matrix's leading dimension.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .._errors import EmuError, Fault, NotEmulated
from .._lanes import WARP, Lanes
from .._machine import YIELD, Executor
from .._site import Reader, Site
from .matrix_common import aligned, pack, unpack
from .matrix_fragments import Fragment, a_fragment, accumulator_fragment, b_fragment
from .matrix_mma import CODECS, decode_accumulator, encode_accumulator

__all__ = ["wmma_load", "wmma_mma", "wmma_store"]


@dataclass(frozen=True)
class _Layout:
    """One wmma fragment: its element coordinates (``copies`` times over) and coding.

    Attributes:
        frag: element coordinates (all registers, copies included).
        unique: elements per lane in the first copy.
        bits: bits per element in a register.
        size: bytes per element in memory.
    """

    frag: Fragment
    unique: int
    bits: int
    size: int


def _join(parts: list[Fragment], rows: int, cols: int, copies: int = 1) -> Fragment:
    row = np.concatenate([p.row for p in parts] * copies, axis=1)
    col = np.concatenate([p.col for p in parts] * copies, axis=1)
    return Fragment(np.zeros_like(row), row, col, 1, rows, cols)


def _shift_cols(frag: Fragment, by: int) -> Fragment:
    return Fragment(frag.group, frag.row, frag.col + by, 1, frag.rows, frag.cols + by)


_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "s8": 8, "u8": 8, "f32": 32, "s32": 32}
_K = {"m16n16k16": 16, "m16n16k8": 8}


def _layout(site: Site, frag: str, ty: str) -> _Layout:
    shape = site.slot("shape") or ""
    k = _K.get(shape)
    bits = _BITS.get(ty)
    if k is None or bits is None or (frag in "ab" and (ty == "tf32") != (k == 8)):
        raise NotEmulated(f"{site.mnemonic}: wmma .{shape} with .{ty} is not emulated")
    copies = 2 if ty == "f16" and frag in "ab" else 1
    if frag == "a":
        base = a_fragment(16, k, bits)
        joined = _join([base], 16, k, copies)
        unique = base.elements
    elif frag == "b":
        left = b_fragment(k, 8, bits)
        joined = _join([left, _shift_cols(left, 8)], k, 16, copies)
        unique = 2 * left.elements
    else:
        left = accumulator_fragment(16, 8)
        joined = _join([left, _shift_cols(left, 8)], 16, 16)
        unique = 2 * left.elements
    fixed = Fragment(joined.group, joined.row, joined.col, 1, joined.rows, joined.cols)
    return _Layout(fixed, unique, bits, max(1, bits // 8))


def _uniform(site: Site, lanes: Lanes, values: np.ndarray, what: str) -> np.ndarray:
    per_warp = values.reshape(-1, WARP)
    if not (per_warp == per_warp[:, :1]).all():
        raise Fault(
            EmuError,
            f"{site.mnemonic}: {what} differs between the lanes of a warp; every lane must"
            " give the same value",
            lane=int(lanes.idx[0]),
        )
    return per_warp[:, 0]


def _addresses(
    site: Site, layout: _Layout, memory_layout: str, addr: Reader, stride: Reader | None
) -> Any:
    frag = layout.frag
    leading = frag.cols if memory_layout == "row" else frag.rows
    major = frag.row if memory_layout == "row" else frag.col
    minor = frag.col if memory_layout == "row" else frag.row

    def compute(m: Any, lanes: Lanes) -> tuple[np.ndarray, np.ndarray]:
        base = _uniform(site, lanes, addr(m, lanes), "the matrix address")
        if stride is None:
            ld = np.full(base.shape, leading, dtype=np.int64)
        else:
            ld = _uniform(site, lanes, stride(m, lanes).astype(np.int64), "the stride")
        offset = (major[None] * ld[:, None, None] + minor[None]) * layout.size
        where = base[:, None, None] + offset.astype(np.uint64)  # (w, 32, e)
        who = np.broadcast_to(lanes.idx.reshape(-1, WARP, 1), where.shape)
        return where.reshape(-1), who.reshape(-1)

    return compute


def wmma_load(site: Site) -> Executor:
    """``wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride}``."""
    frag = site.slot("frag") or "a"
    ty = site.slot("type") or ""
    layout = _layout(site, frag, ty)
    per = 32 // layout.bits
    if site.width("r") * per != layout.frag.elements:
        raise NotEmulated(
            f"{site.mnemonic}: the fragment has {layout.frag.elements // per} registers,"
            f" got {site.width('r')}"
        )
    space = site.space()
    stride = site.src("stride", PtxType.U32) if site.operand("stride") is not None else None
    where = _addresses(site, layout, site.slot("layout") or "row", site.addr("p"), stride)
    r = site.vec_dst("r", PtxType.B32)

    def run(m: Any, lanes: Lanes) -> Any:
        if not aligned(m, site, lanes):
            return YIELD
        addrs, who = where(m, lanes)
        codes = m.mem.load(space, addrs, who, layout.size)[:, 0]
        regs = pack(codes.reshape(lanes.n, -1), layout.bits)
        r(m, lanes, regs)
        return None

    return run


def wmma_store(site: Site) -> Executor:
    """``wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}``."""
    ty = site.slot("type") or ""
    layout = _layout(site, "d", ty)
    per = 32 // layout.bits
    if site.width("r") * per != layout.frag.elements:
        raise NotEmulated(
            f"{site.mnemonic}: the fragment has {layout.frag.elements // per} registers,"
            f" got {site.width('r')}"
        )
    space = site.space()
    stride = site.src("stride", PtxType.U32) if site.operand("stride") is not None else None
    where = _addresses(site, layout, site.slot("layout") or "row", site.addr("p"), stride)
    r = site.vec_src("r", PtxType.B32)
    dtype = np.dtype(f"u{layout.size}")

    def run(m: Any, lanes: Lanes) -> Any:
        if not aligned(m, site, lanes):
            return YIELD
        addrs, who = where(m, lanes)
        codes = unpack(r(m, lanes).astype(np.uint32), layout.bits).astype(dtype)
        m.mem.store(space, addrs, who, codes.reshape(-1, 1))
        m.touch()
        return None

    return run


def wmma_mma(site: Site) -> Executor:
    """``wmma.mma.sync.aligned.alayout.blayout.shape.dtype{.atype.btype}.ctype d, a, b, c``."""
    if site.slot("bitop") is not None:
        raise NotEmulated(f"{site.mnemonic}: single-bit wmma is not emulated")
    atype = site.slot("atype") or "f16"
    ctype, dtype = site.slot("ctype") or "", site.slot("dtype") or ""
    satfinite = site.has("satfinite")
    codec = CODECS.get(atype)
    if codec is None or atype in ("f64", "s4", "u4"):
        raise NotEmulated(f"{site.mnemonic}: wmma on .{atype} is not emulated")
    if satfinite and not codec.integer:
        raise NotEmulated(f"{site.mnemonic}: .satfinite on floating-point wmma is not emulated")
    la = _layout(site, "a", atype)
    lb = _layout(site, "b", site.slot("btype") or atype)
    lc = _layout(site, "c", ctype)
    ld = _layout(site, "d", dtype)
    b_codec = CODECS[site.slot("btype") or atype]
    for name, lay in (("a", la), ("b", lb), ("c", lc), ("d", ld)):
        if site.width(name) * (32 // lay.bits) != lay.frag.elements:
            raise NotEmulated(
                f"{site.mnemonic}: operand {name} needs"
                f" {lay.frag.elements * lay.bits // 32} registers, got {site.width(name)}"
            )
    read = {x: site.vec_src(x, PtxType.B32) for x in "abc"}
    write = site.vec_dst("d", PtxType.B32)

    first_copy = {
        id(lay): lay.frag.flat().reshape(WARP, -1)[:, : lay.unique].reshape(-1)
        for lay in (la, lb, lc)
    }
    d_index = ld.frag.flat()

    def gather(codes: np.ndarray, lay: _Layout, kind: Any) -> np.ndarray:
        """The first copy of each lane's elements, as ``(warps, rows, cols)``."""
        w = codes.shape[0] // WARP
        frag = lay.frag
        out = np.empty((w, frag.rows * frag.cols), dtype=kind)
        out[:, first_copy[id(lay)]] = codes.reshape(w, WARP, -1)[:, :, : lay.unique].reshape(w, -1)
        return out.reshape(w, frag.rows, frag.cols)

    def run(m: Any, lanes: Lanes) -> Any:
        if not aligned(m, site, lanes):
            return YIELD
        kind = np.int64 if codec.integer else np.float64
        a = gather(codec.decode(unpack(read["a"](m, lanes), la.bits)), la, kind)
        b = gather(b_codec.decode(unpack(read["b"](m, lanes), lb.bits)), lb, kind)
        c_kind = np.int64 if ctype == "s32" else np.float64
        c = gather(decode_accumulator(unpack(read["c"](m, lanes), lc.bits), ctype), lc, c_kind)
        with np.errstate(all="ignore"):
            d = a @ b + c
        w = d.shape[0]
        codes = encode_accumulator(d.reshape(w, -1)[:, d_index], dtype, satfinite)
        write(m, lanes, pack(codes.reshape(w * WARP, -1), ld.bits))
        return None

    return run
