"""The eager fast path for torch on a GPU: a repeated call is a few lookups and one launch.

The first eager GPU call of a kernel with a given call signature goes the full way
(:func:`pyptx.runtime._torch.call_torch`): binding and its checks, the specialization,
compiling, registering with the shim. It leaves a :class:`Plan` behind, keyed by the
signature: the number of positional arguments and, per input tensor, its type, shape,
dtype, device and strides. The next call with that signature checks only its scalars
(type and range, as binding does), allocates the outputs (zero-filled, or uninitialized for
a ``zero_outputs=False`` kernel: the plan records which), reads the current stream and
calls the shim.

Anything else takes the full path, which reports errors the same way it always has:
keywords or ``backend=``, a ``stream=`` other than the current stream, a scalar that is not
a plain ``int``/``float`` in range, a TMA input at an address that is not 16-byte aligned,
CUDA graph capture (the registry must pin what a graph keeps), ``torch.compile`` tracing,
a kernel without inputs (the device would come from torch's current device), and a plan
whose registry entry was released since (:attr:`KernelRegistry.generation`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import torch

from pyptx.dsl.kernel import Kernel
from pyptx.dsl.tile import Layout

from ._binding import _SCALAR_RULES, _signature
from ._gpu import KernelRegistry
from ._launch import FAST_PATH_MISS
from ._specialize import ParamSource, Specialization

__all__ = [
    "MISS",
    "Plan",
    "allocate_output",
    "current_raw_stream",
    "fast_call",
    "is_capturing",
    "record_plan",
    "signature_key",
]

MISS: Any = FAST_PATH_MISS
"""What :func:`fast_call` returns when the call must take the full path."""


class Plan(NamedTuple):
    """What a repeated eager call with one signature needs; see the module docstring."""

    handle: int
    device: int
    rules: tuple[tuple[bool, int, int], ...]  # per scalar: (is float, low, high)
    pack: Callable[..., bytes]
    outputs: tuple[tuple[tuple[int, ...], Any, bool, bool], ...]
    """Per output: (shape, torch dtype, column-major, zero-filled)."""
    tma: tuple[int, ...]  # buffer indices read through a tensor map (16-byte aligned)
    mutated: tuple[int, ...]  # input indices returned after the outputs
    registry: KernelRegistry
    generation: int
    launch: Callable[[int, int, Sequence[int], bytes, int], None]


# Plans by id(kernel), then by signature; a finalizer drops a kernel's plans with it.
_PLANS: dict[int, dict[tuple[Any, ...], Plan]] = {}

current_raw_stream: Callable[[int], int] = getattr(
    torch._C,
    "_cuda_getCurrentRawStream",
    lambda device: int(torch.cuda.current_stream(device).cuda_stream),
)
"""The current ``CUstream`` of a device as an int (torch's C entry point where it has one:
building a ``torch.cuda.Stream`` to read it costs more than a launch)."""

is_capturing: Callable[[], bool] = getattr(
    torch._C, "_cuda_isCurrentStreamCapturing", torch.cuda.is_current_stream_capturing
)
"""Whether the current stream is capturing a CUDA graph."""


def signature_key(args: Sequence[Any], n_in: int) -> tuple[Any, ...]:
    """The plan key of a call: ``len(args)``, then each input's binding signature.

    The signature is :func:`._binding._signature`'s (type, shape, dtype, device, strides),
    the same one binding caches its checks by; ``None`` for anything not a torch tensor or
    numpy array, which no plan is recorded for.
    """
    return (len(args), *map(_signature, args[:n_in]))


def _rules(kernel: Kernel) -> tuple[tuple[bool, int, int], ...]:
    return tuple(_SCALAR_RULES.get(ty_name, (True, 0, 0)) for ty_name, _ in kernel.raw_params)


def record_plan(
    kernel: Kernel,
    args: Sequence[Any],
    spec: Specialization,
    handle: int,
    device: int,
    outputs: Sequence[Any],
    registry: KernelRegistry,
    launch: Callable[[int, int, Sequence[int], bytes, int], None],
) -> None:
    """Remember how the eager call ``kernel(*args)`` that just launched ran (see the module)."""
    n_in = len(kernel.in_specs)
    if n_in == 0:
        return
    plans = _PLANS.get(id(kernel))
    if plans is None:
        plans = _PLANS[id(kernel)] = {}
        weakref.finalize(kernel, _PLANS.pop, id(kernel), None)
    names = kernel.positional
    plans[signature_key(args, n_in)] = Plan(
        handle=handle,
        device=device,
        rules=_rules(kernel),
        pack=spec.scalar_struct.pack,
        outputs=tuple(
            (tuple(t.shape), t.dtype, tile.layout is Layout.COL, kernel.zero_outputs)
            for t, tile in zip(outputs, kernel.out_specs, strict=True)
        ),
        tma=tuple(p.index for p in spec.params if p.kind is ParamSource.TENSOR_MAP),
        mutated=tuple(names.index(name) for name in kernel.mutates),
        registry=registry,
        generation=registry.generation,
        launch=launch,
    )


def allocate_output(
    shape: Sequence[Any], dtype: Any, device: Any, column_major: bool, zero: bool
) -> Any:
    """A new output tensor: ``torch.zeros``, or ``torch.empty`` when ``zero`` is false.

    ``zero`` is the kernel's ``zero_outputs``: false when the kernel writes every element, so
    the fill would be one more full write of the output for nothing. A ``Layout.COL`` output
    is the transpose of a row-major buffer. Used by the fast path and by the full path
    (eager, ``torch.compile``, CUDA graph capture) alike.
    """
    new = torch.zeros if zero else torch.empty
    if column_major:
        return new(tuple(reversed(shape)), dtype=dtype, device=device).t()
    return new(tuple(shape), dtype=dtype, device=device)


def fast_call(kernel: Kernel, args: Sequence[Any], stream: Any) -> Any:
    """Launch ``kernel(*args)`` from its plan, or return :data:`MISS` (see the module)."""
    if torch.compiler.is_compiling():  # first: Dynamo folds it, and traces nothing below
        return MISS
    plans = _PLANS.get(id(kernel))
    if plans is None:
        return MISS
    n_in = len(kernel.in_specs)
    try:
        plan = plans.get(signature_key(args, n_in))
    except TypeError:  # an unhashable shape or device: the full path reports it
        return MISS
    if plan is None or plan.generation != plan.registry.generation:
        return MISS
    scalars = args[n_in:]
    for value, (is_float, lo, hi) in zip(scalars, plan.rules, strict=True):
        kind = type(value)
        if not (kind is float if is_float else kind is int and lo <= value <= hi):
            return MISS
    if is_capturing():
        return MISS
    current = current_raw_stream(plan.device)
    if stream is not None and (type(stream) is not int or stream != current):
        return MISS
    outputs = [
        allocate_output(shape, dtype, plan.device, column_major, zero)
        for shape, dtype, column_major, zero in plan.outputs
    ]
    inputs = args[:n_in]
    pointers = [t.data_ptr() for t in (*inputs, *outputs)]
    for i in plan.tma:
        if pointers[i] % 16:
            return MISS
    plan.launch(plan.handle, current, pointers, plan.pack(*scalars), plan.device)
    result = [*outputs, *(inputs[i] for i in plan.mutated)]
    if not result:
        return None
    return result[0] if len(result) == 1 else tuple(result)
