"""The checker: matches an instruction against the table and reports what does not fit.

Matching a mnemonic (spec lookup, form choice, modifier slots, gates) depends only on the
opcode and modifiers, so it is cached per mnemonic; operands are checked per instruction
(:mod:`._operand_check`).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from ..instructions import Instruction
from ..node import Span
from ..operands import SpecialRegister
from ..special_registers import SPECIAL_REGISTERS
from ..targets import TARGETS, TargetInfo
from ..types import PtxType
from ._diagnostics import Diagnostic, DiagnosticCode, RegType, _Match
from ._model import (
    NO_GATE,
    Form,
    Gate,
    InstructionSpec,
    ModifierGroup,
    OperandSpec,
    Requirements,
)
from ._operand_check import _check_operands, _layout, _operand_type
from ._registry import INDEX

__all__ = [
    "Diagnostic",
    "DiagnosticCode",
    "Match",
    "Verdict",
    "check",
    "lookup",
    "match",
    "requirements",
    "verdict",
]


def lookup(
    opcode: str, modifiers: tuple[str, ...]
) -> tuple[InstructionSpec, tuple[str, ...]] | None:
    """Find the instruction spec a mnemonic belongs to, by longest compound name.

    Args:
        opcode: the first component (``"cp"``).
        modifiers: the remaining components (``("async", "bulk", "tensor", "2d", ...)``).

    Returns:
        The spec and the modifiers left after its compound name, or ``None`` if no spec's
        name starts the mnemonic.
    """
    found = _lookup(opcode, tuple(modifiers))
    return None if found is None else (found[0], found[1])


@lru_cache(maxsize=8192)
def _lookup(
    opcode: str, modifiers: tuple[str, ...]
) -> tuple[InstructionSpec, tuple[str, ...], str] | None:
    for tail, name, sp in INDEX.get(opcode, ()):
        n = len(tail)
        if modifiers[:n] == tail:
            return sp, modifiers[n:], name
    return None


def _fit(
    form: Form, mods: Sequence[str]
) -> tuple[dict[str, tuple[str, ...]], list[tuple[str, ModifierGroup | None]], list[ModifierGroup]]:
    """Place each modifier in the first slot that takes it; report leftovers and gaps.

    Types fill their slots in spelling order: a type is never placed in a slot before the
    slot of a type spelled earlier, so ``cvt.bf16.f16`` does not fit a form whose slots
    read ``.f16.bf16``; nor are the slots of :attr:`Form.in_order` filled out of order.
    """
    filled: dict[str, tuple[str, ...]] = {}
    unplaced: list[tuple[str, ModifierGroup | None]] = []
    last_type = last_seq = -1
    groups = form.groups
    for m in mods:
        taken: ModifierGroup | None = None
        is_type = PtxType.from_name(m) is not None
        for i in form.slots_taking(m):
            g = groups[i]
            if is_type and i < last_type:
                continue
            if g.name in form.in_order:
                if i < last_seq:
                    continue
                last_seq = i
            if is_type:
                last_type = i
            if g.name not in filled:
                filled[g.name] = (m,)
                break
            if g.repeat:
                filled[g.name] += (m,)
                break
            taken = taken or g
        else:
            unplaced.append((m, taken))
    missing = [g for g in form.groups if g.required and g.name not in filled]
    return filled, unplaced, missing


def _choices(groups: Sequence[ModifierGroup], limit: int = 40) -> str:
    seen: dict[str, None] = {}
    for g in groups:
        for c in g.choices():
            seen.setdefault(c, None)
    names = list(seen)
    text = ", ".join(names[:limit])
    return text + (", ..." if len(names) > limit else "")


@lru_cache(maxsize=8192)
def _match(opcode: str, modifiers: tuple[str, ...]) -> _Match:
    found = _lookup(opcode, modifiers)
    mnemonic = ".".join((opcode, *modifiers))
    if found is None:
        if opcode in INDEX:
            names = sorted({sp.name for _, _, sp in INDEX[opcode]})
            msg = (
                f"unknown instruction '{mnemonic}'; expected one of {', '.join(names)}"
                " (or ptx.raw for instructions outside the table)"
            )
        else:
            close = difflib.get_close_matches(opcode, list(INDEX), n=3)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            msg = (
                f"unknown instruction '{mnemonic}': the ISA table has no '{opcode}'{hint}"
                " (use ptx.raw for instructions outside the table)"
            )
        return _Match(None, diagnostics=(Diagnostic(DiagnosticCode.UNKNOWN_OPCODE, msg),))
    sp, rest, alias = found
    fits = [_fit(f, rest) for f in sp.forms]
    fitting = [
        (f, slots)
        for f, (slots, unplaced, missing) in zip(sp.forms, fits, strict=True)
        if not unplaced and not missing
    ]
    matches = [
        _Match(sp, rest, f, slots, (), _gates(sp, f, slots, alias))
        for f, slots in fitting
        if not f.names or alias in f.names
    ]
    if matches:
        return replace(matches[0], others=tuple(matches[1:]))
    if fitting:
        f, slots = fitting[0]
        msg = f"{sp.name} ({f.note}) is spelled {' or '.join(f.names)}, not {alias} ({mnemonic})"
        return _Match(sp, rest, None, slots, (Diagnostic(DiagnosticCode.UNKNOWN_MODIFIER, msg),))
    # No form fits: report against the closest one.
    best = min(
        range(len(sp.forms)),
        key=lambda i: (len(fits[i][1]) + len(fits[i][2]), -len(fits[i][0])),
    )
    form = sp.forms[best]
    slots, unplaced, missing = fits[best]
    diags: list[Diagnostic] = []
    every = [g for f in sp.forms for g in f.groups]
    for value, taken in unplaced:
        if taken is not None:
            first = slots[taken.name][0]
            diags.append(
                Diagnostic(
                    DiagnosticCode.UNKNOWN_MODIFIER,
                    f"{mnemonic}: '.{value}' repeats the .{taken.name} modifier of {sp.name},"
                    f" already given as '.{first}'; keep one",
                )
            )
            continue
        others = [f for f in sp.forms if any(g.accepts(value) for g in f.groups)]
        if not others:
            spellings = [v for g in every for v in g.values]
            close = difflib.get_close_matches(value, spellings, n=1)
            hint = f"did you mean '.{close[0]}'? " if close else ""
            diags.append(
                Diagnostic(
                    DiagnosticCode.UNKNOWN_MODIFIER,
                    f"unknown modifier '.{value}' for {sp.name}; {hint}expected one of"
                    f" {_choices(every)}",
                )
            )
            continue
        clash = [
            "." + m
            for m in rest
            if m != value and not any(g.accepts(m) for f in others for g in f.groups)
        ]
        if clash:
            text = (
                f"modifier '.{value}' is not valid for {sp.name} with {', '.join(clash)}"
                f" ({mnemonic}); with {', '.join(clash)}, {sp.name} takes"
            )
        else:
            text = (
                f"modifier '.{value}' does not combine with the other modifiers of {mnemonic};"
                f" the closest form of {sp.name} takes"
            )
        diags.append(Diagnostic(DiagnosticCode.UNKNOWN_MODIFIER, f"{text} {_choices(form.groups)}"))
    for g in missing if not unplaced else ():
        diags.append(
            Diagnostic(
                DiagnosticCode.MISSING_MODIFIER,
                f"{mnemonic} needs a .{g.name} modifier (one of {_choices([g], 24)}),"
                f" but got none; e.g. {sp.name}.{g.values[0] if g.values else g.patterns[0]}",
            )
        )
    return _Match(sp, rest, None, slots, tuple(diags), ())


def _gates(
    sp: InstructionSpec, form: Form, slots: Mapping[str, tuple[str, ...]], alias: str
) -> tuple[tuple[str, Gate], ...]:
    pieces: list[tuple[str, Gate]] = [(sp.name, sp.gate)]
    if alias in sp.alias_gates:
        pieces.append((alias, sp.alias_gates[alias]))
    if form.gate != NO_GATE:
        label = f"{sp.name} ({form.note})" if form.note else sp.name
        pieces.append((label, form.gate))
    for g in form.groups:
        for v in slots.get(g.name, ()):
            gate = g.gates.get(v)
            if gate is not None:
                pieces.append((f"{sp.name} with .{v}", gate))
    return tuple(pieces)


def _operand_gates(
    insn: Instruction, m: _Match, layout: list[OperandSpec] | None
) -> list[tuple[str, Gate]]:
    assert m.spec is not None
    out: list[tuple[str, Gate]] = []
    for op in layout or ():
        if op.gate is not None:
            out.append((f"{m.spec.name} with the {op.name} operand", op.gate))
    for node in insn.operands:
        if isinstance(node, SpecialRegister):
            info = SPECIAL_REGISTERS.get(node.name)
            if info is not None:
                out.append((node.name, Gate(info.min_ptx, info.min_sm)))
    return out


def _combined(pieces: Sequence[tuple[str, Gate]]) -> Gate:
    gate = NO_GATE
    for _, g in pieces:
        gate = gate.combine(g)
    return gate


def _check_gates(
    pieces: Sequence[tuple[str, Gate]],
    target: TargetInfo,
    version: tuple[int, int],
    out: list[Diagnostic],
) -> None:
    total = _combined(pieces)
    fix = total.suggest()
    for label, gate in pieces:
        if not gate.allows(target):
            hint = f"; pass arch='{fix}'" if fix else ""
            out.append(
                Diagnostic(
                    DiagnosticCode.TARGET,
                    f"{label} needs {gate.describe_targets()}, but the kernel targets"
                    f" {target.name}{hint}",
                )
            )
    for label, gate in pieces:
        if version < gate.ptx:
            out.append(
                Diagnostic(
                    DiagnosticCode.PTX_VERSION,
                    f"{label} needs PTX ISA {gate.ptx[0]}.{gate.ptx[1]} or newer, but the kernel"
                    f" declares .version {version[0]}.{version[1]}; use .version"
                    f" {total.ptx[0]}.{total.ptx[1]}",
                )
            )


def check(
    insn: Instruction,
    *,
    target: str,
    version: tuple[int, int],
    reg_type: RegType | None = None,
) -> tuple[Diagnostic, ...]:
    """Check one instruction against the ISA table.

    Args:
        insn: the instruction.
        target: the kernel's ``.target`` architecture (``"sm_90a"``).
        version: the kernel's ``.version`` as ``(major, minor)``.
        reg_type: the declared type of a register by name (``"%r1"`` -> ``PtxType.B32``),
            ``None`` when unknown. Without it, register widths are not checked.

    Returns:
        The problems found, empty when the instruction is well formed for that target and
        version.

    Raises:
        ValueError: ``target`` is not a known ``sm_XX`` target.
    """
    info = TARGETS.get(target)
    if info is None:
        raise ValueError(f"unknown PTX target {target!r}; expected a name such as 'sm_90a'")
    m = _match(insn.opcode, insn.modifiers)
    if m.spec is None or m.form is None:
        return _located(m.diagnostics, insn.span)
    out: list[Diagnostic] = []
    m, ops, layout = _layout(insn, m, reg_type)
    _check_gates([*m.gates, *_operand_gates(insn, m, layout)], info, version, out)
    _check_operands(insn, m, ops, layout, reg_type, out)
    return _located(out, insn.span)


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether :func:`check` passes an instruction, for every target and version at once.

    Everything :func:`check` judges apart from the kernel's ``.target`` and ``.version``
    (modifiers, operand kinds, counts, values and register widths) is decided once; what is
    left is the list of gates the instruction needs, each judged on its own as
    :func:`check` does. A caller checking the same instruction shapes under many targets
    (a transpiler over many files) keeps one verdict per :func:`shape_key`.

    Attributes:
        well_formed: whether the instruction fits the table whatever the target; when it
            does not, :func:`check` reports a problem for every target and version.
        gates: what the instruction, its form, its modifiers, operands and special
            registers each need (empty when not ``well_formed``).
    """

    well_formed: bool
    gates: tuple[Gate, ...] = ()

    def passes(self, target: str, version: tuple[int, int]) -> bool:
        """Whether :func:`check` finds nothing for this ``.target`` and ``.version``.

        Raises:
            ValueError: ``target`` is not a known ``sm_XX`` target.
        """
        info = TARGETS.get(target)
        if info is None:
            raise ValueError(f"unknown PTX target {target!r}; expected a name such as 'sm_90a'")
        return self.well_formed and all(g.allows(info) and version >= g.ptx for g in self.gates)


_ILL_FORMED = Verdict(False)


def verdict(insn: Instruction, *, reg_type: RegType | None = None) -> Verdict:
    """Judge an instruction once for every target and version (see :class:`Verdict`).

    ``verdict(insn, reg_type=t).passes(target, version)`` is true exactly when
    ``check(insn, target=target, version=version, reg_type=t)`` is empty; no messages are
    built, so a failure is asked of :func:`check` for its diagnostics.

    Args:
        insn: the instruction.
        reg_type: declared register types, as for :func:`check`.
    """
    m = _match(insn.opcode, insn.modifiers)
    if m.spec is None or m.form is None:
        return _ILL_FORMED
    m, ops, layout = _layout(insn, m, reg_type)
    problems: list[Diagnostic] = []
    _check_operands(insn, m, ops, layout, reg_type, problems)
    if problems:
        return _ILL_FORMED
    pieces = [*m.gates, *_operand_gates(insn, m, layout)]
    return Verdict(True, tuple(dict.fromkeys(g for _, g in pieces if g != NO_GATE)))


def _located(diags: Sequence[Diagnostic], span: Span | None) -> tuple[Diagnostic, ...]:
    if span is None:
        return tuple(diags)
    return tuple(replace(d, span=span) for d in diags)


def requirements(insn: Instruction, *, reg_type: RegType | None = None) -> Requirements | None:
    """What ``insn`` needs from the kernel's ``.version`` and ``.target``.

    The gates of the instruction, of its form and of each modifier, operand and special
    register it uses are combined, so a DSL can pick the lowest ``.version`` (and the target)
    that covers every instruction of a kernel (see :meth:`Requirements.combine`).

    Args:
        insn: the instruction.
        reg_type: declared register types, as for :func:`check`; they tell optional operands
            apart where the syntax does not (``cp.async``'s ``ignore-src`` predicate, PTX 7.5,
            versus its ``src-size``).

    Returns:
        The combined requirements, or ``None`` when the ISA table has no instruction by that
        name (``ptx.raw`` text the table does not model).
    """
    m = _match(insn.opcode, insn.modifiers)
    if m.spec is None:
        return None
    if m.form is None:
        return Requirements.of(m.spec.gate)
    m, _, layout = _layout(insn, m, reg_type)
    return Requirements.of(_combined([*m.gates, *_operand_gates(insn, m, layout)]))


@dataclass(frozen=True, slots=True)
class Match:
    """How one spelled instruction fits the table: its spec, form, slot values and operands.

    This is what a consumer that gives instructions meaning (the emulator) reads instead of
    re-parsing modifiers: the modifiers placed in their slots, and each spelled operand paired
    with the table's :class:`OperandSpec` for it, so operands are found by their ISA names.

    Attributes:
        spec: the instruction.
        form: the form the modifiers and operands fit.
        name: the compound name or alias the mnemonic matched (``"bar.cta.sync"``).
        slots: the modifiers by slot name (``{"type": ("f32",), "rnd": ("rn",)}``).
        operands: the table's operand for each spelled operand, in order, or ``None`` when
            the operand count fits no layout of the form.
    """

    spec: InstructionSpec = field(repr=False)
    form: Form = field(repr=False)
    name: str = ""
    slots: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    operands: tuple[OperandSpec, ...] | None = field(default=None, repr=False)

    def slot(self, name: str) -> str | None:
        """The (first) modifier in slot ``name``, without dot, or ``None`` when absent."""
        values = self.slots.get(name)
        return values[0] if values else None

    def index(self, name: str) -> int | None:
        """The position of the spelled operand the table calls ``name``, if it is spelled."""
        for i, op in enumerate(self.operands or ()):
            if op.name == name:
                return i
        return None

    def operand_type(self, name: str) -> PtxType | None:
        """The type the table gives operand ``name`` (its slot's type or a fixed type)."""
        for op in self.operands or self.form.operands:
            if op.name == name:
                return _operand_type(op, self.slots)
        return None


def match(insn: Instruction, *, reg_type: RegType | None = None) -> Match | None:
    """Match an instruction against the table without judging it.

    Args:
        insn: the instruction.
        reg_type: declared register types, as for :func:`check`; they tell optional operands
            apart where the syntax does not.

    Returns:
        The :class:`Match`, or ``None`` when the table has no instruction by that name or the
        modifiers fit none of its forms (:func:`check` says why).
    """
    m = _match(insn.opcode, insn.modifiers)
    if m.spec is None or m.form is None:
        return None
    m, _, layout = _layout(insn, m, reg_type)
    assert m.spec is not None and m.form is not None
    found = _lookup(insn.opcode, tuple(insn.modifiers))
    name = found[2] if found is not None else m.spec.name
    ops = tuple(layout) if layout is not None else None
    return Match(m.spec, m.form, name, dict(m.slots), ops)
