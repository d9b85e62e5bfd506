"""Turning Python values into PTX operands, and emitting one instruction from them."""

from __future__ import annotations

import struct
from collections.abc import Sequence

from pyptx.ir import (
    Address,
    Expr,
    Immediate,
    Instruction,
    LabelRef,
    Negated,
    Node,
    Operand,
    Predicate,
    PtxType,
    Register,
    Sink,
    Symbol,
    TypeKind,
    VectorOperand,
)

from ._trace import current
from .errors import PtxDslError
from .values import Addr, NotPred

__all__ = ["Addr", "NotPred", "addr", "emit_inst", "float_immediate", "to_operand"]


def _register(value: object) -> Operand | None:
    """The IR operand of a register-like value (``Reg``, ``SpecialReg``), else ``None``."""
    convert = getattr(value, "ptx_operand", None)
    return convert() if callable(convert) else None


def _register_type(value: object) -> PtxType | None:
    """The logical type of a register-like value, else ``None``."""
    ty = getattr(value, "type", None)
    return ty if isinstance(ty, PtxType) and _register(value) is not None else None


def float_immediate(value: float, ty: PtxType | None) -> Immediate:
    """Spell a Python float as PTX hex bits: ``0f`` for f32 (and narrower), ``0d`` for f64."""
    if ty is not None and ty.kind is TypeKind.FLOAT and ty.bits <= 32:
        return Immediate("0f" + struct.pack(">f", value).hex().upper())
    return Immediate("0d" + struct.pack(">d", value).hex().upper())


def _base(value: object) -> Expr:
    register = _register(value)
    if isinstance(register, Register):
        return register
    name = getattr(value, "symbol", None)
    if isinstance(name, str):
        return Symbol(name)
    if isinstance(value, int) and not isinstance(value, bool):
        return Immediate(str(value))
    if isinstance(value, (Register, Symbol, Immediate)):
        return value
    raise PtxDslError(
        f"an address base must be a register, a shared/param symbol or an integer, "
        f"got {type(value).__name__}"
    )


def addr(base: object, offset: int = 0) -> Addr:
    """The address ``[base+offset]`` for ld/st/cp.async and friends.

    Args:
        base: a register (``Reg``), a shared allocation / parameter with a ``symbol``, or an int.
        offset: a constant byte offset (may be negative).
    """
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise PtxDslError(
            f"an address offset must be an int (a register offset needs an add first), "
            f"got {type(offset).__name__}"
        )
    node = Address(_base(base), Immediate(str(offset)) if offset else None)
    return Addr(node)


def to_operand(value: object, ty: PtxType | None = None) -> Operand:
    """Convert a Python value to an IR operand.

    Args:
        value: a register, ``~pred``, int, float, address, vector (tuple, list or
            ``reg.array``), a shared-memory or other symbol, label, ``None``
            (the sink ``_``), or an IR operand node.
        ty: the instruction type, used to spell float immediates.

    Raises:
        PtxDslError: the value cannot be an operand; the message says what can.
    """
    register = _register(value)
    if register is not None:
        return register
    if isinstance(value, bool):
        raise PtxDslError("a bool is not a PTX operand; use 1/0 or a predicate register")
    if isinstance(value, int):
        return Immediate(str(value))
    if isinstance(value, float):
        return float_immediate(value, ty)
    if isinstance(value, Addr):
        return value.node
    if isinstance(value, NotPred):
        return Negated(to_operand(value.reg))
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        # tuple, list, or reg.array(...): a vector operand {a, b, ...}
        return VectorOperand(tuple(to_operand(v, ty) for v in value))
    if value is None:
        return Sink()
    if isinstance(value, Node):
        return value  # type: ignore[return-value]
    sym = getattr(value, "symbol", None)
    if isinstance(sym, str):
        return Symbol(sym)
    if isinstance(value, str):
        raise PtxDslError(
            f"the string {value!r} is not an operand; pass a register, a number, "
            "ptx.addr(...), a label from ptx.label()/ptx.new_label(), or use ptx.raw(...)"
        )
    raise PtxDslError(f"a {type(value).__name__} is not a PTX operand")


def _guard(pred: object) -> Predicate | None:
    if pred is None:
        return None
    if isinstance(pred, NotPred) and isinstance(_register(pred.reg), Register):
        return Predicate(_register(pred.reg), negated=True)  # type: ignore[arg-type]
    if isinstance(pred, Register):
        return Predicate(pred)
    if isinstance(pred, Negated) and isinstance(pred.operand, Register):
        return Predicate(pred.operand, negated=True)
    if isinstance(pred, NotPred) and isinstance(pred.reg, Register):
        return Predicate(pred.reg, negated=True)
    register = _register(pred)
    if isinstance(register, Register):
        ty = _register_type(pred)
        if ty is not PtxType.PRED:
            got = ty.ptx if ty is not None else "unknown"
            raise PtxDslError(
                f"a guard must be a predicate register, got {register.name} of type {got}"
            )
        return Predicate(register)
    raise PtxDslError(f"pred= takes a predicate register or ~register, got {type(pred).__name__}")


def last_type(modifiers: Sequence[str]) -> PtxType | None:
    """The last modifier that names a PTX type (the instruction type), if any."""
    for m in reversed(modifiers):
        t = PtxType.from_name(m)
        if t is not None:
            return t
    return None


def emit_inst(
    opcode: str,
    modifiers: Sequence[str],
    operands: Sequence[object],
    pred: object = None,
) -> Instruction:
    """Emit one instruction into the current trace and return it.

    Args:
        opcode: the first component of the mnemonic (``"ld"``).
        modifiers: the rest, without dots (``("global", "u32")``).
        operands: Python values converted with :func:`to_operand`.
        pred: an optional guard (a predicate register or ``~register``).
    """
    trace = current()
    modifiers = tuple(modifiers)
    ty = _last_type_of(modifiers)
    ops: list[Operand] = []
    for o in operands:
        if type(o) is int:  # the commonest operands after registers: skip the dispatch
            ops.append(Immediate(str(o)))
        elif isinstance(o, LabelRef):
            ops.append(trace.use_label(o.name))
        else:
            ops.append(to_operand(o, ty))
    insn = Instruction(opcode, modifiers, tuple(ops), _guard(pred))
    return trace.emit(insn)


_LAST_TYPES: dict[tuple[str, ...], PtxType | None] = {}
""":func:`last_type` of each modifier tuple seen (a program uses a few hundred at most)."""


def _last_type_of(modifiers: tuple[str, ...]) -> PtxType | None:
    try:
        return _LAST_TYPES[modifiers]
    except KeyError:
        found = _LAST_TYPES[modifiers] = last_type(modifiers)
        return found
