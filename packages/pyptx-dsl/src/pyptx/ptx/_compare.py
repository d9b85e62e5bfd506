"""PTX instruction family: comparison and selection (``setp``, ``set``, ``selp``, ``slct``).

``ptx.setp(p, a, b, cmp="lt")`` writes a predicate; a ``(p, q)`` destination is PTX's
``p|q`` pair (``q`` gets the complement, or the upper half's result for ``f16x2``/``bf16x2``);
``bool_op="and"`` with ``c=`` combines the comparison with another predicate (``~c`` negates
it). The comparison operator uses PTX's spellings (``"lt"``, ``"ltu"``, ``"hs"``, ...); which
operators, types and modifiers go together is the ISA table's to say (:mod:`pyptx.ir.isa`).
"""

from __future__ import annotations

from ..dsl.operands import emit_inst
from ..dsl.regs import Reg
from ._arith_common import TypeArg, documented, imm, infer_type, pair, spell, table_types, typed

__all__ = ["selp", "set", "setp", "slct"]


def _cmp(
    cmp: object, bool_op: object, ftz: object, c: object
) -> tuple[list[str], tuple[object, ...]]:
    """``[CmpOp, BoolOp?, ftz?]`` and the extra ``c`` operand."""
    return spell(cmp=cmp, bool_op=bool_op, ftz=ftz), () if c is None else (c,)


@documented(
    "a: first operand.",
    "b: second operand.",
    'cmp: ``"eq"``, ``"ne"``, ``"lt"``, ``"le"``, ``"gt"``, ``"ge"``; unsigned'
    '\n        ``"lo"``, ``"ls"``, ``"hi"``, ``"hs"``; floats also ``"equ"``, ``"neu"``,'
    '\n        ``"ltu"``, ``"leu"``, ``"gtu"``, ``"geu"``, ``"num"``, ``"nan"``.',
    "ty: the operands' type; default: the type of the first register among ``a``, ``b``.",
    'bool_op: ``"and"``, ``"or"`` or ``"xor"``: combine the result with ``c``.',
    "c: the predicate (or ``~p``) combined by ``bool_op``.",
    "ftz: flush subnormal inputs to zero (f32, f16, f16x2).",
    d="destination predicate, or a ``(p, q)`` pair written ``p|q``.",
    example=(
        '``ptx.setp(p, i, n, cmp="lt", bool_op="and", c=~done)`` emits'
        "\n    ``setp.lt.and.u32 %p1, %r0, %r1, !%p0;``."
    ),
    dest="p",
    returns="``p`` (or the pair).",
    anchor="comparison-and-selection-instructions-setp",
)
def setp(
    p: Reg | tuple[Reg, Reg], a: object, b: object, *,
    cmp: str, ty: TypeArg = None, bool_op: str | None = None, c: object = None, ftz: bool = False,
    pred: object = None,
) -> Reg | tuple[Reg, Reg]:  # fmt: skip
    """Compare ``a`` with ``b`` into a predicate (one instruction).

    Emits ``setp.CmpOp{.BoolOp}{.ftz}.type p[|q], a, b[, {!}c]``. Types: b16..b64,
    u16..u64, s16..s64, f32, f64, f16, f16x2, bf16 and bf16x2 (sm_90); the packed types need
    a ``(p, q)`` pair (``p`` for the upper half, ``q`` the lower).
    """
    mods, extra = _cmp(cmp, bool_op, ftz, c)
    t = infer_type("setp", ty, table_types("setp"), a, b)
    emit_inst("setp", [*mods, t.value], (pair(p), imm(a, t), imm(b, t), *extra), pred)
    return p


@documented(
    "a: first operand.",
    "b: second operand.",
    "cmp: the comparison operator, spelled as for :func:`setp`.",
    "dtype: destination type; default: the type of ``d``.",
    "stype: operand type; default: the type of the first register among ``a``, ``b``.",
    'bool_op: ``"and"``, ``"or"`` or ``"xor"`` with ``c``.',
    "c: the predicate (or ``~p``) combined by ``bool_op``.",
    "ftz: flush subnormal inputs to zero.",
    example='``ptx.set(m, x, 0.0, cmp="gt", dtype=f32)`` emits '
    "``set.gt.f32.f32 %f1, %f0, 0f00000000;``.",
    anchor="comparison-and-selection-instructions-set",
)
def set(
    d: Reg, a: object, b: object, *,
    cmp: str, dtype: TypeArg = None, stype: TypeArg = None, bool_op: str | None = None,
    c: object = None, ftz: bool = False, pred: object = None,
) -> Reg:  # fmt: skip
    """Compare ``a`` with ``b`` into a value (one instruction).

    Emits ``set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b[, {!}c]``: ``d`` is all ones (or
    1.0 for a float ``dtype``) where the comparison holds and 0 elsewhere. ``dtype`` is
    u32, s32 or f32 for the usual source types; f16/bf16 destinations and f16x2/bf16x2
    sources have their own forms (see the PTX ISA).
    """
    mods, extra = _cmp(cmp, bool_op, ftz, c)
    dt = infer_type("set", dtype, table_types("set", "dtype"), d, kw="dtype")
    st = infer_type("set", stype, table_types("set", "stype"), a, b, kw="stype")
    emit_inst("set", [*mods, dt.value, st.value], (d, imm(a, st), imm(b, st), *extra), pred)
    return d


@documented(
    "a: the value where ``c`` holds.",
    "b: the value where it does not.",
    "c: the predicate register (or ``~p``).",
    "ty: instruction type; default: the first register operand's type (bit types by"
    "\n        width for other registers, e.g. ``b16`` for an ``f16`` register).",
    example="``ptx.selp(x, 1.0, 0.0, p)`` emits ``selp.f32 %f0, 0f3F800000, 0f00000000, %p0;``.",
    anchor="comparison-and-selection-instructions-selp",
)
def selp(
    d: Reg, a: object, b: object, c: object, *, ty: TypeArg = None, pred: object = None
) -> Reg:
    """Select with a predicate, d = c ? a : b (one instruction).

    Emits ``selp.type d, a, b, c`` (b16..b64, u16..u64, s16..s64, f32, f64).
    """
    return typed("selp", (), d, (a, b, c), ty, pred, infer=(d, a, b), by_width=True)


@documented(
    "a: the value where ``c >= 0``.",
    "b: the value where ``c < 0``.",
    "c: the selector, ``s32`` or ``f32``.",
    "dtype: type of ``d``, ``a`` and ``b`` (b16..f64); default: the type of ``d``.",
    "ctype: ``s32`` or ``f32``; default: the type of ``c``.",
    "ftz: flush a subnormal ``c`` to zero (``f32`` selector only).",
    anchor="comparison-and-selection-instructions-slct",
)
def slct(
    d: Reg,
    a: object,
    b: object,
    c: object,
    *,
    dtype: TypeArg = None,
    ctype: TypeArg = None,
    ftz: bool = False,
    pred: object = None,
) -> Reg:
    """Select on the sign of ``c``, d = (c >= 0) ? a : b (one instruction).

    Emits ``slct.dtype.s32 d, a, b, c`` or ``slct{.ftz}.dtype.f32 d, a, b, c``.
    """
    dt = infer_type("slct", dtype, table_types("slct", "dtype"), d, a, b, kw="dtype", by_width=True)
    ct = infer_type("slct", ctype, table_types("slct", "ctype"), c, kw="ctype")
    mods = [*spell(ftz=ftz), dt.value, ct.value]
    emit_inst("slct", mods, (d, imm(a, dt), imm(b, dt), imm(c, ct)), pred)
    return d


MULTI_INSTRUCTION: dict[str, str] = {}
"""This family has no multi-instruction helpers."""
