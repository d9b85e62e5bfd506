"""TMA tensor maps: what ``cuTensorMapEncodeTiled`` describes, for the emulator.

A :class:`TensorMap` describes a tiled view of a numpy array: its element type, the box one
``cp.async.bulk.tensor`` moves, the shared-memory swizzle, element strides and how
out-of-bounds elements are filled. Shapes and boxes are given in numpy order (outermost
dimension first, as ``Tile.tma_box``); PTX coordinates (``{c0, c1, ...}``) are innermost
first, so ``c0`` indexes the array's last axis.

In memory (a kernel parameter or a global buffer), a map occupies 128 bytes like a real
``CUtensorMap``. The real encoding is opaque, so the emulator writes a tag and the map's
number instead; a map copied through memory by the kernel (to shared memory for
``tensormap.replace``, say) stays recognizable wherever it is read from.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from pyptx.ir import PtxType

from ._errors import LaunchError

__all__ = ["TENSOR_MAP_BYTES", "TensorMap", "decode_tag", "encode_tag", "tensor_map"]

TENSOR_MAP_BYTES = 128
"""The size of a ``CUtensorMap``."""

_MAGIC = 0x5450_4D41_5045_4D55  # "UMEPAMPT"
"""The first 8 bytes of an emulated tensor map (little endian)."""

_DTYPES: dict[str, PtxType] = {
    "float16": PtxType.F16,
    "float32": PtxType.F32,
    "float64": PtxType.F64,
    "uint8": PtxType.U8,
    "int8": PtxType.S8,
    "uint16": PtxType.U16,
    "int16": PtxType.S16,
    "uint32": PtxType.U32,
    "int32": PtxType.S32,
    "uint64": PtxType.U64,
    "int64": PtxType.S64,
}

_NAMED: dict[str, PtxType] = {
    "bf16": PtxType.BF16,
    "bfloat16": PtxType.BF16,
    "f16": PtxType.F16,
    "f32": PtxType.F32,
    "f64": PtxType.F64,
    "tf32": PtxType.TF32,
    "e4m3": PtxType.E4M3,
    "e5m2": PtxType.E5M2,
    "float8_e4m3fn": PtxType.E4M3,
    "float8_e5m2": PtxType.E5M2,
    "u8": PtxType.U8,
    "s8": PtxType.S8,
    "u16": PtxType.U16,
    "s16": PtxType.S16,
    "u32": PtxType.U32,
    "s32": PtxType.S32,
    "u64": PtxType.U64,
    "s64": PtxType.S64,
}

SWIZZLES = (None, 32, 64, 128)
"""The swizzle spans (bytes) a map may use."""


@dataclass(frozen=True, eq=False)
class TensorMap:
    """A tiled TMA descriptor over a numpy array (build it with :func:`tensor_map`).

    Attributes:
        array: the tensor; TMA loads read it and TMA stores write it, in place.
        dtype: the element type.
        shape: the tensor's shape, numpy order.
        strides: byte strides, numpy order.
        box: the box one copy moves, numpy order.
        swizzle: the shared-memory swizzle span in bytes, or ``None``.
        elem_strides: element strides per dimension, numpy order.
        oob_fill: ``"zero"`` or ``"nan"``: what out-of-bounds elements read as.
    """

    array: np.ndarray
    dtype: PtxType
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    box: tuple[int, ...]
    swizzle: int | None
    elem_strides: tuple[int, ...]
    oob_fill: str

    @property
    def rank(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def element_bytes(self) -> int:
        """Bytes per element."""
        return max(1, self.dtype.bits // 8)

    @property
    def box_bytes(self) -> int:
        """Bytes one full box occupies in shared memory."""
        n = self.element_bytes
        for b, e in zip(self.box, self.elem_strides, strict=True):
            n *= -(-b // e)
        return n

    def __repr__(self) -> str:
        return (
            f"TensorMap(dtype={self.dtype.value}, shape={self.shape}, box={self.box},"
            f" swizzle={self.swizzle}, oob_fill={self.oob_fill!r})"
        )


def tensor_map(
    array: np.ndarray,
    box: tuple[int, ...] | list[int],
    swizzle: int | None = None,
    elem_strides: tuple[int, ...] | list[int] | None = None,
    oob_fill: str = "zero",
    dtype: str | None = None,
) -> TensorMap:
    """Describe a tiled TMA map over ``array`` (the emulator's ``cuTensorMapEncodeTiled``).

    Args:
        array: a C-contiguous numpy array (rank 1 to 5). bf16 or fp8 data may travel in an
            unsigned integer array of the same width; name the type with ``dtype``.
        box: the box, numpy order (outermost first); each side 1 to 256 elements, the
            innermost a multiple of 16 bytes.
        swizzle: ``None``, 32, 64 or 128: the shared-memory swizzle span. With a swizzle,
            the innermost box side may not exceed the span.
        elem_strides: element strides, numpy order (1 to 8 each; default all 1).
        oob_fill: ``"zero"`` or ``"nan"`` (float types only): the value of elements outside
            the tensor.
        dtype: the element type when the array's dtype does not say it (``"bf16"``,
            ``"e4m3"``, ``"tf32"``, ...).

    Returns:
        The map, to pass in ``args`` for a tensor-map parameter.

    Raises:
        LaunchError: an argument the hardware would refuse (the message says which).
    """
    if not isinstance(array, np.ndarray):
        raise LaunchError(f"tensor_map needs a numpy array, got {type(array).__name__}")
    if not array.flags.c_contiguous:
        raise LaunchError("tensor_map needs a C-contiguous array (np.ascontiguousarray)")
    rank = array.ndim
    if not 1 <= rank <= 5:
        raise LaunchError(f"a tensor map has 1 to 5 dimensions, the array has {rank}")
    ty = _element_type(array, dtype)
    elem = max(1, ty.bits // 8)
    if array.dtype.itemsize != elem:
        raise LaunchError(
            f"dtype {ty.value} has {elem}-byte elements, but the array's {array.dtype} has"
            f" {array.dtype.itemsize}"
        )
    box_t = tuple(int(b) for b in box)
    if len(box_t) != rank:
        raise LaunchError(f"box {box_t} has {len(box_t)} sides; the array has {rank} dimensions")
    for b in box_t:
        if not 1 <= b <= 256:
            raise LaunchError(f"box sides must be 1 to 256 elements, got {box_t}")
    inner = box_t[-1] * elem
    if inner % 16:
        raise LaunchError(
            f"the innermost box side is {inner} bytes; TMA needs a multiple of 16 bytes"
        )
    if swizzle not in SWIZZLES:
        raise LaunchError(f"swizzle must be None, 32, 64 or 128, got {swizzle!r}")
    if swizzle is not None and inner > swizzle:
        raise LaunchError(
            f"with a {swizzle}-byte swizzle the innermost box side may be at most {swizzle}"
            f" bytes, got {inner}"
        )
    strides_e = tuple(int(s) for s in (elem_strides or (1,) * rank))
    if len(strides_e) != rank or any(not 1 <= s <= 8 for s in strides_e):
        raise LaunchError(f"elem_strides must be {rank} values from 1 to 8, got {strides_e}")
    if oob_fill not in ("zero", "nan"):
        raise LaunchError(f"oob_fill must be 'zero' or 'nan', got {oob_fill!r}")
    if oob_fill == "nan" and ty.kind.value != "float":
        raise LaunchError(f"oob_fill='nan' needs a floating-point type, not {ty.value}")
    byte_strides = tuple(int(s) for s in array.strides)
    for s in byte_strides[:-1]:
        if s % 16:
            raise LaunchError(
                f"TMA needs every stride but the innermost to be a multiple of 16 bytes;"
                f" the array's strides are {byte_strides}"
            )
    if array.ctypes.data % 16:
        raise LaunchError("TMA needs the array's data to be 16-byte aligned")
    return TensorMap(
        array,
        ty,
        tuple(int(d) for d in array.shape),
        byte_strides,
        box_t,
        swizzle,
        strides_e,
        oob_fill,
    )


def _element_type(array: np.ndarray, dtype: str | None) -> PtxType:
    if dtype is not None:
        ty = _NAMED.get(dtype) or PtxType.from_name(dtype)
        if ty is None:
            raise LaunchError(f"unknown tensor-map element type {dtype!r}")
        return ty
    ty = _DTYPES.get(array.dtype.name)
    if ty is None:
        raise LaunchError(
            f"cannot tell the element type of a {array.dtype} array; pass dtype='bf16' (etc.)"
        )
    return ty


def encode_tag(index: int) -> bytes:
    """The 128 bytes standing for map number ``index`` in emulated memory."""
    return struct.pack("<QQ", _MAGIC, index) + bytes(TENSOR_MAP_BYTES - 16)


def decode_tag(head: bytes | np.ndarray) -> int | None:
    """The map number in the first 16 bytes of a tensor map, or ``None`` if they are not one."""
    raw = bytes(np.asarray(head, dtype=np.uint8)[:16])
    magic, index = struct.unpack("<QQ", raw)
    return int(index) if magic == _MAGIC else None
