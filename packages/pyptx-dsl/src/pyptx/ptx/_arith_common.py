"""Keyword translation shared by the scalar instruction families, and its table-driven core.

What is legal is the ISA table's business (:mod:`pyptx.ir.isa`): every instruction a wrapper
emits is checked against it at the user's line. A wrapper only turns Python into PTX: the
instruction type comes from ``ty=`` or from the first register operand whose type the table
lets the instruction take (:func:`infer_type`, :func:`table_types`); keyword flags and
choices become modifiers in PTX order (:func:`spell`); :func:`typed` emits the result.
Wrappers that differ only in opcode are made by :func:`unary`, :func:`binary` and
:func:`ternary`, with docstrings assembled by :func:`doc` (:func:`documented` completes a
hand-written wrapper's summary the same way). Errors raised here are the ones only Python
has: an argument of the wrong Python type, or no register to take a type from. The argument
checks the memory and atomic wrappers still call (:func:`resolve_type`, :func:`required`,
...) live here too.
"""

from __future__ import annotations

import inspect
import keyword
import struct
from collections.abc import Callable, Collection, Iterable, Sequence
from functools import cache
from typing import Any, Protocol, TypeAlias, TypeVar

from pyptx.ir import Immediate, PredPair, PtxType, isa

from ..dsl.errors import PtxDslError
from ..dsl.operands import Addr, addr, emit_inst, to_operand
from ..dsl.regs import Reg, SpecialReg
from ..dsl.shared import MbarrierArray, MbarrierRef, SharedAlloc, SharedSlice

__all__ = [
    "ISA_URL", "SPELLING", "T", "TypeArg", "address", "as_type", "binary", "choice", "dest",
    "doc", "documented", "flag", "fmt_types", "imm", "infer_type", "named", "pair", "required",
    "resolve_type", "spell", "table_types", "ternary", "typed", "unary",
]  # fmt: skip

TypeArg: TypeAlias = "PtxType | str | None"
"""What ``ty=`` accepts: a :class:`PtxType` (``pyptx.types.f32``), its spelling, or ``None``."""

T = PtxType
"""Short alias used by the family tables (``T.F32``)."""

ISA_URL = "https://docs.nvidia.com/cuda/parallel-thread-execution/#"
"""The PTX ISA page the wrappers' docstrings link into."""

_BITS_BY_WIDTH = {16: T.B16, 32: T.B32, 64: T.B64, 128: T.B128, 8: T.B8}
_F = TypeVar("_F", bound=Callable[..., object])


def fmt_types(types: Iterable[PtxType]) -> str:
    """``".u32, .s32"``: the spellings of ``types`` for an error message."""
    return ", ".join(t.ptx for t in types)


def as_type(op: str, kw: str, ty: object) -> PtxType:
    """Read a ``ty=``-like argument: a :class:`PtxType` or its spelling.

    Raises:
        PtxDslError: ``ty`` is neither.
    """
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


@cache
def table_types(name: str, *groups: str) -> tuple[PtxType, ...]:
    """The types the ISA table lets slots ``groups`` (default ``"type"``) of ``name`` take."""
    found: dict[PtxType, None] = {}
    for form in isa.SPECS[name].forms:
        for g in form.groups:
            if g.name in (groups or ("type",)):
                found.update(dict.fromkeys(t for v in g.values if (t := PtxType.from_name(v))))
    return tuple(found)


def infer_type(
    op: str,
    ty: object,
    allowed: Collection[PtxType],
    *infer_from: object,
    kw: str = "ty",
    by_width: bool = False,
) -> PtxType:
    """The instruction type: ``ty`` as given, else the first register type in ``allowed``.

    ``infer_from`` are the operands that may lend their type (a tuple's first element
    counts); with ``by_width`` a register lends the bit type of its width (``.b32`` for an
    ``f32`` register). Whether a given ``ty`` fits is the ISA table's to say.

    Raises:
        PtxDslError: ``ty`` is not a type, or no register lends one.
    """
    if ty is not None:
        return as_type(op, kw, ty)
    first: tuple[object, PtxType] | None = None
    for value in infer_from:
        if isinstance(value, (tuple, list)) and value:
            value = value[0]
        rtype = value.type if isinstance(value, (Reg, SpecialReg)) else None
        if rtype is None:
            continue
        if rtype in allowed:
            return rtype
        bits = _BITS_BY_WIDTH.get(rtype.bits)
        if by_width and bits in allowed and rtype is not T.PRED:
            return bits  # type: ignore[return-value]
        first = first or (value, rtype)
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


def resolve_type(
    op: str,
    ty: object,
    allowed: Collection[PtxType],
    *infer_from: object,
    kw: str = "ty",
    by_width: bool = False,
) -> PtxType:
    """:func:`infer_type`, and a given ``ty`` must also be one of ``allowed``.

    Raises:
        PtxDslError: ``ty`` is not allowed, or it cannot be inferred.
    """
    found = infer_type(op, ty, allowed, *infer_from, kw=kw, by_width=by_width)
    if ty is not None and found not in allowed:
        raise PtxDslError(f"{op} expects {kw}= one of {fmt_types(allowed)}, but got {found.ptx}")
    return found


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


def spell(**mods: object) -> list[str]:
    """The modifiers for keyword arguments, in the order given (the PTX order).

    ``ftz=True`` is ``.ftz`` (see :data:`SPELLING`), ``rnd="rn"`` is ``.rn``, a type is its
    spelling, ``None`` and ``False`` are nothing; anything else is spelled as it is, for the
    ISA table to judge.
    """
    out: list[str] = []
    for kw, value in mods.items():
        if value is True:
            out += SPELLING.get(kw, (kw,))
        elif value is not None and value is not False:
            out.append(value.value if isinstance(value, PtxType) else str(value))
    return out


def typed(
    op: str, mods: Sequence[str], d: Reg, srcs: Sequence[object], ty: object, pred: object, *,
    infer: Sequence[object] | None = None, tail: Sequence[str] = (), floats: bool = True,
    by_width: bool = False,
) -> Reg:  # fmt: skip
    """Emit ``op.mods.type.tail d, srcs...`` (one instruction) and return ``d``.

    The type is ``ty``, or that of the first register of ``infer`` (default ``d, *srcs``)
    whose type the ISA table lets ``op`` take (see :func:`infer_type`); ``tail`` holds
    modifiers after it (a second type); with ``floats``, Python floats among ``srcs`` are
    spelled as immediates of the type (:func:`imm`).
    """
    t = infer_type(
        op, ty, table_types(op), *(d, *srcs) if infer is None else infer, by_width=by_width
    )
    ops = [imm(s, t) for s in srcs] if floats else srcs
    emit_inst(op, [*mods, t.value, *tail], (d, *ops), pred)
    return d


class _Unary(Protocol):
    def __call__(self, d: Reg, a: object, *, ty: TypeArg = None, pred: object = None) -> Reg: ...


class _Binary(Protocol):
    def __call__(
        self, d: Reg, a: object, b: object, *, ty: TypeArg = None, pred: object = None
    ) -> Reg: ...


class _Ternary(Protocol):
    def __call__(
        self, d: Reg, a: object, b: object, c: object, *, ty: TypeArg = None, pred: object = None
    ) -> Reg: ...


def unary(
    op: str,
    text: str,
    *,
    mods: Sequence[str] = (),
    pick: slice = slice(None),
    by_width: bool = False,
    floats: bool = False,
) -> _Unary:
    """``op.mods.type d, a``, typed by ``ty=`` or by the registers ``(d, a)[pick]``."""

    def fn(d: Reg, a: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
        ops: tuple[object, ...] = (d, a)
        infer = ops[pick]
        return typed(op, mods, d, (a,), ty, pred, infer=infer, by_width=by_width, floats=floats)

    return named(fn, op, text)


def binary(
    op: str, text: str, *, pick: slice = slice(None), by_width: bool = False, floats: bool = False
) -> _Binary:
    """``op.type d, a, b``, typed by ``ty=`` or by the registers ``(d, a, b)[pick]``."""

    def fn(d: Reg, a: object, b: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
        ops: tuple[object, ...] = (d, a, b)
        infer = ops[pick]
        return typed(op, (), d, (a, b), ty, pred, infer=infer, by_width=by_width, floats=floats)

    return named(fn, op, text)


def ternary(op: str, text: str, *, pick: slice = slice(None)) -> _Ternary:
    """``op.type d, a, b, c``, typed by ``ty=`` or by the registers ``(d, a, b, c)[pick]``."""

    def fn(
        d: Reg, a: object, b: object, c: object, *, ty: TypeArg = None, pred: object = None
    ) -> Reg:
        ops: tuple[object, ...] = (d, a, b, c)
        return typed(op, (), d, (a, b, c), ty, pred, infer=ops[pick], floats=False)

    return named(fn, op, text)


def doc(
    summary: str,
    *args: str,
    anchor: str | tuple[str, ...],
    d: str = "destination register.",
    pred: str = "optional guard predicate.",
    example: str = "",
    dest: str = "d",
    returns: str = "",
) -> str:
    """A wrapper's Google-style docstring from its parts.

    ``Args:`` lists the destination ``dest`` (described by ``d``), then ``args`` (``"a:
    source."``, in signature order) and the guard ``pred``; then come ``Returns:`` (``dest``
    unless ``returns`` says otherwise), the example and the PTX ISA section(s) ``anchor``.
    """
    lines = [summary, "", "Args:", f"    {dest}: {d}", *(f"    {a}" for a in args)]
    lines += [f"    pred: {pred}", "", "Returns:", f"    {returns or f'``{dest}``.'}", ""]
    lines += ["Example:", f"    {example}", ""] if example else []
    links = (anchor,) if isinstance(anchor, str) else anchor
    return "\n".join([*lines, "PTX ISA: " + "\nand ".join(ISA_URL + a for a in links)])


def documented(*args: str, **parts: Any) -> Callable[[_F], _F]:
    """Complete a wrapper's summary docstring with :func:`doc`'s ``Args:``, example and link."""

    def apply(fn: _F) -> _F:
        fn.__doc__ = doc(inspect.cleandoc(fn.__doc__ or ""), *args, **parts)
        return fn

    return apply


def pair(d: object) -> object:
    """A ``(d, p)`` destination as the PTX pair ``d|p``; anything else as it is."""
    if isinstance(d, (tuple, list)) and len(d) == 2:
        return PredPair(to_operand(d[0]), to_operand(d[1]))
    return d


def adopt(namespace: dict[str, Any]) -> None:
    """Make the factory-made wrappers a module exports belong to that module.

    Documentation tools list a module's functions by ``__module__``; a wrapper made by
    :func:`unary`, :func:`binary` or :func:`ternary` would otherwise belong to this one.
    Call ``adopt(globals())`` at the end of a module that uses the factories.
    """
    for name in namespace.get("__all__", ()):
        fn = namespace[name]
        if inspect.isfunction(fn) and fn.__module__ == __name__:
            fn.__module__ = namespace["__name__"]


def named(fn: _F, op: str, text: str) -> _F:
    """Give a wrapper made by a factory the public name of ``op`` (``and_`` for ``and``)."""
    fn.__name__ = fn.__qualname__ = op + "_" if keyword.iskeyword(op) else op
    fn.__doc__ = text
    return fn


def _describe(value: object) -> str:
    if isinstance(value, Reg):
        return f"register {value.name} ({value.type.ptx})"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"the number {value!r}"
    return f"a {type(value).__name__}"
