"""Logic and shift: ``and``, ``or``, ``xor``, ``not``, ``shl``, ``shr``."""

from __future__ import annotations

from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .._lanes import Lanes
from .._machine import Executor
from .._site import Site

__all__ = ["SEMANTICS"]


def _bitwise(fn: Any) -> Any:
    def factory(site: Site) -> Executor:
        ty = site.type()
        a, b, d = site.src("a", ty), site.src("b", ty), site.dst("d", ty)

        def run(m: Any, lanes: Lanes) -> Any:
            d(m, lanes, fn(a(m, lanes), b(m, lanes)))

        return run

    return factory


def _shift(left: bool) -> Any:
    def factory(site: Site) -> Executor:
        ty = site.type()
        a, b, d = site.src("a", ty), site.src("b", PtxType.U32), site.dst("d", ty)
        bits = ty.bits

        def run(m: Any, lanes: Lanes) -> Any:
            x = a(m, lanes)
            n = b(m, lanes)
            big = n >= bits
            s = np.minimum(n, bits - 1).astype(x.dtype)
            if left:
                out = np.where(big, 0, x << s)
            else:
                fill = np.where(x < 0, -1, 0) if x.dtype.kind == "i" else 0
                out = np.where(big, fill, x >> s)
            d(m, lanes, out.astype(x.dtype))

        return run

    return factory


SEMANTICS = {
    "and": _bitwise(np.bitwise_and),
    "or": _bitwise(np.bitwise_or),
    "xor": _bitwise(np.bitwise_xor),
    "shl": _shift(True),
    "shr": _shift(False),
}
