"""Operand translation shared by the synchronization and asynchronous-copy families.

Private to :mod:`pyptx.ptx`: the barrier, fence, ``cp.async``, bulk-copy, mbarrier and cluster
wrappers take the same kinds of operands (shared-memory and global addresses, mbarrier
references, tensor-map descriptors, integers, predicates) and turn them into PTX operands the
same way. The errors raised here are the ones only Python has (a float, a string or a
floating-point register where an integer goes; a shared allocation where a global address
goes); operand widths, immediate ranges and cache-policy registers are the ISA table's to
judge. Nothing here emits an instruction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from pyptx.ir import (
    Address,
    BinaryExpr,
    Expr,
    Immediate,
    PtxType,
    Register,
    Symbol,
    TypeKind,
    VectorOperand,
)

from ..dsl.errors import PtxDslError
from ..dsl.operands import Addr, NotPred, addr, to_operand
from ..dsl.regs import Reg, _new
from ..dsl.shared import MbarrierArray, MbarrierRef, SharedAlloc, SharedSlice

__all__ = [
    "address", "choice", "dest", "flag", "flags", "integer", "mask32", "pick", "predicate",
    "shared_value", "spell", "tensor_address", "vector16", "words",
]  # fmt: skip

_S = TypeVar("_S")
_INTS = (TypeKind.BITS, TypeKind.UNSIGNED, TypeKind.SIGNED)


def spell(value: object) -> str:
    """How a user's value reads in a message: ``'x'``, ``16``, ``%r0 of type .u32``, ``u32``."""
    if isinstance(value, PtxType):
        return value.value
    if isinstance(value, Reg):
        return f"{value.name} of type {value.type.ptx}"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return repr(value) if isinstance(value, str) else f"{value!r} ({type(value).__name__})"


def choice(what: str, value: object, allowed: Sequence[_S | None]) -> _S | None:
    """Check a keyword against the spellings it may take (``None`` among them: may be left out)."""
    for a in allowed:
        if value == a and (a is not None or value is None):
            return a
    names = ", ".join(spell(a) for a in allowed if a is not None)
    optional = " (or None)" if None in allowed else ""
    raise PtxDslError(f"{what} must be one of {names}{optional}, but got {spell(value)}")


def pick(what: str, value: object, allowed: Sequence[_S]) -> _S:
    """Like :func:`choice` for a keyword that may not be left out."""
    got = choice(what, value, allowed)
    assert got is not None
    return got


def flag(what: str, value: object) -> bool:
    """Check a boolean keyword (``aligned=True``); raise PtxDslError for anything else."""
    if not isinstance(value, bool):
        raise PtxDslError(f"{what} takes True or False, but got {spell(value)}")
    return value


def flags(what: str, **given: object) -> list[str]:
    """The modifiers whose boolean keyword is true, in keyword order (each checked by flag)."""
    return [name for name, value in given.items() if flag(f"{what} {name}=", value)]


def words(*values: object) -> list[str]:
    """Modifier keywords as PTX spellings, ``None`` left out; the ISA table judges them."""
    return [str(v) for v in values if v is not None]


def dest(dst: Reg | None, ty: PtxType) -> Reg:
    """``dst`` when the user passed one (the table checks it fits), else a fresh ``ty`` one."""
    return _new(ty) if dst is None else dst


def _int_reg(value: object) -> bool:
    return isinstance(value, Reg) and value.type.kind in _INTS


def integer(
    what: str,
    value: object,
    *,
    reg: bool = True,
    low: int | None = None,
    high: int | None = None,
    bits: int | None = None,
) -> object:
    """A Python int or (with ``reg``) an integer register, returned unchanged; else PtxDslError.

    The ISA table checks widths and immediate ranges; ``low``/``high`` (inclusive) and
    ``bits`` are for the few rules it cannot state (a bound set by another operand, the
    coordinates inside a tensor address).
    """
    if isinstance(value, int) and not isinstance(value, bool):
        if (low is not None and value < low) or (high is not None and value > high):
            lo, hi = ("" if b is None else str(b) for b in (low, high))
            raise PtxDslError(f"{what} must be in [{lo}, {hi}], but got {value}")
        return value
    if reg and isinstance(value, Reg) and _int_reg(value) and bits in (None, value.type.bits):
        return value
    width = f"a {bits}-bit integer" if bits else "an integer"
    wanted = f"a Python int or {width} register" if reg else "a Python int"
    raise PtxDslError(f"{what} must be {wanted}, but got {spell(value)}")


def mask32(what: str, value: object) -> object:
    """A 32-bit lane mask: an int in [0, 2^32) spelled in hex (``0xffffffff``), or a register."""
    m = integer(what, value, low=0, high=0xFFFFFFFF)
    return Immediate(f"0x{m:08x}") if isinstance(m, int) else m


def predicate(what: str, value: object) -> object:
    """A ``pred`` register or its negation ``~p`` (where the keyword alone says it is one)."""
    if (isinstance(value, Reg) and value.type is PtxType.PRED) or (
        isinstance(value, NotPred) and isinstance(value.reg, Reg)
    ):
        return value
    raise PtxDslError(
        f"{what} must be a predicate register or its negation ~p, but got {spell(value)}"
    )


def address(what: str, value: object, *, space: str = "shared") -> Addr:
    """The address operand ``[...]`` of ``value`` (``what`` names it in messages).

    ``space`` (``"shared..."``, ``"global"`` or ``"generic"``) decides what is accepted:
    ``ptx.addr(...)`` always; shared allocations, stages (``sA[0]``), mbarrier arrays and
    references (``bars[i]``) except for global; registers of 32 or 64 bits for shared
    memory, of 64 bits otherwise. Raises PtxDslError for anything else, naming the fix.
    """
    if isinstance(value, Addr):
        return value
    shared = space.startswith("shared")
    if isinstance(value, (SharedSlice, MbarrierRef, SharedAlloc, MbarrierArray)):
        if shared or space == "generic":
            return addr(value) if isinstance(value, MbarrierArray) else value.addr()
    elif isinstance(value, Reg):
        if _int_reg(value) and value.type.bits in ((32, 64) if shared else (64,)):
            return addr(value)
        need = "a 32- or 64-bit" if shared else "a 64-bit"
        raise PtxDslError(f"{what} must be {need} address register, but got {spell(value)}")
    if hasattr(value, "tma_desc") and hasattr(value, "ptr"):
        fix = ".ptr()" if not shared else "a shared allocation"
        raise PtxDslError(
            f"{what} must be a {space} address, but got the tensor argument "
            f"{getattr(value, 'symbol', '?')}; pass {fix} instead"
        )
    kinds = (
        "a shared allocation, a stage (sA[i]), an mbarrier (bars[i]), ptx.addr(...) or an "
        "address register"
        if shared or space == "generic"
        else "a 64-bit address register (for a tensor argument, its .ptr()) or ptx.addr(...)"
    )
    raise PtxDslError(f"{what} must be {kinds}, but got {spell(value)}")


def shared_value(what: str, value: object) -> object:
    """A shared address as a plain operand (``mapa``, ``getctarank``): ``symbol{+offset}``.

    Allocations, stages and mbarrier references become symbols; a floating-point or predicate
    register is an error; anything else (an integer register) is left to the ISA table.
    """
    if isinstance(value, Reg) and not _int_reg(value):
        raise PtxDslError(f"{what} must be an integer address register, but got {spell(value)}")
    sym, offset = None, 0
    if isinstance(value, (SharedAlloc, MbarrierArray)):
        sym = value.symbol
    elif isinstance(value, SharedSlice):
        sym, offset = value.name, value.offset
    elif isinstance(value, MbarrierRef):
        sym, offset = value.name, value.byte_offset
    if sym is None:
        return value
    base: Expr = Symbol(sym)
    return BinaryExpr("+", base, Immediate(str(offset))) if offset else base


def vector16(what: str, values: object, count: int | tuple[int, ...]) -> VectorOperand:
    """``{a, b, ...}``: a tuple of ``count`` (one of them) ints or integer registers."""
    counts = (count,) if isinstance(count, int) else count
    if not isinstance(values, (tuple, list)) or len(values) not in counts:
        n = " or ".join(str(c) for c in counts)
        raise PtxDslError(f"{what} must be a tuple of {n} values, but got {spell(values)}")
    return VectorOperand(
        tuple(to_operand(integer(f"{what}[{i}]", v)) for i, v in enumerate(values))
    )


def tensor_address(what: str, desc: object, coords: object) -> Address:
    """``[tensorMap, {c0, c1, ...}]``: the descriptor register and its coordinates.

    ``desc`` is the register holding the descriptor's address (``A.tma_desc()``; the table
    checks its width and the coordinate count); ``coords`` are ints or 32-bit registers.
    """
    if hasattr(desc, "tma_desc") and not isinstance(desc, Reg):
        raise PtxDslError(
            f"{what} takes the tensor map as a 64-bit register, but got the tensor argument "
            f"{getattr(desc, 'symbol', 'the tensor')}; pass its .tma_desc() instead"
        )
    if not isinstance(desc, Reg):
        raise PtxDslError(
            f"{what} takes the tensor map as a 64-bit register (A.tma_desc()), but got "
            f"{spell(desc)}"
        )
    if not isinstance(coords, (tuple, list)):
        raise PtxDslError(
            f"{what} takes the coordinates as a tuple of ints or 32-bit registers, "
            f"but got {spell(coords)}"
        )
    items = [
        integer(f"{what} coordinate {i}", c, low=-(1 << 31), high=(1 << 31) - 1, bits=32)
        for i, c in enumerate(coords)
    ]
    return Address(Register(desc.name), extra=(VectorOperand(tuple(map(to_operand, items))),))
