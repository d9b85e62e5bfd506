"""PTX instruction family: warp-level data exchange and voting.

``ptx.shfl.sync``, ``ptx.vote.sync``, ``ptx.match.sync``, ``ptx.redux.sync`` and
``ptx.activemask`` emit one instruction each; ``membermask`` is the last operand, as in PTX
(``-1`` for the full warp); ``pred=`` is an optional guard predicate.

The warp reductions ``ptx.warp_reduce_sum`` / ``warp_reduce_max`` / ``warp_reduce_min`` are
multi-instruction helpers listed in :data:`MULTI_INSTRUCTION`: a butterfly of
``shfl.sync.bfly.b32`` and ``add``/``max``/``min`` pairs, ``log2(width)`` of each.
"""

from __future__ import annotations

from typing import Protocol

from pyptx.ir import PtxType, isa

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg, _new
from ._arith_common import TypeArg, pair
from ._memory import slot
from ._sync_operands import flags, words

__all__ = [
    "activemask", "match", "redux", "shfl", "vote", "warp_reduce_max", "warp_reduce_min",
    "warp_reduce_sum",
]  # fmt: skip


def _infer(name: str, ty: TypeArg, *regs: object, op: str | None = None) -> str:
    """The type modifier: ``ty`` as given, else read off the registers.

    That is the first register type the ISA table allows (or the bit type of the register's
    width), else the first register's own type, else ``.b32``; the table judges the result.
    """
    if ty is not None:
        return ty.value if isinstance(ty, PtxType) else str(ty)
    where = (("op", op),) if isinstance(op, str) else ()
    allowed = set(slot(name, "type", *where)) if name in isa.SPECS else set()
    for r in regs:
        if isinstance(r, Reg) and r.type is not PtxType.PRED:
            for t in (r.type.value, f"b{r.type.bits}"):
                if t in allowed:
                    return t
    first = next((r for r in regs if isinstance(r, Reg)), None)
    return first.type.value if first is not None else "b32"


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
        emit_inst("shfl", ["sync", *words(mode), "b32"], (pair(d), a, b, c, membermask), pred)
        return d


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
        ty = "b32" if mode == "ballot" else "pred"
        emit_inst("vote", ["sync", *words(mode), ty], (d, a, membermask), pred)
        return d


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
        t = _infer(f"match.{mode}.sync", ty, a)
        emit_inst("match", [*words(mode), "sync", t], (pair(d), a, membermask), pred)
        return d


match = _Match()
"""``ptx.match.sync(d, a, membermask, mode="any"|"all")``."""


_NAN = {"nan": "NaN"}


class _Redux:
    """``ptx.redux.sync(...)``."""

    def sync(
        self, d: Reg, a: object, membermask: object, *,
        op: str, ty: TypeArg = None, abs: bool = False, nan: bool = False, pred: object = None,
    ) -> Reg:  # fmt: skip
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
        t = _infer("redux.sync", ty, d, a, op=op)
        mods = [_NAN.get(m, m) for m in flags(f"redux.sync.{op}", abs=abs, nan=nan)]
        emit_inst("redux", ["sync", *words(op), *mods, t], (d, a, membermask), pred)
        return d


redux = _Redux()
"""``ptx.redux.sync(d, a, membermask, op=...)``."""


def activemask(d: Reg, *, pred: object = None) -> Reg:
    """Read the mask of currently active lanes (one instruction): ``activemask.b32 d``.

    ``d`` is the destination 32-bit register.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-activemask
    """
    emit_inst("activemask", ["b32"], (d,), pred)
    return d


class _Reduce(Protocol):
    def __call__(self, value: Reg, *, width: int = 32, membermask: object = -1) -> Reg: ...


def butterfly(
    name: str, op: str, value: Reg, width: object, membermask: object, *, in_place: bool = False
) -> Reg:
    """The reduction butterfly: ``shfl.sync.bfly.b32`` + ``op`` pairs over ``width`` lanes.

    Each step ``off`` = ``width/2``, ..., 1 emits ``shfl.sync.bfly.b32 t, v, off, c,
    membermask;`` and ``op.<type> v', v, t;`` with ``c = ((32 - width) << 8) | 31``. With
    ``in_place`` every step writes ``value`` itself through one scratch register ``t``;
    otherwise ``t`` and ``v'`` are fresh registers each step. The ISA table judges the
    value's type at ``shfl`` and at ``op``.

    Args:
        name: the helper's name for messages (``ptx.warp_reduce_sum``).
        op: ``add``, ``max`` or ``min``.
        value: the register reduced.
        width: lanes per group: 2, 4, 8, 16 or 32.
        membermask: the participating lanes.
        in_place: write the result into ``value``.

    Returns:
        The register with the group's result (``value`` itself with ``in_place``).

    Raises:
        PtxDslError: ``width`` is not a power of two from 2 to 32.
    """
    if width not in (2, 4, 8, 16, 32) or isinstance(width, bool):
        raise PtxDslError(f"{name} needs width= a power of two from 2 to 32, got {width!r}")
    assert isinstance(width, int)
    ty, clamp, offset, acc = value.type, ((32 - width) << 8) | 0x1F, width // 2, value
    scratch = _new(ty) if in_place else None
    while offset:
        other = scratch if scratch is not None else _new(ty)
        nxt = value if in_place else _new(ty)
        emit_inst("shfl", ["sync", "bfly", "b32"], (other, acc, offset, clamp, membermask))
        emit_inst(op, [ty.value], (nxt, acc, other))
        acc, offset = nxt, offset // 2
    return acc


def _reducer(op: str, what: str, doc: str) -> _Reduce:
    """``ptx.warp_reduce_<what>``: the :func:`butterfly` of ``op`` into fresh registers."""
    name = f"warp_reduce_{what}"

    def reduce(value: Reg, *, width: int = 32, membermask: object = -1) -> Reg:
        if not isinstance(value, Reg):
            raise PtxDslError(f"ptx.{name} reduces a register, but got {value!r}")
        return butterfly(f"ptx.{name}", op, value, width, membermask)

    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = doc
    return reduce


_REDUCE_ARGS = """
    Args:
        value: a ``u32``, ``s32``, ``f32``, ``f16x2`` or ``bf16x2`` register{lanewise}.
        width: lanes per group: 2, 4, 8, 16 or 32.
        membermask: the participating lanes (``-1`` for all).

    Returns:
        A new register with the {result}.
{example}
    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-shfl-sync
    """
_SUM_DOC = """Sum ``value`` over each ``width``-lane group of the warp (a multi-instruction helper).

    Emits, for ``off`` = ``width/2``, ..., 2, 1 (five pairs for a full warp)::

        shfl.sync.bfly.b32 t, v, off, c, membermask;
        add.<type> v', v, t;

    with ``c = ((32 - width) << 8) | 31``, each into fresh registers; every lane of a group
    ends with the group's total. The input register is not changed.
"""
_MINMAX_DOC = """{what} of ``value`` over each ``width``-lane group (a multi-instruction helper).

    Emits ``log2(width)`` pairs of ``shfl.sync.bfly.b32 t, v, off, c, membermask;`` and
    ``{op}.<type> v', v, t;``, exactly as :func:`warp_reduce_sum` does with ``add``.
"""
_SUM_EXAMPLE = """
    Example:
        ``total = ptx.warp_reduce_sum(x)`` on an ``f32`` register emits five
        ``shfl.sync.bfly.b32`` + ``add.f32`` pairs.
"""
_LANEWISE = """ (``f16x2``
            adds lanewise; ``bf16x2`` add needs sm_90)"""

warp_reduce_sum = _reducer(
    "add",
    "sum",
    _SUM_DOC + _REDUCE_ARGS.format(lanewise=_LANEWISE, result="sum", example=_SUM_EXAMPLE),
)
warp_reduce_max = _reducer(
    "max",
    "max",
    _MINMAX_DOC.format(what="Maximum", op="max")
    + _REDUCE_ARGS.format(lanewise="", result="maximum", example=""),
)
warp_reduce_min = _reducer(
    "min",
    "min",
    _MINMAX_DOC.format(what="Minimum", op="min")
    + _REDUCE_ARGS.format(lanewise="", result="minimum", example=""),
)


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
