"""``launch``: the one entry point behind ``Kernel.__call__``.

It finds the array library of the inputs and hands the call to that library's front end:
torch (:mod:`._torch`), JAX (:mod:`._jax`) or numpy (here: the emulator). Every front end
binds and checks the arguments the same way (:func:`._binding.bind`), allocates the outputs
zero-filled (uninitialized on a GPU for a ``zero_outputs=False`` kernel, poisoned in the
emulator: see :mod:`._emulate`) and returns ``outputs + mutated inputs``: one array alone,
several as a tuple.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pyptx.dsl.kernel import Kernel
from pyptx.dsl.tile import Layout

from ._arrays import Framework, describe
from ._binding import Bound, bind
from ._driver import device_arch, gpu_count
from ._errors import ArgumentError, GpuUnavailable
from ._specialize import specialize_bound

__all__ = ["BACKENDS", "EMULATOR_ARCH", "auto_arch", "launch", "pack_result", "set_fast_path"]

BACKENDS = ("gpu", "emu")
"""The values ``backend=`` takes; ``None`` (the default) follows where the arrays are."""

EMULATOR_ARCH = "sm_90a"
"""The target ``arch="auto"`` means where there is no GPU (what the emulator runs)."""


def auto_arch() -> str:
    """The target for ``arch="auto"``.

    The first GPU's target (``"sm_90a"`` on an H100), else :data:`EMULATOR_ARCH`. The DSL
    asks this only when ``PYPTX_ARCH`` is unset (the variable wins).
    """
    return device_arch(0) or EMULATOR_ARCH


def check_backend(backend: str | None) -> None:
    """Raises ArgumentError for a ``backend=`` value other than ``None``, "gpu" or "emu"."""
    if backend is not None and backend not in BACKENDS:
        raise ArgumentError(f"backend must be 'gpu', 'emu' or None, got {backend!r}")


def no_gpu(kernel: Kernel) -> GpuUnavailable:
    """The error for ``backend="gpu"`` on a machine without a usable GPU."""
    from ._driver import _load

    reason = _load()
    detail = reason if isinstance(reason, str) else "the driver sees no CUDA device"
    return GpuUnavailable(
        f"{kernel.name}: backend='gpu' needs an NVIDIA GPU, and none is usable here ({detail}); "
        "leave backend unset (or 'emu') to run in the emulator"
    )


def pack_result(kernel: Kernel, outputs: Sequence[Any], inputs: Sequence[Any]) -> Any:
    """``outputs`` followed by the ``mutates`` inputs: ``None``, one array, or a tuple."""
    names = kernel.positional
    mutated = [inputs[names.index(name)] for name in kernel.mutates]
    result = [*outputs, *mutated]
    if not result:
        return None
    return result[0] if len(result) == 1 else tuple(result)


def _framework(kernel: Kernel, args: Sequence[Any], backend: str | None) -> Framework:
    for value in args[: len(kernel.in_specs)]:
        info = describe(value)
        if info is not None:
            return info.framework
    if backend == "gpu" and not kernel.in_specs:
        # No array says where to run: a GPU launch of an input-less kernel goes through torch.
        try:
            import torch  # noqa: F401
        except ImportError:
            raise ArgumentError(
                f"{kernel.name} has no inputs, and backend='gpu' launches such kernels through "
                "torch, which is not installed"
            ) from None
        return Framework.TORCH
    return Framework.NUMPY


FAST_PATH_MISS: Any = object()
"""What the fast path returns when a call must take the full path."""

# The torch eager fast path (:func:`._eager.fast_call`), installed by the torch front end
# after its first eager GPU launch, so that nothing imports torch before a torch call does.
_FAST_PATH: Callable[[Kernel, Sequence[Any], Any], Any] | None = None


def set_fast_path(fast: Callable[[Kernel, Sequence[Any], Any], Any]) -> None:
    """Install the eager fast path :func:`launch` tries first (see :mod:`._eager`)."""
    global _FAST_PATH
    _FAST_PATH = fast


def launch(
    kernel: Kernel, *args: Any, backend: str | None = None, stream: Any = None, **kwargs: Any
) -> Any:
    """Launch ``kernel`` on torch tensors, JAX arrays or numpy arrays.

    Arrays on a GPU launch there; CPU tensors, numpy arrays and JAX arrays on the CPU
    platform run in the emulator (pyptx-emu) and give the same results.

    Args:
        kernel: the ``@kernel``.
        *args: the ``in_specs`` arrays, then the ``raw_params`` scalars.
        backend: ``"gpu"`` or ``"emu"`` to insist on one; ``None`` follows the arrays.
        stream: torch: a ``torch.cuda.Stream`` or raw ``CUstream`` int (default: the
            current stream); ignored by JAX (XLA's stream) and the emulator.
        **kwargs: template parameters, scalars by name, dims no input fixes.

    Returns:
        The ``out_specs`` arrays (allocated zero-filled; for a ``zero_outputs=False`` kernel
        uninitialized on a GPU, all-ones bytes in the emulator) then the ``mutates`` inputs:
        one array alone, several as a tuple, ``None`` when there are none.

    Raises:
        ArgumentError: an argument does not fit the specs (the message names it).
        GpuUnavailable: ``backend="gpu"`` without a usable GPU.
        CompileError: the PTX is rejected (the message shows the PTX and Python lines).
        ShimError: the launch shim cannot be built or loaded (see ``shim_load_error()``).
        RuntimeLaunchError: a driver call failed (the message names it).
        pyptx.emu.EmuError: the kernel faulted in the emulator.
    """
    if _FAST_PATH is not None and backend is None and not kwargs:
        result = _FAST_PATH(kernel, args, stream)
        if result is not FAST_PATH_MISS:
            return result
    check_backend(backend)
    framework = _framework(kernel, args, backend)
    if framework is Framework.TORCH:
        from ._torch import call_torch

        return call_torch(kernel, args, kwargs, backend, stream)
    if framework is Framework.JAX:
        from ._jax import call_jax

        return call_jax(kernel, args, kwargs, backend)
    return _call_numpy(kernel, bind(kernel, args, kwargs), backend)


def _call_numpy(kernel: Kernel, bound: Bound, backend: str | None) -> Any:
    from ._emulate import emulator_output, run_emulated

    if backend == "gpu":
        if gpu_count() == 0:
            raise no_gpu(kernel)
        raise ArgumentError(
            f"{kernel.name}: numpy arrays live in host memory; pass torch CUDA tensors or "
            "JAX arrays on the GPU for backend='gpu'"
        )
    spec = specialize_bound(kernel, bound.template, bound.dims)
    outputs = [
        emulator_output(shape, ty, zero=kernel.zero_outputs, column_major=t.layout is Layout.COL)
        for (shape, ty), t in zip(bound.outputs, kernel.out_specs, strict=True)
    ]
    run_emulated(spec, [*bound.inputs, *outputs], bound.scalars)
    return pack_result(kernel, outputs, bound.inputs)
