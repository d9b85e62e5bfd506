"""JAX front end: ``jax.jit(kernel)(a, b)``, ``jax.shard_map``, ``jax.export``.

A call traces the kernel for the arrays' (static) shapes and lowers per platform with
``jax.lax.platform_dependent``:

- **cuda**: a typed XLA FFI custom call, ``pyptx_launch``, on XLA's stream. Its attributes are
  the specialization's ``handle`` (a content hash the launch shim knows the cubin and launch
  configuration by) and the packed ``scalars`` bytes. The outputs enter the call as
  zero-filled operands aliased to its results (``input_output_aliases``), and so do the
  ``mutates`` inputs, so the shim sees every buffer in parameter order among the operands.
  The handler is marked command-buffer compatible, so XLA may capture it in CUDA graphs.
- **cpu**: ``jax.pure_callback`` running the kernel in the emulator.

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
from ._specialize import Specialization, specialize

__all__ = ["FFI_TARGET", "call_jax", "jax_ffi_call", "register_ffi_target"]

FFI_TARGET = "pyptx_launch"
"""The name of the XLA FFI target the CUDA lowering calls."""


def register_ffi_target() -> bool:
    """Register the shim's ``pyptx_launch`` handler with XLA for the CUDA platform.

    Idempotent. Returns ``False`` where it cannot be registered (no JAX, or a shim built
    without the XLA headers); :func:`pyptx.runtime.shim_load_error` says why the shim is
    missing.

    Raises:
        ShimError: the shim cannot be built or loaded.
    """
    from ._shim import load_shim

    return bool(load_shim().register_ffi_target())


def _jax_dtype(jnp: Any, ty: Any) -> Any:
    return jnp.dtype(dtype_names(ty)[0])


def jax_ffi_call(
    spec: Specialization,
    operands: Sequence[Any],
    result_types: Sequence[Any],
    aliases: Mapping[int, int],
    scalars: Sequence[int | float],
) -> Any:
    """The ``pyptx_launch`` FFI call for ``spec`` on ``operands`` (parameter order).

    Args:
        spec: the specialization (its ``handle`` must be registered with the shim before
            the call runs; :func:`call_jax` does that on GPU machines).
        operands: every buffer, in kernel parameter order (inputs, then outputs).
        result_types: ``jax.ShapeDtypeStruct`` of each result.
        aliases: operand index -> result index (outputs and mutated inputs).
        scalars: the ``raw_params`` values.

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
    )
    return call(*operands, **xla_attributes(spec.handle, spec.pack_scalars(scalars)))


def _prepare_gpu(kernel: Kernel, spec: Specialization) -> None:
    """Compile and register ``spec`` with the shim when this process has a GPU backend."""
    import jax

    try:
        devices = jax.devices("cuda")
    except RuntimeError:
        return  # lowering for CUDA elsewhere (jax.export): nothing to load here
    from ._driver import device_arch
    from ._gpu import kernel_registry

    if not register_ffi_target():
        raise ShimError(
            "the launch shim was built without the XLA FFI headers, so JAX cannot call it; "
            "rebuild it with JAX installed (pyptx.runtime.build_shim(with_xla=True))"
        )
    arch = device_arch(devices[0].id) or spec.arch
    kernel_registry().prepare(spec, arch, owner=kernel)


def _emulate(kernel: Kernel, spec: Specialization, bound: Bound) -> Any:
    """A host callback running ``spec`` in the emulator on the callback's numpy arrays."""
    from ._emulate import output_dtype, run_emulated

    n_in = len(kernel.in_specs)
    names = kernel.positional[:n_in]

    def callback(*arrays: Any) -> tuple[Any, ...]:
        inputs = [np.array(a, copy=True) for a in arrays[:n_in]]
        outputs = [np.zeros(shape, dtype=output_dtype(ty)) for shape, ty in _static(bound)]
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
    spec = specialize(kernel, dict(bound.template), bound.env)
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

    def on_gpu(*operands: Any) -> list[Any]:
        zeros = [jnp.zeros(t.shape, t.dtype) for t in out_types]
        aliases = {n_in + j: j for j in range(len(out_types))}
        for m, n in enumerate(kernel.mutates):
            aliases[names.index(n)] = len(out_types) + m
        return list(jax_ffi_call(spec, [*operands, *zeros], result_types, aliases, bound.scalars))

    if backend == "emu":
        results = on_cpu(*inputs)
    elif backend == "gpu":
        _gpu_backend_or_raise(kernel)
        _prepare_gpu(kernel, spec)
        results = on_gpu(*inputs)
    else:
        _prepare_gpu(kernel, spec)
        results = jax.lax.platform_dependent(*inputs, cpu=on_cpu, cuda=on_gpu)
    outputs = results[: len(out_types)]
    mutated = results[len(out_types) :]
    return pack_result(kernel, outputs, _with_mutated(kernel, bound.inputs, mutated))


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
