"""Traversal: :func:`walk`, the :class:`Visitor` and the :class:`Rewriter`.

A :class:`Rewriter` returns a new tree and shares every untouched subtree with the old one,
so rewriting a large module only allocates along the paths that changed; trivia of rebuilt
nodes is kept, which is what makes an edit show up as exactly that edit in the emitted text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields, replace
from typing import Any, TypeVar, cast

from ._fast import fast_constructor
from .node import Node, node_fields

__all__ = ["Rewriter", "Visitor", "strip_trivia", "structurally_equal", "walk"]

N = TypeVar("N", bound=Node)


def walk(node: Node) -> Iterator[Node]:
    """Yield ``node`` and every node below it, depth first, in source order."""
    stack: list[Node] = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children()))


class Visitor:
    """Calls ``visit_<ClassName>(node)`` for each node; unhandled nodes visit their children.

    Example::

        class CountLoads(Visitor):
            def __init__(self):
                self.n = 0
            def visit_Instruction(self, insn):
                self.n += insn.opcode == "ld"

        v = CountLoads(); v.visit(module); print(v.n)
    """

    def visit(self, node: Node) -> None:
        """Visit ``node`` (dispatching on its class name)."""
        method: Callable[[Any], None] | None = getattr(self, "visit_" + type(node).__name__, None)
        if method is not None:
            method(node)
        else:
            self.generic_visit(node)

    def generic_visit(self, node: Node) -> None:
        """Visit every child of ``node``."""
        for child in node.children():
            self.visit(child)


class Rewriter:
    """Builds a new tree bottom-up, calling ``rewrite_<ClassName>(node)`` where defined.

    Children are rewritten first; the method then receives the node with its new children and
    returns its replacement: a node, ``None`` to delete it from the tuple holding it, or a
    sequence of nodes to splice in its place (insertion). Nodes without a method are rebuilt
    only if a child changed, keeping their trivia. Methods are looked up on the class.

    Example::

        class Rename(Rewriter):
            def rewrite_Register(self, r):
                return replace(r, name="%acc") if r.name == "%f1" else r

        new_module = Rename().rewrite(module)
    """

    def rewrite(self, node: N) -> N:
        """Return the rewritten tree rooted at ``node``.

        Raises:
            TypeError: a rewrite method deleted or spliced a node that is not in a tuple.
        """
        out = self._visit(node)
        if not isinstance(out, Node):
            raise TypeError(f"the root {type(node).__name__} must be rewritten to one node")
        return out  # type: ignore[return-value]

    def _visit(self, node: Node) -> Node | Sequence[Node] | None:
        cls = type(node)
        make, names, holding, _ = _PLANS.get(cls) or _plan_of(cls)
        values = _new_children(node, names, holding, self._one, self._many)
        if values is not None:
            node = _rebuilt(node, make, names, values)
        method = _method(type(self), cls)
        return method(self, node) if method is not None else node

    def _one(self, value: Node, owner: Node, name: str) -> Node:
        new = self._visit(value)
        if not isinstance(new, Node):
            raise TypeError(
                f"{type(owner).__name__}.{name} holds one node; a rewrite method returned "
                f"{type(new).__name__} for it"
            )
        return new

    def _many(self, value: tuple[object, ...]) -> tuple[object, ...]:
        """The rewritten tuple (``value`` itself when nothing in it changed)."""
        items: list[object] | None = None  # the new items, from the first change on
        for i, v in enumerate(value):
            if isinstance(v, Node):
                new: object = self._visit(v)
            elif isinstance(v, tuple) and v:
                new = self._many(v)
            else:
                new = v
            if new is v and items is None:
                continue
            if items is None:
                items = list(value[:i])
            if not isinstance(v, Node) or isinstance(new, Node):
                items.append(new)
            elif new is not None:  # a node replaced by a sequence (None deletes it)
                items.extend(cast("Sequence[Node]", new))
        return value if items is None else tuple(items)


_Method = Callable[[Rewriter, Any], "Node | Sequence[Node] | None"]
_METHODS: dict[tuple[type, type], _Method | None] = {}
"""``rewrite_<ClassName>`` of each (rewriter class, node class), looked up on first use."""


def _method(rewriter: type, cls: type) -> _Method | None:
    key = (rewriter, cls)
    try:
        return _METHODS[key]
    except KeyError:
        found = _METHODS[key] = getattr(rewriter, "rewrite_" + cls.__name__, None)
        return found


_Plan = tuple[Callable[..., Node] | None, tuple[str, ...], tuple[int, ...], int]
_PLANS: dict[type, _Plan] = {}
"""How to take apart and rebuild each node class: its fast constructor (``None`` where it has
none), every field name in order, the positions of the fields that can hold nodes (see
:func:`~pyptx.ir.node_fields`), and the position of ``trivia`` (-1 without one)."""


def _plan_of(cls: type) -> _Plan:
    names = tuple(f.name for f in fields(cls))
    holding = set(node_fields(cls))
    make: Callable[..., Node] | None
    try:
        make = fast_constructor(cls)
    except TypeError:  # a class the hook does not build: copied with dataclasses.replace
        make = None
    trivia = names.index("trivia") if "trivia" in names else -1
    plan = (make, names, tuple(i for i, n in enumerate(names) if n in holding), trivia)
    _PLANS[cls] = plan
    return plan


def _new_children(
    node: Node,
    names: tuple[str, ...],
    holding: tuple[int, ...],
    one: Callable[[Node, Node, str], object],
    many: Callable[[tuple[object, ...]], tuple[object, ...]],
) -> list[Any] | None:
    """``node``'s field values, each child replaced by ``one`` (a node) or ``many`` (a tuple).

    ``None`` when every child came back as itself (``node`` can then be kept as it is).
    """
    values: list[Any] | None = None
    for i in holding:
        value = getattr(node, names[i])
        if isinstance(value, Node):
            new: object = one(value, node, names[i])
        elif isinstance(value, tuple) and value:
            new = many(value)
        else:
            continue  # None: nothing below
        if new is not value:
            if values is None:
                values = [getattr(node, n) for n in names]
            values[i] = new
    return values


def _rebuilt(
    node: Node, make: Callable[..., Node] | None, names: tuple[str, ...], values: list[Any]
) -> Node:
    """A node of ``node``'s class with field values ``values`` (all fields, in order)."""
    if make is None:
        return replace(node, **dict(zip(names, values, strict=True)))  # type: ignore[type-var]
    return make(*values)


class _Strip:
    """Removes trivia, sharing every subtree that has none.

    ``done`` holds the result for each node of a tuple already stripped, by identity: the
    parser shares one node between identical lines, and a tree may repeat subtrees.
    """

    def __init__(self) -> None:
        self.done: dict[int, Node] = {}

    def node(self, node: Node, owner: object = None, name: str = "") -> Node:
        """``node`` without trivia (``node`` itself if it has none anywhere)."""
        make, names, holding, trivia = _PLANS.get(type(node)) or _plan_of(type(node))
        values = _new_children(node, names, holding, self.node, self.many)
        if trivia >= 0 and getattr(node, names[trivia]) is not None:
            if values is None:
                values = [getattr(node, n) for n in names]
            values[trivia] = None
        return node if values is None else _rebuilt(node, make, names, values)

    def many(self, value: tuple[object, ...]) -> tuple[object, ...]:
        """The tuple with each node stripped (``value`` itself when none changed)."""
        items: list[object] | None = None
        done = self.done
        for i, v in enumerate(value):
            if isinstance(v, Node):
                new: object = done.get(id(v))
                if new is None:
                    new = done[id(v)] = self.node(v)
            elif isinstance(v, tuple) and v:
                new = self.many(v)
            else:
                continue
            if new is not v:
                if items is None:
                    items = list(value)
                items[i] = new
        return value if items is None else tuple(items)


def strip_trivia(node: N) -> N:
    """Return a copy of the tree with all trivia removed (it then emits canonically).

    Subtrees without trivia are shared with ``node``, not copied.
    """
    return cast("N", _Strip().node(node))


def structurally_equal(a: Node, b: Node) -> bool:
    """Return whether two trees are the same program, ignoring all trivia.

    This is ``a == b``: trivia fields never take part in comparisons.
    """
    return a == b
