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
"""

from __future__ import annotations

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg
from ._arith_common import (
    T,
    TypeArg,
    address,
    check_takes,
    choice,
    dest,
    flag,
    imm,
    required,
    resolve_type,
)

__all__ = ["ld", "ldu", "mov", "prefetch", "prefetchu", "st"]

_MOV = (T.PRED, T.B16, T.B32, T.B64, T.B128, T.U16, T.U32, T.U64, T.S16, T.S32, T.S64, T.F32, T.F64)


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
    packed = d if not isinstance(d, (tuple, list)) else a
    if isinstance(d, (tuple, list)) and isinstance(a, (tuple, list)):
        raise PtxDslError("mov packs or unpacks one vector: d and a cannot both be tuples")
    vector = isinstance(d, (tuple, list)) or isinstance(a, (tuple, list))
    if vector:
        parts = d if isinstance(d, (tuple, list)) else a
        assert isinstance(parts, (tuple, list))
        for r in parts:
            if not isinstance(r, Reg):
                raise PtxDslError(f"mov's vector elements must be registers, got {r!r}")
        dest("mov", packed)
        t = resolve_type("mov", ty, (T.B32, T.B64, T.B128), packed, by_width=True)
        widths = {r.type.bits for r in parts}
        if len(parts) not in (2, 4) or widths != {t.bits // len(parts)}:
            raise PtxDslError(
                f"mov{t.ptx} packs 2 or 4 registers that fill its {t.bits} bits, but got "
                f"{len(parts)} of {sorted(widths)} bits"
            )
        emit_inst(
            "mov",
            [t.value],
            (
                tuple(d) if isinstance(d, (tuple, list)) else d,
                tuple(a) if isinstance(a, (tuple, list)) else a,
            ),
            pred,
        )
        return d
    dst = dest("mov", d)
    t = resolve_type("mov", ty, _MOV, dst, a, by_width=True)
    emit_inst("mov", [t.value], (dst, imm(a, t)), pred)
    return dst


_LD_TYPES = (
    T.B8,
    T.B16,
    T.B32,
    T.B64,
    T.B128,
    T.U8,
    T.U16,
    T.U32,
    T.U64,
    T.S8,
    T.S16,
    T.S32,
    T.S64,
    T.F32,
    T.F64,
)
_LD_SPACES = (
    "global",
    "shared",
    "shared::cta",
    "shared::cluster",
    "local",
    "const",
    "param",
    "param::entry",
    "param::func",
)
_ST_SPACES = ("global", "shared", "shared::cta", "shared::cluster", "local", "param", "param::func")
_SCOPES = ("cta", "cluster", "gpu", "sys")
_L1_EVICT = (
    "L1::evict_normal",
    "L1::evict_unchanged",
    "L1::evict_first",
    "L1::evict_last",
    "L1::no_allocate",
)
_L2_EVICT = ("L2::evict_normal", "L2::evict_first", "L2::evict_last")
_PREFETCH = ("L2::64B", "L2::128B", "L2::256B")


def _vector(op: str, value: object, what: str) -> tuple[object, int]:
    """``(operand, count)``: a tuple becomes a vector operand, anything else a scalar."""
    if isinstance(value, (tuple, list)):
        if len(value) not in (2, 4, 8):
            raise PtxDslError(f"{op} vectors have 2, 4 or 8 elements, but {what} has {len(value)}")
        return tuple(value), len(value)
    return value, 1


def _evictions(op: str, evict: object) -> list[str]:
    values = evict if isinstance(evict, (tuple, list)) else ((evict,) if evict else ())
    out: list[str] = []
    for level, allowed in (("L1", _L1_EVICT), ("L2", _L2_EVICT)):
        chosen = [v for v in values if isinstance(v, str) and v.startswith(level + "::")]
        if len(chosen) > 1:
            raise PtxDslError(f"{op} takes one {level} eviction priority, got {chosen}")
        out.extend(required(op, "evict", v, allowed) for v in chosen)
    stray = [v for v in values if v not in out]
    if stray:
        raise PtxDslError(
            f"{op} expects evict= one of {', '.join(repr(x) for x in _L1_EVICT + _L2_EVICT)} "
            f"(or an (L1, L2) pair), but got {stray[0]!r}"
        )
    return out


def _qualifiers(
    op: str,
    sem: object,
    scope: object,
    space: object,
    spaces: tuple[str, ...],
    sems: tuple[str, ...],
) -> list[str]:
    s = choice(op, "sem", sem, sems)
    sc = choice(op, "scope", scope, _SCOPES)
    if s in ("relaxed", "acquire", "release", "mmio") and sc is None:
        raise PtxDslError(f"{op}.{s} needs scope= one of 'cta', 'cluster', 'gpu', 'sys'")
    if sc is not None and s not in ("relaxed", "acquire", "release", "mmio"):
        raise PtxDslError(
            f"{op} takes scope= only together with sem= 'relaxed', 'acquire', 'release' or 'mmio'"
        )
    sp = choice(op, "space", space, spaces)
    if s == "mmio":
        if sc != "sys" or sp not in (None, "global"):
            raise PtxDslError(f"{op}.mmio exists only as {op}.mmio.relaxed.sys{{.global}}")
        return ["mmio", "relaxed", "sys", *([sp] if sp else [])]
    return [*([s] if s else []), *([sc] if sc else []), *([sp] if sp else [])]


def _hints(
    op: str,
    cache: object,
    caches: tuple[str, ...],
    evict: object,
    cache_policy: object,
    prefetch_size: object,
) -> tuple[list[str], tuple[object, ...]]:
    c = choice(op, "cache", cache, caches)
    ev = _evictions(op, evict)
    if c and ev:
        raise PtxDslError(
            f"{op} takes a cache operator (cache=) or eviction priorities (evict=), not both"
        )
    pf = choice(op, "prefetch_size", prefetch_size, _PREFETCH)
    hint = ["L2::cache_hint"] if cache_policy is not None else []
    mods = [*([c] if c else []), *ev, *hint, *([pf] if pf else [])]
    return mods, ((cache_policy,) if cache_policy is not None else ())


def ld(
    d: object,
    a: object,
    *,
    ty: TypeArg = None,
    space: str | None = None,
    sem: str | None = None,
    scope: str | None = None,
    cache: str | None = None,
    nc: bool = False,
    evict: str | tuple[str, str] | None = None,
    prefetch_size: str | None = None,
    cache_policy: object = None,
    pred: object = None,
) -> object:
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
    operand, n = _vector("ld", d, "d")
    elems = operand if isinstance(operand, tuple) else (operand,)
    for e in elems:
        if not (isinstance(e, Reg) or (e is None and n > 1)):
            dest("ld", e)
    regs = [e for e in elems if isinstance(e, Reg)]
    t = resolve_type("ld", ty, _LD_TYPES, *regs, by_width=True)
    if flag("ld", "nc", nc):
        if space != "global" or sem is not None:
            raise PtxDslError("ld.nc exists only as ld.global.nc (space='global', no sem=)")
        hints, extra = _hints(
            "ld.global.nc", cache, ("ca", "cg", "cs"), evict, cache_policy, prefetch_size
        )
        cop = hints[:1] if cache is not None else []
        quals, hints = ["global", *cop, "nc"], hints[len(cop) :]
    else:
        sems = ("weak", "volatile", "relaxed", "acquire", "mmio")
        quals = _qualifiers("ld", sem, scope, space, _LD_SPACES, sems)
        if sem in ("volatile", "relaxed", "acquire", "mmio"):
            check_takes(f"ld.{sem}", {"cache": cache}, ())
        hints, extra = _hints(
            "ld", cache, ("ca", "cg", "cs", "lu", "cv"), evict, cache_policy, prefetch_size
        )
    vec = [f"v{n}"] if n > 1 else []
    emit_inst("ld", [*quals, *hints, *vec, t.value], (operand, address("ld", a), *extra), pred)
    return d


def st(
    a: object,
    b: object,
    *,
    ty: TypeArg = None,
    space: str | None = None,
    sem: str | None = None,
    scope: str | None = None,
    cache: str | None = None,
    evict: str | tuple[str, str] | None = None,
    cache_policy: object = None,
    pred: object = None,
) -> None:
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
    operand, n = _vector("st", b, "b")
    elems = operand if isinstance(operand, tuple) else (operand,)
    t = resolve_type("st", ty, _LD_TYPES, *elems, by_width=True)
    sems = ("weak", "volatile", "relaxed", "release", "mmio")
    quals = _qualifiers("st", sem, scope, space, _ST_SPACES, sems)
    if sem in ("volatile", "relaxed", "release", "mmio"):
        check_takes(f"st.{sem}", {"cache": cache}, ())
    hints, extra = _hints("st", cache, ("wb", "cg", "cs", "wt"), evict, cache_policy, None)
    vec = [f"v{n}"] if n > 1 else []
    value = tuple(imm(e, t) for e in elems) if n > 1 else imm(operand, t)
    emit_inst("st", [*quals, *hints, *vec, t.value], (address("st", a), value, *extra), pred)


def ldu(
    d: object, a: object, *, ty: TypeArg = None, space: str | None = None, pred: object = None
) -> object:
    """Load a value that is the same for every thread of the warp (one instruction).

    Emits ``ldu{.global}{.v2|.v4}.type d, [a]``.

    Args:
        d: destination register, or a tuple of 2 or 4.
        a: the address.
        ty: b8..b128, u8..u64, s8..s64, f32, f64; default: from the destination.
        space: ``"global"`` or ``None`` (generic).
        pred: optional guard predicate.

    Returns:
        ``d``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-ldu
    """
    operand, n = _vector("ldu", d, "d")
    if n == 8:
        raise PtxDslError("ldu vectors have 2 or 4 elements, got 8")
    elems = operand if isinstance(operand, tuple) else (operand,)
    for e in elems:
        dest("ldu", e)
    t = resolve_type("ldu", ty, _LD_TYPES, *elems, by_width=True)
    sp = choice("ldu", "space", space, ("global",))
    mods = [*([sp] if sp else []), *([f"v{n}"] if n > 1 else []), t.value]
    emit_inst("ldu", mods, (operand, address("ldu", a)), pred)
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
        lv = required(
            "prefetch", "level", level, ("L1", "L2", "L2::evict_last", "L2::evict_normal")
        )
        sp = choice("prefetch", "space", space, ("global", "local"))
        if "::" in lv and sp != "global":
            raise PtxDslError(f"prefetch.{lv} needs space='global'")
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
        sp = choice("prefetch.tensormap", "space", space, ("const", "param"))
        emit_inst(
            "prefetch",
            [*([sp] if sp else []), "tensormap"],
            (address("prefetch.tensormap", a),),
            pred,
        )


prefetch = _Prefetch()
"""``ptx.prefetch(a, level=...)`` and ``ptx.prefetch.tensormap(a)``."""


def prefetchu(a: object, *, pred: object = None) -> None:
    """Prefetch into the uniform cache (one instruction): ``prefetchu.L1 [a]``.

    Args:
        a: the (generic) address.
        pred: optional guard predicate.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-prefetch-prefetchu
    """
    emit_inst("prefetchu", ["L1"], (address("prefetchu", a),), pred)


MULTI_INSTRUCTION: dict[str, str] = {}
"""This family has no multi-instruction helpers."""
