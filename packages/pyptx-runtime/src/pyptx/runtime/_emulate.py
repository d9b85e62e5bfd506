"""The CPU backend: a specialization run in pyptx-emu on numpy buffers.

Used for numpy arrays, torch CPU tensors and JAX arrays on the CPU platform, so a kernel is
debugged on a machine without a GPU with the same call as on one. Set
``PYPTX_EMU_CHECK_RACES=1`` to run every such launch with the emulator's shared-memory race
checker (slower; a race raises :class:`pyptx.emu.DataRace`).

Outputs start zero-filled, as on a GPU, unless the kernel says ``zero_outputs=False`` (it
writes every element of every output): then they start filled with :data:`POISON_BYTE`
(all-ones bytes: NaN for floats, -1 for signed and the maximum for unsigned integers), so an
element the kernel leaves unwritten shows in its results instead of passing as a zero.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from pyptx.emu import LaunchStats, launch, tensor_map

from ._binding import dtype_names
from ._errors import ArgumentError
from ._specialize import ParamSource, Specialization

__all__ = [
    "CHECK_RACES_ENV",
    "POISON_BYTE",
    "emulator_output",
    "numpy_dtype",
    "output_dtype",
    "poison",
    "raw_view",
    "run_emulated",
]

CHECK_RACES_ENV = "PYPTX_EMU_CHECK_RACES"
"""Set to ``1`` to check shared-memory races in every emulated launch of the runtime."""

POISON_BYTE = 0xFF
"""Every byte of a ``zero_outputs=False`` kernel's outputs before an emulated launch."""

_NUMPY_NATIVE = frozenset(
    [
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
    ]
)


def numpy_dtype(name: str) -> np.dtype[Any]:
    """The numpy dtype named ``name``; ``bfloat16`` and the fp8 types come from ml_dtypes.

    Raises:
        ArgumentError: ml_dtypes is needed and missing.
    """
    if name in _NUMPY_NATIVE:
        return np.dtype(name)
    try:
        import ml_dtypes
    except ImportError:  # pragma: no cover - ml_dtypes is a dependency
        raise ArgumentError(
            f"numpy arrays of {name} need ml_dtypes (pip install ml_dtypes)"
        ) from None
    return np.dtype(getattr(ml_dtypes, name))


def raw_view(array: np.ndarray) -> np.ndarray:
    """``array``'s memory as the emulator takes it: C-contiguous, numpy-native dtype.

    A column-major array becomes its (C-contiguous) transpose, and ml_dtypes types (bf16,
    fp8) a same-width unsigned view; both share ``array``'s memory, so writes land in it.
    """
    if not array.flags.c_contiguous and array.flags.f_contiguous:
        array = array.T
    if array.dtype.name in _NUMPY_NATIVE:
        return array
    return array.view(f"u{array.dtype.itemsize}")


def output_dtype(ty: Any) -> np.dtype[Any]:
    """The numpy dtype the runtime allocates for an output of PTX type ``ty``."""
    return numpy_dtype(dtype_names(ty)[0])


def poison(array: np.ndarray) -> None:
    """Fill ``array`` (C- or Fortran-contiguous) with :data:`POISON_BYTE`, in place."""
    raw_view(array).reshape(-1).view(np.uint8).fill(POISON_BYTE)


def emulator_output(
    shape: Sequence[int], ty: Any, *, zero: bool, column_major: bool = False
) -> np.ndarray:
    """A new output array of PTX type ``ty`` for an emulated launch.

    Args:
        shape: its shape.
        ty: its element type (the tile's dtype).
        zero: zero-filled (the kernel's ``zero_outputs``), else filled with
            :data:`POISON_BYTE`.
        column_major: Fortran order (a ``Layout.COL`` tile).
    """
    order: Literal["C", "F"] = "F" if column_major else "C"
    dtype = output_dtype(ty)
    if zero:
        return np.zeros(tuple(shape), dtype=dtype, order=order)
    out = np.empty(tuple(shape), dtype=dtype, order=order)
    poison(out)
    return out


def run_emulated(
    spec: Specialization, buffers: Sequence[np.ndarray], scalars: Sequence[int | float]
) -> LaunchStats:
    """Run ``spec`` in the emulator; ``buffers`` (inputs, then outputs) are updated in place.

    Raises:
        ArgumentError: a TMA tile the emulator cannot describe (``tma_rank=3``).
        pyptx.emu.EmuError: the kernel faulted (out of bounds, deadlock...), with its PTX line.
    """
    dims = dict(spec.dims)
    args: list[Any] = []
    values = iter(scalars)
    for plan in spec.params:
        if plan.kind is ParamSource.SCALAR:
            args.append(next(values))
            continue
        buffer = raw_view(buffers[plan.index])
        tile = plan.tile
        if plan.kind is ParamSource.POINTER or tile is None:
            args.append(buffer)
            continue
        if tile.tma_rank != 2:
            raise ArgumentError(
                f"{spec.kernel_name}: parameter {plan.index} is a tma_rank={tile.tma_rank} TMA "
                "tile, which the emulator backend does not lay out; use tma_rank=2"
            )
        box_spec = tile.tma_box if tile.tma_box is not None else tile.dims
        box = tuple(dims[d] if isinstance(d, str) else d for d in box_spec)
        args.append(
            tensor_map(buffer, box=box, swizzle=tile.layout.swizzle_bytes, dtype=tile.dtype.value)
        )
    return launch(
        spec.traced.module,
        spec.kernel_name,
        grid=spec.grid,
        block=spec.block,
        cluster=spec.cluster,
        smem=spec.dynamic_smem,
        args=args,
        check_races=os.environ.get(CHECK_RACES_ENV, "") not in ("", "0"),
    )
