"""PTX instruction family: atomics (``atom``) and reductions (``red``).

``ptx.atom(d, addr, b, op="add")`` returns the old value in ``d``; ``ptx.red(addr, b,
op="add")`` has no result. Memory semantics, scope and state space are keywords with PTX
spellings (``sem="acq_rel"``, ``scope="gpu"``, ``space="shared::cluster"``). Half-precision
adds need ``noftz=True`` (their only spelling). The sm_90 vector forms take tuples for ``d``
and ``b`` (``.v2``/``.v4``/``.v8`` from their length).
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
    fmt_types,
    imm,
    required,
    resolve_type,
)

__all__ = ["atom", "red"]

_HALVES = (T.F16, T.F16X2, T.BF16, T.BF16X2)
_OP_TYPES: dict[str, tuple[T, ...]] = {
    "and": (T.B32, T.B64),
    "or": (T.B32, T.B64),
    "xor": (T.B32, T.B64),
    "cas": (T.B16, T.B32, T.B64, T.B128),
    "exch": (T.B32, T.B64, T.B128),
    "add": (T.U32, T.S32, T.U64, T.F32, T.F64, *_HALVES),
    "inc": (T.U32,),
    "dec": (T.U32,),
    "min": (T.U32, T.S32, T.U64, T.S64, *_HALVES),
    "max": (T.U32, T.S32, T.U64, T.S64, *_HALVES),
}
_SPACES = ("global", "shared", "shared::cta", "shared::cluster")
_SCOPES = ("cta", "cluster", "gpu", "sys")
# vector forms (sm_90, .global): type -> the vector lengths it takes.
_VECTORS: dict[T, tuple[int, ...]] = {
    T.F32: (2, 4),
    T.F16: (2, 4, 8),
    T.BF16: (2, 4, 8),
    T.F16X2: (2, 4),
    T.BF16X2: (2, 4),
}


def _mods(
    op: str,
    name: str,
    values: tuple[object, ...],
    o: str,
    ty: TypeArg,
    space: object,
    sem: object,
    sems: tuple[str, ...],
    scope: object,
    noftz: object,
    cache_policy: object,
) -> tuple[list[str], T, int]:
    """Check everything an atom/red takes; return (modifiers, type, vector length)."""
    first = values[0]
    n = len(first) if isinstance(first, (tuple, list)) else 1
    t = resolve_type(
        f"{name}.{o}", ty, _OP_TYPES[o], *values, by_width=o in ("and", "or", "xor", "cas", "exch")
    )
    s = choice(name, "sem", sem, sems)
    sc = choice(name, "scope", scope, _SCOPES)
    sp = choice(name, "space", space, _SPACES)
    half = t in _HALVES
    if half and o in ("add", "min", "max") and not flag(name, "noftz", noftz):
        raise PtxDslError(f"{name}.{o}{t.ptx} exists only with .noftz; pass noftz=True")
    check_takes(f"{name}.{o}{t.ptx}", {"noftz": noftz}, ("noftz",) if half else ())
    if n > 1:
        lengths = _VECTORS.get(t, ())
        if n not in lengths or (t is T.F32 and o != "add"):
            raise PtxDslError(
                f"vector {name} exists for add.f32 (v2, v4), add/min/max on f16/bf16 (v2, v4, "
                f"v8) and f16x2/bf16x2 (v2, v4), not {o}.v{n}{t.ptx}"
            )
        if sp not in (None, "global"):
            raise PtxDslError(f"vector {name} works on global memory only, not space={sp!r}")
    if cache_policy is not None and o == "cas":
        raise PtxDslError(f"{name}.cas takes no cache_policy=")
    mods = [
        *([s] if s else []),
        *([sc] if sc else []),
        *([sp] if sp else []),
        o,
        *(["noftz"] if noftz else []),
        *(["L2::cache_hint"] if cache_policy is not None else []),
        *([f"v{n}"] if n > 1 else []),
        t.value,
    ]
    return mods, t, n


def _operand(name: str, what: str, value: object, n: int, t: T) -> object:
    if n == 1:
        if isinstance(value, (tuple, list)):
            raise PtxDslError(f"{name}: {what} is a vector but the destination is a scalar")
        return imm(value, t)
    if not isinstance(value, (tuple, list)) or len(value) != n:
        raise PtxDslError(f"{name}.v{n} expects {what} as a tuple of {n} registers")
    return tuple(value)


def atom(
    d: object,
    a: object,
    b: object,
    c: object = None,
    *,
    op: str,
    ty: TypeArg = None,
    space: str | None = None,
    sem: str | None = None,
    scope: str | None = None,
    noftz: bool = False,
    cache_policy: object = None,
    pred: object = None,
) -> object:
    """Atomic read-modify-write returning the old value (one instruction).

    Emits ``atom{.sem}{.scope}{.space}.op{.noftz}{.L2::cache_hint}{.vec}.type d, [a], b{, c}
    {, policy}``. Ops and types: ``and``/``or``/``xor`` on b32/b64; ``cas`` (with ``c``) on
    b16/b32/b64/b128; ``exch`` on b32/b64/b128 (b128: sm_90); ``add`` on u32, s32, u64, f32,
    f64 and, with ``noftz=True``, f16/f16x2/bf16/bf16x2; ``inc``/``dec`` on u32;
    ``min``/``max`` on u32, s32, u64, s64 and halves. Vector forms (sm_90, global):
    ``add.v2|v4.f32`` and ``add|min|max.noftz`` on ``.v2/.v4/.v8.<f16|bf16>`` and
    ``.v2/.v4.<f16x2|bf16x2>``.

    Args:
        d: destination register (the old value), or a tuple for a vector form.
        a: the address.
        b: the operand (or a tuple for a vector form).
        c: the new value of ``cas`` (``b`` is the compare value).
        op: ``"and"``, ``"or"``, ``"xor"``, ``"cas"``, ``"exch"``, ``"add"``, ``"inc"``,
            ``"dec"``, ``"min"`` or ``"max"``.
        ty: the type; default: the destination's (bit types by width for the bit ops).
        space: ``"global"``, ``"shared"``, ``"shared::cta"``, ``"shared::cluster"`` or
            ``None`` (generic).
        sem: ``"relaxed"``, ``"acquire"``, ``"release"`` or ``"acq_rel"``.
        scope: ``"cta"``, ``"cluster"``, ``"gpu"`` or ``"sys"``.
        noftz: ``.noftz`` (required for the half-precision forms).
        cache_policy: a 64-bit cache-policy register; emits ``.L2::cache_hint``.
        pred: optional guard predicate.

    Returns:
        ``d``.

    Example:
        ``ptx.atom(old, ptx.addr(p), 1, op="add", space="global")`` emits
        ``atom.global.add.u32 %r1, [%rd0], 1;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-atom
    """
    o = required("atom", "op", op, tuple(_OP_TYPES))
    elems = d if isinstance(d, (tuple, list)) else (d,)
    for e in elems:
        dest("atom", e)
    if (o == "cas") != (c is not None):
        raise PtxDslError(
            "atom.cas takes the compare value b and the new value c; other ops take no c"
            if o == "cas"
            else f"atom.{o} takes no third operand c (only cas does)"
        )
    sems = ("relaxed", "acquire", "release", "acq_rel")
    mods, t, n = _mods("atom", "atom", (d, b), o, ty, space, sem, sems, scope, noftz, cache_policy)
    dv = tuple(elems) if n > 1 else d
    ops = [dv, address("atom", a), _operand("atom", "b", b, n, t)]
    if c is not None:
        ops.append(imm(c, t))
    if cache_policy is not None:
        ops.append(cache_policy)
    emit_inst("atom", mods, ops, pred)
    return d


def red(
    a: object,
    b: object,
    *,
    op: str,
    ty: TypeArg = None,
    space: str | None = None,
    sem: str | None = None,
    scope: str | None = None,
    noftz: bool = False,
    cache_policy: object = None,
    pred: object = None,
) -> None:
    """Atomic reduction into memory, without a result (one instruction).

    Emits ``red{.sem}{.scope}{.space}.op{.noftz}{.L2::cache_hint}{.vec}.type [a], b
    {, policy}``, with the ops and types of :func:`atom` except ``cas`` and ``exch``.

    Args:
        a: the address.
        b: the operand (or a tuple for a vector form); its register type is the default type.
        op: ``"and"``, ``"or"``, ``"xor"``, ``"add"``, ``"inc"``, ``"dec"``, ``"min"`` or
            ``"max"``.
        ty: the type; default: the type of ``b``.
        space: ``"global"``, ``"shared"``, ``"shared::cta"``, ``"shared::cluster"`` or
            ``None`` (generic).
        sem: ``"relaxed"`` or ``"release"``.
        scope: ``"cta"``, ``"cluster"``, ``"gpu"`` or ``"sys"``.
        noftz: ``.noftz`` (required for the half-precision forms).
        cache_policy: a 64-bit cache-policy register; emits ``.L2::cache_hint``.
        pred: optional guard predicate.

    Example:
        ``ptx.red(ptx.addr(p), x, op="add", space="global", sem="release", scope="gpu")``
        emits ``red.release.gpu.global.add.f32 [%rd0], %f0;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-red
    """
    ops = tuple(k for k in _OP_TYPES if k not in ("cas", "exch"))
    o = required("red", "op", op, ops)
    if ty is None and not isinstance(b, (Reg, tuple, list)):
        raise PtxDslError(
            f"red needs ty= (one of {fmt_types(_OP_TYPES[o])}) because b is not a register"
        )
    mods, t, n = _mods(
        "red", "red", (b,), o, ty, space, sem, ("relaxed", "release"), scope, noftz, cache_policy
    )
    operands = [address("red", a), _operand("red", "b", b, n, t)]
    if cache_policy is not None:
        operands.append(cache_policy)
    emit_inst("red", mods, operands, pred)


MULTI_INSTRUCTION: dict[str, str] = {}
"""This family has no multi-instruction helpers."""
