"""Argument checking shared by the scalar instruction families.

The arith, convert, compare, logic, memory, warp and atomic wrappers all take the same kinds
of arguments: a destination register, an instruction type (``ty=``, given or read off a
register), string modifiers with PTX spellings (``rnd="rn"``, ``space="global"``), boolean
flags (``ftz=True``) and addresses. The helpers here check each kind once, with the project's
message grammar (what was expected, what was got, the fix), so every wrapper fails the same
way at the user's line.
"""

from __future__ import annotations

import struct
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from pyptx.ir import Immediate, PredPair, PtxType, TypeKind

from ..dsl.errors import PtxDslError
from ..dsl.operands import Addr, addr, to_operand
from ..dsl.regs import Reg, SpecialReg
from ..dsl.shared import MbarrierArray, MbarrierRef, SharedAlloc, SharedSlice

__all__ = [
    "INT_TYPES",
    "RND",
    "FloatRule",
    "T",
    "TypeArg",
    "address",
    "check_takes",
    "choice",
    "dest",
    "dest_pair",
    "flag",
    "float_mods",
    "fmt_types",
    "imm",
    "is_float",
    "pair_operand",
    "predicate",
    "required",
    "resolve_type",
]

TypeArg: TypeAlias = "PtxType | str | None"
"""What ``ty=`` accepts: a :class:`PtxType` (``pyptx.types.f32``), its spelling, or ``None``."""

RND = ("rn", "rz", "rm", "rp")
"""The IEEE rounding modifiers of floating-point arithmetic."""

T = PtxType
"""Short alias used by the family tables (``T.F32``)."""

INT_TYPES = (T.U16, T.U32, T.U64, T.S16, T.S32, T.S64)
"""The integer types most integer arithmetic takes."""

_BITS_BY_WIDTH = {16: T.B16, 32: T.B32, 64: T.B64, 128: T.B128, 8: T.B8}


def fmt_types(types: Iterable[PtxType]) -> str:
    """``".u32, .s32"``: the spellings of ``types`` for an error message."""
    return ", ".join(t.ptx for t in types)


def _as_type(op: str, kw: str, ty: object) -> PtxType:
    if isinstance(ty, PtxType):
        return ty
    if isinstance(ty, str):
        found = PtxType.from_name(ty)
        if found is not None:
            return found
        raise PtxDslError(f"{op} expects {kw}= to be a PTX type such as f32, got {ty!r}")
    raise PtxDslError(
        f"{op} expects {kw}= to be a PTX type (from pyptx.types), got {type(ty).__name__}"
    )


def _register_type(value: object) -> PtxType | None:
    if isinstance(value, (Reg, SpecialReg)):
        return value.type
    return None


def resolve_type(
    op: str,
    ty: object,
    allowed: Collection[PtxType],
    *infer_from: object,
    kw: str = "ty",
    by_width: bool = False,
) -> PtxType:
    """The instruction type: ``ty`` when given, else the type of the first register operand.

    Args:
        op: the mnemonic for messages (``"add"``).
        ty: the user's ``ty=`` (``None`` to infer).
        allowed: the types the instruction takes.
        *infer_from: operands whose register type may stand for the instruction type.
        kw: the keyword's name for messages (``"ty"``, ``"dtype"``).
        by_width: when the register's own type is not allowed, use the bit type of its
            width (``.b32`` for an ``f32`` register), for instructions that take bit types.

    Raises:
        PtxDslError: ``ty`` is not allowed, or it cannot be inferred.
    """
    if ty is not None:
        found = _as_type(op, kw, ty)
        if found not in allowed:
            raise PtxDslError(
                f"{op} expects {kw}= one of {fmt_types(allowed)}, but got {found.ptx}"
            )
        return found
    first: tuple[object, PtxType] | None = None
    for value in infer_from:
        if isinstance(value, (tuple, list)) and value:
            value = value[0]
        rtype = _register_type(value)
        if rtype is None:
            continue
        if rtype in allowed:
            return rtype
        if by_width:
            bits = _BITS_BY_WIDTH.get(rtype.bits)
            if bits in allowed and rtype is not T.PRED:
                return bits  # type: ignore[return-value]
        if first is None:
            first = (value, rtype)
    if first is not None:
        name = getattr(first[0], "name", None) or getattr(
            getattr(first[0], "node", None), "name", "?"
        )
        raise PtxDslError(
            f"{op} cannot take its type from register {name} of type {first[1].ptx}; "
            f"pass {kw}= one of {fmt_types(allowed)}"
        )
    raise PtxDslError(
        f"{op} needs {kw}= (one of {fmt_types(allowed)}) because no operand is a register "
        "to take the type from"
    )


def choice(op: str, kw: str, value: object, allowed: Sequence[str]) -> str | None:
    """Check a string modifier against its PTX spellings; ``None`` means "not given".

    Raises:
        PtxDslError: the value is not one of ``allowed``.
    """
    if value is None:
        return None
    return required(op, kw, value, allowed)


def required(op: str, kw: str, value: object, allowed: Sequence[str]) -> str:
    """Check a string modifier that must be given.

    Raises:
        PtxDslError: the value is missing or not one of ``allowed``.
    """
    if isinstance(value, str) and value in allowed:
        return value
    listed = ", ".join(repr(a) for a in allowed)
    if value is None:
        raise PtxDslError(f"{op} needs {kw}= one of {listed}")
    raise PtxDslError(f"{op} expects {kw}= one of {listed}, but got {value!r}")


def flag(op: str, kw: str, value: object) -> bool:
    """Check a boolean modifier flag (``ftz=True``).

    Raises:
        PtxDslError: the value is not a bool.
    """
    if isinstance(value, bool):
        return value
    raise PtxDslError(f"{op} expects {kw}= to be True or False, but got {value!r}")


def check_takes(op: str, given: dict[str, object], takes: Collection[str]) -> None:
    """Reject modifiers a form does not have.

    Args:
        op: the instruction as spelled so far, for messages (``"add.bf16"``).
        given: keyword -> value; ``None`` and ``False`` count as "not given".
        takes: the keywords this form accepts.

    Raises:
        PtxDslError: a modifier was given that the form does not take.
    """
    for kw, value in given.items():
        if value is None or value is False or kw in takes:
            continue
        what = ", ".join(f"{k}=" for k in sorted(takes)) if takes else "none of them"
        raise PtxDslError(f"{op} does not take {kw}={value!r}; the modifiers it takes are: {what}")


def dest(op: str, d: object) -> Reg:
    """Check a destination operand: a register.

    Raises:
        PtxDslError: ``d`` is not a register.
    """
    if isinstance(d, Reg):
        return d
    raise PtxDslError(
        f"{op} expects a destination register first, but got {_describe(d)}; "
        "allocate one with reg.scalar(ty)"
    )


def predicate(op: str, kw: str, p: object) -> Reg:
    """Check an operand that must be a predicate register.

    Raises:
        PtxDslError: ``p`` is not a ``pred`` register.
    """
    if isinstance(p, Reg) and p.type is T.PRED:
        return p
    raise PtxDslError(
        f"{op} expects {kw} to be a predicate register (reg.scalar(pred)), but got {_describe(p)}"
    )


def dest_pair(op: str, d: object, second: str = "p") -> tuple[object, Reg | None]:
    """Split a destination that may be a ``(d, p)`` pair written ``d|p`` in PTX.

    Returns:
        ``(d, p)``, with ``p`` ``None`` for a plain destination.

    Raises:
        PtxDslError: a tuple that is not (register, predicate register).
    """
    if isinstance(d, (tuple, list)):
        if len(d) != 2:
            raise PtxDslError(
                f"{op} expects a destination register or a (register, predicate) pair for "
                f"d|{second}, but got a tuple of {len(d)}"
            )
        return d[0], predicate(op, f"the second element of the d|{second} pair", d[1])
    return d, None


def pair_operand(first: object, second: object) -> PredPair:
    """The IR operand ``first|second``."""
    return PredPair(to_operand(first), to_operand(second))


def address(op: str, value: object) -> Addr:
    """Turn what the user passed for a memory operand into an address ``[...]``.

    Accepts ``ptx.addr(...)``, a register holding an address, a shared allocation, a stage
    slice of one, an mbarrier array or one mbarrier of it.

    Raises:
        PtxDslError: anything else.
    """
    if isinstance(value, Addr):
        return value
    if isinstance(value, (SharedAlloc, SharedSlice, MbarrierRef)):
        return value.addr()
    if isinstance(value, (Reg, MbarrierArray)):
        return addr(value)
    raise PtxDslError(
        f"{op} expects an address: ptx.addr(base, offset), a register, a shared allocation "
        f"or slice, or an mbarrier; got {_describe(value)}"
    )


def imm(value: object, ty: PtxType | None) -> object:
    """Spell a Python float as the immediate ``ty`` needs; pass everything else through.

    ``0f`` (32-bit) hex for types up to 32 bits wide, ``0d`` (64-bit) for wider ones, so
    ``mov.b32 r, 1.0`` gets ``0f3F800000`` rather than a 64-bit literal.
    """
    if isinstance(value, float) and ty is not None:
        if ty.bits <= 32:
            return Immediate("0f" + struct.pack(">f", value).hex().upper())
        return Immediate("0d" + struct.pack(">d", value).hex().upper())
    return value


SPELLING = {"nan": ("NaN",), "xorsign_abs": ("xorsign", "abs")}
"""Flag keywords whose PTX spelling differs from the keyword (``nan=True`` -> ``.NaN``)."""


@dataclass(frozen=True)
class FloatRule:
    """What one floating-point form accepts.

    Attributes:
        rnd: the rounding modifiers it takes (empty: none).
        flags: the flag keywords it takes (``"ftz"``, ``"sat"``, ...).
        rnd_required: whether a rounding modifier must be given.
    """

    rnd: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    rnd_required: bool = False


def float_mods(
    op: str, ty: PtxType, rule: FloatRule, rnd: object, flags: dict[str, object]
) -> list[str]:
    """Check ``rnd`` and the flags against ``rule``; return ``[rnd, flag spellings...]``.

    The flags are spelled in the order of ``flags`` (the PTX order, chosen by the caller).

    Raises:
        PtxDslError: a modifier the form does not take, or a missing rounding modifier.
    """
    name = f"{op}.{ty.value}"
    for kw, value in flags.items():
        flag(op, kw, value)
    takes = set(rule.flags) | ({"rnd"} if rule.rnd else set())
    check_takes(name, {"rnd": rnd, **flags}, takes)
    r = choice(name, "rnd", rnd, rule.rnd) if rule.rnd else None
    if r is None and rule.rnd_required:
        listed = ", ".join(repr(x) for x in rule.rnd)
        raise PtxDslError(f"{name} needs a rounding modifier: pass rnd= one of {listed}")
    mods = [r] if r else []
    for kw, value in flags.items():
        if value:
            mods.extend(SPELLING.get(kw, (kw,)))
    return mods


def is_float(ty: PtxType) -> bool:
    """Whether ``ty`` is a floating-point type (packed ones included)."""
    return ty.kind is TypeKind.FLOAT


def _describe(value: object) -> str:
    if isinstance(value, Reg):
        return f"register {value.name} ({value.type.ptx})"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"the number {value!r}"
    return f"a {type(value).__name__}"
