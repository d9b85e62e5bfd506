"""The base of every IR node, and the trivia convention shared by all of them.

Every node is a frozen, slotted dataclass whose children are tuples, so trees are immutable
values: edit them with :func:`dataclasses.replace` or a :class:`~pyptx.ir.Rewriter`.

Trivia
------
Formatting (whitespace, line breaks, comments) is *trivia*, kept on the node it precedes and
never as a copy of source text. Each node has a ``trivia`` field: ``None`` (lay the node out in
the canonical style) or a tuple of strings, one per *gap*, where a gap is the text before one of
the node's own tokens (keywords, punctuation, numbers). Child nodes hold their own gaps, so
replacing a child keeps the parent's layout.

``trivia`` never takes part in equality (``field(compare=False)``): ``a == b`` is structural
equality, so a re-parsed canonical emission compares equal to the original tree.

Gap names
---------
Every gap has a name, and each node class owns the names of its gaps: a class with a fixed
layout lists them in its ``GAPS`` class attribute, a class whose number of gaps depends on its
children (operand lists, declaration qualifiers, array dimensions) overrides
:meth:`Node.gap_names` with the rule that yields them from the node. The storage stays a tuple:
``trivia[i]`` is the gap named ``node.gap_names()[i]``. Code outside a node's class reads and
writes gaps by name, never by position:

* :meth:`Node.gap` reads one gap (``insn.gap("before_semicolon")``), :meth:`Node.gaps` all of
  them as a dictionary, :meth:`Node.gap_names` lists the names;
* :func:`with_gaps` returns a copy with some gaps replaced
  (``with_gaps(insn, trailing="  // done")``);
* :meth:`Node.gap_index` maps each name to its position, for code that reads very many gaps
  (the emitter): ``trivia[node.gap_index()[name]]``.

The names follow one convention:

* ``leading``: the gap before the node's first token, when that token is the node's own
  (a guarded instruction's leading gap belongs to its :class:`~pyptx.ir.Predicate`, and an
  infix node such as ``a|b`` starts with a child); always the first name when present;
* ``trailing``: the last gap of every *statement* (a node with ``STATEMENT = True``, one that
  ends a line): the spaces and ``//`` comment after its last token on the same line; always
  the last name;
* ``before_<token>`` for every other gap: ``before_semicolon``, ``before_colon``,
  ``before_rbrace``, ``before_opcode``, ... (a :class:`~pyptx.ir.Module`'s one gap, the text
  after its last statement, is ``end``);
* a numbered name for the gaps of a list, from :func:`comma_gaps`: ``before_comma_<i>`` is the
  gap before the comma that precedes item ``i`` (counted from 0, so the first comma is
  ``before_comma_1``); a node with two lists prefixes them (``params_before_comma_1``).
  Where the items are nodes (they hold the gap before themselves), the comma gaps are
  consecutive, so a writer may walk them from the first; a list of plain names interleaves
  them with ``before_name_<i>`` (:class:`~pyptx.ir.Target`).
  Other repeated tokens number the same way: :func:`token_gaps` names the gaps of a run of
  keywords (declaration qualifiers: ``leading``, ``before_token_1``, ...), and a declarator's
  array dimensions are ``before_lbracket_<j>``, ``before_size_<j>``, ``before_rbracket_<j>``.

When an edit changes a node's shape (an operand added, say) without updating its trivia, the
trivia no longer *fits* (its length differs from the number of names). Only the ``leading`` and
``trailing`` gaps keep their meaning then: they are still the first and the last string, so an
edited statement keeps its indentation and its end-of-line comment and lays out the rest
canonically. :meth:`Node.gap` resolves those two on such a node and returns ``None`` for the
others.
"""

from __future__ import annotations

import enum
import typing
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any, ClassVar, TypeVar

__all__ = [
    "LEADING",
    "TRAILING",
    "Node",
    "Span",
    "Trivia",
    "child_fields",
    "comma_gaps",
    "token_gaps",
    "with_gaps",
]

Trivia = tuple[str, ...] | None
"""A node's gaps (see the module docstring), or ``None`` for canonical layout."""

LEADING = "leading"
"""The name of the gap before a node's first own token (see the module docstring)."""
TRAILING = "trailing"
"""The name of a statement's last gap: the rest of its line after its last token."""

_N = TypeVar("_N", bound="Node")


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}
_NOT_CHILDREN = ("trivia", "span")


@dataclass(frozen=True, slots=True)
class Span:
    """Where a node starts in the text it was parsed from (see ``parse(..., spans=True)``).

    Spans never take part in equality or hashing, so a tree compares equal to the same tree
    parsed from elsewhere.

    Attributes:
        filename: the name given to the parser.
        line: 1-based line.
        column: 1-based column (characters; a tab counts as one).
    """

    filename: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}"


def child_fields(cls: type) -> tuple[str, ...]:
    """The names of a node class's fields other than ``trivia`` and ``span``, in order (cached).

    Generic tree walks use it instead of :func:`dataclasses.fields`, which is slow to call
    per node.
    """
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in fields(cls) if f.name not in _NOT_CHILDREN)
        _CHILD_FIELDS[cls] = names
    return names


def node_fields(cls: type) -> tuple[str, ...]:
    """The :func:`child_fields` of a node class that can hold nodes, in order (cached).

    Fields typed as plain values (``opcode: str``, ``modifiers: tuple[str, ...]``,
    ``negated: bool``) are left out, so a walk that only looks for nodes skips them. Decided
    from the class's type hints; a class whose hints cannot be resolved keeps every child
    field.
    """
    names = _NODE_FIELDS.get(cls)
    if names is None:
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # unresolvable hints: keep every field, the safe side
            hints = {}
        names = tuple(n for n in child_fields(cls) if n not in hints or _may_hold_node(hints[n]))
        _NODE_FIELDS[cls] = names
    return names


_VALUE_TYPES = (str, int, float, bool, bytes, type(None))


def _may_hold_node(hint: object) -> bool:
    """Whether a value of type ``hint`` can be, or contain, a :class:`Node`."""
    args = typing.get_args(hint)
    if args:
        return any(_may_hold_node(a) for a in args if a is not Ellipsis)
    if isinstance(hint, type):
        return not issubclass(hint, _VALUE_TYPES) and not issubclass(hint, enum.Enum)
    return True  # Any, a TypeVar, a forward reference...: it might


class Node:
    """Base class of all IR nodes (operands, statements, modules)."""

    __slots__ = ()

    STATEMENT: ClassVar[bool] = False
    """Whether this node ends a line (its trivia then ends with the trailing gap)."""

    GAPS: ClassVar[tuple[str, ...] | None] = None
    """The names of the gaps of a class with a fixed layout, in order (see the module
    docstring); ``None`` where the class overrides :meth:`gap_names` instead (a class does
    one or the other)."""

    trivia: Trivia

    def gap_names(self) -> tuple[str, ...]:
        """The names of this node's gaps for its current shape, in source order.

        ``trivia[i]`` (when the trivia fits) is the gap named ``gap_names()[i]``.

        Raises:
            NotImplementedError: the class declares no names (neither ``GAPS`` nor an
                override of this method).
        """
        names = self.GAPS
        if names is None:
            raise NotImplementedError(
                f"{type(self).__name__} declares no gap names; set its GAPS class attribute "
                "or override gap_names()"
            )
        return names

    def gap(self, name: str) -> str | None:
        """The text of the gap called ``name``.

        Args:
            name: one of :meth:`gap_names` (``"leading"``, ``"before_semicolon"``, ...).

        Returns:
            The gap's text; ``None`` when the node has no trivia (canonical layout), or when
            its trivia does not fit its shape and ``name`` is neither ``leading`` nor
            ``trailing`` (see the module docstring).

        Raises:
            KeyError: the node has no gap of that name in its current shape.
        """
        index = self.gap_index()
        i = index.get(name)
        if i is None:
            raise KeyError(_unknown(self, name, tuple(index)))
        t = self.trivia
        if t is None:
            return None
        if len(t) == len(index):
            return t[i]
        return _edge(t, tuple(index), name)

    def gap_index(self) -> Mapping[str, int]:
        """Each gap name's position in ``trivia`` for the node's current shape (cached).

        ``trivia[node.gap_index()[name]]`` is gap ``name`` when the trivia fits (has
        ``len(node.gap_index())`` strings). Code that reads many gaps of many nodes (the
        emitter) uses it; :meth:`gap` is simpler everywhere else.
        """
        index = _FIXED_INDEX.get(type(self))
        if index is not None:
            return index
        names = self.GAPS
        if names is None:
            return _index(self.gap_names())
        index = _FIXED_INDEX[type(self)] = _index(names)
        return index

    def gaps(self) -> dict[str, str] | None:
        """All gaps by name, or ``None`` when the node has no trivia or it does not fit."""
        t = self.trivia
        if t is None:
            return None
        names = self.gap_names()
        if len(t) != len(names):
            return None
        return dict(zip(names, t, strict=True))

    def children(self) -> tuple[Node, ...]:
        """Return the direct child nodes, in source order."""
        out: list[Node] = []
        for name in child_fields(type(self)):
            _collect(getattr(self, name), out)
        return tuple(out)

    def without_trivia(self) -> Any:
        """Return a copy of this tree with every ``trivia`` field cleared (canonical layout)."""
        from .visitor import strip_trivia

        return strip_trivia(self)


_FIXED_INDEX: dict[type, Mapping[str, int]] = {}
"""The gap index of each class with a fixed layout (``GAPS``), filled on first use."""


@lru_cache(maxsize=1024)
def _index(names: tuple[str, ...]) -> Mapping[str, int]:
    return {name: i for i, name in enumerate(names)}


def _unknown(node: Node, name: str, names: tuple[str, ...]) -> str:
    listed = ", ".join(names) or "none"
    return f"{type(node).__name__} has no gap named {name!r} (its gaps: {listed})"


def _edge(t: tuple[str, ...], names: tuple[str, ...], name: str) -> str | None:
    """Gap ``name`` of trivia ``t`` that does not fit ``names``: only the ends resolve."""
    if name == LEADING and names[0] == LEADING and t:
        return t[0]
    if name == TRAILING and names[-1] == TRAILING and len(t) > 1:
        return t[-1]
    return None


def with_gaps(node: _N, fill: Mapping[str, str] | None = None, /, **gaps: str) -> _N:
    r"""Return a copy of ``node`` whose named gaps are replaced.

    Args:
        node: any IR node.
        fill: the text of the gaps not named in ``gaps`` when ``node`` has no trivia (a
            missing name gets ``""``). Pass the canonical layout here when a canonical node
            gets its first trivia.
        **gaps: the new text of each gap to replace, by name (``leading="\n\t"``).

    Returns:
        The copy; the node itself when ``gaps`` is empty and it already has trivia.

    Raises:
        KeyError: a name is not one of the node's :meth:`~Node.gap_names`.
        ValueError: the node's trivia does not fit its shape and a name other than
            ``leading`` or ``trailing`` is to be replaced.
    """
    names = node.gap_names()
    for name in gaps:
        if name not in names:
            raise KeyError(_unknown(node, name, names))
    t = node.trivia
    if t is None:
        base = fill or {}
        new = tuple(gaps.get(n, base.get(n, "")) for n in names)
    elif len(t) == len(names):
        if not gaps:
            return node
        new = tuple(gaps.get(n, old) for n, old in zip(names, t, strict=True))
    else:
        out = list(t)
        for name, text in gaps.items():
            if _edge(t, names, name) is None:
                raise ValueError(
                    f"cannot set gap {name!r} of this {type(node).__name__}: its trivia has "
                    f"{len(t)} gaps but its shape has {len(names)} (only leading and trailing "
                    "can be set on trivia that no longer fits)"
                )
            out[0 if name == LEADING else -1] = text
        new = tuple(out)
    return replace(node, trivia=new)  # type: ignore[type-var]


@lru_cache(maxsize=256)
def comma_gaps(items: int, prefix: str = "") -> tuple[str, ...]:
    """The names of the comma gaps of a list of ``items`` items (cached).

    Args:
        items: the number of items in the list.
        prefix: prepended to each name, for a node with more than one list (``"params_"``).

    Returns:
        ``(prefix + "before_comma_1", ..., prefix + f"before_comma_{items - 1}")``: the gap
        before the comma that precedes item ``i`` is ``before_comma_<i>``; none for 0 or 1 items.
    """
    return tuple(f"{prefix}before_comma_{i}" for i in range(1, items))


@lru_cache(maxsize=64)
def token_gaps(tokens: int) -> tuple[str, ...]:
    """The names of the gaps of a run of ``tokens`` keywords that starts a node (cached).

    Declaration qualifiers (``.shared .align 16 .b8``: four tokens, ``.align`` and its number
    count as two) and a function's linkage and kind keywords are such runs.

    Args:
        tokens: the number of tokens in the run.

    Returns:
        ``("leading", "before_token_1", ..., f"before_token_{tokens - 1}")``; empty for 0.
    """
    return tuple(LEADING if i == 0 else f"before_token_{i}" for i in range(tokens))


def _collect(value: object, out: list[Node]) -> None:
    if isinstance(value, Node):
        out.append(value)
    elif isinstance(value, tuple):
        for v in value:
            _collect(v, out)
