"""Call the example kernels through pyptx.runtime, from torch CPU tensors and under jax.jit.

On a machine without a GPU the runtime runs them in the emulator (pyptx-emu), which is what
these helpers exercise: the same call a user makes, with numpy arrays in and out for the
reference comparisons.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from pyptx.dsl.kernel import Kernel
from pyptx.dsl.tile import Tile

CHECK_RACES_ENV = "PYPTX_EMU_CHECK_RACES"

FRONTENDS = ("torch", "jax")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "dsl"


def load_example(name: str) -> tuple[ModuleType, Kernel]:
    """Import ``examples/dsl/<name>.py`` and return it with its one kernel."""
    path = EXAMPLES / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"pyptx_example_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernels = [v for v in vars(module).values() if isinstance(v, Kernel)]
    assert len(kernels) == 1, f"{name}.py defines {len(kernels)} kernels"
    return module, kernels[0]


# Element types whose numpy test data are their bits: (bits dtype, torch/JAX dtype name).
_AS_BITS = {"bf16": (np.uint16, "bfloat16"), "e4m3": (np.uint8, "float8_e4m3fn")}


def _framework_array(frontend: str, array: np.ndarray, tile: Tile) -> Any:
    """``array`` as a torch CPU tensor or JAX array (bf16/e4m3 bits reinterpreted)."""
    bits = _AS_BITS.get(tile.dtype.value)
    if frontend == "torch":
        import torch

        if bits is None:
            return torch.from_numpy(array.copy())
        carrier = torch.int16 if array.itemsize == 2 else torch.uint8
        raw = array.view(np.int16) if array.itemsize == 2 else array
        return torch.from_numpy(raw.copy()).view(carrier).view(getattr(torch, bits[1]))
    import jax.numpy as jnp
    import ml_dtypes

    if bits is None:
        return jnp.asarray(array)
    return jnp.asarray(array.view(getattr(ml_dtypes, bits[1])))


def _bits(value: Any) -> np.ndarray:
    """A result as numpy (bf16 and fp8 as their bits, like the inputs)."""
    if type(value).__module__.startswith("torch"):
        import torch

        if value.dtype == torch.bfloat16:
            return value.view(torch.int16).numpy().view(np.uint16)
        if "float8" in str(value.dtype):
            return value.view(torch.uint8).numpy()
        return value.numpy()
    array = np.asarray(value)
    if array.dtype.name in ("bfloat16", "float8_e4m3fn"):
        return array.view(f"u{array.itemsize}").copy()
    return array.copy()


def call(
    frontend: str,
    kernel: Kernel,
    inputs: Sequence[np.ndarray],
    scalars: Sequence[Any] = (),
    **keywords: Any,
) -> list[np.ndarray]:
    """Call ``kernel`` through pyptx.runtime from torch CPU tensors or under ``jax.jit``.

    ``inputs`` are numpy arrays in ``in_specs`` order (bf16/e4m3 as their bits); returns the
    results (outputs, then mutated inputs) as numpy arrays, bf16/e4m3 again as bits. The
    runtime runs the kernel in the emulator, with the shared-memory race checker on.
    """
    arrays = [
        _framework_array(frontend, a, t) for a, t in zip(inputs, kernel.in_specs, strict=True)
    ]
    os.environ[CHECK_RACES_ENV] = "1"
    try:
        if frontend == "torch":
            result = kernel(*arrays, *scalars, **keywords)
        else:
            import jax

            result = jax.jit(lambda *xs: kernel(*xs, *scalars, **keywords))(*arrays)
    finally:
        del os.environ[CHECK_RACES_ENV]
    results = result if isinstance(result, tuple) else (result,)
    return [_bits(r) for r in results]


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """float32 values (exactly representable in bf16) as bf16 bits in ``uint16``."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    assert not (bits & 0xFFFF).any(), "values are not exact bf16"
    return (bits >> 16).astype(np.uint16)


def bf16_values(bits: np.ndarray) -> np.ndarray:
    """bf16 bits (``uint16``) as float32 values."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


E4M3_SMALL = {0.0: 0x00, 1.0: 0x38, 2.0: 0x40, 3.0: 0x44, -1.0: 0xB8, -2.0: 0xC0, 0.5: 0x30}
"""A few e4m3 codes (sign, 4 exponent bits with bias 7, 3 mantissa bits)."""


def e4m3_bits(values: np.ndarray) -> np.ndarray:
    """Values from :data:`E4M3_SMALL` as e4m3 codes."""
    codes = np.vectorize(lambda v: E4M3_SMALL[float(v)])(values)
    return codes.astype(np.uint8)
