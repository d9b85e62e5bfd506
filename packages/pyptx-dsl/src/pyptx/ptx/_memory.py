"""PTX instruction family: data movement (``mov``, ``ld``, ``st``, ``ldu``, ``prefetch``).

Addresses may be ``ptx.addr(base, offset)``, a register, a shared allocation or a stage slice
of one. A vector load or store is written with a tuple of registers (``.v2``/``.v4``/``.v8``
follows from its length; ``None`` elements of a load are the sink ``_``). Memory-model
qualifiers and cache hints are keywords with PTX spellings::

    ptx.ld(x, p, space="global", cache="cg")                 # ld.global.cg.f32
    ptx.ld(v, p, sem="acquire", scope="gpu", space="global")  # ld.acquire.gpu.global.u32
    ptx.st(p, (a, b), space="global", evict="L1::no_allocate")
    ptx.ld(x, p, space="global", cache_policy=pol)           # ld.global.L2::cache_hint...

``cache_policy=`` (a 64-bit policy register, e.g. from ``createpolicy``) emits the
``.L2::cache_hint`` qualifier together with its operand, so the two cannot disagree.

The spellings each keyword takes come from the ISA table (:func:`slot`); which combinations
are legal is the table's to say when the instruction is traced. Every call takes ``pred=``,
an optional guard predicate.
"""

from __future__ import annotations

from functools import cache

from pyptx.ir import isa

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg
from ._arith_common import T, TypeArg, address, choice, dest, flag, imm, required, resolve_type

__all__ = ["ld", "ldu", "mov", "prefetch", "prefetchu", "st"]

_MOV = (T.PRED, T.B16, T.B32, T.B64, T.B128, T.U16, T.U32, T.U64, T.S16, T.S32, T.S64, T.F32, T.F64)
_SEM_SPELLING = {"mmio": ("mmio", "relaxed")}
"""``sem=`` keywords spelled as more than one modifier."""


@cache
def slot(name: str, group: str, *where: tuple[str, str]) -> tuple[str, ...]:
    """The spellings slot ``group`` of the table's ``name`` takes, first seen first.

    Only the forms whose slots take every ``(slot, value)`` pair of ``where`` count.
    """
    forms = isa.SPECS[name].forms
    fits = [f for f in forms if all((g := f.group(k)) and g.accepts(v) for k, v in where)]
    return tuple(
        dict.fromkeys(v for f in fits for g in f.groups if g.name == group for v in g.values)
    )


def _types(op: str) -> tuple[T, ...]:
    """The types the table's ``op`` takes; other registers go by width (``b16`` for ``f16``)."""
    return tuple(T(v) for v in slot(op, "type"))


def mov(d: object, a: object, *, ty: TypeArg = None, pred: object = None) -> object:
    """Copy a value, or pack / unpack a vector (one instruction).

    Emits ``mov.type d, a`` (pred, b16..b128, u16..u64, s16..s64, f32, f64; ``a`` may also
    be a special register, a variable's address or a number); with a tuple source,
    the pack ``mov.<b32|b64|b128> d, {a, b[, c, d]}``; with a tuple destination, the unpack
    ``mov.<b32|b64|b128> {a, b[, ...]}, d``.

    Args:
        d: destination register, or a tuple of registers to unpack into.
        a: source value, or a tuple of registers to pack.
        ty: instruction type; default: the destination's type (the packed register's width
            for the vector forms, ``b16`` for an ``f16`` register, ...).
        pred: optional guard predicate.

    Returns:
        ``d``.

    Example:
        ``ptx.mov(pair, (lo, hi))`` emits ``mov.b64 %rd0, {%r0, %r1};``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-mov
    """
    vector = d if isinstance(d, (tuple, list)) else a if isinstance(a, (tuple, list)) else None
    if vector is None:
        dst = dest("mov", d)
        t = resolve_type("mov", ty, _MOV, dst, a, by_width=True)
        emit_inst("mov", [t.value], (dst, imm(a, t)), pred)
        return dst
    if vector is d and isinstance(a, (tuple, list)):
        raise PtxDslError("mov packs or unpacks one vector: d and a cannot both be tuples")
    if not all(isinstance(r, Reg) for r in vector):
        bad = next(r for r in vector if not isinstance(r, Reg))
        raise PtxDslError(f"mov's vector elements must be registers, got {bad!r}")
    packed = dest("mov", a if vector is d else d)
    t = resolve_type("mov", ty, (T.B32, T.B64, T.B128), packed, by_width=True)
    widths = {r.type.bits for r in vector}
    if len(vector) not in (2, 4) or widths != {t.bits // len(vector)}:
        raise PtxDslError(
            f"mov{t.ptx} packs 2 or 4 registers that fill its {t.bits} bits, but got "
            f"{len(vector)} of {sorted(widths)} bits"
        )
    emit_inst("mov", [t.value], (tuple(d), a) if vector is d else (d, tuple(vector)), pred)
    return d


def _order(op: str, sem: object, scope: object, space: object) -> list[str]:
    """``{.sem}{.scope}{.space}``: the memory-order qualifiers, spelled from the keywords."""
    s = choice(op, "sem", sem, (*slot(op, "sem"), *_SEM_SPELLING))
    sc = choice(op, "scope", scope, slot(op, "scope"))
    sp = choice(op, "space", space, slot(op, "ss"))
    return [*_SEM_SPELLING.get(s or "", (s,) if s else ()), *(q for q in (sc, sp) if q)]


def _hints(
    op: str, cache: object, nc: bool, evict: object, cache_policy: object, size: object
) -> list[str]:
    """``{.cop}{.nc}{.L1::*}{.L2::*}{.L2::cache_hint}{.L2::NB}``, spelled from the keywords."""
    values = evict if isinstance(evict, (tuple, list)) else ((evict,) if evict else ())
    evicts = slot(op, "eviction") + slot(op, "l2_eviction")
    ev = sorted((required(op, "evict", v, evicts) for v in values), key=lambda v: v[:3] == "L2:")
    cop = choice(op, "cache", cache, slot(op, "cop"))
    pf = choice(op, "prefetch_size", size, slot(op, "prefetch_size"))
    hint = "L2::cache_hint" if cache_policy is not None else None
    return [m for m in (cop, "nc" if nc else None, *ev, hint, pf) if m]


def _data(value: object) -> tuple[object, tuple[object, ...], list[str]]:
    """``(operand, elements, [.vN])``: a tuple is a vector operand, anything else a scalar."""
    if isinstance(value, (tuple, list)):
        return tuple(value), tuple(value), [f"v{len(value)}"]
    return value, (value,), []


def ld(
    d: object, a: object, *,
    ty: TypeArg = None, space: str | None = None, sem: str | None = None, scope: str | None = None,
    cache: str | None = None, nc: bool = False, evict: str | tuple[str, str] | None = None,
    prefetch_size: str | None = None, cache_policy: object = None, pred: object = None,
) -> object:  # fmt: skip
    """Load from memory (one instruction).

    Emits ``ld{.sem}{.scope}{.space}{.cop|.L1::evict_*}{.L2::evict_*}{.L2::cache_hint}
    {.L2::<64B|128B|256B>}{.vec}.type d, [a]{, policy}``; with ``nc=True`` the
    non-coherent ``ld.global{.cop}.nc...``; with ``sem="mmio"`` ``ld.mmio.relaxed.sys``.

    Args:
        d: destination register, or a tuple of 2/4/8 (``None`` = sink ``_``) for ``.vN``.
        a: the address.
        ty: b8..b128, u8..u64, s8..s64, f32, f64; default: the destination's type (bit type
            by width for other types, e.g. ``b16`` for ``f16``).
        space: ``"global"``, ``"shared"``, ``"shared::cta"``, ``"shared::cluster"``,
            ``"local"``, ``"const"``, ``"param"``, ``"param::entry"``, ``"param::func"``;
            ``None`` for a generic address.
        sem: ``"weak"``, ``"volatile"``, ``"relaxed"``, ``"acquire"`` or ``"mmio"``.
        scope: ``"cta"``, ``"cluster"``, ``"gpu"`` or ``"sys"`` (with relaxed/acquire/mmio).
        cache: cache operator ``"ca"``, ``"cg"``, ``"cs"``, ``"lu"``, ``"cv"``.
        nc: the non-coherent read-only path ``ld.global.nc`` (``space="global"``).
        evict: ``"L1::evict_normal"``, ``"L1::evict_unchanged"``, ``"L1::evict_first"``,
            ``"L1::evict_last"``, ``"L1::no_allocate"``, ``"L2::evict_normal"``,
            ``"L2::evict_first"``, ``"L2::evict_last"``, or an (L1, L2) pair.
        prefetch_size: ``"L2::64B"``, ``"L2::128B"`` or ``"L2::256B"``.
        cache_policy: a 64-bit cache-policy register; emits ``.L2::cache_hint``.
        pred: optional guard predicate.

    Returns:
        ``d``.

    Example:
        ``ptx.ld(v, ptx.addr(p, 16), space="global", cache="cg")`` emits
        ``ld.global.cg.f32 %f0, [%rd0+16];``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-ld
    """
    operand, elems, vec = _data(d)
    regs = [e for e in elems if e is not None or not vec]
    for e in regs:
        dest("ld", e)
    t = resolve_type("ld", ty, _types("ld"), *regs, by_width=True)
    mods = _order("ld", sem, scope, space)
    mods += _hints("ld", cache, flag("ld", "nc", nc), evict, cache_policy, prefetch_size)
    extra = (cache_policy,) if cache_policy is not None else ()
    emit_inst("ld", [*mods, *vec, t.value], (operand, address("ld", a), *extra), pred)
    return d


def st(
    a: object, b: object, *,
    ty: TypeArg = None, space: str | None = None, sem: str | None = None, scope: str | None = None,
    cache: str | None = None, evict: str | tuple[str, str] | None = None,
    cache_policy: object = None, pred: object = None,
) -> None:  # fmt: skip
    """Store to memory (one instruction).

    Emits ``st{.sem}{.scope}{.space}{.cop|.L1::evict_*}{.L2::evict_*}{.L2::cache_hint}
    {.vec}.type [a], b{, policy}`` (``sem="mmio"``: ``st.mmio.relaxed.sys``). The address
    comes first, like PTX.

    Args:
        a: the address.
        b: the value (register or number), or a tuple of 2/4/8 registers for ``.vN``.
        ty: b8..b128, u8..u64, s8..s64, f32, f64; default: the value's register type.
        space: ``"global"``, ``"shared"``, ``"shared::cta"``, ``"shared::cluster"``,
            ``"local"``, ``"param"``, ``"param::func"``; ``None`` for generic.
        sem: ``"weak"``, ``"volatile"``, ``"relaxed"``, ``"release"`` or ``"mmio"``.
        scope: ``"cta"``, ``"cluster"``, ``"gpu"`` or ``"sys"`` (with relaxed/release/mmio).
        cache: cache operator ``"wb"``, ``"cg"``, ``"cs"`` or ``"wt"``.
        evict: an L1 and/or L2 eviction priority, as for :func:`ld`.
        cache_policy: a 64-bit cache-policy register; emits ``.L2::cache_hint``.
        pred: optional guard predicate.

    Example:
        ``ptx.st(ptx.addr(p), (x, y), space="global")`` emits
        ``st.global.v2.f32 [%rd0], {%f0, %f1};``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-st
    """
    _, elems, vec = _data(b)
    t = resolve_type("st", ty, _types("st"), *elems, by_width=True)
    mods = _order("st", sem, scope, space) + _hints("st", cache, False, evict, cache_policy, None)
    value = tuple(imm(e, t) for e in elems) if vec else imm(b, t)
    extra = (cache_policy,) if cache_policy is not None else ()
    emit_inst("st", [*mods, *vec, t.value], (address("st", a), value, *extra), pred)


def ldu(
    d: object, a: object, *, ty: TypeArg = None, space: str | None = None, pred: object = None
) -> object:
    """Load a value that is the same for every thread of the warp (one instruction).

    Emits ``ldu{.global}{.v2|.v4}.type d, [a]``: the arguments are those of :func:`ld`, with
    a tuple of 2 or 4 registers for a vector and ``space`` ``"global"`` or ``None`` (generic).

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-ldu
    """
    operand, elems, vec = _data(d)
    for e in elems:
        dest("ldu", e)
    t = resolve_type("ldu", ty, _types("ldu"), *elems, by_width=True)
    sp = choice("ldu", "space", space, slot("ldu", "ss"))
    emit_inst("ldu", [*([sp] if sp else []), *vec, t.value], (operand, address("ldu", a)), pred)
    return d


class _Prefetch:
    """``ptx.prefetch(...)`` and ``ptx.prefetch.tensormap(...)``."""

    def __call__(
        self, a: object, *, level: str, space: str | None = None, pred: object = None
    ) -> None:
        """Prefetch a line into a cache level (one instruction).

        Emits ``prefetch{.global|.local}.<L1|L2> [a]`` or
        ``prefetch.global.<L2::evict_last|L2::evict_normal> [a]`` (sm_80).

        Args:
            a: the address.
            level: ``"L1"``, ``"L2"``, ``"L2::evict_last"`` or ``"L2::evict_normal"``.
            space: ``"global"``, ``"local"`` or ``None`` (generic); the eviction-priority
                levels need ``"global"``.
            pred: optional guard predicate.

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-prefetch-prefetchu
        """
        lv = required("prefetch", "level", level, slot("prefetch", "level"))
        sp = choice("prefetch", "space", space, slot("prefetch", "space"))
        emit_inst("prefetch", [*([sp] if sp else []), lv], (address("prefetch", a),), pred)

    def tensormap(self, a: object, *, space: str | None = None, pred: object = None) -> None:
        """Prefetch a TMA descriptor (one instruction): ``prefetch{.const|.param}.tensormap [a]``.

        Args:
            a: the descriptor's address (a register from ``TensorArg.tma_desc()``, or
                ``ptx.addr`` of a ``.param``/``.const`` symbol).
            space: ``"const"``, ``"param"`` or ``None`` (generic).
            pred: optional guard predicate.

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-prefetch-prefetchu
        """
        sp = choice("prefetch.tensormap", "space", space, slot("prefetch", "space"))
        mods = [*([sp] if sp else []), "tensormap"]
        emit_inst("prefetch", mods, (address("prefetch.tensormap", a),), pred)


prefetch = _Prefetch()
"""``ptx.prefetch(a, level=...)`` and ``ptx.prefetch.tensormap(a)``."""


def prefetchu(a: object, *, pred: object = None) -> None:
    """Prefetch into the uniform cache (one instruction): ``prefetchu.L1 [a]``.

    ``a`` is the (generic) address.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-prefetch-prefetchu
    """
    emit_inst("prefetchu", ["L1"], (address("prefetchu", a),), pred)


MULTI_INSTRUCTION: dict[str, str] = {}
"""This family has no multi-instruction helpers."""
