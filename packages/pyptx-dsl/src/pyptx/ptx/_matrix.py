"""PTX instruction family: warp-level matrix moves ``ldmatrix``, ``stmatrix``, ``movmatrix``.

Each wrapper emits one ``.sync.aligned`` instruction; the register count is checked against
the shape and ``.num`` (:data:`LDMATRIX_SHAPES`, :data:`STMATRIX_SHAPES`). See
https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-ldmatrix
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyptx.ir import PtxType

from ..dsl.errors import PtxDslError
from ..dsl.operands import Addr, addr, emit_inst
from ..dsl.regs import Reg, _new
from ..dsl.shared import MbarrierArray, MbarrierRef, SharedAlloc, SharedSlice

__all__ = ["ldmatrix", "movmatrix", "stmatrix"]


@dataclass(frozen=True)
class MatrixShape:
    """One ``ldmatrix``/``stmatrix`` shape.

    Attributes:
        shape: the ``.shape`` qualifier.
        types: the legal element types (``.type``, or ``(dst_fmt, src_fmt)`` pairs).
        regs_per_matrix: 32-bit registers each matrix takes per thread.
        nums: the legal ``.num`` counts.
        trans: ``"optional"``, ``"required"`` or ``"forbidden"``.
    """

    shape: str
    types: tuple[str, ...]
    regs_per_matrix: int
    nums: tuple[int, ...]
    trans: str


LDMATRIX_SHAPES: dict[str, MatrixShape] = {
    "m8n8": MatrixShape("m8n8", ("b16",), 1, (1, 2, 4), "optional"),
    "m16n16": MatrixShape(
        "m16n16", ("b8", "b8x16.b6x16_p32", "b8x16.b4x16_p64"), 2, (1, 2), "required"
    ),
    "m8n16": MatrixShape(
        "m8n16", ("b8x16.b6x16_p32", "b8x16.b4x16_p64"), 1, (1, 2, 4), "forbidden"
    ),
}
"""``ldmatrix`` shapes (m16n16/m8n16 are sm_100a/sm_120a)."""

STMATRIX_SHAPES: dict[str, MatrixShape] = {
    "m8n8": MatrixShape("m8n8", ("b16",), 1, (1, 2, 4), "optional"),
    "m16n8": MatrixShape("m16n8", ("b8",), 1, (1, 2, 4), "required"),
}
"""``stmatrix`` shapes (m8n8 is sm_90+, m16n8 sm_100a/sm_120a)."""

_SPACES = ("shared", "shared::cta", None)


def _num(num: object) -> int | None:
    if num is None:
        return None
    if isinstance(num, str) and num.lstrip(".").startswith("x") and num.lstrip(".")[1:].isdigit():
        return int(num.lstrip(".")[1:])
    if isinstance(num, int) and not isinstance(num, bool):
        return num
    raise PtxDslError(f"num must be 1, 2, 4 or 'x1', 'x2', 'x4', got {num!r}")


def _type_name(ty: object, src_fmt: str | None) -> str:
    name = ty.value if isinstance(ty, PtxType) else ty
    if not isinstance(name, str):
        raise PtxDslError(f"ty must be a PTX type such as b16, got {ty!r}")
    name = name.lstrip(".")
    return f"{name}.{src_fmt.lstrip('.')}" if src_fmt else name


def _regs(value: object, what: str) -> tuple[Reg, ...]:
    if isinstance(value, Reg):
        regs: tuple[object, ...] = (value,)
    elif isinstance(value, Sequence) and not isinstance(value, str):
        regs = tuple(value)
    else:
        raise PtxDslError(f"{what} takes a register or a list of registers, got {value!r}")
    for r in regs:
        if not isinstance(r, Reg) or r.type.bits != 32:
            raise PtxDslError(f"{what} takes 32-bit registers, got {r!r}")
    return regs  # type: ignore[return-value]


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


def _check(
    op: str,
    table: dict[str, MatrixShape],
    shape: str,
    num: object,
    trans: bool,
    type_name: str,
    space: str | None,
    regs: tuple[Reg, ...],
    role: str,
) -> list[str]:
    spec = table.get(shape)
    if spec is None:
        raise PtxDslError(f"{op} shape must be one of {', '.join(table)}, got {shape!r}")
    if type_name not in spec.types:
        raise PtxDslError(f"{op}.{shape} takes ty {' or '.join(spec.types)}, got {type_name!r}")
    if spec.trans == "required" and not trans:
        raise PtxDslError(f"{op}.{shape} needs trans=True (.trans is mandatory for this shape)")
    if spec.trans == "forbidden" and trans:
        raise PtxDslError(f"{op}.{shape} has no .trans form; drop trans=True")
    n = _num(num)
    if n is None:
        n, rem = divmod(len(regs), spec.regs_per_matrix)
        if rem or n not in spec.nums:
            legal = ", ".join(str(k * spec.regs_per_matrix) for k in spec.nums)
            raise PtxDslError(f"{op}.{shape} takes {legal} {role} registers, but got {len(regs)}")
    if n not in spec.nums:
        legal = ", ".join(f"x{k}" for k in spec.nums)
        raise PtxDslError(f"{op}.{shape} num must be {legal}, got x{n}")
    want = n * spec.regs_per_matrix
    if len(regs) != want:
        raise PtxDslError(
            f"{op}.{shape} .x{n} expects {want} {role} register{'s' if want > 1 else ''}, "
            f"but got {len(regs)}"
        )
    if space not in _SPACES:
        raise PtxDslError(f"space must be 'shared', 'shared::cta' or None (generic), got {space!r}")
    mods = ["sync", "aligned", shape, f"x{n}"]
    if trans:
        mods.append("trans")
    if space:
        mods.append(space)
    return [*mods, *type_name.split(".")]


def ldmatrix(
    dst: object,
    src: object,
    *,
    num: object = None,
    trans: bool = False,
    shape: str = "m8n8",
    ty: object = PtxType.B16,
    src_fmt: str | None = None,
    space: str | None = "shared",
    pred: object = None,
) -> tuple[Reg, ...]:
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
        PtxDslError: wrong register count ("ldmatrix.m8n8 .x4 expects 4 destination registers,
            but got 2"), shape/type/trans mismatch.
    """
    regs = _regs(dst, "ldmatrix destination")
    mods = _check(
        "ldmatrix", LDMATRIX_SHAPES, shape, num, trans, _type_name(ty, src_fmt), space, regs,
        "destination",
    )  # fmt: skip
    emit_inst("ldmatrix", mods, (regs, _address(src, "ldmatrix")), pred)
    return regs


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
        PtxDslError: wrong register count, shape/type/trans mismatch.
    """
    regs = _regs(src, "stmatrix source")
    mods = _check(
        "stmatrix", STMATRIX_SHAPES, shape, num, trans, _type_name(ty, None), space, regs,
        "source",
    )  # fmt: skip
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
        PtxDslError: another shape or type, or non-32-bit registers.
    """
    if shape != "m8n8":
        raise PtxDslError(f"movmatrix shape is 'm8n8', got {shape!r}")
    if _type_name(ty, None) != "b16":
        raise PtxDslError(f"movmatrix type is b16, got {ty!r}")
    dst = _new(PtxType.B32) if d is None else d
    _regs(dst, "movmatrix destination")
    _regs(a, "movmatrix source")
    emit_inst("movmatrix", ("sync", "aligned", "m8n8", "trans", "b16"), (dst, a), pred)
    return dst
