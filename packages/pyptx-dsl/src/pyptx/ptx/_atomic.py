"""PTX instruction family: atomics (``atom``) and reductions (``red``).

``ptx.atom(d, addr, b, op="add")`` returns the old value in ``d``; ``ptx.red(addr, b,
op="add")`` has no result. Memory semantics, scope and state space are keywords with PTX
spellings (``sem="acq_rel"``, ``scope="gpu"``, ``space="shared::cluster"``). Half-precision
adds need ``noftz=True`` (their only spelling). The sm_90 vector forms take tuples for ``d``
and ``b`` (``.v2``/``.v4``/``.v8`` from their length).
"""

from __future__ import annotations

from pyptx.ir import TypeKind

from ..dsl.operands import emit_inst
from ._arith_common import T, TypeArg, address, choice, dest, flag, imm, required, resolve_type
from ._memory import slot

__all__ = ["atom", "red"]

_Kw = dict[str, object]
"""The keywords of an atom/red call (its ``locals()``)."""


def _emit(name: str, data: tuple[object, ...], values: tuple[object, ...], kw: _Kw) -> None:
    """Check ``op`` (and atom's destinations), spell the modifiers and emit.

    The modifiers are ``{.sem}{.scope}{.space}.op{.noftz}{.L2::cache_hint}{.vec}.type``; the
    type comes from ``ty=`` or the registers of ``data``; ``values`` follow the address.
    """
    o, policy, d = required(name, "op", kw["op"], slot(name, "op")), kw["cache_policy"], data[0]
    for e in (d if isinstance(d, (tuple, list)) else (d,)) if name == "atom" else ():
        dest(name, e)
    types = tuple(T(v) for v in slot(name, "type", ("op", o)))
    label = f"atom.{o}" if name == "atom" else name
    t = resolve_type(
        label, kw["ty"], types, *data, by_width=all(t.kind is TypeKind.BITS for t in types)
    )
    mods = [choice(name, k, kw[k], slot(name, k)) for k in ("sem", "scope", "space")]
    n = len(d) if isinstance(d, (tuple, list)) else 1
    mods += [o, "noftz" if flag(name, "noftz", kw["noftz"]) else None]
    mods += ["L2::cache_hint" if policy is not None else None, f"v{n}" if n > 1 else None]
    ops = [tuple(v) if isinstance(v, (tuple, list)) else imm(v, t) for v in values]
    front = [tuple(d) if isinstance(d, (tuple, list)) else d] if name == "atom" else []
    ops = [*front, address(name, kw["a"]), *ops]
    extra = [policy] if policy is not None else []
    emit_inst(name, [*(m for m in mods if m), t.value], [*ops, *extra], kw["pred"])


def atom(
    d: object, a: object, b: object, c: object = None, *,
    op: str, ty: TypeArg = None, space: str | None = None, sem: str | None = None,
    scope: str | None = None, noftz: bool = False, cache_policy: object = None, pred: object = None,
) -> object:  # fmt: skip
    """Atomic read-modify-write returning the old value (one instruction).

    Emits ``atom{.sem}{.scope}{.space}.op{.noftz}{.L2::cache_hint}{.vec}.type d, [a], b{, c}
    {, policy}``. Ops and types: ``and``/``or``/``xor`` on b32/b64; ``cas`` (with ``c``) on
    b16/b32/b64/b128; ``exch`` on b32/b64/b128 (b128: sm_90); ``add`` on u32, s32, u64, f32,
    f64 and, with ``noftz=True``, f16/f16x2/bf16/bf16x2; ``inc``/``dec`` on u32;
    ``min``/``max`` on u32, s32, u64, s64 (halves: vector forms only). Vector forms (sm_90, global):
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
    _emit("atom", (d, b), (b,) if c is None else (b, c), locals())
    return d


def red(
    a: object, b: object, *,
    op: str, ty: TypeArg = None, space: str | None = None, sem: str | None = None,
    scope: str | None = None, noftz: bool = False, cache_policy: object = None, pred: object = None,
) -> None:  # fmt: skip
    """Atomic reduction into memory, without a result (one instruction).

    Emits ``red{.sem}{.scope}{.space}.op{.noftz}{.L2::cache_hint}{.vec}.type [a], b
    {, policy}``, with the ops and types of :func:`atom` except ``cas`` and ``exch``. The
    arguments are those of :func:`atom` except that there is no ``d``, the default type is
    that of ``b`` and ``sem`` is ``"relaxed"`` or ``"release"``.

    Example:
        ``ptx.red(ptx.addr(p), x, op="add", space="global", sem="release", scope="gpu")``
        emits ``red.release.gpu.global.add.f32 [%rd0], %f0;``.

    PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-red
    """
    _emit("red", (b,), (b,), locals())


MULTI_INSTRUCTION: dict[str, str] = {}
"""This family has no multi-instruction helpers."""
