"""The name index and the rename machinery that the renaming passes share.

:class:`NameIndex` records every name of a module, where it is declared and where it is
referenced; :class:`FreshNames` hands out fresh names; :func:`apply_plan` renames by a plan,
rebuilding only what spells a planned name. Inside :func:`sharing_index` a pass hands the
index of its result to the next pass. The passes themselves are in
:mod:`pyptx.codegen.renames`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace

from pyptx.ir import (
    Address,
    Alias,
    Block,
    CallPrototype,
    Declarator,
    Function,
    Instruction,
    Label,
    LabelRef,
    Module,
    Node,
    Register,
    Rewriter,
    Section,
    SectionData,
    StateSpace,
    Symbol,
    VariableDecl,
)
from pyptx.ir.isa import SPECS

from ._refs import NAMELESS, collect_references
from .demangle import sanitize_identifier

__all__ = ["FreshNames", "NameIndex", "apply_plan", "defined_functions", "sharing_index"]

_RESERVED: frozenset[str] = frozenset({name.split(".")[0] for name in SPECS}) | frozenset(
    {"generic", "WARP_SZ", "_"}
)
"""Names a pass never introduces: PTX opcodes and reserved identifiers."""

_Where = tuple[str, str, int]
"""An inner declaration: (function name, kind ``param``/``ret``/``label``/``var``, position)."""


# ---------------------------------------------------------------------------- the name index


@dataclass
class NameIndex:
    """Every name of a module, where it is declared and where it is referenced.

    Attributes:
        names: every name spelled anywhere (new names must avoid them).
        pinned: names no pass may rename: registers and ``.callprototype`` placeholders.
        module_decls: module-scope declarations (functions, variables, section labels).
        inner_decls: declarations inside functions (parameters, labels, variables).
        refs: for each referenced name, the functions referring to it (``None``: module).
    """

    names: set[str] = field(default_factory=set)
    pinned: set[str] = field(default_factory=set)
    module_decls: dict[str, list[Node]] = field(default_factory=dict)
    inner_decls: dict[str, list[_Where]] = field(default_factory=dict)
    refs: dict[str, set[str | None]] = field(default_factory=dict)
    scanning: bool = field(default=True, compare=False)
    """Whether references are recorded (``False``: declarations only, see :meth:`renamed`)."""

    @classmethod
    def of(cls, module: Module) -> NameIndex:
        """Index ``module`` in one walk."""
        index = cls()
        for s in module.statements:
            index.module_statement(s)
        return index

    @classmethod
    def for_pass(cls, module: Module) -> NameIndex:
        """The index of ``module``, handed over by the previous pass where possible.

        That is the index :func:`sharing_index` passes on when ``module`` is the previous
        renaming pass's result; else :meth:`of`.
        """
        slot = _HANDOFF.get()
        if slot and slot[0][0] is module:
            return slot[0][1]
        return cls.of(module)

    def renamed(self, plan: Mapping[str, str], module: Module) -> NameIndex:
        """The index of ``module``, which is this index's module renamed by ``plan``.

        Declarations are indexed from ``module`` again (cheap: no instruction is scanned);
        the names and references are this index's, renamed. That is exact because a rename
        replaces every occurrence of a planned name (:func:`apply_plan` rewrites every statement
        that spells one) and never touches a pinned name. Two old names may become one new
        name (labels ``BB2`` of two functions): their references merge.
        """
        out = NameIndex(scanning=False)
        for s in module.statements:
            out.module_statement(s)
        out.names = {plan.get(n, n) for n in self.names}
        out.pinned = set(self.pinned)
        for name, where in self.refs.items():
            out.refs.setdefault(plan.get(name, name), set()).update(
                plan.get(f, f) if f is not None else None for f in where
            )
        return out

    def module_statement(self, s: Node) -> None:
        """Index one module-scope statement."""
        if isinstance(s, Function):
            self.module_decls.setdefault(s.name, []).append(s)
            self.names.add(s.name)
            self.function(s)
        elif isinstance(s, VariableDecl):
            for d in s.declarators:
                self.module_decls.setdefault(d.name, []).append(s)
            self.declaration(s, None)
        elif isinstance(s, Section):
            # Scanned together (DWARF sections hold thousands of lines), each node once: the
            # parser shares one node between identical lines, and what a scan records is sets.
            data: dict[int, Node] = {}
            for item in s.items:
                if isinstance(item, Label):
                    self.module_decls.setdefault(item.name, []).append(s)
                    self.names.add(item.name)
                else:
                    data[id(item)] = item
            self.scan(tuple(data.values()), None)
        else:
            self.scan(s, None)

    def function(self, f: Function) -> None:
        """Index a function's parameters and body."""
        for kind, params in (("ret", f.returns or ()), ("param", f.params or ())):
            for i, p in enumerate(params):
                self.inner(p.name, (f.name, kind, i))
        if f.body is not None:
            self.block(f.body, f.name, 0)

    def block(self, b: Block, fn: str, depth: int) -> None:
        """Index a block of ``fn`` nested ``depth`` blocks below the body."""
        other: list[Node] = []  # instructions and the like: scanned together below
        for s in b.statements:
            if type(s) is Instruction:
                other.append(s)
            elif isinstance(s, Label):
                self.inner(s.name, (fn, "label", depth))
            elif isinstance(s, VariableDecl):
                for d in s.declarators:
                    self.inner(d.name, (fn, "var", depth))
                self.declaration(s, fn)
            elif isinstance(s, Block):
                self.block(s, fn, depth + 1)
            elif isinstance(s, CallPrototype):
                for p in (s.returns or ()) + (s.params or ()):
                    self.names.add(p.name)
                    self.pinned.add(p.name)
            else:
                other.append(s)
        self.scan(tuple(other), fn)  # what a scan records is sets: one walk for the block

    def declaration(self, s: VariableDecl, fn: str | None) -> None:
        """Index a variable declaration's names and initializers."""
        for d in s.declarators:
            self.names.add(d.name)
            if s.state_space is StateSpace.REG:
                self.pinned.add(d.name)
            if d.initializer is not None:
                self.scan(d.initializer, fn)

    def inner(self, name: str, where: _Where) -> None:
        """Record a declaration inside a function."""
        self.names.add(name)
        self.inner_decls.setdefault(name, []).append(where)

    def scan(self, node: Node | tuple[Node, ...], fn: str | None) -> None:
        """Record every name referenced below ``node`` (or these nodes), as seen from ``fn``."""
        if not self.scanning:
            return
        for n in collect_references(node, []):
            if type(n) is Register:
                self.names.add(n.name)
                self.pinned.add(n.name)
            elif isinstance(n, Alias):
                self.ref(n.alias, fn)
                self.ref(n.aliasee, fn)
            else:
                self.ref(n.name, fn)

    def ref(self, name: str, fn: str | None) -> None:
        """Record a reference."""
        self.names.add(name)
        self.refs.setdefault(name, set()).add(fn)

    # ------------------------------------------------------------------ safety

    def module_symbol(self, name: str) -> bool:
        """Whether ``name`` is only a module-scope function or variable (never shadowed)."""
        decls = self.module_decls.get(name, [])
        kinds = {type(d) for d in decls}
        return (
            len(kinds) == 1
            and not kinds & {Section}
            and name not in self.inner_decls
            and name not in self.pinned
        )

    def inner_entity(self, name: str) -> _Where | None:
        """Where the one inner declaration of ``name`` is, if renaming it is provably safe.

        A parameter may be declared by a function's prototype and by its definition; any other
        inner name must be declared exactly once. Every reference must come from the function
        or, for a parameter or variable, from module scope (DWARF data); a new name for one
        referenced from module scope must then be unique in the module (see
        :meth:`module_referenced`).
        """
        wheres = self.inner_decls.get(name)
        if not wheres or name in self.module_decls or name in self.pinned:
            return None
        first = wheres[0]
        same = all(w == first for w in wheres)
        if not same or (len(wheres) > 1 and first[1] != "param"):
            return None
        allowed: set[str | None] = {first[0]} if first[1] == "label" else {first[0], None}
        if not self.refs.get(name, set()) <= allowed:
            return None
        return first

    def module_referenced(self, name: str) -> bool:
        """Whether ``name`` is referenced from module scope (initializers, DWARF data)."""
        return None in self.refs.get(name, ())


class FreshNames:
    """Hands out fresh identifiers, deterministically (``base``, ``base_1``, ``base_2`` ...).

    Args:
        taken: names already in use.
        parent: an enclosing allocator whose names are in use too.
        released: names of ``parent`` that are free here (names being renamed away).
    """

    def __init__(
        self,
        taken: Iterable[str] = (),
        parent: FreshNames | None = None,
        released: Iterable[str] = (),
    ) -> None:
        self.taken = set(taken)
        self.parent = parent
        self.released = frozenset(released)

    def __contains__(self, name: object) -> bool:
        if name in self.taken:
            return True
        return self.parent is not None and name not in self.released and name in self.parent

    def claim(self, base: str) -> str:
        """Reserve and return the first free name derived from ``base``."""
        base = sanitize_identifier(base)
        if base in _RESERVED:
            base += "_"
        name, k = base, 1
        while name in self:
            name = f"{base}_{k}"
            k += 1
        self.taken.add(name)
        return name


_NEVER_RENAMED: frozenset[type] = NAMELESS | {Register}
"""Leaves a plan never touches (register names are pinned: see :class:`NameIndex`)."""


class _Rename(Rewriter):
    """Renames every declaration and reference whose name is a key of ``plan``.

    Subtrees that spell no planned name are shared with the input, trivia included.
    """

    def __init__(self, plan: dict[str, str]) -> None:
        self.plan = plan

    def _visit(self, node: Node) -> Node | Sequence[Node] | None:
        t = type(node)
        if t in _NEVER_RENAMED:  # most operands: nothing below them to rename
            return node
        if t is Instruction:
            guard = node.predicate  # type: ignore[attr-defined]
            if (guard is None or type(guard.register) is Register) and self._untouched(
                node.operands  # type: ignore[attr-defined]
            ):
                return node
        elif t is SectionData and self._untouched(node.values):  # type: ignore[attr-defined]
            return node  # DWARF data lines: thousands per section, mostly numbers
        return super()._visit(node)

    def _untouched(self, operands: tuple[Node, ...]) -> bool:
        """Whether these operands surely spell no planned name (deeper operands: unsure)."""
        for op in operands:
            if type(op) is Address:  # [base], [base+offset]: the usual memory operand
                offset = op.offset
                if (
                    op.extra
                    or not self._leaf_untouched(op.base)
                    or (offset is not None and type(offset) not in _NEVER_RENAMED)
                ):
                    return False
            elif not self._leaf_untouched(op):
                return False
        return True

    def _leaf_untouched(self, node: Node) -> bool:
        """Whether ``node`` is a leaf that surely spells no planned name."""
        kind = type(node)
        if kind in _NEVER_RENAMED:
            return True
        return (kind is Symbol or kind is LabelRef) and node.name not in self.plan  # type: ignore[attr-defined]

    def _named(self, node: Symbol | LabelRef | Label | Declarator | Function) -> Node:
        new = self.plan.get(node.name)
        return node if new is None else replace(node, name=new)

    rewrite_Symbol = _named
    rewrite_LabelRef = _named
    rewrite_Label = _named
    rewrite_Declarator = _named
    rewrite_Function = _named

    def rewrite_Alias(self, node: Alias) -> Node:
        alias = self.plan.get(node.alias, node.alias)
        aliasee = self.plan.get(node.aliasee, node.aliasee)
        if (alias, aliasee) == (node.alias, node.aliasee):
            return node
        return replace(node, alias=alias, aliasee=aliasee)


def apply_plan(module: Module, plan: dict[str, str], index: NameIndex) -> Module:
    """Rename by ``plan``, rebuilding only the module statements that spell a planned name.

    Inside :func:`sharing_index`, the result's index is handed to the next pass.
    """
    plan = {old: new for old, new in plan.items() if old != new}
    functions: set[str | None] = set()
    for old in plan:
        functions.update(index.refs.get(old, ()))
        functions.update(w[0] for w in index.inner_decls.get(old, ()))
        for decl in index.module_decls.get(old, ()):
            functions.add(decl.name if isinstance(decl, Function) else None)
    slot = _HANDOFF.get()
    if not plan:
        if slot is not None:
            slot[:] = [(module, index)]
        return module
    rename = _Rename(plan)
    statements = tuple(
        rename.rewrite(s) if (s.name if isinstance(s, Function) else None) in functions else s
        for s in module.statements
    )
    out = replace(module, statements=statements)
    if slot is not None:
        slot[:] = [(out, index.renamed(plan, out))]
    return out


_HANDOFF: ContextVar[list[tuple[Module, NameIndex]] | None] = ContextVar(
    "pyptx_rename_index", default=None
)
"""Inside :func:`sharing_index`: the last renaming pass's result and its index (none before
the first pass); outside: ``None``."""


@contextmanager
def sharing_index() -> Iterator[None]:
    """Within the block, each renaming pass hands the name index of its result to the next.

    A pass indexes the whole module (every reference of every instruction) before it plans;
    the next renaming pass would index the result all over again. Inside the block it gets
    an index derived from the previous pass's instead (its declarations read again, its
    references renamed), which is exactly the index of the result. Pipelines
    (:func:`~pyptx.codegen.pipeline.run_passes`, the transpiler) run their passes in one.
    """
    token = _HANDOFF.set([])
    try:
        yield
    finally:
        _HANDOFF.reset(token)


def defined_functions(module: Module) -> Iterator[Function]:
    """Each function once (its definition when it has one), in module order."""
    seen: dict[str, Function] = {}
    for f in module.functions:
        if f.name not in seen or f.body is not None:
            seen[f.name] = f
    return iter(seen.values())
