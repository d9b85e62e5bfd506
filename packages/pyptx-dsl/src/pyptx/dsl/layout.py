"""Recorded formatting: the trivia of a PTX module as data, re-applied to a traced module.

The transpiler turns PTX into Python that rebuilds the same IR. Formatting (indentation,
blank lines, comments, debug-style spacing) is not code, so it travels separately as a
:class:`SourceLayout`: one *style* per statement, where a style is the trivia of the statement's
own nodes (the statement and its operands, parameters, declarators...; nested statements
have their own style) in pre-order. :meth:`SourceLayout.apply` puts the styles back on a traced
module. Statements are matched by *kind* (node class, opcode, node count) with a sequence
alignment, so after a hand edit only the edited statements fall back to the canonical layout
and every other line keeps its recorded formatting.

The serialized form (:meth:`SourceLayout.dumps`) is JSON text: a table of distinct styles and the
run-length encoded style index of every statement. It never contains source lines, only the
gaps between tokens.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher

from pyptx.ir import (
    Immediate,
    Instruction,
    Module,
    Node,
    Register,
    SectionData,
    VariableDecl,
    child_fields,
    node_fields,
)

__all__ = ["SourceLayout", "SourceLayoutError"]

_FORMAT = 1

Trivia = tuple[str, ...] | None
Style = tuple[str, tuple[Trivia, ...]]
"""(kind, trivia of each node of the statement in pre-order)."""


class SourceLayoutError(ValueError):
    """The serialized layout is malformed (not produced by :meth:`SourceLayout.dumps`)."""


def _is_unit(node: Node) -> bool:
    return node.STATEMENT or isinstance(node, Module)


def _kind(node: Node, size: int) -> str:
    if isinstance(node, Instruction):
        return f"{node.opcode}:{size}"
    if isinstance(node, VariableDecl):
        return f"decl:{size}"
    return f"{type(node).__name__}:{size}"


def _own_nodes(unit: Node) -> Iterator[Node]:
    """The unit and its non-statement descendants, pre-order (statements are their own units)."""
    stack: list[Node] = [unit]
    while stack:
        node = stack.pop()
        yield node
        kids: list[Node] = []
        for name in child_fields(type(node)):
            _nodes_in(getattr(node, name), kids)
        stack.extend(reversed([k for k in kids if not _is_unit(k)]))


def _nodes_in(value: object, out: list[Node]) -> None:
    if isinstance(value, Node):
        out.append(value)
    elif isinstance(value, tuple):
        for v in value:
            _nodes_in(v, out)


def _units(root: Node) -> Iterator[Node]:
    """Every unit (statement or module) in pre-order."""
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        yield node
        found: list[Node] = []
        _collect_units(node, found)
        stack.extend(reversed(found))


def _collect_units(node: Node, out: list[Node]) -> None:
    """The units directly below ``node`` (through non-statement children)."""
    for name in child_fields(type(node)):
        _units_in(getattr(node, name), out)


def _units_in(value: object, out: list[Node]) -> None:
    if isinstance(value, Node):
        if _is_unit(value):
            out.append(value)
        else:
            _collect_units(value, out)
    elif isinstance(value, tuple):
        for v in value:
            _units_in(v, out)


def _style(unit: Node) -> Style:
    trivia = tuple(n.trivia for n in _own_nodes(unit))
    return _kind(unit, len(trivia)), trivia


def _shape_kind(unit: Node) -> str:
    return _kind(unit, sum(1 for _ in _own_nodes(unit)))


def _record(node: Node, trivia: list[Trivia], nested: list[Node]) -> None:
    """Append the trivia of ``node``'s own nodes (pre-order) and the units found below it.

    The same walk as :func:`_style` and :func:`_collect_units` in one pass: recording the
    layout of a large file is on the transpiler's hot path.
    """
    trivia.append(node.trivia)
    if type(node) is Instruction:  # most units: operands are mostly bare registers/numbers
        for op in node.operands:
            if type(op) in _BARE:
                trivia.append(op.trivia)
            else:
                _record_child(op, trivia, nested)
        if node.predicate is not None:
            _record(node.predicate, trivia, nested)
        return
    if type(node) is SectionData:  # DWARF sections: thousands of lines of numbers
        for value in node.values:
            if type(value) in _BARE:
                trivia.append(value.trivia)
            else:
                _record_child(value, trivia, nested)
        return
    for name in node_fields(type(node)):
        value = getattr(node, name)
        if type(value) is tuple:
            for item in value:
                _record_child(item, trivia, nested)
        elif value is not None:
            _record_child(value, trivia, nested)


_BARE: frozenset[type] = frozenset({Register, Immediate})
"""Operand classes with no nodes below them (recorded by their own trivia alone)."""


def _record_child(value: object, trivia: list[Trivia], nested: list[Node]) -> None:
    if isinstance(value, Node):
        if value.STATEMENT or type(value) is Module:
            nested.append(value)
        elif not node_fields(type(value)):  # a register, an immediate...: nothing below it
            trivia.append(value.trivia)
        else:
            _record(value, trivia, nested)
    elif type(value) is tuple:
        for item in value:
            _record_child(item, trivia, nested)


@dataclass(frozen=True)
class SourceLayout:
    """The formatting of a module: a style table and the style index of each statement.

    Attributes:
        styles: the distinct styles, in order of first use.
        order: for each statement (module first, then pre-order), its index in ``styles``.
    """

    styles: tuple[Style, ...]
    order: tuple[int, ...]

    @classmethod
    def of(cls, module: Module) -> SourceLayout:
        """Record the formatting of a (parsed) module."""
        index: dict[Style, int] = {}
        order: list[int] = []
        pending: list[Node] = [module]
        leaves: dict[int, int] = {}  # the style of each unit without nested units, by identity
        while pending:
            unit = pending.pop()
            known = leaves.get(id(unit))  # the parser shares one node between identical lines
            if known is not None:
                order.append(known)
                continue
            trivia: list[Trivia] = []
            nested: list[Node] = []
            _record(unit, trivia, nested)
            style = (_kind(unit, len(trivia)), tuple(trivia))
            i = index.get(style)
            if i is None:
                i = index[style] = len(index)
            order.append(i)
            if nested:
                nested.reverse()
                pending += nested
            else:
                leaves[id(unit)] = i
        return cls(tuple(index), tuple(order))

    # ------------------------------------------------------------------ serialization

    def dumps(self) -> str:
        """The layout as compact JSON text (deterministic)."""
        runs: list[str] = []
        i = 0
        order = self.order
        while i < len(order):
            j = i
            while j < len(order) and order[j] == order[i]:
                j += 1
            runs.append(f"{order[i]}*{j - i}" if j - i > 1 else str(order[i]))
            i = j
        data = {
            "format": _FORMAT,
            "styles": [[k, _pack(tr)] for k, tr in self.styles],
            "order": " ".join(runs),
        }
        return json.dumps(data, separators=(",", ":"), ensure_ascii=True)

    @classmethod
    def loads(cls, text: str) -> SourceLayout:
        """Read a layout written by :meth:`dumps`.

        Raises:
            SourceLayoutError: the text is not a layout of a supported format.
        """
        try:
            data = json.loads(text)
            if data.get("format") != _FORMAT:
                raise SourceLayoutError(f"unsupported layout format {data.get('format')!r}")
            styles = tuple((str(k), _unpack(tr)) for k, tr in data["styles"])
            order: list[int] = []
            for run in data["order"].split():
                value, _, count = run.partition("*")
                order.extend([int(value)] * (int(count) if count else 1))
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            if isinstance(e, SourceLayoutError):
                raise
            raise SourceLayoutError(f"malformed layout: {e}") from None
        if any(not 0 <= i < len(styles) for i in order):
            raise SourceLayoutError("malformed layout: style index out of range")
        return cls(styles, tuple(order))

    # ------------------------------------------------------------------ application

    def apply(self, module: Module) -> Module:
        """Return ``module`` with the recorded formatting on every statement that matches.

        Statements are aligned by kind; unmatched ones (new or edited code) keep whatever
        trivia they have (``None``: the canonical layout).
        """
        units = list(_units(module))
        have = [_shape_kind(u) for u in units]
        want = [self.styles[i][0] for i in self.order]
        chosen = _align(want, have)
        styles = iter([self.styles[self.order[j]][1] if j is not None else None for j in chosen])
        result = _Rebuild(styles).unit(module)
        assert isinstance(result, Module)
        return result


def _pack(trivia: tuple[Trivia, ...]) -> list[object]:
    """Trivia of a style as JSON: ``k, t`` stands for ``k`` copies of ``t`` (k > 1)."""
    out: list[object] = []
    i = 0
    while i < len(trivia):
        j = i
        while j < len(trivia) and trivia[j] == trivia[i]:
            j += 1
        if j - i > 1:
            out.append(j - i)
        t = trivia[i]
        out.append(list(t) if t is not None else None)
        i = j
    return out


def _unpack(items: list[object]) -> tuple[Trivia, ...]:
    out: list[Trivia] = []
    count = 1
    for item in items:
        if isinstance(item, int) and not isinstance(item, bool):
            count = item
            continue
        if item is None:
            t: Trivia = None
        elif isinstance(item, list) and all(isinstance(g, str) for g in item):
            t = tuple(item)
        else:
            raise SourceLayoutError(f"malformed layout: bad trivia {item!r}")
        out.extend([t] * count)
        count = 1
    return tuple(out)


def _align(want: list[str], have: list[str]) -> list[int | None]:
    """For each traced unit, the index of the recorded unit it matches, or ``None``."""
    if want == have:
        return list(range(len(have)))
    out: list[int | None] = [None] * len(have)
    lo = 0
    while lo < min(len(want), len(have)) and want[lo] == have[lo]:
        out[lo] = lo
        lo += 1
    hi_w, hi_h = len(want), len(have)
    while hi_w > lo and hi_h > lo and want[hi_w - 1] == have[hi_h - 1]:
        hi_w -= 1
        hi_h -= 1
        out[hi_h] = hi_w
    matcher = SequenceMatcher(None, want[lo:hi_w], have[lo:hi_h], autojunk=False)
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            out[lo + b + k] = lo + a + k
    return out


class _Rebuild:
    """Copies units, giving each the next style (``None`` keeps the traced trivia)."""

    def __init__(self, styles: Iterator[tuple[Trivia, ...] | None]) -> None:
        self.styles = styles

    def unit(self, node: Node) -> Node:
        style = next(self.styles)
        gaps = iter(style) if style is not None else None
        return self.node(node, gaps)

    def node(self, node: Node, gaps: Iterator[Trivia] | None) -> Node:
        cls = type(node)
        new = object.__new__(cls)
        setter = object.__setattr__
        setter(new, "trivia", next(gaps) if gaps is not None else node.trivia)
        if isinstance(node, Instruction):
            setter(new, "span", node.span)
        for name in child_fields(cls):
            setter(new, name, self.value(getattr(node, name), gaps))
        return new

    def value(self, value: object, gaps: Iterator[Trivia] | None) -> object:
        if isinstance(value, Node):
            return self.unit(value) if _is_unit(value) else self.node(value, gaps)
        if isinstance(value, tuple) and any(isinstance(v, (Node, tuple)) for v in value):
            return tuple(self.value(v, gaps) for v in value)
        return value
