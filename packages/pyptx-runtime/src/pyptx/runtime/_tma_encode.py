"""Encoding TMA tensor maps with the driver, from the specs of :mod:`._tma`.

``cuTensorMapEncodeTiled`` / ``cuTensorMapEncodeIm2col`` turn a checked
:class:`~._tma.TensorMapSpec` (or :class:`~._tma.Im2colSpec`) and a global address into the
128 bytes a kernel receives by value. Everything here needs the CUDA driver
(:class:`GpuUnavailable` without one); the specs themselves do not.
"""

from __future__ import annotations

import contextlib
import functools
import struct
import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from pyptx.ir import PtxType

from ._driver import check, driver
from ._errors import ArgumentError, RuntimeLaunchError
from ._tma import (
    L2_PROMOTIONS,
    SWIZZLES,
    Im2colSpec,
    TensorMapSpec,
    hopper_3d_spec,
    plain_spec,
)

__all__ = [
    "TEMPLATE_ADDRESS",
    "TensorMapCache",
    "encode_tensor_map",
    "encode_tensor_map_im2col",
    "tensor_map_2d",
    "tensor_map_3d",
    "tensor_map_template",
]

TEMPLATE_ADDRESS = 1 << 12
"""The placeholder global address of a template (any 32-byte aligned, non-null value)."""


def _check_address(address: int, alignment: int) -> None:
    if not isinstance(address, int) or address <= 0 or address % alignment:
        raise ArgumentError(
            f"a TMA global address must be a non-null multiple of {alignment} bytes, "
            f"got {address!r}"
        )


def _to_bytes(tensor_map: Any) -> bytes:
    return struct.pack("<16Q", *(int(word) for word in tensor_map.opaque))


def _encode(spec: TensorMapSpec | Im2colSpec, address: int) -> bytes:
    _check_address(address, spec.address_alignment)
    cu = driver()
    # cuda.bindings converts no plain int to its cuuint32_t / cuuint64_t: wrap each one.
    u32, u64 = cu.cuuint32_t, cu.cuuint64_t
    common = (
        cu.CUtensorMapDataType(int(spec.dtype)),
        u32(spec.rank),
        address,
        [u64(d) for d in spec.global_dims],
        [u64(s) for s in spec.global_strides],
    )
    tail = (
        [u32(s) for s in spec.element_strides or (1,) * spec.rank],
        cu.CUtensorMapInterleave(int(spec.interleave)),
        cu.CUtensorMapSwizzle(SWIZZLES.index(spec.swizzle)),
        cu.CUtensorMapL2promotion(L2_PROMOTIONS.index(spec.l2_promotion)),
        cu.CUtensorMapFloatOOBfill(int(spec.oob_fill)),
    )
    try:
        with _some_context(cu):
            return _to_bytes(_encode_call(cu, spec, common, tail))
    except RuntimeLaunchError as exc:
        raise RuntimeLaunchError(f"{exc} (spec {spec}, address {address:#x})") from exc


@contextlib.contextmanager
def _some_context(cu: Any) -> Iterator[None]:
    """Makes a context current while encoding: the driver refuses without one.

    Encoding is host-only, so any context serves: the current one, else device 0's primary
    context (retained once per process, as PyTorch and XLA retain it).
    """
    current = check(cu.cuCtxGetCurrent(), "cuCtxGetCurrent")
    if current is not None and int(current) != 0:
        yield
        return
    check(cu.cuCtxPushCurrent(_primary_context(cu)), "cuCtxPushCurrent")
    try:
        yield
    finally:
        cu.cuCtxPopCurrent()


@functools.cache
def _primary_context(cu: Any) -> Any:
    device = check(cu.cuDeviceGet(0), "cuDeviceGet")
    return check(cu.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")


def _encode_call(
    cu: Any, spec: TensorMapSpec | Im2colSpec, common: tuple[Any, ...], tail: tuple[Any, ...]
) -> Any:
    if isinstance(spec, Im2colSpec):
        return check(
            cu.cuTensorMapEncodeIm2col(
                *common,
                list(spec.lower_corner),
                list(spec.upper_corner),
                cu.cuuint32_t(spec.channels_per_pixel),
                cu.cuuint32_t(spec.pixels_per_column),
                *tail,
            ),
            "cuTensorMapEncodeIm2col",
        )
    return check(
        cu.cuTensorMapEncodeTiled(*common, [cu.cuuint32_t(b) for b in spec.box_dims], *tail),
        "cuTensorMapEncodeTiled",
    )


def encode_tensor_map(spec: TensorMapSpec, address: int) -> bytes:
    """Encodes ``spec`` at ``address`` with ``cuTensorMapEncodeTiled``.

    Args:
        spec: the descriptor.
        address: the tensor's device address (16-byte aligned; 32 with 32-byte interleave).

    Returns:
        The 128-byte ``CUtensorMap``, ready to pass by value as a kernel parameter.

    Raises:
        GpuUnavailable: no driver (or cuda-python).
        ArgumentError: the address is null or misaligned.
        RuntimeLaunchError: the driver rejected the descriptor.
    """
    return _encode(spec, address)


def encode_tensor_map_im2col(spec: Im2colSpec, address: int) -> bytes:
    """Encodes ``spec`` at ``address`` with ``cuTensorMapEncodeIm2col``.

    Returns:
        The 128-byte ``CUtensorMap``.

    Raises:
        GpuUnavailable: no driver (or cuda-python).
        ArgumentError: the address is null or misaligned.
        RuntimeLaunchError: the driver rejected the descriptor.
    """
    return _encode(spec, address)


def tensor_map_template(spec: TensorMapSpec) -> bytes:
    """``spec`` encoded at a placeholder address, for :meth:`ParamSlot.tensor_map`.

    The shim replaces the address with the launch's buffer (``cuTensorMapReplaceAddress``).

    Raises:
        GpuUnavailable: no driver (or cuda-python).
    """
    return encode_tensor_map(spec, TEMPLATE_ADDRESS)


def tensor_map_2d(
    address: int,
    shape: tuple[int, int],
    dtype: PtxType,
    box: tuple[int, int] | None = None,
    *,
    swizzle: int = 0,
) -> bytes:
    """The plain descriptor of a row-major ``(rows, cols)`` matrix at ``address``.

    Args:
        address: the matrix's device address.
        shape: ``(rows, cols)``.
        dtype: the element type.
        box: ``(box_rows, box_cols)``; defaults to the whole matrix.
        swizzle: the swizzle span in bytes.

    Returns:
        The 128-byte ``CUtensorMap``.

    Raises:
        ArgumentError: a driver requirement is broken (checked before the driver is called).
        GpuUnavailable: no driver.
    """
    if len(shape) != 2:
        raise ArgumentError(f"tensor_map_2d takes a (rows, cols) shape, got {shape}")
    return encode_tensor_map(plain_spec(shape, dtype, box, swizzle=swizzle), address)


def tensor_map_3d(
    address: int,
    height: int,
    width: int,
    dtype: PtxType,
    box_major: int,
    box_minor: int,
    *,
    swizzle: int = 128,
    padding: bool = False,
) -> bytes:
    """The reshaped rank-3 (Hopper GEMM) descriptor of a row-major matrix at ``address``.

    See :func:`hopper_3d_spec` for the layout.

    Returns:
        The 128-byte ``CUtensorMap``.

    Raises:
        ArgumentError: a driver requirement is broken (checked before the driver is called).
        GpuUnavailable: no driver.
    """
    spec = hopper_3d_spec(
        height, width, dtype, box_major, box_minor, swizzle=swizzle, padding=padding
    )
    return encode_tensor_map(spec, address)


class TensorMapCache:
    """Encoded tensor maps keyed by (address, spec); least recently used evicted first.

    Thread-safe. An entry is plain bytes: dropping it (eviction, :meth:`clear`, the cache
    going away) releases it; there is nothing on the device.

    Args:
        maxsize: how many tensor maps to keep.
    """

    def __init__(self, maxsize: int = 1024) -> None:
        if maxsize < 1:
            raise ArgumentError(f"TensorMapCache needs maxsize >= 1, got {maxsize}")
        self.maxsize = maxsize
        self._entries: OrderedDict[tuple[int, TensorMapSpec | Im2colSpec], bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, spec: TensorMapSpec | Im2colSpec, address: int) -> bytes:
        """The tensor map of ``spec`` at ``address``, encoded on a miss.

        Raises:
            GpuUnavailable: a miss without a driver.
            ArgumentError: the address is null or misaligned.
            RuntimeLaunchError: the driver rejected the descriptor.
        """
        key = (address, spec)
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
                return hit
        if isinstance(spec, Im2colSpec):
            encoded = encode_tensor_map_im2col(spec, address)
        else:
            encoded = encode_tensor_map(spec, address)
        with self._lock:
            self._entries[key] = encoded
            self._entries.move_to_end(key)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)
        return encoded

    def clear(self) -> None:
        """Drops every entry."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries
