"""The checker: matches an instruction against the table and reports what does not fit.

Matching a mnemonic (spec lookup, form choice, modifier slots, gates) depends only on the
opcode and modifiers, so it is cached per mnemonic; operands are checked per instruction.
"""

from __future__ import annotations

import difflib
import enum
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from ..instructions import Instruction
from ..node import Span
from ..operands import (
    Address,
    BinaryExpr,
    Immediate,
    LabelRef,
    Negated,
    Operand,
    ParenExpr,
    ParenList,
    PredPair,
    Register,
    Sink,
    SpecialRegister,
    Symbol,
    UnaryExpr,
    VectorOperand,
)
from ..special_registers import SPECIAL_REGISTERS
from ..targets import TARGETS, TargetInfo
from ..types import PtxType, TypeKind
from ._model import (
    NO_GATE,
    Form,
    Gate,
    InstructionSpec,
    ModifierGroup,
    OperandKind,
    OperandSpec,
    Requirements,
    Width,
)
from ._registry import INDEX

__all__ = ["Diagnostic", "DiagnosticCode", "Match", "check", "lookup", "match", "requirements"]

RegType = Callable[[str], PtxType | None]


class DiagnosticCode(enum.Enum):
    """What kind of problem a :class:`Diagnostic` reports."""

    UNKNOWN_OPCODE = "unknown-opcode"
    """The table has no instruction by that name."""
    UNKNOWN_MODIFIER = "unknown-modifier"
    """A modifier the instruction does not take, or not with the other modifiers given."""
    MISSING_MODIFIER = "missing-modifier"
    """A required modifier (a type, a shape, a state space) is absent."""
    OPERAND_COUNT = "operand-count"
    """Too few or too many operands."""
    OPERAND_KIND = "operand-kind"
    """An operand of the wrong kind: an address where a register goes, and so on."""
    REGISTER_WIDTH = "register-width"
    """A register declared with a width (or as a predicate) the instruction does not take."""
    VECTOR_SIZE = "vector-size"
    """A vector operand with the wrong number of elements."""
    IMMEDIATE_VALUE = "immediate-value"
    """An immediate outside the values the operand takes (a selector, a flag)."""
    TARGET = "target"
    """The ``.target`` lacks the instruction or one of its modifiers."""
    PTX_VERSION = "ptx-version"
    """The ``.version`` is older than the instruction or one of its modifiers."""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in an instruction.

    Attributes:
        code: what kind of problem.
        message: what was expected, what was got, and the fix when it is mechanical.
        operand: the index of the operand concerned, if one is.
        span: where the instruction is, when it was parsed with spans; ``str()`` then
            starts with ``file:line:col: ``.
    """

    code: DiagnosticCode
    message: str
    operand: int | None = None
    span: Span | None = None

    def __str__(self) -> str:
        return self.message if self.span is None else f"{self.span}: {self.message}"


@dataclass(frozen=True, slots=True)
class _Match:
    """What the mnemonic alone says: spec, form, slot values, diagnostics, gates."""

    spec: InstructionSpec | None
    rest: tuple[str, ...] = ()
    form: Form | None = None
    slots: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()
    gates: tuple[tuple[str, Gate], ...] = ()
    others: tuple[_Match, ...] = ()
    """Later forms the modifiers fit too, tried when the operands do not fit this one."""


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
    for m in mods:
        taken: ModifierGroup | None = None
        is_type = PtxType.from_name(m) is not None
        for i, g in enumerate(form.groups):
            if is_type and i < last_type:
                continue
            if g.name in form.in_order:
                if i < last_seq or not g.accepts(m):
                    continue
                last_seq = i
            if g.accepts(m):
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


# ---------------------------------------------------------------------------------- operands


def _kind_ok(node: Operand, op: OperandSpec) -> bool:
    k = op.kinds
    if isinstance(node, Register | SpecialRegister):
        return bool(k & (OperandKind.REGISTER | OperandKind.PREDICATE))
    if isinstance(node, Immediate):
        return bool(k & OperandKind.IMMEDIATE)
    if isinstance(node, Symbol | LabelRef):
        # A bare name may also be a register parameter of the function (``.reg .b32 x``),
        # which the parser cannot tell from a variable.
        if k & (OperandKind.SYMBOL | OperandKind.LABEL | OperandKind.REGISTER):
            return True
        # Predefined constants such as WARP_SZ stand for numbers.
        return bool(k & OperandKind.IMMEDIATE) and node.name == "WARP_SZ"
    if isinstance(node, BinaryExpr | UnaryExpr | ParenExpr):
        return bool(k & (OperandKind.IMMEDIATE | OperandKind.SYMBOL))
    if isinstance(node, Address):
        return bool(k & OperandKind.ADDRESS)
    if isinstance(node, VectorOperand):
        return bool(k & OperandKind.VECTOR)
    if isinstance(node, Sink):
        return bool(k & OperandKind.SINK)
    if isinstance(node, PredPair):
        return bool(k & OperandKind.PRED_PAIR)
    if isinstance(node, ParenList):
        return bool(k & OperandKind.PARAM_LIST)
    if isinstance(node, Negated):
        return op.negatable and _kind_ok(node.operand, op)
    return False


_KIND_WORDS = (
    (OperandKind.REGISTER, "a register"),
    (OperandKind.PREDICATE, "a predicate"),
    (OperandKind.IMMEDIATE, "an immediate"),
    (OperandKind.ADDRESS, "an address"),
    (OperandKind.VECTOR, "a vector"),
    (OperandKind.LABEL, "a label"),
    (OperandKind.SYMBOL, "a symbol"),
    (OperandKind.SINK, "the sink '_'"),
    (OperandKind.PRED_PAIR, "a 'd|p' pair"),
    (OperandKind.PARAM_LIST, "a parenthesised list"),
)


def _kind_words(kinds: OperandKind) -> str:
    words = [w for k, w in _KIND_WORDS if kinds & k]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def _render(node: object) -> str:
    """A compact PTX-like spelling of an operand, for messages."""
    if isinstance(node, Register | SpecialRegister | Symbol | LabelRef):
        return node.name
    if isinstance(node, Immediate):
        return node.text
    if isinstance(node, Sink):
        return "_"
    if isinstance(node, Negated):
        return "!" + _render(node.operand)
    if isinstance(node, PredPair):
        return f"{_render(node.first)}|{_render(node.second)}"
    if isinstance(node, VectorOperand):
        return "{" + ", ".join(_render(e) for e in node.elements) + "}"
    if isinstance(node, ParenList):
        return "(" + ", ".join(_render(e) for e in node.items) + ")"
    if isinstance(node, Address):
        inner = _render(node.base)
        if node.offset is not None:
            inner += node.sign + _render(node.offset)
        for e in node.extra:
            inner += ", " + _render(e)
        return "[" + inner + "]"
    if isinstance(node, BinaryExpr):
        return f"{_render(node.lhs)}{node.op}{_render(node.rhs)}"
    if isinstance(node, UnaryExpr):
        return node.op + _render(node.operand)
    if isinstance(node, ParenExpr):
        return "(" + _render(node.inner) + ")"
    return type(node).__name__


def _describe(node: Operand) -> str:
    words = {
        Register: "the register",
        SpecialRegister: "the special register",
        Immediate: "the immediate",
        Symbol: "the symbol",
        LabelRef: "the label",
        Address: "the address",
        VectorOperand: "the vector",
        Sink: "the sink",
        PredPair: "the pair",
        ParenList: "the list",
        Negated: "the negated operand",
    }
    return f"{words.get(type(node), 'the expression')} {_render(node)}"


def _active(
    form: Form, rest: tuple[str, ...], slots: Mapping[str, tuple[str, ...]]
) -> list[OperandSpec]:
    def holds(cond: str) -> bool:
        if cond.startswith("!"):
            return not holds(cond[1:])
        if "=" in cond:
            g, _, v = cond.partition("=")
            return v in slots.get(g, ())
        return cond in rest

    return [op for op in form.operands if not op.when or any(holds(c) for c in op.when)]


def _signature(ops: Sequence[OperandSpec]) -> str:
    parts: list[str] = []
    for op in ops:
        name = op.name + ("..." if op.variadic else "")
        if op.optional:
            parts.append(f"[, {name}]" if parts else f"[{name}]")
        else:
            parts.append(f", {name}" if parts else name)
    return "".join(parts)


def _type_ok(node: Operand, op: OperandSpec, reg_type: RegType | None) -> bool:
    """Whether a register's declared type allows it in this operand.

    A predicate where a value goes, or the reverse, does not; used to tell optional
    operands apart.
    """
    if isinstance(node, Negated):
        node = node.operand
    if reg_type is None or not isinstance(node, Register):
        return True
    have = reg_type(node.name)
    if have is None:
        return True
    pred_only = bool(op.kinds & OperandKind.PREDICATE) and not op.kinds & OperandKind.REGISTER
    wants_pred = pred_only or op.type == "pred"
    wants_value = op.type is not None and op.type != "pred"
    is_pred = have is PtxType.PRED
    return not ((is_pred and wants_value) or (not is_pred and wants_pred))


def _arrange(
    ops: list[OperandSpec], nodes: tuple[Operand, ...], reg_type: RegType | None = None
) -> tuple[list[OperandSpec], int] | None:
    """Choose which optional operands are present, and how well the result fits.

    The count must fit (else ``None``). Among the layouts that do, the first whose kinds and
    declared register types fit wins (quality 2), then the first whose kinds fit (1), then
    the first (0).
    """
    required = [i for i, op in enumerate(ops) if not op.optional]
    optional = [i for i, op in enumerate(ops) if op.optional]
    n = len(nodes)
    variadic = bool(ops) and ops[-1].variadic
    if variadic and n > len(ops):
        return ops + [ops[-1]] * (n - len(ops)), 1
    extra = n - len(required)
    if extra < 0 or extra > len(optional):
        if variadic and not ops[-1].optional and n == len(ops) - 1:
            return ops[:-1], 1
        return None
    best: tuple[list[OperandSpec], int] | None = None
    for chosen in itertools.combinations(optional, extra):
        keep = set(required) | set(chosen)
        layout = [op for i, op in enumerate(ops) if i in keep]
        pairs = list(zip(nodes, layout, strict=True))
        quality = 0
        if all(_kind_ok(node, op) for node, op in pairs):
            quality = 1
            if all(_type_ok(node, op, reg_type) for node, op in pairs):
                return layout, 2
        if best is None or quality > best[1]:
            best = (layout, quality)
    return best


def _expected_count(
    op: OperandSpec, slots: Mapping[str, tuple[str, ...]]
) -> tuple[int | None, str]:
    """(count, reason): None = any size; 0 = a scalar; n = a vector of n elements."""
    c = op.count
    if c is None:
        return None, ""
    if isinstance(c, int):
        return c, ""
    if isinstance(c, str):
        vals = slots.get(c)
        if not vals:
            return 0, f"no .{c} modifier"
        digits = "".join(ch for ch in vals[0] if ch.isdigit())
        return (int(digits) if digits else None), "." + vals[0]
    n = c(slots)
    return n, ""


def _operand_type(op: OperandSpec, slots: Mapping[str, tuple[str, ...]]) -> PtxType | None:
    if op.type is not None:
        return PtxType.from_name(op.type)
    if op.type_group is not None:
        vals = slots.get(op.type_group)
        if vals:
            return PtxType.from_name(vals[0])
    return None


def _want_bits(want: PtxType, op: OperandSpec) -> int:
    if op.width is Width.FRAGMENT:
        return max(32, want.bits)
    return want.bits * op.scale


def _check_register(
    node: Operand,
    want: PtxType | None,
    op: OperandSpec,
    label: str,
    reg_type: RegType,
) -> str | None:
    """The problem with a register's declared type, if any."""
    if isinstance(node, Negated):
        node = node.operand
    if not isinstance(node, Register) or want is None or op.width is Width.ANY:
        return None
    have = reg_type(node.name)
    if have is None:
        return None
    want_pred = want is PtxType.PRED
    if want_pred != (have is PtxType.PRED):
        exp = "a .pred register" if want_pred else f"a {_want_bits(want, op)}-bit register"
        return f"{label} expects {exp}, but {node.name} is declared {have.ptx}"
    if want_pred or have.kind is TypeKind.OPAQUE:
        return None
    bits = _want_bits(want, op)
    if op.width is Width.AT_LEAST:
        if have.bits >= bits:
            return None
        return (
            f"{label} expects a register of at least {bits} bits for {want.ptx}, but"
            f" {node.name} is declared {have.ptx}"
        )
    if have.bits == bits:
        return None
    return (
        f"{label} expects a {bits}-bit register for {want.ptx}, but {node.name} is declared"
        f" {have.ptx}"
    )


def _check_count(node: Operand, op: OperandSpec, m: _Match, label: str) -> str | None:
    """The problem with a vector operand's size (or a tensor address's coordinates)."""
    count, why = _expected_count(op, m.slots)
    if count is None:
        return None
    why_text = f" ({why})" if why else ""
    if isinstance(node, Address):
        coords = next((e for e in node.extra if isinstance(e, VectorOperand)), None)
        if coords is None or count <= 0 or len(coords.elements) == count:
            return None
        return f"{label} expects {count} coordinates{why_text}, but got {len(coords.elements)}"
    if isinstance(node, VectorOperand):
        n = len(node.elements)
        if count == 0 and n != 1:
            return f"{label} expects a single register{why_text}, but got a vector of {n}"
        if count > 0 and n != count:
            return f"{label} expects a vector of {count} elements{why_text}, but got {n}"
        return None
    if count > 1 and isinstance(node, Register | PredPair | Immediate):
        return f"{label} expects a vector of {count} elements{why_text}, but got {_describe(node)}"
    return None


def _check_values(node: Operand, op: OperandSpec, m: _Match, label: str) -> str | None:
    """The problem with an immediate outside the values the operand takes, if any."""
    allowed = op.values(m.slots) if op.values is not None else None
    if allowed is None:
        return None
    vector = isinstance(node, VectorOperand)
    elements = node.elements if isinstance(node, VectorOperand) else (node,)
    for k, (element, legal) in enumerate(zip(elements, allowed, strict=False)):
        if not isinstance(element, Immediate):
            continue
        try:
            value = int(element.text, 0)
        except ValueError:
            continue
        if value not in legal:
            where = f" element {k}" if vector else ""
            return f"{label}{where} must be {_spell_values(legal)}, but got {element.text}"
    return None


def _spell_values(legal: Sequence[int]) -> str:
    """``one of 0, 1`` or, for a long ``range``, ``from 24 to 256 in steps of 8``."""
    if isinstance(legal, range) and len(legal) > 8:
        step = f" in steps of {legal.step}" if legal.step != 1 else ""
        return f"from {legal[0]} to {legal[-1]}{step}"
    return "one of " + ", ".join(map(str, legal))


def _layout(
    insn: Instruction, m: _Match, reg_type: RegType | None = None
) -> tuple[_Match, list[OperandSpec], list[OperandSpec] | None]:
    """The form to check against, the operands it expects, and which of them are spelled.

    Among the forms the modifiers fit, the first whose operands fit best wins (see
    :func:`_arrange`); when none takes that many operands, the first form is reported.
    """
    first: tuple[_Match, list[OperandSpec], list[OperandSpec] | None] | None = None
    best: tuple[int, _Match, list[OperandSpec], list[OperandSpec]] | None = None
    for cand in (m, *m.others):
        assert cand.form is not None
        ops = _active(cand.form, cand.rest, cand.slots)
        first = first or (cand, ops, None)
        arranged = _arrange(ops, insn.operands, reg_type)
        if arranged is not None and (best is None or arranged[1] > best[0]):
            best = (arranged[1], cand, ops, arranged[0])
            if arranged[1] == 2:
                break
    if best is not None:
        return best[1], best[2], best[3]
    assert first is not None
    return first


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


def _check_operands(
    insn: Instruction,
    m: _Match,
    ops: list[OperandSpec],
    layout: list[OperandSpec] | None,
    reg_type: RegType | None,
    out: list[Diagnostic],
) -> None:
    mnemonic = insn.mnemonic
    nodes = insn.operands
    if layout is None:
        lo = sum(1 for op in ops if not op.optional)
        expected = str(lo) if lo == len(ops) else f"{lo} to {len(ops)}"
        if ops and ops[-1].variadic:
            expected = f"at least {lo}"
        noun = "operand" if expected == "1" else "operands"
        sig = _signature(ops)
        names = f" ({sig})" if sig else ""
        out.append(
            Diagnostic(
                DiagnosticCode.OPERAND_COUNT,
                f"{mnemonic} expects {expected} {noun}{names}, but got {len(nodes)}",
            )
        )
        return
    for i, (node, op) in enumerate(zip(nodes, layout, strict=True)):
        label = f"{mnemonic} operand {i} ({op.name})"
        if not _kind_ok(node, op):
            msg = f"{label} expects {_kind_words(op.kinds)}, but got {_describe(node)}"
            out.append(Diagnostic(DiagnosticCode.OPERAND_KIND, msg, i))
            continue
        problem = _check_count(node, op, m, label)
        if problem is not None:
            out.append(Diagnostic(DiagnosticCode.VECTOR_SIZE, problem, i))
        problem = _check_values(node, op, m, label)
        if problem is not None:
            out.append(Diagnostic(DiagnosticCode.IMMEDIATE_VALUE, problem, i))
        if reg_type is None:
            continue
        want = _operand_type(op, m.slots)
        if op.kinds & OperandKind.PREDICATE and not op.kinds & OperandKind.REGISTER:
            want = PtxType.PRED
        pairs: list[tuple[Operand, PtxType | None]]
        if isinstance(node, PredPair):
            pairs = [(node.first, want), (node.second, PtxType.PRED)]
        elif isinstance(node, VectorOperand):
            pairs = [(e, want) for e in node.elements] if op.count is not None else []
        elif isinstance(node, Address):
            # The type of an address-only operand is that of its base register.
            pairs = [(node.base, want)] if op.kinds == OperandKind.ADDRESS else []
        else:
            pairs = [(node, want)]
        for reg, ty in pairs:
            problem = _check_register(reg, ty, op, label, reg_type)
            if problem is not None:
                out.append(Diagnostic(DiagnosticCode.REGISTER_WIDTH, problem, i))


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
