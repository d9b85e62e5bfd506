"""The operand checks: kinds, counts, vector sizes, immediate values and register widths.

Which optional operands are spelled (and which of the forms a mnemonic fits the operands
fit best) is decided here too, since it depends on the operands' kinds and declared types.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from ..instructions import Instruction
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
from ..types import PtxType, TypeKind
from ._diagnostics import Diagnostic, DiagnosticCode, RegType, _Match
from ._model import Form, OperandKind, OperandSpec, Width

__all__: list[str] = []


def _bits(kinds: OperandKind) -> int:
    """The flags as a plain int.

    ``&`` on ints is many times faster than on ``enum.Flag``, and the operand checks test
    kinds for every operand of every instruction shape.
    """
    value: int = kinds._value_
    return value


_REGISTER = _bits(OperandKind.REGISTER)
_PREDICATE = _bits(OperandKind.PREDICATE)
_IMMEDIATE = _bits(OperandKind.IMMEDIATE)

_NAME_KINDS = _bits(OperandKind.SYMBOL | OperandKind.LABEL | OperandKind.REGISTER)
"""What a bare name may stand for: a variable, a label, or a register parameter of the
function (``.reg .b32 x``), which the parser cannot tell from a variable."""

_ACCEPTED_BY: dict[type, int] = {
    Register: _REGISTER | _PREDICATE,
    SpecialRegister: _REGISTER | _PREDICATE,
    Immediate: _IMMEDIATE,
    Symbol: _NAME_KINDS,
    LabelRef: _NAME_KINDS,
    BinaryExpr: _IMMEDIATE | _bits(OperandKind.SYMBOL),
    UnaryExpr: _IMMEDIATE | _bits(OperandKind.SYMBOL),
    ParenExpr: _IMMEDIATE | _bits(OperandKind.SYMBOL),
    Address: _bits(OperandKind.ADDRESS),
    VectorOperand: _bits(OperandKind.VECTOR),
    Sink: _bits(OperandKind.SINK),
    PredPair: _bits(OperandKind.PRED_PAIR),
    ParenList: _bits(OperandKind.PARAM_LIST),
}
"""For each operand node class, the operand kinds (as :func:`_bits`) of which one must be
allowed."""


def _kind_ok(node: Operand, op: OperandSpec) -> bool:
    cls = type(node)
    if cls is Negated:
        return op.negatable and _kind_ok(node.operand, op)  # type: ignore[union-attr]
    accepted = _ACCEPTED_BY.get(cls)
    if accepted is None:
        return False
    kinds = _bits(op.kinds)
    if kinds & accepted:
        return True
    # Predefined constants such as WARP_SZ stand for numbers.
    return (
        accepted == _NAME_KINDS
        and node.name == "WARP_SZ"  # type: ignore[union-attr]
        and bool(kinds & _IMMEDIATE)
    )


def _predicate_only(op: OperandSpec) -> bool:
    """Whether the operand takes a predicate register and no value register."""
    kinds = _bits(op.kinds)
    return bool(kinds & _PREDICATE) and not kinds & _REGISTER


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
    wants_pred = _predicate_only(op) or op.type == "pred"
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
    reg_type: RegType,
) -> str | None:
    """The problem with a register's declared type, if any (to follow the operand's label)."""
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
        return f"expects {exp}, but {node.name} is declared {have.ptx}"
    if want_pred or have.kind is TypeKind.OPAQUE:
        return None
    bits = _want_bits(want, op)
    if op.width is Width.AT_LEAST:
        if have.bits >= bits:
            return None
        return (
            f"expects a register of at least {bits} bits for {want.ptx}, but"
            f" {node.name} is declared {have.ptx}"
        )
    if have.bits == bits:
        return None
    return f"expects a {bits}-bit register for {want.ptx}, but {node.name} is declared {have.ptx}"


def _check_count(node: Operand, op: OperandSpec, m: _Match) -> str | None:
    """The problem with a vector's size or an address's coordinates (after the label)."""
    count, why = _expected_count(op, m.slots)
    if count is None:
        return None
    why_text = f" ({why})" if why else ""
    if isinstance(node, Address):
        coords = next((e for e in node.extra if isinstance(e, VectorOperand)), None)
        if coords is None or count <= 0 or len(coords.elements) == count:
            return None
        return f"expects {count} coordinates{why_text}, but got {len(coords.elements)}"
    if isinstance(node, VectorOperand):
        n = len(node.elements)
        if count == 0 and n != 1:
            return f"expects a single register{why_text}, but got a vector of {n}"
        if count > 0 and n != count:
            return f"expects a vector of {count} elements{why_text}, but got {n}"
        return None
    if count > 1 and isinstance(node, Register | PredPair | Immediate):
        return f"expects a vector of {count} elements{why_text}, but got {_describe(node)}"
    return None


def _check_values(node: Operand, op: OperandSpec, m: _Match) -> str | None:
    """The problem with an immediate outside the operand's values, if any (after the label)."""
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
            where = f"element {k} " if vector else ""
            return f"{where}must be {_spell_values(legal)}, but got {element.text}"
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


def _check_operands(
    insn: Instruction,
    m: _Match,
    ops: list[OperandSpec],
    layout: list[OperandSpec] | None,
    reg_type: RegType | None,
    out: list[Diagnostic],
) -> None:
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
                f"{insn.mnemonic} expects {expected} {noun}{names}, but got {len(nodes)}",
            )
        )
        return
    for i, (node, op) in enumerate(zip(nodes, layout, strict=True)):
        if not _kind_ok(node, op):
            msg = f"expects {_kind_words(op.kinds)}, but got {_describe(node)}"
            out.append(Diagnostic(DiagnosticCode.OPERAND_KIND, _label(insn, i, op, msg), i))
            continue
        problem = _check_count(node, op, m)
        if problem is not None:
            out.append(Diagnostic(DiagnosticCode.VECTOR_SIZE, _label(insn, i, op, problem), i))
        problem = _check_values(node, op, m)
        if problem is not None:
            msg = _label(insn, i, op, problem)
            out.append(Diagnostic(DiagnosticCode.IMMEDIATE_VALUE, msg, i))
        if reg_type is None:
            continue
        want = _operand_type(op, m.slots)
        if _predicate_only(op):
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
            problem = _check_register(reg, ty, op, reg_type)
            if problem is not None:
                msg = _label(insn, i, op, problem)
                out.append(Diagnostic(DiagnosticCode.REGISTER_WIDTH, msg, i))


def _label(insn: Instruction, i: int, op: OperandSpec, problem: str) -> str:
    """A problem with operand ``i``, prefixed with which operand it is."""
    return f"{insn.mnemonic} operand {i} ({op.name}) {problem}"
