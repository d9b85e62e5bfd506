"""Bit-exact conversions between PTX's floating-point formats and numpy floats.

numpy has ``float16``, ``float32`` and ``float64``; everything else (``bf16``, ``tf32``, the
8-, 6- and 4-bit formats) is decoded here from its bits and encoded back with the rounding
PTX asks for. Decoding is exact (every format here is a subset of ``float64``); encoding
rounds once, from the exact ``float64`` value.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from pyptx.ir import PtxType

__all__ = [
    "FORMATS",
    "MiniFloat",
    "bf16_to_f32",
    "decode",
    "encode",
    "f32_to_bf16",
]


@dataclass(frozen=True)
class MiniFloat:
    """A small floating-point format.

    Attributes:
        bits: total width.
        exponent: exponent bits.
        mantissa: mantissa bits.
        bias: exponent bias.
        signed: has a sign bit.
        inf: has infinities (IEEE-like top exponent).
        nan: how NaN is spelled: ``"ieee"`` (top exponent, mantissa != 0), ``"ones"`` (all
            exponent and mantissa bits set, e4m3), ``"all"`` (the all-ones byte, ue8m0) or
            ``None`` (no NaN: e2m1, e2m3, e3m2).
    """

    bits: int
    exponent: int
    mantissa: int
    bias: int
    signed: bool = True
    inf: bool = False
    nan: str | None = None

    @property
    def max_finite(self) -> float:
        """The largest finite value."""
        return float(np.nanmax(np.abs(self.table()[np.isfinite(self.table())])))

    @cache  # noqa: B019 - one table per (frozen, hashable) format, built once
    def table(self) -> np.ndarray:
        """Every code's value as ``float64`` (NaN for NaN codes), indexed by the code."""
        codes = np.arange(1 << self.bits, dtype=np.int64)
        mbits = self.mantissa
        ebits = self.exponent
        man = codes & ((1 << mbits) - 1)
        exp = (codes >> mbits) & ((1 << ebits) - 1)
        sign = ((codes >> (mbits + ebits)) & 1) if self.signed else np.zeros_like(codes)
        scale = np.where(exp == 0, 1 - self.bias, exp - self.bias).astype(np.float64)
        frac = np.where(exp == 0, 0.0, 1.0) + man / float(1 << mbits)
        value = np.ldexp(frac, scale.astype(np.int64))
        top = (1 << ebits) - 1
        if self.inf:
            value = np.where((exp == top) & (man == 0), np.inf, value)
        if self.nan == "ieee":
            value = np.where((exp == top) & (man != 0), np.nan, value)
        elif self.nan == "ones":
            value = np.where((exp == top) & (man == (1 << mbits) - 1), np.nan, value)
        elif self.nan == "all":
            value = np.where(codes == (1 << self.bits) - 1, np.nan, value)
        return np.where(sign == 1, -value, value)


FORMATS: dict[PtxType, MiniFloat] = {
    PtxType.E4M3: MiniFloat(8, 4, 3, 7, nan="ones"),
    PtxType.E5M2: MiniFloat(8, 5, 2, 15, inf=True, nan="ieee"),
    PtxType.E2M3: MiniFloat(6, 2, 3, 1),
    PtxType.E3M2: MiniFloat(6, 3, 2, 3),
    PtxType.E2M1: MiniFloat(4, 2, 1, 1),
    PtxType.UE8M0: MiniFloat(8, 8, 0, 127, signed=False, nan="all"),
    PtxType.UE4M3: MiniFloat(7, 4, 3, 7, signed=False, nan="ones"),
}
"""The 8-, 6- and 4-bit formats by their (scalar) PTX type."""


def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    """``bf16`` bits (``uint16``) to ``float32`` values (exact)."""
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def f32_to_bf16(values: np.ndarray) -> np.ndarray:
    """``float32`` values to ``bf16`` bits, rounding to nearest even (NaN stays NaN)."""
    u = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    nan = np.isnan(values)
    rounding = np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))
    out = ((u + rounding) >> np.uint32(16)).astype(np.uint16)
    if nan.any():
        out = np.where(nan, ((u >> np.uint32(16)) | np.uint32(0x40)).astype(np.uint16), out)
    return out


def decode(bits: np.ndarray, ty: PtxType) -> np.ndarray:
    """Scalar codes of a floating-point type to exact ``float64`` values.

    ``ty`` is a scalar type: ``f16``, ``bf16``, ``tf32``, ``f32``, ``f64`` or one of
    :data:`FORMATS` (codes given as unsigned integers).
    """
    if ty is PtxType.F64:
        return bits.view(np.float64) if bits.dtype != np.float64 else bits
    if ty is PtxType.F32 or ty is PtxType.TF32:
        raw = bits if bits.dtype == np.float32 else bits.astype(np.uint32).view(np.float32)
        return raw.astype(np.float64)
    if ty is PtxType.F16:
        raw = bits if bits.dtype == np.float16 else bits.astype(np.uint16).view(np.float16)
        return raw.astype(np.float64)
    if ty is PtxType.BF16:
        return bf16_to_f32(bits.astype(np.uint16)).astype(np.float64)
    fmt = FORMATS[ty]
    return fmt.table()[bits.astype(np.int64) & ((1 << fmt.bits) - 1)]


def encode(values: np.ndarray, ty: PtxType, *, satfinite: bool = False) -> np.ndarray:
    """Exact ``float64`` values to codes of a small format, rounding to nearest even.

    Out-of-range values become infinity where the format has one (or the largest finite
    value with ``satfinite``), else the largest finite value (the formats without infinity
    saturate; ``e4m3`` gives NaN without ``satfinite``, as ``cvt`` does). NaN becomes the
    format's NaN (or the largest finite value for formats without NaN).
    """
    fmt = FORMATS[ty]
    table = fmt.table()
    finite_codes = np.flatnonzero(np.isfinite(table) & (np.signbit(table) == 0))
    magnitudes = table[finite_codes]
    order = np.argsort(magnitudes, kind="stable")
    mags = magnitudes[order]
    codes = finite_codes[order]
    # Drop duplicate magnitudes (+0 only).
    keep = np.concatenate([[True], np.diff(mags) > 0])
    mags, codes = mags[keep], codes[keep]
    v = np.asarray(values, dtype=np.float64)
    a = np.abs(v)
    hi = np.clip(np.searchsorted(mags, a, side="left"), 0, mags.size - 1)
    lo = np.clip(hi - 1, 0, mags.size - 1)
    d_hi = np.abs(mags[hi] - a)
    d_lo = np.abs(a - mags[lo])
    even_hi = (codes[hi] & 1) == 0
    pick_hi = (d_hi < d_lo) | ((d_hi == d_lo) & even_hi)
    out = np.where(pick_hi, codes[hi], codes[lo]).astype(np.int64)
    top = mags[-1]
    # Beyond the largest finite value: round to it while within half an ulp, else overflow.
    ulp = mags[-1] - mags[-2]
    over = a >= top + ulp / 2
    if fmt.inf and not satfinite:
        inf_code = int(np.flatnonzero(np.isinf(table) & (table > 0))[0])
        out = np.where(over, inf_code, out)
    elif fmt.nan == "ones" and not satfinite:
        out = np.where(over, (1 << (fmt.bits - 1)) - 1, out)
    else:
        out = np.where(over | (a > top), codes[-1], out)
    if fmt.signed:
        sign_bit = 1 << (fmt.bits - 1)
        out = np.where(np.signbit(v), out | sign_bit, out)
    nan = np.isnan(v)
    if nan.any():
        if fmt.nan == "ieee":
            nan_code = (1 << (fmt.bits - 1)) - 1
        elif fmt.nan in ("ones", "all"):
            nan_code = (1 << (fmt.bits - int(fmt.signed))) - 1
        else:
            nan_code = int(codes[-1])
        out = np.where(nan, nan_code, out)
    return out.astype(np.uint8)
