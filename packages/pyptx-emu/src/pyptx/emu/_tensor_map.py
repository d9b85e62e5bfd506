"""TMA tensor maps: what ``cuTensorMapEncodeTiled`` describes, for the emulator.

A :class:`TensorMap` describes a tiled view of a numpy array: its element type, the box one
``cp.async.bulk.tensor`` moves, the shared-memory swizzle, element strides and how
out-of-bounds elements are filled. Shapes and boxes are given in numpy order (outermost
dimension first, as ``Tile.tma_box``); PTX coordinates (``{c0, c1, ...}``) are innermost
first, so ``c0`` indexes the array's last axis.

In memory (a kernel parameter or a global buffer), a map occupies 128 bytes like a real
``CUtensorMap``. The real encoding is opaque, so the emulator writes a tag and the map's
number instead; a map copied through memory by the kernel (to shared memory for
``tensormap.replace``, say) stays recognizable wherever it is read from. A map the kernel
edits with ``tensormap.replace`` is written back *inline*: a second tag followed by every
field of its :class:`Descriptor`, so it lives in memory like a real one, in any wave.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from pyptx.ir import PtxType

from ._errors import LaunchError

__all__ = [
    "ELEMTYPES",
    "TENSOR_MAP_BYTES",
    "Descriptor",
    "TensorMap",
    "decode",
    "decode_tag",
    "encode_inline",
    "encode_tag",
    "tensor_map",
]

TENSOR_MAP_BYTES = 128
"""The size of a ``CUtensorMap``."""

_MAGIC = 0x5450_4D41_5045_4D55  # "UMEPAMPT"
"""The first 8 bytes of an emulated tensor map (little endian)."""

_INLINE_MAGIC = 0x5450_4D41_5045_4D56  # "VMEPAMPT"
"""The first 8 bytes of a tensor map whose fields are stored inline (after a replace)."""

_INLINE = struct.Struct("<QQQ5Q4Q5H5B7B")
"""Inline layout: magic, reserved, global address, dims, strides of dims 1-4, box, element
strides, then rank, element type code, swizzle code, swizzle atomicity code, interleave
code, fill mode, and a reserved byte (118 bytes of the 128)."""

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

    def descriptor(self, address: int) -> Descriptor:
        """The map as the hardware sees it, its array living at global ``address``."""
        rank = self.rank
        pad = 5 - rank
        return Descriptor(
            address=address,
            rank=rank,
            dtype=self.dtype,
            dims=tuple(reversed(self.shape)) + (1,) * pad,
            strides=tuple(reversed(self.strides)) + (0,) * pad,
            box=tuple(reversed(self.box)) + (1,) * pad,
            elem_strides=tuple(reversed(self.elem_strides)) + (1,) * pad,
            swizzle=self.swizzle,
            oob_nan=self.oob_fill == "nan",
        )


@dataclass(frozen=True)
class Descriptor:
    """A tiled tensor map in the hardware's terms: dimensions innermost first.

    Attributes:
        address: the global address of element ``(0, ..., 0)``.
        rank: dimensions in use (1 to 5); the tuples below always have 5 entries.
        dtype: the element type.
        dims: elements per dimension.
        strides: byte stride per dimension (entry 0 is the element size).
        box: the box (elements per dimension, before element strides).
        elem_strides: traversal stride per dimension (dimension 0's is ignored, as the
            driver does without interleave).
        swizzle: the swizzle span in bytes (32, 64, 96, 128) or ``None``.
        atomicity: the 128-byte swizzle's atomicity in bytes (16, 32, 64; ``-32`` for
            32 bytes with 8-byte flip).
        interleave: 0 (none), 16 or 32 bytes.
        oob_nan: out-of-bounds elements read as NaN (else zero).
        ftz: the ``.f32.ftz``/``.tf32.ftz`` element types (reductions flush subnormals).
    """

    address: int
    rank: int
    dtype: PtxType
    dims: tuple[int, ...]
    strides: tuple[int, ...]
    box: tuple[int, ...]
    elem_strides: tuple[int, ...]
    swizzle: int | None = None
    atomicity: int = 16
    interleave: int = 0
    oob_nan: bool = False
    ftz: bool = False

    @property
    def element_bytes(self) -> int:
        """Bytes per element."""
        return max(1, self.dtype.bits // 8)

    @property
    def extents(self) -> tuple[int, ...]:
        """Elements the box holds per dimension in shared memory (innermost first)."""
        out = [self.box[0]]
        for d in range(1, 5):
            out.append(-(-self.box[d] // self.elem_strides[d]))
        return tuple(out)

    @property
    def box_bytes(self) -> int:
        """Bytes one box occupies in shared memory (what a load's complete-tx counts)."""
        n = self.element_bytes
        for e in self.extents[: self.rank]:
            n *= e
        return n

    def with_field(self, field: str, value: int, ordinal: int | None = None) -> Descriptor:
        """A copy with one field replaced the way ``tensormap.replace`` does.

        Args:
            field: the ``tensormap.replace`` field name (``global_address``, ``box_dim``...).
            value: the new value (``new_val``).
            ordinal: the dimension for per-dimension fields (``ord``, innermost first; for
                ``global_stride``, 0 is dimension 1).

        Raises:
            ValueError: a value the instruction does not define (the message says which).
        """

        def at(t: tuple[int, ...], i: int, v: int) -> tuple[int, ...]:
            if ordinal is None or not 0 <= i < 5:
                raise ValueError(f"ord {ordinal} is out of range for .{field}")
            return (*t[:i], v, *t[i + 1 :])

        i = ordinal if ordinal is not None else -1
        if field == "global_address":
            return replace(self, address=value)
        if field == "rank":
            return replace(self, rank=value + 1)
        if field == "box_dim":
            return replace(self, box=at(self.box, i, value))
        if field == "global_dim":
            return replace(self, dims=at(self.dims, i, value))
        if field == "global_stride":
            return replace(self, strides=at(self.strides, i + 1, value))
        if field == "element_stride":
            return replace(self, elem_strides=at(self.elem_strides, i, value))
        if field == "elemtype":
            if value not in ELEMTYPES:
                raise ValueError(f"elemtype {value} is not one the emulator supports")
            ty, ftz = ELEMTYPES[value]
            elem = max(1, ty.bits // 8)
            return replace(self, dtype=ty, ftz=ftz, strides=(elem, *self.strides[1:]))
        table = _FIELD3.get(field)
        if table is None or value not in table:
            raise ValueError(f".{field} has no value {value}")
        return replace(self, **{_FIELD3_ATTR[field]: table[value]})

    def problem(self, dim: int) -> str | None:
        """Why a tile-mode copy of ``dim`` dimensions cannot use this map, if it cannot."""
        rank = self.rank
        if rank != dim:
            return f"the instruction is .{dim}d but the tensor map has rank {rank}"
        if not 1 <= rank <= 5:
            return f"the tensor map's rank {rank} is not 1 to 5"
        if self.address % 16:
            return f"the tensor's global address {self.address:#x} is not 16-byte aligned"
        for d in range(rank):
            if not 1 <= self.box[d] <= 256:
                return f"box dimension {d} is {self.box[d]}; it must be 1 to 256"
            if not 1 <= self.elem_strides[d] <= 8:
                return f"element stride {d} is {self.elem_strides[d]}; it must be 1 to 8"
            if self.dims[d] < 1:
                return f"global dimension {d} is {self.dims[d]}; it must be at least 1"
            if d and self.strides[d] % 16:
                return f"global stride {d} is {self.strides[d]} bytes; TMA needs multiples of 16"
        inner = self.box[0] * self.element_bytes
        if inner % 16:
            return f"the innermost box side is {inner} bytes; TMA needs a multiple of 16"
        if self.swizzle is not None and inner > self.swizzle:
            return f"the innermost box side ({inner} bytes) exceeds the {self.swizzle}-byte swizzle"
        if self.oob_nan and self.dtype.kind.value != "float":
            return f"NaN fill needs a floating-point element type, not .{self.dtype.value}"
        return None


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
    if strides_e[-1] != 1:
        raise LaunchError(
            f"the innermost element stride must be 1 (TMA has no stride along the contiguous"
            f" dimension and the driver ignores it), got elem_strides={strides_e}"
        )
    if oob_fill not in ("zero", "nan"):
        raise LaunchError(f"oob_fill must be 'zero' or 'nan', got {oob_fill!r}")
    if oob_fill == "nan" and ty not in _NAN_FILL:
        raise LaunchError(
            f"oob_fill='nan' needs an f16, bf16, tf32, f32 or f64 tensor, not {ty.value}"
        )
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
    raw = bytes(head[:16]) if isinstance(head, bytes) else bytes(np.asarray(head, np.uint8)[:16])
    magic, index = struct.unpack("<QQ", raw)
    return int(index) if magic == _MAGIC else None


_NAN_FILL = frozenset({PtxType.F16, PtxType.BF16, PtxType.TF32, PtxType.F32, PtxType.F64})

ELEMTYPES: dict[int, tuple[PtxType, bool]] = {
    0: (PtxType.U8, False),
    1: (PtxType.U16, False),
    2: (PtxType.U32, False),
    3: (PtxType.S32, False),
    4: (PtxType.U64, False),
    5: (PtxType.S64, False),
    6: (PtxType.F16, False),
    7: (PtxType.F32, False),
    8: (PtxType.F32, True),
    9: (PtxType.F64, False),
    10: (PtxType.BF16, False),
    11: (PtxType.TF32, False),
    12: (PtxType.TF32, True),
}
"""``tensormap.replace.elemtype`` values (PTX ISA table "Tensormap new_val validity") and
the element type and flush-to-zero flag each selects. 13-15 (sub-byte types) are not
emulated."""

_EXTRA_TYPES: dict[int, PtxType] = {
    32: PtxType.S8,
    33: PtxType.S16,
    34: PtxType.E4M3,
    35: PtxType.E5M2,
}
"""Codes for element types ``tensor_map`` accepts beyond the ISA's (stored inline only)."""

_FIELD3: dict[str, dict[int, Any]] = {
    "swizzle_mode": {0: None, 1: 32, 2: 64, 3: 128, 4: 96},
    "swizzle_atomicity": {0: 16, 1: 32, 2: -32, 3: 64},
    "interleave_layout": {0: 0, 1: 16, 2: 32},
    "fill_mode": {0: False, 1: True},
}
_FIELD3_ATTR = {
    "swizzle_mode": "swizzle",
    "swizzle_atomicity": "atomicity",
    "interleave_layout": "interleave",
    "fill_mode": "oob_nan",
}


def _code(table: dict[int, Any], value: Any) -> int:
    for k, v in table.items():
        if v == value:
            return k
    raise ValueError(f"no code for {value!r}")


def _type_code(ty: PtxType, ftz: bool) -> int:
    for k, v in ELEMTYPES.items():
        if v == (ty, ftz):
            return k
    for k, t in _EXTRA_TYPES.items():
        if t is ty:
            return k
    raise ValueError(f"no element type code for {ty.value}")


def encode_inline(desc: Descriptor) -> bytes:
    """The 128 bytes of a tensor map that carries every field of ``desc`` itself."""
    raw = _INLINE.pack(
        _INLINE_MAGIC,
        0,
        desc.address & 0xFFFF_FFFF_FFFF_FFFF,
        *(d & 0xFFFF_FFFF_FFFF_FFFF for d in desc.dims),
        *(s & 0xFFFF_FFFF_FFFF_FFFF for s in desc.strides[1:]),
        *(b & 0xFFFF for b in desc.box),
        *(e & 0xFF for e in desc.elem_strides),
        desc.rank & 0xFF,
        _type_code(desc.dtype, desc.ftz),
        _code(_FIELD3["swizzle_mode"], desc.swizzle),
        _code(_FIELD3["swizzle_atomicity"], desc.atomicity),
        _code(_FIELD3["interleave_layout"], desc.interleave),
        int(desc.oob_nan),
        0,
    )
    return raw + bytes(TENSOR_MAP_BYTES - len(raw))


def decode(raw: bytes | np.ndarray) -> int | Descriptor | None:
    """What 128 bytes of memory hold: a launch map's number, an inline map, or neither."""
    data = raw if isinstance(raw, bytes) else bytes(np.asarray(raw, dtype=np.uint8))
    data = data[:TENSOR_MAP_BYTES]
    index = decode_tag(data[:16])
    if index is not None:
        return index
    magic = struct.unpack_from("<Q", data)[0]
    if magic != _INLINE_MAGIC or len(data) < _INLINE.size:
        return None
    f = _INLINE.unpack_from(data)
    dims, strides, box, es = f[3:8], f[8:12], f[12:17], f[17:22]
    rank, tcode, sw, at, il, nan, _ = f[22:29]
    ty = ELEMTYPES[tcode][0] if tcode in ELEMTYPES else _EXTRA_TYPES.get(tcode)
    if ty is None:
        return None
    elem = max(1, ty.bits // 8)
    return Descriptor(
        address=f[2],
        rank=rank,
        dtype=ty,
        dims=tuple(dims),
        strides=(elem, *strides),
        box=tuple(box),
        elem_strides=tuple(es),
        swizzle=_FIELD3["swizzle_mode"].get(sw),
        atomicity=_FIELD3["swizzle_atomicity"].get(at, 16),
        interleave=_FIELD3["interleave_layout"].get(il, 0),
        oob_nan=bool(nan),
        ftz=ELEMTYPES.get(tcode, (ty, False))[1],
    )
