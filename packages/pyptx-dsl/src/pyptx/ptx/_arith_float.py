"""Floating-point-only arithmetic wrappers (re-exported by :mod:`pyptx.ptx._arith`).

``fma``, ``rcp``, ``sqrt``, ``rsqrt``, ``sin``, ``cos``, ``lg2``, ``ex2``, ``tanh``,
``copysign`` and ``testp``: one instruction each. Instructions that exist only as an
approximation (``sin``, ``cos``, ``lg2``, ``ex2``, ``tanh``, ``rsqrt``) always carry
``.approx``; ``rcp`` and ``sqrt`` choose between ``approx=True`` and ``rnd=``.
"""

from __future__ import annotations

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg
from ._arith_common import (
    RND,
    FloatRule,
    T,
    TypeArg,
    check_takes,
    choice,
    dest,
    flag,
    float_mods,
    imm,
    predicate,
    required,
    resolve_type,
)

__all__ = [
    "copysign",
    "cos",
    "ex2",
    "fma",
    "lg2",
    "rcp",
    "rsqrt",
    "sin",
    "sqrt",
    "tanh",
    "testp",
]

_FMA: dict[T, FloatRule] = {
    T.F32: FloatRule(RND, ("ftz", "sat"), rnd_required=True),
    T.F32X2: FloatRule(RND, ("ftz",), rnd_required=True),
    T.F64: FloatRule(RND, (), rnd_required=True),
    T.F16: FloatRule(("rn",), ("ftz", "sat", "relu"), rnd_required=True),
    T.F16X2: FloatRule(("rn",), ("ftz", "sat", "relu"), rnd_required=True),
    T.BF16: FloatRule(("rn",), ("relu",), rnd_required=True),
    T.BF16X2: FloatRule(("rn",), ("relu",), rnd_required=True),
}
_HALF = (T.F16, T.F16X2, T.BF16, T.BF16X2)


def fma(
    d: Reg,
    a: object,
    b: object,
    c: object,
    *,
    rnd: str | None = None,
    ty: TypeArg = None,
    atype: TypeArg = None,
    ftz: bool = False,
    sat: bool = False,
    relu: bool = False,
    oob: bool = False,
    pred: object = None,
) -> Reg:
    """Fused multiply-add, d = a * b + c, rounded once (one instruction).

    Emits ``fma.rnd{.ftz}{.sat}.f32``, ``fma.rnd{.ftz}.f32x2`` (sm_100), ``fma.rnd.f64``,
    ``fma.rn{.ftz}{.sat}.<f16|f16x2>``, ``fma.rn{.ftz}.relu.<f16|f16x2>``,
    ``fma.rn{.relu}.<bf16|bf16x2>``, ``fma.rn.oob{.relu}.<f16|f16x2|bf16|bf16x2>`` (sm_90)
    and the mixed ``fma.rnd{.sat}.f32.<f16|bf16>`` with ``atype=`` (sm_100).

    Args:
        d: destination register.
        a: first factor.
        b: second factor.
        c: addend.
        rnd: rounding, required: ``"rn"``, ``"rz"``, ``"rm"``, ``"rp"`` (halves: ``"rn"``).
        ty: instruction type; default: the first register operand's type.
        atype: the type of ``a`` and ``b`` in the mixed-precision form (``f16``/``bf16``).
        ftz: flush subnormals to zero.
        sat: clamp the result to [0, 1].
        relu: clamp negative results to 0 (half types).
        oob: out-of-bounds-aware form ``.oob`` (half types).
        pred: optional guard predicate.

    Returns:
        ``d``.

    Example:
        ``ptx.fma(acc, x, w, acc, rnd="rn")`` emits ``fma.rn.f32 %f2, %f0, %f1, %f2;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-fma
    and https://docs.nvidia.com/cuda/parallel-thread-execution/#half-precision-floating-point-instructions-fma
    """
    dst = dest("fma", d)
    t = resolve_type("fma", ty, tuple(_FMA), dst, a, b, c)
    flags: dict[str, object] = {"ftz": ftz, "sat": sat, "relu": relu}
    if atype is not None:
        src = resolve_type("fma", atype, (T.F16, T.BF16), kw="atype")
        if t is not T.F32:
            raise PtxDslError(f"fma with atype= accumulates into .f32, but ty is {t.ptx}")
        check_takes("fma.f32 (mixed)", {"oob": oob}, ())
        rule = FloatRule(RND, ("sat",), rnd_required=True)
        mods = [*float_mods("fma", t, rule, rnd, flags), t.value, src.value]
    elif flag("fma", "oob", oob):
        if t not in _HALF:
            raise PtxDslError(f"fma.oob exists only for f16, f16x2, bf16, bf16x2, not {t.ptx}")
        rule = FloatRule(("rn",), ("relu",), rnd_required=True)
        r, *rest = float_mods("fma", t, rule, rnd, {"ftz": ftz, "sat": sat, "relu": relu})
        mods = [r, "oob", *rest, t.value]
    else:
        if sat and relu:
            raise PtxDslError("fma takes sat=True or relu=True, not both")
        mods = [*float_mods("fma", t, _FMA[t], rnd, flags), t.value]
    emit_inst("fma", mods, (dst, imm(a, t), imm(b, t), imm(c, t)), pred)
    return dst


def _approx_or_rnd(
    op: str,
    d: object,
    a: object,
    ty: TypeArg,
    rnd: object,
    approx: object,
    ftz: object,
    pred: object,
) -> Reg:
    dst = dest(op, d)
    t = resolve_type(op, ty, (T.F32, T.F64), dst, a)
    if flag(op, "approx", approx) == (rnd is not None):
        raise PtxDslError(f"{op} needs exactly one of approx=True or rnd= ('rn', 'rz', 'rm', 'rp')")
    ftz_ok = t is T.F32 or (op == "rcp" and approx)
    check_takes(f"{op}.{t.value}", {"ftz": ftz}, ("ftz",) if ftz_ok else ())
    if op == "sqrt" and approx and t is T.F64:
        raise PtxDslError("sqrt.approx exists only for .f32; use rnd= for .f64")
    if op == "rcp" and approx and t is T.F64 and not ftz:
        raise PtxDslError("rcp.approx.f64 exists only as rcp.approx.ftz.f64; pass ftz=True")
    r = choice(op, "rnd", rnd, RND)
    mods = [r or "approx", *(["ftz"] if flag(op, "ftz", ftz) else []), t.value]
    emit_inst(op, mods, (dst, imm(a, t)), pred)
    return dst


def rcp(
    d: Reg,
    a: object,
    *,
    rnd: str | None = None,
    approx: bool = False,
    ftz: bool = False,
    ty: TypeArg = None,
    pred: object = None,
) -> Reg:
    """Reciprocal, d = 1 / a (one instruction).

    Emits ``rcp.approx{.ftz}.f32``, ``rcp.rnd{.ftz}.f32``, ``rcp.rnd.f64`` or
    ``rcp.approx.ftz.f64``.

    Args:
        d: destination register.
        a: source.
        rnd: IEEE rounding ``"rn"``, ``"rz"``, ``"rm"``, ``"rp"`` (or use ``approx``).
        approx: the fast approximation ``.approx`` instead of ``rnd``.
        ftz: flush subnormals to zero.
        ty: ``f32`` or ``f64``; default: the first register operand's type.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-rcp
    """
    return _approx_or_rnd("rcp", d, a, ty, rnd, approx, ftz, pred)


def sqrt(
    d: Reg,
    a: object,
    *,
    rnd: str | None = None,
    approx: bool = False,
    ftz: bool = False,
    ty: TypeArg = None,
    pred: object = None,
) -> Reg:
    """Square root (one instruction).

    Emits ``sqrt.approx{.ftz}.f32``, ``sqrt.rnd{.ftz}.f32`` or ``sqrt.rnd.f64``.

    Args:
        d: destination register.
        a: source.
        rnd: IEEE rounding ``"rn"``, ``"rz"``, ``"rm"``, ``"rp"`` (or use ``approx``).
        approx: the fast approximation ``.approx`` (f32 only).
        ftz: flush subnormals to zero (f32 only).
        ty: ``f32`` or ``f64``; default: the first register operand's type.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-sqrt
    """
    return _approx_or_rnd("sqrt", d, a, ty, rnd, approx, ftz, pred)


def _approx_only(
    op: str,
    d: object,
    a: object,
    ty: TypeArg,
    ftz: object,
    pred: object,
    rules: dict[T, tuple[str, ...]],
) -> Reg:
    dst = dest(op, d)
    t = resolve_type(op, ty, tuple(rules), dst, a)
    mods = ["approx", *float_mods(op, t, FloatRule((), rules[t]), None, {"ftz": ftz}), t.value]
    emit_inst(op, mods, (dst, imm(a, t)), pred)
    return dst


def rsqrt(d: Reg, a: object, *, ftz: bool = False, ty: TypeArg = None, pred: object = None) -> Reg:
    """Reciprocal square root, d = 1 / sqrt(a) (one instruction).

    Emits ``rsqrt.approx{.ftz}.f32`` or ``rsqrt.approx{.ftz}.f64`` (the only forms).

    Args:
        d: destination register.
        a: source.
        ftz: flush subnormals to zero.
        ty: ``f32`` or ``f64``; default: the first register operand's type.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-rsqrt
    """
    return _approx_only("rsqrt", d, a, ty, ftz, pred, {T.F32: ("ftz",), T.F64: ("ftz",)})


def sin(d: Reg, a: object, *, ftz: bool = False, ty: TypeArg = None, pred: object = None) -> Reg:
    """Sine of ``a`` radians (one instruction): ``sin.approx{.ftz}.f32 d, a``.

    Args:
        d: destination register.
        a: source, in radians.
        ftz: flush subnormals to zero.
        ty: only ``f32``; default: the first register operand's type.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-sin
    """
    return _approx_only("sin", d, a, ty, ftz, pred, {T.F32: ("ftz",)})


def cos(d: Reg, a: object, *, ftz: bool = False, ty: TypeArg = None, pred: object = None) -> Reg:
    """Cosine of ``a`` radians (one instruction): ``cos.approx{.ftz}.f32 d, a``.

    Args:
        d: destination register.
        a: source, in radians.
        ftz: flush subnormals to zero.
        ty: only ``f32``; default: the first register operand's type.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-cos
    """
    return _approx_only("cos", d, a, ty, ftz, pred, {T.F32: ("ftz",)})


def lg2(d: Reg, a: object, *, ftz: bool = False, ty: TypeArg = None, pred: object = None) -> Reg:
    """Base-2 logarithm (one instruction): ``lg2.approx{.ftz}.f32 d, a``.

    Args:
        d: destination register.
        a: source.
        ftz: flush subnormals to zero.
        ty: only ``f32``; default: the first register operand's type.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-lg2
    """
    return _approx_only("lg2", d, a, ty, ftz, pred, {T.F32: ("ftz",)})


def ex2(d: Reg, a: object, *, ftz: bool = False, ty: TypeArg = None, pred: object = None) -> Reg:
    """Base-2 exponential, d = 2**a (one instruction).

    Emits ``ex2.approx{.ftz}.f32``, ``ex2.approx.<f16|f16x2>`` (sm_75) or
    ``ex2.approx.ftz.<bf16|bf16x2>`` (sm_90; ``ftz=True`` is required: it is the only form).

    Args:
        d: destination register.
        a: source.
        ftz: flush subnormals to zero.
        ty: ``f32``, ``f16``, ``f16x2``, ``bf16`` or ``bf16x2``; default: from the registers.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-ex2
    """
    dst = dest("ex2", d)
    t = resolve_type("ex2", ty, (T.F32, T.F16, T.F16X2, T.BF16, T.BF16X2), dst, a)
    if t in (T.BF16, T.BF16X2) and not flag("ex2", "ftz", ftz):
        raise PtxDslError(f"ex2 on {t.ptx} exists only as ex2.approx.ftz{t.ptx}; pass ftz=True")
    rules = {T.F32: ("ftz",), T.F16: (), T.F16X2: (), T.BF16: ("ftz",), T.BF16X2: ("ftz",)}
    return _approx_only("ex2", dst, a, t, ftz, pred, rules)


def tanh(d: Reg, a: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Hyperbolic tangent (one instruction): ``tanh.approx.type d, a`` (sm_75).

    Args:
        d: destination register.
        a: source.
        ty: ``f32``, ``f16``, ``f16x2``, ``bf16`` or ``bf16x2`` (bf16: sm_90).
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-tanh
    """
    rules: dict[T, tuple[str, ...]] = {t: () for t in (T.F32, T.F16, T.F16X2, T.BF16, T.BF16X2)}
    return _approx_only("tanh", d, a, ty, False, pred, rules)


def copysign(d: Reg, a: object, b: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Copy the sign of ``a`` onto ``b`` (one instruction): ``copysign.<f32|f64> d, a, b``.

    Args:
        d: destination register.
        a: the value whose sign is taken.
        b: the value whose magnitude is taken.
        ty: ``f32`` or ``f64``; default: the first register operand's type.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-copysign
    """
    dst = dest("copysign", d)
    t = resolve_type("copysign", ty, (T.F32, T.F64), dst, a, b)
    emit_inst("copysign", [t.value], (dst, imm(a, t), imm(b, t)), pred)
    return dst


_TESTP = ("finite", "infinite", "number", "notanumber", "normal", "subnormal")


def testp(p: Reg, a: object, *, op: str, ty: TypeArg = None, pred: object = None) -> Reg:
    """Test a float's class into a predicate (one instruction): ``testp.op.<f32|f64> p, a``.

    Args:
        p: destination predicate register.
        a: the value tested.
        op: ``"finite"``, ``"infinite"``, ``"number"``, ``"notanumber"``, ``"normal"`` or
            ``"subnormal"``.
        ty: ``f32`` or ``f64``; default: the type of ``a``.
        pred: optional guard predicate.

    Returns:
        ``p``.

    Example:
        ``ptx.testp(bad, x, op="notanumber")`` emits ``testp.notanumber.f32 %p0, %f0;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-testp
    """
    dst = predicate("testp", "its destination", p)
    o = required("testp", "op", op, _TESTP)
    t = resolve_type("testp", ty, (T.F32, T.F64), a)
    emit_inst("testp", [str(o), t.value], (dst, imm(a, t)), pred)
    return dst
