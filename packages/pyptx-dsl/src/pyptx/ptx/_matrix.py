"""PTX instruction family: warp-level matrix moves ``ldmatrix``, ``stmatrix``, ``movmatrix``.

Each wrapper emits one ``.sync.aligned`` instruction. The shapes, types, ``.num`` counts,
``.trans`` rules and register counts are the ISA table's (``pyptx.ir.isa``); a wrapper only
spells the keywords as modifiers, and infers ``.num`` from the register count. See
https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-ldmatrix
"""

from __future__ import annotations

from collections.abc import Sequence

from pyptx.ir import PtxType

from ..dsl.errors import PtxDslError
from ..dsl.operands import Addr, addr, emit_inst
from ..dsl.regs import Reg, _new
from ..dsl.shared import MbarrierArray, MbarrierRef, SharedAlloc, SharedSlice

__all__ = ["ldmatrix", "movmatrix", "stmatrix"]

_REGS_PER_MATRIX = {"m16n16": 2}
"""32-bit registers per matrix and thread where not one (to infer ``.num`` from a count)."""


def _regs(value: object) -> tuple[object, ...]:
    return tuple(value) if isinstance(value, Sequence) and not isinstance(value, str) else (value,)


def _type_name(ty: object, src_fmt: str | None = None) -> list[str]:
    name = ty.value if isinstance(ty, PtxType) else ty
    if not isinstance(name, str):
        raise PtxDslError(f"ty must be a PTX type such as b16, got {ty!r}")
    return [name.lstrip("."), *([src_fmt.lstrip(".")] if src_fmt else [])]


def _address(where: object, what: str) -> Addr:
    if isinstance(where, Addr):
        return where
    if isinstance(where, (SharedSlice, MbarrierRef)):
        return where.addr()
    if isinstance(where, (Reg, SharedAlloc, MbarrierArray)):
        return addr(where)
    raise PtxDslError(
        f"{what} takes a shared address: a register, an allocation, a stage of one or "
        f"ptx.addr(...), got {type(where).__name__}"
    )


def _modifiers(
    shape: str, num: object, count: int, trans: bool, space: str | None, types: list[str]
) -> list[str]:
    """``sync.aligned.shape.xN[.trans][.space].types``; ``N`` from ``count`` when not given."""
    if num is None:
        num = count // _REGS_PER_MATRIX.get(shape, 1) or count
    n = str(num).lstrip(".")
    return [
        "sync", "aligned", shape, n if n.startswith("x") else f"x{n}",
        *(["trans"] if trans else []), *([space] if space else []), *types,
    ]  # fmt: skip


def ldmatrix(
    dst: object, src: object, *,
    num: object = None, trans: bool = False, shape: str = "m8n8", ty: object = PtxType.B16,
    src_fmt: str | None = None, space: str | None = "shared", pred: object = None,
) -> tuple[Reg, ...]:  # fmt: skip
    """Warp-collective load of 8x8 (or 16x16 / 8x16) matrices from shared memory (one instruction).

    Emits ``[@pred] ldmatrix.sync.aligned.<shape>.x<num>[.trans][.<space>].<ty>[.<src_fmt>]
    {dst..}, [src];``, e.g. ``ptx.ldmatrix(r4, sA[0], trans=True)`` with four registers
    emits ``ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r0, %r1, %r2, %r3},
    [smem_0];``.

    Shapes: m8n8 ``.b16`` (x1/x2/x4, one register per matrix, ``.trans`` optional); m16n16
    (sm_100a/sm_120a) ``.b8`` or ``ty="b8x16", src_fmt="b6x16_p32"/"b4x16_p64"`` (x1/x2,
    two registers per matrix, ``.trans`` required); m8n16 (sm_100a/sm_120a) ``b8x16`` with a
    6/4-bit ``src_fmt`` (x1/x2/x4, no ``.trans``).
    https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-ldmatrix

    Args:
        dst: destination 32-bit registers (a list or ``reg.array(b32, n)``).
        src: the shared address of this thread's row: a register (u32 shared address, or
            u64 with ``space=None`` for generic), an allocation, a stage, or ``ptx.addr``.
        num: 1, 2, 4 (or ``"x4"``); by default inferred from ``len(dst)``.
        trans: ``.trans`` (load column-major).
        shape: ``"m8n8"``, ``"m16n16"``, ``"m8n16"``.
        ty: ``b16`` / ``b8`` or ``"b8x16"`` (with ``src_fmt``).
        src_fmt: ``"b6x16_p32"`` or ``"b4x16_p64"`` for packed 6/4-bit data.
        space: ``"shared"`` (default), ``"shared::cta"`` or ``None`` (generic address).
        pred: optional guard predicate.

    Returns:
        The destination registers.

    Raises:
        PtxDslError: the ISA table's reason for a wrong register count ("... operand 0 (d)
            expects a vector of 4 elements, but got 2") or a shape/type/trans mismatch.
    """
    regs = _regs(dst)
    mods = _modifiers(shape, num, len(regs), trans, space, _type_name(ty, src_fmt))
    emit_inst("ldmatrix", mods, (regs, _address(src, "ldmatrix")), pred)
    return regs  # type: ignore[return-value]


def stmatrix(
    dst: object,
    src: object,
    *,
    num: object = None,
    trans: bool = False,
    shape: str = "m8n8",
    ty: object = PtxType.B16,
    space: str | None = "shared",
    pred: object = None,
) -> None:
    """Warp-collective store of 8x8 (or 16x8) matrices to shared memory (one instruction).

    Emits ``[@pred] stmatrix.sync.aligned.<shape>.x<num>[.trans][.<space>].<ty> [dst],
    {src..};``, e.g. ``ptx.stmatrix(sC[0], r4)`` with four registers emits
    ``stmatrix.sync.aligned.m8n8.x4.shared.b16 [smem_0], {%r0, %r1, %r2, %r3};``.

    Shapes: m8n8 ``.b16`` (sm_90+, ``.trans`` optional); m16n8 ``.b8`` (sm_100a/sm_120a,
    ``.trans`` required); x1/x2/x4, one register per matrix.
    https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-stmatrix

    Args:
        dst: the shared address of this thread's row (as for :func:`ldmatrix`).
        src: source 32-bit registers.
        num: 1, 2, 4 (or ``"x4"``); by default inferred from ``len(src)``.
        trans: ``.trans`` (store column-major).
        shape: ``"m8n8"`` or ``"m16n8"``.
        ty: ``b16`` or ``b8``.
        space: ``"shared"`` (default), ``"shared::cta"`` or ``None`` (generic address).
        pred: optional guard predicate.

    Raises:
        PtxDslError: the table's reason for a wrong register count or a shape/type/trans
            mismatch.
    """
    regs = _regs(src)
    mods = _modifiers(shape, num, len(regs), trans, space, _type_name(ty))
    emit_inst("stmatrix", mods, (_address(dst, "stmatrix"), regs), pred)


def movmatrix(
    d: Reg | None,
    a: Reg,
    *,
    shape: str = "m8n8",
    ty: object = PtxType.B16,
    pred: object = None,
) -> Reg:
    """Transpose an 8x8 b16 matrix held across the warp's registers (one instruction).

    Emits ``[@pred] movmatrix.sync.aligned.m8n8.trans.b16 d, a;`` (``.trans`` is mandatory),
    e.g. ``t = ptx.movmatrix(None, r)`` emits ``movmatrix.sync.aligned.m8n8.trans.b16 %r1,
    %r0;``.
    https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-movmatrix

    Args:
        d: destination 32-bit register, or ``None`` to allocate a ``b32`` one.
        a: source 32-bit register (two b16 elements of a row).
        shape: ``"m8n8"`` (the only shape).
        ty: ``b16`` (the only type).
        pred: optional guard predicate.

    Returns:
        The destination register.

    Raises:
        PtxDslError: the table's reason for another shape or type, or non-32-bit registers.
    """
    dst = _new(PtxType.B32) if d is None else d
    emit_inst("movmatrix", ("sync", "aligned", shape, "trans", *_type_name(ty)), (dst, a), pred)
    return dst
