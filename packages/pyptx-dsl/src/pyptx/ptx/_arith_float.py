"""Floating-point-only arithmetic wrappers (re-exported by :mod:`pyptx.ptx._arith`).

``fma``, ``rcp``, ``sqrt``, ``rsqrt``, ``sin``, ``cos``, ``lg2``, ``ex2``, ``tanh``,
``copysign`` and ``testp``: one instruction each. Instructions that exist only as an
approximation (``sin``, ``cos``, ``lg2``, ``ex2``, ``tanh``, ``rsqrt``) always carry
``.approx``; ``rcp`` and ``sqrt`` choose between ``approx=True`` and ``rnd=``.
"""

from __future__ import annotations

from typing import Protocol

from ..dsl.regs import Reg
from ._arith_common import (
    TypeArg,
    adopt,
    as_type,
    binary,
    doc,
    documented,
    named,
    spell,
    typed,
    unary,
)

__all__ = [
    "copysign", "cos", "ex2", "fma", "lg2", "rcp", "rsqrt", "sin", "sqrt", "tanh", "testp",
]  # fmt: skip

_FP = "floating-point-instructions-"
_F32 = "ty: only ``f32``; default: the first register operand's type."


@documented(
    "a: first factor.",
    "b: second factor.",
    "c: addend.",
    'rnd: rounding, required: ``"rn"``, ``"rz"``, ``"rm"``, ``"rp"`` (halves: ``"rn"``).',
    "ty: instruction type; default: the first register operand's type.",
    "atype: the type of ``a`` and ``b`` in the mixed-precision form (``f16``/``bf16``).",
    "ftz: flush subnormals to zero.",
    "sat: clamp the result to [0, 1].",
    "relu: clamp negative results to 0 (half types).",
    "oob: out-of-bounds-aware form ``.oob`` (half types).",
    example='``ptx.fma(acc, x, w, acc, rnd="rn")`` emits ``fma.rn.f32 %f2, %f0, %f1, %f2;``.',
    anchor=("floating-point-instructions-fma", "half-precision-floating-point-instructions-fma"),
)
def fma(
    d: Reg, a: object, b: object, c: object, *,
    rnd: str | None = None, ty: TypeArg = None, atype: TypeArg = None, ftz: bool = False,
    sat: bool = False, relu: bool = False, oob: bool = False, pred: object = None,
) -> Reg:  # fmt: skip
    """Fused multiply-add, d = a * b + c, rounded once (one instruction).

    Emits ``fma.rnd{.ftz}{.sat}.f32``, ``fma.rnd{.ftz}.f32x2`` (sm_100), ``fma.rnd.f64``,
    ``fma.rn{.ftz}{.sat}.<f16|f16x2>``, ``fma.rn{.ftz}.relu.<f16|f16x2>``,
    ``fma.rn{.relu}.<bf16|bf16x2>``, ``fma.rn.oob{.relu}.<f16|f16x2|bf16|bf16x2>`` (sm_90)
    and the mixed ``fma.rnd{.sat}.f32.<f16|bf16>`` with ``atype=`` (sm_100).
    """
    mods = spell(rnd=rnd, oob=oob, ftz=ftz, sat=sat, relu=relu)
    tail = [as_type("fma", "atype", atype).value] if atype is not None else []
    return typed("fma", mods, d, (a, b, c), ty, pred, tail=tail)


class _RcpSqrt(Protocol):
    def __call__(
        self,
        d: Reg,
        a: object,
        *,
        rnd: str | None = None,
        approx: bool = False,
        ftz: bool = False,
        ty: TypeArg = None,
        pred: object = None,
    ) -> Reg: ...


def _rcp_sqrt(op: str, text: str) -> _RcpSqrt:
    def fn(
        d: Reg,
        a: object,
        *,
        rnd: str | None = None,
        approx: bool = False,
        ftz: bool = False,
        ty: TypeArg = None,
        pred: object = None,
    ) -> Reg:
        return typed(op, spell(rnd=rnd, approx=approx, ftz=ftz), d, (a,), ty, pred)

    return named(fn, op, text)


_RND = 'rnd: IEEE rounding ``"rn"``, ``"rz"``, ``"rm"``, ``"rp"`` (or use ``approx``).'
_TY = "ty: ``f32`` or ``f64``; default: the first register operand's type."
rcp = _rcp_sqrt(
    "rcp",
    doc(
        "Reciprocal, d = 1 / a (one instruction).\n\nEmits ``rcp.approx{.ftz}.f32``, "
        "``rcp.rnd{.ftz}.f32``, ``rcp.rnd.f64`` or\n``rcp.approx.ftz.f64``.",
        "a: source.",
        _RND,
        "approx: the fast approximation ``.approx`` instead of ``rnd``.",
        "ftz: flush subnormals to zero.",
        _TY,
        anchor=_FP + "rcp",
    ),
)
sqrt = _rcp_sqrt(
    "sqrt",
    doc(
        "Square root (one instruction).\n\n"
        "Emits ``sqrt.approx{.ftz}.f32``, ``sqrt.rnd{.ftz}.f32`` or ``sqrt.rnd.f64``.",
        "a: source.",
        _RND,
        "approx: the fast approximation ``.approx`` (f32 only).",
        "ftz: flush subnormals to zero (f32 only).",
        _TY,
        anchor=_FP + "sqrt",
    ),
)


class _Approx(Protocol):
    def __call__(
        self, d: Reg, a: object, *, ftz: bool = False, ty: TypeArg = None, pred: object = None
    ) -> Reg: ...


def _approx(op: str, summary: str, ty: str = _F32, a: str = "a: source.") -> _Approx:
    """``op.approx{.ftz}.type d, a``: the instructions that exist only as approximations."""

    def fn(d: Reg, a: object, *, ftz: bool = False, ty: TypeArg = None, pred: object = None) -> Reg:
        return typed(op, ["approx", *spell(ftz=ftz)], d, (a,), ty, pred)

    return named(fn, op, doc(summary, a, "ftz: flush subnormals to zero.", ty, anchor=_FP + op))


rsqrt = _approx(
    "rsqrt",
    "Reciprocal square root, d = 1 / sqrt(a) (one instruction).\n\n"
    "Emits ``rsqrt.approx{.ftz}.f32`` or ``rsqrt.approx{.ftz}.f64`` (the only forms).",
    _TY,
)
_RAD = "a: source, in radians."
sin = _approx(
    "sin", "Sine of ``a`` radians (one instruction): ``sin.approx{.ftz}.f32 d, a``.", a=_RAD
)
cos = _approx(
    "cos", "Cosine of ``a`` radians (one instruction): ``cos.approx{.ftz}.f32 d, a``.", a=_RAD
)
lg2 = _approx("lg2", "Base-2 logarithm (one instruction): ``lg2.approx{.ftz}.f32 d, a``.")
ex2 = _approx(
    "ex2",
    "Base-2 exponential, d = 2**a (one instruction).\n\n"
    "Emits ``ex2.approx{.ftz}.f32``, ``ex2.approx.<f16|f16x2>`` (sm_75) or\n"
    "``ex2.approx.ftz.<bf16|bf16x2>`` (sm_90; ``ftz=True`` is required: it is the only form).",
    "ty: ``f32``, ``f16``, ``f16x2``, ``bf16`` or ``bf16x2``; default: from the registers.",
)
tanh = unary(
    "tanh",
    doc(
        "Hyperbolic tangent (one instruction): ``tanh.approx.type d, a`` (sm_75).",
        "a: source.",
        "ty: ``f32``, ``f16``, ``f16x2``, ``bf16`` or ``bf16x2`` (bf16: sm_90).",
        anchor=_FP + "tanh",
    ),
    mods=("approx",),
    floats=True,
)
copysign = binary(
    "copysign",
    doc(
        "Copy the sign of ``a`` onto ``b`` (one instruction): ``copysign.<f32|f64> d, a, b``.",
        "a: the value whose sign is taken.",
        "b: the value whose magnitude is taken.",
        _TY,
        anchor=_FP + "copysign",
    ),
    floats=True,
)


@documented(
    "a: the value tested.",
    'op: ``"finite"``, ``"infinite"``, ``"number"``, ``"notanumber"``, ``"normal"`` or'
    '\n        ``"subnormal"``.',
    "ty: ``f32`` or ``f64``; default: the type of ``a``.",
    d="destination predicate register.",
    example='``ptx.testp(bad, x, op="notanumber")`` emits ``testp.notanumber.f32 %p0, %f0;``.',
    dest="p",
    anchor="floating-point-instructions-testp",
)
def testp(p: Reg, a: object, *, op: str, ty: TypeArg = None, pred: object = None) -> Reg:
    """Test a float's class into a predicate (one instruction): ``testp.op.<f32|f64> p, a``."""
    return typed("testp", spell(op=op), p, (a,), ty, pred, infer=(a,))


adopt(globals())
