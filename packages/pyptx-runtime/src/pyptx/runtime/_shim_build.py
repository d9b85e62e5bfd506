"""Building the C++ launch shim: compiler, headers, a reproducible recipe, a cached library.

:func:`build_shim` compiles ``shim/pyptx_shim.cc`` with the platform C++ compiler (``CXX``,
else ``c++``, ``g++`` or ``clang++``) against the CUDA headers of the ``nvidia-cuda-runtime``
wheel (``nvidia/cu13/include``; also ``CUDA_HOME``/``CUDA_PATH``/``/usr/local/cuda``), and,
when jaxlib is installed, its XLA FFI headers. The shim never links libcuda, so building needs
no driver and no GPU. The output is ``cache_root()/shim/<key>/libpyptx_shim.so``, where
``<key>`` hashes the source bytes, the ABI version, the compiler (path and ``--version``), the
flags, the headers' ``CUDA_VERSION`` and the jaxlib version (or "no XLA"). Builds are
byte-reproducible and safe under concurrent processes (each compiles in its own scratch
directory and renames the result into place). Loading lives in :mod:`._shim`.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ._errors import ShimError

__all__ = ["LIBRARY_NAME", "SHIM_ABI_VERSION", "build_shim", "cuda_include_dir", "scratch_dir"]

SHIM_ABI_VERSION = 1
"""The C ABI the runtime speaks; ``pyptx_shim_abi_version()`` of a loadable shim returns it.

Bump it together with ``PYPTX_SHIM_ABI_VERSION`` in ``pyptx_shim.cc`` on any change of an
exported signature, of ``ParamSlot``'s layout or of the XLA attributes.
"""

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
_SYSTEM_CUDA_INCLUDE = Path("/usr/local/cuda/include")


class _Scratch:
    """A private build directory while the cache is disabled, removed at exit."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.path: Path | None = None

    def get(self) -> Path:
        with self.lock:
            if self.path is None:
                self.path = Path(tempfile.mkdtemp(prefix="pyptx-shim-"))
                weakref.finalize(self, shutil.rmtree, self.path, ignore_errors=True)
            return self.path


_SCRATCH = _Scratch()


def scratch_dir() -> Path:
    """Where shims are built while the cache is disabled (one directory per process)."""
    return _SCRATCH.get()


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
        return scratch_dir()
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
