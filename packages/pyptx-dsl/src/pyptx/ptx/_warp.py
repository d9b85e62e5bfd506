"""PTX instruction family: warp-level data exchange and voting.

``ptx.shfl.sync``, ``ptx.vote.sync``, ``ptx.match.sync``, ``ptx.redux.sync`` and
``ptx.activemask`` emit one instruction each; ``membermask`` is the last operand, as in PTX
(``-1`` for the full warp).

The warp reductions ``ptx.warp_reduce_sum`` / ``warp_reduce_max`` / ``warp_reduce_min`` are
multi-instruction helpers listed in :data:`MULTI_INSTRUCTION`: a butterfly of
``shfl.sync.bfly.b32`` and ``add``/``max``/``min`` pairs, ``log2(width)`` of each.
"""

from __future__ import annotations

from ..dsl.errors import PtxDslError
from ..dsl.operands import NotPred, emit_inst
from ..dsl.regs import Reg, _new
from ._arith_common import (
    T,
    TypeArg,
    check_takes,
    dest,
    dest_pair,
    flag,
    pair_operand,
    predicate,
    required,
    resolve_type,
)

__all__ = [
    "activemask",
    "match",
    "redux",
    "shfl",
    "vote",
    "warp_reduce_max",
    "warp_reduce_min",
    "warp_reduce_sum",
]


class _Shfl:
    """``ptx.shfl.sync(...)``."""

    def sync(
        self,
        d: Reg | tuple[Reg, Reg],
        a: object,
        b: object,
        c: object,
        membermask: object,
        *,
        mode: str,
        pred: object = None,
    ) -> Reg | tuple[Reg, Reg]:
        """Exchange a 32-bit value between the lanes of a warp (one instruction).

        Emits ``shfl.sync.<up|down|bfly|idx>.b32 d[|p], a, b, c, membermask``.

        Args:
            d: destination register, or a ``(d, p)`` pair (``p``: the source lane was in
                range).
            a: the value this lane offers (any 32-bit register).
            b: the lane offset (up/down), xor mask (bfly) or source lane (idx).
            c: the segment mask and clamp, packed: ``((32 - width) << 8) | 31`` for
                ``width``-lane segments with down/bfly/idx, ``(32 - width) << 8`` with up.
            membermask: the participating lanes (``-1`` for all).
            mode: ``"up"``, ``"down"``, ``"bfly"`` or ``"idx"``.
            pred: optional guard predicate.

        Returns:
            ``d`` (or the pair).

        Example:
            ``ptx.shfl.sync(t, v, 16, 31, -1, mode="bfly")`` emits
            ``shfl.sync.bfly.b32 %f1, %f0, 16, 31, -1;``.

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-shfl-sync
        """
        first, p = dest_pair("shfl.sync", d)
        dst = dest("shfl.sync", first)
        m = required("shfl.sync", "mode", mode, ("up", "down", "bfly", "idx"))
        if dst.type.bits != 32:
            raise PtxDslError(
                f"shfl.sync moves 32-bit values, but {dst.name} is {dst.type.ptx}; shuffle "
                "64-bit values as two halves"
            )
        out = pair_operand(dst, p) if p is not None else dst
        emit_inst("shfl", ["sync", m, "b32"], (out, a, b, c, membermask), pred)
        return (dst, p) if p is not None else dst


shfl = _Shfl()
"""``ptx.shfl.sync(d, a, b, c, membermask, mode=...)``."""


class _Vote:
    """``ptx.vote.sync(...)``."""

    def sync(self, d: Reg, a: object, membermask: object, *, mode: str, pred: object = None) -> Reg:
        """Vote across the warp on a predicate (one instruction).

        Emits ``vote.sync.<all|any|uni>.pred d, {!}a, membermask`` or, with
        ``mode="ballot"``, ``vote.sync.ballot.b32 d, {!}a, membermask`` (one bit per lane).

        Args:
            d: destination: a predicate (all/any/uni) or a 32-bit register (ballot).
            a: the predicate voted on (``~p`` votes on its negation).
            membermask: the participating lanes (``-1`` for all).
            mode: ``"all"``, ``"any"``, ``"uni"`` or ``"ballot"``.
            pred: optional guard predicate.

        Returns:
            ``d``.

        Example:
            ``ptx.vote.sync(bits, p, -1, mode="ballot")`` emits
            ``vote.sync.ballot.b32 %r0, %p0, -1;``.

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-vote-sync
        """
        m = required("vote.sync", "mode", mode, ("all", "any", "uni", "ballot"))
        dst = dest("vote.sync", d)
        predicate("vote.sync", "a", a.reg if isinstance(a, NotPred) else a)
        if m == "ballot":
            if dst.type.bits != 32:
                raise PtxDslError(f"vote.sync.ballot writes a 32-bit mask, not {dst.type.ptx}")
            ty = "b32"
        else:
            predicate(f"vote.sync.{m}", "its destination", dst)
            ty = "pred"
        emit_inst("vote", ["sync", m, ty], (dst, a, membermask), pred)
        return dst


vote = _Vote()
"""``ptx.vote.sync(d, a, membermask, mode=...)``."""


class _Match:
    """``ptx.match.sync(...)``."""

    def sync(
        self,
        d: Reg | tuple[Reg, Reg],
        a: object,
        membermask: object,
        *,
        mode: str,
        ty: TypeArg = None,
        pred: object = None,
    ) -> Reg | tuple[Reg, Reg]:
        """Find the lanes holding the same value (one instruction; sm_70).

        Emits ``match.any.sync.<b32|b64> d, a, membermask`` (``d``: the lanes whose ``a``
        equals this lane's) or ``match.all.sync.<b32|b64> d[|p], a, membermask`` (``d``:
        ``membermask`` if all lanes agree, else 0; ``p``: whether they do).

        Args:
            d: destination ``b32`` mask, or a ``(d, p)`` pair with ``mode="all"``.
            a: the value compared.
            membermask: the participating lanes (``-1`` for all).
            mode: ``"any"`` or ``"all"``.
            ty: ``b32`` or ``b64``; default: from the width of ``a``.
            pred: optional guard predicate.

        Returns:
            ``d`` (or the pair).

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-match-sync
        """
        m = required("match.sync", "mode", mode, ("any", "all"))
        first, p = dest_pair("match.sync", d)
        dst = dest("match.sync", first)
        if p is not None and m == "any":
            raise PtxDslError("match.any.sync has no predicate output; use a plain destination")
        t = resolve_type(f"match.{m}.sync", ty, (T.B32, T.B64), a, by_width=True)
        out = pair_operand(dst, p) if p is not None else dst
        emit_inst("match", [m, "sync", t.value], (out, a, membermask), pred)
        return (dst, p) if p is not None else dst


match = _Match()
"""``ptx.match.sync(d, a, membermask, mode="any"|"all")``."""

_REDUX_INT = ("add", "min", "max")
_REDUX_BITS = ("and", "or", "xor")


class _Redux:
    """``ptx.redux.sync(...)``."""

    def sync(
        self,
        d: Reg,
        a: object,
        membermask: object,
        *,
        op: str,
        ty: TypeArg = None,
        abs: bool = False,
        nan: bool = False,
        pred: object = None,
    ) -> Reg:
        """Reduce a value across the warp in one instruction (sm_80).

        Emits ``redux.sync.<add|min|max>.<u32|s32>``, ``redux.sync.<and|or|xor>.b32`` or
        ``redux.sync.<min|max>{.abs}{.NaN}.f32`` (sm_100a) ``d, a, membermask``.

        Args:
            d: destination register.
            a: this lane's value.
            membermask: the participating lanes (``-1`` for all).
            op: ``"add"``, ``"min"``, ``"max"``, ``"and"``, ``"or"`` or ``"xor"``.
            ty: ``u32``/``s32`` (add/min/max), ``b32`` (and/or/xor) or ``f32`` (min/max);
                default: from ``d`` (a ``u32`` register gives ``b32`` for the bit ops).
            abs: reduce magnitudes (``.abs``; f32 only).
            nan: propagate NaN (``.NaN``; f32 only).
            pred: optional guard predicate.

        Returns:
            ``d``.

        Example:
            ``ptx.redux.sync(s, v, -1, op="add")`` emits ``redux.sync.add.u32 %r1, %r0, -1;``.

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-redux-sync
        """
        o = required("redux.sync", "op", op, (*_REDUX_INT, *_REDUX_BITS))
        dst = dest("redux.sync", d)
        if o in _REDUX_BITS:
            allowed: tuple[T, ...] = (T.B32,)
        else:
            allowed = (T.U32, T.S32, T.F32) if o != "add" else (T.U32, T.S32)
        t = resolve_type(f"redux.sync.{o}", ty, allowed, dst, a, by_width=True)
        takes = ("abs", "nan") if t is T.F32 else ()
        check_takes(f"redux.sync.{o}.{t.value}", {"abs": abs, "nan": nan}, takes)
        flags = [s for s, v in (("abs", abs), ("NaN", nan)) if flag("redux.sync", s.lower(), v)]
        emit_inst("redux", ["sync", o, *flags, t.value], (dst, a, membermask), pred)
        return dst


redux = _Redux()
"""``ptx.redux.sync(d, a, membermask, op=...)``."""


def activemask(d: Reg, *, pred: object = None) -> Reg:
    """Read the mask of currently active lanes (one instruction): ``activemask.b32 d``.

    Args:
        d: destination 32-bit register.
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-activemask
    """
    dst = dest("activemask", d)
    if dst.type.bits != 32:
        raise PtxDslError(f"activemask writes a 32-bit mask, but {dst.name} is {dst.type.ptx}")
    emit_inst("activemask", ["b32"], (dst,), pred)
    return dst


_REDUCE_TYPES = (T.U32, T.S32, T.F32, T.F16X2, T.BF16X2)


def _warp_reduce(name: str, op: str, value: object, width: object, membermask: object) -> Reg:
    if not isinstance(value, Reg) or value.type not in _REDUCE_TYPES:
        got = f"{value.name} of type {value.type.ptx}" if isinstance(value, Reg) else repr(value)
        raise PtxDslError(
            f"ptx.{name} reduces a register of type u32, s32, f32, f16x2 or bf16x2, but got {got}"
        )
    if width not in (2, 4, 8, 16, 32) or isinstance(width, bool):
        raise PtxDslError(f"ptx.{name} needs width= a power of two from 2 to 32, got {width!r}")
    assert isinstance(width, int)
    ty = value.type
    clamp = ((32 - width) << 8) | 0x1F
    offset = width // 2
    acc: Reg = value
    while offset:
        other = _new(ty)
        emit_inst("shfl", ["sync", "bfly", "b32"], (other, acc, offset, clamp, membermask))
        nxt = _new(ty)
        emit_inst(op, [ty.value], (nxt, acc, other))
        acc = nxt
        offset //= 2
    return acc


def warp_reduce_sum(value: Reg, *, width: int = 32, membermask: object = -1) -> Reg:
    """Sum ``value`` over each ``width``-lane group of the warp (a multi-instruction helper).

    Emits, for ``off`` = ``width/2``, ..., 2, 1 (five pairs for a full warp)::

        shfl.sync.bfly.b32 t, v, off, c, membermask;
        add.<type> v', v, t;

    with ``c = ((32 - width) << 8) | 31``, each into fresh registers; every lane of a group
    ends with the group's total. The input register is not changed.

    Args:
        value: a ``u32``, ``s32``, ``f32``, ``f16x2`` or ``bf16x2`` register (``f16x2``
            adds lanewise; ``bf16x2`` add needs sm_90).
        width: lanes per group: 2, 4, 8, 16 or 32.
        membermask: the participating lanes (``-1`` for all).

    Returns:
        A new register with the sum.

    Example:
        ``total = ptx.warp_reduce_sum(x)`` on an ``f32`` register emits five
        ``shfl.sync.bfly.b32`` + ``add.f32`` pairs.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-shfl-sync
    """
    return _warp_reduce("warp_reduce_sum", "add", value, width, membermask)


def warp_reduce_max(value: Reg, *, width: int = 32, membermask: object = -1) -> Reg:
    """Maximum of ``value`` over each ``width``-lane group (a multi-instruction helper).

    Emits ``log2(width)`` pairs of ``shfl.sync.bfly.b32 t, v, off, c, membermask;`` and
    ``max.<type> v', v, t;``, exactly as :func:`warp_reduce_sum` does with ``add``.

    Args:
        value: a ``u32``, ``s32``, ``f32``, ``f16x2`` or ``bf16x2`` register.
        width: lanes per group: 2, 4, 8, 16 or 32.
        membermask: the participating lanes (``-1`` for all).

    Returns:
        A new register with the maximum.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-shfl-sync
    """
    return _warp_reduce("warp_reduce_max", "max", value, width, membermask)


def warp_reduce_min(value: Reg, *, width: int = 32, membermask: object = -1) -> Reg:
    """Minimum of ``value`` over each ``width``-lane group (a multi-instruction helper).

    Emits ``log2(width)`` pairs of ``shfl.sync.bfly.b32 t, v, off, c, membermask;`` and
    ``min.<type> v', v, t;``, exactly as :func:`warp_reduce_sum` does with ``add``.

    Args:
        value: a ``u32``, ``s32``, ``f32``, ``f16x2`` or ``bf16x2`` register.
        width: lanes per group: 2, 4, 8, 16 or 32.
        membermask: the participating lanes (``-1`` for all).

    Returns:
        A new register with the minimum.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-shfl-sync
    """
    return _warp_reduce("warp_reduce_min", "min", value, width, membermask)


_PAIR = (
    "shfl.sync.bfly.b32 t, v, off, ((32-width)<<8)|31, membermask; {op}.<type> v, v, t "
    "(fresh registers each step), for off = width/2 down to 1: log2(width) pairs, 5 for a "
    "full warp; returns the last v"
)

MULTI_INSTRUCTION: dict[str, str] = {
    "ptx.warp_reduce_sum": _PAIR.format(op="add"),
    "ptx.warp_reduce_max": _PAIR.format(op="max"),
    "ptx.warp_reduce_min": _PAIR.format(op="min"),
}
"""The warp-reduction helpers and the exact instructions each emits."""
