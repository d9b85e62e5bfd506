"""Conversions: ``cvt`` in every form of the PTX ISA table, and ``cvt.pack``.

Every conversion decodes the source to an exact value and rounds it once:

* integer to integer: chop, sign- or zero-extend as the ISA's table says; ``.sat`` clamps
  to the destination range.
* float to integer (``.rni``/``.rzi``/``.rmi``/``.rpi``): rounded to an integral value, then
  clamped to the destination range (always, ``.sat`` or not). NaN gives 0, except from an
  ``.f64`` source or into an ``.s64``/``.u64`` destination, where it gives
  ``1 << (width - 1)``. ``.ftz`` flushes a subnormal ``.f32`` source to zero first.
* integer to float (``.rn``/``.rz``/``.rm``/``.rp``): exact for every 64-bit integer.
* float to float: narrowing rounds with the modifier (``.rn`` when a same-size conversion
  leaves it out); widening is exact; ``.rni``... on the same type rounds to an integral
  value. ``.ftz`` flushes ``.f32`` inputs and results, ``.sat`` clamps to ``[+0.0, 1.0]``
  (NaN gives ``+0.0``), ``.relu`` clamps negatives (``-0.0`` too) to ``+0.0`` and makes NaN
  canonical, ``.satfinite`` turns magnitudes past the largest finite value (infinities too)
  into it, keeping NaN.
* packed destinations: ``cvt.f16x2.f32 d, a, b`` puts ``a`` in the upper half and ``b`` in
  the lower (likewise every ``x2`` format packed from two ``.f32``); from a packed source,
  the upper element converts into the upper element. ``e2m3``/``e3m2`` codes sit in the low 6
  bits of their byte with the 2 upper bits zero.
* ``.tf32``: an ``.f32`` bit pattern with the 13 low mantissa bits zero.
* 8/6/4-bit formats and ``ue8m0``: see :func:`pyptx.emu._numeric.encode`.

NaN results are canonical (``f16``, ``bf16``, ``f32``, ``tf32``); an ``f64`` result keeps a
NaN source's payload, made quiet. Stochastic rounding (``.rs``) is emulated for ``.f16x2`` and
``.bf16x2`` with the random-bit layout the ISA text gives (``.f16x2`` only where the result
is a normal ``f16``; other lanes raise :class:`NotEmulated`); the four-value ``x4`` forms,
whose random-bit layout the ISA gives only as figures, are not emulated.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyptx.ir import PtxType, TypeKind

from .._errors import Fault, NotEmulated
from .._lanes import Lanes
from .._machine import Executor
from .._numeric import (
    BF16,
    BINARY,
    F16,
    F32,
    F64,
    TF32,
    Binary,
    Rounding,
    decode,
    decode_binary,
    encode,
    encode_binary,
    flush_subnormal,
    round_exact,
    round_integer,
    round_to_integral,
)
from .._site import Reader, Site
from .._types import value_dtype

__all__ = ["SEMANTICS"]

_QUIET64 = np.uint64(1 << 51)

_PACKED_MINI = {
    PtxType.E4M3X2: PtxType.E4M3,
    PtxType.E5M2X2: PtxType.E5M2,
    PtxType.E2M3X2: PtxType.E2M3,
    PtxType.E3M2X2: PtxType.E3M2,
    PtxType.E2M1X2: PtxType.E2M1,
    PtxType.UE8M0X2: PtxType.UE8M0,
}
"""Two-element small-float types and their element type."""

_PACKED_HALF = {PtxType.F16X2: F16, PtxType.BF16X2: BF16}


def _is_int(ty: PtxType) -> bool:
    return ty.kind in (TypeKind.SIGNED, TypeKind.UNSIGNED, TypeKind.BITS)


def _field(ty: PtxType) -> int:
    """Bits per element in a packed small-float register (4 for ``e2m1``, else 8)."""
    return 4 if ty is PtxType.E2M1X2 else 8


# ----------------------------------------------------------------------------- float results


def _float_bits(
    values: np.ndarray,
    fmt: Binary,
    mode: Rounding,
    *,
    ftz: bool = False,
    sat: bool = False,
    relu: bool = False,
    satfinite: bool = False,
) -> np.ndarray:
    """Exact ``float64`` values to the bits of ``fmt`` with the ``cvt`` modifiers."""
    with np.errstate(invalid="ignore"):
        if satfinite:
            values = np.where(
                np.abs(values) > fmt.max_finite, np.copysign(fmt.max_finite, values), values
            )
        out = round_exact(values, None, fmt, mode, ftz=ftz)
        if relu:
            out = np.where(np.signbit(out) & ~np.isnan(out), 0.0, out)
        if sat:
            out = np.where(np.isnan(out) | (out <= 0), 0.0, np.minimum(out, 1.0))
    nan = None
    if fmt is F64:
        nan = values.view(np.uint64) | _QUIET64
    return encode_binary(out, fmt, nan=nan)


def _source_values(site: Site, ty: PtxType, ftz: bool, name: str = "a") -> Reader:
    """A reader of a scalar float source as exact ``float64`` (``.ftz`` for ``.f32`` only)."""
    src = site.src(name, ty)
    fmt = BINARY[ty]
    flush = ftz and ty is PtxType.F32

    def read(m: Any, lanes: Lanes) -> np.ndarray:
        v = decode_binary(src(m, lanes), fmt)
        return flush_subnormal(v, fmt) if flush else v

    return read


# ----------------------------------------------------------------------------- scalar forms


def _int_to_int(site: Site, dtype: PtxType, atype: PtxType) -> Executor:
    src = site.src("a", atype)
    d = site.dst("d", dtype)
    out = value_dtype(dtype)
    sat = site.has("sat")
    lo, hi = _int_range(dtype)
    a_lo, a_hi = _int_range(atype)

    def run(m: Any, lanes: Lanes) -> Any:
        x = src(m, lanes)
        if sat:
            kind = x.dtype.type
            if hi < a_hi:
                x = np.where(x > kind(hi), kind(hi), x)
            if lo > a_lo:
                x = np.where(x < kind(lo), kind(lo), x)
        d(m, lanes, x.astype(out))

    return run


def _int_range(ty: PtxType) -> tuple[int, int]:
    bits = ty.bits
    if ty.kind is TypeKind.SIGNED:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def _float_to_int(site: Site, dtype: PtxType, atype: PtxType) -> Executor:
    mode = Rounding.of(site.slot("rnd"))
    read = _source_values(site, atype, site.has("ftz"))
    d = site.dst("d", dtype)
    out = value_dtype(dtype)
    bits = dtype.bits
    lo, hi = _int_range(dtype)
    nan_value = 0 if atype is not PtxType.F64 and bits != 64 else 1 << (bits - 1)
    nan_code = np.array([nan_value], dtype=np.uint64).astype(f"u{bits // 8}").view(out)[0]
    top = float(hi) + 1.0  # 2**k: the first value past the range, exact

    def run(m: Any, lanes: Lanes) -> Any:
        with np.errstate(invalid="ignore"):
            r = round_to_integral(read(m, lanes), mode)
            nan = np.isnan(r)
            over = r >= top
            under = r < lo
            safe = np.where(nan | over | under, 0.0, r)
        if out.kind == "u" and bits == 64:
            values = safe.astype(np.uint64)
        else:
            values = safe.astype(np.int64).astype(out)
        values = np.where(over, out.type(hi), np.where(under, out.type(lo), values))
        d(m, lanes, np.where(nan, nan_code, values).astype(out))

    return run


def _int_to_float(site: Site, dtype: PtxType, atype: PtxType) -> Executor:
    fmt = BINARY[dtype]
    mode = Rounding.of(site.slot("rnd"))
    src = site.src("a", atype)
    d = site.dst("d", dtype)
    sat = site.has("sat")

    def run(m: Any, lanes: Lanes) -> Any:
        values = round_integer(src(m, lanes), fmt, mode)
        d(m, lanes, _float_bits(values, fmt, mode, sat=sat))

    return run


def _float_to_float(site: Site, dtype: PtxType, atype: PtxType) -> Executor:
    fmt = BINARY[dtype]
    rnd = site.slot("rnd")
    integral = rnd in ("rni", "rzi", "rmi", "rpi")
    mode = Rounding.of(None if integral else rnd, Rounding.RN)
    ftz = site.has("ftz")
    read = _source_values(site, atype, ftz)
    d = site.dst("d", dtype)
    flags = {
        "ftz": ftz and dtype is PtxType.F32,
        "sat": site.has("sat"),
        "relu": site.has("relu"),
        "satfinite": site.has("satfinite"),
    }
    to_integral = Rounding.of(rnd) if integral else None

    def run(m: Any, lanes: Lanes) -> Any:
        values = read(m, lanes)
        if to_integral is not None:
            values = round_to_integral(values, to_integral)
        d(m, lanes, _float_bits(values, fmt, mode, **flags))

    return run


def _to_tf32(site: Site) -> Executor:
    mode = Rounding.of(site.slot("rnd"))
    read = _source_values(site, PtxType.F32, False)
    d = site.dst("d", PtxType.B32)
    flags = {"relu": site.has("relu"), "satfinite": site.has("satfinite")}

    def run(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, _float_bits(read(m, lanes), TF32, mode, **flags))

    return run


# ----------------------------------------------------------------------------- packed forms


def _pack(parts: list[np.ndarray], field: int, total: int) -> np.ndarray:
    """Pack element codes, first part in the highest field, into a ``total``-bit integer."""
    out = np.zeros(parts[0].shape, dtype=np.uint64)
    for part in parts:
        out = (out << np.uint64(field)) | part.astype(np.uint64)
    return out.astype(f"u{total // 8}")


def _unpack(raw: np.ndarray, field: int, count: int) -> list[np.ndarray]:
    """Element codes of a packed integer, highest field first."""
    wide = raw.astype(np.uint64)
    mask = np.uint64((1 << field) - 1)
    return [(wide >> np.uint64(field * (count - 1 - i))) & mask for i in range(count)]


def _pair_of_f32(site: Site, dtype: PtxType) -> Executor:
    """``cvt.frnd{.relu}{.satfinite}.{f16x2,bf16x2,e4m3x2,...,ue8m0x2}.f32 d, a, b``."""
    mode = Rounding.of(site.slot("rnd"))
    read_a = _source_values(site, PtxType.F32, False, "a")
    read_b = _source_values(site, PtxType.F32, False, "b")
    convert = _element_converter(site, dtype, mode)
    d = site.dst("d", dtype)
    field = 16 if dtype in _PACKED_HALF else _field(dtype)

    def run(m: Any, lanes: Lanes) -> Any:
        parts = [convert(read_a(m, lanes)), convert(read_b(m, lanes))]
        d(m, lanes, _pack(parts, field, dtype.bits))

    return run


def _element_converter(site: Site, dtype: PtxType, mode: Rounding) -> Any:
    """Exact values to one element's code of a packed destination type."""
    relu, satfinite = site.has("relu"), site.has("satfinite")
    half = _PACKED_HALF.get(dtype)
    if half is not None:
        return lambda v: _float_bits(v, half, mode, relu=relu, satfinite=satfinite)
    element = _PACKED_MINI[dtype]
    return lambda v: encode(v, element, satfinite=satfinite, relu=relu, mode=mode)


def _from_packed_half(site: Site, dtype: PtxType, atype: PtxType) -> Executor:
    """``cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f16x2,bf16x2} d, a`` and ``.ue8m0x2.bf16x2``."""
    mode = Rounding.of(site.slot("rnd"))
    src = site.src("a", atype)
    fmt = _PACKED_HALF[atype]
    convert = _element_converter(site, dtype, mode)
    d = site.dst("d", dtype)
    field = _field(dtype)

    def run(m: Any, lanes: Lanes) -> Any:
        halves = _unpack(src(m, lanes), 16, 2)
        parts = [convert(decode_binary(h.astype(np.uint16), fmt)) for h in halves]
        d(m, lanes, _pack(parts, field, dtype.bits))

    return run


def _to_packed_half(site: Site, dtype: PtxType, atype: PtxType) -> Executor:
    """``cvt.rn{.relu}.f16x2.{e4m3x2,...,e2m1x2} d, a`` and ``cvt.rn.bf16x2.ue8m0x2 d, a``."""
    src = site.src("a", atype)
    element = _PACKED_MINI[atype]
    fmt = _PACKED_HALF[dtype]
    relu = site.has("relu")
    d = site.dst("d", dtype)
    field = _field(atype)

    def run(m: Any, lanes: Lanes) -> Any:
        codes = _unpack(src(m, lanes), field, 2)
        parts = [_float_bits(decode(c, element), fmt, Rounding.RN, relu=relu) for c in codes]
        d(m, lanes, _pack(parts, 16, 32))

    return run


def _stochastic(site: Site, dtype: PtxType) -> Executor:
    """``cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, rbits``."""
    fmt = _PACKED_HALF[dtype]
    relu, satfinite = site.has("relu"), site.has("satfinite")
    read_a = site.src("a", PtxType.F32)
    read_b = site.src("b", PtxType.F32)
    rbits = site.src("rbits", PtxType.B32)
    d = site.dst("d", dtype)
    dropped = F32.mantissa - fmt.mantissa
    mnemonic = site.mnemonic

    def element(x: np.ndarray, random: np.ndarray, lanes: Lanes) -> np.ndarray:
        v = x.astype(np.float64)
        bits = x.view(np.uint32)
        discarded = bits & np.uint32((1 << dropped) - 1)
        carry = (discarded + (random & np.uint32((1 << dropped) - 1))) >> np.uint32(dropped)
        with np.errstate(invalid="ignore"):
            truncated = round_exact(v, None, fmt, Rounding.RZ)
            if fmt is F16:
                outside = np.isfinite(v) & (v != 0)
                outside &= (np.abs(v) < fmt.min_normal) | (np.abs(v) >= 2.0**16)
                if outside.any():
                    lane = int(lanes.idx[np.flatnonzero(outside)[0]])
                    raise Fault(
                        NotEmulated,
                        f"{mnemonic}: stochastic rounding of {float(v[outside][0])!r} to a "
                        "subnormal or out-of-range f16 is not emulated",
                        lane=lane,
                    )
            step = np.where(np.isfinite(v) & (carry != 0), 1, 0)
        code = encode_binary(truncated, fmt)
        code = np.where(np.isnan(v), code, code + step.astype(code.dtype))
        values = decode_binary(code, fmt)
        return _float_bits(values, fmt, Rounding.RN, relu=relu, satfinite=satfinite)

    def run(m: Any, lanes: Lanes) -> Any:
        r = rbits(m, lanes)
        high = element(read_a(m, lanes), r >> np.uint32(16), lanes)
        low = element(read_b(m, lanes), r & np.uint32(0xFFFF), lanes)
        d(m, lanes, _pack([high, low], 16, 32))

    return run


# ----------------------------------------------------------------------------- dispatch


def _types(site: Site) -> tuple[PtxType, PtxType]:
    """``cvt``'s destination and source types (``.dtype.atype``, as the table matched them)."""
    return site.type("dtype"), site.type("atype")


def cvt(site: Site) -> Executor:
    """``cvt``: every form of the ISA table (see the module docstring for the rules)."""
    dtype, atype = _types(site)
    rnd = site.slot("rnd")
    if rnd == "rs":
        if dtype in _PACKED_HALF and site.operand("b") is not None:
            return _stochastic(site, dtype)
        raise site.not_emulated(f"{site.mnemonic} (the x4 random-bit layout is unspecified)")
    if dtype is PtxType.TF32:
        return _to_tf32(site)
    if atype is PtxType.F32 and site.operand("b") is not None:
        return _pair_of_f32(site, dtype)
    if atype in _PACKED_HALF and dtype in _PACKED_MINI:
        return _from_packed_half(site, dtype, atype)
    if dtype in _PACKED_HALF and atype in _PACKED_MINI:
        return _to_packed_half(site, dtype, atype)
    if _is_int(dtype) and _is_int(atype):
        return _int_to_int(site, dtype, atype)
    if _is_int(dtype) and atype in BINARY:
        return _float_to_int(site, dtype, atype)
    if dtype in BINARY and _is_int(atype):
        return _int_to_float(site, dtype, atype)
    if dtype in BINARY and atype in BINARY:
        return _float_to_float(site, dtype, atype)
    raise site.not_emulated(site.mnemonic)


def cvt_pack(site: Site) -> Executor:
    """``cvt.pack.sat.ctype.s32{.b32} d, a, b{, c}``: ``a`` above ``b``, saturated.

    Each of ``a`` and ``b`` is clamped to ``.ctype``'s range (``u16``/``s16`` down to
    ``u2``/``s2``); ``b`` fills the lowest field, ``a`` the next; with ``c``, the remaining
    upper bits come from ``c``'s low bits.
    """
    ctype = site.slot("ctype") or ""
    if ctype[:1] not in ("u", "s") or not ctype[1:].isdigit():
        raise site.not_emulated(f"{site.mnemonic}: no .ctype")
    bits = int(ctype[1:])
    signed = ctype[0] == "s"
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    read_a, read_b = site.src("a", PtxType.S32), site.src("b", PtxType.S32)
    read_c = site.src("c", PtxType.B32) if site.operand("c") is not None else None
    d = site.dst("d", PtxType.B32)
    mask = np.int64((1 << bits) - 1)

    def run(m: Any, lanes: Lanes) -> Any:
        a = np.clip(read_a(m, lanes).astype(np.int64), lo, hi) & mask
        b = np.clip(read_b(m, lanes).astype(np.int64), lo, hi) & mask
        packed = (a << np.int64(bits)) | b
        if read_c is not None:
            packed |= read_c(m, lanes).astype(np.int64) << np.int64(2 * bits)
        d(m, lanes, (packed & np.int64(0xFFFF_FFFF)).astype(np.uint32))

    return run


SEMANTICS: dict[str, Any] = {"cvt": cvt, "cvt.pack": cvt_pack}
