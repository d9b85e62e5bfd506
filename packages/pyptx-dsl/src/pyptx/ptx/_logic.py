"""PTX instruction family: logic, shifts and bit manipulation.

``and_``, ``or_``, ``xor``, ``not_``, ``cnot``, ``lop3``, ``shl``, ``shr``, ``shf.l`` /
``shf.r``, ``prmt``, ``bfe``, ``bfi``, ``popc``, ``clz``, ``brev``, ``bfind``, ``fns``,
``bmsk``, ``szext``, ``dp4a`` and ``dp2a``: one instruction each. Bit-typed instructions take
their type from the register width when ``ty=`` is left out (an ``f32`` or ``u32`` register
gives ``.b32``, a predicate gives ``.pred``).

``lop3``'s lookup table may be an int or a Python function of three ints: it is evaluated at
trace time on the canonical operands ``0xF0``, ``0xCC``, ``0xAA`` (``lambda a, b, c: (a & b)
^ c`` gives ``0x6A``), and the instruction is still the single ``lop3.b32``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..dsl.errors import PtxDslError
from ..dsl.operands import NotPred, emit_inst
from ..dsl.regs import Reg
from ._arith_common import (
    T,
    TypeArg,
    choice,
    dest,
    dest_pair,
    flag,
    pair_operand,
    predicate,
    required,
    resolve_type,
)

__all__ = [
    "and_",
    "bfe",
    "bfi",
    "bfind",
    "bmsk",
    "brev",
    "clz",
    "cnot",
    "dp2a",
    "dp4a",
    "fns",
    "lop3",
    "not_",
    "or_",
    "popc",
    "prmt",
    "shf",
    "shl",
    "shr",
    "szext",
    "xor",
]

_BITS = (T.B16, T.B32, T.B64)
_LOGIC = (T.PRED, *_BITS)


def _simple(
    op: str,
    d: object,
    srcs: tuple[object, ...],
    ty: TypeArg,
    allowed: tuple[T, ...],
    pred: object,
    infer: tuple[object, ...] | None = None,
) -> Reg:
    dst = dest(op, d)
    t = resolve_type(
        op, ty, allowed, *(infer if infer is not None else (dst, *srcs)), by_width=True
    )
    emit_inst(op, [t.value], (dst, *srcs), pred)
    return dst


def and_(d: Reg, a: object, b: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Bitwise (or predicate) AND, d = a & b (one instruction): ``and.<pred|b16|b32|b64>``.

    Args:
        d: destination register.
        a: first operand.
        b: second operand.
        ty: ``pred``, ``b16``, ``b32`` or ``b64``; default: from the registers' widths.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#logic-and-shift-instructions-and
    """
    return _simple("and", d, (a, b), ty, _LOGIC, pred)


def or_(d: Reg, a: object, b: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Bitwise (or predicate) OR, d = a | b (one instruction): ``or.<pred|b16|b32|b64>``.

    Args:
        d: destination register.
        a: first operand.
        b: second operand.
        ty: ``pred``, ``b16``, ``b32`` or ``b64``; default: from the registers' widths.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#logic-and-shift-instructions-or
    """
    return _simple("or", d, (a, b), ty, _LOGIC, pred)


def xor(d: Reg, a: object, b: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Bitwise (or predicate) XOR, d = a ^ b (one instruction): ``xor.<pred|b16|b32|b64>``.

    Args:
        d: destination register.
        a: first operand.
        b: second operand.
        ty: ``pred``, ``b16``, ``b32`` or ``b64``; default: from the registers' widths.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#logic-and-shift-instructions-xor
    """
    return _simple("xor", d, (a, b), ty, _LOGIC, pred)


def not_(d: Reg, a: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Bitwise (or predicate) NOT, d = ~a (one instruction): ``not.<pred|b16|b32|b64>``.

    Args:
        d: destination register.
        a: source.
        ty: ``pred``, ``b16``, ``b32`` or ``b64``; default: from the registers' widths.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#logic-and-shift-instructions-not
    """
    return _simple("not", d, (a,), ty, _LOGIC, pred)


def cnot(d: Reg, a: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """C-style logical NOT, d = (a == 0) ? 1 : 0 (one instruction): ``cnot.<b16|b32|b64>``.

    Args:
        d: destination register.
        a: source.
        ty: ``b16``, ``b32`` or ``b64``; default: from the registers' widths.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#logic-and-shift-instructions-cnot
    """
    return _simple("cnot", d, (a,), ty, _BITS, pred)


def _lut(value: object) -> int:
    if callable(value):
        fn: Callable[[int, int, int], object] = value
        result = fn(0xF0, 0xCC, 0xAA)
        if not isinstance(result, int) or isinstance(result, bool):
            raise PtxDslError(
                "lop3's lut function must return an int built from its three int arguments "
                f"with & | ^ ~, but it returned {result!r}"
            )
        return result & 0xFF
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0xFF:
        return value
    raise PtxDslError(
        f"lop3 expects lut= an int in 0..255 or a function (a, b, c) -> a & b | c ..., got "
        f"{value!r}"
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

    Args:
        d: destination register, or a ``(d, p)`` pair for the predicate form.
        a: first operand.
        b: second operand.
        c: third operand.
        lut: the table as an int, or a function such as ``lambda a, b, c: (a & b) | ~c``
            evaluated on ``0xF0, 0xCC, 0xAA`` (the emitted immediate is the low 8 bits).
        bool_op: ``"or"`` or ``"and"``: also write predicate ``p``.
        q: the predicate combined into ``p`` (``~q`` negates it).
        pred: optional guard predicate.

    Returns:
        ``d`` (or the ``(d, p)`` pair).

    Example:
        ``ptx.lop3(r, x, y, z, lambda a, b, c: a ^ b ^ c)`` emits
        ``lop3.b32 %r3, %r0, %r1, %r2, 150;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#logic-and-shift-instructions-lop3
    """
    first, p = dest_pair("lop3", d)
    dst = dest("lop3", first)
    table = _lut(lut)
    bo = choice("lop3", "bool_op", bool_op, ("or", "and"))
    if (bo is None) != (p is None) or (bo is None) != (q is None):
        raise PtxDslError(
            "lop3's predicate form needs all three of a (d, p) destination, bool_op= "
            "('or' or 'and') and q=; the plain form needs none of them"
        )
    if bo is None or p is None:
        emit_inst("lop3", ["b32"], (dst, a, b, c, table), pred)
        return dst
    predicate("lop3", "q=", q.reg if isinstance(q, NotPred) else q)
    emit_inst("lop3", [bo, "b32"], (pair_operand(dst, p), a, b, c, table, q), pred)
    return (dst, p)


def shl(d: Reg, a: object, b: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Shift left, d = a << b (one instruction): ``shl.<b16|b32|b64>``.

    Args:
        d: destination register.
        a: the value shifted.
        b: the shift amount (``u32`` register or int).
        ty: ``b16``, ``b32`` or ``b64``; default: from the width of ``d``/``a``.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#logic-and-shift-instructions-shl
    """
    return _simple("shl", d, (a, b), ty, _BITS, pred, (d, a))


_SHR = (*_BITS, T.U16, T.U32, T.U64, T.S16, T.S32, T.S64)


def shr(d: Reg, a: object, b: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Shift right, d = a >> b (one instruction): ``shr.type``.

    Signed types shift in the sign bit; unsigned and bit types shift in zeros.

    Args:
        d: destination register.
        a: the value shifted.
        b: the shift amount (``u32`` register or int).
        ty: b16..b64, u16..u64 or s16..s64; default: the register's own type (so an ``s32``
            register shifts arithmetically).
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#logic-and-shift-instructions-shr
    """
    return _simple("shr", d, (a, b), ty, _SHR, pred, (d, a))


class _Shf:
    """``ptx.shf.l(...)`` / ``ptx.shf.r(...)``: funnel shifts."""

    @staticmethod
    def _emit(
        direction: str, d: object, a: object, b: object, c: object, mode: object, pred: object
    ) -> Reg:
        op = f"shf.{direction}"
        dst = dest(op, d)
        m = required(op, "mode", mode, ("clamp", "wrap"))
        emit_inst("shf", [direction, m, "b32"], (dst, a, b, c), pred)
        return dst

    def l(  # noqa: E743 - the PTX sub-operation's name
        self, d: Reg, a: object, b: object, c: object, *, mode: str, pred: object = None
    ) -> Reg:
        """Funnel shift left (one instruction): ``shf.l.<clamp|wrap>.b32 d, a, b, c``.

        ``d`` is the upper 32 bits of ``{b, a}`` (64 bits) shifted left by ``c``.

        Args:
            d: destination register.
            a: lower 32 bits of the funnel.
            b: upper 32 bits of the funnel.
            c: the shift amount.
            mode: ``"clamp"`` (amounts over 32 give 32) or ``"wrap"`` (amount mod 32).
            pred: optional guard predicate.

        Returns:
            ``d``.

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#logic-and-shift-instructions-shf
        """
        return self._emit("l", d, a, b, c, mode, pred)

    def r(self, d: Reg, a: object, b: object, c: object, *, mode: str, pred: object = None) -> Reg:
        """Funnel shift right (one instruction): ``shf.r.<clamp|wrap>.b32 d, a, b, c``.

        ``d`` is the lower 32 bits of ``{b, a}`` (64 bits) shifted right by ``c``.

        Args:
            d: destination register.
            a: lower 32 bits of the funnel.
            b: upper 32 bits of the funnel.
            c: the shift amount.
            mode: ``"clamp"`` or ``"wrap"``.
            pred: optional guard predicate.

        Returns:
            ``d``.

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#logic-and-shift-instructions-shf
        """
        return self._emit("r", d, a, b, c, mode, pred)


shf = _Shf()
"""``ptx.shf.l(d, a, b, c, mode=...)`` and ``ptx.shf.r(...)``."""


def prmt(
    d: Reg, a: object, b: object, c: object, *, mode: str | None = None, pred: object = None
) -> Reg:
    """Permute bytes of ``{b, a}`` (one instruction): ``prmt.b32{.mode} d, a, b, c``.

    Args:
        d: destination register.
        a: bytes 0-3 of the source pool.
        b: bytes 4-7 of the source pool.
        c: the selector (four 4-bit byte indices, or the mode's control).
        mode: ``None`` (generic selector), ``"f4e"``, ``"b4e"``, ``"rc8"``, ``"ecl"``,
            ``"ecr"`` or ``"rc16"``.
        pred: optional guard predicate.

    Returns:
        ``d``.

    Example:
        ``ptx.prmt(r, x, y, 0x5410)`` emits ``prmt.b32 %r2, %r0, %r1, 21520;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-prmt
    """
    dst = dest("prmt", d)
    m = choice("prmt", "mode", mode, ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16"))
    emit_inst("prmt", ["b32", *([m] if m else [])], (dst, a, b, c), pred)
    return dst


_BFE = (T.U32, T.U64, T.S32, T.S64)


def bfe(d: Reg, a: object, b: object, c: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Extract a bit field (one instruction): ``bfe.<u32|u64|s32|s64> d, a, b, c``.

    Args:
        d: destination register.
        a: the source.
        b: the field's start bit (``u32``).
        c: the field's length in bits (``u32``).
        ty: the type of ``d``/``a``; signed types sign-extend the field. Default: from ``d``.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-bfe
    """
    dst = dest("bfe", d)
    t = resolve_type("bfe", ty, _BFE, dst, a)
    emit_inst("bfe", [t.value], (dst, a, b, c), pred)
    return dst


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

    Args:
        f: destination register.
        a: the bits inserted.
        b: the value inserted into.
        c: start bit (``u32``).
        d: length in bits (``u32``).
        ty: ``b32`` or ``b64``; default: from the width of ``f``.
        pred: optional guard predicate.

    Returns:
        ``f``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-bfi
    """
    dst = dest("bfi", f)
    t = resolve_type("bfi", ty, (T.B32, T.B64), dst, a, b, by_width=True)
    emit_inst("bfi", [t.value], (dst, a, b, c, d), pred)
    return dst


def popc(d: Reg, a: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Count set bits (one instruction): ``popc.<b32|b64> d, a`` (``d`` is ``u32``).

    Args:
        d: destination ``u32`` register.
        a: source.
        ty: ``b32`` or ``b64``; default: from the width of ``a``.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-popc
    """
    return _simple("popc", d, (a,), ty, (T.B32, T.B64), pred, (a,))


def clz(d: Reg, a: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Count leading zeros (one instruction): ``clz.<b32|b64> d, a`` (``d`` is ``u32``).

    Args:
        d: destination ``u32`` register.
        a: source.
        ty: ``b32`` or ``b64``; default: from the width of ``a``.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-clz
    """
    return _simple("clz", d, (a,), ty, (T.B32, T.B64), pred, (a,))


def brev(d: Reg, a: object, *, ty: TypeArg = None, pred: object = None) -> Reg:
    """Reverse the bit order (one instruction): ``brev.<b32|b64> d, a``.

    Args:
        d: destination register.
        a: source.
        ty: ``b32`` or ``b64``; default: from the registers' widths.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-brev
    """
    return _simple("brev", d, (a,), ty, (T.B32, T.B64), pred)


def bfind(
    d: Reg, a: object, *, ty: TypeArg = None, shiftamt: bool = False, pred: object = None
) -> Reg:
    """Find the most significant non-sign bit (one instruction).

    Emits ``bfind{.shiftamt}.<u32|u64|s32|s64> d, a`` (``d`` is ``u32``; 0xFFFFFFFF when
    there is none).

    Args:
        d: destination ``u32`` register.
        a: source.
        ty: the type of ``a``; default: the type of ``a``.
        shiftamt: return the left shift that brings that bit to the top (``.shiftamt``).
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-bfind
    """
    dst = dest("bfind", d)
    t = resolve_type("bfind", ty, _BFE, a)
    mods = [*(["shiftamt"] if flag("bfind", "shiftamt", shiftamt) else []), t.value]
    emit_inst("bfind", mods, (dst, a), pred)
    return dst


def fns(d: Reg, mask: object, base: object, offset: object, *, pred: object = None) -> Reg:
    """Find the n-th set bit (one instruction): ``fns.b32 d, mask, base, offset``.

    Args:
        d: destination ``b32`` register (0xFFFFFFFF when not found).
        mask: the bits searched.
        base: the starting bit position.
        offset: which set bit to find, counting from ``base`` (negative: downwards).
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-fns
    """
    dst = dest("fns", d)
    emit_inst("fns", ["b32"], (dst, mask, base, offset), pred)
    return dst


def bmsk(d: Reg, a: object, b: object, *, mode: str, pred: object = None) -> Reg:
    """Make a bit mask of ``b`` ones starting at bit ``a`` (one instruction).

    Emits ``bmsk.<clamp|wrap>.b32 d, a, b`` (sm_70, PTX 7.6).

    Args:
        d: destination register.
        a: start bit.
        b: number of bits.
        mode: ``"clamp"`` or ``"wrap"`` for out-of-range ``a``/``b``.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-bmsk
    """
    dst = dest("bmsk", d)
    m = required("bmsk", "mode", mode, ("clamp", "wrap"))
    emit_inst("bmsk", [m, "b32"], (dst, a, b), pred)
    return dst


def szext(
    d: Reg, a: object, b: object, *, mode: str, ty: TypeArg = None, pred: object = None
) -> Reg:
    """Sign- or zero-extend the low ``b`` bits of ``a`` (one instruction).

    Emits ``szext.<clamp|wrap>.<u32|s32> d, a, b`` (sm_70, PTX 7.6).

    Args:
        d: destination register.
        a: source.
        b: the number of low bits kept.
        mode: ``"clamp"`` or ``"wrap"`` for ``b`` over 32.
        ty: ``s32`` (sign-extend) or ``u32`` (zero-extend); default: the type of ``d``.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-szext
    """
    dst = dest("szext", d)
    m = required("szext", "mode", mode, ("clamp", "wrap"))
    t = resolve_type("szext", ty, (T.U32, T.S32), dst, a)
    emit_inst("szext", [m, t.value], (dst, a, b), pred)
    return dst


def _dp(
    op: str,
    d: object,
    a: object,
    b: object,
    c: object,
    mode: object,
    atype: object,
    btype: object,
    pred: object,
) -> Reg:
    dst = dest(op, d)
    at = resolve_type(op, atype, (T.U32, T.S32), a, kw="atype")
    bt = resolve_type(op, btype, (T.U32, T.S32), b, kw="btype")
    m = [required(op, "mode", mode, ("lo", "hi"))] if op == "dp2a" else []
    emit_inst(op, [*m, at.value, bt.value], (dst, a, b, c), pred)
    return dst


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

    Args:
        d: destination register (``s32`` if either input is signed, else ``u32``).
        a: four packed bytes.
        b: four packed bytes.
        c: the 32-bit accumulator.
        atype: ``u32`` or ``s32`` (bytes unsigned/signed); default: the type of ``a``.
        btype: ``u32`` or ``s32``; default: the type of ``b``.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-dp4a
    """
    return _dp("dp4a", d, a, b, c, None, atype, btype, pred)


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

    Args:
        d: destination register.
        a: two packed 16-bit values.
        b: four packed bytes.
        c: the 32-bit accumulator.
        mode: ``"lo"`` or ``"hi"``: which two bytes of ``b`` are used.
        atype: ``u32`` or ``s32``; default: the type of ``a``.
        btype: ``u32`` or ``s32``; default: the type of ``b``.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions-dp2a
    """
    return _dp("dp2a", d, a, b, c, mode, atype, btype, pred)


MULTI_INSTRUCTION: dict[str, str] = {}
"""This family has no multi-instruction helpers."""
