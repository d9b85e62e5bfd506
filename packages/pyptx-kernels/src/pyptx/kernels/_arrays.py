"""What the public functions need to know about an argument array, from any library.

The library is read from the module of the array's type (``torch``, ``jax``/``jaxlib``,
``numpy``), so nothing here imports torch or JAX: an object can only be one of their arrays if
the caller imported them already.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ArrayFacts", "facts", "reshape", "zeros_like_library"]

# The libraries' dtype names -> pyptx type names (the names Implementation.dtypes uses).
_DTYPE_NAMES = {
    "float32": "f32",
    "float16": "f16",
    "bfloat16": "bf16",
    "float8_e4m3fn": "e4m3",
    "float8_e5m2": "e5m2",
}

_LIBRARY_DTYPES = {v: k for k, v in _DTYPE_NAMES.items()}

# The root module of an array type -> the library's name in messages.
_LIBRARIES = {"torch": "torch", "jax": "jax", "jaxlib": "jax", "numpy": "numpy"}
_KINDS = {"torch": "a torch tensor", "jax": "a JAX array", "numpy": "a numpy array"}


@dataclass(frozen=True)
class ArrayFacts:
    """One array argument, as the public functions check it.

    Attributes:
        name: the argument's name in messages (``"x"``, ``"a_list[2]"``).
        library: ``"torch"``, ``"jax"`` or ``"numpy"``.
        shape: the shape, as ints.
        dtype: the pyptx type name (``"bf16"``) where there is one, else the library's own
            dtype name (``"float64"``), which no kernel takes.
        gpu: the CUDA device index when the array lives on a GPU, ``None`` on the host.
        contiguous: whether the elements are dense and row-major.
    """

    name: str
    library: str
    shape: tuple[int, ...]
    dtype: str
    gpu: int | None
    contiguous: bool

    @property
    def kind(self) -> str:
        """``"a torch tensor"``...: the library in messages."""
        return _KINDS[self.library]

    @property
    def where(self) -> str:
        """``"cuda:0"`` or ``"cpu"``: the device in messages."""
        return "cpu" if self.gpu is None else f"cuda:{self.gpu}"


def facts(value: Any, name: str) -> ArrayFacts:
    """The :class:`ArrayFacts` of argument ``name``.

    Raises:
        TypeError: ``value`` is not a torch tensor, JAX array or numpy array.
        ValueError: it lives on a device the kernels cannot reach (``meta``, several JAX
            devices).
    """
    library = _LIBRARIES.get(type(value).__module__.split(".")[0])
    if library == "torch":
        return _torch_facts(value, name)
    if library == "jax":
        return _jax_facts(value, name)
    if library == "numpy" and hasattr(value, "flags"):
        shape = tuple(int(s) for s in value.shape)
        dtype = _DTYPE_NAMES.get(value.dtype.name, value.dtype.name)
        return ArrayFacts(name, "numpy", shape, dtype, None, bool(value.flags.c_contiguous))
    raise TypeError(
        f"{name} must be a torch tensor, a JAX array or a numpy array, got {type(value).__name__}"
    )


def _torch_facts(t: Any, name: str) -> ArrayFacts:
    dtype = str(t.dtype).removeprefix("torch.")
    device = t.device
    if device.type not in ("cpu", "cuda"):
        raise ValueError(
            f"{name} is on {device}; pass a CPU tensor (the emulator runs it) or a CUDA tensor"
        )
    gpu = None if device.type == "cpu" else (device.index or 0)
    shape = tuple(int(s) for s in t.shape)
    return ArrayFacts(name, "torch", shape, _DTYPE_NAMES.get(dtype, dtype), gpu, t.is_contiguous())


def _jax_facts(a: Any, name: str) -> ArrayFacts:
    jax = sys.modules["jax"]
    dtype = str(a.dtype)
    shape = tuple(int(s) for s in a.shape)
    if isinstance(a, jax.core.Tracer):
        # Under jax.jit the array has no device yet; it will run on the default backend.
        on_gpu = jax.default_backend() in ("gpu", "cuda")
        gpu = 0 if on_gpu else None
    else:
        devices = list(a.devices())
        if len(devices) != 1:
            raise ValueError(
                f"{name} is spread over {len(devices)} devices; pass an array on one device"
            )
        on_gpu = devices[0].platform in ("gpu", "cuda")
        gpu = int(devices[0].id) if on_gpu else None
    return ArrayFacts(name, "jax", shape, _DTYPE_NAMES.get(dtype, dtype), gpu, True)


def reshape(value: Any, shape: Sequence[int]) -> Any:
    """``value`` reshaped (a view where the library can), in its own library."""
    return value.reshape(tuple(shape))


def zeros_like_library(like: Any, shape: Sequence[int], dtype: str) -> Any:
    """A zero array of ``shape`` and pyptx type ``dtype`` in ``like``'s library and device.

    The public functions answer calls with no work to do (an empty dim) with this, instead of
    launching a kernel over nothing.
    """
    library = _LIBRARIES[type(like).__module__.split(".")[0]]
    name = _LIBRARY_DTYPES[dtype]
    if library == "torch":
        torch = sys.modules["torch"]
        return torch.zeros(tuple(shape), dtype=getattr(torch, name), device=like.device)
    if library == "jax":
        jnp = importlib.import_module("jax.numpy")
        return jnp.zeros(tuple(shape), dtype=getattr(jnp, name))
    numpy = sys.modules["numpy"]
    if name in ("float32", "float16"):
        return numpy.zeros(tuple(shape), dtype=name)
    ml_dtypes = importlib.import_module("ml_dtypes")  # numpy's bf16/fp8 types come from it
    return numpy.zeros(tuple(shape), dtype=getattr(ml_dtypes, name))
