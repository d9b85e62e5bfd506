"""Operand checks shared by the tcgen05 wrappers (private to :mod:`pyptx.ptx._tcgen05`)."""

from __future__ import annotations

from collections.abc import Sequence

from pyptx.ir import Immediate, PtxType, Register, Symbol, TypeKind

from ..dsl._trace import current
from ..dsl.errors import PtxDslError, user_location
from ..dsl.operands import Addr, NotPred, addr
from ..dsl.regs import Reg
from ..dsl.shared import MbarrierArray, MbarrierRef, SharedAlloc, SharedSlice

__all__ = [
    "ISA",
    "cta_group_mod",
    "describe",
    "descriptor",
    "enable_input",
    "idesc",
    "int_reg",
    "is_int_reg",
    "reg_vector",
    "shared_or_generic",
    "tmem",
    "u32_or_imm",
]

ISA = "https://docs.nvidia.com/cuda/parallel-thread-execution/"

_CTA_KEY = ("tcgen05", "cta_group")


def describe(value: object) -> str:
    """How an operand reads in an error message (``%r3 of type .u32``, ``a float``)."""
    if isinstance(value, Reg):
        return f"{value.name} of type {value.type.ptx}"
    if isinstance(value, Addr):
        return "ptx.addr(...)"
    return f"{type(value).__name__} {value!r}"


def is_int_reg(value: object, bits: int) -> bool:
    """Whether ``value`` is an integer (``b``/``u``/``s``) register of ``bits`` bits."""
    return (
        isinstance(value, Reg)
        and value.type.bits == bits
        and value.type.kind in (TypeKind.BITS, TypeKind.UNSIGNED, TypeKind.SIGNED)
    )


def int_reg(value: object, bits: int, what: str, op: str) -> Reg:
    """``value`` as an integer register of ``bits`` bits, or a PtxDslError naming ``what``."""
    if not is_int_reg(value, bits):
        raise PtxDslError(f"{op}: {what} must be a {bits}-bit register, got {describe(value)}")
    assert isinstance(value, Reg)
    return value


def cta_group_mod(value: object, op: str) -> str:
    """The ``cta_group::N`` modifier, checking it against the kernel's earlier tcgen05 calls.

    PTX requires every tcgen05 instruction of a kernel to use the same ``.cta_group`` (ptxas
    rejects the function otherwise), so the first choice is remembered in the trace.

    Raises:
        PtxDslError: not 1 or 2, or different from an earlier tcgen05 instruction's.
    """
    if isinstance(value, bool) or value not in (1, 2):
        raise PtxDslError(f"{op}: cta_group must be 1 or 2, got {value!r}")
    trace = current()
    first = trace.cache.get(_CTA_KEY)
    if first is None:
        trace.cache[_CTA_KEY] = (value, op, user_location())
    else:
        assert isinstance(first, tuple)
        group, first_op, where = first
        if group != value:
            at = f" at {where[0]}:{where[1]}" if where else ""
            raise PtxDslError(
                f"{op} uses .cta_group::{value}, but this kernel already used .cta_group::{group} "
                f"({first_op}{at}); every tcgen05 instruction of a kernel needs the same "
                f"cta_group, so pass cta_group={group}"
            )
    return f"cta_group::{value}"


def tmem(value: object, what: str, op: str) -> Addr:
    """A Tensor Memory address operand ``[taddr]`` from a 32-bit register or ``ptx.addr``."""
    if isinstance(value, Addr):
        return value
    if is_int_reg(value, 32):
        return addr(value)
    raise PtxDslError(
        f"{op}: {what} must be a 32-bit register holding a Tensor Memory address "
        f"(or ptx.addr(reg, offset)), got {describe(value)}"
    )


def descriptor(value: object, what: str, op: str) -> object:
    """A 64-bit matrix descriptor operand: a 64-bit register or a constant int (as hex)."""
    if is_int_reg(value, 64):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 64:
        return Immediate(f"0x{value:016X}")
    raise PtxDslError(
        f"{op}: {what} must be a 64-bit register (or int) holding a shared memory descriptor "
        f"(see pyptx.dsl.umma), got {describe(value)}"
    )


def idesc(value: object, op: str) -> object:
    """The instruction descriptor operand: a 32-bit register or a constant int (as hex)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 32:
        return Immediate(f"0x{value:08X}")
    return u32_or_imm(value, "idesc (the instruction descriptor, see pyptx.dsl.umma)", op)


def u32_or_imm(value: object, what: str, op: str) -> object:
    """A 32-bit register or a non-negative 32-bit int."""
    if is_int_reg(value, 32):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 32:
        return value
    raise PtxDslError(f"{op}: {what} must be a 32-bit register or int, got {describe(value)}")


def enable_input(value: object, op: str) -> object:
    """The ``enable-input-d`` operand: a predicate register, ``~pred``, or True/False."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Reg) and value.type is PtxType.PRED:
        return value
    if isinstance(value, NotPred) and isinstance(value.reg, Reg):
        return value
    raise PtxDslError(
        f"{op}: enable_input_d must be a predicate register, ~pred, True or False, got "
        f"{describe(value)}; make a predicate with a comparison (acc = k > 0)"
    )


def shared_or_generic(value: object, what: str, op: str) -> tuple[Addr, bool]:
    """An address operand and whether it is a shared-memory (not generic) address.

    Shared allocations, slices, mbarriers, symbols and 32-bit registers are shared-window
    addresses; 64-bit registers are generic addresses.
    """
    if isinstance(value, (SharedSlice, MbarrierRef)):
        return value.addr(), True
    if isinstance(value, (SharedAlloc, MbarrierArray)):
        return addr(value), True
    if isinstance(value, Reg):
        if is_int_reg(value, 32):
            return addr(value), True
        if is_int_reg(value, 64):
            return addr(value), False
    if isinstance(value, Addr):
        base = value.node.base
        if isinstance(base, Register):
            return value, current().reg_types.get(base.name) is not PtxType.B64
        return value, isinstance(base, Symbol)
    raise PtxDslError(
        f"{op}: {what} must be a shared allocation, slice, mbarrier, ptx.addr(...), or a "
        f"32-bit (shared) / 64-bit (generic) address register, got {describe(value)}"
    )


def reg_vector(values: object, count: int, what: str, op: str, detail: str) -> list[Reg]:
    """A brace vector of exactly ``count`` 32-bit registers (any 32-bit type)."""
    if not isinstance(values, Sequence) or isinstance(values, str):
        raise PtxDslError(
            f"{op}: {what} must be a sequence of {count} registers (a list, tuple or "
            f"reg.array), got {describe(values)}"
        )
    regs = list(values)
    if len(regs) != count:
        raise PtxDslError(f"{op} {detail} expects {count} {what} registers, but got {len(regs)}")
    for r in regs:
        if not isinstance(r, Reg) or r.type.bits != 32 or r.type is PtxType.PRED:
            raise PtxDslError(f"{op}: every {what} register must be 32-bit, got {describe(r)}")
    return regs
