"""The C++ launch shim: build it, load it, and call it.

The shim (``shim/pyptx_shim.cc``) is one small shared library holding a process-wide table of
registered kernels and one launch core, ``cuLaunchKernelEx`` with cluster dimensions, dynamic
shared memory and the max-dynamic-smem function attribute. PyTorch reaches it through ctypes
(:meth:`Shim.launch`); JAX reaches it through the typed XLA FFI handler ``PyptxXlaLaunch``
compiled into the same library, so both front-ends share one registry.

Building. :func:`build_shim` compiles the source with the platform C++ compiler (``CXX``, else
``c++``, ``g++`` or ``clang++``) against the CUDA headers of the ``nvidia-cuda-runtime`` wheel
(``nvidia/cu13/include``; also ``CUDA_HOME``/``CUDA_PATH``/``/usr/local/cuda``), and, when
jaxlib is installed, its XLA FFI headers. The shim never links libcuda (it ``dlopen``s
``libcuda.so.1`` on the first launch), so building needs no driver and no GPU. The environment
variable ``PYPTX_LIBCUDA``, read at that first launch, names a specific driver library instead
(e.g. a non-default install, or a test stand-in). The output is
``cache_root()/shim/<key>/libpyptx_shim.so``, where ``<key>`` hashes the source bytes, the ABI
version, the compiler (path and ``--version``), the flags, the headers' ``CUDA_VERSION`` and the
jaxlib version (or "no XLA"). The build is reproducible: compiled in a scratch directory under a
fixed relative name, with ``-ffile-prefix-map`` for every include directory, ``-DNDEBUG`` and a
fixed ``-frandom-seed``, so two builds of the same key are byte-identical. Concurrent builds are
safe: each process compiles in its own scratch directory and renames the result into place.

Loading. :func:`load_shim` builds on first use, ``dlopen``s the library once per process and
checks ``pyptx_shim_abi_version()`` against :data:`SHIM_ABI_VERSION`.

Importing this module loads nothing and imports neither jax, torch nor the CUDA bindings.
"""

from __future__ import annotations

import ctypes
import enum
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import tempfile
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._errors import ArgumentError, GpuUnavailable, RuntimeLaunchError, ShimError

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

SHIM_ABI_VERSION = 1
"""The C ABI this module speaks; ``pyptx_shim_abi_version()`` of a loadable shim returns it.

Bump it together with ``PYPTX_SHIM_ABI_VERSION`` in ``pyptx_shim.cc`` on any change of an
exported signature, of :class:`ParamSlot`'s layout or of the XLA attributes.
"""

FFI_TARGET_NAME = "pyptx_launch"
"""The XLA custom-call target that launches pyptx kernels (platform ``CUDA``, typed FFI)."""

LIBRARY_NAME = "libpyptx_shim.so"
_SOURCE_NAME = "pyptx_shim.cc"
_SOURCE = Path(__file__).with_name("shim") / _SOURCE_NAME
# Only the C ABI and the XLA handlers leave the library.
_VERSION_SCRIPT = "{\n  global:\n    pyptx_*;\n    PyptxXla*;\n  local:\n    *;\n};\n"
_FLAGS = (
    "-O2",
    "-fPIC",
    "-shared",
    "-std=c++17",
    "-fvisibility=hidden",
    "-fvisibility-inlines-hidden",
    "-DNDEBUG",
    "-frandom-seed=pyptx_shim",
    "-Wall",
)
_LINK_FLAGS = (
    "-ldl",
    "-Wl,--version-script=pyptx_shim.map",
    f"-Wl,-soname,{LIBRARY_NAME}",
)
# The marker left where an XLA-enabled build failed, so later processes skip straight to the
# build without XLA instead of failing the same compile again.
_XLA_FAILURE_LOG = "build-error.log"
_ERR_CAPACITY = 1024
_SYSTEM_CUDA_INCLUDE = Path("/usr/local/cuda/include")


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
# Building
# --------------------------------------------------------------------------------------------


def cuda_include_dir() -> Path:
    """The directory with ``cuda.h`` and ``cudaTypedefs.h`` the shim is built against.

    Searched in order: the ``nvidia`` namespace package of the NVIDIA wheels
    (``nvidia/cu13/include``, then any ``nvidia/*/include``), ``$CUDA_HOME/include``,
    ``$CUDA_PATH/include``, ``/usr/local/cuda/include``.

    Raises:
        ShimError: no candidate holds both headers; the message lists where it looked.
    """
    candidates: list[Path] = []
    for root in _nvidia_roots():
        candidates.append(root / "cu13" / "include")
        candidates.extend(sorted(root.glob("*/include")))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            candidates.append(Path(os.environ[var]) / "include")
    candidates.append(_SYSTEM_CUDA_INCLUDE)
    for candidate in candidates:
        if (candidate / "cuda.h").is_file() and (candidate / "cudaTypedefs.h").is_file():
            return candidate
    looked = ", ".join(dict.fromkeys(str(c) for c in candidates))
    raise ShimError(
        "building the pyptx launch shim needs the CUDA headers cuda.h and cudaTypedefs.h, "
        f"found in none of: {looked}; pip install 'nvidia-cuda-runtime>=13' or set CUDA_HOME"
    )


def _nvidia_roots() -> list[Path]:
    """The directories of the ``nvidia`` namespace package (found without importing it)."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(p) for p in spec.submodule_search_locations]


def _cuda_version(include: Path) -> int:
    with open(include / "cuda.h", encoding="utf-8", errors="replace") as f:
        for line in f:
            match = re.match(r"\s*#\s*define\s+CUDA_VERSION\s+(\d+)", line)
            if match:
                return int(match.group(1))
    raise ShimError(f"{include / 'cuda.h'} does not define CUDA_VERSION")


def _xla_include_dir() -> tuple[Path, str] | None:
    """The FFI header directory of jaxlib and its version, found without importing jaxlib."""
    try:
        spec = importlib.util.find_spec("jaxlib")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in map(Path, spec.submodule_search_locations):
        include = root / "include"
        if (include / "xla" / "ffi" / "api" / "ffi.h").is_file():
            try:
                version = importlib.metadata.version("jaxlib")
            except importlib.metadata.PackageNotFoundError:
                version = "unknown"
            return include, version
    return None


def _compiler() -> tuple[tuple[str, ...], str]:
    """The compiler command and its identity (resolved path and ``--version`` output)."""
    cxx = os.environ.get("CXX", "").strip()
    command = tuple(shlex.split(cxx)) if cxx else ()
    if not command:
        found = next((w for w in map(shutil.which, ("c++", "g++", "clang++")) if w), None)
        if found is None:
            raise ShimError(
                "building the pyptx launch shim needs a C++ compiler; install g++ or set CXX"
            )
        command = (found,)
    executable = shutil.which(command[0])
    if executable is None:
        raise ShimError(f"the C++ compiler {command[0]!r} was not found; install g++ or set CXX")
    command = (executable, *command[1:])
    try:
        result = subprocess.run(
            [*command, "--version"],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
            env={**os.environ, "LC_ALL": "C"},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ShimError(f"the C++ compiler {command[0]!r} cannot be run: {exc}") from exc
    if result.returncode != 0:
        raise ShimError(f"`{shlex.join([*command, '--version'])}` failed: {result.stderr.strip()}")
    identity = shlex.join([os.path.realpath(executable), *command[1:]])
    return command, f"{identity}\n{result.stdout}"


@dataclass(frozen=True)
class _Recipe:
    """Everything that determines the shim's bytes; its hash names the build directory."""

    compiler: tuple[str, ...]
    compiler_id: str
    cuda_include: Path
    cuda_version: int
    xla_include: Path | None
    xla_version: str | None
    extra_flags: tuple[str, ...]
    source: bytes

    def key(self) -> str:
        identity = {
            "abi": SHIM_ABI_VERSION,
            "source": hashlib.sha256(self.source).hexdigest(),
            "compiler": self.compiler_id,
            "flags": [*_FLAGS, *_LINK_FLAGS, *self.extra_flags],
            "cuda_version": self.cuda_version,
            "xla": self.xla_version,
        }
        blob = json.dumps(identity, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:24]

    def command(self, scratch: Path) -> list[str]:
        includes = ["-isystem", str(self.cuda_include)]
        maps = [f"-ffile-prefix-map={self.cuda_include}=cuda-include"]
        defines = []
        if self.xla_include is not None:
            includes += ["-isystem", str(self.xla_include)]
            maps.append(f"-ffile-prefix-map={self.xla_include}=xla-include")
            defines.append("-DPYPTX_SHIM_WITH_XLA=1")
        maps.append(f"-ffile-prefix-map={scratch}=.")
        return [
            *self.compiler, *_FLAGS, *maps, *defines, *self.extra_flags, *includes,
            _SOURCE_NAME, "-o", LIBRARY_NAME, *_LINK_FLAGS,
        ]  # fmt: skip


def _recipe(with_xla: bool, extra_flags: Sequence[str] = ()) -> _Recipe:
    compiler, compiler_id = _compiler()
    cuda_include = cuda_include_dir()
    xla = _xla_include_dir() if with_xla else None
    if with_xla and xla is None:
        raise ShimError(
            "the XLA part of the shim needs jaxlib's FFI headers (xla/ffi/api/ffi.h); "
            "pip install jax"
        )
    return _Recipe(
        compiler=compiler,
        compiler_id=compiler_id,
        cuda_include=cuda_include,
        cuda_version=_cuda_version(cuda_include),
        xla_include=xla[0] if xla else None,
        xla_version=xla[1] if xla else None,
        extra_flags=tuple(extra_flags),
        source=_SOURCE.read_bytes(),
    )


def _compile(recipe: _Recipe, output: Path) -> None:
    """Compiles ``recipe`` into ``output`` atomically (scratch directory, then rename)."""
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".build-", dir=output.parent) as tmp:
        scratch = Path(tmp)
        (scratch / _SOURCE_NAME).write_bytes(recipe.source)
        (scratch / "pyptx_shim.map").write_text(_VERSION_SCRIPT)
        command = recipe.command(scratch)
        try:
            result = subprocess.run(
                command,
                cwd=scratch,
                capture_output=True,
                text=True,
                check=False,
                timeout=600,
                env={**os.environ, "LC_ALL": "C"},
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ShimError(f"building the pyptx launch shim failed to run: {exc}") from exc
        if result.returncode != 0:
            log = (result.stderr or result.stdout).strip()
            raise ShimError(
                f"building the pyptx launch shim failed (exit {result.returncode}):\n"
                f"$ {shlex.join(command)}\n{log[-4000:]}"
            )
        os.replace(scratch / LIBRARY_NAME, output)


def _cache_base(cache_dir: Path | None) -> Path:
    if cache_dir is not None:
        return Path(cache_dir)
    from ._cache import cache_disabled, cache_root

    if cache_disabled():
        return _PROCESS.scratch_dir()
    return cache_root()


def _build(
    with_xla: bool | None, cache_dir: Path | None, extra_flags: Sequence[str] = ()
) -> tuple[Path, str | None]:
    """Builds (or finds) the shim; returns its path and why XLA is missing, if it is."""
    base = _cache_base(cache_dir) / "shim"
    xla_reason: str | None = None
    if with_xla is None:
        if _xla_include_dir() is None:
            with_xla, xla_reason = False, "jaxlib (with its FFI headers) is not installed"
        else:
            recipe = _recipe(True, extra_flags)
            directory = base / recipe.key()
            failure = directory / _XLA_FAILURE_LOG
            if (directory / LIBRARY_NAME).is_file():
                return directory / LIBRARY_NAME, None
            if failure.is_file():
                xla_reason = failure.read_text(errors="replace")
            else:
                try:
                    _compile(recipe, directory / LIBRARY_NAME)
                    return directory / LIBRARY_NAME, None
                except ShimError as exc:
                    xla_reason = str(exc)
                    _write_atomic(failure, xla_reason)
            with_xla = False
    recipe = _recipe(with_xla, extra_flags)
    output = base / recipe.key() / LIBRARY_NAME
    if not output.is_file():
        _compile(recipe, output)
    return output, xla_reason


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def build_shim(with_xla: bool | None = None, *, cache_dir: Path | None = None) -> Path:
    """Builds the launch shim, or finds it already built, and returns the library's path.

    Args:
        with_xla: compile in the XLA FFI handler. ``None`` (default): when jaxlib is
            installed, falling back to a build without it if that compile fails (the failure
            is remembered next to the would-be library, so later processes do not retry).
        cache_dir: the cache root to build under (default :func:`pyptx.runtime._cache.
            cache_root`, or a per-process temporary directory when the cache is disabled);
            the library lands in ``<cache_dir>/shim/<key>/libpyptx_shim.so``.

    Returns:
        The path of ``libpyptx_shim.so``.

    Raises:
        ShimError: no compiler, no CUDA headers, jaxlib missing with ``with_xla=True``, or
            the compile failed (the message carries the command and the compiler's output).
    """
    return _build(with_xla, cache_dir)[0]


# --------------------------------------------------------------------------------------------
# The process-wide shim
# --------------------------------------------------------------------------------------------


class _ProcessState:
    """The process's loaded shim, its load error, the FFI registration, the scratch dir."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.shim: Shim | None = None
        self.error: str | None = None
        self.ffi_owner: Path | None = None
        self._scratch: Path | None = None

    def scratch_dir(self) -> Path:
        """A private directory for builds while the cache is disabled, removed at exit."""
        with self.lock:
            if self._scratch is None:
                self._scratch = Path(tempfile.mkdtemp(prefix="pyptx-shim-"))
                weakref.finalize(self, shutil.rmtree, self._scratch, ignore_errors=True)
            return self._scratch


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
            path, xla_reason = _build(None, None)
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
