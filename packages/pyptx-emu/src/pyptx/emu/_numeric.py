"""Bit-exact floating-point arithmetic: formats, exact rounding, and the 8/6/4-bit codes.

numpy has ``float16``, ``float32`` and ``float64`` and rounds to nearest even; PTX also asks
for ``.rz``/``.rm``/``.rp``/``.rna`` rounding, flush-to-zero, saturation, and formats numpy
does not have (``bf16``, ``tf32``, the 8-, 6- and 4-bit formats). Everything here works on
exact values held in ``float64`` and rounds **once**:

* An exact result is described by ``hi``, the ``float64`` nearest to it (ties to even), and
  ``tail``, whose sign is the sign of ``exact - hi`` (zero when ``hi`` is exact). The
  error-free transforms below (:func:`exact_sum`, :func:`exact_product`,
  :func:`exact_quotient`, :func:`exact_sqrt`, :func:`exact_fma`) produce that pair for the
  operations PTX defines; where their fast ``float64`` path cannot be exact (operands near
  the ends of the exponent range) they say so, and :func:`exact_rational` computes the pair
  from Python fractions for those few lanes.
* :func:`round_exact` rounds such a pair to any :class:`Binary` format with any rounding
  mode. Because every format here is narrower than ``float64`` (or *is* ``float64``), ``hi``
  and the sign of ``tail`` decide every rounding exactly: no grid point or midpoint of the
  target lies strictly between ``hi`` and the exact value.

NaN results of ``f32``/``f16``/``bf16``/``tf32`` arithmetic are the canonical NaN
(all exponent and mantissa bits set, sign clear: ``0x7FFFFFFF``, ``0x7FFF``), as NVIDIA GPUs
produce them; PTX leaves those NaNs unspecified. ``f64`` arithmetic keeps the payload of a
NaN operand, as PTX specifies, and makes new NaNs canonical (``0x7FFFFFFFFFFFFFFF``).
Flush-to-zero (``.ftz``) flushes a result to a zero of the same sign when the *rounded*
result is subnormal.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np

from pyptx.ir import PtxType

__all__ = [
    "BF16",
    "BINARY",
    "F16",
    "F32",
    "F64",
    "FORMATS",
    "TF32",
    "Binary",
    "MiniFloat",
    "Rounding",
    "bf16_to_f32",
    "decode",
    "decode_binary",
    "encode",
    "encode_binary",
    "exact_fma",
    "exact_product",
    "exact_quotient",
    "exact_rational",
    "exact_sqrt",
    "exact_sum",
    "f32_to_bf16",
    "flush_subnormal",
    "round_exact",
    "round_integer",
    "round_to_integral",
]


class Rounding(enum.Enum):
    """A floating-point rounding rule (the PTX modifiers ``.rn``, ``.rna``, ...)."""

    RN = "rn"
    """To nearest, ties to even."""
    RNA = "rna"
    """To nearest, ties away from zero."""
    RZ = "rz"
    """Toward zero."""
    RM = "rm"
    """Toward negative infinity."""
    RP = "rp"
    """Toward positive infinity."""

    @classmethod
    def of(cls, modifier: str | None, default: Rounding | None = None) -> Rounding:
        """The rounding named by a modifier (``"rn"``, ``"rzi"``, ...), or ``default``.

        Integer roundings (``.rni``, ``.rzi``, ``.rmi``, ``.rpi``) map to the same rule.

        Raises:
            ValueError: no modifier and no default, or an unknown one.
        """
        if modifier is None:
            if default is None:
                raise ValueError("a rounding modifier is required")
            return default
        name = modifier[:-1] if modifier in ("rni", "rzi", "rmi", "rpi") else modifier
        return cls(name)


@dataclass(frozen=True)
class Binary:
    """An IEEE-754 style binary format (implicit leading bit, subnormals, inf and NaN).

    Attributes:
        name: the PTX type name.
        exponent: exponent bits.
        mantissa: stored fraction bits.
        width: storage bits (``tf32`` keeps ``f32``'s 32-bit layout).
    """

    name: str
    exponent: int
    mantissa: int
    width: int

    @property
    def bias(self) -> int:
        """The exponent bias."""
        return (1 << (self.exponent - 1)) - 1

    @property
    def emin(self) -> int:
        """The exponent of the smallest normal number."""
        return 1 - self.bias

    @property
    def max_finite(self) -> float:
        """The largest finite value."""
        return math.ldexp(2.0 - math.ldexp(1.0, -self.mantissa), self.bias)

    @property
    def min_normal(self) -> float:
        """The smallest positive normal value."""
        return math.ldexp(1.0, self.emin)

    @property
    def nan(self) -> int:
        """The canonical NaN's bits (sign clear, every other bit set)."""
        return (1 << (self.width - 1)) - 1


F16 = Binary("f16", 5, 10, 16)
BF16 = Binary("bf16", 8, 7, 16)
TF32 = Binary("tf32", 8, 10, 32)
F32 = Binary("f32", 8, 23, 32)
F64 = Binary("f64", 11, 52, 64)

BINARY: dict[PtxType, Binary] = {
    PtxType.F16: F16,
    PtxType.BF16: BF16,
    PtxType.TF32: TF32,
    PtxType.F32: F32,
    PtxType.F64: F64,
}
"""The binary formats by their scalar PTX type."""

_UINT = {16: np.uint16, 32: np.uint32, 64: np.uint64}


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
        table = self.table()
        return float(np.max(np.abs(table[np.isfinite(table)])))

    @property
    def emin(self) -> int:
        """The exponent of the smallest normal number (and the subnormals' scale)."""
        return 1 - self.bias

    @property
    def sign_bit(self) -> int:
        """The sign bit's value (0 for unsigned formats)."""
        return (1 << (self.bits - 1)) if self.signed else 0

    @cache  # noqa: B019 - one table per (frozen, hashable) format, built once
    def table(self) -> np.ndarray:
        """Every code's value as ``float64`` (NaN for NaN codes), indexed by the code.

        A format without mantissa bits (``ue8m0``) has no subnormals and no zero: its code
        0 is ``2**-bias``.
        """
        codes = np.arange(1 << self.bits, dtype=np.int64)
        mbits = self.mantissa
        ebits = self.exponent
        man = codes & ((1 << mbits) - 1)
        exp = (codes >> mbits) & ((1 << ebits) - 1)
        sign = ((codes >> (mbits + ebits)) & 1) if self.signed else np.zeros_like(codes)
        subnormal = (exp == 0) & (mbits > 0)
        scale = np.where(subnormal, 1 - self.bias, exp - self.bias)
        frac = np.where(subnormal, 0.0, 1.0) + man / float(1 << mbits)
        value = np.ldexp(frac, scale)
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

    @cache  # noqa: B019 - see table()
    def magnitudes(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct finite non-negative values, ascending, and their (positive) codes."""
        table = self.table()
        codes = np.flatnonzero(np.isfinite(table) & ~np.signbit(table))
        mags = table[codes]
        order = np.argsort(mags, kind="stable")
        mags, codes = mags[order], codes[order]
        keep = np.concatenate([[True], np.diff(mags) > 0])
        return mags[keep], codes[keep]


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


# ----------------------------------------------------------------------------- rounding core


def _sign(x: np.ndarray) -> np.ndarray:
    """-1, 0 or +1 as int8 (0 for NaN)."""
    return (np.asarray(x > 0, dtype=np.int8) - np.asarray(x < 0, dtype=np.int8)).astype(np.int8)


def _steps_up(
    mode: Rounding, negative: np.ndarray, cmp: np.ndarray, odd: np.ndarray, inexact: np.ndarray
) -> np.ndarray:
    """Whether a magnitude truncated to the grid must step up one quantum.

    ``cmp`` compares the discarded part with half a quantum (-1, 0, +1), ``odd`` tells
    whether the truncated magnitude is an odd number of quanta.
    """
    if mode is Rounding.RN:
        return inexact & ((cmp > 0) | ((cmp == 0) & odd))
    if mode is Rounding.RNA:
        return inexact & (cmp >= 0)
    if mode is Rounding.RZ:
        return np.zeros(np.shape(inexact), dtype=bool)
    if mode is Rounding.RP:
        return inexact & ~negative
    return inexact & negative


def _quantize(
    hi: np.ndarray, tail: np.ndarray, mantissa: int, emin: int, mode: Rounding
) -> np.ndarray:
    """``hi + tail`` rounded to a grid of ``mantissa`` fraction bits above ``2**emin``.

    The exponent range is unbounded above (overflow is the caller's), so the result is a
    finite ``float64`` for finite input. Needs ``mantissa <= 50``.
    """
    with np.errstate(all="ignore"):
        a = np.abs(hi)
        zero = a == 0
        negative = np.where(zero & (tail != 0), tail < 0, np.signbit(hi))
        # t: which way the exact magnitude lies from a (+1 larger, -1 smaller).
        t = np.where(zero, np.abs(_sign(tail)), _sign(tail) * np.where(negative, -1, 1))
        _, e = np.frexp(a)
        e = e.astype(np.int64) - 1
        # Just below a power of two the grid is the finer one of the binade below.
        boundary = (t < 0) & ~zero & (a == np.ldexp(1.0, e)) & (e > emin)
        q = np.maximum(e, emin) - mantissa - boundary
        m = np.ldexp(a, -q)
        fl = np.floor(m)
        r = m - fl
        below = (r == 0) & (t < 0)
        down = fl - below
        inexact = (r != 0) | (t != 0)
        cmp = np.where(
            below,
            1,
            np.where(r == 0, -1, np.where(r == 0.5, t, _sign(r - 0.5))),
        )
        odd = np.fmod(down, 2) == 1
        up = _steps_up(mode, negative, cmp, odd, inexact)
        out = np.ldexp(down + up, q)
        return np.where(negative, -out, out)


def _overflow(values: np.ndarray, top: float, mode: Rounding) -> np.ndarray:
    """Finite magnitudes past ``top`` become infinity or ``top``, as IEEE rounding does."""
    with np.errstate(all="ignore"):
        over = np.abs(values) > top
        if not over.any():
            return values
        negative = np.signbit(values)
        if mode in (Rounding.RN, Rounding.RNA):
            away = np.ones_like(over)
        elif mode is Rounding.RZ:
            away = np.zeros_like(over)
        else:
            away = negative if mode is Rounding.RM else ~negative
        big = np.where(away, np.inf, top)
        return np.where(over, np.where(negative, -big, big), values)


def flush_subnormal(values: np.ndarray, fmt: Binary) -> np.ndarray:
    """Subnormal values of ``fmt`` (given as ``float64``) become zeros of the same sign."""
    with np.errstate(invalid="ignore"):
        tiny = (np.abs(values) < fmt.min_normal) & (values != 0)
    if not tiny.any():
        return values
    return np.where(tiny, np.copysign(0.0, values), values)


def round_exact(
    hi: np.ndarray,
    tail: np.ndarray | None,
    fmt: Binary,
    mode: Rounding = Rounding.RN,
    *,
    ftz: bool = False,
) -> np.ndarray:
    """Round the exact value described by ``(hi, tail)`` to ``fmt``, as ``float64``.

    Args:
        hi: the ``float64`` nearest the exact value (ties to even); infinities and NaNs are
            passed through (an infinity with a ``tail`` of the opposite sign stands for a
            finite value past ``float64``'s range).
        tail: the sign of ``exact - hi`` (any array with that sign), or ``None`` for exact.
        fmt: the target format.
        mode: the rounding rule.
        ftz: flush subnormal results to zeros of the same sign.

    Returns:
        Values of ``fmt`` (exactly representable), infinities or NaN.
    """
    hi = np.asarray(hi, dtype=np.float64)
    if tail is None:
        tail = np.zeros_like(hi)
    if fmt is F64:
        out = _round_f64(hi, np.asarray(tail, dtype=np.float64), mode)
    else:
        with np.errstate(all="ignore"):
            finite = np.isfinite(hi)
            q = _quantize(
                np.where(finite, hi, 0.0), np.where(finite, tail, 0.0), fmt.mantissa, fmt.emin, mode
            )
            out = np.where(finite, _overflow(q, fmt.max_finite, mode), hi)
    return flush_subnormal(out, fmt) if ftz else out


def _round_f64(hi: np.ndarray, tail: np.ndarray, mode: Rounding) -> np.ndarray:
    """``hi`` is already the nearest; a directed mode steps one ulp where the tail says."""
    if mode is Rounding.RN:
        return hi
    if mode is Rounding.RNA:
        raise ValueError("PTX has no .rna rounding to f64")
    with np.errstate(all="ignore"):
        nan = np.isnan(hi)
        positive_tail = tail > 0
        negative_tail = tail < 0
        if mode is Rounding.RP:
            up, down = positive_tail, np.zeros_like(positive_tail)
        elif mode is Rounding.RM:
            up, down = np.zeros_like(positive_tail), negative_tail
        else:
            up = positive_tail & (hi < 0)
            down = negative_tail & (hi > 0)
        out = np.where(up, np.nextafter(hi, np.inf), hi)
        out = np.where(down, np.nextafter(hi, -np.inf), out)
        return np.where(nan, hi, out)


def round_integer(values: np.ndarray, fmt: Binary, mode: Rounding) -> np.ndarray:
    """Integers (any numpy integer dtype, up to 64 bits) rounded to a float format.

    Returns ``float64`` values of ``fmt`` (or infinities, where they overflow ``f16``).
    Exact for every 64-bit integer, including those ``float64`` cannot hold.
    """
    x = np.asarray(values)
    negative = x < 0 if x.dtype.kind == "i" else np.zeros(x.shape, dtype=bool)
    raw = x.astype(np.int64).view(np.uint64) if x.dtype.kind == "i" else x.astype(np.uint64)
    mag = np.where(negative, (~raw) + np.uint64(1), raw)
    with np.errstate(all="ignore"):
        _, e = np.frexp(mag.astype(np.float64))
    n = e.astype(np.int64)
    # float64 may have rounded mag up to the next power of two: fix the bit length.
    shift = np.clip(n - 1, 0, 63).astype(np.uint64)
    too_long = (n > 0) & ((n - 1 >= 64) | ((mag >> shift) == 0))
    n = n - too_long.astype(np.int64)
    precision = fmt.mantissa + 1
    s = np.maximum(n - precision, 0).astype(np.uint64)
    q = mag >> s
    one = np.uint64(1)
    rem = mag & ((one << s) - one)
    half = np.where(s > 0, one << (np.maximum(s, one) - one), np.uint64(0)).astype(np.uint64)
    inexact = rem != 0
    cmp = np.where(rem > half, 1, np.where(rem == half, 0, -1))
    up = _steps_up(mode, negative, cmp, (q & np.uint64(1)) == 1, inexact)
    out = np.ldexp((q + up.astype(np.uint64)).astype(np.float64), s.astype(np.int64))
    out = np.where(negative, -out, out)
    return _overflow(out, fmt.max_finite, mode)


def round_to_integral(values: np.ndarray, mode: Rounding) -> np.ndarray:
    """``float64`` values rounded to integral values (``.rni``, ``.rzi``, ``.rmi``, ``.rpi``).

    Signs of zeros are kept (``-0.3`` rounds to ``-0.0``); NaN and infinities pass through.
    """
    with np.errstate(all="ignore"):
        if mode is Rounding.RN:
            out = np.rint(values)
        elif mode is Rounding.RZ:
            out = np.trunc(values)
        elif mode is Rounding.RM:
            out = np.floor(values)
        elif mode is Rounding.RP:
            out = np.ceil(values)
        else:
            raise ValueError("PTX has no integer rounding with ties away from zero")
    return np.copysign(out, values)


# ----------------------------------------------------------------------------- exact arithmetic

_SPLIT = 134217729.0  # 2**27 + 1: splits a float64 into two 26-bit halves (Veltkamp)
_SAFE_HI = 2.0**450
_SAFE_LO = 2.0**-450


def exact_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a + b`` as ``(hi, tail)`` (Knuth's TwoSum); exact for every finite pair.

    A finite sum past ``float64``'s range gives an infinite ``hi`` and a ``tail`` of the
    opposite sign (see :func:`round_exact`); sums with infinite or NaN operands give the IEEE
    result and a zero tail.
    """
    with np.errstate(all="ignore"):
        s = a + b
        bb = s - a
        err = (a - (s - bb)) + (b - bb)
        finite = np.isfinite(a) & np.isfinite(b)
        over = finite & np.isinf(s)
        err = np.where(over, -np.sign(s), np.where(finite, err, 0.0))
    return s, err


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLIT * a
    high = c - (c - a)
    return high, a - high


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a * b = p + e`` exactly (Dekker), when no step under- or overflows."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def _moderate(*xs: np.ndarray) -> np.ndarray:
    """Finite and zero or within ``[2**-450, 2**450]`` in magnitude (products stay exact)."""
    ok = np.ones(np.shape(xs[0]), dtype=bool)
    for x in xs:
        a = np.abs(x)
        ok &= (a == 0) | ((a >= _SAFE_LO) & (a <= _SAFE_HI))
    return ok


def exact_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``a * b`` as ``(hi, tail, exact)``; ``exact`` is False where the tail is unknown.

    Operands that are not finite give the IEEE result with a zero tail (and ``exact``).
    """
    with np.errstate(all="ignore"):
        p, e = _two_product(a, b)
        finite = np.isfinite(a) & np.isfinite(b)
        ok = ~finite | _moderate(a, b)
        return p, np.where(finite & ok, e, 0.0), ok


def exact_quotient(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``a / b`` as ``(hi, tail, exact)``.

    ``hi`` is numpy's correctly rounded quotient; the tail's sign is that of
    ``(a - hi * b) / b``, with ``hi * b`` formed exactly.
    """
    with np.errstate(all="ignore"):
        q = a / b
        p, e = _two_product(q, b)
        r = a - p  # exact (Sterbenz): p is within one ulp of a
        tail = _sign(r - e).astype(np.float64) * np.sign(b)
        regular = np.isfinite(a) & np.isfinite(b) & (b != 0) & (a != 0)
        ok = ~regular | (_moderate(a, b) & _moderate(q))
        return q, np.where(regular & ok, tail, 0.0), ok


def exact_sqrt(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sqrt(a)`` as ``(hi, tail)`` for every ``float64`` (scaled to stay exact)."""
    with np.errstate(all="ignore"):
        _, e = np.frexp(a)
        k = np.where((a > 0) & np.isfinite(a), (e.astype(np.int64) // 2), 0)
        scaled = np.ldexp(a, -2 * k)
        s = np.sqrt(scaled)
        p, err = _two_product(s, s)
        tail = _sign((scaled - p) - err).astype(np.float64)
        regular = (a > 0) & np.isfinite(a)
        return np.ldexp(s, k), np.where(regular, tail, 0.0)


def exact_fma(
    a: np.ndarray, b: np.ndarray, c: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``a * b + c`` as ``(hi, tail, exact)``, rounded once.

    ``hi`` comes from Boldo and Melquiond's emulation of a fused multiply-add with
    round-to-odd (correct when nothing under- or overflows); the tail's sign from an exact
    expansion of ``a*b + c - hi``. ``exact`` is False for operands or results near the ends
    of the exponent range, which need :func:`exact_rational`.
    """
    with np.errstate(all="ignore"):
        uh, ul = _two_product(a, b)
        th, tl = exact_sum(c, uh)
        vs, ve = exact_sum(tl, ul)
        # Round to odd: a rounded sum with a nonzero error whose last bit is even moves one
        # ulp toward the error.
        bits = vs.view(np.int64)
        even = (bits & 1) == 0
        step = (ve != 0) & even & (vs != 0)
        toward = np.where(np.signbit(vs) == (ve > 0), -1, 1)
        v = np.where(step, (bits + toward).view(np.float64), vs)
        z = th + v
        # exact - z = (th - z) + tl + ul; its sign from an exact expansion.
        d1, d2 = exact_sum(th, -z)
        tail = _expansion_sign([d1, d2, tl, ul])
        finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
        ok = _moderate(a, b) & _moderate(c) & ((z == 0) | (np.abs(z) >= 2.0**-960))
        plain = a * b + c
        hi = np.where(finite, z, plain)
        return hi, np.where(finite & ok, tail, 0.0), ~finite | ok


def _expansion_sign(terms: list[np.ndarray]) -> np.ndarray:
    """The sign of an exact sum of ``float64`` terms (Shewchuk's expansion growing)."""
    expansion: list[np.ndarray] = [terms[0]]
    for term in terms[1:]:
        q = term
        grown = []
        for component in expansion:
            q, h = exact_sum(q, component)
            grown.append(h)
        grown.append(q)
        expansion = grown
    # The largest nonzero component (the last one nonzero) carries the sign.
    sign = np.zeros(np.shape(terms[0]), dtype=np.float64)
    for component in expansion:
        sign = np.where(component != 0, np.sign(component), sign)
    return sign


def exact_rational(values: list[Fraction]) -> tuple[np.ndarray, np.ndarray]:
    """Exact rationals as ``(hi, tail)`` (the slow path, for the few lanes that need it).

    Python's ``float(Fraction)`` divides integers with correct rounding (ties to even,
    subnormals included) and raises only where the rounded value overflows.
    """
    hi = np.empty(len(values), dtype=np.float64)
    tail = np.empty(len(values), dtype=np.float64)
    for i, x in enumerate(values):
        try:
            h = float(x)
        except OverflowError:
            h = math.inf if x > 0 else -math.inf
        hi[i] = h
        if math.isinf(h):
            tail[i] = -math.copysign(1.0, h)
        else:
            diff = x - Fraction(h)
            tail[i] = (diff > 0) - (diff < 0)
    return hi, tail


# ----------------------------------------------------------------------------- bits and values


def decode_binary(bits: np.ndarray, fmt: Binary) -> np.ndarray:
    """Bits of a binary format (unsigned integers or the numpy float) to exact ``float64``.

    NaNs stay NaN (a signaling NaN becomes quiet, as any widening does).
    """
    if fmt is F64:
        return bits if bits.dtype == np.float64 else bits.astype(np.uint64).view(np.float64)
    with np.errstate(invalid="ignore"):
        if fmt is F32 or fmt is TF32:
            raw = bits if bits.dtype == np.float32 else bits.astype(np.uint32).view(np.float32)
            return raw.astype(np.float64)
        if fmt is F16:
            raw = bits if bits.dtype == np.float16 else bits.astype(np.uint16).view(np.float16)
            return raw.astype(np.float64)
        return bf16_to_f32(bits.astype(np.uint16)).astype(np.float64)


def encode_binary(values: np.ndarray, fmt: Binary, *, nan: np.ndarray | None = None) -> np.ndarray:
    """Values of ``fmt`` (as ``float64``, already rounded) to its bits, unsigned.

    NaNs become the canonical NaN, or for ``f64`` the given ``nan`` bits where supplied.
    """
    v = np.asarray(values, dtype=np.float64)
    isnan = np.isnan(v)
    with np.errstate(all="ignore"):
        if fmt is F64:
            out = v.view(np.uint64).copy()
        elif fmt is F16:
            out = v.astype(np.float16).view(np.uint16)
        elif fmt is BF16:
            out = (v.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
        else:
            out = v.astype(np.float32).view(np.uint32)
    if isnan.any():
        fill = _UINT[fmt.width](fmt.nan) if nan is None else nan
        out = np.where(isnan, fill, out).astype(_UINT[fmt.width])
    return out


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
    :data:`FORMATS` (codes given as unsigned integers; bits above the format's width are
    ignored).
    """
    fmt = BINARY.get(ty)
    if fmt is not None:
        return decode_binary(bits, fmt)
    mini = FORMATS[ty]
    return mini.table()[bits.astype(np.int64) & ((1 << mini.bits) - 1)]


def encode(
    values: np.ndarray,
    ty: PtxType,
    *,
    satfinite: bool = False,
    relu: bool = False,
    mode: Rounding = Rounding.RN,
) -> np.ndarray:
    """Exact ``float64`` values to codes of a small format (``uint8``), rounding once.

    Follows ``cvt`` (and NVIDIA's reference conversions in ``cuda_fp8.hpp``,
    ``cuda_fp6.hpp``, ``cuda_fp4.hpp``):

    * ``satfinite``: magnitudes past the largest finite value (infinities included) become
      it, sign kept. Without it, values that round past it become infinity (``e5m2``), NaN
      (``e4m3``), or the largest value (formats with neither).
    * NaN becomes the format's NaN (``e4m3``: ``0x7F`` with the input's sign; ``e5m2``:
      quiet, keeping the top payload bit and the sign; ``ue8m0``: ``0xFF``), or the largest
      positive value in formats without NaN.
    * ``relu``: negative results become ``+0`` and NaN the canonical NaN (``0x7F``).
    * ``ue8m0`` (``.rz``/``.rp`` only) rounds the magnitude to a power of two in
      ``[2**-127, 2**127]``; zero and tiny values give ``2**-127``.

    Args:
        values: exact values.
        ty: the scalar format.
        satfinite: clamp to the largest finite value.
        relu: clamp negative results to zero.
        mode: the rounding rule (``ue8m0`` takes ``RZ`` or ``RP``, the others ``RN``).

    Returns:
        The codes.
    """
    fmt = FORMATS[ty]
    v = np.asarray(values, dtype=np.float64)
    if ty is PtxType.UE8M0:
        return _encode_ue8m0(v, satfinite=satfinite, mode=mode)
    mags, codes = fmt.magnitudes()
    top = float(mags[-1])
    with np.errstate(all="ignore"):
        finite = np.isfinite(v)
        rounded = _quantize(
            np.where(finite, v, 0.0), np.zeros_like(v), fmt.mantissa, fmt.emin, mode
        )
        rounded = np.where(finite, rounded, v)
        if not fmt.signed:
            rounded = np.abs(rounded)
        a = np.abs(rounded)
        over = a > top
        idx = np.clip(np.searchsorted(mags, np.where(over | ~finite, top, a)), 0, mags.size - 1)
        out = codes[idx].astype(np.int64)
        if satfinite or not (fmt.inf or fmt.nan == "ones"):
            pass  # over stays at the largest finite code
        elif fmt.inf:
            inf_code = int(np.flatnonzero(np.isposinf(fmt.table()))[0])
            out = np.where(over, inf_code, out)
        else:
            out = np.where(over, (1 << (fmt.bits - 1)) - 1, out)
        negative = np.signbit(rounded) & fmt.signed
        out = np.where(negative, out | fmt.sign_bit, out)
        if relu:
            out = np.where(negative, 0, out)
        nan = np.isnan(v)
        if nan.any():
            out = np.where(nan, _nan_code(fmt, v, canonical=relu), out)
    return out.astype(np.uint8)


def _nan_code(fmt: MiniFloat, v: np.ndarray, *, canonical: bool) -> np.ndarray:
    if fmt.nan is None:
        return np.full(v.shape, _largest_code(fmt), dtype=np.int64)
    if canonical:
        return np.full(v.shape, (1 << (fmt.bits - int(fmt.signed))) - 1, dtype=np.int64)
    sign = np.where(np.signbit(v), fmt.sign_bit, 0)
    if fmt.nan == "ones":
        return ((1 << (fmt.bits - int(fmt.signed))) - 1) | sign
    if fmt.nan == "ieee":
        # Quiet NaN keeping the top payload bit (as cuda_fp8.hpp converts a double).
        top = (v.view(np.uint64) >> np.uint64(52 - fmt.mantissa)) & np.uint64(
            (1 << fmt.mantissa) - 1
        )
        quiet = ((1 << (fmt.bits - 1)) - 1) & ~1
        return (quiet | top.astype(np.int64)) | sign
    return np.full(v.shape, (1 << fmt.bits) - 1, dtype=np.int64)


def _largest_code(fmt: MiniFloat) -> int:
    _, codes = fmt.magnitudes()
    return int(codes[-1])


def _encode_ue8m0(v: np.ndarray, *, satfinite: bool, mode: Rounding) -> np.ndarray:
    if mode not in (Rounding.RZ, Rounding.RP):
        raise ValueError("ue8m0 conversions round with .rz or .rp")
    with np.errstate(all="ignore"):
        a = np.abs(v)
        _, e = np.frexp(a)
        e = e.astype(np.int64) - 1
        power = np.ldexp(1.0, e)
        up = (mode is Rounding.RP) & (a > power)
        exponent = np.where(a == 0, -127, e + up)
        code = np.clip(exponent + 127, 0, 255)
        code = np.where(np.isinf(a), 255, code)
        if satfinite:
            code = np.where(code == 255, 254, code)
        code = np.where(np.isnan(v), 255, code)
    return code.astype(np.uint8)
