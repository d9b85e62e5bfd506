"""Compile, cache and launch pyptx kernels from PyTorch, JAX and numpy.

Calling a ``@kernel`` launches it through :func:`launch`: on the GPU for CUDA tensors and
JAX arrays on a GPU, in the CPU emulator (pyptx-emu) for CPU tensors, numpy arrays and JAX on
the CPU platform. PTX is compiled (driver JIT, nvJitLink, or ptxas from the
``nvidia-cuda-nvcc`` wheel) into an on-disk cubin cache and launched through a small C++ shim
shared by the torch path (eager, ``torch.compile``, CUDA graphs) and the JAX path (typed XLA
FFI under ``jax.jit``).

Importing this package touches neither the GPU nor torch/JAX: every public name below is
resolved on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# name -> (module, attribute)
_PUBLIC: dict[str, tuple[str, str]] = {
    # launching
    "launch": ("._launch", "launch"),
    "auto_arch": ("._launch", "auto_arch"),
    "BACKENDS": ("._launch", "BACKENDS"),
    "EMULATOR_ARCH": ("._launch", "EMULATOR_ARCH"),
    "specialize": ("._specialize", "specialize"),
    "Specialization": ("._specialize", "Specialization"),
    "ParamSource": ("._specialize", "ParamSource"),
    "ParamPlan": ("._specialize", "ParamPlan"),
    # devices
    "device_arch": ("._driver", "device_arch"),
    "driver_version": ("._driver", "driver_version"),
    "gpu_count": ("._driver", "gpu_count"),
    # errors
    "RuntimeLaunchError": ("._errors", "RuntimeLaunchError"),
    "ArgumentError": ("._errors", "ArgumentError"),
    "CompileError": ("._errors", "CompileError"),
    "GpuUnavailable": ("._errors", "GpuUnavailable"),
    "ShimError": ("._errors", "ShimError"),
    # compiling and the cubin cache
    "compile_ptx": ("._compile", "compile_ptx"),
    "Compiled": ("._compile", "Compiled"),
    "toolchain_fingerprint": ("._compile", "toolchain_fingerprint"),
    "CubinCache": ("._cache", "CubinCache"),
    "cubin_cache": ("._cache", "cubin_cache"),
    "cache_key": ("._cache", "cache_key"),
    "cache_root": ("._cache", "cache_root"),
    # the launch shim and the process-wide kernel registry
    "SHIM_ABI_VERSION": ("._shim_build", "SHIM_ABI_VERSION"),
    "Shim": ("._shim", "Shim"),
    "ParamSlot": ("._shim", "ParamSlot"),
    "FfiTargetStatus": ("._shim", "FfiTargetStatus"),
    "build_shim": ("._shim_build", "build_shim"),
    "load_shim": ("._shim", "load_shim"),
    "shim_available": ("._shim", "shim_available"),
    "shim_load_error": ("._shim", "shim_load_error"),
    "KernelRegistry": ("._gpu", "KernelRegistry"),
    "kernel_registry": ("._gpu", "kernel_registry"),
    # TMA descriptors
    "TensorMapSpec": ("._tma", "TensorMapSpec"),
    "Im2colSpec": ("._tma", "Im2colSpec"),
    "TensorMapDataType": ("._tma", "TensorMapDataType"),
    "Interleave": ("._tma", "Interleave"),
    "OobFill": ("._tma", "OobFill"),
    "TensorMapCache": ("._tma_encode", "TensorMapCache"),
    "tensor_map_spec": ("._tma", "tensor_map_spec"),
    "encode_tensor_map": ("._tma_encode", "encode_tensor_map"),
    "encode_tensor_map_im2col": ("._tma_encode", "encode_tensor_map_im2col"),
    "tensor_map_2d": ("._tma_encode", "tensor_map_2d"),
    "tensor_map_3d": ("._tma_encode", "tensor_map_3d"),
    # frameworks
    "differentiable_kernel": ("._autograd", "differentiable_kernel"),
    "register_torch_op": ("._torch", "register_torch_op"),
    "register_ffi_target": ("._jax", "register_ffi_target"),
    "jax_ffi_call": ("._jax", "jax_ffi_call"),
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    target = _PUBLIC.get(name)
    if target is None:
        raise AttributeError(f"module 'pyptx.runtime' has no attribute {name!r}")
    value = getattr(importlib.import_module(target[0], __name__), target[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))


if TYPE_CHECKING:
    from ._autograd import differentiable_kernel  # noqa: F401
    from ._cache import CubinCache, cache_key, cache_root, cubin_cache  # noqa: F401
    from ._compile import Compiled, compile_ptx, toolchain_fingerprint  # noqa: F401
    from ._driver import device_arch, driver_version, gpu_count  # noqa: F401
    from ._errors import (  # noqa: F401
        ArgumentError,
        CompileError,
        GpuUnavailable,
        RuntimeLaunchError,
        ShimError,
    )
    from ._gpu import KernelRegistry, kernel_registry  # noqa: F401
    from ._jax import jax_ffi_call, register_ffi_target  # noqa: F401
    from ._launch import BACKENDS, EMULATOR_ARCH, auto_arch, launch  # noqa: F401
    from ._shim import (  # noqa: F401
        SHIM_ABI_VERSION,
        FfiTargetStatus,
        ParamSlot,
        Shim,
        build_shim,
        load_shim,
        shim_available,
        shim_load_error,
    )
    from ._specialize import ParamPlan, ParamSource, Specialization, specialize  # noqa: F401
    from ._tma import (  # noqa: F401
        Im2colSpec,
        Interleave,
        OobFill,
        TensorMapDataType,
        TensorMapSpec,
        tensor_map_spec,
    )
    from ._tma_encode import (  # noqa: F401
        TensorMapCache,
        encode_tensor_map,
        encode_tensor_map_im2col,
        tensor_map_2d,
        tensor_map_3d,
    )
    from ._torch import register_torch_op  # noqa: F401
