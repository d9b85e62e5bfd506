"""PTX instruction family: logic, shifts and bit manipulation.

``and_``, ``or_``, ``xor``, ``not_``, ``cnot``, ``lop3``, ``shl``, ``shr``, ``shf.l`` /
``shf.r``, ``prmt``, ``bfe``, ``bfi``, ``popc``, ``clz``, ``brev``, ``bfind``, ``fns``,
``bmsk``, ``szext``, ``dp4a`` and ``dp2a``: one instruction each. Bit-typed instructions take
their type from the register width when ``ty=`` is left out (an ``f32`` or ``u32`` register
gives ``.b32``, a predicate gives ``.pred``).

``lop3``'s lookup table may be an int or a Python function of three ints: it is evaluated at
trace time on the canonical operands ``0xF0``, ``0xCC``, ``0xAA`` (``lambda a, b, c: (a & b)
^ c`` gives ``0x6A``), and the instruction is still the single ``lop3.b32``.

The simple wrappers are made from the table below by :func:`~._arith_common.unary` /
:func:`~._arith_common.binary`; which types and modifiers each instruction takes is the ISA
table's to say (:mod:`pyptx.ir.isa`), and it reports a mistake at the caller's line.
"""

from __future__ import annotations

from collections.abc import Callable

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg
from ._arith_common import (
    TypeArg,
    adopt,
    binary,
    doc,
    documented,
    infer_type,
    pair,
    spell,
    table_types,
    ternary,
    typed,
    unary,
)

__all__ = [
    "and_", "bfe", "bfi", "bfind", "bmsk", "brev", "clz", "cnot", "dp2a", "dp4a", "fns",
    "lop3", "not_", "or_", "popc", "prmt", "shf", "shl", "shr", "szext", "xor",
]  # fmt: skip

_LOGIC = "ty: ``pred``, ``b16``, ``b32`` or ``b64``; default: from the registers' widths."
_BITS = "ty: ``b16``, ``b32`` or ``b64``; default: from the registers' widths."
_AB = ("a: first operand.", "b: second operand.")
_B3264 = "ty: ``b32`` or ``b64``; default: from the width of ``a``."
_U32D = "destination ``u32`` register."


def _logic_doc(op: str, what: str, expr: str, *args: str) -> str:
    return doc(
        f"Bitwise (or predicate) {what}, d = {expr} (one instruction): "
        f"``{op}.<pred|b16|b32|b64>``.",
        *args,
        _LOGIC,
        anchor=f"logic-and-shift-instructions-{op}",
    )


and_ = binary("and", _logic_doc("and", "AND", "a & b", *_AB), by_width=True)
or_ = binary("or", _logic_doc("or", "OR", "a | b", *_AB), by_width=True)
xor = binary("xor", _logic_doc("xor", "XOR", "a ^ b", *_AB), by_width=True)
not_ = unary("not", _logic_doc("not", "NOT", "~a", "a: source."), by_width=True)
cnot = unary(
    "cnot",
    doc(
        "C-style logical NOT, d = (a == 0) ? 1 : 0 (one instruction): ``cnot.<b16|b32|b64>``.",
        "a: source.",
        _BITS,
        anchor="logic-and-shift-instructions-cnot",
    ),
    by_width=True,
)
shl = binary(
    "shl",
    doc(
        "Shift left, d = a << b (one instruction): ``shl.<b16|b32|b64>``.",
        "a: the value shifted.",
        "b: the shift amount (``u32`` register or int).",
        "ty: ``b16``, ``b32`` or ``b64``; default: from the width of ``d``/``a``.",
        anchor="logic-and-shift-instructions-shl",
    ),
    pick=slice(0, 2),
    by_width=True,
)
shr = binary(
    "shr",
    doc(
        "Shift right, d = a >> b (one instruction): ``shr.type``.\n\n"
        "Signed types shift in the sign bit; unsigned and bit types shift in zeros.",
        "a: the value shifted.",
        "b: the shift amount (``u32`` register or int).",
        "ty: b16..b64, u16..u64 or s16..s64; default: the register's own type (so an ``s32``\n"
        "        register shifts arithmetically).",
        anchor="logic-and-shift-instructions-shr",
    ),
    pick=slice(0, 2),
    by_width=True,
)
popc = unary(
    "popc",
    doc(
        "Count set bits (one instruction): ``popc.<b32|b64> d, a`` (``d`` is ``u32``).",
        "a: source.",
        _B3264,
        d=_U32D,
        anchor="integer-arithmetic-instructions-popc",
    ),
    pick=slice(1, 2),
    by_width=True,
)
clz = unary(
    "clz",
    doc(
        "Count leading zeros (one instruction): ``clz.<b32|b64> d, a`` (``d`` is ``u32``).",
        "a: source.",
        _B3264,
        d=_U32D,
        anchor="integer-arithmetic-instructions-clz",
    ),
    pick=slice(1, 2),
    by_width=True,
)
brev = unary(
    "brev",
    doc(
        "Reverse the bit order (one instruction): ``brev.<b32|b64> d, a``.",
        "a: source.",
        "ty: ``b32`` or ``b64``; default: from the registers' widths.",
        anchor="integer-arithmetic-instructions-brev",
    ),
    by_width=True,
)
bfe = ternary(
    "bfe",
    doc(
        "Extract a bit field (one instruction): ``bfe.<u32|u64|s32|s64> d, a, b, c``.",
        "a: the source.",
        "b: the field's start bit (``u32``).",
        "c: the field's length in bits (``u32``).",
        "ty: the type of ``d``/``a``; signed types sign-extend the field. Default: from ``d``.",
        anchor="integer-arithmetic-instructions-bfe",
    ),
    pick=slice(0, 2),
)


def _lut(value: object) -> int:
    if callable(value):
        table = value(0xF0, 0xCC, 0xAA)
        if isinstance(table, int) and not isinstance(table, bool):
            return table & 0xFF
        raise PtxDslError(
            "lop3's lut function must return an int built from its three int arguments "
            f"with & | ^ ~, but it returned {table!r}"
        )
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0xFF:
        return value
    raise PtxDslError(
        f"lop3 expects lut= an int in 0..255 or a function (a, b, c) -> a & b | c ..., got "
        f"{value!r}"
    )


@documented(
    "a: first operand.",
    "b: second operand.",
    "c: third operand.",
    "lut: the table as an int, or a function such as ``lambda a, b, c: (a & b) | ~c``"
    "\n        evaluated on ``0xF0, 0xCC, 0xAA`` (the emitted immediate is the low 8 bits).",
    'bool_op: ``"or"`` or ``"and"``: also write predicate ``p``.',
    "q: the predicate combined into ``p`` (``~q`` negates it).",
    d="destination register, or a ``(d, p)`` pair for the predicate form.",
    example=(
        "``ptx.lop3(r, x, y, z, lambda a, b, c: a ^ b ^ c)`` emits"
        "\n    ``lop3.b32 %r3, %r0, %r1, %r2, 150;``."
    ),
    returns="``d`` (or the ``(d, p)`` pair).",
    anchor="logic-and-shift-instructions-lop3",
)
def lop3(
    d: Reg | tuple[Reg, Reg],
    a: object,
    b: object,
    c: object,
    lut: int | Callable[[int, int, int], int],
    *,
    bool_op: str | None = None,
    q: object = None,
    pred: object = None,
) -> Reg | tuple[Reg, Reg]:
    """Any three-input logic function, chosen by an 8-bit lookup table (one instruction).

    Emits ``lop3.b32 d, a, b, c, immLut`` or, with ``bool_op`` and a ``(d, p)`` destination,
    ``lop3.<or|and>.b32 d|p, a, b, c, immLut, q`` (``p`` = (d != 0) BoolOp ``q``; sm_50,
    PTX 8.2).
    """
    extra = () if q is None else (q,)
    emit_inst("lop3", [*spell(bool_op=bool_op), "b32"], (pair(d), a, b, c, _lut(lut), *extra), pred)
    return d


_CLAMP = 'mode: ``"clamp"``'


class _Funnel:
    """One direction of the funnel shift ``ptx.shf``."""

    def __init__(self, direction: str, text: str) -> None:
        self.direction = direction
        self.__doc__ = text

    def __call__(
        self, d: Reg, a: object, b: object, c: object, *, mode: str, pred: object = None
    ) -> Reg:
        emit_inst("shf", [self.direction, *spell(mode=mode), "b32"], (d, a, b, c), pred)
        return d


def _funnel(direction: str, mode: str) -> _Funnel:
    half, way = ("upper", "left") if direction == "l" else ("lower", "right")
    return _Funnel(
        direction,
        doc(
            f"Funnel shift {way} (one instruction): "
            f"``shf.{direction}.<clamp|wrap>.b32 d, a, b, c``."
            f"\n\n``d`` is the {half} 32 bits of ``{{b, a}}`` (64 bits) shifted {way} by ``c``.",
            "a: lower 32 bits of the funnel.",
            "b: upper 32 bits of the funnel.",
            "c: the shift amount.",
            mode,
            anchor="logic-and-shift-instructions-shf",
        ),
    )


class _Shf:
    """``ptx.shf.l(...)`` / ``ptx.shf.r(...)``: funnel shifts."""

    l = _funnel("l", _CLAMP + ' (amounts over 32 give 32) or ``"wrap"`` (amount mod 32).')  # noqa: E741
    r = _funnel("r", _CLAMP + ' or ``"wrap"``.')


shf = _Shf()
"""``ptx.shf.l(d, a, b, c, mode=...)`` and ``ptx.shf.r(...)``."""


@documented(
    "a: bytes 0-3 of the source pool.",
    "b: bytes 4-7 of the source pool.",
    "c: the selector (four 4-bit byte indices, or the mode's control).",
    'mode: ``None`` (generic selector), ``"f4e"``, ``"b4e"``, ``"rc8"``, ``"ecl"``,'
    '\n        ``"ecr"`` or ``"rc16"``.',
    example="``ptx.prmt(r, x, y, 0x5410)`` emits ``prmt.b32 %r2, %r0, %r1, 21520;``.",
    anchor="data-movement-and-conversion-instructions-prmt",
)
def prmt(
    d: Reg, a: object, b: object, c: object, *, mode: str | None = None, pred: object = None
) -> Reg:
    """Permute bytes of ``{b, a}`` (one instruction): ``prmt.b32{.mode} d, a, b, c``."""
    emit_inst("prmt", ["b32", *spell(mode=mode)], (d, a, b, c), pred)
    return d


@documented(
    "a: the bits inserted.",
    "b: the value inserted into.",
    "c: start bit (``u32``).",
    "d: length in bits (``u32``).",
    "ty: ``b32`` or ``b64``; default: from the width of ``f``.",
    dest="f",
    anchor="integer-arithmetic-instructions-bfi",
)
def bfi(
    f: Reg,
    a: object,
    b: object,
    c: object,
    d: object,
    *,
    ty: TypeArg = None,
    pred: object = None,
) -> Reg:
    """Insert a bit field (one instruction): ``bfi.<b32|b64> f, a, b, c, d``.

    ``f`` is ``b`` with the ``d`` bits starting at bit ``c`` replaced by the low bits of
    ``a``.
    """
    return typed("bfi", (), f, (a, b, c, d), ty, pred, infer=(f, a, b), by_width=True, floats=False)


@documented(
    "a: source.",
    "ty: the type of ``a``; default: the type of ``a``.",
    "shiftamt: return the left shift that brings that bit to the top (``.shiftamt``).",
    d="destination ``u32`` register.",
    anchor="integer-arithmetic-instructions-bfind",
)
def bfind(
    d: Reg, a: object, *, ty: TypeArg = None, shiftamt: bool = False, pred: object = None
) -> Reg:
    """Find the most significant non-sign bit (one instruction).

    Emits ``bfind{.shiftamt}.<u32|u64|s32|s64> d, a`` (``d`` is ``u32``; 0xFFFFFFFF when
    there is none).
    """
    return typed("bfind", spell(shiftamt=shiftamt), d, (a,), ty, pred, infer=(a,), floats=False)


@documented(
    "mask: the bits searched.",
    "base: the starting bit position.",
    "offset: which set bit to find, counting from ``base`` (negative: downwards).",
    d="destination ``b32`` register (0xFFFFFFFF when not found).",
    anchor="integer-arithmetic-instructions-fns",
)
def fns(d: Reg, mask: object, base: object, offset: object, *, pred: object = None) -> Reg:
    """Find the n-th set bit (one instruction): ``fns.b32 d, mask, base, offset``."""
    emit_inst("fns", ["b32"], (d, mask, base, offset), pred)
    return d


@documented(
    "a: start bit.",
    "b: number of bits.",
    'mode: ``"clamp"`` or ``"wrap"`` for out-of-range ``a``/``b``.',
    anchor="integer-arithmetic-instructions-bmsk",
)
def bmsk(d: Reg, a: object, b: object, *, mode: str, pred: object = None) -> Reg:
    """Make a bit mask of ``b`` ones starting at bit ``a`` (one instruction).

    Emits ``bmsk.<clamp|wrap>.b32 d, a, b`` (sm_70, PTX 7.6).
    """
    emit_inst("bmsk", [*spell(mode=mode), "b32"], (d, a, b), pred)
    return d


@documented(
    "a: source.",
    "b: the number of low bits kept.",
    'mode: ``"clamp"`` or ``"wrap"`` for ``b`` over 32.',
    "ty: ``s32`` (sign-extend) or ``u32`` (zero-extend); default: the type of ``d``.",
    anchor="integer-arithmetic-instructions-szext",
)
def szext(
    d: Reg, a: object, b: object, *, mode: str, ty: TypeArg = None, pred: object = None
) -> Reg:
    """Sign- or zero-extend the low ``b`` bits of ``a`` (one instruction).

    Emits ``szext.<clamp|wrap>.<u32|s32> d, a, b`` (sm_70, PTX 7.6).
    """
    return typed("szext", spell(mode=mode), d, (a, b), ty, pred, infer=(d, a), floats=False)


def _dp(
    op: str,
    d: Reg,
    a: object,
    b: object,
    c: object,
    mode: object,
    atype: object,
    btype: object,
    pred: object,
) -> Reg:
    allowed = table_types(op, "atype")
    at = infer_type(op, atype, allowed, a, kw="atype")
    bt = infer_type(op, btype, allowed, b, kw="btype")
    emit_inst(op, [*spell(mode=mode), at.value, bt.value], (d, a, b, c), pred)
    return d


@documented(
    "a: four packed bytes.",
    "b: four packed bytes.",
    "c: the 32-bit accumulator.",
    "atype: ``u32`` or ``s32`` (bytes unsigned/signed); default: the type of ``a``.",
    "btype: ``u32`` or ``s32``; default: the type of ``b``.",
    d="destination register (``s32`` if either input is signed, else ``u32``).",
    anchor="integer-arithmetic-instructions-dp4a",
)
def dp4a(
    d: Reg,
    a: object,
    b: object,
    c: object,
    *,
    atype: TypeArg = None,
    btype: TypeArg = None,
    pred: object = None,
) -> Reg:
    """Four-way byte dot product with accumulate (one instruction).

    Emits ``dp4a.atype.btype d, a, b, c``: d = c + sum of the 4 byte products of ``a``
    and ``b`` (sm_61).
    """
    return _dp("dp4a", d, a, b, c, None, atype, btype, pred)


@documented(
    "a: two packed 16-bit values.",
    "b: four packed bytes.",
    "c: the 32-bit accumulator.",
    'mode: ``"lo"`` or ``"hi"``: which two bytes of ``b`` are used.',
    "atype: ``u32`` or ``s32``; default: the type of ``a``.",
    "btype: ``u32`` or ``s32``; default: the type of ``b``.",
    anchor="integer-arithmetic-instructions-dp2a",
)
def dp2a(
    d: Reg,
    a: object,
    b: object,
    c: object,
    *,
    mode: str,
    atype: TypeArg = None,
    btype: TypeArg = None,
    pred: object = None,
) -> Reg:
    """Two-way 16x8-bit dot product with accumulate (one instruction).

    Emits ``dp2a.<lo|hi>.atype.btype d, a, b, c``: the two 16-bit halves of ``a`` times two
    bytes of ``b`` (the low or high pair, by ``mode``), plus ``c`` (sm_61).
    """
    return _dp("dp2a", d, a, b, c, mode, atype, btype, pred)


MULTI_INSTRUCTION: dict[str, str] = {}
"""This family has no multi-instruction helpers."""


adopt(globals())
