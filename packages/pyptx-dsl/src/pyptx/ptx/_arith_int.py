"""Integer-only arithmetic wrappers (re-exported by :mod:`pyptx.ptx._arith`).

The extended-precision carry chain (``addc``, ``subc``, ``madc``; start it with
``ptx.add(..., cc=True)``), the 24-bit multiplies, ``sad`` and ``rem``: one instruction each.
"""

from __future__ import annotations

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg
from ._arith_common import INT_TYPES, T, TypeArg, choice, dest, flag, resolve_type

__all__ = ["CARRY_TYPES", "addc", "int_mode", "mad24", "madc", "mul24", "rem", "sad", "subc"]

CARRY_TYPES = (T.U32, T.S32, T.U64, T.S64)
"""The types of the carry-chain instructions."""


def _carry(
    op: str,
    d: object,
    srcs: tuple[object, ...],
    ty: TypeArg,
    cc: object,
    mode: str | None,
    pred: object,
) -> Reg:
    dst = dest(op, d)
    t = resolve_type(op, ty, CARRY_TYPES, dst, *srcs)
    mods = ([mode] if mode else []) + (["cc"] if flag(op, "cc", cc) else []) + [t.value]
    emit_inst(op, mods, (dst, *srcs), pred)
    return dst


def addc(
    d: Reg, a: object, b: object, *, ty: TypeArg = None, cc: bool = False, pred: object = None
) -> Reg:
    """Add with carry-in, d = a + b + CC.CF (one instruction): ``addc{.cc}.type d, a, b``.

    Args:
        d: destination register.
        a: first source.
        b: second source.
        ty: ``u32``, ``s32``, ``u64`` or ``s64``; default: the first register's type.
        cc: also write the carry-out, to continue the chain.
        pred: optional guard predicate.

    Returns:
        ``d``.

    Example:
        ``ptx.add(lo, a0, b0, cc=True)`` then ``ptx.addc(hi, a1, b1)`` emit
        ``add.cc.u32`` and ``addc.u32``: a 64-bit add from 32-bit halves.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#extended-precision-arithmetic-instructions-addc
    """
    return _carry("addc", d, (a, b), ty, cc, None, pred)


def subc(
    d: Reg, a: object, b: object, *, ty: TypeArg = None, cc: bool = False, pred: object = None
) -> Reg:
    """Subtract with borrow-in, d = a - (b + CC.CF) (one instruction): ``subc{.cc}.type``.

    Args:
        d: destination register.
        a: minuend.
        b: subtrahend.
        ty: ``u32``, ``s32``, ``u64`` or ``s64``; default: the first register's type.
        cc: also write the borrow-out.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#extended-precision-arithmetic-instructions-subc
    """
    return _carry("subc", d, (a, b), ty, cc, None, pred)


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

    Args:
        d: destination register.
        a: first factor.
        b: second factor.
        c: addend.
        mode: ``"hi"`` or ``"lo"`` half of the product (required).
        ty: ``u32``, ``s32``, ``u64`` or ``s64``; default: the first register's type.
        cc: also write the carry-out.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#extended-precision-arithmetic-instructions-madc
    """
    m = choice("madc", "mode", mode, ("hi", "lo"))
    if m is None:
        raise PtxDslError("madc needs mode='hi' or mode='lo' (the half of the product to add)")
    return _carry("madc", d, (a, b, c), ty, cc, m, pred)


def int_mode(op: str, mode: object, allowed: tuple[str, ...]) -> str:
    """Check an integer ``mode=`` (``"hi"``/``"lo"``/``"wide"``) that must be given."""
    m = choice(op, "mode", mode, allowed)
    if m is None:
        listed = " or ".join(repr(x) for x in allowed)
        raise PtxDslError(f"integer {op} needs mode= {listed} (which part of the product to keep)")
    return m


def mul24(
    d: Reg,
    a: object,
    b: object,
    *,
    mode: str | None = None,
    ty: TypeArg = None,
    pred: object = None,
) -> Reg:
    """24-bit multiply (one instruction): ``mul24.<hi|lo>.<u32|s32> d, a, b``.

    Args:
        d: destination register.
        a: first factor (low 24 bits used).
        b: second factor (low 24 bits used).
        mode: ``"hi"`` or ``"lo"`` 32 bits of the 48-bit product (required).
        ty: ``u32`` or ``s32``; default: the first register operand's type.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-mul24
    """
    dst = dest("mul24", d)
    t = resolve_type("mul24", ty, (T.U32, T.S32), dst, a, b)
    emit_inst("mul24", [int_mode("mul24", mode, ("hi", "lo")), t.value], (dst, a, b), pred)
    return dst


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
    """24-bit multiply-add (one instruction): ``mad24.<hi|lo>.<u32|s32> d, a, b, c``.

    Args:
        d: destination register.
        a: first factor (low 24 bits used).
        b: second factor (low 24 bits used).
        c: addend.
        mode: ``"hi"`` or ``"lo"`` (required).
        ty: ``u32`` or ``s32``; default: the first register operand's type.
        sat: saturate (only ``mad24.hi.sat.s32``).
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-mad24
    """
    dst = dest("mad24", d)
    t = resolve_type("mad24", ty, (T.U32, T.S32), dst, a, b, c)
    m = int_mode("mad24", mode, ("hi", "lo"))
    if flag("mad24", "sat", sat) and (m != "hi" or t is not T.S32):
        raise PtxDslError(f"mad24.sat exists only as mad24.hi.sat.s32, got mad24.{m}.{t.value}")
    emit_inst("mad24", [m, *(["sat"] if sat else []), t.value], (dst, a, b, c), pred)
    return dst


def sad(d: Reg, a: object, b: object, c: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Sum of absolute difference, d = c + |a - b| (one instruction): ``sad.type d, a, b, c``.

    Args:
        d: destination register.
        a: first operand.
        b: second operand.
        c: accumulator.
        ty: u16..u64 or s16..s64; default: the first register operand's type.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-sad
    """
    dst = dest("sad", d)
    t = resolve_type("sad", ty, INT_TYPES, dst, a, b, c)
    emit_inst("sad", [t.value], (dst, a, b, c), pred)
    return dst


def rem(d: Reg, a: object, b: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Integer remainder, d = a % b (one instruction): ``rem.type d, a, b``.

    Args:
        d: destination register.
        a: dividend.
        b: divisor.
        ty: u16..u64 or s16..s64; default: the first register operand's type.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-rem
    """
    dst = dest("rem", d)
    t = resolve_type("rem", ty, INT_TYPES, dst, a, b)
    emit_inst("rem", [t.value], (dst, a, b), pred)
    return dst
