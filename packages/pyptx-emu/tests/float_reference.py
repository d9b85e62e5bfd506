"""Exact references for the floating-point tests: rounding of exact rationals to a binary
format in every PTX rounding mode, and the values of the small formats by definition."""

from __future__ import annotations

import math
from fractions import Fraction

MODES = ["rn", "rz", "rm", "rp"]

# ------------------------------------------------------------------ an exact reference rounding


def ref_round(x: Fraction, precision: int, emin: int, emax: int, mode: str) -> float:
    """``x`` rounded to a binary format with ``precision`` significant bits (exact rationals).

    Returns a float (exact for every format narrower than float64), +-inf on overflow.
    """
    if x == 0:
        return 0.0
    negative = x < 0
    a = -x if negative else x
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    quantum = Fraction(2) ** (max(e, emin) - (precision - 1))
    n = math.floor(a / quantum)
    rest = a / quantum - n
    if rest != 0:
        away = {
            "rn": rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1),
            "rna": rest >= Fraction(1, 2),
            "rz": False,
            "rp": not negative,
            "rm": negative,
        }[mode]
        n += away
    value = n * quantum
    top = (2 - Fraction(2) ** (1 - precision)) * Fraction(2) ** emax
    if value > top:
        to_inf = mode in ("rn", "rna") or (mode == "rp" and not negative)
        to_inf = to_inf or (mode == "rm" and negative)
        out = math.inf if to_inf else float(top)
    else:
        out = float(value)
    return -out if negative else out


_PARAMS = {"f64": (53, -1022, 1023), "f32": (24, -126, 127), "f16": (11, -14, 15)}
_PARAMS.update({"bf16": (8, -126, 127), "tf32": (11, -126, 127)})


def ref(x: Fraction, fmt: str, mode: str) -> float:
    """:func:`ref_round` for a named format."""
    return ref_round(x, *_PARAMS[fmt], mode)


def same(a: float, b: float) -> bool:
    """Equal, including the sign of zero (and NaN == NaN)."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


# The small formats' non-negative values, from their definitions.
E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
E2M3 = [i / 8 for i in range(8)] + [(8 + i) / 8 * 2**e for e in range(3) for i in range(8)]
E3M2 = [i / 4 * 2**-2 for i in range(4)] + [
    (4 + i) / 4 * 2**e for e in range(-2, 5) for i in range(4)
]
