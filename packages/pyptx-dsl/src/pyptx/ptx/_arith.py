"""PTX instruction family: integer and floating-point arithmetic.

Every wrapper takes the destination first, like PTX, then the sources, and emits exactly one
instruction. The instruction type comes from ``ty=`` or, when left out, from the first
register operand whose type the instruction takes (``ptx.add(d, a, b)`` with ``d`` an
``f32`` register emits ``add.f32``). Modifiers are keywords with PTX spellings:
``rnd="rn"``, ``ftz=True``, ``sat=True``, ``mode="wide"``, ``cc=True``. Each wrapper returns
its destination register.

The float-only wrappers (``fma``, ``rcp``, ``sqrt``, ``sin``, ...) live in
:mod:`pyptx.ptx._arith_float` and are re-exported here.
"""

from __future__ import annotations

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg
from ._arith_common import (
    INT_TYPES,
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
    is_float,
    resolve_type,
)
from ._arith_float import (
    copysign,
    cos,
    ex2,
    fma,
    lg2,
    rcp,
    rsqrt,
    sin,
    sqrt,
    tanh,
    testp,
)
from ._arith_int import CARRY_TYPES, addc, int_mode, mad24, madc, mul24, rem, sad, subc

__all__: list[str] = [
    "abs",
    "add",
    "addc",
    "copysign",
    "cos",
    "div",
    "ex2",
    "fma",
    "lg2",
    "mad",
    "mad24",
    "madc",
    "max",
    "min",
    "mul",
    "mul24",
    "neg",
    "rcp",
    "rem",
    "rsqrt",
    "sad",
    "sin",
    "sqrt",
    "sub",
    "subc",
    "tanh",
    "testp",
]

_HALF = (T.F16, T.F16X2, T.BF16, T.BF16X2)

# add/sub/mul: what each float type takes ({.rnd}{.ftz}{.sat}).
_F_ARITH: dict[T, FloatRule] = {
    T.F32: FloatRule(RND, ("ftz", "sat")),
    T.F32X2: FloatRule(RND, ("ftz",)),
    T.F64: FloatRule(RND),
    T.F16: FloatRule(("rn",), ("ftz", "sat")),
    T.F16X2: FloatRule(("rn",), ("ftz", "sat")),
    T.BF16: FloatRule(("rn",)),
    T.BF16X2: FloatRule(("rn",)),
}
_MIXED_SRC = (T.F16, T.BF16)


def _sat_s32(op: str, t: T, sat: object) -> bool:
    if flag(op, "sat", sat) and t is not T.S32:
        raise PtxDslError(f"{op}.sat exists only for .s32, but the type is {t.ptx}")
    return bool(sat)


def _add_sub(
    op: str,
    d: object,
    a: object,
    b: object,
    ty: TypeArg,
    atype: TypeArg,
    rnd: object,
    ftz: object,
    sat: object,
    cc: object,
    pred: object,
) -> Reg:
    int_types = (*INT_TYPES, T.U16X2, T.S16X2) if op == "add" else INT_TYPES
    dst = dest(op, d)
    t = resolve_type(op, ty, (*int_types, *_F_ARITH), dst, a, b)
    if is_float(t):
        check_takes(f"{op}.{t.value}", {"cc": cc}, ())
        if atype is not None:
            src = resolve_type(op, atype, _MIXED_SRC, kw="atype")
            if t is not T.F32:
                raise PtxDslError(f"{op} with atype= accumulates into .f32, but ty is {t.ptx}")
            rule = FloatRule(RND, ("sat",))
            mods = [*float_mods(op, t, rule, rnd, {"ftz": ftz, "sat": sat}), t.value, src.value]
        else:
            mods = [*float_mods(op, t, _F_ARITH[t], rnd, {"ftz": ftz, "sat": sat}), t.value]
    else:
        check_takes(f"{op}.{t.value}", {"rnd": rnd, "ftz": ftz, "atype": atype}, ())
        if flag(op, "cc", cc):
            if t not in CARRY_TYPES or sat:
                raise PtxDslError(
                    f"{op}.cc takes {', '.join(x.ptx for x in CARRY_TYPES)} without sat=, "
                    f"but got {t.ptx}{' with sat=True' if sat else ''}"
                )
            mods = ["cc", t.value]
        else:
            mods = (["sat"] if _sat_s32(op, t, sat) else []) + [t.value]
    emit_inst(op, mods, (dst, imm(a, t), imm(b, t)), pred)
    return dst


def add(
    d: Reg,
    a: object,
    b: object,
    *,
    ty: TypeArg = None,
    atype: TypeArg = None,
    rnd: str | None = None,
    ftz: bool = False,
    sat: bool = False,
    cc: bool = False,
    pred: object = None,
) -> Reg:
    """Add, d = a + b (one instruction).

    Emits, by type: ``add{.sat}.s32`` / ``add.<int>`` (u16..s64, u16x2, s16x2);
    ``add.cc.<u32|s32|u64|s64>`` with ``cc=True`` (writes the carry flag);
    ``add{.rnd}{.ftz}{.sat}.f32``, ``add{.rnd}{.ftz}.f32x2`` (sm_100), ``add{.rnd}.f64``;
    ``add{.rn}{.ftz}{.sat}.<f16|f16x2>``, ``add{.rn}.<bf16|bf16x2>`` (sm_90); and the mixed
    ``add{.rnd}{.sat}.f32.<f16|bf16> d, a, c`` with ``atype=`` (``a`` is the narrow operand;
    sm_100).

    Args:
        d: destination register.
        a: first source.
        b: second source.
        ty: instruction type; default: the first register operand's type.
        atype: for the mixed-precision form, the type of ``a`` (``f16`` or ``bf16``).
        rnd: ``"rn"``, ``"rz"``, ``"rm"`` or ``"rp"`` (floats only; halves: ``"rn"``).
        ftz: flush subnormals to zero (``.ftz``).
        sat: saturate (``.sat``; ``s32`` and floats).
        cc: write the carry-out (``add.cc``), to start an ``addc`` chain.
        pred: optional guard predicate (``p`` or ``~p``).

    Returns:
        ``d``.

    Example:
        ``ptx.add(acc, acc, x, rnd="rn")`` emits ``add.rn.f32 %f0, %f0, %f1;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-add
    and https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-add
    """
    return _add_sub("add", d, a, b, ty, atype, rnd, ftz, sat, cc, pred)


def sub(
    d: Reg,
    a: object,
    b: object,
    *,
    ty: TypeArg = None,
    atype: TypeArg = None,
    rnd: str | None = None,
    ftz: bool = False,
    sat: bool = False,
    cc: bool = False,
    pred: object = None,
) -> Reg:
    """Subtract, d = a - b (one instruction).

    Emits the same forms as :func:`add` (``sub{.sat}.s32``, ``sub.cc.<type>``,
    ``sub{.rnd}{.ftz}{.sat}.f32``, ``sub{.rn}.bf16x2``, ``sub.f32.f16``, ...), except that
    there is no ``u16x2``/``s16x2`` integer form.

    Args:
        d: destination register.
        a: minuend.
        b: subtrahend.
        ty: instruction type; default: the first register operand's type.
        atype: mixed-precision type of ``a`` (``f16`` or ``bf16``) with ``ty=f32``.
        rnd: rounding modifier (floats only).
        ftz: flush subnormals to zero.
        sat: saturate.
        cc: write the borrow-out (``sub.cc``), to start a ``subc`` chain.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-sub
    and https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-sub
    """
    return _add_sub("sub", d, a, b, ty, atype, rnd, ftz, sat, cc, pred)


def mul(
    d: Reg,
    a: object,
    b: object,
    *,
    ty: TypeArg = None,
    mode: str | None = None,
    rnd: str | None = None,
    ftz: bool = False,
    sat: bool = False,
    pred: object = None,
) -> Reg:
    """Multiply, d = a * b (one instruction).

    Emits ``mul.<hi|lo|wide>.<u16..s64>`` for integers (with ``"wide"`` the destination is
    twice as wide and the type comes from ``a``/``b``), and for floats
    ``mul{.rnd}{.ftz}{.sat}.f32``, ``mul{.rnd}{.ftz}.f32x2`` (sm_100), ``mul{.rnd}.f64``,
    ``mul{.rn}{.ftz}{.sat}.<f16|f16x2>`` and ``mul{.rn}.<bf16|bf16x2>`` (sm_90).

    Args:
        d: destination register.
        a: first factor.
        b: second factor.
        ty: instruction type; default: the first register operand's type (``a``/``b`` first
            with ``mode="wide"``).
        mode: ``"hi"``, ``"lo"`` or ``"wide"``: which part of the product (integers only,
            required there).
        rnd: ``"rn"``, ``"rz"``, ``"rm"`` or ``"rp"`` (floats only).
        ftz: flush subnormals to zero.
        sat: clamp the result to [0, 1] (floats).
        pred: optional guard predicate.

    Returns:
        ``d``.

    Example:
        ``ptx.mul(off, tid, 4, mode="wide")`` emits ``mul.wide.u32 %rd0, %r0, 4;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-mul
    and https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-mul
    """
    dst = dest("mul", d)
    infer = (a, b) if mode == "wide" else (dst, a, b)
    t = resolve_type("mul", ty, (*INT_TYPES, *_F_ARITH), *infer)
    if is_float(t):
        check_takes(f"mul.{t.value}", {"mode": mode}, ())
        mods = [*float_mods("mul", t, _F_ARITH[t], rnd, {"ftz": ftz, "sat": sat}), t.value]
    else:
        check_takes(f"mul.{t.value}", {"rnd": rnd, "ftz": ftz, "sat": sat}, ())
        mods = [int_mode("mul", mode, ("hi", "lo", "wide")), t.value]
    emit_inst("mul", mods, (dst, imm(a, t), imm(b, t)), pred)
    return dst


def mad(
    d: Reg,
    a: object,
    b: object,
    c: object,
    *,
    ty: TypeArg = None,
    mode: str | None = None,
    rnd: str | None = None,
    ftz: bool = False,
    sat: bool = False,
    cc: bool = False,
    pred: object = None,
) -> Reg:
    """Multiply-add, d = a * b + c (one instruction).

    Emits ``mad.<hi|lo|wide>.<u16..s64>``, ``mad.hi.sat.s32``,
    ``mad.<hi|lo>.cc.<u32|s32|u64|s64>`` with ``cc=True``, ``mad.rnd{.ftz}{.sat}.f32`` and
    ``mad.rnd.f64`` (floats need ``rnd=``: float ``mad`` is a fused multiply-add).

    Args:
        d: destination register.
        a: first factor.
        b: second factor.
        c: addend.
        ty: instruction type; default: the first register operand's type.
        mode: ``"hi"``, ``"lo"`` or ``"wide"`` (integers only, required there).
        rnd: ``"rn"``, ``"rz"``, ``"rm"`` or ``"rp"`` (floats only, required there).
        ftz: flush subnormals to zero (f32).
        sat: saturate (``mad.hi.sat.s32``, or clamp an f32 result to [0, 1]).
        cc: write the carry-out (``mad.hi.cc`` / ``mad.lo.cc``) for a ``madc`` chain.
        pred: optional guard predicate.

    Returns:
        ``d``.

    Example:
        ``ptx.mad(i, row, 64, col, mode="lo")`` emits ``mad.lo.u32 %r3, %r1, 64, %r2;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-mad
    and https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-mad
    """
    dst = dest("mad", d)
    infer = (a, b) if mode == "wide" else (dst, a, b, c)
    t = resolve_type("mad", ty, (*INT_TYPES, T.F32, T.F64), *infer)
    if is_float(t):
        check_takes(f"mad.{t.value}", {"mode": mode, "cc": cc}, ())
        rule = FloatRule(RND, ("ftz", "sat") if t is T.F32 else (), rnd_required=True)
        mods = [*float_mods("mad", t, rule, rnd, {"ftz": ftz, "sat": sat}), t.value]
    else:
        check_takes(f"mad.{t.value}", {"rnd": rnd, "ftz": ftz}, ())
        m = int_mode("mad", mode, ("hi", "lo", "wide"))
        if flag("mad", "cc", cc):
            if m == "wide" or t not in CARRY_TYPES or sat:
                raise PtxDslError(
                    "mad.cc takes mode='hi' or 'lo' and ty= u32, s32, u64 or s64 without "
                    f"sat=, but got mode={m!r}, {t.ptx}"
                )
            mods = [m, "cc", t.value]
        elif flag("mad", "sat", sat):
            if m != "hi" or t is not T.S32:
                raise PtxDslError(f"mad.sat exists only as mad.hi.sat.s32, got mad.{m}.{t.value}")
            mods = [m, "sat", t.value]
        else:
            mods = [m, t.value]
    emit_inst("mad", mods, (dst, imm(a, t), imm(b, t), imm(c, t)), pred)
    return dst


def div(
    d: Reg,
    a: object,
    b: object,
    *,
    ty: TypeArg = None,
    rnd: str | None = None,
    approx: bool = False,
    full: bool = False,
    ftz: bool = False,
    pred: object = None,
) -> Reg:
    """Divide, d = a / b (one instruction).

    Emits ``div.<u16..s64>`` for integers; for ``f32`` exactly one of
    ``div.approx{.ftz}.f32``, ``div.full{.ftz}.f32`` or ``div.rnd{.ftz}.f32``; for ``f64``
    ``div.rnd.f64``.

    Args:
        d: destination register.
        a: dividend.
        b: divisor.
        ty: instruction type; default: the first register operand's type.
        rnd: ``"rn"``, ``"rz"``, ``"rm"`` or ``"rp"`` (IEEE rounding, floats).
        approx: the fast approximation ``div.approx.f32``.
        full: the full-range approximation ``div.full.f32``.
        ftz: flush subnormals to zero (f32).
        pred: optional guard predicate.

    Returns:
        ``d``.

    Example:
        ``ptx.div(q, x, y, approx=True)`` emits ``div.approx.f32 %f2, %f0, %f1;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-div
    and https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-div
    """
    dst = dest("div", d)
    t = resolve_type("div", ty, (*INT_TYPES, T.F32, T.F64), dst, a, b)
    if not is_float(t):
        given: dict[str, object] = {"rnd": rnd, "approx": approx, "full": full, "ftz": ftz}
        check_takes(f"div.{t.value}", given, ())
        mods = [t.value]
    else:
        kinds = [k for k, v in (("approx", approx), ("full", full)) if flag("div", k, v)]
        if rnd is not None:
            kinds.append("rnd")
        if t is T.F64:
            check_takes("div.f64", {"approx": approx, "full": full, "ftz": ftz}, ("rnd",))
        if len(kinds) != 1:
            raise PtxDslError(
                f"div.{t.value} needs exactly one of rnd=, approx=True or full=True "
                f"(f64: rnd= only), but got {len(kinds)}"
            )
        r = choice("div", "rnd", rnd, RND)
        mods = [r or kinds[0], *(["ftz"] if flag("div", "ftz", ftz) else []), t.value]
    emit_inst("div", mods, (dst, imm(a, t), imm(b, t)), pred)
    return dst


_SIGNED = (T.S16, T.S32, T.S64)
_F_UNARY = {
    T.F32: ("ftz",),
    T.F64: (),
    T.F16: ("ftz",),
    T.F16X2: ("ftz",),
    T.BF16: (),
    T.BF16X2: (),
}


def _unary(op: str, d: object, a: object, ty: TypeArg, ftz: object, pred: object) -> Reg:
    dst = dest(op, d)
    t = resolve_type(op, ty, (*_SIGNED, *_F_UNARY), dst, a)
    rule = FloatRule((), _F_UNARY.get(t, ()))
    mods = [*float_mods(op, t, rule, None, {"ftz": ftz}), t.value]
    emit_inst(op, mods, (dst, imm(a, t)), pred)
    return dst


def abs(d: Reg, a: object, *, ty: TypeArg = None, ftz: bool = False, pred: object = None) -> Reg:
    """Absolute value, d = |a| (one instruction).

    Emits ``abs.<s16|s32|s64>``, ``abs{.ftz}.f32``, ``abs.f64``, ``abs{.ftz}.<f16|f16x2>``
    or ``abs.<bf16|bf16x2>`` (sm_80).

    Args:
        d: destination register.
        a: source.
        ty: instruction type; default: the first register operand's type.
        ftz: flush subnormals to zero (f32, f16, f16x2).
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-abs
    and https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-abs
    """
    return _unary("abs", d, a, ty, ftz, pred)


def neg(d: Reg, a: object, *, ty: TypeArg = None, ftz: bool = False, pred: object = None) -> Reg:
    """Negate, d = -a (one instruction).

    Emits ``neg.<s16|s32|s64>``, ``neg{.ftz}.f32``, ``neg.f64``, ``neg{.ftz}.<f16|f16x2>``
    or ``neg.<bf16|bf16x2>``.

    Args:
        d: destination register.
        a: source.
        ty: instruction type; default: the first register operand's type.
        ftz: flush subnormals to zero (f32, f16, f16x2).
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-neg
    and https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-neg
    """
    return _unary("neg", d, a, ty, ftz, pred)


_MINMAX_INT = (T.U16, T.U32, T.U64, T.U16X2, T.S16, T.S32, T.S64, T.S16X2)
_MINMAX_F = {
    T.F32: ("ftz", "nan", "xorsign_abs"),
    T.F64: (),
    T.F16: ("ftz", "nan", "xorsign_abs"),
    T.F16X2: ("ftz", "nan", "xorsign_abs"),
    T.BF16: ("nan", "xorsign_abs"),
    T.BF16X2: ("nan", "xorsign_abs"),
}


def _minmax(
    op: str,
    d: object,
    a: object,
    b: object,
    c: object,
    ty: TypeArg,
    flags: dict[str, object],
    pred: object,
) -> Reg:
    dst = dest(op, d)
    t = resolve_type(op, ty, (*_MINMAX_INT, *_MINMAX_F), dst, a, b)
    relu = flags.pop("relu")
    srcs = (a, b) if c is None else (a, b, c)
    if is_float(t):
        check_takes(f"{op}.{t.value}", {"relu": relu}, ())
        if c is not None:
            if t is not T.F32:
                raise PtxDslError(f"three-input {op} exists only for .f32, but the type is {t.ptx}")
            rule = FloatRule((), ("ftz", "nan", "abs"))
        else:
            rule = FloatRule((), _MINMAX_F[t])
        mods = [*float_mods(op, t, rule, None, flags), t.value]
    else:
        check_takes(f"{op}.{t.value}", flags, ())
        if c is not None:
            raise PtxDslError(f"three-input {op} exists only for .f32, but the type is {t.ptx}")
        if flag(op, "relu", relu) and t not in (T.S32, T.S16X2):
            raise PtxDslError(f"{op}.relu exists only for .s32 and .s16x2, but the type is {t.ptx}")
        mods = [*(["relu"] if relu else []), t.value]
    emit_inst(op, mods, (dst, *(imm(s, t) for s in srcs)), pred)
    return dst


def min(
    d: Reg,
    a: object,
    b: object,
    c: object = None,
    *,
    ty: TypeArg = None,
    relu: bool = False,
    ftz: bool = False,
    nan: bool = False,
    xorsign_abs: bool = False,
    abs: bool = False,
    pred: object = None,
) -> Reg:
    """Minimum of two values, or of three with ``c`` (one instruction).

    Emits ``min.<u16|u32|u64|u16x2|s16|s64>``, ``min{.relu}.<s32|s16x2>``,
    ``min{.ftz}{.NaN}{.xorsign.abs}.<f32|f16|f16x2>``, ``min{.NaN}{.xorsign.abs}.<bf16|bf16x2>``
    (sm_80; ``.xorsign.abs`` sm_86), ``min.f64`` and the three-input
    ``min{.ftz}{.NaN}{.abs}.f32 d, a, b, c`` (sm_100).

    Args:
        d: destination register.
        a: first operand.
        b: second operand.
        c: optional third operand (three-input ``f32`` form).
        ty: instruction type; default: the first register operand's type.
        relu: clamp negative results to 0 (``.relu``; s32, s16x2).
        ftz: flush subnormals to zero.
        nan: return NaN if an input is NaN (``.NaN``).
        xorsign_abs: ``.xorsign.abs``: compare magnitudes, sign = xor of the input signs.
        abs: ``.abs`` on the three-input form: compare magnitudes.
        pred: optional guard predicate.

    Returns:
        ``d``.

    Example:
        ``ptx.min(m, x, y, z, nan=True)`` emits ``min.NaN.f32 %f3, %f0, %f1, %f2;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-min
    and https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-min
    """
    flags: dict[str, object] = {
        "relu": relu,
        "ftz": ftz,
        "nan": nan,
        "xorsign_abs": xorsign_abs,
        "abs": abs,
    }
    return _minmax("min", d, a, b, c, ty, flags, pred)


def max(
    d: Reg,
    a: object,
    b: object,
    c: object = None,
    *,
    ty: TypeArg = None,
    relu: bool = False,
    ftz: bool = False,
    nan: bool = False,
    xorsign_abs: bool = False,
    abs: bool = False,
    pred: object = None,
) -> Reg:
    """Maximum of two values, or of three with ``c`` (one instruction).

    The same forms as :func:`min`: ``max{.relu}.s32``, ``max{.ftz}{.NaN}{.xorsign.abs}.f32``,
    ``max.bf16x2``, the three-input ``max{.ftz}{.NaN}{.abs}.f32`` (sm_100), ...

    Args:
        d: destination register.
        a: first operand.
        b: second operand.
        c: optional third operand (three-input ``f32`` form).
        ty: instruction type; default: the first register operand's type.
        relu: clamp negative results to 0 (``.relu``; s32, s16x2).
        ftz: flush subnormals to zero.
        nan: return NaN if an input is NaN (``.NaN``).
        xorsign_abs: ``.xorsign.abs``: compare magnitudes, sign = xor of the input signs.
        abs: ``.abs`` on the three-input form: compare magnitudes.
        pred: optional guard predicate.

    Returns:
        ``d``.

    Example:
        ``ptx.max(r, x, 0, relu=True)`` emits ``max.relu.s32 %r1, %r0, 0;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-max
    and https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-max
    """
    flags: dict[str, object] = {
        "relu": relu,
        "ftz": ftz,
        "nan": nan,
        "xorsign_abs": xorsign_abs,
        "abs": abs,
    }
    return _minmax("max", d, a, b, c, ty, flags, pred)


MULTI_INSTRUCTION: dict[str, str] = {}
"""This family has no multi-instruction helpers."""
