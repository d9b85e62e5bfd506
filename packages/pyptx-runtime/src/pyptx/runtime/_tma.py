"""TMA tensor maps (``CUtensorMap``) built on the host from a kernel's :class:`Tile` specs.

A tensor map is a 128-byte opaque descriptor the driver encodes (``cuTensorMapEncodeTiled``,
``cuTensorMapEncodeIm2col``) and a kernel receives by value as a ``.param .align 64 .b8
[128]`` parameter: never copied to device memory, so launches stay stream-ordered and
graph-capturable. The runtime encodes one template per specialization (its shapes and
strides) and the launch shim re-points it at each launch's buffer
(``cuTensorMapReplaceAddress``), which is cheaper than encoding per pointer.

This module is pure Python and runs without a GPU: :class:`TensorMapSpec` /
:class:`Im2colSpec` check the driver's documented requirements before the driver sees them
and name the offending field. Encoding them with the driver (and ``TensorMapCache``, which
keeps encoded maps per (address, spec) for callers that pass maps themselves) is in
:mod:`._tma_encode`.

Dimension order follows the driver: ``global_dims[0]`` is the innermost (contiguous)
dimension, so a row-major ``(rows, cols)`` matrix has ``global_dims == (cols, rows)`` and
``global_strides == (cols * element_bytes,)``.

Two descriptor forms come from a :class:`~pyptx.dsl.tile.Tile` (``tma_rank``):

- ``tma_rank=2``, the plain descriptor: the tile's own rank, box ``tma_box`` (default: the
  whole tensor), swizzle from the layout (``Layout.TMA_128B`` -> 128 bytes, ``ROW`` -> none).
- ``tma_rank=3``, the Hopper GEMM reshape of a row-major ``(height, width)`` matrix into
  ``(chunk, height, width / chunk)`` where ``chunk`` is one swizzle span of elements (128
  bytes, i.e. 64 bf16, for ``TMA_128B`` and for unswizzled tiles; 64 or 32 bytes for
  ``TMA_64B``/``TMA_32B``). Strides are ``(width * e, chunk * e)``; a ``tma_box`` of
  ``(box_major, box_minor)`` becomes the box ``(chunk, box_major, box_minor / chunk)``, so one
  TMA copy brings ``box_minor`` columns as ``box_minor / chunk`` swizzle-span-wide slabs.
  ``tma_padding=True`` widens the innermost box by 16 bytes (64 -> 72 bf16), the padded
  shared-memory rows of the Hopper GEMM epilogue store; the driver only allows that without
  swizzling (the inner box may not exceed the swizzle span).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pyptx.dsl.tile import Layout, Tile
from pyptx.ir import PtxType

from ._errors import ArgumentError

__all__ = [
    "L2_PROMOTIONS",
    "SWIZZLES",
    "TENSOR_MAP_BYTES",
    "Im2colSpec",
    "Interleave",
    "OobFill",
    "TensorMapDataType",
    "TensorMapSpec",
    "data_type_for",
    "hopper_3d_spec",
    "plain_spec",
    "tensor_map_spec",
]

TENSOR_MAP_BYTES = 128
"""Size of an encoded ``CUtensorMap``."""

_MAX_RANK = 5
_MAX_GLOBAL_DIM = 1 << 31
_MAX_STRIDE = 1 << 40
_MAX_BOX = 256
_MAX_ELEMENT_STRIDE = 8
SWIZZLES = (0, 32, 64, 128)
"""The swizzle spans a tensor map takes, in bytes (the driver's enum order)."""
L2_PROMOTIONS = (0, 64, 128, 256)
"""The L2 promotion sizes a tensor map takes, in bytes (the driver's enum order)."""
# The Hopper reshape's innermost chunk for unswizzled tiles, and the padding of a padded box.
_HOPPER_CHUNK_BYTES = 128
_PADDING_BYTES = 16


class TensorMapDataType(enum.IntEnum):
    """``CUtensorMapDataType``, with the driver's values (packed 4/6-bit types excluded)."""

    UINT8 = 0
    UINT16 = 1
    UINT32 = 2
    INT32 = 3
    UINT64 = 4
    INT64 = 5
    FLOAT16 = 6
    FLOAT32 = 7
    FLOAT64 = 8
    BFLOAT16 = 9
    FLOAT32_FTZ = 10
    TFLOAT32 = 11
    TFLOAT32_FTZ = 12

    @property
    def nbytes(self) -> int:
        """Bytes per element."""
        return _ELEMENT_BYTES[self]

    @property
    def is_float(self) -> bool:
        """Whether NaN out-of-bounds fill is allowed for this type."""
        return self in _FLOAT_TYPES


_ELEMENT_BYTES = {
    TensorMapDataType.UINT8: 1,
    TensorMapDataType.UINT16: 2,
    TensorMapDataType.UINT32: 4,
    TensorMapDataType.INT32: 4,
    TensorMapDataType.UINT64: 8,
    TensorMapDataType.INT64: 8,
    TensorMapDataType.FLOAT16: 2,
    TensorMapDataType.FLOAT32: 4,
    TensorMapDataType.FLOAT64: 8,
    TensorMapDataType.BFLOAT16: 2,
    TensorMapDataType.FLOAT32_FTZ: 4,
    TensorMapDataType.TFLOAT32: 4,
    TensorMapDataType.TFLOAT32_FTZ: 4,
}
_FLOAT_TYPES = frozenset(
    {
        TensorMapDataType.FLOAT16,
        TensorMapDataType.FLOAT32,
        TensorMapDataType.FLOAT64,
        TensorMapDataType.BFLOAT16,
        TensorMapDataType.FLOAT32_FTZ,
        TensorMapDataType.TFLOAT32,
        TensorMapDataType.TFLOAT32_FTZ,
    }
)

# PtxType -> the tensor-map type that moves its bytes. TMA copies bits; only the float types
# (NaN fill) and tf32 (rounding on load) need their own entries. 8-bit float formats move as
# bytes.
_PTX_DATA_TYPES: dict[PtxType, TensorMapDataType] = {
    PtxType.U8: TensorMapDataType.UINT8,
    PtxType.S8: TensorMapDataType.UINT8,
    PtxType.B8: TensorMapDataType.UINT8,
    PtxType.E4M3: TensorMapDataType.UINT8,
    PtxType.E5M2: TensorMapDataType.UINT8,
    PtxType.E2M3: TensorMapDataType.UINT8,
    PtxType.E3M2: TensorMapDataType.UINT8,
    PtxType.UE8M0: TensorMapDataType.UINT8,
    PtxType.UE4M3: TensorMapDataType.UINT8,
    PtxType.U16: TensorMapDataType.UINT16,
    PtxType.S16: TensorMapDataType.UINT16,
    PtxType.B16: TensorMapDataType.UINT16,
    PtxType.U32: TensorMapDataType.UINT32,
    PtxType.B32: TensorMapDataType.UINT32,
    PtxType.S32: TensorMapDataType.INT32,
    PtxType.U64: TensorMapDataType.UINT64,
    PtxType.B64: TensorMapDataType.UINT64,
    PtxType.S64: TensorMapDataType.INT64,
    PtxType.F16: TensorMapDataType.FLOAT16,
    PtxType.BF16: TensorMapDataType.BFLOAT16,
    PtxType.F32: TensorMapDataType.FLOAT32,
    PtxType.TF32: TensorMapDataType.TFLOAT32,
    PtxType.F64: TensorMapDataType.FLOAT64,
}


class Interleave(enum.IntEnum):
    """``CUtensorMapInterleave``."""

    NONE = 0
    B16 = 1
    B32 = 2


class OobFill(enum.IntEnum):
    """``CUtensorMapFloatOOBfill``: what out-of-bounds elements read as."""

    ZERO = 0
    NAN = 1
    """NaN (``NAN_REQUEST_ZERO_FMA``); float types only."""


def data_type_for(dtype: PtxType) -> TensorMapDataType:
    """The tensor-map data type that moves elements of PTX type ``dtype``.

    Raises:
        ArgumentError: TMA cannot move ``dtype`` (sub-byte, vector or predicate types).
    """
    try:
        return _PTX_DATA_TYPES[dtype]
    except KeyError:
        supported = ", ".join(t.value for t in _PTX_DATA_TYPES)
        raise ArgumentError(
            f"TMA cannot move elements of type .{dtype.value}; supported: {supported}"
        ) from None


# --------------------------------------------------------------------------------------------
# Specs and their validation (the driver's documented requirements)
# --------------------------------------------------------------------------------------------


def _check_ints(what: str, values: tuple[int, ...], low: int, high: int) -> None:
    for i, v in enumerate(values):
        if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
            raise ArgumentError(f"{what}[{i}] must be an int in [{low}, {high}], got {v!r}")


def _check_common(
    kind: str,
    dtype: TensorMapDataType,
    global_dims: tuple[int, ...],
    global_strides: tuple[int, ...],
    element_strides: tuple[int, ...],
    interleave: Interleave,
    swizzle: int,
    l2_promotion: int,
    oob_fill: OobFill,
    min_rank: int,
) -> None:
    """The rules tiled and im2col tensor maps share."""
    if not isinstance(dtype, TensorMapDataType):
        raise ArgumentError(f"{kind}.dtype must be a TensorMapDataType, got {dtype!r}")
    rank = len(global_dims)
    if not min_rank <= rank <= _MAX_RANK:
        raise ArgumentError(f"{kind} rank must be in [{min_rank}, {_MAX_RANK}], got {rank}")
    if not isinstance(interleave, Interleave):
        raise ArgumentError(f"{kind}.interleave must be an Interleave, got {interleave!r}")
    if interleave is not Interleave.NONE and rank < 3:
        raise ArgumentError(f"an interleaved {kind} needs rank >= 3, got rank {rank}")
    _check_ints(f"{kind}.global_dims", global_dims, 1, _MAX_GLOBAL_DIM)
    if len(global_strides) != rank - 1:
        raise ArgumentError(
            f"{kind}.global_strides needs rank - 1 = {rank - 1} byte strides (dims 1..), "
            f"got {len(global_strides)}"
        )
    _check_ints(f"{kind}.global_strides", global_strides, 1, _MAX_STRIDE - 1)
    stride_align = 32 if interleave is Interleave.B32 else 16
    for i, s in enumerate(global_strides):
        if s % stride_align:
            raise ArgumentError(
                f"{kind}.global_strides[{i}] = {s} bytes is not a multiple of {stride_align}"
                + ("" if stride_align == 16 else " (32-byte interleave)")
                + "; TMA needs 16-byte aligned rows (pad the row length)"
            )
    if element_strides:
        if len(element_strides) != rank:
            raise ArgumentError(
                f"{kind}.element_strides needs {rank} entries, got {len(element_strides)}"
            )
        _check_ints(f"{kind}.element_strides", element_strides, 1, _MAX_ELEMENT_STRIDE)
    if swizzle not in SWIZZLES:
        raise ArgumentError(f"{kind}.swizzle must be one of {SWIZZLES} bytes, got {swizzle!r}")
    if interleave is Interleave.B32 and swizzle != 32:
        raise ArgumentError(f"a 32-byte interleaved {kind} needs swizzle=32, got {swizzle}")
    if l2_promotion not in L2_PROMOTIONS:
        raise ArgumentError(
            f"{kind}.l2_promotion must be one of {L2_PROMOTIONS} bytes, got {l2_promotion!r}"
        )
    if not isinstance(oob_fill, OobFill):
        raise ArgumentError(f"{kind}.oob_fill must be an OobFill, got {oob_fill!r}")
    if oob_fill is OobFill.NAN and not dtype.is_float:
        raise ArgumentError(f"NaN out-of-bounds fill needs a float type, got {dtype.name}")


def _check_swizzle_span(kind: str, what: str, inner_bytes: int, swizzle: int) -> None:
    if swizzle and inner_bytes > swizzle:
        raise ArgumentError(
            f"{kind}: the inner {what} is {inner_bytes} bytes, more than the {swizzle}-byte "
            "swizzle span; narrow the box or use a wider swizzle"
        )


class _GlobalLayout:
    """What tiled and im2col specs share: the rank and the address alignment they imply."""

    __slots__ = ()
    global_dims: tuple[int, ...]
    interleave: Interleave

    @property
    def rank(self) -> int:
        """Number of dimensions."""
        return len(self.global_dims)

    @property
    def address_alignment(self) -> int:
        """The alignment the global address needs (16 bytes; 32 with 32-byte interleave)."""
        return 32 if self.interleave is Interleave.B32 else 16


@dataclass(frozen=True, slots=True)
class TensorMapSpec(_GlobalLayout):
    """Everything ``cuTensorMapEncodeTiled`` takes except the address; hashable.

    Attributes:
        dtype: the element type.
        global_dims: the tensor's extent per dimension, innermost first (1..5 dims).
        global_strides: byte strides of dims ``1..rank-1`` (multiples of 16, < 2**40).
        box_dims: the box one TMA copy moves, innermost first (each 1..256).
        element_strides: traversal step per dimension (1..8); empty means all ones.
        interleave: the interleaved layout, if any.
        swizzle: the shared-memory swizzle span in bytes: 0, 32, 64 or 128.
        l2_promotion: L2 fetch granularity in bytes: 0, 64, 128 or 256.
        oob_fill: what out-of-bounds elements read as.

    Raises:
        ArgumentError: a field breaks a driver requirement; the message names it.
    """

    dtype: TensorMapDataType
    global_dims: tuple[int, ...]
    global_strides: tuple[int, ...]
    box_dims: tuple[int, ...]
    element_strides: tuple[int, ...] = ()
    interleave: Interleave = Interleave.NONE
    swizzle: int = 0
    l2_promotion: int = 0
    oob_fill: OobFill = OobFill.ZERO

    def __post_init__(self) -> None:
        kind = "TensorMapSpec"
        _check_common(
            kind, self.dtype, self.global_dims, self.global_strides, self.element_strides,
            self.interleave, self.swizzle, self.l2_promotion, self.oob_fill, min_rank=1,
        )  # fmt: skip
        if len(self.box_dims) != self.rank:
            raise ArgumentError(
                f"{kind}.box_dims needs {self.rank} entries, got {len(self.box_dims)}"
            )
        _check_ints(f"{kind}.box_dims", self.box_dims, 1, _MAX_BOX)
        inner_bytes = self.box_dims[0] * self.dtype.nbytes
        if self.interleave is Interleave.NONE:
            if inner_bytes % 16:
                raise ArgumentError(
                    f"{kind}: the inner box dimension is {inner_bytes} bytes "
                    f"({self.box_dims[0]} x {self.dtype.nbytes}), not a multiple of 16"
                )
            _check_swizzle_span(kind, "box dimension", inner_bytes, self.swizzle)

    @property
    def box_bytes(self) -> int:
        """Shared-memory bytes one copy of the box fills (element strides of one)."""
        size = self.dtype.nbytes
        for d in self.box_dims:
            size *= d
        return size


@dataclass(frozen=True, slots=True)
class Im2colSpec(_GlobalLayout):
    """Everything ``cuTensorMapEncodeIm2col`` takes except the address; hashable.

    Attributes:
        dtype: the element type.
        global_dims: extents innermost first, e.g. ``(C, W, H, N)`` for NHWC (3..5 dims).
        global_strides: byte strides of dims ``1..rank-1``.
        lower_corner: the bounding box's lower corner offsets, ``rank - 2`` spatial entries
            in the same order as ``global_dims`` (W first).
        upper_corner: its upper corner offsets, as ``lower_corner``.
        channels_per_pixel: elements per pixel along C (1..256).
        pixels_per_column: pixels along N·D·H·W per copy (1..1024).
        element_strides: traversal step per dimension (1..8); empty means all ones.
        interleave: the interleaved layout, if any.
        swizzle: the shared-memory swizzle span in bytes: 0, 32, 64 or 128.
        l2_promotion: L2 fetch granularity in bytes: 0, 64, 128 or 256.
        oob_fill: what out-of-bounds elements read as.

    Raises:
        ArgumentError: a field breaks a driver requirement; the message names it.
    """

    dtype: TensorMapDataType
    global_dims: tuple[int, ...]
    global_strides: tuple[int, ...]
    lower_corner: tuple[int, ...]
    upper_corner: tuple[int, ...]
    channels_per_pixel: int
    pixels_per_column: int
    element_strides: tuple[int, ...] = ()
    interleave: Interleave = Interleave.NONE
    swizzle: int = 0
    l2_promotion: int = 0
    oob_fill: OobFill = OobFill.ZERO

    def __post_init__(self) -> None:
        kind = "Im2colSpec"
        _check_common(
            kind, self.dtype, self.global_dims, self.global_strides, self.element_strides,
            self.interleave, self.swizzle, self.l2_promotion, self.oob_fill, min_rank=3,
        )  # fmt: skip
        spatial = self.rank - 2
        # The corner offsets' range shrinks with the number of spatial dimensions.
        limit = {1: 1 << 15, 2: 1 << 7, 3: 1 << 4}[spatial]
        for name in ("lower_corner", "upper_corner"):
            corner = getattr(self, name)
            if len(corner) != spatial:
                raise ArgumentError(
                    f"{kind}.{name} needs rank - 2 = {spatial} offsets, got {len(corner)}"
                )
            _check_ints(f"{kind}.{name}", corner, -limit, limit - 1)
        _check_ints(f"{kind}.channels_per_pixel", (self.channels_per_pixel,), 1, 256)
        _check_ints(f"{kind}.pixels_per_column", (self.pixels_per_column,), 1, 1024)
        if self.interleave is Interleave.NONE:
            inner_bytes = self.channels_per_pixel * self.dtype.nbytes
            _check_swizzle_span(kind, "channel run", inner_bytes, self.swizzle)


# --------------------------------------------------------------------------------------------
# Specs from shapes and tiles
# --------------------------------------------------------------------------------------------


def _row_major_strides(shape: Sequence[int], nbytes: int) -> tuple[int, ...]:
    """Byte strides of dims 1.. (innermost first) of a contiguous row-major ``shape``."""
    strides = []
    step = nbytes
    for extent in reversed(shape[1:]):
        step *= extent
        strides.append(step)
    return tuple(strides)


def plain_spec(
    shape: Sequence[int],
    dtype: PtxType,
    box: Sequence[int] | None = None,
    *,
    swizzle: int = 0,
    column_major: bool = False,
    l2_promotion: int = 0,
    oob_fill: OobFill = OobFill.ZERO,
) -> TensorMapSpec:
    """The plain (``tma_rank=2``) descriptor of a contiguous array.

    Args:
        shape: the array's shape in Python (outermost-first) order.
        dtype: its element type.
        box: the box, in the same order as ``shape``; defaults to the whole array.
        swizzle: the swizzle span in bytes.
        column_major: the array is Fortran-ordered (``shape[0]`` is contiguous).
        l2_promotion: L2 fetch granularity in bytes.
        oob_fill: what out-of-bounds elements read as.

    Raises:
        ArgumentError: the resulting descriptor breaks a driver requirement.
    """
    shape = tuple(shape)
    box = shape if box is None else tuple(box)
    if len(box) != len(shape):
        raise ArgumentError(f"the TMA box {box} does not have the rank of shape {shape}")
    data_type = data_type_for(dtype)
    order = shape if column_major else shape[::-1]
    return TensorMapSpec(
        dtype=data_type,
        global_dims=order,
        global_strides=_row_major_strides(order[::-1], data_type.nbytes),
        box_dims=box if column_major else box[::-1],
        swizzle=swizzle,
        l2_promotion=l2_promotion,
        oob_fill=oob_fill,
    )


def hopper_3d_spec(
    height: int,
    width: int,
    dtype: PtxType,
    box_major: int,
    box_minor: int,
    *,
    swizzle: int = 128,
    padding: bool = False,
) -> TensorMapSpec:
    """The reshaped (``tma_rank=3``) descriptor of a row-major ``(height, width)`` matrix.

    Dims ``(chunk, height, width / chunk)``, strides ``(width * e, chunk * e)``, box
    ``(chunk [+ 16 bytes if padding], box_major, box_minor / chunk)``, where ``chunk`` is one
    swizzle span of elements (128 bytes when not swizzled) and ``e`` the element size.

    Args:
        height: rows (M for A, N for B).
        width: columns (K for A and B), a multiple of ``chunk``.
        dtype: the element type.
        box_major: rows per copy.
        box_minor: columns per copy, a multiple of ``chunk``.
        swizzle: the swizzle span in bytes (0 for the epilogue store).
        padding: widen the innermost box by 16 bytes (needs ``swizzle=0``).

    Raises:
        ArgumentError: a dimension does not divide, or the descriptor breaks a driver rule.
    """
    data_type = data_type_for(dtype)
    e = data_type.nbytes
    chunk = (swizzle or _HOPPER_CHUNK_BYTES) // e
    for what, value in (("width", width), ("box_minor", box_minor)):
        if value % chunk:
            raise ArgumentError(
                f"the rank-3 TMA descriptor splits {what} into {chunk}-element "
                f"({chunk * e}-byte) chunks, but {what} = {value} is not a multiple of {chunk}"
            )
    inner_box = chunk + (_PADDING_BYTES // e if padding else 0)
    return TensorMapSpec(
        dtype=data_type,
        global_dims=(chunk, height, width // chunk),
        global_strides=(width * e, chunk * e),
        box_dims=(inner_box, box_major, box_minor // chunk),
        swizzle=swizzle,
    )


def _resolve(dims: Sequence[int | str], env: Mapping[str, int], what: str) -> tuple[int, ...]:
    out = []
    for d in dims:
        if isinstance(d, str):
            if d not in env:
                raise ArgumentError(f"{what} dimension {d!r} is not bound; pass {d}=<int>")
            out.append(env[d])
        else:
            out.append(d)
    return tuple(out)


def tensor_map_spec(
    tile: Tile, shape: Sequence[int], dims_env: Mapping[str, int] | None = None
) -> TensorMapSpec:
    """The descriptor a kernel's TMA :class:`~pyptx.dsl.tile.Tile` gets for an array.

    Args:
        tile: the kernel's tile spec (``layout``, ``tma_box``, ``tma_rank``,
            ``tma_padding``).
        shape: the concrete shape of the contiguous array (row-major, or column-major for
            ``Layout.COL``).
        dims_env: values of the symbolic names in ``tile.dims`` and ``tile.tma_box``.

    Raises:
        ArgumentError: the shape does not fit the tile, a name is unbound, the layout has no
            descriptor (``INTERLEAVED``), or the descriptor breaks a driver requirement; the
            message names the tile.
    """
    env = dict(dims_env or {})
    shape = tuple(shape)
    try:
        # Names the caller bound win over the array's shape, so a conflict shows as a mismatch.
        expected = _resolve(tile.dims, {**_bind(tile.dims, shape), **env}, "tile")
        if expected != shape:
            raise ArgumentError(f"the array's shape {shape} does not match the tile's {expected}")
        box = _resolve(tile.tma_box, env, "tma_box") if tile.tma_box is not None else shape
        if tile.layout is Layout.INTERLEAVED:
            raise ArgumentError("Layout.INTERLEAVED tiles have no TMA descriptor")
        swizzle = tile.layout.swizzle_bytes or 0
        if tile.tma_rank == 3:
            if len(shape) != 2 or tile.layout is Layout.COL:
                raise ArgumentError(
                    f"tma_rank=3 reshapes a row-major 2-D matrix, got a rank-{len(shape)} "
                    f"{tile.layout.name} tile"
                )
            return hopper_3d_spec(
                shape[0], shape[1], tile.dtype, box[0], box[1],
                swizzle=swizzle, padding=tile.tma_padding,
            )  # fmt: skip
        return plain_spec(
            shape, tile.dtype, box, swizzle=swizzle, column_major=tile.layout is Layout.COL
        )
    except ArgumentError as exc:
        raise ArgumentError(f"TMA descriptor of {_describe(tile)}: {exc}") from None


def _bind(dims: Sequence[int | str], shape: tuple[int, ...]) -> dict[str, int]:
    """Symbolic dims bound from the shape (only when the ranks agree)."""
    if len(dims) != len(shape):
        return {}
    return {d: s for d, s in zip(dims, shape, strict=True) if isinstance(d, str)}


def _describe(tile: Tile) -> str:
    dims = ", ".join(repr(d) for d in tile.dims)
    box = "" if tile.tma_box is None else f", tma_box={tile.tma_box}"
    return f"Tile({dims}, {tile.dtype.value}, {tile.layout.name}{box}, tma_rank={tile.tma_rank})"
