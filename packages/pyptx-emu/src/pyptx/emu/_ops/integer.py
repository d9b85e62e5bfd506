"""Integer arithmetic: ``add``, ``sub``, ``mul`` (``.lo``/``.hi``/``.wide``), ``mad``, ...

Integer results wrap modulo 2^width as PTX defines (numpy's fixed-width arithmetic does the
same); ``.hi`` and ``.wide`` products are computed exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .._lanes import Lanes
from .._machine import Executor
from .._site import Site
from .._types import value_dtype

__all__ = ["SEMANTICS", "add", "mad", "mul", "sub"]


def _binary(site: Site, fn: Any) -> Executor:
    ty = site.type()
    a, b, d = site.src("a", ty), site.src("b", ty), site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        with np.errstate(over="ignore"):
            d(m, lanes, fn(a(m, lanes), b(m, lanes)))

    return run


def add(site: Site) -> Executor:
    """``add.type d, a, b`` on integers."""
    return _binary(site, np.add)


def sub(site: Site) -> Executor:
    """``sub.type d, a, b`` on integers."""
    return _binary(site, np.subtract)


def _wide_product(a: np.ndarray, b: np.ndarray, bits: int, signed: bool) -> np.ndarray:
    """The exact ``2 * bits`` product (as ``int64``/``uint64`` for ``bits <= 32``)."""
    wide = np.int64 if signed else np.uint64
    return a.astype(wide) * b.astype(wide)


def mul(site: Site) -> Executor:
    """``mul.{lo,hi,wide}.type d, a, b`` on integers."""
    ty = site.type()
    mode = site.slot("mode") or "lo"
    bits = ty.bits
    signed = ty.kind.value == "signed"
    a, b = site.src("a", ty), site.src("b", ty)
    if mode == "wide":
        wide_ty = PtxType.from_name(f"{'s' if signed else 'u'}{2 * bits}")
        assert wide_ty is not None
        d = site.dst("d", wide_ty)

        def wide(m: Any, lanes: Lanes) -> Any:
            d(m, lanes, _wide_product(a(m, lanes), b(m, lanes), bits, signed))

        return wide
    d = site.dst("d", ty)
    if mode == "lo":
        return _binary(site, np.multiply)
    out_dtype = value_dtype(ty)
    if bits <= 32:

        def high(m: Any, lanes: Lanes) -> Any:
            p = _wide_product(a(m, lanes), b(m, lanes), bits, signed)
            d(m, lanes, (p >> bits).astype(out_dtype))

        return high

    def high64(m: Any, lanes: Lanes) -> Any:
        av = [int(x) for x in a(m, lanes)]
        bv = [int(x) for x in b(m, lanes)]
        hi = [((x * y) >> 64) & 0xFFFF_FFFF_FFFF_FFFF for x, y in zip(av, bv, strict=True)]
        d(m, lanes, np.array(hi, dtype=np.uint64).view(out_dtype))

    return high64


def mad(site: Site) -> Executor:
    """``mad.{lo,hi,wide}.type d, a, b, c`` on integers."""
    ty = site.type()
    mode = site.slot("mode") or "lo"
    signed = ty.kind.value == "signed"
    a, b = site.src("a", ty), site.src("b", ty)
    if mode == "wide":
        wide_ty = PtxType.from_name(f"{'s' if signed else 'u'}{2 * ty.bits}")
        assert wide_ty is not None
        c = site.src("c", wide_ty)
        d = site.dst("d", wide_ty)

        def wide(m: Any, lanes: Lanes) -> Any:
            with np.errstate(over="ignore"):
                p = _wide_product(a(m, lanes), b(m, lanes), ty.bits, signed)
                d(m, lanes, p + c(m, lanes))

        return wide
    if mode != "lo":
        raise site.not_emulated("mad.hi")
    c = site.src("c", ty)
    d = site.dst("d", ty)

    def low(m: Any, lanes: Lanes) -> Any:
        with np.errstate(over="ignore"):
            d(m, lanes, a(m, lanes) * b(m, lanes) + c(m, lanes))

    return low


SEMANTICS: dict[str, Any] = {}
