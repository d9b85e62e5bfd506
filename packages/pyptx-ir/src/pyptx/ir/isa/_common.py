"""Shorthands the family modules declare instructions with: gates, type lists, slots, operands.

Nothing here interprets the table; these are constructors that keep the declarations short.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ._model import (
    NO_GATE,
    Count,
    Form,
    Gate,
    InstructionSpec,
    ModifierGroup,
    OperandKind,
    OperandSpec,
    Values,
    Width,
    family_targets,
)

__all__ = [
    "ADDR",
    "IMM",
    "INTS",
    "LABEL",
    "NO_GATE",
    "PRED",
    "REG",
    "SCOPES",
    "SINK",
    "SYM",
    "VEC",
    "Form",
    "Gate",
    "InstructionSpec",
    "OperandKind",
    "Width",
    "addr",
    "arch",
    "dst",
    "form",
    "grp",
    "imm",
    "opd",
    "pdst",
    "policy",
    "psrc",
    "req",
    "since",
    "spec",
    "src",
]

REG = OperandKind.REGISTER
PRED = OperandKind.PREDICATE
IMM = OperandKind.IMMEDIATE
ADDR = OperandKind.ADDRESS
VEC = OperandKind.VECTOR
LABEL = OperandKind.LABEL
SYM = OperandKind.SYMBOL
SINK = OperandKind.SINK

INTS = ("u16", "u32", "u64", "s16", "s32", "s64")
SCOPES = ("cta", "cluster", "gpu", "sys")


def since(ptx: tuple[int, int], sm: int = 0) -> Gate:
    """A feature of PTX ``ptx`` on every target from ``sm_{sm}`` on."""
    return Gate(ptx, sm)


def arch(ptx: tuple[int, int], *targets: str) -> Gate:
    """An architecture- or family-specific feature of PTX ``ptx``.

    Args:
        ptx: lowest PTX ISA version.
        *targets: ``sm_XXa`` names (taken as they are) and ``sm_XXf`` names (expanded to the
            targets of that family that include them).

    Returns:
        The gate.
    """
    names: set[str] = set()
    for t in targets:
        if t.endswith("f"):
            names |= family_targets(t)
        else:
            names.add(t)
    sm = min(int(t[3:].rstrip("af")) for t in targets)
    return Gate(ptx, sm, frozenset(names))


def grp(
    name: str,
    values: Iterable[str],
    *,
    patterns: Iterable[str] = (),
    repeat: bool = False,
    gates: Mapping[str, Gate] | None = None,
    doc: str = "",
) -> ModifierGroup:
    """An optional modifier slot (``gates`` may be a shared table; only its values are kept)."""
    vals = tuple(values)
    return ModifierGroup(name, vals, tuple(patterns), False, repeat, _pick(gates, vals), doc)


def req(
    name: str,
    values: Iterable[str],
    *,
    patterns: Iterable[str] = (),
    gates: Mapping[str, Gate] | None = None,
    doc: str = "",
) -> ModifierGroup:
    """A required modifier slot (``gates`` as for :func:`grp`)."""
    vals = tuple(values)
    return ModifierGroup(name, vals, tuple(patterns), True, False, _pick(gates, vals), doc)


def _pick(gates: Mapping[str, Gate] | None, values: tuple[str, ...]) -> dict[str, Gate]:
    return {k: v for k, v in (gates or {}).items() if k in values}


def opd(
    name: str,
    kinds: OperandKind,
    ty: str | None = None,
    *,
    width: Width = Width.EXACT,
    scale: int = 1,
    optional: bool = False,
    variadic: bool = False,
    when: Iterable[str] = (),
    count: Count | None = None,
    negatable: bool = False,
    gate: Gate | None = None,
    doc: str = "",
    values: Values | None = None,
) -> OperandSpec:
    """An operand; ``ty`` is a group name prefixed by ``@`` (``"@type"``) or a fixed type."""
    group = ty[1:] if ty is not None and ty.startswith("@") else None
    fixed = ty if ty is not None and not ty.startswith("@") else None
    if fixed is None and group is None:
        width = Width.ANY
    return OperandSpec(
        name,
        kinds,
        group,
        fixed,
        width,
        scale,
        optional,
        variadic,
        tuple(when),
        count,
        negatable,
        gate,
        doc,
        values,
    )


def spec(
    name: str,
    forms: Iterable[Form],
    gate: Gate,
    doc: str,
    summary: str,
    family: str,
    *,
    aliases: Iterable[str] = (),
    examples: Iterable[str] = (),
    alias_gates: Mapping[str, Gate] | None = None,
) -> InstructionSpec:
    """An instruction spec (see :class:`InstructionSpec`)."""
    return InstructionSpec(
        name,
        tuple(forms),
        gate,
        doc,
        summary,
        family,
        tuple(aliases),
        tuple(examples),
        dict(alias_gates or {}),
    )


def form(
    groups: Iterable[ModifierGroup],
    operands: Iterable[OperandSpec],
    gate: Gate = NO_GATE,
    note: str = "",
    *,
    names: Iterable[str] = (),
    in_order: Iterable[str] = (),
) -> Form:
    """A form (see :class:`Form`)."""
    return Form(tuple(groups), tuple(operands), gate, note, tuple(names), tuple(in_order))


# Operands that recur in most families.


def dst(ty: str | None = "@type", *, name: str = "d", scale: int = 1) -> OperandSpec:
    """A destination register."""
    return opd(name, REG, ty, scale=scale)


def src(
    name: str,
    ty: str | None = "@type",
    *,
    optional: bool = False,
    when: Iterable[str] = (),
    scale: int = 1,
    gate: Gate | None = None,
) -> OperandSpec:
    """A source that is a register or an immediate."""
    return opd(name, REG | IMM, ty, optional=optional, when=when, scale=scale, gate=gate)


def psrc(name: str, *, optional: bool = False, when: Iterable[str] = ()) -> OperandSpec:
    """A predicate source, ``p`` or ``!p`` (an immediate ``0``/``1`` is accepted too)."""
    return opd(name, PRED | IMM, "pred", negatable=True, optional=optional, when=when)


def pdst(name: str = "p") -> OperandSpec:
    """A predicate destination."""
    return opd(name, PRED, "pred")


def addr(name: str = "a", *, optional: bool = False, when: Iterable[str] = ()) -> OperandSpec:
    """An address operand."""
    return opd(name, ADDR, optional=optional, when=when)


def imm(name: str, *, optional: bool = False, when: Iterable[str] = ()) -> OperandSpec:
    """An immediate-only operand."""
    return opd(name, IMM, optional=optional, when=when)


def policy(when: str = "L2::cache_hint") -> OperandSpec:
    """The 64-bit ``cache-policy`` operand that ``.L2::cache_hint`` adds."""
    return opd("cache-policy", REG, "b64", when=(when,))
