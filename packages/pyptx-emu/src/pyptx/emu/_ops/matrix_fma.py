"""Correctly rounded ``.f64`` fused multiply-add for ``mma``, in all four rounding modes.

The exact arithmetic is :mod:`pyptx.emu._numeric`'s (:func:`~pyptx.emu._numeric.exact_fma`
with its exact-rational fallback near the ends of the exponent range, then
:func:`~pyptx.emu._numeric.round_exact`); this module only adds IEEE 754's sign rule for an
exact zero sum.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .._numeric import F64, Rounding, exact_fma, exact_rational, round_exact

__all__ = ["fma"]


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray, mode: str = "rn") -> np.ndarray:
    """``a * b + c`` with a single rounding in ``mode``, elementwise (``float64``).

    Args:
        a: multiplicand.
        b: multiplicand (broadcast against ``a``).
        c: addend (broadcast against the product).
        mode: ``"rn"``, ``"rz"``, ``"rm"`` or ``"rp"``.
    """
    a, b, c = np.broadcast_arrays(
        np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64)
    )
    hi, tail, ok = exact_fma(a, b, c)
    if not ok.all():
        where = np.nonzero(~ok)
        exact = [
            Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
            for x, y, z in zip(a[where], b[where], c[where], strict=True)
        ]
        h, t = exact_rational(exact)
        hi, tail = hi.copy(), np.array(tail, copy=True)
        hi[where], tail[where] = h, t
    rounding = Rounding(mode)
    out = round_exact(hi, tail, F64, rounding)
    with np.errstate(invalid="ignore"):
        zero = (hi == 0) & (tail == 0) & np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    if zero.any():
        # An exact zero is +0 (-0 when rounding down) unless both terms are zeros of one sign.
        product_zero = (a == 0) | (b == 0)
        product_negative = np.signbit(a) ^ np.signbit(b)
        same = product_zero & (c == 0) & (product_negative == np.signbit(c))
        negative = np.where(same, product_negative, rounding is Rounding.RM)
        out = np.where(zero, np.where(negative, -0.0, 0.0), out)
    return out
