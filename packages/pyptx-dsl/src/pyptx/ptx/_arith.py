"""PTX instruction family: integer and floating-point arithmetic.

Every wrapper takes the destination first, like PTX, then the sources, and emits exactly one
instruction. The instruction type comes from ``ty=`` or, when left out, from the first
register operand whose type the instruction takes (``ptx.add(d, a, b)`` with ``d`` an
``f32`` register emits ``add.f32``). Modifiers are keywords with PTX spellings:
``rnd="rn"``, ``ftz=True``, ``sat=True``, ``mode="wide"``, ``cc=True``. Each wrapper returns
its destination register. Which forms exist (``sat`` only on ``s32``, ``rnd`` only on
floats, ...) is the ISA table's to say (:mod:`pyptx.ir.isa`); it reports a mistake at the
caller's line.

The float-only wrappers (``fma``, ``rcp``, ``sqrt``, ``sin``, ...) live in
:mod:`pyptx.ptx._arith_float` and the integer-only ones (``addc``, ``mul24``, ...) in
:mod:`pyptx.ptx._arith_int`; both are re-exported here.
"""

from __future__ import annotations

from typing import Protocol

from ..dsl.regs import Reg
from ._arith_common import TypeArg, as_type, doc, documented, named, spell, typed
from ._arith_float import copysign, cos, ex2, fma, lg2, rcp, rsqrt, sin, sqrt, tanh, testp
from ._arith_int import addc, mad24, madc, mul24, rem, sad, subc

__all__: list[str] = [
    "abs", "add", "addc", "copysign", "cos", "div", "ex2", "fma", "lg2", "mad", "mad24", "madc",
    "max", "min", "mul", "mul24", "neg", "rcp", "rem", "rsqrt", "sad", "sin", "sqrt", "sub",
    "subc", "tanh", "testp",
]  # fmt: skip


_TY = "ty: instruction type; default: the first register operand's type."


class _AddSub(Protocol):
    def __call__(
        self, d: Reg, a: object, b: object, *,
        ty: TypeArg = None, atype: TypeArg = None, rnd: str | None = None, ftz: bool = False,
        sat: bool = False, cc: bool = False, pred: object = None,
    ) -> Reg:  # fmt: skip
        ...


def _add_sub(op: str, text: str) -> _AddSub:
    def fn(
        d: Reg, a: object, b: object, *,
        ty: TypeArg = None, atype: TypeArg = None, rnd: str | None = None, ftz: bool = False,
        sat: bool = False, cc: bool = False, pred: object = None,
    ) -> Reg:  # fmt: skip
        tail = [as_type(op, "atype", atype).value] if atype is not None else []
        return typed(op, spell(rnd=rnd, ftz=ftz, sat=sat, cc=cc), d, (a, b), ty, pred, tail=tail)

    return named(fn, op, text)


def _both(op: str) -> tuple[str, str]:
    return (f"integer-arithmetic-instructions-{op}", f"floating-point-instructions-{op}")


add = _add_sub(
    "add",
    doc(
        "Add, d = a + b (one instruction).\n\n"
        "Emits, by type: ``add{.sat}.s32`` / ``add.<int>`` (u16..s64, u16x2, s16x2);\n"
        "``add.cc.<u32|s32|u64|s64>`` with ``cc=True`` (writes the carry flag);\n"
        "``add{.rnd}{.ftz}{.sat}.f32``, ``add{.rnd}{.ftz}.f32x2`` (sm_100), ``add{.rnd}.f64``;\n"
        "``add{.rn}{.ftz}{.sat}.<f16|f16x2>``, ``add{.rn}.<bf16|bf16x2>`` (sm_90); and the mixed\n"
        "``add{.rnd}{.sat}.f32.<f16|bf16> d, a, c`` with ``atype=`` (``a`` is the narrow operand;\n"
        "sm_100).",
        "a: first source.",
        "b: second source.",
        _TY,
        "atype: for the mixed-precision form, the type of ``a`` (``f16`` or ``bf16``).",
        'rnd: ``"rn"``, ``"rz"``, ``"rm"`` or ``"rp"`` (floats only; halves: ``"rn"``).',
        "ftz: flush subnormals to zero (``.ftz``).",
        "sat: saturate (``.sat``; ``s32`` and floats).",
        "cc: write the carry-out (``add.cc``), to start an ``addc`` chain.",
        pred="optional guard predicate (``p`` or ``~p``).",
        example='``ptx.add(acc, acc, x, rnd="rn")`` emits ``add.rn.f32 %f0, %f0, %f1;``.',
        anchor=_both("add"),
    ),
)
sub = _add_sub(
    "sub",
    doc(
        "Subtract, d = a - b (one instruction).\n\n"
        "Emits the same forms as :func:`add` (``sub{.sat}.s32``, ``sub.cc.<type>``,\n"
        "``sub{.rnd}{.ftz}{.sat}.f32``, ``sub{.rn}.bf16x2``, ``sub.f32.f16``, ...), except that\n"
        "there is no ``u16x2``/``s16x2`` integer form.",
        "a: minuend.",
        "b: subtrahend.",
        _TY,
        "atype: mixed-precision type of ``a`` (``f16`` or ``bf16``) with ``ty=f32``.",
        "rnd: rounding modifier (floats only).",
        "ftz: flush subnormals to zero.",
        "sat: saturate.",
        "cc: write the borrow-out (``sub.cc``), to start a ``subc`` chain.",
        anchor=_both("sub"),
    ),
)


@documented(
    "a: first factor.",
    "b: second factor.",
    "ty: instruction type; default: the first register operand's type (``a``/``b`` first"
    '\n        with ``mode="wide"``).',
    'mode: ``"hi"``, ``"lo"`` or ``"wide"``: which part of the product (integers only,'
    "\n        required there).",
    'rnd: ``"rn"``, ``"rz"``, ``"rm"`` or ``"rp"`` (floats only).',
    "ftz: flush subnormals to zero.",
    "sat: clamp the result to [0, 1] (floats).",
    example='``ptx.mul(off, tid, 4, mode="wide")`` emits ``mul.wide.u32 %rd0, %r0, 4;``.',
    anchor=("integer-arithmetic-instructions-mul", "floating-point-instructions-mul"),
)
def mul(
    d: Reg, a: object, b: object, *,
    ty: TypeArg = None, mode: str | None = None, rnd: str | None = None, ftz: bool = False,
    sat: bool = False, pred: object = None,
) -> Reg:  # fmt: skip
    """Multiply, d = a * b (one instruction).

    Emits ``mul.<hi|lo|wide>.<u16..s64>`` for integers (with ``"wide"`` the destination is
    twice as wide and the type comes from ``a``/``b``), and for floats
    ``mul{.rnd}{.ftz}{.sat}.f32``, ``mul{.rnd}{.ftz}.f32x2`` (sm_100), ``mul{.rnd}.f64``,
    ``mul{.rn}{.ftz}{.sat}.<f16|f16x2>`` and ``mul{.rn}.<bf16|bf16x2>`` (sm_90).
    """
    infer = (a, b) if mode == "wide" else (d, a, b)
    return typed(
        "mul", spell(mode=mode, rnd=rnd, ftz=ftz, sat=sat), d, (a, b), ty, pred, infer=infer
    )


@documented(
    "a: first factor.",
    "b: second factor.",
    "c: addend.",
    "ty: instruction type; default: the first register operand's type.",
    'mode: ``"hi"``, ``"lo"`` or ``"wide"`` (integers only, required there).',
    'rnd: ``"rn"``, ``"rz"``, ``"rm"`` or ``"rp"`` (floats only, required there).',
    "ftz: flush subnormals to zero (f32).",
    "sat: saturate (``mad.hi.sat.s32``, or clamp an f32 result to [0, 1]).",
    "cc: write the carry-out (``mad.hi.cc`` / ``mad.lo.cc``) for a ``madc`` chain.",
    example='``ptx.mad(i, row, 64, col, mode="lo")`` emits ``mad.lo.u32 %r3, %r1, 64, %r2;``.',
    anchor=("integer-arithmetic-instructions-mad", "floating-point-instructions-mad"),
)
def mad(
    d: Reg, a: object, b: object, c: object, *,
    ty: TypeArg = None, mode: str | None = None, rnd: str | None = None, ftz: bool = False,
    sat: bool = False, cc: bool = False, pred: object = None,
) -> Reg:  # fmt: skip
    """Multiply-add, d = a * b + c (one instruction).

    Emits ``mad.<hi|lo|wide>.<u16..s64>``, ``mad.hi.sat.s32``,
    ``mad.<hi|lo>.cc.<u32|s32|u64|s64>`` with ``cc=True``, ``mad.rnd{.ftz}{.sat}.f32`` and
    ``mad.rnd.f64`` (floats need ``rnd=``: float ``mad`` is a fused multiply-add).
    """
    mods = spell(mode=mode, rnd=rnd, ftz=ftz, sat=sat, cc=cc)
    infer = (a, b) if mode == "wide" else (d, a, b, c)
    return typed("mad", mods, d, (a, b, c), ty, pred, infer=infer)


@documented(
    "a: dividend.",
    "b: divisor.",
    "ty: instruction type; default: the first register operand's type.",
    'rnd: ``"rn"``, ``"rz"``, ``"rm"`` or ``"rp"`` (IEEE rounding, floats).',
    "approx: the fast approximation ``div.approx.f32``.",
    "full: the full-range approximation ``div.full.f32``.",
    "ftz: flush subnormals to zero (f32).",
    example="``ptx.div(q, x, y, approx=True)`` emits ``div.approx.f32 %f2, %f0, %f1;``.",
    anchor=("floating-point-instructions-div", "integer-arithmetic-instructions-div"),
)
def div(
    d: Reg, a: object, b: object, *,
    ty: TypeArg = None, rnd: str | None = None, approx: bool = False, full: bool = False,
    ftz: bool = False, pred: object = None,
) -> Reg:  # fmt: skip
    """Divide, d = a / b (one instruction).

    Emits ``div.<u16..s64>`` for integers; for ``f32`` exactly one of
    ``div.approx{.ftz}.f32``, ``div.full{.ftz}.f32`` or ``div.rnd{.ftz}.f32``; for ``f64``
    ``div.rnd.f64``.
    """
    return typed("div", spell(rnd=rnd, approx=approx, full=full, ftz=ftz), d, (a, b), ty, pred)


class _Unary(Protocol):
    def __call__(
        self, d: Reg, a: object, *, ty: TypeArg = None, ftz: bool = False, pred: object = None
    ) -> Reg: ...


def _sign(op: str, summary: str) -> _Unary:
    """``abs`` or ``neg``: ``op{.ftz}.type d, a``."""

    def fn(d: Reg, a: object, *, ty: TypeArg = None, ftz: bool = False, pred: object = None) -> Reg:
        return typed(op, spell(ftz=ftz), d, (a,), ty, pred)

    ftz = "ftz: flush subnormals to zero (f32, f16, f16x2)."
    return named(fn, op, doc(summary, "a: source.", _TY, ftz, anchor=_both(op)))


abs = _sign(
    "abs",
    "Absolute value, d = |a| (one instruction).\n\n"
    "Emits ``abs.<s16|s32|s64>``, ``abs{.ftz}.f32``, ``abs.f64``, ``abs{.ftz}.<f16|f16x2>``\n"
    "or ``abs.<bf16|bf16x2>`` (sm_80).",
)
neg = _sign(
    "neg",
    "Negate, d = -a (one instruction).\n\n"
    "Emits ``neg.<s16|s32|s64>``, ``neg{.ftz}.f32``, ``neg.f64``, ``neg{.ftz}.<f16|f16x2>``\n"
    "or ``neg.<bf16|bf16x2>``.",
)


class _MinMax(Protocol):
    def __call__(
        self, d: Reg, a: object, b: object, c: object = None, *,
        ty: TypeArg = None, relu: bool = False, ftz: bool = False, nan: bool = False,
        xorsign_abs: bool = False, abs: bool = False, pred: object = None,
    ) -> Reg:  # fmt: skip
        ...


def _minmax(op: str, summary: str, example: str) -> _MinMax:
    def fn(
        d: Reg, a: object, b: object, c: object = None, *,
        ty: TypeArg = None, relu: bool = False, ftz: bool = False, nan: bool = False,
        xorsign_abs: bool = False, abs: bool = False, pred: object = None,
    ) -> Reg:  # fmt: skip
        mods = spell(relu=relu, ftz=ftz, nan=nan, xorsign_abs=xorsign_abs, abs=abs)
        srcs = (a, b) if c is None else (a, b, c)
        return typed(op, mods, d, srcs, ty, pred, infer=(d, a, b))

    args = (
        "a: first operand.",
        "b: second operand.",
        "c: optional third operand (three-input ``f32`` form).",
        _TY,
        "relu: clamp negative results to 0 (``.relu``; s32, s16x2).",
        "ftz: flush subnormals to zero.",
        "nan: return NaN if an input is NaN (``.NaN``).",
        "xorsign_abs: ``.xorsign.abs``: compare magnitudes, sign = xor of the input signs.",
        "abs: ``.abs`` on the three-input form: compare magnitudes.",
    )
    return named(fn, op, doc(summary, *args, example=example, anchor=_both(op)))


min = _minmax(
    "min",
    "Minimum of two values, or of three with ``c`` (one instruction).\n\n"
    "Emits ``min.<u16|u32|u64|u16x2|s16|s64>``, ``min{.relu}.<s32|s16x2>``,\n"
    "``min{.ftz}{.NaN}{.xorsign.abs}.<f32|f16|f16x2>``, ``min{.NaN}{.xorsign.abs}.<bf16|bf16x2>``\n"
    "(sm_80; ``.xorsign.abs`` sm_86), ``min.f64`` and the three-input\n"
    "``min{.ftz}{.NaN}{.abs}.f32 d, a, b, c`` (sm_100).",
    "``ptx.min(m, x, y, z, nan=True)`` emits ``min.NaN.f32 %f3, %f0, %f1, %f2;``.",
)
max = _minmax(
    "max",
    "Maximum of two values, or of three with ``c`` (one instruction).\n\n"
    "The same forms as :func:`min`: ``max{.relu}.s32``, ``max{.ftz}{.NaN}{.xorsign.abs}.f32``,\n"
    "``max.bf16x2``, the three-input ``max{.ftz}{.NaN}{.abs}.f32`` (sm_100), ...",
    "``ptx.max(r, x, 0, relu=True)`` emits ``max.relu.s32 %r1, %r0, 0;``.",
)


MULTI_INSTRUCTION: dict[str, str] = {}
"""This family has no multi-instruction helpers."""
