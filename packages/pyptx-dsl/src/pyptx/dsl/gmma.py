"""GMMA (``wgmma``) shared-memory layouts, matrix descriptors and swizzling.

A ``wgmma.mma_async`` reads its shared-memory operands through a 64-bit *matrix descriptor*
(PTX ISA, "Matrix Descriptor Format":
https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor):

=========  ======  ==============================================================
bits       field   meaning
=========  ======  ==============================================================
0-13       start   matrix start address in shared memory, ``>> 4``
16-29      LBO     leading dimension byte offset, ``>> 4``
32-45      SBO     stride dimension byte offset, ``>> 4``
49-51      base    matrix base offset (0 when the swizzle pattern is aligned)
62-63      mode    swizzle: 0 interleave (none), 1 128B, 2 64B, 3 32B
=========  ======  ==============================================================

This module holds the pure parts (:func:`matrix_descriptor`, :class:`MatrixDescriptor`,
:func:`swizzle_offset`, :class:`GmmaLayout`), the canonical tile allocator
:func:`wgmma_tile`, and two documented multi-instruction helpers, :func:`apply_swizzle` and
:func:`build_descriptor` (listed with their exact output in :data:`MULTI_INSTRUCTION`).

The layout :func:`wgmma_tile` allocates
---------------------------------------
A tile is stored as *rows* of its contiguous dimension (``(MN, K)`` for a K-major operand,
``(K, MN)`` for an MN-major one). The contiguous dimension is cut into *chunks* of ``W`` bytes,
``W`` being the swizzle width (128, 64 or 32 bytes; 16 bytes for the unswizzled "interleave"
layout). Chunk ``j`` holds every row, ``W`` bytes each, and starts at ``j * rows * W``; inside
a chunk row ``r`` starts at ``r * W``. The byte at logical offset ``o`` is stored at
``swizzle_offset(o, mode)`` (CuTe ``Swizzle<3,4,3>`` / ``<2,4,3>`` / ``<1,4,3>`` on byte
offsets, the same pattern TMA writes with ``CU_TENSOR_MAP_SWIZZLE_128B/64B/32B``). So one TMA
box of ``rows x W`` bytes with the matching swizzle fills one chunk exactly, and the
allocation is aligned to the ``8 * W`` byte swizzle period (1024 for 128B) so the hardware's
address-based swizzle agrees with these offsets.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyptx.ir import BinaryExpr, Immediate, PtxType, Symbol

from ._trace import current
from .errors import PtxDslError
from .operands import emit_inst
from .regs import Reg, _new
from .shared import SharedAlloc, SharedSlice, alloc_with_layout

__all__ = [
    "GMMA_DTYPES",
    "MULTI_INSTRUCTION",
    "SWIZZLE_MODES",
    "GmmaLayout",
    "GmmaView",
    "MatrixDescriptor",
    "SwizzleMode",
    "apply_swizzle",
    "build_descriptor",
    "gmma_layout",
    "matrix_descriptor",
    "operand_origin",
    "subtile",
    "swizzle_offset",
    "wgmma_tile",
]


@dataclass(frozen=True)
class SwizzleMode:
    """One GMMA swizzle mode.

    Attributes:
        name: ``"128B"``, ``"64B"``, ``"32B"``, or ``None`` for the unswizzled interleave
            layout.
        width: bytes per swizzled row (the chunk width ``W``; 16 for interleave).
        code: the descriptor's 2-bit mode field (bits 62-63).
        bits: CuTe's ``B`` in ``Swizzle<B,4,3>`` (how many 16-byte-chunk index bits flip).
    """

    name: str | None
    width: int
    code: int
    bits: int

    @property
    def mask(self) -> int:
        """The byte-offset bits XORed down by 3 places (``0x380`` for 128B)."""
        return ((1 << self.bits) - 1) << 7

    @property
    def period(self) -> int:
        """Bytes after which the pattern repeats (``8 * width``); the alignment it needs."""
        return 8 * self.width if self.bits else 128


SWIZZLE_MODES: dict[str | None, SwizzleMode] = {
    "128B": SwizzleMode("128B", 128, 1, 3),
    "64B": SwizzleMode("64B", 64, 2, 2),
    "32B": SwizzleMode("32B", 32, 3, 1),
    None: SwizzleMode(None, 16, 0, 0),
}
"""The table of swizzle modes, widest first (``None`` is the interleave layout)."""

_MODE_ALIASES = {"none": None, "interleave": None, "128b": "128B", "64b": "64B", "32b": "32B"}


def _mode(swizzle: object) -> SwizzleMode:
    if swizzle is None:
        return SWIZZLE_MODES[None]
    if isinstance(swizzle, SwizzleMode):
        return swizzle
    if isinstance(swizzle, str) and swizzle.lower() in _MODE_ALIASES:
        return SWIZZLE_MODES[_MODE_ALIASES[swizzle.lower()]]
    raise PtxDslError(
        f"swizzle must be one of '128B', '64B', '32B' or None (interleave), got {swizzle!r}"
    )


def swizzle_offset(offset: int, mode: str | None) -> int:
    """The physical byte offset of logical byte ``offset`` under a GMMA/TMA swizzle.

    ``offset ^ ((offset & mask) >> 3)`` with ``mask`` = ``0x380`` (128B, CuTe
    ``Swizzle<3,4,3>``), ``0x180`` (64B, ``Swizzle<2,4,3>``) or ``0x80`` (32B,
    ``Swizzle<1,4,3>``): the 16-byte chunk index inside a row is XORed with the row index
    modulo the pattern. ``None`` is the identity. Pure Python; :func:`apply_swizzle` emits the
    same computation on a register.

    Raises:
        PtxDslError: an unknown mode or a negative offset.
    """
    m = _mode(mode)
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise PtxDslError(f"swizzle_offset needs a non-negative int offset, got {offset!r}")
    return offset ^ ((offset & m.mask) >> 3)


# ---------------------------------------------------------------------------------- descriptor


@dataclass(frozen=True)
class MatrixDescriptor:
    """The fields of a 64-bit GMMA shared-memory matrix descriptor, in bytes.

    Attributes:
        start_address: shared-memory byte address of the matrix (multiple of 16, < 256 KiB).
        lbo: leading dimension byte offset (multiple of 16).
        sbo: stride dimension byte offset (multiple of 16).
        swizzle: ``"128B"``, ``"64B"``, ``"32B"`` or ``None``.
        base_offset: the 3-bit matrix base offset (0 for pattern-aligned matrices).
    """

    start_address: int
    lbo: int
    sbo: int
    swizzle: str | None = None
    base_offset: int = 0

    def encode(self) -> int:
        """The 64-bit descriptor value (see the module docstring for the bit layout)."""
        return matrix_descriptor(
            self.start_address,
            lbo=self.lbo,
            sbo=self.sbo,
            swizzle=self.swizzle,
            base_offset=self.base_offset,
        )

    @classmethod
    def decode(cls, value: int) -> MatrixDescriptor:
        """Split a 64-bit descriptor value back into its fields.

        Raises:
            PtxDslError: ``value`` is not a 64-bit unsigned int.
        """
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 64:
            raise PtxDslError(f"a matrix descriptor is a 64-bit unsigned int, got {value!r}")
        code = value >> 62
        name = next(m.name for m in SWIZZLE_MODES.values() if m.code == code)
        return cls(
            start_address=(value & 0x3FFF) << 4,
            lbo=((value >> 16) & 0x3FFF) << 4,
            sbo=((value >> 32) & 0x3FFF) << 4,
            swizzle=name,
            base_offset=(value >> 49) & 0x7,
        )


def _field(name: str, value: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise PtxDslError(f"descriptor {name} must be a non-negative int of bytes, got {value!r}")
    if value % 16:
        raise PtxDslError(
            f"descriptor {name} must be a multiple of 16 bytes (the 4 low bits are dropped), "
            f"got {value}"
        )
    if value >> 4 >= 1 << 14:
        raise PtxDslError(f"descriptor {name} must be below {16 << 14} bytes, got {value}")
    return value >> 4


def _high_bits(lbo: int, sbo: int, swizzle: object, base_offset: int) -> int:
    """Every descriptor bit except the start address (the constant part of a descriptor)."""
    mode = _mode(swizzle)
    if not isinstance(base_offset, int) or isinstance(base_offset, bool):
        raise PtxDslError(f"descriptor base_offset must be an int 0..7, got {base_offset!r}")
    if not 0 <= base_offset <= 7:
        raise PtxDslError(f"descriptor base_offset must be 0..7, got {base_offset}")
    return (
        (_field("lbo", lbo) << 16)
        | (_field("sbo", sbo) << 32)
        | (base_offset << 49)
        | (mode.code << 62)
    )


def matrix_descriptor(
    start_address: int,
    *,
    lbo: int,
    sbo: int,
    swizzle: str | None = None,
    base_offset: int = 0,
) -> int:
    """Encode a 64-bit GMMA shared-memory matrix descriptor (pure computation).

    ``(start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | base_offset << 49 | mode << 62``
    where ``mode`` is 1 for 128B, 2 for 64B, 3 for 32B swizzle and 0 for none. See
    https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor

    Args:
        start_address: shared-memory byte address (multiple of 16, below 256 KiB).
        lbo: leading dimension byte offset in bytes (multiple of 16).
        sbo: stride dimension byte offset in bytes (multiple of 16).
        swizzle: ``"128B"``, ``"64B"``, ``"32B"`` or ``None``.
        base_offset: the matrix base offset, 0..7.

    Returns:
        The descriptor as a Python int.

    Raises:
        PtxDslError: a field is out of range or not 16-byte granular.
    """
    return _field("start_address", start_address) | _high_bits(lbo, sbo, swizzle, base_offset)


# ---------------------------------------------------------------------------------- layouts

GMMA_DTYPES: dict[PtxType, int] = {
    PtxType.F16: 16,
    PtxType.BF16: 16,
    PtxType.TF32: 32,
    PtxType.F32: 32,
    PtxType.E4M3: 8,
    PtxType.E5M2: 8,
    PtxType.S8: 8,
    PtxType.U8: 8,
    PtxType.B1: 1,
}
"""Element types a GMMA tile may hold, with their size in bits (``f32`` is stored tf32)."""

_INSTRUCTION_K_BYTES = 32
"""Every dense wgmma consumes 32 bytes of K per row (k16 f16, k8 tf32, k32 8-bit, k256 b1)."""


@dataclass(frozen=True)
class GmmaLayout:
    """The canonical GMMA layout of one (stage of a) :func:`wgmma_tile` allocation.

    Attributes:
        dtype: element type.
        major: ``"K"`` (K contiguous) or ``"MN"`` (M/N contiguous).
        rows: rows as stored: the MN extent for K-major, the K extent for MN-major.
        cols: elements per row (the contiguous extent).
        swizzle: ``"128B"``, ``"64B"``, ``"32B"`` or ``None`` (interleave).
        stages: the number of stages (the leading dimension of the allocation, 1 if none).
    """

    dtype: PtxType
    major: str
    rows: int
    cols: int
    swizzle: str | None
    stages: int = 1

    @property
    def mode(self) -> SwizzleMode:
        """The swizzle mode entry."""
        return _mode(self.swizzle)

    @property
    def bits(self) -> int:
        """Bits per element."""
        return GMMA_DTYPES[self.dtype]

    @property
    def row_bytes(self) -> int:
        """Bytes per stored row."""
        return self.cols * self.bits // 8

    @property
    def chunk_bytes(self) -> int:
        """Bytes of one chunk: every row, ``W`` bytes each."""
        return self.rows * self.mode.width

    @property
    def stage_bytes(self) -> int:
        """Bytes of one stage."""
        return self.rows * self.row_bytes

    @property
    def mn(self) -> int:
        """The M (or N) extent of the tile."""
        return self.rows if self.major == "K" else self.cols

    @property
    def k(self) -> int:
        """The K extent of the tile."""
        return self.cols if self.major == "K" else self.rows

    @property
    def align(self) -> int:
        """The alignment the swizzle pattern needs (1024 for 128B, 512, 256, 128 for none)."""
        return self.mode.period

    @property
    def lbo(self) -> int:
        """Leading dimension byte offset of this layout's descriptors.

        K-major: the stride between 16-byte core-matrix columns along K (the chunk size) for
        interleave, unused (16) when swizzled. MN-major: the stride between 8-row K groups
        (128) for interleave, the stride between ``W``-byte chunks along MN when swizzled.
        """
        if self.major == "K":
            return self.chunk_bytes if self.swizzle is None else 16
        return 128 if self.swizzle is None else self.chunk_bytes

    @property
    def sbo(self) -> int:
        """Stride dimension byte offset of this layout's descriptors.

        K-major: the stride between 8-row groups along MN (128 interleave, ``8 * W`` swizzled).
        MN-major: the stride between 16-byte core-matrix columns along MN (the chunk size) for
        interleave, between 8-row K groups (``8 * W``) when swizzled.
        """
        if self.major == "K":
            return 8 * self.mode.width
        return self.chunk_bytes if self.swizzle is None else 8 * self.mode.width

    def logical_offset(self, row: int, col: int) -> int:
        """Byte offset of element ``(row, col)`` (as stored) before swizzling."""
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise PtxDslError(
                f"element ({row}, {col}) is outside the {self.rows}x{self.cols} GMMA tile"
            )
        width = self.mode.width
        colb = col * self.bits // 8
        return (colb // width) * self.chunk_bytes + row * width + colb % width

    def offset(self, row: int, col: int) -> int:
        """Byte offset where element ``(row, col)`` (as stored) lives: swizzled."""
        return swizzle_offset(self.logical_offset(row, col), self.swizzle)

    def origin(self, mn: int = 0, k: int = 0) -> int:
        """Logical byte offset of the sub-matrix starting at ``(mn, k)``: a descriptor start.

        Raises:
            PtxDslError: the origin is not on a boundary a descriptor can start at (K-major:
                ``mn`` a multiple of 8 and ``k`` of 32 bytes, 16 unswizzled; MN-major: ``k`` a
                multiple of 8 and ``mn`` of a chunk).
        """
        if not (0 <= mn < self.mn and 0 <= k < self.k):
            raise PtxDslError(
                f"sub-tile origin (mn={mn}, k={k}) is outside the tile (MN={self.mn}, K={self.k})"
            )
        width = self.mode.width
        if self.major == "K":
            kb = k * self.bits // 8
            step = 16 if self.swizzle is None else _INSTRUCTION_K_BYTES
            if mn % 8 or kb % step:
                raise PtxDslError(
                    f"a K-major descriptor starts at a multiple of 8 rows and {step} bytes of K; "
                    f"got mn={mn}, k={k} ({kb} bytes)"
                )
            return (kb // width) * self.chunk_bytes + mn * width + kb % width
        mnb = mn * self.bits // 8
        if k % 8 or mnb % width:
            raise PtxDslError(
                f"an MN-major descriptor starts at a multiple of 8 K rows and {width} bytes "
                f"of MN; got mn={mn}, k={k}"
            )
        return (mnb // width) * self.chunk_bytes + k * width

    def descriptor(self, start_address: int) -> int:
        """The 64-bit descriptor for a matrix of this layout at ``start_address`` (pure)."""
        return matrix_descriptor(start_address, lbo=self.lbo, sbo=self.sbo, swizzle=self.swizzle)


def _dtype(dtype: object) -> PtxType:
    ty = PtxType.from_name(dtype) if isinstance(dtype, str) else dtype
    if not isinstance(ty, PtxType) or ty not in GMMA_DTYPES:
        names = ", ".join(t.value for t in GMMA_DTYPES)
        raise PtxDslError(f"a GMMA tile holds one of {names}; got {dtype!r}")
    return ty


def gmma_layout(
    dtype: PtxType | str,
    shape: tuple[int, ...],
    major: str = "K",
    swizzle: str | None = "auto",
) -> GmmaLayout:
    """The canonical GMMA layout for a tile (pure; :func:`wgmma_tile` allocates it).

    Args:
        dtype: element type (f16, bf16, tf32/f32, e4m3, e5m2, s8, u8, b1).
        shape: ``(rows, cols)`` or ``(stages, rows, cols)`` as stored: ``(MN, K)`` for
            ``major="K"``, ``(K, MN)`` for ``major="MN"``.
        major: ``"K"`` or ``"MN"`` (MN-major, i.e. transposed, only for f16/bf16).
        swizzle: ``"auto"`` (the widest of 128B/64B/32B dividing a row, else interleave), or
            an explicit ``"128B"``, ``"64B"``, ``"32B"``, ``None``.

    Raises:
        PtxDslError: the shape cannot be laid out canonically; the message says why.
    """
    ty = _dtype(dtype)
    if major not in ("K", "MN"):
        raise PtxDslError(f"major must be 'K' or 'MN', got {major!r}")
    if major == "MN" and ty not in (PtxType.F16, PtxType.BF16):
        raise PtxDslError(
            f"MN-major (transposed) wgmma operands exist only for f16/bf16, got {ty.value}; "
            "store the tile K-major"
        )
    dims = tuple(shape)
    if len(dims) not in (2, 3) or any(
        not isinstance(d, int) or isinstance(d, bool) or d <= 0 for d in dims
    ):
        raise PtxDslError(
            f"a GMMA tile shape is (rows, cols) or (stages, rows, cols) of positive ints, "
            f"got {shape!r}"
        )
    stages, rows, cols = (1, *dims) if len(dims) == 2 else dims
    bits = GMMA_DTYPES[ty]
    row_bytes = cols * bits // 8
    if cols * bits % 8 or row_bytes % 16:
        raise PtxDslError(
            f"a GMMA tile row must be a multiple of 16 bytes; {cols} x {ty.value} is "
            f"{cols * bits / 8:g} bytes"
        )
    if rows % 8:
        raise PtxDslError(f"a GMMA tile needs a multiple of 8 rows, got {rows}")
    if major == "K" and row_bytes % _INSTRUCTION_K_BYTES:
        raise PtxDslError(
            f"a K-major GMMA tile needs K covering whole wgmma steps (32 bytes, "
            f"{_INSTRUCTION_K_BYTES * 8 // bits} x {ty.value}); got K={cols}"
        )
    if major == "MN" and rows % (_INSTRUCTION_K_BYTES * 8 // bits):
        raise PtxDslError(
            f"an MN-major GMMA tile needs K (its rows) to be a multiple of "
            f"{_INSTRUCTION_K_BYTES * 8 // bits}, got {rows}"
        )
    if swizzle == "auto":
        mode = next(m for m in SWIZZLE_MODES.values() if row_bytes % m.width == 0)
    else:
        mode = _mode(swizzle)
        if row_bytes % mode.width:
            raise PtxDslError(
                f"swizzle {mode.name} needs rows of a multiple of {mode.width} bytes, but a "
                f"row of this tile is {row_bytes} bytes"
            )
    return GmmaLayout(ty, major, rows, cols, mode.name, stages)


def wgmma_tile(
    dtype: PtxType | str,
    shape: tuple[int, ...],
    major: str = "K",
    *,
    swizzle: str | None = "auto",
    align: int | None = None,
    name: str | None = None,
) -> SharedAlloc:
    """Allocate a shared-memory tile in the canonical GMMA layout for a wgmma operand.

    Declares ``.shared .align A .b8 name[bytes];`` (no instruction) through
    :func:`pyptx.dsl.shared.alloc_with_layout` and records a :class:`GmmaLayout` in the
    allocation's ``gmma_layout`` (and ``"K"``/``"MN"`` in ``gmma_major``), so that
    ``ptx.wgmma.mma_async(acc, a=tile_a, b=tile_b, ...)`` builds the descriptors itself. The
    swizzle is the widest of 128B/64B/32B that divides a row (interleave otherwise) and the
    alignment is the swizzle period (1024 bytes for 128B). The element placement is described
    in this module's docstring; one TMA box of ``rows x W`` bytes fills one chunk.

    Args:
        dtype: element type (f16, bf16, tf32/f32, e4m3, e5m2, s8, u8, b1).
        shape: ``(MN, K)`` for ``major="K"`` (an A tile ``(M, K)`` or a K-major B ``(N, K)``),
            ``(K, MN)`` for ``major="MN"`` (a row-major B ``(K, N)``); a leading stage count
            may come first: ``(STAGES, M, K)``; index the result with a stage.
        major: ``"K"`` or ``"MN"``.
        swizzle: ``"auto"`` or an explicit mode (see :func:`gmma_layout`).
        align: byte alignment, at least the swizzle period (default: exactly that).
        name: the PTX symbol (default ``smem_<n>``).

    Returns:
        The allocation, with ``swizzle`` and ``gmma_layout`` set.

    Raises:
        PtxDslError: the shape, dtype, major or alignment cannot be used.
    """
    layout = gmma_layout(dtype, shape, major, swizzle)
    a = layout.align if align is None else align
    if not isinstance(a, int) or a < layout.align or a & (a - 1):
        raise PtxDslError(
            f"a {layout.swizzle or 'interleave'} GMMA tile needs a power-of-two alignment of at "
            f"least {layout.align} bytes, got {align!r}"
        )
    stored_shape = tuple(shape)
    stored_type = layout.dtype
    if layout.bits < 8:  # keep the byte count exact for sub-byte elements
        stored_type = PtxType.B8
        stored_shape = (*stored_shape[:-1], layout.row_bytes)
    return alloc_with_layout(
        stored_type, stored_shape, layout.swizzle, a, name, gmma_layout=layout, gmma_major=major
    )


# ---------------------------------------------------------------------------------- views


@dataclass(frozen=True)
class GmmaView:
    """A sub-matrix of a GMMA tile starting at ``(mn, k)``, for ``wgmma`` operands.

    Attributes:
        tile: the tile (or one stage of it).
        mn: first M/N index.
        k: first K index.
    """

    tile: SharedAlloc | SharedSlice
    mn: int = 0
    k: int = 0


def subtile(tile: SharedAlloc | SharedSlice | GmmaView, *, mn: int = 0, k: int = 0) -> GmmaView:
    """The part of a GMMA tile starting at ``(mn, k)`` (no instruction).

    Use it to feed one warpgroup its 64 rows of a 128-row A tile
    (``subtile(sA[s], mn=64)``) or to pick a K slice by hand.
    """
    if isinstance(tile, GmmaView):
        return GmmaView(tile.tile, tile.mn + mn, tile.k + k)
    operand_origin(tile, 0, 0)  # validates that this is a GMMA tile
    return GmmaView(tile, mn, k)


def operand_origin(operand: object, mn: int = 0, k: int = 0) -> tuple[SharedAlloc, int, GmmaLayout]:
    """Resolve a GMMA tile operand to ``(allocation, byte offset of its origin, layout)``.

    Args:
        operand: a :func:`wgmma_tile` allocation, one stage of it, or a :class:`GmmaView`.
        mn: extra M/N offset in elements.
        k: extra K offset in elements.

    Raises:
        PtxDslError: the operand is not a GMMA tile, or the origin is not descriptor-aligned.
    """
    if isinstance(operand, GmmaView):
        mn, k = mn + operand.mn, k + operand.k
        operand = operand.tile
    stage_offset = 0
    if isinstance(operand, SharedSlice):
        alloc = operand.alloc
        layout = alloc.gmma_layout
        if isinstance(layout, GmmaLayout) and len(alloc.shape) != 3:
            raise PtxDslError(
                f"{alloc.name} has no stage dimension (shape {alloc.shape}); pass the tile "
                "itself, or allocate (stages, rows, cols) and index a stage"
            )
        stage_offset = operand.stage * (layout.stage_bytes if isinstance(layout, GmmaLayout) else 0)
    elif isinstance(operand, SharedAlloc):
        alloc = operand
    else:
        raise PtxDslError(
            f"expected a GMMA tile (smem.wgmma_tile, a stage of it, or gmma.subtile), got "
            f"{type(operand).__name__}"
        )
    layout = alloc.gmma_layout
    if not isinstance(layout, GmmaLayout):
        raise PtxDslError(
            f"{alloc.name} was not allocated with smem.wgmma_tile, so it has no GMMA layout; "
            "allocate it with smem.wgmma_tile(...) or pass a descriptor register built with "
            "ptx.wgmma.descriptor(..., lbo=..., sbo=..., swizzle=...)"
        )
    if isinstance(operand, SharedAlloc) and layout.stages > 1:
        raise PtxDslError(
            f"{alloc.name} has {layout.stages} stages; index one, e.g. {alloc.name}[stage]"
        )
    return alloc, stage_offset + layout.origin(mn, k), layout


# ---------------------------------------------------------------------------------- emitters

MULTI_INSTRUCTION: dict[str, str] = {
    "smem.apply_swizzle": "and.b32 t, off, MASK; shr.u32 u, t, 3; xor.b32 r, off, u "
    "(.b64/.u64 for a 64-bit offset; MASK 0x380 128B, 0x180 64B, 0x80 32B; nothing for None)",
    "ptx.wgmma.descriptor": "[mov.u32 a, sym+offset;] bfe.u32 s, a, 4, 14; cvt.u64.u32 l, s; "
    "or.b64 desc, l, HIGH (HIGH = lbo>>4 << 16 | sbo>>4 << 32 | base << 49 | mode << 62)",
}
"""The helpers of this module that emit more than one instruction, with exactly what."""


def apply_swizzle(logical_offset: Reg | int, swizzle: str | None) -> Reg | int:
    """Swizzle a logical byte offset held in a register: the physical offset (3 instructions).

    Emits, for a 32-bit register (``.b64``/``.u64`` for a 64-bit one)::

        and.b32 t, off, MASK;   // 0x380 (128B), 0x180 (64B), 0x80 (32B)
        shr.u32 u, t, 3;
        xor.b32 r, off, u;

    which is CuTe's ``Swizzle<3,4,3>`` / ``<2,4,3>`` / ``<1,4,3>`` and the pattern TMA and
    ``wgmma`` use (see :func:`swizzle_offset`, the same function on Python ints). With
    ``swizzle=None`` nothing is emitted and the register is returned. A Python int is
    swizzled at trace time (no instruction). Listed in ``ptx.MULTI_INSTRUCTION_HELPERS``.
    https://docs.nvidia.com/cuda/parallel-thread-execution/#tensor-swizzling-modes

    Args:
        logical_offset: a 32- or 64-bit integer register, or a Python int.
        swizzle: ``"128B"``, ``"64B"``, ``"32B"`` or ``None``.

    Returns:
        A fresh register (same type) with the physical offset, or an int.
    """
    mode = _mode(swizzle)
    if isinstance(logical_offset, int) and not isinstance(logical_offset, bool):
        return swizzle_offset(logical_offset, mode.name)
    if not isinstance(logical_offset, Reg) or logical_offset.type.bits not in (32, 64):
        raise PtxDslError(
            f"apply_swizzle needs a 32- or 64-bit integer register or an int, got "
            f"{logical_offset!r}"
        )
    if mode.name is None:
        return logical_offset
    w = logical_offset.type.bits
    masked = _new(logical_offset.type)
    emit_inst("and", (f"b{w}",), (masked, logical_offset, Immediate(f"0x{mode.mask:X}")))
    shifted = _new(logical_offset.type)
    emit_inst("shr", (f"u{w}",), (shifted, masked, 3))
    out = _new(logical_offset.type)
    emit_inst("xor", (f"b{w}",), (out, logical_offset, shifted))
    return out


def _shared_u32(src: object, extra: int) -> Reg:
    """A u32 register holding the shared address of ``src`` plus ``extra`` bytes."""
    if isinstance(src, Reg):
        if src.type.bits != 32:
            raise PtxDslError(
                f"a descriptor address register must be a 32-bit shared address (from "
                f"smem.base or mov.u32 of a shared symbol), got {src.name} ({src.type.value})"
            )
        if extra:
            raise PtxDslError("add the offset to the address register before building")
        return src
    if isinstance(src, SharedSlice):
        sym, offset = src.alloc.name, src.offset + extra
    elif isinstance(src, SharedAlloc):
        sym, offset = src.name, extra
    else:
        raise PtxDslError(
            f"a descriptor is built from a shared allocation, a stage of one or a u32 shared "
            f"address register, got {type(src).__name__}"
        )
    addr = _new(PtxType.U32)
    value = BinaryExpr("+", Symbol(sym), Immediate(str(offset))) if offset else Symbol(sym)
    emit_inst("mov", ("u32",), (addr, value))
    return addr


def _layout_of(src: object) -> GmmaLayout | None:
    tile = src.tile if isinstance(src, GmmaView) else src
    alloc = tile.alloc if isinstance(tile, SharedSlice) else tile
    layout = getattr(alloc, "gmma_layout", None)
    return layout if isinstance(layout, GmmaLayout) else None


def build_descriptor(
    src: object,
    *,
    lbo: int | None = None,
    sbo: int | None = None,
    swizzle: object = "layout",
    base_offset: int = 0,
    mn: int = 0,
    k: int = 0,
) -> Reg:
    """Build a GMMA matrix descriptor at run time; returns a u64 register (4 instructions).

    Emits (the ``mov`` only when ``src`` is an allocation, not a register)::

        mov.u32     a, sym+offset;
        bfe.u32     s, a, 4, 14;        // start address >> 4, 14 bits
        cvt.u64.u32 l, s;
        or.b64      desc, l, HIGH;      // LBO, SBO, base offset, swizzle mode

    Exposed as ``ptx.wgmma.descriptor``; listed in ``ptx.MULTI_INSTRUCTION_HELPERS``. See
    https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor

    Args:
        src: a :func:`wgmma_tile` (stage, :class:`GmmaView`) whose layout supplies LBO, SBO and
            swizzle; or any shared allocation / stage / u32 shared-address register together
            with explicit ``lbo``, ``sbo`` and ``swizzle``.
        lbo: leading dimension byte offset (overrides the layout's).
        sbo: stride dimension byte offset (overrides the layout's).
        swizzle: ``"128B"``, ``"64B"``, ``"32B"``, ``None`` (overrides the layout's).
        base_offset: matrix base offset 0..7.
        mn: M/N origin inside a GMMA tile (elements).
        k: K origin inside a GMMA tile (elements).

    Raises:
        PtxDslError: missing fields for a plain allocation, or out-of-range fields.
    """
    layout = _layout_of(src)
    offset = 0
    if layout is not None:
        alloc, offset, layout = operand_origin(src, mn, k)
        lbo = layout.lbo if lbo is None else lbo
        sbo = layout.sbo if sbo is None else sbo
        swizzle = layout.swizzle if swizzle == "layout" else swizzle
        src = alloc
    elif lbo is None or sbo is None or swizzle == "layout":
        raise PtxDslError(
            "a descriptor for memory not allocated with smem.wgmma_tile needs lbo=, sbo= and "
            "swizzle= (bytes, bytes, '128B'/'64B'/'32B'/None)"
        )
    elif mn or k:
        raise PtxDslError("mn=/k= select a sub-tile of a smem.wgmma_tile allocation only")
    return _emit_descriptor(src, offset, _high_bits(lbo, sbo, swizzle, base_offset))


def _emit_descriptor(src: object, offset: int, high: int) -> Reg:
    addr = _shared_u32(src, offset)
    start = _new(PtxType.U32)
    emit_inst("bfe", ("u32",), (start, addr, 4, 14))
    wide = _new(PtxType.U64)
    emit_inst("cvt", ("u64", "u32"), (wide, start))
    desc = _new(PtxType.U64)
    emit_inst("or", ("b64",), (desc, wide, Immediate(f"0x{high:016X}")))
    return desc


def cached_tile_descriptor(operand: object, mn: int = 0, k: int = 0) -> Reg:
    """The descriptor of a GMMA tile operand, reusing earlier ones where they dominate.

    The first use of an allocation emits :func:`build_descriptor` for its start (4
    instructions); an operand at another offset of the same allocation then costs one
    ``add.s64 d, base, offset >> 4`` (cached too). A cached register is reused only where it
    is known to have run: the block that computed it is still open, and no label that an
    earlier branch jumps forward to has been placed since.
    """
    alloc, origin, layout = operand_origin(operand, mn, k)
    trace = current()

    def lookup(key: tuple[object, ...]) -> Reg | None:
        hit = trace.cache.get(key)
        if not isinstance(hit, tuple):
            return None
        reg, block, pending = hit
        if pending & trace.labels_defined.keys() or not any(block is b for b in trace.blocks):
            return None
        assert isinstance(reg, Reg)
        return reg

    def remember(key: tuple[object, ...], reg: Reg) -> None:
        pending = frozenset(trace.labels_used) - trace.labels_defined.keys()
        trace.cache[key] = (reg, trace.blocks[-1], pending)

    full_key = ("gmma_desc", alloc.name, origin)
    found = lookup(full_key)
    if found is not None:
        return found
    base_key = ("gmma_desc", alloc.name, 0)
    base = lookup(base_key)
    if base is None:
        base = _emit_descriptor(alloc, 0, _high_bits(layout.lbo, layout.sbo, layout.swizzle, 0))
        remember(base_key, base)
    if origin == 0:
        return base
    desc = _new(PtxType.U64)
    emit_inst("add", ("s64",), (desc, base, origin >> 4))
    remember(full_key, desc)
    return desc
