"""Host-side array plumbing of the Hopper and Blackwell GEMMs, in the caller's library.

For torch tensors, JAX arrays and numpy arrays alike: the grouped GEMMs' packing and
splitting, FP8's transposed copy of B, the persistent kernels' SM count.

The library is read from the module of the array's type, so nothing here imports torch or JAX
unless the caller's arrays come from it.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "EMULATOR_SMS",
    "concat_columns",
    "concat_rows",
    "library",
    "like",
    "pack_rows",
    "sm_count",
    "split_rows",
    "stack",
    "transposed",
    "zeros",
]

EMULATOR_SMS = 4
"""The SMs the persistent grid fills when the call runs in the emulator: two clusters of
two, so test shapes with more than two cluster tiles run several tiles per CTA."""


def library(x: Any) -> str:
    """``"torch"``, ``"jax"`` or ``"numpy"``: where ``x`` comes from."""
    root = type(x).__module__.split(".")[0]
    return {"torch": "torch", "jax": "jax", "jaxlib": "jax"}.get(root, "numpy")


def sm_count(x: Any) -> int:
    """The SMs of the GPU ``x`` lives on, or :data:`EMULATOR_SMS` for host arrays."""
    lib = library(x)
    if lib == "torch" and x.is_cuda:
        torch = importlib.import_module("torch")
        return int(torch.cuda.get_device_properties(x.device).multi_processor_count)
    if lib == "jax":
        jax = importlib.import_module("jax")
        try:
            device = next(iter(x.devices()))
        except (AttributeError, TypeError, ValueError, jax.errors.ConcretizationTypeError):
            device = jax.devices()[0]  # a tracer: the default backend runs it
        if device.platform in ("gpu", "cuda"):
            return int(getattr(device, "core_count", 132))
    return EMULATOR_SMS


def transposed(x: Any) -> Any:
    """A contiguous copy of the 2-D ``x`` transposed, in ``x``'s library."""
    lib = library(x)
    if lib == "torch":
        return x.t().contiguous()
    if lib == "jax":
        return importlib.import_module("jax.numpy").transpose(x)
    return np.ascontiguousarray(np.transpose(x))


def zeros(ref: Any, shape: tuple[int, ...]) -> Any:
    """Zeros of ``ref``'s library, dtype and device."""
    lib = library(ref)
    if lib == "torch":
        return ref.new_zeros(shape)
    if lib == "jax":
        return importlib.import_module("jax.numpy").zeros(shape, ref.dtype)
    return np.zeros(shape, ref.dtype)


def like(ref: Any, values: np.ndarray) -> Any:
    """The numpy ``values`` as an array of ``ref``'s library and device."""
    lib = library(ref)
    if lib == "torch":
        torch = importlib.import_module("torch")
        return torch.from_numpy(values).to(ref.device)
    if lib == "jax":
        return importlib.import_module("jax.numpy").asarray(values)
    return values


def pack_rows(arrays: Sequence[Any], padded: Sequence[int]) -> Any:
    """The 2-D ``arrays`` stacked by rows, each followed by zero rows up to ``padded[i]``."""
    lib = library(arrays[0])
    width = arrays[0].shape[1]
    if lib == "jax":
        jnp = importlib.import_module("jax.numpy")
        parts = [
            jnp.pad(x, ((0, p - x.shape[0]), (0, 0))) for x, p in zip(arrays, padded, strict=True)
        ]
        return jnp.concatenate(parts, axis=0)
    out = zeros(arrays[0], (sum(padded), width))
    row = 0
    for x, p in zip(arrays, padded, strict=True):
        out[row : row + x.shape[0]] = x
        row += p
    return out


def _join(arrays: Sequence[Any], how: str, axis: int) -> Any:
    """``numpy.<how>(arrays, axis)`` (``concatenate`` or ``stack``) in the arrays' library."""
    lib = library(arrays[0])
    if lib == "torch":
        join = getattr(importlib.import_module("torch"), "cat" if how == "concatenate" else how)
        return join(list(arrays), dim=axis)
    module = importlib.import_module("jax.numpy") if lib == "jax" else np
    return getattr(module, how)(list(arrays), axis=axis)


def concat_rows(arrays: Sequence[Any]) -> Any:
    """The 2-D ``arrays`` one under the other: ``(sum of rows, columns)``."""
    return _join(arrays, "concatenate", 0)


def concat_columns(arrays: Sequence[Any]) -> Any:
    """The 2-D ``arrays`` side by side: ``(rows, sum of columns)``."""
    return _join(arrays, "concatenate", 1)


def stack(arrays: Sequence[Any]) -> Any:
    """The arrays (all of one shape) stacked along a new first axis."""
    return _join(arrays, "stack", 0)


def split_rows(x: Any, starts: Sequence[int], counts: Sequence[int]) -> list[Any]:
    """Views of rows ``starts[i] .. starts[i] + counts[i] - 1`` of ``x``."""
    return [x[s : s + c] for s, c in zip(starts, counts, strict=True)]
