"""References for the reduction tests (cp.reduce.async.bulk, red.async, TMA reductions): the
ISA's reduction of two values, floats through exact rational arithmetic."""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def _round(q: Fraction, mant: int, emin: int, emax: int) -> float:
    """``q`` rounded to nearest even with ``mant`` significand bits (an IEEE format)."""
    if q == 0:
        return 0.0
    sign = -1 if q < 0 else 1
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    ulp = Fraction(2) ** (e - mant + 1)
    n = a / ulp
    k = int(n)
    rest = n - k
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and k % 2 == 1):
        k += 1
    value = k * ulp
    if value >= Fraction(2) ** (emax + 1):
        return sign * float("inf")
    return sign * float(value)


FORMATS = {
    "f16": (np.float16, 11, -14, 15),
    "f32": (np.float32, 24, -126, 127),
    "f64": (np.float64, 53, -1022, 1023),
    "bf16": (None, 8, -126, 127),
}


def _to_float(bits: int, ty: str) -> float:
    if ty == "bf16":
        return float(np.array([bits << 16], np.uint32).view(np.float32)[0])
    dtype = FORMATS[ty][0]
    width = np.dtype(dtype).itemsize * 8
    return float(np.array([bits], f"u{width // 8}").view(dtype)[0])


def _to_bits(value: float, ty: str) -> int:
    if ty == "bf16":
        return int(np.array([value], np.float32).view(np.uint32)[0]) >> 16
    dtype = FORMATS[ty][0]
    width = np.dtype(dtype).itemsize * 8
    return int(np.array([value], dtype).view(f"u{width // 8}")[0])


_NAN = {"f16": 0x7FFF, "bf16": 0x7FFF, "f32": 0x7FFF_FFFF, "f64": 0x7FFF_FFFF_FFFF_FFFF}


def ref_float(op: str, ty: str, a_bits: int, b_bits: int, ftz: bool) -> int:
    """The ISA's reduction of two floats, from exact rational arithmetic."""
    _, mant, emin, emax = FORMATS[ty]
    a, b = _to_float(a_bits, ty), _to_float(b_bits, ty)
    tiny = 2.0**emin
    if ftz:
        a = 0.0 * np.sign(a) if abs(a) < tiny else a
        b = 0.0 * np.sign(b) if abs(b) < tiny else b
    if op == "add":
        if np.isnan(a) or np.isnan(b) or (np.isinf(a) and np.isinf(b) and a != b):
            return _NAN[ty]
        if np.isinf(a) or np.isinf(b):
            return _to_bits(a if np.isinf(a) else b, ty)
        q = Fraction(a) + Fraction(b)
        if q == 0:
            zero = -0.0 if (np.signbit(a) and np.signbit(b)) else 0.0
            return _to_bits(zero, ty)
        r = _round(q, mant, emin, emax)
        if ftz and abs(r) < tiny:
            r = 0.0 * np.sign(r)
        return _to_bits(r, ty)
    if np.isnan(a) and np.isnan(b):
        return _NAN[ty]
    if np.isnan(b):
        return a_bits
    if np.isnan(a):
        return b_bits
    if a == b:  # -0 is below +0
        neg = np.signbit(a)
        pick_a = neg if op == "min" else not neg
        return a_bits if pick_a else b_bits
    return a_bits if (a < b) == (op == "min") else b_bits


def ref_int(op: str, ty: str, a: int, b: int) -> int:
    bits = int(ty[1:])
    mask = (1 << bits) - 1
    signed = ty[0] == "s"

    def val(x: int) -> int:
        return x - (1 << bits) if signed and x >> (bits - 1) else x

    if op == "add":
        return (a + b) & mask
    if op == "and":
        return a & b
    if op == "or":
        return a | b
    if op == "xor":
        return a ^ b
    if op == "inc":
        return 0 if a >= b else a + 1
    if op == "dec":
        return b if a == 0 or a > b else a - 1
    pick_a = val(a) <= val(b) if op == "min" else val(a) >= val(b)
    return a if pick_a else b
