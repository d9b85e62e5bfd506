"""Alpha-equivalence of PTX modules: the same program up to a consistent renaming.

:func:`alpha_equivalent` decides whether two modules differ only in the names of registers,
labels and symbols (variables, parameters, functions), through a renaming that is
consistent over the whole module and bijective, with trivia ignored. It is how the
transpiler's renaming passes are checked: a pass may change every name, but nothing else.

Names are resolved the way PTX scopes them: module-scope functions, variables and
``.section`` labels; a function's parameters; and, for each ``{ }`` block, the registers,
variables and labels declared in it (which shadow outer ones). A reference in one module
must resolve to the declaration that corresponds, position for position, to the declaration
its counterpart resolves to; names declared nowhere (``.debug_abbrev``, undeclared
externals) must be spelled identically. ``.reg .b32 %r<10>;`` declares one binding for
``%r0`` .. ``%r9``: renaming it to ``%x<10>`` maps ``%rN`` to ``%xN``. Labels, parameters
and variables declared in function bodies are also visible from module scope (DWARF
``.section`` data refers to them); a name declared in several functions is ambiguous there
and must stay ambiguous the same way. Special registers, opcodes, modifiers, types and
immediates are compared literally.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyptx.emitter import emit
from pyptx.ir import (
    Address,
    Alias,
    Block,
    CallPrototype,
    Declarator,
    Function,
    Immediate,
    Instruction,
    Label,
    LabelRef,
    Module,
    Node,
    Param,
    Register,
    Section,
    SectionData,
    StateSpace,
    Symbol,
    VariableDecl,
    child_fields,
)

__all__ = ["AlphaResult", "alpha_equivalent"]


@dataclass(frozen=True, slots=True)
class AlphaResult:
    """The answer of :func:`alpha_equivalent`; true exactly when the modules are equivalent.

    Attributes:
        equivalent: whether the modules are the same program up to a consistent renaming.
        reason: empty when equivalent; else the first difference found, with its location
            (function and statement index) and both statements rendered as PTX.
    """

    equivalent: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.equivalent


_REG = "reg"
_RANGE = "reg-range"
_SYM = "sym"
_LABEL = "label"

_Key = tuple[str, str]
"""A binding's namespace and name."""

_Decl = tuple[_Key, int | None]
"""A binding and, for a register range ``%r<N>``, its ``N``."""

_Token = tuple[object, ...]
"""What a name resolves to: a binding id (and register index), or a free name."""

_LOOKUP_ORDER: dict[type, tuple[str, ...]] = {
    Register: (_REG,),
    Symbol: (_SYM, _LABEL),
    LabelRef: (_LABEL, _SYM),
    Alias: (_SYM,),
}
"""The namespaces a reference node's name is looked up in, in order."""

_REFERENCE_LOOKUP: dict[type, tuple[str, ...]] = {
    **{t: _LOOKUP_ORDER[t] for t in (Register, Symbol, LabelRef)},
    Label: (_LABEL,),
}
"""Named leaves whose only compared field is ``name`` (compared without a field walk)."""

_NAME_FIELDS: dict[type, tuple[str, ...]] = {
    Register: ("name",),
    Symbol: ("name",),
    LabelRef: ("name",),
    Label: ("name",),
    Alias: ("alias", "aliasee"),
}
"""String fields that hold names (compared by resolution, not spelling)."""


_RENDER_LIMIT = 160
"""Longest rendering of a node in a reason."""


class _Mismatch(Exception):
    """The first difference found (internal; becomes :attr:`AlphaResult.reason`)."""


def _render(node: object) -> str:
    """One line of PTX for ``node`` (its first line, shortened), or its repr."""
    try:
        text = emit(node, canonical=True) if isinstance(node, Node) else repr(node)
    except (TypeError, ValueError, AttributeError):
        text = repr(node)
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= _RENDER_LIMIT else line[: _RENDER_LIMIT - 3] + "..."


def _decl_key(decl: VariableDecl, d: Declarator) -> _Key:
    """The binding a variable declarator introduces."""
    if decl.state_space is StateSpace.REG:
        return (_RANGE if d.range_count is not None else _REG, d.name)
    return (_SYM, d.name)


def _block_decls(statements: tuple[Node, ...]) -> list[_Decl]:
    """The bindings introduced directly by a block's (or module's) statements, in order."""
    out: list[_Decl] = []
    for s in statements:
        if isinstance(s, Label):
            out.append(((_LABEL, s.name), None))
        elif isinstance(s, VariableDecl):
            out.extend((_decl_key(s, d), d.range_count) for d in s.declarators)
        elif isinstance(s, Function):
            out.append(((_SYM, s.name), None))
        elif isinstance(s, Section):
            out.extend(((_LABEL, i.name), None) for i in s.items if isinstance(i, Label))
    return out


def _param_decls(f: Function) -> list[_Decl]:
    return [((_SYM, p.name), None) for p in (f.returns or ()) + (f.params or ())]


@functools.lru_cache(maxsize=16384)
def _range_splits(name: str) -> tuple[tuple[str, int], ...]:
    """``%r12`` -> ``(("%r1", 2), ("%r", 12))``: the (stem, index) readings of a name."""
    out: list[tuple[str, int]] = []
    i = len(name) - 1
    while i > 0 and name[i].isdigit():
        digits = name[i:]
        if len(digits) == 1 or digits[0] != "0":
            out.append((name[:i], int(digits)))
        i -= 1
    return tuple(out)


class _Side:
    """The scope chain of one of the two modules."""

    def __init__(self) -> None:
        self.scopes: list[dict[_Key, tuple[int, int | None]]] = []
        self.exported: dict[str, list[int]] = {}
        self.resolved: dict[tuple[str, tuple[str, ...]], _Token | None] = {}
        """Answers of :meth:`resolve` since the scopes last changed (names repeat a lot)."""

    def resolve(self, name: str, namespaces: tuple[str, ...]) -> _Token | None:
        """The binding ``name`` refers to, innermost scope first; ``None`` if unbound."""
        key = (name, namespaces)
        try:
            return self.resolved[key]
        except KeyError:
            token = self.resolved[key] = self._lookup(name, namespaces)
            return token

    def _lookup(self, name: str, namespaces: tuple[str, ...]) -> _Token | None:
        for scope in reversed(self.scopes):
            for ns in namespaces:
                hit = scope.get((ns, name))
                if hit is not None:
                    return (hit[0],)
                if ns == _REG:
                    for stem, index in _range_splits(name):
                        r = scope.get((_RANGE, stem))
                        if r is not None and r[1] is not None and index < r[1]:
                            return (r[0], index)
        return None


class _Checker:
    """Walks two modules in lockstep (see the module docstring for the rules)."""

    def __init__(self) -> None:
        self.a = _Side()
        self.b = _Side()
        self.next_id = 0
        self.path: list[str] = []
        self.stmt: tuple[object, object] = (None, None)
        self.in_function = False
        self.deferred: list[tuple[str, str, str, tuple[object, object]]] = []

    # ------------------------------------------------------------------ reporting

    def fail(self, detail: str) -> _Mismatch:
        """Build the mismatch for ``detail`` at the current location."""
        where = " > ".join(self.path) or "module"
        left, right = self.stmt
        span = getattr(left, "span", None)
        if span is not None:  # the left module was parsed with spans
            where = f"{span} ({where})"
        return _Mismatch(f"{where}: {detail}\n  left:  {_render(left)}\n  right: {_render(right)}")

    # ------------------------------------------------------------------ scopes

    def push(self, decls_a: list[_Decl], decls_b: list[_Decl]) -> None:
        """Open a scope binding ``decls_a`` and ``decls_b`` pairwise."""
        self.a.scopes.append({})
        self.b.scopes.append({})
        self.a.resolved.clear()
        self.b.resolved.clear()
        if len(decls_a) != len(decls_b):
            raise self.fail(f"{len(decls_a)} declarations vs {len(decls_b)} in this scope")
        for da, db in zip(decls_a, decls_b, strict=True):
            self.bind(da, db)

    def pop(self) -> None:
        """Close the innermost scope."""
        self.a.scopes.pop()
        self.b.scopes.pop()
        self.a.resolved.clear()
        self.b.resolved.clear()

    def bind(self, da: _Decl, db: _Decl) -> None:
        """Pair two declarations; a name re-declared in one scope is the same entity."""
        (ka, count_a), (kb, count_b) = da, db
        if ka[0] != kb[0]:
            raise self.fail(f"{ka[0]} {ka[1]!r} corresponds to {kb[0]} {kb[1]!r}")
        sa, sb = self.a.scopes[-1], self.b.scopes[-1]
        self.a.resolved.clear()
        self.b.resolved.clear()
        ha, hb = sa.get(ka), sb.get(kb)
        if ha is None and hb is None:
            self.next_id += 1
            sa[ka] = (self.next_id, count_a)
            sb[kb] = (self.next_id, count_b)
            if ka[0] != _REG and ka[0] != _RANGE and self.in_function:
                self.a.exported.setdefault(ka[1], []).append(self.next_id)
                self.b.exported.setdefault(kb[1], []).append(self.next_id)
        elif ha is None or hb is None or ha[0] != hb[0]:
            raise self.fail(f"renaming {ka[1]!r} -> {kb[1]!r} is not a bijection in this scope")

    # ------------------------------------------------------------------ names

    def names(self, na: str, nb: str, namespaces: tuple[str, ...]) -> None:
        """Check that two names at corresponding places refer to corresponding things."""
        ta = self.a.resolve(na, namespaces)
        tb = self.b.resolve(nb, namespaces)
        if ta is None and tb is None:
            if _LABEL in namespaces:
                self.deferred.append((na, nb, " > ".join(self.path), self.stmt))
            elif na != nb:
                raise self.fail(f"undeclared {na!r} vs {nb!r}")
        elif ta != tb:
            raise self.fail(f"{na!r} and {nb!r} refer to different declarations")

    def resolve_deferred(self) -> None:
        """Check references to function-scope names from outside their scope, and free names."""
        for na, nb, where, stmt in self.deferred:
            ia, ib = self.a.exported.get(na), self.b.exported.get(nb)
            if ia != ib or (ia is None and na != nb):
                self.path, self.stmt = [where], stmt
                raise self.fail(f"{na!r} and {nb!r} refer to different declarations")

    # ------------------------------------------------------------------ structure

    def module(self, a: Module, b: Module) -> None:
        """Compare two modules."""
        self.push(_block_decls(a.statements), _block_decls(b.statements))
        self.statements(a.statements, b.statements)
        self.resolve_deferred()

    def statements(self, xs: tuple[Node, ...], ys: tuple[Node, ...]) -> None:
        """Compare two statement lists, pointing the path at each statement."""
        if len(xs) != len(ys):
            self.stmt = (xs[-1] if xs else None, ys[-1] if ys else None)
            raise self.fail(f"{len(xs)} statements vs {len(ys)}")
        self.path.append("")
        for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
            self.path[-1] = f"statement {i}"
            self.stmt = (x, y)
            self.node(x, y)
        self.path.pop()

    def node(self, x: object, y: object) -> None:
        """Compare two nodes (dispatching scoping nodes to their own rules)."""
        t = type(x)
        if t is not type(y):
            raise self.fail(f"{t.__name__} vs {type(y).__name__}")
        order = _REFERENCE_LOOKUP.get(t)
        if order is not None:  # a reference leaf: its one field is the name
            self.names(x.name, y.name, order)  # type: ignore[attr-defined]
            return
        if t is Immediate and x == y:  # literal leaves; a difference is reported below
            return
        rule = _RULES.get(t)
        if rule is not None:
            rule(self, x, y)
        else:
            self.fields(x, y)

    def fields(self, x: object, y: object) -> None:
        """Compare two nodes of one type field by field (names by resolution)."""
        named = _NAME_FIELDS.get(type(x), ())
        order = _LOOKUP_ORDER.get(type(x), (_LABEL,))
        for name in child_fields(type(x)):
            vx, vy = getattr(x, name), getattr(y, name)
            if name in named:
                self.names(vx, vy, order)
            else:
                self.value(vx, vy, name)

    def value(self, vx: object, vy: object, what: str) -> None:
        """Compare two field values: nodes recursively, tuples item by item, else by ``==``."""
        if isinstance(vx, Node):
            self.node(vx, vy)
        elif isinstance(vx, tuple) and isinstance(vy, tuple):
            if len(vx) != len(vy):
                raise self.fail(f"{what}: {len(vx)} items vs {len(vy)}")
            for ix, iy in zip(vx, vy, strict=True):
                self.value(ix, iy, what)
        elif vx != vy:
            raise self.fail(f"{what} differs: {vx!r} vs {vy!r}")

    def function(self, fa: Function, fb: Function) -> None:
        """Compare two functions: the name at module scope, parameters in their own scope."""
        self.path.append(f"function {fa.name}")
        self.names(fa.name, fb.name, (_SYM,))
        for name in ("kind", "linkage", "directives"):
            self.value(getattr(fa, name), getattr(fb, name), name)
        self.in_function = True
        self.push(_param_decls(fa), _param_decls(fb))
        self.value(fa.returns, fb.returns, "returns")
        self.value(fa.params, fb.params, "params")
        if (fa.body is None) != (fb.body is None):
            raise self.fail("a definition vs a declaration")
        if fa.body is not None and fb.body is not None:
            self.block(fa.body, fb.body)
        self.in_function = False
        self.pop()
        self.path.pop()

    def block(self, ba: Block, bb: Block) -> None:
        """Compare two ``{ }`` blocks, each a scope of its own."""
        self.push(_block_decls(ba.statements), _block_decls(bb.statements))
        self.path.append("block")
        self.statements(ba.statements, bb.statements)
        self.path.pop()
        self.pop()

    def variable_decl(self, da: VariableDecl, db: VariableDecl) -> None:
        """Compare two declarations; declarator names resolve in their own namespace."""
        self.value(da.qualifiers, db.qualifiers, "qualifiers")
        if len(da.declarators) != len(db.declarators):
            raise self.fail("different numbers of declarators")
        for xa, xb in zip(da.declarators, db.declarators, strict=True):
            self.declarator(xa, xb, (_decl_key(da, xa)[0],))

    def declarator(self, xa: Declarator, xb: Declarator, namespaces: tuple[str, ...]) -> None:
        """Compare two declarators (the name by resolution)."""
        self.names(xa.name, xb.name, namespaces)
        for name in ("dims", "range_count", "initializer"):
            self.value(getattr(xa, name), getattr(xb, name), name)

    def param(self, pa: Param, pb: Param) -> None:
        """Compare two parameters."""
        self.value(pa.qualifiers, pb.qualifiers, "qualifiers")
        self.declarator(pa.declarator, pb.declarator, (_SYM,))

    def instruction(self, x: Instruction, y: Instruction) -> None:
        """Compare two instructions: the mnemonic at once, then operand by operand."""
        if x.opcode != y.opcode or x.modifiers != y.modifiers or len(x.operands) != len(y.operands):
            self.fields(x, y)  # finds and reports the difference
            return
        for ox, oy in zip(x.operands, y.operands, strict=True):
            self.node(ox, oy)
        self.value(x.predicate, y.predicate, "predicate")

    def address(self, x: Address, y: Address) -> None:
        """Compare two addresses (the fields in :meth:`fields`' order, without its walk)."""
        self.node(x.base, y.base)
        self.value(x.offset, y.offset, "offset")
        if x.sign != y.sign:
            raise self.fail(f"sign differs: {x.sign!r} vs {y.sign!r}")
        if x.extra or y.extra:
            self.value(x.extra, y.extra, "extra")

    def section_data(self, x: SectionData, y: SectionData) -> None:
        """Compare two ``.section`` data lines: equal numbers at once, else field by field."""
        if x.type is y.type and x.values == y.values and _numbers_only(x.values):
            return
        self.fields(x, y)

    def call_prototype(self, ca: CallPrototype, cb: CallPrototype) -> None:
        """Compare two ``.callprototype`` directives literally (their names are ``_``)."""
        if ca != cb:
            raise self.fail(".callprototype differs")


_RULES: dict[type, Callable[[_Checker, Any, Any], None]] = {
    Function: _Checker.function,
    Block: _Checker.block,
    VariableDecl: _Checker.variable_decl,
    Param: _Checker.param,
    CallPrototype: _Checker.call_prototype,
    Instruction: _Checker.instruction,
    Address: _Checker.address,
    SectionData: _Checker.section_data,
}
"""Nodes compared by their own rule instead of field by field."""


def _numbers_only(values: tuple[Node, ...]) -> bool:
    """Whether every value is an :class:`~pyptx.ir.Immediate` (no name to resolve)."""
    return all(type(v) is Immediate for v in values)


def alpha_equivalent(a: Module, b: Module) -> AlphaResult:
    """Decide whether two modules are the same program up to a consistent renaming.

    Registers map to registers, labels to labels and symbols to symbols, bijectively and
    consistently over the whole module (within the scopes PTX gives them); everything else
    (opcodes, modifiers, types, immediates, special registers, structure) must be equal.
    Trivia is ignored. Runs in time linear in the size of the modules.

    Args:
        a: a module.
        b: another module.

    Returns:
        The verdict; when false, :attr:`AlphaResult.reason` locates the first difference.
    """
    checker = _Checker()
    try:
        checker.module(a, b)
    except _Mismatch as e:
        return AlphaResult(False, str(e))
    return AlphaResult(True)
