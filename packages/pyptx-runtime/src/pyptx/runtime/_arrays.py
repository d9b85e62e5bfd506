"""What the runtime needs to know about an array, whichever framework made it.

:func:`describe` reads a torch tensor, a JAX array (or tracer) or a numpy array into one
:class:`ArrayInfo` without importing any framework that the caller has not imported already.
"""

from __future__ import annotations

import enum
import sys
from dataclasses import dataclass
from typing import Any

__all__ = ["ArrayInfo", "Framework", "describe"]


class Framework(enum.Enum):
    """Which library an array belongs to."""

    NUMPY = "numpy"
    TORCH = "torch"
    JAX = "jax"


@dataclass(frozen=True)
class ArrayInfo:
    """One array argument as the runtime sees it.

    Attributes:
        framework: the library the array belongs to.
        shape: its shape (ints; under ``torch.compile`` possibly symbolic ints).
        dtype: the dtype's name in that library (``"float32"``, ``"bfloat16"``, ...).
        device: ``"cpu"``, ``"cuda"`` or ``"traced"`` (a JAX tracer: decided at lowering).
        device_index: the CUDA device ordinal, or ``None``.
        contiguous: whether the elements are dense and row-major.
        data_ptr: the address of the first element, when known (torch, numpy).
        column_major: whether the elements are dense and column-major (Fortran order).
    """

    framework: Framework
    shape: tuple[Any, ...]
    dtype: str
    device: str
    device_index: int | None
    contiguous: bool
    data_ptr: int | None
    column_major: bool = False

    def where(self) -> str:
        """``"cuda:0"``, ``"cpu"``...: the device in messages."""
        if self.device_index is None:
            return self.device
        return f"{self.device}:{self.device_index}"


def _torch_info(t: Any) -> ArrayInfo:
    dev = t.device
    return ArrayInfo(
        Framework.TORCH,
        tuple(t.shape),
        str(t.dtype).removeprefix("torch."),
        "cuda" if dev.type == "cuda" else dev.type,
        dev.index if dev.type == "cuda" else None,
        bool(t.is_contiguous()),
        None,  # read only where needed: data_ptr() is not traceable under torch.compile
        bool(t.dim() == 2 and t.t().is_contiguous()),
    )


def _numpy_info(a: Any) -> ArrayInfo:
    return ArrayInfo(
        Framework.NUMPY,
        tuple(int(s) for s in a.shape),
        a.dtype.name,
        "cpu",
        None,
        bool(a.flags.c_contiguous),
        int(a.ctypes.data),
        bool(a.flags.f_contiguous),
    )


def _jax_info(a: Any, jax: Any) -> ArrayInfo:
    shape = tuple(int(s) for s in a.shape)
    dtype = str(a.dtype)
    if isinstance(a, jax.core.Tracer):
        return ArrayInfo(Framework.JAX, shape, dtype, "traced", None, True, None)
    devices = list(a.devices())
    platform = devices[0].platform if devices else "cpu"
    index = devices[0].id if platform in ("gpu", "cuda") and len(devices) == 1 else None
    device = "cuda" if platform in ("gpu", "cuda") else platform
    return ArrayInfo(Framework.JAX, shape, dtype, device, index, True, None)


def describe(value: Any) -> ArrayInfo | None:
    """The :class:`ArrayInfo` of ``value``, or ``None`` when it is not an array.

    A framework is consulted only when it is already imported (an object cannot be one of
    its arrays otherwise), so this never imports torch or JAX.
    """
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return _torch_info(value)
    jax = sys.modules.get("jax")
    if jax is not None and isinstance(value, (jax.Array, jax.core.Tracer)):
        return _jax_info(value, jax)
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray):
        return _numpy_info(value)
    return None
