"""Comparison and selection: ``setp``, ``set``, ``selp``, ``slct``.

Floating-point comparisons follow the PTX ISA: the ordered operators (``eq``, ``ne``, ``lt``,
``le``, ``gt``, ``ge``) are false when either operand is NaN, the unordered ones (``equ``,
``neu``, ``ltu``, ``leu``, ``gtu``, ``geu``) true; ``num`` and ``nan`` test for NaN; ``-0.0``
equals ``+0.0``. ``.ftz`` flushes subnormal inputs to zero first. The optional ``.and``/
``.or``/``.xor`` combines the result with predicate ``c`` (``!c`` allowed). Packed
``.f16x2``/``.bf16x2`` compare their halves separately: ``setp`` writes the low half's result
to ``p`` and the high half's to ``q``; ``set`` writes one result per half.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyptx.ir import PtxType, TypeKind

from .._lanes import Lanes
from .._machine import Executor
from .._numeric import F32, flush_subnormal
from .._site import Reader, Site
from .floating import elements

__all__ = ["SEMANTICS"]

_Compare = Callable[[np.ndarray, np.ndarray], np.ndarray]

_ORDERED: dict[str, _Compare] = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "lo": np.less,
    "ls": np.less_equal,
    "hi": np.greater,
    "hs": np.greater_equal,
}
"""The comparisons by name (``lo``/``ls``/``hi``/``hs`` are the unsigned spellings)."""

_BOOL: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "and": np.logical_and,
    "or": np.logical_or,
    "xor": np.logical_xor,
}


def _float_compare(cmp: str) -> _Compare:
    """A NaN-aware comparison of ``float64`` values."""
    if cmp == "num":
        return lambda a, b: ~(np.isnan(a) | np.isnan(b))
    if cmp == "nan":
        return lambda a, b: np.isnan(a) | np.isnan(b)
    unordered = cmp.endswith("u") and cmp[:-1] in _ORDERED
    base = _ORDERED[cmp[:-1] if unordered else cmp]

    def compare(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        nan = np.isnan(a) | np.isnan(b)
        with np.errstate(invalid="ignore"):
            t = base(a, b)
        return (t | nan) if unordered else (t & ~nan)

    return compare


def _comparison(site: Site, ty: PtxType, a: str = "a", b: str = "b") -> Reader:
    """A reader of ``a CmpOp b`` per lane, shape ``(n, k)`` (``k`` = 2 for packed halves)."""
    cmp = site.slot("cmp") or "eq"
    layout = elements(ty)
    if layout is not None:
        compare = _float_compare(cmp)
        read_a, read_b = layout.values(site, a, ty), layout.values(site, b, ty)
        fmt = layout.fmt
        ftz = site.has("ftz")

        def floats(m: Any, lanes: Lanes) -> np.ndarray:
            x, y = read_a(m, lanes), read_b(m, lanes)
            if ftz:
                x, y = flush_subnormal(x, fmt), flush_subnormal(y, fmt)
            return compare(x, y)

        return floats
    if ty.kind is TypeKind.FLOAT:
        raise site.not_emulated(f"{site.mnemonic} on .{ty.value}")
    if cmp not in _ORDERED:
        raise site.not_emulated(f"{site.mnemonic}: .{cmp} on integers")
    fn = _ORDERED[cmp]
    src_a, src_b = site.src(a, ty), site.src(b, ty)

    def integers(m: Any, lanes: Lanes) -> np.ndarray:
        return fn(src_a(m, lanes), src_b(m, lanes))[:, None]

    return integers


def _combine(site: Site) -> Callable[[Any, Lanes, np.ndarray], np.ndarray]:
    """``BoolOp(t, c)`` when the instruction has ``.and``/``.or``/``.xor``, else ``t``."""
    op = site.slot("bool")
    if op is None:
        return lambda m, lanes, t: t
    fn = _BOOL[op]
    c = site.src("c", PtxType.PRED)

    def combine(m: Any, lanes: Lanes, t: np.ndarray) -> np.ndarray:
        return fn(t, c(m, lanes)[:, None] if t.ndim == 2 else c(m, lanes))

    return combine


def setp(site: Site) -> Executor:
    """``setp.CmpOp{.BoolOp}{.ftz}.type p[|q], a, b{, c}``.

    Scalars: ``p = BoolOp(t, c)``, ``q = BoolOp(!t, c)``. ``.f16x2``/``.bf16x2``:
    ``p = BoolOp(t_low, c)``, ``q = BoolOp(t_high, c)``.
    """
    ty = site.type()
    compare = _comparison(site, ty)
    combine = _combine(site)
    p, q = site.predicate_pair("p")
    packed = ty.info.lanes == 2

    def run(m: Any, lanes: Lanes) -> Any:
        t = compare(m, lanes)
        if packed:
            both = combine(m, lanes, t)
            p(m, lanes, both[:, 0])
            if q is not None:
                q(m, lanes, both[:, 1])
            return
        p(m, lanes, combine(m, lanes, t[:, 0]))
        if q is not None:
            q(m, lanes, combine(m, lanes, ~t[:, 0]))

    return run


_ONE = {
    PtxType.F32: 0x3F80_0000,
    PtxType.F16: 0x3C00,
    PtxType.F16X2: 0x3C00,
    PtxType.BF16: 0x3F80,
    PtxType.BF16X2: 0x3F80,
}
"""1.0 in each floating-point destination type (per half for the packed ones)."""


def set_(site: Site) -> Executor:
    """``set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, c}``.

    True writes 1.0 for a floating-point ``dtype`` and all ones for an integer one; false
    writes 0. A packed ``stype`` writes one such value per 16-bit half of ``d``.
    """
    dtype = site.type("dtype")
    stype = site.type("stype")
    compare = _comparison(site, stype)
    combine = _combine(site)
    d = site.dst("d", dtype)
    packed = stype.info.lanes == 2
    width = 16 if packed else dtype.bits
    true = _ONE.get(dtype, (1 << width) - 1)
    uint = np.dtype(f"u{width // 8}")
    whole = np.dtype(f"u{dtype.bits // 8}")

    def run(m: Any, lanes: Lanes) -> Any:
        t = combine(m, lanes, compare(m, lanes))
        values = np.where(t, true, 0).astype(uint)
        d(m, lanes, np.ascontiguousarray(values).view(whole).reshape(lanes.n))

    return run


def selp(site: Site) -> Executor:
    """``selp.type d, a, b, c``: ``c ? a : b`` (bits copied unchanged)."""
    ty = site.type()
    a, b = site.src("a", ty), site.src("b", ty)
    c = site.src("c", PtxType.PRED)
    d = site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, np.where(c(m, lanes), a(m, lanes), b(m, lanes)))

    return run


def slct(site: Site) -> Executor:
    """``slct{.ftz}.dtype.ctype d, a, b, c``: ``c >= 0 ? a : b`` (bits copied unchanged).

    An ``f32`` ``c`` of ``-0.0`` selects ``a``; NaN selects ``b``; with ``.ftz`` a subnormal
    ``c`` counts as zero and selects ``a``.
    """
    dtype = site.type("dtype")
    ctype = site.type("ctype")
    a, b = site.src("a", dtype), site.src("b", dtype)
    c = site.src("c", ctype)
    d = site.dst("d", dtype)
    ftz = site.has("ftz") and ctype is PtxType.F32

    def run(m: Any, lanes: Lanes) -> Any:
        cv = c(m, lanes)
        if ctype is PtxType.F32:
            x = cv.astype(np.float64)
            if ftz:
                x = flush_subnormal(x, F32)
            with np.errstate(invalid="ignore"):
                take_a = x >= 0
        else:
            take_a = cv >= 0
        d(m, lanes, np.where(take_a, a(m, lanes), b(m, lanes)))

    return run


SEMANTICS: dict[str, Any] = {"setp": setp, "set": set_, "selp": selp, "slct": slct}
