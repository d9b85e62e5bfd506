"""Statements written exactly as in PTX: the vocabulary of transpiled (and hand-ported) code.

Everything here emits precisely the PTX it is given, nothing hoisted or renamed:

* :func:`declare` places a declaration (``.reg .b32 %r<12>;``, ``.local .align 8 .b8
  __local_depot0[16];``) where it is called and returns handles for the declared names:
  a :class:`RegRange` for ``%r<12>`` (``r[3]`` is ``%r3``), a :class:`~pyptx.dsl.regs.Reg`
  for a single register, a :class:`Sym` for a variable.
* :func:`block` opens a nested ``{ }`` scope (inline-asm style); labels are scoped per block.
* :func:`operand`, :func:`imm`, :func:`sym` and :func:`label_ref` spell operands the Python
  values cannot (``0f3F800000``, ``[%rd1, {%r1, %r2}]``, an undeclared symbol).
* :func:`instruction` emits any mnemonic from its PTX spelling.

The declaration and operand text is parsed by :mod:`pyptx.parser`, so malformed PTX is an
error at the caller's line, and the resulting IR is structural (no text is passed through).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pyptx.ir import (
    Immediate,
    Instruction,
    LabelRef,
    Node,
    Operand,
    ParenList,
    PtxType,
    StateSpace,
    VariableDecl,
)
from pyptx.parser import PtxSyntaxError, parse

from ._trace import BlockRecord, current
from .errors import PtxDslError
from .operands import emit_inst, to_operand
from .regs import Reg

__all__ = [
    "RegRange",
    "Sym",
    "args",
    "block",
    "declare",
    "imm",
    "instruction",
    "label_ref",
    "operand",
    "scope",
    "sym",
]


@dataclass(frozen=True)
class Sym:
    """A named PTX variable, parameter or function used as an operand (``[name]``, ``name``).

    Attributes:
        symbol: the PTX name.
    """

    symbol: str

    def __repr__(self) -> str:
        return f"Sym({self.symbol})"


@dataclass(frozen=True)
class RegRange:
    """The registers of a ranged declaration ``.reg .b32 %r<N>;``: ``r[i]`` is ``%r<i>``.

    Attributes:
        prefix: the name prefix (``%r``).
        count: N, the number of registers declared.
        type: the declared type.
    """

    prefix: str
    count: int
    type: PtxType
    _made: dict[int, Reg] = field(default_factory=dict, init=False, compare=False, repr=False)
    """Each register handed out, by index (transpiled code indexes the same few often)."""

    def __getitem__(self, i: int) -> Reg:
        if type(i) is int:
            made = self._made.get(i)
            if made is not None:
                return made
        if not isinstance(i, int) or isinstance(i, bool):
            raise PtxDslError(f"{self.prefix}<{self.count}> is indexed by an int, got {i!r}")
        if not 0 <= i < self.count:
            raise PtxDslError(
                f"register {self.prefix}{i} is outside the declaration {self.prefix}<{self.count}>"
            )
        made = self._made[i] = Reg(f"{self.prefix}{i}", self.type)
        return made

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[Reg]:
        return (self[i] for i in range(self.count))

    def __repr__(self) -> str:
        return f"RegRange({self.prefix}<{self.count}>: {self.type.ptx})"


def _parse_error(what: str, e: PtxSyntaxError, text: str) -> PtxDslError:
    return PtxDslError(f"{what}: {e.message} in {text!r}")


BODY_LINE_OFFSET = 2
"""Lines before the text in the wrapper :func:`body_statements` parses (a
:class:`~pyptx.parser.PtxSyntaxError`'s line minus this is the line of the text)."""


@functools.lru_cache(maxsize=4096)
def body_statements(text: str) -> tuple[Node, ...]:
    """Parse function-body PTX statements (trivia dropped); cached by text.

    Raises:
        PtxSyntaxError: the text is not well-formed PTX statements (never cached); its line
            counts :data:`BODY_LINE_OFFSET` wrapper lines first.
    """
    module = parse(f".entry __pyptx_verbatim__()\n{{\n{text}\n}}\n", "<ptx>")
    return tuple(s.without_trivia() for s in module.functions[0].statements)


def parse_statements(text: str) -> tuple[Node, ...]:
    """:func:`body_statements`, with a malformed text reported as a DSL error.

    Raises:
        PtxDslError: the text is not well-formed PTX statements.
    """
    try:
        return body_statements(text)
    except PtxSyntaxError as e:
        raise _parse_error("malformed PTX", e, text) from None


def _handles(decl: VariableDecl) -> list[object]:
    out: list[object] = []
    ty = decl.type or PtxType.B32
    for d in decl.declarators:
        if decl.state_space is StateSpace.REG and d.range_count is not None:
            out.append(RegRange(d.name, d.range_count, ty))
        elif decl.state_space is StateSpace.REG and not d.dims:
            out.append(Reg(d.name, ty))
        else:
            out.append(Sym(d.name))
    return out


def declare(text: str) -> Any:
    """Place one PTX declaration statement here and return handles for what it declares.

    ``r = ptx.declare(".reg .b32 %r<12>;")`` emits the line and gives ``r[0]`` ...
    ``r[11]``; ``a, b = ptx.declare(".reg .f32 a, b;")`` gives two registers;
    ``depot = ptx.declare(".local .align 8 .b8 __local_depot0[16];")`` gives a :class:`Sym`.

    Returns:
        One handle for a single declarator, else a tuple of handles in declaration order.

    Raises:
        PtxDslError: the text is not exactly one variable declaration.
    """
    stmts = parse_statements(text)
    if len(stmts) != 1 or not isinstance(stmts[0], VariableDecl):
        raise PtxDslError(f"ptx.declare takes one declaration statement, got {text!r}")
    decl = stmts[0]
    trace = current()
    if decl.state_space is StateSpace.REG and decl.type is not None:
        for d in decl.declarators:
            for name in d.names():
                trace.reg_types[name] = decl.type
    trace.append(decl)
    handles = _handles(decl)
    return handles[0] if len(handles) == 1 else tuple(handles)


@contextmanager
def block() -> Iterator[None]:
    """A nested ``{ ... }`` scope; what is emitted inside lands in the block.

    Labels placed inside are local to the block, as in PTX (inline-asm blocks often reuse
    label names): branches inside the block, or in blocks nested in it, reach them; a branch
    from outside is an error.
    """
    trace = current()
    record = BlockRecord()
    trace.label_scopes.append({})
    try:
        with trace.nested() as body:
            yield
    finally:
        trace.label_scopes.pop()
    record.body = body
    trace.append(record)


@contextmanager
def scope() -> Iterator[None]:
    """The seed system's name for :func:`block`: a nested ``{ ... }`` scope.

    Emits the same braces and scopes labels the same way. Our register declarations stay at
    the top of the kernel either way (registers are numbered per kernel), so a scope is only
    needed to reuse label names.
    """
    with block():
        yield


@functools.lru_cache(maxsize=4096)
def _parse_operand(text: str) -> Operand:
    try:
        stmts = parse_statements(f"pyptx_operand {text};")
    except PtxDslError:
        raise PtxDslError(f"ptx.operand: {text!r} is not a PTX operand") from None
    insn = stmts[0] if len(stmts) == 1 else None
    if not isinstance(insn, Instruction) or len(insn.operands) != 1:
        raise PtxDslError(f"ptx.operand: {text!r} is not one PTX operand")
    return insn.operands[0]


def operand(text: str) -> Operand:
    """Any PTX operand from its spelling (``"[%rd1+-8]"``, ``"%r7"``, ``"(%rd2)"``).

    Raises:
        PtxDslError: the text is not exactly one operand.
    """
    if not isinstance(text, str):
        raise PtxDslError(f"ptx.operand takes the operand's PTX text, got {type(text).__name__}")
    return _parse_operand(text)


def imm(text: str) -> Immediate:
    """An immediate kept in its PTX spelling (``"0f3F800000"``, ``"0x1F"``, ``"1.5"``).

    Raises:
        PtxDslError: the text is not a numeric literal.
    """
    node = operand(text)
    if not isinstance(node, Immediate):
        raise PtxDslError(f"ptx.imm: {text!r} is not a PTX numeric literal")
    return node


def sym(name: str) -> Sym:
    """A reference to the PTX variable, parameter or function ``name``."""
    if not isinstance(name, str) or not name:
        raise PtxDslError(f"ptx.sym takes a PTX name, got {name!r}")
    return Sym(name)


def label_ref(name: str) -> LabelRef:
    """A label operand (for instructions other than :func:`pyptx.ptx.bra`)."""
    if not isinstance(name, str) or not name:
        raise PtxDslError(f"ptx.label_ref takes a label name, got {name!r}")
    return LabelRef(name)


def args(*operands: Any) -> ParenList:
    """A parenthesised operand list, as ``call`` takes: ``ptx.args(x, y)`` is ``(x, y)``."""
    return ParenList(tuple(to_operand(o) for o in operands))


def instruction(mnemonic: str, *operands: Any, pred: Any = None) -> Instruction:
    """Emit ``[@pred] mnemonic operands...;`` from the mnemonic's PTX spelling (one instruction).

    ``ptx.instruction("cp.async.ca.shared.global", dst, src, 16)`` is the same as the
    attribute form ``ptx.inst.cp.async_.ca.shared.global_(dst, src, 16)``.
    """
    parts = mnemonic.split(".")
    if not all(parts):
        raise PtxDslError(f"ptx.instruction: malformed mnemonic {mnemonic!r}")
    return emit_inst(parts[0], parts[1:], operands, pred)
