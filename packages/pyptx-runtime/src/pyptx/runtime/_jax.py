"""JAX front end: ``jax.jit(kernel)(a, b)``, ``jax.shard_map``, ``jax.export``.

A call traces the kernel for the arrays' (static) shapes and lowers per platform with
``jax.lax.platform_dependent``:

- **cuda**: a typed XLA FFI custom call, ``pyptx_launch``, on XLA's stream. Its attributes are
  the specialization's ``handle`` (a content hash the launch shim knows the cubin and launch
  configuration by) and the packed ``scalars`` bytes. The outputs enter the call as
  zero-filled operands aliased to its results (``input_output_aliases``), and so do the
  ``mutates`` inputs, so the shim sees every buffer in parameter order among the operands.
  For a ``zero_outputs=False`` kernel the outputs are not operands: XLA allocates the
  results (uninitialized) and the shim, which takes the operands then the results, sees the
  inputs then the outputs, again in parameter order (the aliased ``mutates`` results come
  after them and are not read). The handler is marked command-buffer compatible, so XLA may
  capture it in CUDA graphs.
- **cpu**: ``jax.pure_callback`` running the kernel in the emulator (outputs zero-filled, or
  poisoned for ``zero_outputs=False``: see :mod:`._emulate`).

``backend="gpu"`` / ``"emu"`` lower only that branch. Scalars must be static Python numbers
(they are baked into the call's attributes); under ``jax.shard_map`` each device runs the
kernel on its shard, and the shim loads the module once per device context.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pyptx.dsl.kernel import Kernel

from ._binding import Bound, bind, dtype_names
from ._errors import ArgumentError, ShimError
from ._launch import pack_result
from ._specialize import Specialization, specialize_bound

__all__ = ["FFI_TARGET", "call_jax", "jax_ffi_call", "register_ffi_target"]

FFI_TARGET = "pyptx_launch"
"""The name of the XLA FFI target the CUDA lowering calls."""


def register_ffi_target() -> Any:
    """Register the shim's ``pyptx_launch`` handler with XLA for the CUDA platform.

    Idempotent. Returns a status that is truthy when the target is registered, and falsy
    with its ``reason`` where it cannot be (no JAX, or a shim built without the XLA
    headers); :func:`pyptx.runtime.shim_load_error` says why a shim is missing altogether.

    Raises:
        ShimError: the shim cannot be built or loaded.
    """
    from ._shim import load_shim

    return load_shim().register_ffi_target()


def _jax_dtype(jnp: Any, ty: Any) -> Any:
    return jnp.dtype(dtype_names(ty)[0])


def jax_ffi_call(
    spec: Specialization,
    operands: Sequence[Any],
    result_types: Sequence[Any],
    aliases: Mapping[int, int],
    scalars: Sequence[int | float],
    handle: int | None = None,
) -> Any:
    """The ``pyptx_launch`` FFI call for ``spec`` on ``operands`` (parameter order).

    Args:
        spec: the specialization (its handle must be registered with the shim before the
            call runs; :func:`call_jax` does that on GPU machines).
        operands: the buffers, in kernel parameter order: the inputs, then the outputs (or
            only the inputs: the shim then finds the outputs among the results, which
            follow the operands).
        result_types: ``jax.ShapeDtypeStruct`` of each result.
        aliases: operand index -> result index (outputs and mutated inputs).
        scalars: the ``raw_params`` values.
        handle: the shim handle to call (default: ``spec.handle``, the specialization
            compiled for its own target).

    Returns:
        The results (a list).
    """
    import jax

    from ._shim import xla_attributes

    call = jax.ffi.ffi_call(
        FFI_TARGET,
        list(result_types),
        input_output_aliases=dict(aliases),
        vmap_method="sequential",
        has_side_effect=not result_types,  # else XLA drops a call whose results nobody uses
    )
    attributes = xla_attributes(
        spec.handle if handle is None else handle, spec.pack_scalars(scalars)
    )
    return call(*operands, **attributes)


def _prepare_gpu(spec: Specialization) -> int | None:
    """Compile and register ``spec`` with the shim when this process has a CUDA backend.

    Returns the shim handle to call, or ``None`` when there is no CUDA backend here (lowering
    for CUDA elsewhere, as ``jax.export`` does). The entry is pinned: XLA executables keep the
    handle for as long as they live. Every GPU of the process must share one architecture
    (one lowering serves all of them).
    """
    import jax

    try:
        devices = jax.devices("cuda")
    except RuntimeError:
        return None
    from ._driver import device_arch
    from ._gpu import compile_target, kernel_registry

    status = register_ffi_target()
    if not status:
        raise ShimError(f"cannot register the pyptx_launch XLA target: {status.reason}")
    local = getattr(devices[0], "local_hardware_id", None)
    arch = device_arch(local if local is not None else 0) or spec.arch
    return kernel_registry().prepare(spec, compile_target(spec.arch, arch))


def _emulate(kernel: Kernel, spec: Specialization, bound: Bound) -> Any:
    """A host callback running ``spec`` in the emulator on the callback's numpy arrays."""
    from ._emulate import emulator_output, run_emulated

    n_in = len(kernel.in_specs)
    names = kernel.positional[:n_in]

    def callback(*arrays: Any) -> tuple[Any, ...]:
        inputs = [np.array(a, copy=True) for a in arrays[:n_in]]
        outputs = [
            emulator_output(shape, ty, zero=kernel.zero_outputs) for shape, ty in _static(bound)
        ]
        run_emulated(spec, [*inputs, *outputs], bound.scalars)
        mutated = [inputs[names.index(n)] for n in kernel.mutates]
        return (*outputs, *mutated)

    return callback


def _static(bound: Bound) -> list[tuple[tuple[int, ...], Any]]:
    return [(tuple(int(s) for s in shape), ty) for shape, ty in bound.outputs]


def call_jax(
    kernel: Kernel, args: Sequence[Any], kwargs: Mapping[str, Any], backend: str | None
) -> Any:
    """Launch ``kernel`` on JAX arrays (or tracers); see :func:`pyptx.runtime.launch`."""
    import jax
    import jax.numpy as jnp

    bound = bind(kernel, args, kwargs)
    spec = specialize_bound(kernel, bound.template, bound.dims)
    n_in = len(kernel.in_specs)
    names = kernel.positional[:n_in]
    out_types = [jax.ShapeDtypeStruct(s, _jax_dtype(jnp, ty)) for s, ty in _static(bound)]
    mut_types = [
        jax.ShapeDtypeStruct(tuple(bound.infos[names.index(n)].shape), args[names.index(n)].dtype)
        for n in kernel.mutates
    ]
    result_types = [*out_types, *mut_types]
    inputs = [jnp.asarray(a) for a in bound.inputs]

    def on_cpu(*operands: Any) -> list[Any]:
        results = jax.pure_callback(
            _emulate(kernel, spec, bound), tuple(result_types), *operands, vmap_method="sequential"
        )
        return list(results)

    handle: int | None = None

    def on_gpu(*operands: Any) -> list[Any]:
        # Zero-filled outputs are operands aliased to the results; without them the results
        # are XLA's own buffers, which the shim takes after the operands (see the module).
        zeros = [jnp.zeros(t.shape, t.dtype) for t in out_types] if kernel.zero_outputs else []
        aliases = {n_in + j: j for j in range(len(zeros))}
        for m, n in enumerate(kernel.mutates):
            aliases[names.index(n)] = len(out_types) + m
        buffers = [*operands, *zeros]
        return list(
            jax_ffi_call(spec, buffers, result_types, aliases, bound.scalars, handle=handle)
        )

    if backend == "emu":
        results = on_cpu(*inputs)
    elif backend == "gpu":
        _gpu_backend_or_raise(kernel)
        handle = _prepare_gpu(spec)
        results = on_gpu(*inputs)
    else:
        if _may_run_on_gpu(bound):
            handle = _prepare_gpu(spec)
        results = jax.lax.platform_dependent(*inputs, cpu=on_cpu, cuda=on_gpu)
    outputs = results[: len(out_types)]
    mutated = results[len(out_types) :]
    return pack_result(kernel, outputs, _with_mutated(kernel, bound.inputs, mutated))


def _may_run_on_gpu(bound: Bound) -> bool:
    """Whether this call can execute on a GPU of this process.

    True for arrays on a GPU, and for traced values while JAX's default backend is a GPU.
    Lowering for CUDA elsewhere, as ``jax.export`` does, needs nothing registered here.
    """
    import jax

    devices = {info.device for info in bound.infos}
    if "cuda" in devices:
        return True
    return "traced" in devices and jax.default_backend() in ("gpu", "cuda")


def _gpu_backend_or_raise(kernel: Kernel) -> None:
    import jax

    try:
        jax.devices("cuda")
    except RuntimeError:
        from ._driver import gpu_count
        from ._launch import no_gpu

        if gpu_count() == 0:
            raise no_gpu(kernel) from None
        raise ArgumentError(
            f"{kernel.name}: backend='gpu' needs JAX with CUDA (jax[cuda13]); this JAX has no "
            "CUDA backend"
        ) from None


def _with_mutated(kernel: Kernel, inputs: Sequence[Any], mutated: Sequence[Any]) -> list[Any]:
    """``inputs`` with each ``mutates`` entry replaced by its new value (JAX is functional)."""
    names = kernel.positional[: len(kernel.in_specs)]
    out = list(inputs)
    for name, value in zip(kernel.mutates, mutated, strict=True):
        out[names.index(name)] = value
    return out
