"""A small API for building modules by hand.

Example::

    from pyptx.ir import builder as b
    from pyptx.ir import PtxType

    fn = b.FunctionBuilder("add_one", params=[b.param(PtxType.U64, "p")])
    fn.reg(PtxType.B32, "%r", 2)
    fn.reg(PtxType.B64, "%rd", 2)
    fn.inst("ld.param.u64", b.reg("%rd1"), b.addr(b.sym("p")))
    fn.inst("ld.global.u32", b.reg("%r1"), b.addr(b.reg("%rd1")))
    fn.inst("add.u32", b.reg("%r1"), b.reg("%r1"), b.imm(1))
    fn.inst("st.global.u32", b.addr(b.reg("%rd1")), b.reg("%r1"))
    fn.inst("ret")
    module = b.module("sm_80", (7, 0), fn.build())

Nodes built here carry no trivia, so they emit in the canonical layout.
"""

from __future__ import annotations

from .declarations import Declarator, DeclQualifier, Linkage, Param, VariableDecl
from .directives import AddressSize, Target, Version
from .functions import Block, Function, FunctionKind, Label
from .instructions import Instruction, Predicate
from .module import Module
from .node import Node
from .operands import Address, Expr, Immediate, Operand, Register, Symbol, VectorOperand
from .types import PtxType, StateSpace

__all__ = [
    "FunctionBuilder",
    "addr",
    "imm",
    "inst",
    "module",
    "param",
    "reg",
    "sym",
    "vec",
]


def reg(name: str) -> Register:
    """A register operand (``"%r1"``)."""
    return Register(name)


def sym(name: str) -> Symbol:
    """A symbol operand (variable, parameter or function name)."""
    return Symbol(name)


def imm(value: int | float | str) -> Immediate:
    """An immediate: a Python number, or a PTX spelling such as ``"0f3F800000"``."""
    return Immediate(value) if isinstance(value, str) else Immediate.of(value)


def vec(*elements: Operand) -> VectorOperand:
    """A ``{a, b, ...}`` vector operand."""
    return VectorOperand(tuple(elements))


def addr(base: Expr, offset: int | None = None) -> Address:
    """``[base]`` or ``[base+offset]`` (a negative offset is written ``[base+-4]``)."""
    return Address(base, None if offset is None else Immediate(str(offset)))


def inst(
    mnemonic: str, *operands: Operand, pred: Operand | None = None, negated: bool = False
) -> Instruction:
    """An instruction from its dotted mnemonic, e.g. ``inst("add.s32", d, a, b)``.

    Args:
        mnemonic: opcode and modifiers, dot-separated.
        *operands: the operands in order.
        pred: an optional guard predicate register.
        negated: whether the guard is negated (``@!p``).
    """
    opcode, *mods = mnemonic.split(".")
    guard = Predicate(pred, negated) if pred is not None else None
    return Instruction(opcode, tuple(mods), tuple(operands), guard)


def param(
    ty: PtxType, name: str, *, align: int | None = None, dims: tuple[int | None, ...] = ()
) -> Param:
    """A ``.param`` parameter declaration."""
    quals: list[DeclQualifier] = [StateSpace.PARAM]
    if align is not None:
        from .declarations import Align

        quals.append(Align(align))
    quals.append(ty)
    return Param(tuple(quals), Declarator(name, dims))


class FunctionBuilder:
    """Accumulates the statements of one function.

    Args:
        name: the function symbol.
        params: its parameters.
        kind: entry (default) or func.
        linkage: linking directives; ``.visible`` by default.
    """

    def __init__(
        self,
        name: str,
        params: list[Param] | tuple[Param, ...] = (),
        kind: FunctionKind = FunctionKind.ENTRY,
        linkage: tuple[Linkage, ...] = (Linkage.VISIBLE,),
    ) -> None:
        self.name = name
        self.params = tuple(params)
        self.kind = kind
        self.linkage = linkage
        self.statements: list[Node] = []

    def reg(self, ty: PtxType, name: str, count: int | None = None) -> None:
        """Declare registers: ``.reg .ty name;`` or ``.reg .ty name<count>;``."""
        self.statements.append(
            VariableDecl((StateSpace.REG, ty), (Declarator(name, range_count=count),))
        )

    def inst(
        self, mnemonic: str, *operands: Operand, pred: Operand | None = None, negated: bool = False
    ) -> Instruction:
        """Append an instruction (see :func:`inst`) and return it."""
        node = inst(mnemonic, *operands, pred=pred, negated=negated)
        self.statements.append(node)
        return node

    def label(self, name: str) -> None:
        """Append a label definition."""
        self.statements.append(Label(name))

    def add(self, statement: Node) -> None:
        """Append any statement node."""
        self.statements.append(statement)

    def build(self) -> Function:
        """Return the finished :class:`Function`."""
        return Function(
            self.kind, self.name, self.params, Block(tuple(self.statements)), linkage=self.linkage
        )


def module(
    target: str, version: tuple[int, int], *statements: Node, address_size: int = 64
) -> Module:
    """A module with the standard header followed by ``statements``."""
    header: tuple[Node, ...] = (
        Version(*version),
        Target((target,)),
        AddressSize(address_size),
    )
    return Module(header + statements)
