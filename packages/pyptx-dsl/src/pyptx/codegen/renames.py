"""Renaming passes of the transpiler's sugar: readable symbols, short labels, named params.

Each pass is a frozen dataclass called on a :class:`~pyptx.ir.Module` that returns a new
module in which some names changed and nothing else: every other node, its trivia included,
is shared with the input (:class:`~pyptx.ir.Rewriter`). The result is always
alpha-equivalent to the input (:func:`pyptx.codegen.alpha.alpha_equivalent`).

A name is renamed only when the pass can prove every occurrence refers to the one entity it
renames (a name declared once, or a module-scope symbol's prototype and definition, never
shadowed, never spelled as a register) and that every reference is updated; other names are
left alone. New names never collide with a name already in the module, in any namespace, and
avoid PTX opcodes and Python keywords.

- :class:`DemangleNames`: ``_ZN3M124smemE`` -> ``smem``; ABI names (``.entry``,
  ``.visible``, ``.extern``, ``.weak``, ``.common``) are kept, their parameters renamed.
- :class:`ShortenLabels`: ``$L__BB13_2`` -> ``BB2``.
- :class:`NameParams`: ``_Z3addPfS_i_param_0`` -> ``in0``, ``out0``, ``n0``, ``tma_desc0``
  from how the body uses each parameter.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import ClassVar

from pyptx.ir import (
    Address,
    Alias,
    Block,
    CallPrototype,
    Declarator,
    Function,
    FunctionKind,
    Instruction,
    Label,
    LabelRef,
    Module,
    Node,
    Param,
    PtrQualifier,
    PtxType,
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
from .demangle import readable_name, sanitize_identifier

__all__ = ["DemangleNames", "NameParams", "ShortenLabels", "sharing_index"]

_RESERVED: frozenset[str] = frozenset({name.split(".")[0] for name in SPECS}) | frozenset(
    {"generic", "WARP_SZ", "_"}
)
"""Names a pass never introduces: PTX opcodes and reserved identifiers."""

_Where = tuple[str, str, int]
"""An inner declaration: (function name, kind ``param``/``ret``/``label``/``var``, position)."""


# ---------------------------------------------------------------------------- the name index


@dataclass
class _Index:
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
    def of(cls, module: Module) -> _Index:
        """Index ``module`` in one walk."""
        index = cls()
        for s in module.statements:
            index.module_statement(s)
        return index

    @classmethod
    def for_pass(cls, module: Module) -> _Index:
        """The index of ``module``, handed over by the previous pass where possible.

        That is the index :func:`sharing_index` passes on when ``module`` is the previous
        renaming pass's result; else :meth:`of`.
        """
        slot = _HANDOFF.get()
        if slot and slot[0][0] is module:
            return slot[0][1]
        return cls.of(module)

    def renamed(self, plan: Mapping[str, str], module: Module) -> _Index:
        """The index of ``module``, which is this index's module renamed by ``plan``.

        Declarations are indexed from ``module`` again (cheap: no instruction is scanned);
        the names and references are this index's, renamed. That is exact because a rename
        replaces every occurrence of a planned name (:func:`_apply` rewrites every statement
        that spells one) and never touches a pinned name. Two old names may become one new
        name (labels ``BB2`` of two functions): their references merge.
        """
        out = _Index(scanning=False)
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


class _Names:
    """Hands out fresh identifiers, deterministically (``base``, ``base_1``, ``base_2`` ...).

    Args:
        taken: names already in use.
        parent: an enclosing allocator whose names are in use too.
        released: names of ``parent`` that are free here (names being renamed away).
    """

    def __init__(
        self,
        taken: Iterable[str] = (),
        parent: _Names | None = None,
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
"""Leaves a plan never touches (register names are pinned: see :class:`_Index`)."""


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
        if t is Instruction and self._untouched(node):  # type: ignore[arg-type]
            return node
        if t is SectionData and all(map(self._leaf_untouched, node.values)):  # type: ignore[attr-defined]
            return node  # DWARF data lines: thousands per section, mostly numbers
        return super()._visit(node)

    def _untouched(self, insn: Instruction) -> bool:
        """Whether ``insn`` surely spells no planned name (deeper operands: unsure)."""
        guard = insn.predicate
        if guard is not None and type(guard.register) is not Register:
            return False
        for op in insn.operands:
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


def _apply(module: Module, plan: dict[str, str], index: _Index) -> Module:
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


_HANDOFF: ContextVar[list[tuple[Module, _Index]] | None] = ContextVar(
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


def _functions(module: Module) -> Iterator[Function]:
    """Each function once (its definition when it has one), in module order."""
    seen: dict[str, Function] = {}
    for f in module.functions:
        if f.name not in seen or f.body is not None:
            seen[f.name] = f
    return iter(seen.values())


# ---------------------------------------------------------------------------- DemangleNames


def _is_abi(decl: Node) -> bool:
    """Whether the host or another module may look ``decl`` up by name."""
    if isinstance(decl, Function):
        return decl.kind is FunctionKind.ENTRY or bool(decl.linkage)
    if isinstance(decl, VariableDecl):
        return bool(decl.linkage) or decl.state_space is StateSpace.REG
    return True


def _has_dwarf(module: Module) -> bool:
    return any(isinstance(s, Section) and s.name == ".debug_info" for s in module.statements)


@dataclass(frozen=True)
class DemangleNames:
    """Give mangled C++ symbols readable names (``_ZN3M124smemE`` -> ``smem``).

    Renames functions and variables (``.shared``, ``.global``, ``.const``, ..., at module
    scope or demoted into a function) whose names are Itanium manglings to
    :func:`~pyptx.codegen.demangle.readable_name`, made unique in the module (``smem``,
    ``smem_1``); and mangled parameter names to
    ``<function>_param_<i>``. Kernels and symbols with ``.visible``, ``.extern``, ``.weak``
    or ``.common`` linkage keep their names (the host looks them up); their parameters are
    renamed (parameters are positional). Every reference is updated: operands,
    ``generic(sym)`` initializers, call targets, ``.section`` data and ``.alias``.

    Attributes:
        params: also rename mangled parameter names.
        debug_functions: also rename functions of a module that carries DWARF
            (``.section .debug_info``). Its entries name each function by its mangled
            linkage name (in ``.b8`` string bytes, which are data, not references), so after
            the rename ptxas no longer ties them to the function and may lay out the ``-G``
            code differently (it is still the same program); ``False`` keeps those names.
    """

    name: ClassVar[str] = "demangle-names"

    params: bool = True
    debug_functions: bool = True

    def __call__(self, module: Module) -> Module:
        """Return ``module`` with its mangled names replaced.

        Args:
            module: the module to rename.

        Returns:
            The renamed module (``module`` itself when nothing was renamed).
        """
        index = _Index.for_pass(module)
        names = _Names(index.names)
        plan: dict[str, str] = {}
        keep_functions = not self.debug_functions and _has_dwarf(module)
        for old, decls in index.module_decls.items():
            if not old.startswith("_Z") or not index.module_symbol(old):
                continue
            if any(_is_abi(d) or (keep_functions and isinstance(d, Function)) for d in decls):
                continue
            plan[old] = names.claim(readable_name(old))
        for old in index.inner_decls:
            where = index.inner_entity(old) if old.startswith("_Z") else None
            if where is not None and where[1] == "var":
                plan[old] = names.claim(readable_name(old))
        if self.params:
            self._plan_params(module, index, names, plan)
        return _apply(module, plan, index)

    @staticmethod
    def _plan_params(module: Module, index: _Index, names: _Names, plan: dict[str, str]) -> None:
        stems = _Names(plan.values())
        for f in _functions(module):
            stem = plan.get(f.name) or stems.claim(readable_name(f.name))
            for i, p in enumerate(f.params or ()):
                if not p.name.startswith("_Z") or index.inner_entity(p.name) != (
                    f.name,
                    "param",
                    i,
                ):
                    continue
                prefix = f.name + "_param_"
                suffix = p.name[len(prefix) :] if p.name.startswith(prefix) else None
                wanted = f"{stem}_param_{suffix}" if suffix else readable_name(p.name)
                plan[p.name] = names.claim(wanted)


# ---------------------------------------------------------------------------- ShortenLabels

_LABEL_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\$L__BB\d+_(\d+)\Z"), r"BB\1"),
    (re.compile(r"\$L__(\w+)\Z"), r"\1"),
)
"""Compiler label spellings and their short forms (first match wins)."""


def _short_label(name: str) -> str | None:
    for pattern, template in _LABEL_FORMS:
        m = pattern.match(name)
        if m is not None:
            return m.expand(template)
    return None


@dataclass(frozen=True)
class ShortenLabels:
    """Shorten compiler labels: ``$L__BB13_2`` -> ``BB2``, ``$L__tmp5`` -> ``tmp5``.

    Only labels of a function body's outermost block are renamed, and only when the label
    is declared once in the whole module. A label referenced only from its own function gets
    a name unique within that function (``BB2`` may appear in several functions); one
    referenced from elsewhere (DWARF ``.section`` data, ``.loc``) gets a name unique in the
    module and every reference is updated. Labels inside nested ``{ }`` blocks (inline
    assembly) keep their names.

    Attributes:
        debug_labels: also rename labels referenced from outside their function.
    """

    name: ClassVar[str] = "shorten-labels"

    debug_labels: bool = True

    def __call__(self, module: Module) -> Module:
        """Return ``module`` with shortened labels.

        Args:
            module: the module to rename.

        Returns:
            The renamed module (``module`` itself when nothing was renamed).
        """
        index = _Index.for_pass(module)
        local: dict[str, list[tuple[str, str]]] = {}
        shared: list[tuple[str, str]] = []
        for name, wheres in index.inner_decls.items():
            short = _short_label(name)
            fn, kind, depth = wheres[0]
            if short is None or kind != "label" or depth != 0 or len(wheres) != 1:
                continue
            if name in index.module_decls or name in index.pinned:
                continue
            if index.refs.get(name, set()) <= {fn}:
                local.setdefault(fn, []).append((name, short))
            elif self.debug_labels:
                shared.append((name, short))
        module_names = _Names(index.names)
        plan = {old: module_names.claim(short) for old, short in shared}
        for labels in local.values():
            names = _Names(parent=module_names)
            plan.update((old, names.claim(short)) for old, short in labels)
        return _apply(module, plan, index)


# ---------------------------------------------------------------------------- NameParams

_FLOW_OPCODES: frozenset[str] = frozenset(
    {
        "mov",
        "cvta",
        "cvt",
        "add",
        "sub",
        "mul",
        "mad",
        "shl",
        "shr",
        "and",
        "or",
        "xor",
        "selp",
        "min",
        "max",
        "neg",
        "abs",
        "mul24",
        "mad24",
        "div",
        "rem",
    }
)
"""Instructions whose first operand is computed from the others (taint flows through)."""

_WRITE_OPCODES: frozenset[str] = frozenset({"st", "red", "atom", "multimem"})
"""Memory instructions that write through any address operand."""

_READ_OPCODES: frozenset[str] = frozenset({"ld", "ldu", "prefetch", "prefetchu"})
"""Memory instructions that only read through their address operand."""

_COPY_OPCODES: frozenset[str] = frozenset({"cp"})
"""Copies: the first operand is written, the others are read."""

_POINTER_TYPES: frozenset[PtxType] = frozenset({PtxType.U64, PtxType.B64, PtxType.S64})
"""Parameter types that can hold a pointer."""

_INTEGER_TYPES: frozenset[PtxType | None] = frozenset(
    {
        PtxType.U8,
        PtxType.U16,
        PtxType.U32,
        PtxType.U64,
        PtxType.S8,
        PtxType.S16,
        PtxType.S32,
        PtxType.S64,
        PtxType.B16,
        PtxType.B32,
        PtxType.B64,
    }
)
"""Parameter types that can hold a loop bound or size."""

_ROLE_NAMES: dict[str, str] = {
    "out": "out",
    "in": "in",
    "ptr": "ptr",
    "bound": "n",
    "tma": "tma_desc",
}
"""Name stem of each parameter role (numbered per function: ``in0``, ``in1``, ``out0``)."""


def _register_names(node: Node) -> list[str]:
    kind = type(node)
    if kind is Register:  # most operands
        return [node.name]  # type: ignore[attr-defined]
    if kind in NAMELESS:
        return []
    return [n.name for n in collect_references(node, []) if type(n) is Register]


@dataclass
class _Uses:
    """Def-use facts of one function body, gathered in one pass over its instructions."""

    flows: dict[str, list[str]] = field(default_factory=dict)
    loads: dict[str, list[str]] = field(default_factory=dict)
    accesses: dict[str, set[str]] = field(default_factory=dict)
    compared: set[str] = field(default_factory=set)
    converted: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, body: Block, params: set[str]) -> _Uses:
        """Gather the facts for ``body``, tracking values loaded from ``params``."""
        uses = cls()
        for s in body.walk_statements():
            if isinstance(s, Instruction) and s.operands:
                uses.instruction(s, params)
        return uses

    def instruction(self, insn: Instruction, params: set[str]) -> None:
        """Record one instruction."""
        dests = _register_names(insn.operands[0])
        for op in insn.operands[1:]:
            self.param_source(op, dests, params)
        if insn.opcode in _FLOW_OPCODES:
            for src in (r for op in insn.operands[1:] for r in _register_names(op)):
                self.flows.setdefault(src, []).extend(dests)
            if insn.opcode == "cvta" and insn.has_modifier("to"):
                self.converted.update(r for op in insn.operands[1:] for r in _register_names(op))
        if insn.opcode == "setp":
            self.compared.update(r for op in insn.operands[1:] for r in _register_names(op))
        for pos, op in enumerate(insn.operands):
            if isinstance(op, Address) and isinstance(op.base, Register):
                self.accesses.setdefault(op.base.name, set()).add(_access(insn.opcode, pos))

    def param_source(self, op: Node, dests: list[str], params: set[str]) -> None:
        """Record ``dests`` as holding a parameter's value (``ld.param``) or address."""
        base = op.base if isinstance(op, Address) else op
        if isinstance(base, Symbol) and base.name in params:
            self.loads.setdefault(base.name, []).extend(dests)

    def reach(self, roots: list[str]) -> set[str]:
        """Every register computed (transitively) from ``roots``."""
        seen = set(roots)
        stack = list(roots)
        while stack:
            for nxt in self.flows.get(stack.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return seen


def _access(opcode: str, position: int) -> str:
    """How an instruction uses the address at operand ``position``: read, write or other."""
    if opcode in _WRITE_OPCODES:
        return "write"
    if opcode in _READ_OPCODES:
        return "read"
    if opcode in _COPY_OPCODES:
        return "write" if position == 0 else "read"
    return "other"


def _is_tma_descriptor(p: Param) -> bool:
    """``.param .align 64 .b8 name[128]``: a ``CUtensorMap`` passed by value."""
    return p.type is PtxType.B8 and p.align == 64 and p.declarator.dims == (128,)


def _role(p: Param, uses: _Uses) -> str | None:
    """The role of a parameter from its declaration and its uses, if one is evident."""
    if _is_tma_descriptor(p):
        return "tma"
    values = uses.reach(uses.loads.get(p.name, []))
    accesses = set().union(*(uses.accesses.get(r, set()) for r in values))
    compared = bool(values & uses.compared)
    pointer = p.type in _POINTER_TYPES or any(isinstance(q, PtrQualifier) for q in p.qualifiers)
    if pointer and (values & uses.converted or accesses) and not compared:
        if "write" in accesses:
            return "out"
        return "in" if "read" in accesses else "ptr"
    if compared and p.type in _INTEGER_TYPES:
        return "bound"
    return None


@dataclass(frozen=True)
class NameParams:
    """Name kernel and function parameters after how the body uses them.

    Roles, decided from the body (no name is specific to one kernel): a pointer (a 64-bit
    parameter whose value is converted with ``cvta.to`` or used as an address) that is
    stored or atomically updated through is ``out<k>``, one only loaded through is
    ``in<k>``, otherwise ``ptr<k>``; an integer compared by ``setp`` is a bound ``n<k>``; a
    ``.align 64 .b8 [128]`` parameter is a TMA descriptor ``tma_desc<k>``; anything else is
    ``arg<i>`` (``i`` its position). ``k`` counts parameters of the same role in the
    function. Names are unique within the function and collide with no name of the module.

    Attributes:
        only_mangled: rename only parameters whose names are C++ manglings (``_Z...``).
    """

    name: ClassVar[str] = "name-params"

    only_mangled: bool = False

    def __call__(self, module: Module) -> Module:
        """Return ``module`` with renamed parameters.

        Args:
            module: the module to rename.

        Returns:
            The renamed module (``module`` itself when nothing was renamed).
        """
        index = _Index.for_pass(module)
        wanted: list[tuple[str, str, str]] = []
        for f in _functions(module):
            wanted.extend((f.name, p.name, w) for p, w in self._wanted(f, index))
        # Names referenced from module scope must be unique in the module: claim them first.
        # A parameter already named after its role (``n1`` or a numbered ``n1_3``) keeps its
        # name, so running the pass again changes nothing.
        module_names = _Names(index.names)
        plan: dict[str, str] = {}
        for _, old, w in wanted:
            if not index.module_referenced(old):
                continue
            if re.fullmatch(re.escape(w) + r"(_\d+)?", old):
                plan[old] = old
            else:
                plan[old] = _Names(parent=module_names, released=(old,)).claim(w)
            module_names.taken.add(plan[old])
        per_function: dict[str, list[tuple[str, str]]] = {}
        for fn, old, w in wanted:
            per_function.setdefault(fn, []).append((old, w))
        for pairs in per_function.values():
            names = _Names(parent=module_names, released=(old for old, _ in pairs))
            for old, w in pairs:
                if old not in plan:
                    plan[old] = names.claim(w)
        return _apply(module, plan, index)

    def _wanted(self, f: Function, index: _Index) -> list[tuple[Param, str]]:
        """The name each safely renamable parameter of ``f`` should get, in order.

        Roles are numbered over all parameters, renamable or not, so that a parameter's name
        does not depend on whether its siblings could be renamed.
        """
        params = f.params or ()
        safe = {
            i
            for i, p in enumerate(params)
            if index.inner_entity(p.name) == (f.name, "param", i)
            and (p.name.startswith("_Z") or not self.only_mangled)
        }
        if not safe:
            return []
        uses = _Uses.of(f.body, {p.name for p in params}) if f.body else _Uses()
        counters: dict[str, int] = {}
        out: list[tuple[Param, str]] = []
        for i, p in enumerate(params):
            role = _role(p, uses)
            if role is None:
                wanted = f"arg{i}"
            else:
                k = counters.get(role, 0)
                counters[role] = k + 1
                wanted = f"{_ROLE_NAMES[role]}{k}"
            if i in safe:
                out.append((p, wanted))
        return out
