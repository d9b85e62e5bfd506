"""The C++ launch shim: build it, load it, and call it.

The shim (``shim/pyptx_shim.cc``) is one small shared library holding a process-wide table of
registered kernels and one launch core, ``cuLaunchKernelEx`` with cluster dimensions, dynamic
shared memory and the max-dynamic-smem function attribute. PyTorch reaches it through ctypes
(:meth:`Shim.launch`); JAX reaches it through the typed XLA FFI handler ``PyptxXlaLaunch``
compiled into the same library, so both front-ends share one registry.

Building (:mod:`._shim_build`): compiled with the platform C++ compiler against the CUDA
headers of the ``nvidia-cuda-runtime`` wheel, byte-reproducibly, into the cache. The shim never
links libcuda: it ``dlopen``s ``libcuda.so.1`` on the first launch, so building needs no driver
and no GPU; the environment variable ``PYPTX_LIBCUDA``, read at that first launch, names a
specific driver library instead (e.g. a non-default install, or a test stand-in).

Loading. :func:`load_shim` builds on first use, ``dlopen``s the library once per process and
checks ``pyptx_shim_abi_version()`` against :data:`SHIM_ABI_VERSION`.

Importing this module loads nothing and imports neither jax, torch nor the CUDA bindings.
"""

from __future__ import annotations

import ctypes
import enum
import os
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _shim_build
from ._errors import ArgumentError, GpuUnavailable, RuntimeLaunchError, ShimError
from ._shim_build import SHIM_ABI_VERSION, build_shim, cuda_include_dir

__all__ = [
    "FFI_TARGET_NAME",
    "SHIM_ABI_VERSION",
    "FfiTargetStatus",
    "ParamKind",
    "ParamSlot",
    "Shim",
    "build_shim",
    "cuda_include_dir",
    "load_shim",
    "shim_available",
    "shim_load_error",
    "xla_attributes",
]


FFI_TARGET_NAME = "pyptx_launch"
"""The XLA custom-call target that launches pyptx kernels (platform ``CUDA``, typed FFI)."""

_ERR_CAPACITY = 1024


class ParamKind(enum.IntEnum):
    """How the shim fills one kernel parameter at launch (``PyptxParam.kind``)."""

    POINTER = 0
    """An 8-byte device pointer: ``buffers[index]``."""
    SCALAR = 1
    """``size`` bytes copied from the packed scalar bytes at offset ``index``."""
    TENSOR_MAP = 2
    """A 128-byte ``CUtensorMap``: ``template`` with its global address set to
    ``buffers[index]`` (``cuTensorMapReplaceAddress``)."""


@dataclass(frozen=True, slots=True)
class ParamSlot:
    """One kernel parameter, in the kernel's declaration order.

    Attributes:
        kind: how the value is produced at launch.
        size: the parameter's size in bytes (8 for a pointer, 128 for a tensor map).
        align: its alignment in bytes, a power of two (8 for a pointer, 64 for a tensor map).
        index: the buffer index (pointer, tensor map) or the byte offset into the packed
            scalars (scalar).
        template: the encoded tensor map (128 bytes, any address) for ``TENSOR_MAP``.

    Raises:
        ArgumentError: the fields do not describe a valid parameter of their kind.
    """

    kind: ParamKind
    size: int
    align: int
    index: int
    template: bytes | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, ParamKind):
            raise ArgumentError(f"ParamSlot.kind must be a ParamKind, got {self.kind!r}")
        if self.index < 0 or self.index >= 1 << 32:
            raise ArgumentError(f"ParamSlot.index must be in [0, 2**32), got {self.index}")
        if self.kind is ParamKind.POINTER and (self.size, self.align) != (8, 8):
            raise ArgumentError(
                f"a pointer parameter has size 8 and alignment 8, got {self.size} and {self.align}"
            )
        if self.kind is ParamKind.SCALAR:
            if not 0 < self.size < 1 << 16:
                raise ArgumentError(
                    f"a scalar parameter needs a size in [1, 65536), got {self.size}"
                )
            if self.align <= 0 or self.align & (self.align - 1) or self.align > 64:
                raise ArgumentError(
                    f"a scalar parameter needs a power-of-two alignment <= 64, got {self.align}"
                )
        if self.kind is ParamKind.TENSOR_MAP:
            if (self.size, self.align) != (128, 64):
                raise ArgumentError(
                    "a tensor-map parameter has size 128 and alignment 64, "
                    f"got {self.size} and {self.align}"
                )
            if self.template is None or len(self.template) != 128:
                got = "none" if self.template is None else f"{len(self.template)} bytes"
                raise ArgumentError(f"a tensor-map parameter needs a 128-byte template, got {got}")
        elif self.template is not None:
            raise ArgumentError(f"only tensor-map parameters take a template, not {self.kind.name}")

    @classmethod
    def pointer(cls, index: int) -> ParamSlot:
        """A device-pointer parameter taking ``buffers[index]``."""
        return cls(ParamKind.POINTER, 8, 8, index)

    @classmethod
    def scalar(cls, offset: int, size: int, align: int | None = None) -> ParamSlot:
        """A scalar parameter of ``size`` bytes at ``offset`` in the packed scalars.

        Args:
            offset: byte offset into the packed scalar bytes passed to each launch.
            size: the parameter's size in bytes.
            align: its alignment; defaults to ``size`` (natural alignment).
        """
        return cls(ParamKind.SCALAR, size, size if align is None else align, offset)

    @classmethod
    def tensor_map(cls, index: int, template: bytes) -> ParamSlot:
        """A ``CUtensorMap`` parameter: ``template`` re-pointed at ``buffers[index]``."""
        return cls(ParamKind.TENSOR_MAP, 128, 64, index, bytes(template))


class _CParam(ctypes.Structure):
    """``PyptxParam`` of the C ABI."""

    _fields_ = (
        ("kind", ctypes.c_uint32),
        ("size", ctypes.c_uint32),
        ("align", ctypes.c_uint32),
        ("index", ctypes.c_uint32),
        ("tmap_template", ctypes.c_char_p),
    )


_Dims = ctypes.c_uint32 * 3
# Shim status code -> the error it raises (PyptxStatus in pyptx_shim.cc).
_STATUS_ERRORS: dict[int, type[RuntimeLaunchError]] = {
    1: ArgumentError,
    2: GpuUnavailable,
    3: RuntimeLaunchError,
    4: ShimError,
}
_U64_PACKERS = tuple(struct.Struct(f"<{n}Q").pack for n in range(33))


def _is_u32(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 32


@dataclass(frozen=True, slots=True)
class FfiTargetStatus:
    """Whether :meth:`Shim.register_ffi_target` registered the XLA target; truthy when it did.

    Attributes:
        registered: the ``pyptx_launch`` target is registered for platform ``CUDA``.
        reason: why it is not, when it is not.
    """

    registered: bool
    reason: str | None = None

    def __bool__(self) -> bool:
        return self.registered


class Shim:
    """A loaded launch shim (one ``dlopen`` of ``libpyptx_shim.so``).

    Most code uses the process-wide instance from :func:`load_shim`; constructing one directly
    loads the library at ``path`` (each distinct file has its own kernel registry).

    Args:
        path: the shared library.
        xla_error: why the library was built without the XLA handler, if it was.

    Attributes:
        path: the shared library.
        has_xla: whether the XLA FFI handler ``PyptxXlaLaunch`` is compiled in.
        xla_error: why it is not, when it is not.
        library: the ``ctypes.CDLL`` (for tests and diagnostics).

    Raises:
        ShimError: the file cannot be loaded, is not a pyptx shim, or speaks another ABI.
    """

    def __init__(self, path: Path, *, xla_error: str | None = None) -> None:
        self.path = Path(path)
        try:
            lib = ctypes.CDLL(str(self.path), mode=os.RTLD_NOW | os.RTLD_LOCAL)
        except OSError as exc:
            raise ShimError(
                f"cannot load the pyptx launch shim {self.path}: {exc}; delete "
                f"{self.path.parent} so that it is rebuilt"
            ) from exc
        try:
            abi = lib.pyptx_shim_abi_version
        except AttributeError as exc:
            raise ShimError(
                f"{self.path} is not a pyptx launch shim (it has no pyptx_shim_abi_version)"
            ) from exc
        abi.argtypes = ()
        abi.restype = ctypes.c_int
        version = int(abi())
        if version != SHIM_ABI_VERSION:
            raise ShimError(
                f"the pyptx launch shim {self.path} has ABI version {version}, but this "
                f"pyptx.runtime needs ABI version {SHIM_ABI_VERSION}; delete {self.path.parent} "
                "so that it is rebuilt"
            )
        c_u32, c_u64, c_size = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_size_t
        self._register = lib.pyptx_register
        self._register.argtypes = (
            c_u64, ctypes.c_char_p, ctypes.c_char_p, c_size, _Dims, _Dims, _Dims, c_u32,
            ctypes.POINTER(_CParam), c_u32, ctypes.c_char_p, c_size,
        )  # fmt: skip
        self._register.restype = ctypes.c_int
        self._launch = lib.pyptx_launch
        # Buffers travel as packed little-endian uint64 bytes: one struct.pack per launch.
        self._launch.argtypes = (
            c_u64, ctypes.c_void_p, ctypes.c_char_p, c_u32, ctypes.c_char_p, c_u32,
            ctypes.c_int, ctypes.c_char_p, c_size,
        )  # fmt: skip
        self._launch.restype = ctypes.c_int
        self._unregister = lib.pyptx_unregister
        self._unregister.argtypes = (c_u64,)
        self._unregister.restype = ctypes.c_int
        self._query = lib.pyptx_query
        self._query.argtypes = (c_u64, ctypes.POINTER(c_u32), ctypes.POINTER(c_u32))
        self._query.restype = ctypes.c_int
        self.library = lib
        self.has_xla = hasattr(lib, "PyptxXlaLaunch")
        self.xla_error = None if self.has_xla else (xla_error or "built without XLA headers")
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"Shim({str(self.path)!r}, has_xla={self.has_xla})"

    def _err(self) -> ctypes.Array[ctypes.c_char]:
        buf: ctypes.Array[ctypes.c_char] | None = getattr(self._local, "err", None)
        if buf is None:
            buf = ctypes.create_string_buffer(_ERR_CAPACITY)
            self._local.err = buf
        return buf

    @staticmethod
    def _raise(status: int, err: ctypes.Array[ctypes.c_char]) -> None:
        message = err.value.decode("utf-8", "replace") or f"pyptx shim status {status}"
        raise _STATUS_ERRORS.get(status, ShimError)(message)

    def register(
        self,
        handle: int,
        name: str,
        cubin: bytes,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        cluster: tuple[int, int, int],
        smem: int,
        slots: Sequence[ParamSlot],
    ) -> None:
        """Registers a kernel under ``handle``; needs no driver.

        The shim copies everything. Registering the same handle again with the identical
        kernel is a no-op; with a different one it is an error.

        Args:
            handle: the kernel's 64-bit handle.
            name: the ``.entry`` name in the image.
            cubin: the cubin (or PTX text; a NUL is appended) loaded by ``cuModuleLoadData``.
            grid: blocks per grid, a multiple of ``cluster``.
            block: threads per block.
            cluster: blocks per cluster; ``(1, 1, 1)`` launches without clusters.
            smem: dynamic shared memory bytes; above 48 KiB the function attribute
                ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`` is raised to it.
            slots: the kernel's parameters in declaration order.

        Raises:
            ArgumentError: a bad configuration, or the handle holds another kernel.
        """
        params = (_CParam * max(len(slots), 1))()
        for i, slot in enumerate(slots):
            params[i] = _CParam(slot.kind, slot.size, slot.align, slot.index, slot.template)
        triples = (grid, block, cluster)
        if not all(len(d) == 3 and all(_is_u32(v) for v in d) for d in triples):
            raise ArgumentError(
                "grid, block and cluster must be 3 ints in [0, 2**32) each, "
                f"got {grid}, {block}, {cluster}"
            )
        dims = [_Dims(*d) for d in triples]
        err = self._err()
        status = self._register(
            handle, name.encode(), cubin, len(cubin), *dims, smem, params, len(slots),
            err, _ERR_CAPACITY,
        )  # fmt: skip
        if status:
            self._raise(status, err)

    def launch(
        self, handle: int, stream: int, buffers: Sequence[int], scalars: bytes, device: int
    ) -> None:
        """Launches the kernel registered under ``handle``.

        Args:
            handle: the kernel's handle.
            stream: the ``CUstream`` as an int; 0 is the legacy default stream.
            buffers: device addresses, indexed by pointer and tensor-map parameters.
            scalars: the packed scalar bytes, indexed by scalar parameters.
            device: the CUDA device ordinal; it picks the context when the stream does not
                (stream 0 with no current context on that device uses its primary context).

        Raises:
            ArgumentError: the handle is unknown or an index is out of range.
            GpuUnavailable: no usable driver or GPU (the message says which).
            RuntimeLaunchError: a driver call failed (the message names it and the error).
        """
        n = len(buffers)
        try:
            packed = _U64_PACKERS[n](*buffers) if n < 33 else struct.pack(f"<{n}Q", *buffers)
        except struct.error as exc:
            raise ArgumentError(f"buffers must be device addresses (ints), got {buffers}") from exc
        err = self._err()
        status = self._launch(
            handle, stream, packed, n, scalars, len(scalars), device, err, _ERR_CAPACITY
        )
        if status:
            self._raise(status, err)

    def unregister(self, handle: int) -> bool:
        """Forgets ``handle`` and unloads its modules from every context that loaded one.

        Returns:
            Whether ``handle`` was registered.
        """
        return int(self._unregister(handle)) == 0

    def is_registered(self, handle: int) -> bool:
        """Whether a kernel is registered under ``handle``."""
        return int(self._query(handle, None, None)) == 0

    def module_count(self, handle: int) -> int:
        """In how many CUDA contexts ``handle``'s module is loaded (0 when not registered)."""
        count = ctypes.c_uint32(0)
        if self._query(handle, None, ctypes.byref(count)) != 0:
            return 0
        return int(count.value)

    def xla_handler(self) -> Any:
        """The ``PyptxXlaLaunch`` handler as a PyCapsule for ``jax.ffi.register_ffi_target``.

        Raises:
            ShimError: the shim was built without the XLA handler.
        """
        if not self.has_xla:
            raise ShimError(f"the pyptx launch shim has no XLA handler: {self.xla_error}")
        import jax.ffi

        return jax.ffi.pycapsule(self.library.PyptxXlaLaunch)

    def register_ffi_target(self) -> FfiTargetStatus:
        """Registers ``pyptx_launch`` (platform ``CUDA``, typed FFI) with JAX, once per process.

        On a jaxlib without CUDA the registration is queued by jax and applies if a CUDA
        plugin loads later.

        Returns:
            Truthy when the target is registered (now or earlier by this shim); otherwise
            falsy with the reason: jax missing, no XLA handler, or another shim library
            already owns the target name.
        """
        if not self.has_xla:
            return FfiTargetStatus(False, f"the shim has no XLA handler: {self.xla_error}")
        try:
            import jax.ffi
        except ImportError as exc:
            return FfiTargetStatus(False, f"jax is not installed ({exc})")
        with _PROCESS.lock:
            owner = _PROCESS.ffi_owner
            if owner is not None:
                if owner == self.path:
                    return FfiTargetStatus(True)
                return FfiTargetStatus(
                    False, f"{FFI_TARGET_NAME!r} is already registered by the shim {owner}"
                )
            jax.ffi.register_ffi_target(
                FFI_TARGET_NAME, self.xla_handler(), platform="CUDA", api_version=1
            )
            _PROCESS.ffi_owner = self.path
        return FfiTargetStatus(True)


def xla_attributes(handle: int, scalars: bytes) -> dict[str, Any]:
    """The attributes of a ``pyptx_launch`` custom call, for ``jax.ffi.ffi_call(...)(**attrs)``.

    ``handle`` travels as a ``numpy.int64`` scalar holding the handle's two's-complement bits
    (an XLA ``s64`` attribute: MLIR cannot build a ``u64`` attribute at or above 2**63) and
    ``scalars`` as a ``numpy.uint8`` vector (a dense ``u8`` array attribute, empty when the
    kernel has no scalar parameters). The handler binds them as ``Attr<int64_t>("handle")``
    and ``Attr<Span<const uint8_t>>("scalars")``.

    Args:
        handle: the kernel's 64-bit handle, in ``[0, 2**64)``.
        scalars: the packed scalar parameter bytes.

    Raises:
        ArgumentError: ``handle`` is out of range.
    """
    import numpy as np

    if not 0 <= handle < 1 << 64:
        raise ArgumentError(f"a kernel handle is in [0, 2**64), got {handle}")
    signed = handle - (1 << 64) if handle >= 1 << 63 else handle
    return {"handle": np.int64(signed), "scalars": np.frombuffer(scalars, dtype=np.uint8)}


# --------------------------------------------------------------------------------------------
# The process-wide shim
# --------------------------------------------------------------------------------------------


class _ProcessState:
    """The process's loaded shim, its load error and the FFI registration."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.shim: Shim | None = None
        self.error: str | None = None
        self.ffi_owner: Path | None = None


_PROCESS = _ProcessState()


def load_shim() -> Shim:
    """The process-wide launch shim, built on first use and loaded once.

    Later calls return the same :class:`Shim`; after a failure they raise the same error
    without retrying.

    Raises:
        ShimError: the shim cannot be built or loaded, or its ABI version is not
            :data:`SHIM_ABI_VERSION` (the message names both versions and the path).
    """
    shim = _PROCESS.shim
    if shim is not None:
        return shim
    with _PROCESS.lock:
        if _PROCESS.shim is not None:
            return _PROCESS.shim
        if _PROCESS.error is not None:
            raise ShimError(_PROCESS.error)
        try:
            path, xla_reason = _shim_build._build(None, None)
            _PROCESS.shim = Shim(path, xla_error=xla_reason)
        except ShimError as exc:
            _PROCESS.error = str(exc)
            raise
        return _PROCESS.shim


def shim_available() -> bool:
    """Whether the launch shim is (or can be) built and loaded; builds it on first call."""
    try:
        load_shim()
    except ShimError:
        return False
    return True


def shim_load_error() -> str | None:
    """Why the launch shim cannot be loaded, or ``None`` when it loads (tries on first call)."""
    shim_available()
    return _PROCESS.error
