"""Python-to-operand conversions of the tcgen05 wrappers; what is legal is the ISA table's.

(See :mod:`pyptx.ir.isa._tcgen05`: kinds, shapes, register widths and counts, values, gates.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from pyptx.ir import Immediate, PtxType, Register, Symbol, TypeKind

from ..dsl._trace import current
from ..dsl.errors import PtxDslError, user_location
from ..dsl.operands import Addr, addr
from ..dsl.regs import Reg
from ..dsl.shared import MbarrierArray, MbarrierRef, SharedAlloc, SharedSlice

T = TypeVar("T")
_CTA_KEY = ("tcgen05", "cta_group")
_INTS = (TypeKind.BITS, TypeKind.UNSIGNED, TypeKind.SIGNED)


def is_int_reg(value: object, bits: int) -> bool:
    """Whether ``value`` is an integer (``b``/``u``/``s``) register of ``bits`` bits."""
    return isinstance(value, Reg) and value.type.bits == bits and value.type.kind in _INTS


def cta_group_mod(value: object, op: str) -> str:
    """The ``cta_group::N`` modifier, which must match the kernel's earlier tcgen05 calls.

    ptxas rejects a function whose tcgen05 instructions mix ``.cta_group`` values: a rule
    across instructions that the ISA table, judging one at a time, cannot state.

    Raises:
        PtxDslError: different from an earlier tcgen05 instruction's.
    """
    mod = f"cta_group::{value}"
    first = current().cache.setdefault(_CTA_KEY, (mod, op, user_location()))
    assert isinstance(first, tuple)
    group, first_op, where = first
    if group != mod:
        at = f" at {where[0]}:{where[1]}" if where else ""
        raise PtxDslError(
            f"{op} uses .{mod}, but this kernel already used .{group} ({first_op}{at}); every "
            f"tcgen05 instruction of a kernel needs the same cta_group, so pass "
            f"cta_group={group.removeprefix('cta_group::')}"
        )
    return mod


def tmem(value: object) -> object:
    """A Tensor Memory address operand ``[taddr]`` from a register (``ptx.addr`` as it is)."""
    return value if value is None or isinstance(value, Addr) else addr(value)


def const(value: object, bits: int, what: str, op: str, digits: int = 0) -> object:
    """An int as an operand of ``bits`` unsigned bits (hex with ``digits``); others as they are.

    Raises:
        PtxDslError: an int that does not fit (a Python int has no width).
    """
    if not isinstance(value, int) or isinstance(value, bool):
        return value
    if not 0 <= value < 1 << bits:
        raise PtxDslError(f"{op}: {what} must fit in {bits} unsigned bits, got {value:#x}")
    return Immediate(f"0x{value:0{digits}X}") if digits else value


def flag(value: object, what: str, op: str) -> bool:
    """A keyword that must be True or False (``pack=``, ``ashift=``): a truthy 1 is refused."""
    if not isinstance(value, bool):
        raise PtxDslError(f"{op}: {what} must be True or False, got {value!r}")
    return value


def vector(values: object) -> object:
    """A register vector operand from a sequence (``reg.array``, list, tuple)."""
    if isinstance(values, Sequence) and not isinstance(values, str):
        return list(values)
    return values


def enable_input(value: object) -> object:
    """The ``enable-input-d`` operand: True/False as 1/0, a predicate (or ``~p``) as it is."""
    return int(value) if isinstance(value, bool) else value


def present(values: Sequence[T | None]) -> tuple[T, ...]:
    """The operands or modifiers that were given (``None`` marks one left out)."""
    return tuple(v for v in values if v is not None)


def shared_or_generic(value: object, what: str, op: str) -> tuple[Addr, bool]:
    """An address operand and whether it is shared (not generic): the wrapper spells the space.

    Allocations, slices, mbarriers, symbols and 32-bit registers are shared; 64-bit generic.

    Raises:
        PtxDslError: a value that is none of these.
    """
    if isinstance(value, (SharedSlice, MbarrierRef)):
        return value.addr(), True
    if isinstance(value, (SharedAlloc, MbarrierArray)) or is_int_reg(value, 32):
        return addr(value), True
    if is_int_reg(value, 64):
        return addr(value), False
    if isinstance(value, Addr):
        base = value.node.base
        if isinstance(base, Register):
            return value, current().reg_types.get(base.name) is not PtxType.B64
        return value, isinstance(base, Symbol)
    got = f"{value.name} of type {value.type.ptx}" if isinstance(value, Reg) else repr(value)
    raise PtxDslError(
        f"{op}: {what} must be a shared allocation, slice, mbarrier, ptx.addr(...), or a "
        f"32-bit (shared) / 64-bit (generic) address register, got {got}"
    )
