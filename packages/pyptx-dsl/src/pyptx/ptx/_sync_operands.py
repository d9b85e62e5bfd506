"""Operand checks shared by the synchronization and asynchronous-copy families.

Private to :mod:`pyptx.ptx`: the barrier, fence, ``cp.async``, bulk-copy, mbarrier and cluster
wrappers all take the same kinds of operands (shared-memory and global addresses, mbarrier
references, tensor-map descriptors, 32-bit counts, predicates) and report a wrong one in the
same words. Nothing here emits an instruction.
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
    "address",
    "cache_policy",
    "choice",
    "dest",
    "flag",
    "int_operand",
    "mask32",
    "pick",
    "predicate",
    "shared_value",
    "spell",
    "tensor_address",
    "vector16",
]

_S = TypeVar("_S")


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
    """Check a modifier keyword against the PTX spellings it may take.

    Args:
        what: the instruction and keyword, e.g. ``"fence scope"``.
        value: the value the user passed.
        allowed: the accepted spellings; ``None`` among them means "may be left out".

    Returns:
        The value, now known to be one of ``allowed``.

    Raises:
        PtxDslError: the value is not one of them.
    """
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
    """Check a boolean keyword (``aligned=True``).

    Raises:
        PtxDslError: the value is not a bool.
    """
    if not isinstance(value, bool):
        raise PtxDslError(f"{what} takes True or False, but got {spell(value)}")
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_reg(value: object) -> bool:
    return isinstance(value, Reg) and value.type.kind in (
        TypeKind.BITS,
        TypeKind.UNSIGNED,
        TypeKind.SIGNED,
    )


def int_operand(
    what: str,
    value: object,
    *,
    bits: tuple[int, ...] = (32,),
    low: int | None = 0,
    high: int | None = None,
    imm: bool = True,
    reg: bool = True,
) -> object:
    """Check an integer operand: a Python int in range, or an integer register of a given width.

    Args:
        what: what the operand is, for messages (``"bar.sync barrier"``).
        value: the user's value.
        bits: register widths accepted.
        low: least immediate accepted (inclusive), or ``None``.
        high: greatest immediate accepted (inclusive), or ``None``.
        imm: whether a Python int is accepted.
        reg: whether a register is accepted.

    Returns:
        The value unchanged (an int or a register).

    Raises:
        PtxDslError: anything else.
    """
    if imm and _is_int(value):
        assert isinstance(value, int)
        if (low is not None and value < low) or (high is not None and value > high):
            lo = "" if low is None else str(low)
            hi = "" if high is None else str(high)
            raise PtxDslError(f"{what} must be in [{lo}, {hi}], but got {value}")
        return value
    widths = "/".join(f"{b}-bit" for b in bits)
    if reg and isinstance(value, Reg) and _int_reg(value):
        if value.type.bits in bits:
            return value
        raise PtxDslError(f"{what} must be a {widths} integer register, but got {spell(value)}")
    wanted = " or ".join(
        w for w, ok in (("a Python int", imm), (f"a {widths} integer register", reg)) if ok
    )
    raise PtxDslError(f"{what} must be {wanted}, but got {spell(value)}")


def mask32(what: str, value: object) -> object:
    """A 32-bit lane mask: an int (spelled in hex, ``0xffffffff``) or a 32-bit register.

    Raises:
        PtxDslError: anything else.
    """
    m = int_operand(what, value, high=0xFFFFFFFF)
    return Immediate(f"0x{m:08x}") if isinstance(m, int) else m


def predicate(what: str, value: object, *, negatable: bool = True) -> object:
    """Check a predicate operand: a ``pred`` register, or ``~p`` where negation is allowed.

    Raises:
        PtxDslError: anything else.
    """
    if isinstance(value, Reg) and value.type is PtxType.PRED:
        return value
    if negatable and isinstance(value, NotPred) and isinstance(value.reg, Reg):
        return value
    neg = " or its negation ~p" if negatable else ""
    raise PtxDslError(f"{what} must be a predicate register{neg}, but got {spell(value)}")


def cache_policy(what: str, value: object) -> Reg:
    """Check an L2 cache-policy operand (a 64-bit register made by ``createpolicy``).

    Raises:
        PtxDslError: not a 64-bit integer register.
    """
    if isinstance(value, Reg) and _int_reg(value) and value.type.bits == 64:
        return value
    raise PtxDslError(
        f"{what} must be a 64-bit cache-policy register (from createpolicy), but got {spell(value)}"
    )


def dest(what: str, dst: object, ty: PtxType, widths: tuple[int, ...] | None = None) -> Reg:
    """The destination register: ``dst`` when the user passed one, else a fresh ``ty`` register.

    Args:
        what: the instruction, for messages.
        dst: the user's ``dst=`` value or ``None``.
        ty: the logical type of a fresh register (``pred``, ``u32``, ``b64``).
        widths: register widths accepted for a user's register (default: ``ty``'s width);
            a ``pred`` destination must be a ``pred`` register.

    Raises:
        PtxDslError: ``dst`` is not a register of a fitting type.
    """
    if dst is None:
        return _new(ty)
    if isinstance(dst, Reg):
        if ty is PtxType.PRED:
            if dst.type is PtxType.PRED:
                return dst
        elif dst.type is not PtxType.PRED and dst.type.bits in (widths or (ty.bits,)):
            return dst
        raise PtxDslError(
            f"{what} writes a {ty.ptx} destination, but dst= is {dst.name} of type {dst.type.ptx}"
        )
    raise PtxDslError(f"{what}: dst= must be a register or None, but got {spell(dst)}")


def address(what: str, value: object, *, space: str = "shared") -> Addr:
    """Convert an address operand to ``[...]``.

    Shared allocations, stages (``sA[0]``), mbarrier arrays and references (``bars[i]``),
    ``ptx.addr(...)`` and address registers are accepted. A register holding a shared address
    may be 32- or 64-bit; a global or generic address must be 64-bit.

    Args:
        what: the operand, for messages (``"mbarrier.init barrier"``).
        value: the user's value.
        space: ``"shared"`` (also ``shared::cta``/``shared::cluster``), ``"global"`` or
            ``"generic"``; decides which kinds are accepted.

    Raises:
        PtxDslError: the value cannot be such an address; the message names the fix.
    """
    if isinstance(value, Addr):
        return value
    shared = space.startswith("shared")
    if isinstance(value, (SharedSlice, MbarrierRef, SharedAlloc)):
        if shared or space == "generic":
            return value.addr()
    elif isinstance(value, MbarrierArray):
        if shared or space == "generic":
            return addr(value)
    elif isinstance(value, Reg):
        widths = (32, 64) if shared else (64,)
        if _int_reg(value) and value.type.bits in widths:
            return addr(value)
        need = "a 32- or 64-bit" if shared else "a 64-bit"
        raise PtxDslError(
            f"{what} must be {need} address register, but got {value.name} of type {value.type.ptx}"
        )
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
    """A shared address as a plain operand (not bracketed), for ``mapa`` and ``getctarank``.

    Allocations, stages and mbarrier references become ``symbol`` or ``symbol+offset``;
    registers pass through.

    Raises:
        PtxDslError: anything else.
    """
    if isinstance(value, Reg):
        if _int_reg(value) and value.type.bits in (32, 64):
            return value
        raise PtxDslError(
            f"{what} must be a 32- or 64-bit address register, but got {value.name} of type "
            f"{value.type.ptx}"
        )
    sym: str | None = None
    offset = 0
    if isinstance(value, (SharedAlloc, MbarrierArray)):
        sym = value.symbol
    elif isinstance(value, SharedSlice):
        sym, offset = value.name, value.offset
    elif isinstance(value, MbarrierRef):
        sym, offset = value.name, value.byte_offset
    if sym is None:
        raise PtxDslError(
            f"{what} must be a shared allocation, a stage (sA[i]), an mbarrier (bars[i]) or an "
            f"address register, but got {spell(value)}"
        )
    base: Expr = Symbol(sym)
    return BinaryExpr("+", base, Immediate(str(offset))) if offset else base


def vector16(what: str, values: object, count: int | tuple[int, ...]) -> VectorOperand:
    """A ``{a, b, ...}`` vector of 16-bit values (im2col offsets): ints or 16-bit registers.

    Raises:
        PtxDslError: not a sequence of the right length, or an element of the wrong kind.
    """
    counts = (count,) if isinstance(count, int) else count
    if not isinstance(values, (tuple, list)) or len(values) not in counts:
        n = " or ".join(str(c) for c in counts)
        raise PtxDslError(f"{what} must be a tuple of {n} values, but got {spell(values)}")
    items = [
        int_operand(f"{what}[{i}]", v, bits=(16,), low=-(1 << 15), high=(1 << 16) - 1)
        for i, v in enumerate(values)
    ]
    return VectorOperand(tuple(to_operand(v) for v in items))


def tensor_address(what: str, desc: object, coords: object, count: int) -> Address:
    """``[tensorMap, {c0, c1, ...}]``: a descriptor register and ``count`` coordinates.

    Args:
        what: the instruction, for messages.
        desc: a 64-bit register holding the descriptor's address (``A.tma_desc()``).
        coords: ints or 32-bit registers.
        count: how many coordinates the instruction takes.

    Raises:
        PtxDslError: a wrong descriptor or a wrong number or kind of coordinates.
    """
    if hasattr(desc, "tma_desc") and not isinstance(desc, Reg):
        name = getattr(desc, "symbol", "the tensor")
        raise PtxDslError(
            f"{what} takes the tensor map as a 64-bit register, but got the tensor argument "
            f"{name}; pass its .tma_desc() instead"
        )
    if not (isinstance(desc, Reg) and _int_reg(desc) and desc.type.bits == 64):
        raise PtxDslError(
            f"{what} takes the tensor map as a 64-bit register (A.tma_desc()), but got "
            f"{spell(desc)}"
        )
    if not isinstance(coords, (tuple, list)):
        raise PtxDslError(
            f"{what} takes the coordinates as a tuple of {count} ints or 32-bit registers, "
            f"but got {spell(coords)}"
        )
    if len(coords) != count:
        raise PtxDslError(f"{what} expects {count} tensor coordinates, but got {len(coords)}")
    items = [
        int_operand(f"{what} coordinate {i}", c, low=-(1 << 31), high=(1 << 31) - 1)
        for i, c in enumerate(coords)
    ]
    vec = VectorOperand(tuple(to_operand(c) for c in items))
    return Address(Register(desc.name), extra=(vec,))
