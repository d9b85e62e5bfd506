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
from dataclasses import dataclass, field
from typing import ClassVar

from pyptx.ir import (
    Address,
    Block,
    Function,
    FunctionKind,
    Instruction,
    Module,
    Node,
    Param,
    PtrQualifier,
    PtxType,
    Register,
    Section,
    StateSpace,
    Symbol,
    VariableDecl,
)

from ._naming import FreshNames, NameIndex, apply_plan, defined_functions, sharing_index
from ._refs import NAMELESS, collect_references
from .demangle import readable_name

__all__ = ["DemangleNames", "NameParams", "ShortenLabels", "sharing_index"]


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
        index = NameIndex.for_pass(module)
        names = FreshNames(index.names)
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
        return apply_plan(module, plan, index)

    @staticmethod
    def _plan_params(
        module: Module, index: NameIndex, names: FreshNames, plan: dict[str, str]
    ) -> None:
        stems = FreshNames(plan.values())
        for f in defined_functions(module):
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
        index = NameIndex.for_pass(module)
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
        module_names = FreshNames(index.names)
        plan = {old: module_names.claim(short) for old, short in shared}
        for labels in local.values():
            names = FreshNames(parent=module_names)
            plan.update((old, names.claim(short)) for old, short in labels)
        return apply_plan(module, plan, index)


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
        index = NameIndex.for_pass(module)
        wanted: list[tuple[str, str, str]] = []
        for f in defined_functions(module):
            wanted.extend((f.name, p.name, w) for p, w in self._wanted(f, index))
        # Names referenced from module scope must be unique in the module: claim them first.
        # A parameter already named after its role (``n1`` or a numbered ``n1_3``) keeps its
        # name, so running the pass again changes nothing.
        module_names = FreshNames(index.names)
        plan: dict[str, str] = {}
        for _, old, w in wanted:
            if not index.module_referenced(old):
                continue
            if re.fullmatch(re.escape(w) + r"(_\d+)?", old):
                plan[old] = old
            else:
                plan[old] = FreshNames(parent=module_names, released=(old,)).claim(w)
            module_names.taken.add(plan[old])
        per_function: dict[str, list[tuple[str, str]]] = {}
        for fn, old, w in wanted:
            per_function.setdefault(fn, []).append((old, w))
        for pairs in per_function.values():
            names = FreshNames(parent=module_names, released=(old for old, _ in pairs))
            for old, w in pairs:
                if old not in plan:
                    plan[old] = names.claim(w)
        return apply_plan(module, plan, index)

    def _wanted(self, f: Function, index: NameIndex) -> list[tuple[Param, str]]:
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
