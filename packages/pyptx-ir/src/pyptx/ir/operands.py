"""Instruction operands and constant expressions.

Operands are what follows an opcode: registers, immediates, addresses, vectors, labels and
expressions. Their ``trivia`` holds the gap before each of their own tokens; each class names
its gaps (``leading`` is the gap before the operand itself, e.g. the space after a comma); see
:mod:`pyptx.ir.node`.
"""

from __future__ import annotations

import enum
import re
import struct
from dataclasses import dataclass, field
from typing import ClassVar

from .node import LEADING, Node, Trivia, comma_gaps
from .special_registers import SPECIAL_REGISTERS

__all__ = [
    "Address",
    "BinaryExpr",
    "BraceList",
    "Expr",
    "FieldInit",
    "GenericAddress",
    "Immediate",
    "ImmediateKind",
    "LabelRef",
    "Negated",
    "Operand",
    "ParenExpr",
    "ParenList",
    "PredPair",
    "Register",
    "Sink",
    "SpecialRegister",
    "StringLiteral",
    "Symbol",
    "UnaryExpr",
    "VectorOperand",
]

_T = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Register(Node):
    """A register operand, e.g. ``%r12`` or ``%rd4`` (declared with ``.reg``).

    Attributes:
        name: the spelling, including a leading ``%`` when the source has one.

    Gaps: ``leading``.
    """

    GAPS: ClassVar[tuple[str, ...]] = (LEADING,)

    name: str
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class SpecialRegister(Node):
    """A special register such as ``%tid.x`` or ``%clock64`` (see :mod:`.special_registers`).

    Attributes:
        name: the spelling with ``%`` and component.

    Gaps: ``leading``.
    """

    GAPS: ClassVar[tuple[str, ...]] = (LEADING,)

    name: str
    trivia: Trivia = _T

    @property
    def known(self) -> bool:
        """Whether the name is in :data:`~pyptx.ir.SPECIAL_REGISTERS`."""
        return self.name in SPECIAL_REGISTERS


@dataclass(frozen=True, slots=True)
class Symbol(Node):
    """A reference to a named variable, parameter or function (``x``, ``kernel_param_0``).

    Gaps: ``leading``.
    """

    GAPS: ClassVar[tuple[str, ...]] = (LEADING,)

    name: str
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class LabelRef(Node):
    """A reference to a label defined in the enclosing function (``$L__BB0_2``).

    Gaps: ``leading``.
    """

    GAPS: ClassVar[tuple[str, ...]] = (LEADING,)

    name: str
    trivia: Trivia = _T


class ImmediateKind(enum.Enum):
    """How an immediate is spelled."""

    DECIMAL = "decimal"
    HEX = "hex"
    OCTAL = "octal"
    BINARY = "binary"
    FLOAT = "float"
    """Decimal floating point, e.g. ``1.5`` or ``2e-3``."""
    HEX_F32 = "hex_f32"
    """``0f`` followed by 8 hex digits: the bits of an f32."""
    HEX_F64 = "hex_f64"
    """``0d`` followed by 16 hex digits: the bits of an f64."""


_INT_RE = re.compile(r"-?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]+|[0-9]+)[uU]?\Z")


@dataclass(frozen=True, slots=True)
class Immediate(Node):
    """A numeric literal, kept in its original spelling (``0f3F800000``, ``-4``, ``0x1F``).

    Attributes:
        text: the spelling, including a leading ``-`` written directly before the digits.

    Gaps: ``leading``.
    """

    GAPS: ClassVar[tuple[str, ...]] = (LEADING,)

    text: str
    trivia: Trivia = _T

    @property
    def kind(self) -> ImmediateKind:
        """How the literal is spelled."""
        body = self.text.lstrip("-")
        head = body[:2].lower()
        if head == "0f":
            return ImmediateKind.HEX_F32
        if head == "0d":
            return ImmediateKind.HEX_F64
        if head == "0x":
            return ImmediateKind.HEX
        if head == "0b":
            return ImmediateKind.BINARY
        if any(c in body for c in ".eE"):
            return ImmediateKind.FLOAT
        if len(body.rstrip("uU")) > 1 and body.startswith("0"):
            return ImmediateKind.OCTAL
        return ImmediateKind.DECIMAL

    @property
    def value(self) -> int | float:
        """The numeric value (an ``int`` for integer spellings, a ``float`` otherwise)."""
        kind = self.kind
        neg = self.text.startswith("-")
        body = self.text.lstrip("-")
        if kind is ImmediateKind.HEX_F32:
            v: int | float = struct.unpack(">f", bytes.fromhex(body[2:]))[0]
        elif kind is ImmediateKind.HEX_F64:
            v = struct.unpack(">d", bytes.fromhex(body[2:]))[0]
        elif kind is ImmediateKind.FLOAT:
            v = float(body)
        else:
            digits = body.rstrip("uU")
            base = {ImmediateKind.HEX: 16, ImmediateKind.BINARY: 2, ImmediateKind.OCTAL: 8}
            b = base.get(kind, 10)
            v = int(digits[2:] if b in (16, 2) else digits, b)
        return -v if neg else v

    @classmethod
    def of(cls, value: int | float) -> Immediate:
        """Build an immediate from a Python number (floats become ``0f``/``0d`` hex bits).

        Args:
            value: an ``int`` (decimal spelling) or a ``float`` (``0d`` f64 bits).

        Returns:
            The immediate.
        """
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"Immediate.of expects an int or float, got {type(value).__name__}")
        if isinstance(value, int):
            return cls(str(value))
        return cls("0d" + struct.pack(">d", value).hex().upper())


@dataclass(frozen=True, slots=True)
class StringLiteral(Node):
    """A double-quoted string (``.file`` paths, ``.pragma`` strings).

    Attributes:
        text: the characters between the quotes, escapes kept as written.

    Gaps: ``leading``.
    """

    GAPS: ClassVar[tuple[str, ...]] = (LEADING,)

    text: str
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class Sink(Node):
    """The sink operand ``_`` (a result nobody reads). Gaps: ``leading``."""

    GAPS: ClassVar[tuple[str, ...]] = (LEADING,)

    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class VectorOperand(Node):
    """A brace-enclosed operand vector, e.g. ``{%f1, %f2, %f3, %f4}``.

    Gaps: ``leading`` (before ``{``), :func:`~pyptx.ir.comma_gaps` of the elements,
    ``before_rbrace``.
    """

    elements: tuple[Operand, ...]
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return (LEADING, *comma_gaps(len(self.elements)), "before_rbrace")


@dataclass(frozen=True, slots=True)
class BraceList(Node):
    """A brace-enclosed initializer list, e.g. ``{1, 2, {3, 4}}`` (items may nest).

    Gaps: ``leading`` (before ``{``), :func:`~pyptx.ir.comma_gaps` of the items,
    ``before_rbrace``.
    """

    items: tuple[Expr | BraceList | FieldInit, ...]
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return (LEADING, *comma_gaps(len(self.items)), "before_rbrace")


@dataclass(frozen=True, slots=True)
class FieldInit(Node):
    """A ``name = value`` item of an opaque-type initializer (``filter_mode = nearest``).

    Gaps: ``leading`` (before the name), ``before_eq``.
    """

    GAPS: ClassVar[tuple[str, ...]] = (LEADING, "before_eq")

    name: str
    value: Expr
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class Address(Node):
    """A memory address ``[base]``, ``[base+offset]`` or ``[base, extra...]``.

    Attributes:
        base: the register, symbol or immediate the address starts from.
        offset: the constant added to (``sign='+'``) or subtracted from the base, if any.
        sign: ``"+"`` or ``"-"``: the operator between base and offset.
        extra: further comma-separated operands inside the brackets (texture and tensor-map
            coordinates: ``[tmap, {%r1, %r2}]``).

    Gaps: ``leading`` (before ``[``), ``before_sign`` when there is an offset,
    :func:`~pyptx.ir.comma_gaps` of the items (the base, then each of ``extra``),
    ``before_rbracket``.
    """

    base: Expr
    offset: Expr | None = None
    sign: str = "+"
    extra: tuple[Operand, ...] = ()
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        sign = ("before_sign",) if self.offset is not None else ()
        return (LEADING, *sign, *comma_gaps(1 + len(self.extra)), "before_rbracket")


@dataclass(frozen=True, slots=True)
class ParenList(Node):
    """A parenthesised operand list (``call`` return and argument lists).

    Gaps: ``leading`` (before ``(``), :func:`~pyptx.ir.comma_gaps` of the items,
    ``before_rparen``.
    """

    items: tuple[Operand, ...]
    trivia: Trivia = _T

    def gap_names(self) -> tuple[str, ...]:
        """See :meth:`pyptx.ir.Node.gap_names`."""
        return (LEADING, *comma_gaps(len(self.items)), "before_rparen")


@dataclass(frozen=True, slots=True)
class Negated(Node):
    """A logically negated operand, ``!%p``. Gaps: ``leading`` (before ``!``)."""

    GAPS: ClassVar[tuple[str, ...]] = (LEADING,)

    operand: Operand
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class PredPair(Node):
    """The ``p|q`` destination pair of ``setp``-like instructions. Gaps: ``before_bar``."""

    GAPS: ClassVar[tuple[str, ...]] = ("before_bar",)

    first: Operand
    second: Operand
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class BinaryExpr(Node):
    """A binary constant expression such as ``sym+8`` or ``$L__end-$L__begin``.

    Gaps: ``before_op`` (the left operand holds the gap before the expression).
    """

    GAPS: ClassVar[tuple[str, ...]] = ("before_op",)

    op: str
    lhs: Expr
    rhs: Expr
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class UnaryExpr(Node):
    """A unary constant expression (``-x``, ``~x``, ``!x``). Gaps: ``leading`` (before ``op``)."""

    GAPS: ClassVar[tuple[str, ...]] = (LEADING,)

    op: str
    operand: Expr
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class ParenExpr(Node):
    """A parenthesised constant expression. Gaps: ``leading`` (before ``(``), ``before_rparen``."""

    GAPS: ClassVar[tuple[str, ...]] = (LEADING, "before_rparen")

    inner: Expr
    trivia: Trivia = _T


@dataclass(frozen=True, slots=True)
class GenericAddress(Node):
    """``generic(sym)``: the generic address of a variable, in initializers.

    Gaps: ``leading`` (before ``generic``), ``before_lparen``, ``before_rparen``.
    """

    GAPS: ClassVar[tuple[str, ...]] = (LEADING, "before_lparen", "before_rparen")

    operand: Expr
    trivia: Trivia = _T


Expr = (
    Register
    | SpecialRegister
    | Symbol
    | LabelRef
    | Immediate
    | StringLiteral
    | BinaryExpr
    | UnaryExpr
    | ParenExpr
    | GenericAddress
)
"""A constant expression or an atom (register, symbol, immediate)."""

Operand = Expr | Sink | VectorOperand | Address | ParenList | Negated | PredPair
"""Anything that may appear in an instruction's operand list."""

BINARY_OPERATORS: tuple[str, ...] = (
    "||",
    "&&",
    "|",
    "^",
    "&",
    "==",
    "!=",
    "<=",
    ">=",
    "<<",
    ">>",
    "<",
    ">",
    "+",
    "-",
    "*",
    "/",
    "%",
)
"""Binary operators of PTX constant expressions."""
