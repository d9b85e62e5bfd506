"""The base of every IR node, and the trivia convention shared by all of them.

Every node is a frozen, slotted dataclass whose children are tuples, so trees are immutable
values: edit them with :func:`dataclasses.replace` or a :class:`~pyptx.ir.Rewriter`.

Trivia
------
Formatting (whitespace, line breaks, comments) is *trivia*, kept on the node it precedes and
never as a copy of source text. Each node has a ``trivia`` field: ``None`` (lay the node out in
the canonical style) or a tuple of strings, one per *gap*, where a gap is the text before one of
the node's own tokens (keywords, punctuation, numbers). ``trivia[0]`` is always the gap before
the node's first token (its leading trivia). Child nodes hold their own gaps, so replacing a
child keeps the parent's layout. Statement nodes (those that end a line) have one extra gap at
the end: the *trailing* trivia that follows their last token on the same line (spaces and a
``//`` comment).

``trivia`` never takes part in equality (``field(compare=False)``): ``a == b`` is structural
equality, so a re-parsed canonical emission compares equal to the original tree.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, ClassVar

__all__ = ["Node", "Trivia", "child_fields"]

Trivia = tuple[str, ...] | None
"""A node's gaps (see the module docstring), or ``None`` for canonical layout."""


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(cls: type) -> tuple[str, ...]:
    """The names of a node class's fields other than ``trivia``, in declaration order (cached).

    Generic tree walks use it instead of :func:`dataclasses.fields`, which is slow to call
    per node.
    """
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in fields(cls) if f.name != "trivia")
        _CHILD_FIELDS[cls] = names
    return names


class Node:
    """Base class of all IR nodes (operands, statements, modules)."""

    __slots__ = ()

    STATEMENT: ClassVar[bool] = False
    """Whether this node ends a line (its trivia then ends with the trailing gap)."""

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


def _collect(value: object, out: list[Node]) -> None:
    if isinstance(value, Node):
        out.append(value)
    elif isinstance(value, tuple):
        for v in value:
            _collect(v, out)
