"""The trace context: where ``ptx.*`` calls put their instructions while a kernel is traced.

One :class:`Trace` exists per kernel trace and is reached through a ``ContextVar`` (never a
module global), so traces are deterministic, re-entrant and thread-safe: the same kernel and
arguments give the same bytes in any process and in any order of tracing.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from pyptx.ir import (
    LEADING,
    TRAILING,
    Block,
    Declarator,
    Instruction,
    Label,
    LabelRef,
    Node,
    Predicate,
    PtxType,
    StateSpace,
    TypeKind,
    VariableDecl,
    with_gaps,
)

from . import validate
from .errors import PtxDslError, user_location

if TYPE_CHECKING:
    from .regs import Reg

__all__ = [
    "DYNAMIC_SMEM_NAME",
    "EXTRA_SMEM_PLACEHOLDER",
    "BlockRecord",
    "Trace",
    "current",
    "tracing",
]

DYNAMIC_SMEM_NAME = "dyn_smem"
"""The ``.extern .shared`` array a kernel with dynamic shared memory declares."""
EXTRA_SMEM_PLACEHOLDER = "__pyptx_dynamic_smem__"
"""Stands for the start of the user's dynamic region until the layout is known."""

_CURRENT: contextvars.ContextVar[Trace | None] = contextvars.ContextVar("pyptx_trace", default=None)


def current() -> Trace:
    """The trace in progress.

    Raises:
        PtxDslError: no kernel is being traced (a ``ptx.*`` call outside ``@kernel``).
    """
    trace = _CURRENT.get()
    if trace is None:
        raise PtxDslError(
            "this call emits PTX and must run inside a @kernel function while it is traced "
            "(call Kernel.ptx() to trace it)"
        )
    return trace


@contextmanager
def tracing(trace: Trace) -> Iterator[Trace]:
    """Make ``trace`` the current trace for the duration of the block."""
    token = _CURRENT.set(trace)
    try:
        yield trace
    finally:
        _CURRENT.reset(token)


# How each logical type is stored: (declared register type, name prefix).
def _storage(ty: PtxType) -> tuple[PtxType, str]:
    if ty is PtxType.PRED:
        return PtxType.PRED, "%p"
    if ty is PtxType.F32:
        return PtxType.F32, "%f"
    if ty is PtxType.F64:
        return PtxType.F64, "%fd"
    if ty.kind is TypeKind.OPAQUE:
        return PtxType.B64, "%rd"
    if ty is PtxType.E2M1X2:  # packed fp4x2 is one byte; cvt wants a .b8 register
        return PtxType.B8, "%rb"
    bits = ty.bits
    if bits <= 16:
        return PtxType.B16, "%rs"
    if bits <= 32:
        return PtxType.B32, "%r"
    if bits <= 64:
        return PtxType.B64, "%rd"
    return PtxType.B128, "%rq"


STORAGE_ORDER = ("%p", "%rb", "%rs", "%r", "%rd", "%rq", "%f", "%fd")


@dataclass
class IfRecord:
    """An ``if_`` (and optional ``else_``) whose branches are flattened at the end."""

    predicate: Reg
    negate: bool
    then: list[object]
    otherwise: list[object] | None = None


@dataclass
class ScopeRecord:
    """A named ``@intrinsic`` scope, flattened with begin/end comments at the end."""

    name: str
    body: list[object] = field(default_factory=list)


@dataclass
class BlockRecord:
    """A ``{ ... }`` scope opened with ``ptx.block()``, kept as a nested block."""

    body: list[object] = field(default_factory=list)


@dataclass
class Trace:
    """Everything one kernel trace accumulates.

    Attributes:
        name: the kernel's PTX name.
        arch: the ``.target`` architecture.
        version: the requested ``.version`` or ``None`` for "lowest that works".
    """

    name: str
    arch: str
    version: tuple[int, int] | None = None
    blocks: list[list[object]] = field(default_factory=lambda: [[]])
    counts: dict[str, int] = field(default_factory=dict)
    storage: dict[str, PtxType] = field(default_factory=dict)
    reg_types: dict[str, PtxType] = field(default_factory=dict)
    labels_defined: dict[str, tuple[str, int] | None] = field(default_factory=dict)
    labels_used: dict[str, tuple[str, int] | None] = field(default_factory=dict)
    label_counts: dict[str, int] = field(default_factory=dict)
    shared_decls: list[VariableDecl] = field(default_factory=list)
    shared_bytes: int = 0
    names: set[str] = field(default_factory=set)
    instructions: list[Instruction] = field(default_factory=list)
    cache: dict[object, object] = field(default_factory=dict)
    prologue: list[object] = field(default_factory=list)
    param_types: dict[str, PtxType] = field(default_factory=dict)
    check: bool = True
    verbatim: bool = False
    label_scopes: list[dict[str, tuple[str, int] | None]] = field(default_factory=lambda: [{}])
    """The labels placed in each open ``{ }`` block (the kernel body first), with the user's
    line that placed each: a label is local to its block, as in PTX."""
    locations: dict[int, tuple[str, int] | None] = field(default_factory=dict)
    """The user's Python line that emitted each instruction, keyed by ``id(instruction)``.

    Kept for ``@kernel`` traces only: a verbatim trace (a :class:`~pyptx.PtxModule`
    function, such as transpiled code) has no line map and no label-scope check to read
    them, and its errors locate themselves when they are raised."""

    @property
    def fresh_prefix(self) -> str:
        """Prepended to DSL-allocated register names; distinct from nvcc's in verbatim code."""
        return "%pyptx_" if self.verbatim else "%"

    # ------------------------------------------------------------------ registers

    def new_reg(self, ty: PtxType) -> str:
        """Allocate a fresh register name for logical type ``ty``."""
        storage, prefix = _storage(ty)
        prefix = self.fresh_prefix + prefix[1:]
        n = self.counts.get(prefix, 0)
        self.counts[prefix] = n + 1
        self.storage[prefix] = storage
        name = f"{prefix}{n}"
        self.reg_types[name] = storage
        return name

    def reg_decls(self) -> list[VariableDecl]:
        """The ``.reg .type %prefix<N>;`` declarations for every register allocated."""
        out = []
        for base in STORAGE_ORDER:
            prefix = self.fresh_prefix + base[1:]
            if prefix in self.counts:
                decl = Declarator(prefix, range_count=self.counts[prefix])
                out.append(VariableDecl((StateSpace.REG, self.storage[prefix]), (decl,)))
        return out

    def unique_name(self, stem: str) -> str:
        """A module-unique symbol name starting with ``stem`` (``smem_0``, ``smem_1``, ...)."""
        i = 0
        while f"{stem}_{i}" in self.names:
            i += 1
        name = f"{stem}_{i}"
        self.names.add(name)
        return name

    def claim_name(self, name: str) -> str:
        """Reserve a user-chosen symbol name.

        Raises:
            PtxDslError: the name is already used in this kernel.
        """
        if name in self.names:
            raise PtxDslError(f"the name {name!r} is already declared in this kernel")
        self.names.add(name)
        return name

    # ------------------------------------------------------------------ labels

    def new_label(self, stem: str) -> str:
        """A kernel-unique label ``$L__<stem>_<n>`` (numbered per stem, deterministic)."""
        n = self.label_counts.get(stem, 0)
        self.label_counts[stem] = n + 1
        return f"$L__{stem}_{n}"

    def define_label(self, name: str) -> None:
        """Place label ``name`` here.

        Labels are scoped per ``{ }`` block, as in PTX: the same name may be placed again in
        another block (inline asm and the seed system's ``ptx.scope`` blocks reuse names).

        Raises:
            PtxDslError: the label is already placed in this block (the kernel body included).
        """
        scope = self.label_scopes[-1]
        if name in scope:
            if self.verbatim:
                raise PtxDslError(f"label {name!r} is placed twice in the same block")
            where = scope[name]
            at = f" (first placed at {where[0]}:{where[1]})" if where else ""
            block = " block" if len(self.label_scopes) > 1 else " kernel"
            raise PtxDslError(f"label {name!r} is placed twice in this{block}{at}")
        # Only a @kernel trace names where a label was first placed (see above).
        where = None if self.verbatim else user_location()
        scope[name] = self.labels_defined[name] = where
        self.append(Label(name))

    def use_label(self, name: str) -> LabelRef:
        """A reference to label ``name`` (which must be placed before the trace ends)."""
        if name not in self.labels_used:
            # Read when the label is never placed: by check_labels, which a verbatim trace
            # runs only with its checks on.
            self.labels_used[name] = user_location() if self.check or not self.verbatim else None
        return LabelRef(name)

    # ------------------------------------------------------------------ statements

    def append(self, item: object) -> None:
        """Add a statement (or a pending control-flow record) at the current position."""
        self.blocks[-1].append(item)

    def emit(self, insn: Instruction) -> Instruction:
        """Add an instruction after checking it against the ISA table."""
        if self.check:
            validate.check_instruction(self, insn)
        self.instructions.append(insn)
        if not self.verbatim:
            self.locations[id(insn)] = user_location()
        self.append(insn)
        return insn

    def location_of(self, node: object) -> tuple[str, int] | None:
        """The Python ``(file, line)`` that emitted ``node`` (an instruction of this trace)."""
        return self.locations.get(id(node))

    @contextmanager
    def hoisted(self) -> Iterator[None]:
        """Emit into the kernel prologue (before the body) instead of the current position.

        Used for values that are valid everywhere in the kernel (parameter loads), so a first
        use inside a branch does not leave later uses reading an unset register.
        """
        self.blocks.append(self.prologue)
        try:
            yield
        finally:
            self.blocks.pop()

    @contextmanager
    def nested(self) -> Iterator[list[object]]:
        """Collect the statements emitted inside the block into a fresh list."""
        body: list[object] = []
        self.blocks.append(body)
        try:
            yield body
        finally:
            self.blocks.pop()

    # ------------------------------------------------------------------ finishing

    def flatten(self, items: list[object], out: list[Node]) -> None:
        """Lower pending records (if/else, scopes) into plain statements."""
        from pyptx.ir import Register

        for item in items:
            if isinstance(item, IfRecord):
                skip = self.new_label("else" if item.otherwise is not None else "endif")
                guard = Predicate(Register(item.predicate.name), negated=not item.negate)
                out.append(Instruction("bra", (), (LabelRef(skip),), guard))
                self.flatten(item.then, out)
                if item.otherwise is None:
                    out.append(Label(skip))
                else:
                    end = self.new_label("endif")
                    out.append(Instruction("bra", ("uni",), (LabelRef(end),)))
                    out.append(Label(skip))
                    self.flatten(item.otherwise, out)
                    out.append(Label(end))
            elif isinstance(item, BlockRecord):
                inner: list[Node] = []
                self.flatten(item.body, inner)
                out.append(Block(tuple(inner)))
            elif isinstance(item, ScopeRecord):
                start = len(out)
                self.flatten(item.body, out)
                if len(out) > start:
                    begin = _with_comment(out[start], f"// begin {item.name}", True)
                    self._relocate(out, start, begin)
                    self._relocate(out, -1, _with_comment(out[-1], f"// end {item.name}", False))
            else:
                assert isinstance(item, Node)
                out.append(item)

    def _relocate(self, out: list[Node], index: int, node: Node) -> None:
        """Replace ``out[index]`` by ``node``, which keeps the old statement's Python location."""
        old = out[index]
        if id(old) in self.locations:
            self.locations[id(node)] = self.locations[id(old)]
        out[index] = node

    def check_labels(self, statements: list[Node]) -> None:
        """Every referenced label must be placed, where the branch can see it.

        A label placed inside a ``{ }`` block (``ptx.block`` / ``ptx.scope``) is local to
        that block, as in PTX: branches inside the block (or blocks nested in it) reach it.

        Raises:
            PtxDslError: at the user's line that referenced a label never placed, or one
                placed only inside a block the branch is outside of.
        """
        placed = {
            s.name for s in Block(tuple(statements)).walk_statements() if isinstance(s, Label)
        }
        if self.verbatim:
            placed.update(self.labels_defined)
        for name, where in self.labels_used.items():
            if name not in placed:
                raise PtxDslError(
                    f"branch to label {name!r}, which is never placed in this kernel; "
                    f"place it with ptx.label({name!r})",
                    where,
                )
        if not self.verbatim:
            self._check_label_scopes(statements, frozenset())

    def _check_label_scopes(self, statements: Sequence[Node], outer: frozenset[str]) -> None:
        """Each label operand names a label of its own block or an enclosing one."""
        visible = outer | {s.name for s in statements if isinstance(s, Label)}
        for s in statements:
            if isinstance(s, Block):
                self._check_label_scopes(s.statements, visible)
            elif isinstance(s, Instruction):
                for op in s.operands:
                    if isinstance(op, LabelRef) and op.name not in visible:
                        raise PtxDslError(
                            f"branch to label {op.name!r}, which is placed inside a {{ }} block "
                            "(ptx.block / ptx.scope) that this branch is outside of; a label "
                            "in a block is local to it, so place the label outside the block",
                            self.locations.get(id(s)) or self.labels_used.get(op.name),
                        )


def _with_comment(node: Node, comment: str, before: bool) -> Node:
    """Attach a ``//`` comment line before (or at the end of) a statement, as trivia."""
    if not isinstance(node, (Instruction, Label)):
        return node
    # A statement without trivia first gets the canonical layout of a kernel body's statement.
    fill = {LEADING: "\n" if isinstance(node, Label) else "\n\t", "before_opcode": " "}
    if not before:
        return with_gaps(node, fill, trailing=f"{_gap(node, TRAILING, fill)}  {comment}")
    if isinstance(node, Instruction) and node.predicate is not None:
        # A guarded instruction's leading gap is its predicate's.
        pred = node.predicate
        pred = with_gaps(pred, fill, leading=f"\n\t{comment}{_gap(pred, LEADING, fill)}")
        return replace(with_gaps(node, fill), predicate=pred)
    return with_gaps(node, fill, leading=f"\n\t{comment}{_gap(node, LEADING, fill)}")


def _gap(node: Node, name: str, fill: dict[str, str]) -> str:
    """Gap ``name`` of ``node``, or its ``fill`` text when the node has no trivia for it."""
    text = node.gap(name)
    return fill.get(name, "") if text is None else text
