"""Video instructions: scalar ``vadd`` .. ``vset`` and SIMD ``vadd2`` .. ``vset4``.

Operands are whole 32-bit registers (the parser does not read byte/half-word selectors such as
``%r1.b0``, so every instruction has the default selection): scalar instructions extend ``a``
and ``b`` to exact integers by ``.atype``/``.btype``; ``vop2`` works on the two half-words of
``a`` and of ``b`` (``.h10``, ``.h32``), ``vop4`` on their four bytes (``.b3210``,
``.b7654``), with every destination lane written (``.h10``/``.b3210``).

Results follow the ISA's pseudocode on exact intermediates: ``.sat`` clamps to the range of
``.dtype`` (of the lane width for SIMD), otherwise the result wraps; the secondary ``.add``
adds ``c`` after saturation (ptxas's sm_90 code does the same). Not emulated, with a
:class:`~pyptx.emu.NotEmulated` error when they run:

* scalar ``.min``/``.max`` secondary operations of ``vadd``/``vsub``/``vabsdiff``/``vmin``/
  ``vmax``: the ISA's pseudocode compares 32-bit values, ptxas's code compares the wider
  intermediate against an extended ``c``, and the two disagree;
* ``.sat`` on ``vshl``/``vshr``: ptxas keeps a 34-bit intermediate there that the ISA does
  not describe;
* ``vmad``, and a ``c`` operand without a secondary operation (the data-merge form needs a
  destination selector).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyptx.ir import Negated, PtxType, UnaryExpr

from .._errors import NotEmulated
from .._lanes import Lanes
from .._machine import Executor
from .._site import Site

__all__ = ["SEMANTICS"]

Op = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _absdiff(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.abs(x - y)


def _average(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``vavrg``: the sum halved, rounding half away from zero for non-negative sums."""
    s = x + y
    return np.where(s >= 0, (s + 1) >> 1, s >> 1)


_ARITH: dict[str, Op] = {
    "vadd": np.add,
    "vsub": np.subtract,
    "vabsdiff": _absdiff,
    "vmin": np.minimum,
    "vmax": np.maximum,
    "vavrg": _average,
}

_CMP: dict[str, Op] = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}

_LOW32 = 0xFFFF_FFFF


def _operation(name: str, site: Site) -> Op:
    """The lane-wise operation of ``name`` (a comparison gives 0 or 1)."""
    if name != "vset":
        return _ARITH[name]
    cmp = _CMP[site.slot("cmp") or "eq"]

    def compare(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return cmp(x, y).astype(np.int64)

    return compare


def _check_operands(site: Site) -> None:
    for name in "abc":
        if isinstance(site.operand(name), Negated | UnaryExpr):
            raise NotEmulated(f"{site.mnemonic}: a negated operand '{name}' is not emulated")


def _extend(x: np.ndarray, signed: bool) -> np.ndarray:
    """``uint32`` operands as exact ``int64`` values of ``.s32`` or ``.u32``."""
    return x.view(np.int32).astype(np.int64) if signed else x.astype(np.int64)


def _signed(site: Site, slot: str) -> bool:
    return site.slot(slot) == "s32"


def _low32(v: np.ndarray) -> np.ndarray:
    return (v & _LOW32).astype(np.uint32)


def _range(bits: int, signed: bool) -> tuple[int, int]:
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


# --------------------------------------------------------------------------------- scalar


def _scalar(name: str) -> Callable[[Site], Executor]:
    """``vadd``, ``vsub``, ``vabsdiff``, ``vmin``, ``vmax``, ``vshl``, ``vshr``, ``vset``."""

    def factory(site: Site) -> Executor:
        _check_operands(site)
        op2 = site.slot("op2")
        has_c = site.operand("c") is not None
        if has_c != (op2 is not None):
            raise site.not_emulated(f"{site.mnemonic} with a data-merge operand c")
        if op2 in ("min", "max") and name != "vset":
            raise site.not_emulated(f"the .{op2} secondary operation of {site.mnemonic}")
        sat = site.has("sat")
        if sat and name in ("vshl", "vshr"):
            raise site.not_emulated(f".sat on {site.mnemonic}")
        a_signed = _signed(site, "atype")
        b_signed = _signed(site, "btype")
        low, high = _range(32, _signed(site, "dtype"))
        a, b = site.src("a", PtxType.U32), site.src("b", PtxType.U32)
        c = site.src("c", PtxType.U32) if has_c else None
        d = site.dst("d", PtxType.U32)
        clamp = site.slot("mode") == "clamp"
        op = None if name in ("vshl", "vshr") else _operation(name, site)

        def primary(m: Any, lanes: Lanes) -> np.ndarray:
            x = _extend(a(m, lanes), a_signed)
            if name in ("vshl", "vshr"):
                n = b(m, lanes)
                shift = np.minimum(n, np.uint32(32)) if clamp else n & np.uint32(31)
                if name == "vshr":
                    return x >> shift.astype(np.int64)
                return (x.view(np.uint64) << shift.astype(np.uint64)).view(np.int64)
            assert op is not None
            t = op(x, _extend(b(m, lanes), b_signed))
            return np.clip(t, low, high) if sat else t

        def run(m: Any, lanes: Lanes) -> Any:
            t = primary(m, lanes)
            if c is not None:
                v = c(m, lanes).astype(np.int64)
                if op2 == "add":
                    t = t + v
                else:  # vset's 0/1 result against an unsigned c
                    t = np.minimum(t, v) if op2 == "min" else np.maximum(t, v)
            d(m, lanes, _low32(t))

        return run

    factory.__doc__ = f"``{name}.dtype.atype.btype`` on whole 32-bit operands."
    return factory


# ----------------------------------------------------------------------------------- SIMD


def _parts(x: np.ndarray, count: int, signed: bool) -> np.ndarray:
    """The ``count`` lanes (half-words or bytes) of ``uint32`` values as ``(n, count)``."""
    width = 32 // count
    shifts = np.arange(0, 32, width, dtype=np.uint32)
    v = ((x[:, None] >> shifts) & np.uint32((1 << width) - 1)).astype(np.int64)
    sign = 1 << (width - 1)
    return (v ^ sign) - sign if signed else v


def _simd(name: str, count: int) -> Callable[[Site], Executor]:
    """``vop2``/``vop4`` and ``vset2``/``vset4`` with the default selectors and mask."""

    def factory(site: Site) -> Executor:
        _check_operands(site)
        width = 32 // count
        a_signed = _signed(site, "atype")
        b_signed = _signed(site, "btype")
        sat, add = site.has("sat"), site.has("add")
        low, high = _range(width, _signed(site, "dtype"))
        op = _operation(name, site)
        a, b, c = (site.src(x, PtxType.U32) for x in "abc")
        d = site.dst("d", PtxType.U32)
        places = np.arange(0, 32, width, dtype=np.int64)

        def run(m: Any, lanes: Lanes) -> Any:
            x = _parts(a(m, lanes), count, a_signed)
            y = _parts(b(m, lanes), count, b_signed)
            t = op(x, y)
            if sat:
                t = np.clip(t, low, high)
            if add:
                d(m, lanes, _low32(c(m, lanes).astype(np.int64) + t.sum(axis=1)))
            else:
                lanes_bits = (t & ((1 << width) - 1)) << places
                d(m, lanes, _low32(lanes_bits.sum(axis=1)))

        return run

    factory.__doc__ = f"``{name}{count}``: {count}-way SIMD on whole 32-bit operands."
    return factory


SEMANTICS: dict[str, Any] = {
    **{name: _scalar(name) for name in ("vadd", "vsub", "vabsdiff", "vmin", "vmax")},
    "vshl": _scalar("vshl"),
    "vshr": _scalar("vshr"),
    "vset": _scalar("vset"),
    **{
        f"{name}{count}": _simd(name, count)
        for name in ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset")
        for count in (2, 4)
    },
}
"""Video semantics by spec name (``vmad`` is not emulated)."""
