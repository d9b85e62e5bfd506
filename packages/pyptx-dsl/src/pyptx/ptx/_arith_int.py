"""Integer-only arithmetic wrappers (re-exported by :mod:`pyptx.ptx._arith`).

The extended-precision carry chain (``addc``, ``subc``, ``madc``; start it with
``ptx.add(..., cc=True)``), the 24-bit multiplies, ``sad`` and ``rem``: one instruction each.
"""

from __future__ import annotations

from typing import Protocol

from ..dsl.regs import Reg
from ._arith_common import TypeArg, adopt, binary, doc, documented, named, spell, ternary, typed

__all__ = ["addc", "mad24", "madc", "mul24", "rem", "sad", "subc"]

_CARRY = "ty: ``u32``, ``s32``, ``u64`` or ``s64``; default: the first register's type."
_INTS = "ty: u16..u64 or s16..s64; default: the first register operand's type."
_EXT = "extended-precision-arithmetic-instructions-"


class _Carry(Protocol):
    def __call__(
        self,
        d: Reg,
        a: object,
        b: object,
        *,
        ty: TypeArg = None,
        cc: bool = False,
        pred: object = None,
    ) -> Reg: ...


def _carry(op: str, text: str) -> _Carry:
    def fn(
        d: Reg, a: object, b: object, *, ty: TypeArg = None, cc: bool = False, pred: object = None
    ) -> Reg:
        return typed(op, spell(cc=cc), d, (a, b), ty, pred, floats=False)

    return named(fn, op, text)


addc = _carry(
    "addc",
    doc(
        "Add with carry-in, d = a + b + CC.CF (one instruction): ``addc{.cc}.type d, a, b``.",
        "a: first source.",
        "b: second source.",
        _CARRY,
        "cc: also write the carry-out, to continue the chain.",
        example="``ptx.add(lo, a0, b0, cc=True)`` then ``ptx.addc(hi, a1, b1)`` emit\n"
        "    ``add.cc.u32`` and ``addc.u32``: a 64-bit add from 32-bit halves.",
        anchor=_EXT + "addc",
    ),
)
subc = _carry(
    "subc",
    doc(
        "Subtract with borrow-in, d = a - (b + CC.CF) (one instruction): ``subc{.cc}.type``.",
        "a: minuend.",
        "b: subtrahend.",
        _CARRY,
        "cc: also write the borrow-out.",
        anchor=_EXT + "subc",
    ),
)
sad = ternary(
    "sad",
    doc(
        "Sum of absolute difference, d = c + |a - b| (one instruction): ``sad.type d, a, b, c``.",
        "a: first operand.",
        "b: second operand.",
        "c: accumulator.",
        _INTS,
        anchor="integer-arithmetic-instructions-sad",
    ),
)
rem = binary(
    "rem",
    doc(
        "Integer remainder, d = a % b (one instruction): ``rem.type d, a, b``.",
        "a: dividend.",
        "b: divisor.",
        _INTS,
        anchor="integer-arithmetic-instructions-rem",
    ),
)


@documented(
    "a: first factor.",
    "b: second factor.",
    "c: addend.",
    'mode: ``"hi"`` or ``"lo"`` half of the product (required).',
    "ty: ``u32``, ``s32``, ``u64`` or ``s64``; default: the first register's type.",
    "cc: also write the carry-out.",
    anchor="extended-precision-arithmetic-instructions-madc",
)
def madc(
    d: Reg,
    a: object,
    b: object,
    c: object,
    *,
    mode: str | None = None,
    ty: TypeArg = None,
    cc: bool = False,
    pred: object = None,
) -> Reg:
    """Multiply-add with carry-in (one instruction): ``madc.<hi|lo>{.cc}.type d, a, b, c``.

    d = (the ``mode`` half of a * b) + c + CC.CF.
    """
    return typed("madc", spell(mode=mode, cc=cc), d, (a, b, c), ty, pred, floats=False)


@documented(
    "a: first factor (low 24 bits used).",
    "b: second factor (low 24 bits used).",
    'mode: ``"hi"`` or ``"lo"`` 32 bits of the 48-bit product (required).',
    "ty: ``u32`` or ``s32``; default: the first register operand's type.",
    anchor="integer-arithmetic-instructions-mul24",
)
def mul24(
    d: Reg,
    a: object,
    b: object,
    *,
    mode: str | None = None,
    ty: TypeArg = None,
    pred: object = None,
) -> Reg:
    """24-bit multiply (one instruction): ``mul24.<hi|lo>.<u32|s32> d, a, b``."""
    return typed("mul24", spell(mode=mode), d, (a, b), ty, pred, floats=False)


@documented(
    "a: first factor (low 24 bits used).",
    "b: second factor (low 24 bits used).",
    "c: addend.",
    'mode: ``"hi"`` or ``"lo"`` (required).',
    "ty: ``u32`` or ``s32``; default: the first register operand's type.",
    "sat: saturate (only ``mad24.hi.sat.s32``).",
    anchor="integer-arithmetic-instructions-mad24",
)
def mad24(
    d: Reg,
    a: object,
    b: object,
    c: object,
    *,
    mode: str | None = None,
    ty: TypeArg = None,
    sat: bool = False,
    pred: object = None,
) -> Reg:
    """24-bit multiply-add (one instruction): ``mad24.<hi|lo>.<u32|s32> d, a, b, c``."""
    return typed("mad24", spell(mode=mode, sat=sat), d, (a, b, c), ty, pred, floats=False)


adopt(globals())
