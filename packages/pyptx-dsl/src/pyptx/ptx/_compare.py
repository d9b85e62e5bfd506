"""PTX instruction family: comparison and selection (``setp``, ``set``, ``selp``, ``slct``).

``ptx.setp(p, a, b, cmp="lt")`` writes a predicate; a ``(p, q)`` destination is PTX's
``p|q`` pair (``q`` gets the complement, or the upper half's result for ``f16x2``/``bf16x2``);
``bool_op="and"`` with ``c=`` combines the comparison with another predicate (``~c`` negates
it). The comparison operator uses PTX's spellings (``"lt"``, ``"ltu"``, ``"hs"``, ...).
"""

from __future__ import annotations

from ..dsl.errors import PtxDslError
from ..dsl.operands import NotPred, emit_inst
from ..dsl.regs import Reg
from ._arith_common import (
    T,
    TypeArg,
    check_takes,
    choice,
    dest,
    dest_pair,
    flag,
    imm,
    is_float,
    pair_operand,
    predicate,
    required,
    resolve_type,
)

__all__ = ["selp", "set", "setp", "slct"]

_INT_CMP = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs")
_FLOAT_CMP = (
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "equ",
    "neu",
    "ltu",
    "leu",
    "gtu",
    "geu",
    "num",
    "nan",
)
_BOOL = ("and", "or", "xor")
_SETP_TYPES = (
    T.B16,
    T.B32,
    T.B64,
    T.U16,
    T.U32,
    T.U64,
    T.S16,
    T.S32,
    T.S64,
    T.F32,
    T.F64,
    T.F16,
    T.F16X2,
    T.BF16,
    T.BF16X2,
)
_FTZ_TYPES = (T.F32, T.F16, T.F16X2)


def _cmp_mods(
    op: str, t: T, cmp: object, bool_op: object, c: object, ftz: object
) -> tuple[list[str], tuple[object, ...]]:
    """``[CmpOp, BoolOp?, ftz?]`` and the extra ``c`` operand, checked for type ``t``."""
    name = f"{op}.{t.value}"
    co = required(name, "cmp", cmp, _FLOAT_CMP if is_float(t) else _INT_CMP)
    bo = choice(name, "bool_op", bool_op, _BOOL)
    if (bo is None) != (c is None):
        raise PtxDslError(
            f"{op} combines with a predicate only as a pair: pass both bool_op= ('and', 'or', "
            "'xor') and c= (a predicate register or ~p), or neither"
        )
    extra: tuple[object, ...] = ()
    if c is not None:
        base = c.reg if isinstance(c, NotPred) else c
        predicate(op, "c=", base)
        extra = (c,)
    check_takes(name, {"ftz": ftz}, ("ftz",) if t in _FTZ_TYPES else ())
    mods = [co, *([bo] if bo else []), *(["ftz"] if flag(op, "ftz", ftz) else [])]
    return mods, extra


def setp(
    p: Reg | tuple[Reg, Reg],
    a: object,
    b: object,
    *,
    cmp: str,
    ty: TypeArg = None,
    bool_op: str | None = None,
    c: object = None,
    ftz: bool = False,
    pred: object = None,
) -> Reg | tuple[Reg, Reg]:
    """Compare ``a`` with ``b`` into a predicate (one instruction).

    Emits ``setp.CmpOp{.BoolOp}{.ftz}.type p[|q], a, b[, {!}c]``. Types: b16..b64,
    u16..u64, s16..s64, f32, f64, f16, f16x2, bf16 and bf16x2 (sm_90); the packed types need
    a ``(p, q)`` pair (``p`` for the upper half, ``q`` the lower).

    Args:
        p: destination predicate, or a ``(p, q)`` pair written ``p|q``.
        a: first operand.
        b: second operand.
        cmp: ``"eq"``, ``"ne"``, ``"lt"``, ``"le"``, ``"gt"``, ``"ge"``; unsigned
            ``"lo"``, ``"ls"``, ``"hi"``, ``"hs"``; floats also ``"equ"``, ``"neu"``,
            ``"ltu"``, ``"leu"``, ``"gtu"``, ``"geu"``, ``"num"``, ``"nan"``.
        ty: the operands' type; default: the type of the first register among ``a``, ``b``.
        bool_op: ``"and"``, ``"or"`` or ``"xor"``: combine the result with ``c``.
        c: the predicate (or ``~p``) combined by ``bool_op``.
        ftz: flush subnormal inputs to zero (f32, f16, f16x2).
        pred: optional guard predicate.

    Returns:
        ``p`` (or the pair).

    Example:
        ``ptx.setp(p, i, n, cmp="lt", bool_op="and", c=~done)`` emits
        ``setp.lt.and.u32 %p1, %r0, %r1, !%p0;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#comparison-and-selection-instructions-setp
    """
    first, second = dest_pair("setp", p, "q")
    d = predicate("setp", "its destination", first)
    t = resolve_type("setp", ty, _SETP_TYPES, a, b)
    if t in (T.F16X2, T.BF16X2) and second is None:
        raise PtxDslError(f"setp{t.ptx} writes two predicates: pass a (p, q) pair as destination")
    mods, extra = _cmp_mods("setp", t, cmp, bool_op, c, ftz)
    out = pair_operand(d, second) if second is not None else d
    emit_inst("setp", [*mods, t.value], (out, imm(a, t), imm(b, t), *extra), pred)
    return (d, second) if second is not None else d


_SET_D = (T.U32, T.S32, T.F32, T.U16, T.S16, T.F16, T.BF16, T.F16X2, T.BF16X2)
_SET_S = (*_SETP_TYPES,)


def set(
    d: Reg,
    a: object,
    b: object,
    *,
    cmp: str,
    dtype: TypeArg = None,
    stype: TypeArg = None,
    bool_op: str | None = None,
    c: object = None,
    ftz: bool = False,
    pred: object = None,
) -> Reg:
    """Compare ``a`` with ``b`` into a value (one instruction).

    Emits ``set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b[, {!}c]``: ``d`` is all ones (or
    1.0 for a float ``dtype``) where the comparison holds and 0 elsewhere. ``dtype`` is
    u32, s32 or f32 for the usual source types; f16/bf16 destinations and f16x2/bf16x2
    sources have their own forms (see the PTX ISA).

    Args:
        d: destination register.
        a: first operand.
        b: second operand.
        cmp: the comparison operator, spelled as for :func:`setp`.
        dtype: destination type; default: the type of ``d``.
        stype: operand type; default: the type of the first register among ``a``, ``b``.
        bool_op: ``"and"``, ``"or"`` or ``"xor"`` with ``c``.
        c: the predicate (or ``~p``) combined by ``bool_op``.
        ftz: flush subnormal inputs to zero.
        pred: optional guard predicate.

    Returns:
        ``d``.

    Example:
        ``ptx.set(m, x, 0.0, cmp="gt", dtype=f32)`` emits ``set.gt.f32.f32 %f1, %f0, 0f00000000;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#comparison-and-selection-instructions-set
    """
    dst = dest("set", d)
    dt = resolve_type("set", dtype, _SET_D, dst, kw="dtype")
    st = resolve_type("set", stype, _SET_S, a, b, kw="stype")
    mods, extra = _cmp_mods("set", st, cmp, bool_op, c, ftz)
    emit_inst("set", [*mods, dt.value, st.value], (dst, imm(a, st), imm(b, st), *extra), pred)
    return dst


_SELP_TYPES = (T.B16, T.B32, T.B64, T.U16, T.U32, T.U64, T.S16, T.S32, T.S64, T.F32, T.F64)


def selp(
    d: Reg, a: object, b: object, c: object, *, ty: TypeArg = None, pred: object = None
) -> Reg:
    """Select with a predicate, d = c ? a : b (one instruction).

    Emits ``selp.type d, a, b, c`` (b16..b64, u16..u64, s16..s64, f32, f64).

    Args:
        d: destination register.
        a: the value where ``c`` holds.
        b: the value where it does not.
        c: the predicate register (or ``~p``).
        ty: instruction type; default: the first register operand's type (bit types by
            width for other registers, e.g. ``b16`` for an ``f16`` register).
        pred: optional guard predicate.

    Returns:
        ``d``.

    Example:
        ``ptx.selp(x, 1.0, 0.0, p)`` emits ``selp.f32 %f0, 0f3F800000, 0f00000000, %p0;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#comparison-and-selection-instructions-selp
    """
    dst = dest("selp", d)
    predicate("selp", "c (the selector)", c.reg if isinstance(c, NotPred) else c)
    t = resolve_type("selp", ty, _SELP_TYPES, dst, a, b, by_width=True)
    emit_inst("selp", [t.value], (dst, imm(a, t), imm(b, t), c), pred)
    return dst


def slct(
    d: Reg,
    a: object,
    b: object,
    c: object,
    *,
    dtype: TypeArg = None,
    ctype: TypeArg = None,
    ftz: bool = False,
    pred: object = None,
) -> Reg:
    """Select on the sign of ``c``, d = (c >= 0) ? a : b (one instruction).

    Emits ``slct.dtype.s32 d, a, b, c`` or ``slct{.ftz}.dtype.f32 d, a, b, c``.

    Args:
        d: destination register.
        a: the value where ``c >= 0``.
        b: the value where ``c < 0``.
        c: the selector, ``s32`` or ``f32``.
        dtype: type of ``d``, ``a`` and ``b`` (b16..f64); default: the type of ``d``.
        ctype: ``s32`` or ``f32``; default: the type of ``c``.
        ftz: flush a subnormal ``c`` to zero (``f32`` selector only).
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#comparison-and-selection-instructions-slct
    """
    dst = dest("slct", d)
    dt = resolve_type("slct", dtype, _SELP_TYPES, dst, a, b, kw="dtype", by_width=True)
    ct = resolve_type("slct", ctype, (T.S32, T.F32), c, kw="ctype")
    check_takes(f"slct.{dt.value}.{ct.value}", {"ftz": ftz}, ("ftz",) if ct is T.F32 else ())
    mods = [*(["ftz"] if flag("slct", "ftz", ftz) else []), dt.value, ct.value]
    emit_inst("slct", mods, (dst, imm(a, dt), imm(b, dt), imm(c, ct)), pred)
    return dst


MULTI_INSTRUCTION: dict[str, str] = {}
"""This family has no multi-instruction helpers."""
