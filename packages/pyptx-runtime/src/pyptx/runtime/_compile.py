"""Compiling PTX to a loadable cubin, through the on-disk cubin cache.

Three toolchains are tried in the order of :data:`TOOLCHAINS`:

1. ``driver``: the CUDA driver's JIT (``cuLinkCreate`` / ``cuLinkAddData`` / ``cuLinkComplete``),
   used only when the driver sees a GPU whose target is exactly ``arch``;
2. ``nvjitlink``: nvJitLink through ``cuda.bindings.nvjitlink`` (the ``nvidia-nvjitlink`` wheel);
3. ``ptxas``: the assembler of the ``nvidia-cuda-nvcc`` wheel (or the system CUDA toolkit).

A toolchain that is not installed, or that refuses the PTX because its ``.version`` or target is
newer than it knows, is skipped and the next one is tried. Any other refusal is the kernel's
fault and raises :class:`~pyptx.runtime.CompileError` at once, naming the PTX line and, for a
traced kernel, the user's Python line that emitted it.

The cache key covers the PTX text, the target and :func:`toolchain_fingerprint` (the versions
of the usable toolchains and of the driver), so a second process compiling the same kernel
with the same toolchains reads the cubin back instead of compiling it.
"""

from __future__ import annotations

import bisect
import ctypes
import functools
import linecache
import re
import subprocess
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pyptx.dsl.tools import find_tool

from . import _driver
from ._cache import CubinCache, cache_key, cubin_cache
from ._errors import CompileError, RuntimeLaunchError

__all__ = [
    "TOOLCHAINS",
    "Compiled",
    "Rejected",
    "Toolchain",
    "compile_ptx",
    "toolchain_fingerprint",
]

# Bump when the way a toolchain is invoked changes (options, inputs): old entries then miss.
_COMPILE_FORMAT = 1
_ARCH = re.compile(r"sm_\d+[af]?")
_ELF_MAGIC = b"\x7fELF"


@dataclass(frozen=True, slots=True)
class Compiled:
    """A compiled kernel: the cubin and where it came from.

    Attributes:
        cubin: the ELF cubin, ready for ``cuModuleLoadData``.
        arch: the target it was compiled for (``"sm_90a"``).
        toolchain: the toolchain that compiled it, with its version: ``"driver 13000"``
            (the driver JIT, with ``cuDriverGetVersion``), ``"nvjitlink 13.5"`` or
            ``"ptxas 13.5.37"``. A cache hit reports the toolchain that compiled the entry.
        from_cache: True when the cubin was read from the on-disk cache, not compiled.
        key: the cache key (see :func:`~pyptx.runtime._cache.cache_key`).
    """

    cubin: bytes
    arch: str
    toolchain: str
    from_cache: bool
    key: str


class Rejected(Exception):
    """A toolchain refused to compile the PTX (raised by a :class:`Toolchain`'s ``compile``).

    Attributes:
        log: the toolchain's error log.
        unsupported: True when the refusal is the toolchain's limit, not the kernel's fault
            (the PTX ``.version`` or the target is newer than the toolchain knows); the next
            toolchain is then tried.
    """

    def __init__(self, log: str, *, unsupported: bool) -> None:
        super().__init__(log)
        self.log = log
        self.unsupported = unsupported


@dataclass(frozen=True, slots=True)
class Toolchain:
    """One way to turn PTX into a cubin: a row of :data:`TOOLCHAINS`.

    Attributes:
        name: short name, the first word of :attr:`Compiled.toolchain`.
        unavailable: ``arch -> reason`` why the toolchain cannot compile for ``arch`` here
            (not installed, no GPU of that target), or ``None`` when it can.
        version: the toolchain's version, or ``None`` when it is not installed.
        compile: ``(ptx, arch, name) -> cubin``; raises :class:`Rejected`.
    """

    name: str
    unavailable: Callable[[str], str | None]
    version: Callable[[], str | None]
    compile: Callable[[str, str, str], bytes]


# --------------------------------------------------------------------------------------------
# Which refusals mean "this toolchain is too old for the PTX" rather than "the PTX is wrong".
# --------------------------------------------------------------------------------------------

_UNSUPPORTED_LOG = (
    # ptxas, nvJitLink and the driver JIT all run ptxas's front end:
    # "ptxas k.ptx, line 1; fatal   : Unsupported .version 9.9; current version is '9.5'"
    re.compile(r"Unsupported \.version"),
    # "ptxas k.ptx, line 2; fatal   : Unsupported .target 'sm_200'"
    re.compile(r"Unsupported \.target"),
    # ptxas -arch=sm_999: "ptxas fatal   : Value 'sm_999' is not defined for option 'gpu-name'"
    re.compile(r"is not defined for option 'gpu-name'"),
)

# cuLink* results meaning the driver cannot JIT this PTX at all (CUresult values from cuda.h).
_DRIVER_UNSUPPORTED = {
    221: "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
    222: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
    223: "CUDA_ERROR_JIT_COMPILATION_DISABLED",
}

# nvJitLink results meaning the library does not know the target.
_NVJITLINK_UNSUPPORTED = ("ERROR_UNRECOGNIZED_ARCH", "ERROR_UNSUPPORTED_ARCH")


def _unsupported_log(log: str) -> bool:
    """Whether a toolchain log says the PTX version or target is newer than the toolchain."""
    return any(pattern.search(log) for pattern in _UNSUPPORTED_LOG)


def _file_stem(name: str) -> str:
    """A file name for the kernel's PTX in logs: its name, made safe, or ``kernel``."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:100] or "kernel"


# --------------------------------------------------------------------------------------------
# The driver JIT. cuLink* is called through ctypes: the driver keeps writing into the option
# arrays (log sizes) until cuLinkDestroy, so they must be ours and outlive the link state.
# --------------------------------------------------------------------------------------------

_CU_JIT_INFO_LOG_BUFFER = 3
_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4
_CU_JIT_ERROR_LOG_BUFFER = 5
_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
_CU_JIT_INPUT_PTX = 1
_DRIVER_LOG_BYTES = 1 << 16


@functools.cache
def _libcuda() -> Any:
    """The cuLink* entry points of libcuda with their C signatures."""
    lib = ctypes.CDLL("libcuda.so.1")
    vp, cint = ctypes.c_void_p, ctypes.c_int
    lib.cuLinkCreate_v2.argtypes = [
        ctypes.c_uint,
        ctypes.POINTER(cint),
        ctypes.POINTER(vp),
        ctypes.POINTER(vp),
    ]
    lib.cuLinkAddData_v2.argtypes = [
        vp,
        cint,
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.c_char_p,
        ctypes.c_uint,
        ctypes.POINTER(cint),
        ctypes.POINTER(vp),
    ]
    lib.cuLinkComplete.argtypes = [vp, ctypes.POINTER(vp), ctypes.POINTER(ctypes.c_size_t)]
    lib.cuLinkDestroy.argtypes = [vp]
    for fn in (lib.cuLinkCreate_v2, lib.cuLinkAddData_v2, lib.cuLinkComplete, lib.cuLinkDestroy):
        fn.restype = cint
    return lib


def _driver_device(arch: str) -> int | None:
    """The first CUDA device whose target is ``arch``."""
    for device in range(_driver.gpu_count()):
        if _driver.device_arch(device) == arch:
            return device
    return None


def _driver_unavailable(arch: str) -> str | None:
    count = _driver.gpu_count()
    if count == 0:
        return "the CUDA driver sees no GPU"
    if _driver_device(arch) is None:
        found = sorted({str(_driver.device_arch(d)) for d in range(count)})
        return f"no GPU of target {arch} (found {', '.join(found)})"
    return None


def _driver_version() -> str | None:
    version = _driver.driver_version()
    return None if version is None else str(version)


def _result_name(code: int) -> str:
    try:
        return str(_driver.driver().CUresult(code).name)
    except (ValueError, RuntimeLaunchError):
        return f"CUresult {code}"


def _driver_link(ptx: str, name: str) -> bytes:
    """Run cuLink* on ``ptx`` in the current context; the cubin or :class:`Rejected`."""
    lib = _libcuda()
    info = ctypes.create_string_buffer(_DRIVER_LOG_BYTES)
    error = ctypes.create_string_buffer(_DRIVER_LOG_BYTES)
    options = (ctypes.c_int * 4)(
        _CU_JIT_INFO_LOG_BUFFER,
        _CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        _CU_JIT_ERROR_LOG_BUFFER,
        _CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    )
    values = (ctypes.c_void_p * 4)(
        ctypes.addressof(info), _DRIVER_LOG_BYTES, ctypes.addressof(error), _DRIVER_LOG_BYTES
    )
    state = ctypes.c_void_p()
    code = lib.cuLinkCreate_v2(4, options, values, ctypes.byref(state))
    if code != 0:
        raise Rejected(f"cuLinkCreate failed with {_result_name(code)}", unsupported=True)
    try:
        data = ptx.encode("utf-8") + b"\0"
        label = f"{_file_stem(name)}.ptx".encode()
        code = lib.cuLinkAddData_v2(state, _CU_JIT_INPUT_PTX, data, len(data), label, 0, None, None)
        if code == 0:
            image, size = ctypes.c_void_p(), ctypes.c_size_t()
            code = lib.cuLinkComplete(state, ctypes.byref(image), ctypes.byref(size))
            if code == 0 and image.value:
                return ctypes.string_at(image.value, size.value)
        log = error.value.decode("utf-8", "replace").strip()
        log = f"{log}\n{_result_name(code)}" if log else _result_name(code)
        raise Rejected(log, unsupported=code in _DRIVER_UNSUPPORTED or _unsupported_log(log))
    finally:
        lib.cuLinkDestroy(state)


def _driver_compile(ptx: str, arch: str, name: str) -> bytes:
    """Compile with the driver JIT in the primary context of a GPU of target ``arch``."""
    cu = _driver.driver()
    ordinal = _driver_device(arch)
    if ordinal is None:
        raise Rejected(f"no GPU of target {arch}", unsupported=True)
    device = _driver.check(cu.cuDeviceGet(ordinal), "cuDeviceGet")
    context = _driver.check(cu.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
    try:
        _driver.check(cu.cuCtxPushCurrent(context), "cuCtxPushCurrent")
        try:
            return _driver_link(ptx, name)
        finally:
            _driver.check(cu.cuCtxPopCurrent(), "cuCtxPopCurrent")
    finally:
        _driver.check(cu.cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease")


# --------------------------------------------------------------------------------------------
# nvJitLink.
# --------------------------------------------------------------------------------------------


@functools.cache
def _nvjitlink_probe() -> tuple[str | None, str]:
    """``(version, why unusable)``: one of the two is meaningful."""
    try:
        from cuda.bindings import nvjitlink

        major, minor = nvjitlink.version()
    except Exception as exc:  # a missing library surfaces as various errors
        return None, f"nvJitLink is not usable ({exc}); pip install nvidia-nvjitlink"
    return f"{major}.{minor}", ""


def _nvjitlink_unavailable(arch: str) -> str | None:
    version, why = _nvjitlink_probe()
    return why if version is None else None


def _nvjitlink_log(nvjitlink: Any, handle: int) -> str:
    size = nvjitlink.get_error_log_size(handle)
    if size <= 0:
        return ""
    buffer = bytearray(size)
    nvjitlink.get_error_log(handle, buffer)
    return bytes(buffer).rstrip(b"\0").decode("utf-8", "replace").strip()


def _nvjitlink_compile(ptx: str, arch: str, name: str) -> bytes:
    """Compile with nvJitLink (``-arch=<arch>``)."""
    from cuda.bindings import nvjitlink

    try:
        handle = nvjitlink.create(1, [f"-arch={arch}"])
    except nvjitlink.nvJitLinkError as exc:
        status = nvjitlink.Result(exc.status).name
        raise Rejected(
            f"nvJitLinkCreate(-arch={arch}) failed with {status}",
            unsupported=status in _NVJITLINK_UNSUPPORTED,
        ) from None
    try:
        data = ptx.encode("utf-8")
        nvjitlink.add_data(
            handle, nvjitlink.InputType.PTX, data, len(data), f"{_file_stem(name)}.ptx"
        )
        nvjitlink.complete(handle)
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
        return bytes(cubin)
    except nvjitlink.nvJitLinkError as exc:
        status = nvjitlink.Result(exc.status).name
        log = _nvjitlink_log(nvjitlink, handle) or status
        unsupported = status in _NVJITLINK_UNSUPPORTED or _unsupported_log(log)
        raise Rejected(log, unsupported=unsupported) from None
    finally:
        nvjitlink.destroy(handle)


# --------------------------------------------------------------------------------------------
# ptxas.
# --------------------------------------------------------------------------------------------


@functools.cache
def _ptxas() -> str | None:
    return find_tool("ptxas")


@functools.cache
def _ptxas_version_of(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    except OSError:
        return "unknown"
    match = re.search(r"\bV(\d+(?:\.\d+)+)", out.stdout)
    return match.group(1) if match else "unknown"


def _ptxas_version() -> str | None:
    path = _ptxas()
    return None if path is None else _ptxas_version_of(path)


def _ptxas_unavailable(arch: str) -> str | None:
    if _ptxas() is None:
        return "ptxas not found; pip install nvidia-cuda-nvcc (or put the CUDA toolkit on PATH)"
    return None


def _ptxas_compile(ptx: str, arch: str, name: str) -> bytes:
    """Assemble with ptxas (``-arch=<arch>``) in a temporary directory."""
    path = _ptxas()
    if path is None:
        raise Rejected("ptxas not found", unsupported=True)
    stem = _file_stem(name)
    with tempfile.TemporaryDirectory(prefix="pyptx-ptxas-") as work:
        (Path(work) / f"{stem}.ptx").write_text(ptx, encoding="utf-8")
        # Relative names, so the log says "ptxas <name>.ptx, line N" without the temp path.
        result = subprocess.run(
            [path, f"-arch={arch}", "-o", f"{stem}.cubin", f"{stem}.ptx"],
            cwd=work,
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            log = (result.stderr + result.stdout).strip()
            raise Rejected(log, unsupported=_unsupported_log(log))
        return (Path(work) / f"{stem}.cubin").read_bytes()


TOOLCHAINS: tuple[Toolchain, ...] = (
    Toolchain("driver", _driver_unavailable, _driver_version, _driver_compile),
    Toolchain(
        "nvjitlink", _nvjitlink_unavailable, lambda: _nvjitlink_probe()[0], _nvjitlink_compile
    ),
    Toolchain("ptxas", _ptxas_unavailable, _ptxas_version, _ptxas_compile),
)
"""The toolchains :func:`compile_ptx` tries, in order."""


def toolchain_fingerprint(arch: str) -> str:
    """The part of the cache key that names the compilers: it changes when they change.

    Args:
        arch: the target; a toolchain that cannot compile for it here (the driver JIT without
            a GPU of that target) is listed as ``unused``.

    Returns:
        ``"pyptx-compile 1; driver 13000; nvjitlink 13.5; ptxas 13.5.37; cuda-driver 13000"``:
        each toolchain of :data:`TOOLCHAINS` with its version (``unused`` or ``absent``), then
        the driver version (:func:`pyptx.runtime._driver.driver_version`, ``absent`` without a
        driver).
    """
    parts = [f"pyptx-compile {_COMPILE_FORMAT}"]
    for toolchain in TOOLCHAINS:
        if toolchain.unavailable(arch) is not None:
            parts.append(f"{toolchain.name} unused")
        else:
            parts.append(f"{toolchain.name} {toolchain.version() or 'unknown'}")
    version = _driver.driver_version()
    parts.append(f"cuda-driver {'absent' if version is None else version}")
    return "; ".join(parts)


# --------------------------------------------------------------------------------------------
# Error messages: the log, the PTX line it names, the Python line that emitted it.
# --------------------------------------------------------------------------------------------

_LOG_ERROR_LINE = re.compile(r"\bline (\d+);\s*(?:error|fatal)")
_LOG_ANY_LINE = re.compile(r"\bline (\d+)\b")


def _log_line(log: str, line_count: int) -> int | None:
    """The 1-based PTX line the log blames (its first error), if it names one."""
    match = _LOG_ERROR_LINE.search(log) or _LOG_ANY_LINE.search(log)
    if match is None:
        return None
    line = int(match.group(1))
    return line if 1 <= line <= line_count else None


def _python_location(
    ptx_line: int,
    python_lines: Sequence[tuple[str, int] | None] | None,
    instruction_lines: Sequence[int] | None,
) -> tuple[str, int] | None:
    """The Python call that emitted the instruction at or before ``ptx_line``."""
    if not python_lines or not instruction_lines:
        return None
    index = bisect.bisect_right(instruction_lines, ptx_line) - 1
    if index < 0 or index >= len(python_lines):
        return None
    return python_lines[index]


def _kernel_label(name: str) -> str:
    return f"kernel {name!r}" if name else "the kernel"


def _compile_error(
    message: list[str],
    log: str,
    ptx: str,
    python_lines: Sequence[tuple[str, int] | None] | None,
    instruction_lines: Sequence[int] | None,
    footer: Sequence[str] = (),
) -> CompileError:
    """``message``, the PTX line ``log`` blames, the Python line that emitted it, ``footer``."""
    ptx_lines = ptx.splitlines()
    line = _log_line(log, len(ptx_lines))
    location = None
    if line is not None:
        message.append(f"PTX line {line}: {ptx_lines[line - 1].strip()}")
        location = _python_location(line, python_lines, instruction_lines)
        if location is not None:
            file, lineno = location
            source = linecache.getline(file, lineno).strip()
            message.append(f"emitted at {file}:{lineno}" + (f": {source}" if source else ""))
    message.extend(footer)
    return CompileError("\n".join(message), log=log, ptx_line=line, python_location=location)


# --------------------------------------------------------------------------------------------
# compile_ptx.
# --------------------------------------------------------------------------------------------


def _pack(toolchain: str, cubin: bytes) -> bytes:
    """A cache payload: the toolchain label, NUL, the cubin."""
    return toolchain.encode("utf-8") + b"\0" + cubin


def _unpack(payload: bytes) -> tuple[str, bytes] | None:
    label, sep, cubin = payload.partition(b"\0")
    if not sep or not cubin.startswith(_ELF_MAGIC):
        return None
    try:
        return label.decode("utf-8"), cubin
    except UnicodeDecodeError:
        return None


def _cache_warning(cache: CubinCache, exc: OSError) -> None:
    warnings.warn(
        f"pyptx: the cubin cache at {cache.directory} is not usable ({exc}); compiling "
        "without it. Point PYPTX_CACHE_DIR at a writable directory or set PYPTX_CACHE_DISABLE=1",
        RuntimeWarning,
        stacklevel=3,
    )


def _run_toolchains(
    ptx: str,
    arch: str,
    name: str,
    python_lines: Sequence[tuple[str, int] | None] | None,
    instruction_lines: Sequence[int] | None,
) -> tuple[str, bytes]:
    """``(toolchain label, cubin)`` from the first toolchain of the table that compiles it."""
    tried: list[str] = []
    logs: list[str] = []
    too_new = False
    for toolchain in TOOLCHAINS:
        reason = toolchain.unavailable(arch)
        if reason is not None:
            tried.append(f"{toolchain.name}: {reason}")
            continue
        label = f"{toolchain.name} {toolchain.version() or 'unknown'}"
        try:
            return label, toolchain.compile(ptx, arch, name)
        except Rejected as rejected:
            if not rejected.unsupported:
                headline = f"{label} rejected {_kernel_label(name)} for {arch}:"
                message = [headline, *(f"  {text}" for text in rejected.log.splitlines())]
                raise _compile_error(
                    message, rejected.log, ptx, python_lines, instruction_lines
                ) from None
            too_new = True
            first = next((s for s in rejected.log.splitlines() if s.strip()), "rejected")
            tried.append(f"{label}: does not support this PTX or target ({first.strip()})")
            logs.append(f"{label}:\n{rejected.log}")
    message = [f"no toolchain can compile {_kernel_label(name)} for {arch}; tried:"]
    message += [f"  {entry}" for entry in tried]
    footer = []
    if too_new:
        footer.append(
            "Lower the kernel's PTX .version or target, or upgrade the toolchain "
            "(pip install -U nvidia-nvjitlink nvidia-cuda-nvcc, or a newer NVIDIA driver)"
        )
    log = "\n".join(logs)
    raise _compile_error(message, log, ptx, python_lines, instruction_lines, footer)


def compile_ptx(
    ptx: str,
    arch: str,
    *,
    name: str = "",
    python_lines: Sequence[tuple[str, int] | None] | None = None,
    instruction_lines: Sequence[int] | None = None,
    cache: CubinCache | Literal["default"] | None = "default",
) -> Compiled:
    """Compile PTX text to a cubin for ``arch``, reading and filling the cubin cache.

    The key is ``cache_key(ptx, arch, toolchain_fingerprint(arch))``; a hit returns the stored
    cubin without compiling. On a miss the toolchains of :data:`TOOLCHAINS` are tried in order
    (the driver JIT, nvJitLink, ptxas); one that is unavailable or too old for the PTX is
    skipped, and the first cubin is stored and returned. A cache that cannot be read or
    written is bypassed with a :class:`RuntimeWarning`.

    Args:
        ptx: the PTX module text.
        arch: the target, ``"sm_<N>"`` with an optional ``a``/``f`` suffix (``"sm_90a"``).
        name: the kernel's name, for messages.
        python_lines: for a traced kernel, ``(file, line)`` of the Python call that emitted
            the i-th instruction (``None`` where unknown).
        instruction_lines: the 1-based PTX line of the i-th instruction (ascending).
        cache: the cache to use; ``"default"`` is :func:`~pyptx.runtime._cache.cubin_cache`
            (the environment's), ``None`` compiles without any cache.

    Returns:
        The cubin with the toolchain that made it and whether it came from the cache.

    Raises:
        ValueError: ``arch`` is not of the form ``sm_<N>[a|f]``, or (with the default cache)
            ``PYPTX_CACHE_DISABLE`` / ``PYPTX_CACHE_MAX_BYTES`` has an invalid value.
        CompileError: a toolchain rejected the PTX (the message shows its log, the PTX line
            and the Python line that emitted it), or no toolchain could compile it (the
            message lists each one tried and why it failed).
    """
    if _ARCH.fullmatch(arch) is None:
        raise ValueError(f"arch must be a target such as 'sm_90a' or 'sm_80', got {arch!r}")
    store = cubin_cache() if isinstance(cache, str) else cache
    key = cache_key(ptx, arch, toolchain_fingerprint(arch))
    if store is not None:
        try:
            payload = store.get(key)
            entry = None if payload is None else _unpack(payload)
            if entry is not None:
                return Compiled(entry[1], arch, entry[0], True, key)
            if payload is not None:
                store.discard(key)  # a sound entry whose payload is not ours: recompile
        except OSError as exc:
            _cache_warning(store, exc)
            store = None
    toolchain, cubin = _run_toolchains(ptx, arch, name, python_lines, instruction_lines)
    if store is not None:
        try:
            store.put(key, _pack(toolchain, cubin))
        except OSError as exc:
            _cache_warning(store, exc)
    return Compiled(cubin, arch, toolchain, False, key)
