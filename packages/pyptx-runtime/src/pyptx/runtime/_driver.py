"""The CUDA driver, reached lazily through cuda-python (``cuda.bindings.driver``).

Nothing here runs at import: the driver is initialised on the first call that needs it, and
every probe (:func:`gpu_count`, :func:`device_arch`, :func:`driver_version`) answers "none"
instead of raising on a machine without a driver or a GPU.
"""

from __future__ import annotations

import functools
import types
from typing import Any

from ._errors import GpuUnavailable, RuntimeLaunchError

__all__ = ["check", "device_arch", "driver", "driver_version", "gpu_count"]

# Compute capability -> the ptxas target pyptx uses for it. Architecture-specific ("a")
# targets unlock wgmma/tcgen05/setmaxnreg; they only run on that exact major.minor.
_ARCH_SUFFIX = {(9, 0): "a", (10, 0): "a", (10, 3): "a", (11, 0): "a", (12, 0): "a", (12, 1): "a"}


@functools.cache
def _load() -> types.ModuleType | str:
    """``cuda.bindings.driver`` after ``cuInit(0)``, or why it is not usable."""
    try:
        from cuda.bindings import driver as cu
    except ImportError as exc:  # pragma: no cover - cuda-python is a dependency
        return f"cuda-python is not installed ({exc}); pip install cuda-python"
    try:
        (err,) = cu.cuInit(0)
    except Exception as exc:
        return f"the CUDA driver (libcuda.so.1) could not be loaded: {exc}"
    if err != cu.CUresult.CUDA_SUCCESS:
        return f"cuInit failed with {err.name}: no usable NVIDIA driver or GPU"
    return cu


def driver() -> types.ModuleType:
    """``cuda.bindings.driver``, initialised.

    Raises:
        GpuUnavailable: cuda-python is missing, libcuda cannot be loaded, or cuInit fails.
    """
    loaded = _load()
    if isinstance(loaded, str):
        raise GpuUnavailable(loaded)
    return loaded


def check(result: tuple[Any, ...], what: str) -> Any:
    """Unpack a ``cuda.bindings`` result tuple ``(CUresult, *values)``.

    Args:
        result: what the binding returned.
        what: the operation, for the error message (``"cuModuleLoadData"``).

    Returns:
        ``None`` for no values, the value for one, the tuple of values for several.

    Raises:
        RuntimeLaunchError: the call failed; the message names ``what`` and the error.
    """
    err, *values = result
    if int(err) != 0:
        name = getattr(err, "name", str(err))
        detail = ""
        try:
            cu = driver()
            _, text = cu.cuGetErrorString(err)
            if text:
                detail = f": {text.decode() if isinstance(text, bytes) else text}"
        except RuntimeLaunchError:  # pragma: no cover - no driver to describe the error
            pass
        raise RuntimeLaunchError(f"{what} failed with {name}{detail}")
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def gpu_count() -> int:
    """How many CUDA devices the driver sees; 0 without a driver or a GPU."""
    loaded = _load()
    if isinstance(loaded, str):
        return 0
    err, count = loaded.cuDeviceGetCount()
    return int(count) if int(err) == 0 else 0


def device_arch(device: int = 0) -> str | None:
    """The pyptx target of CUDA device ``device`` (``"sm_90a"`` for an H100), or ``None``.

    ``None`` means there is no driver, no GPU or no such device; it never raises.
    """
    if device >= gpu_count():
        return None
    return _arch(device)


@functools.cache
def _arch(device: int) -> str:
    cu = driver()
    attr = cu.CUdevice_attribute
    major = check(
        cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
        "cuDeviceGetAttribute",
    )
    minor = check(
        cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
        "cuDeviceGetAttribute",
    )
    return f"sm_{major}{minor}{_ARCH_SUFFIX.get((major, minor), '')}"


def driver_version() -> int | None:
    """``cuDriverGetVersion`` (13000 for CUDA 13.0), or ``None`` without a driver."""
    loaded = _load()
    if isinstance(loaded, str):
        return None
    err, version = loaded.cuDriverGetVersion()
    return int(version) if int(err) == 0 else None
