"""Run a traced pyptx kernel in the emulator: the launch a runtime would do, on numpy arrays.

The DSL and the emulator never import each other, so this glue lives with the cross-package
tests: it traces the kernel at the given dims, turns its grid into numbers, wraps TMA tiles
into emulator tensor maps and passes everything else through.
"""

from __future__ import annotations

import importlib.util
import inspect
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from pyptx.dsl.kernel import Kernel
from pyptx.emu import LaunchStats, launch, tensor_map
from pyptx.ir import Linkage, StateSpace, VariableDecl

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


def _numbers(spec: Any, dims: dict[str, int]) -> tuple[int, ...]:
    if callable(spec):
        names = inspect.signature(spec).parameters
        spec = spec(**{n: dims[n] for n in names})
    return tuple(int(v) for v in spec)


def _dynamic_smem(module: Any) -> bool:
    return any(
        isinstance(s, VariableDecl)
        and s.state_space is StateSpace.SHARED
        and Linkage.EXTERN in s.linkage
        for s in module.statements
    )


def run_kernel(
    kernel: Kernel,
    tensors: Sequence[np.ndarray],
    scalars: Sequence[Any] = (),
    *,
    dims: dict[str, int] | None = None,
    template: dict[str, Any] | None = None,
    check_races: bool = True,
) -> LaunchStats:
    """Trace ``kernel`` at ``dims`` and run it in the emulator on ``tensors`` (in place).

    Tensors are passed in ``in_specs + out_specs`` order (bf16 as ``uint16``, e4m3 as
    ``uint8`` bits), then ``scalars`` for the kernel's ``raw_params``.
    """
    dims = dict(dims or {})
    module = kernel.module(**dims, **(template or {}))
    specs = kernel.in_specs + kernel.out_specs
    args: list[Any] = []
    for tile, array in zip(specs, tensors, strict=True):
        if tile.layout.is_tma:
            box = tuple(dims.get(b, b) if isinstance(b, str) else b for b in tile.tma_box or ())
            args.append(
                tensor_map(
                    array, box=box, swizzle=tile.layout.swizzle_bytes, dtype=tile.dtype.value
                )
            )
        else:
            args.append(array)
    args.extend(scalars)
    return launch(
        module,
        kernel.name,
        grid=_numbers(kernel.grid, dims),
        block=_numbers(kernel.block, dims),
        cluster=tuple(kernel.cluster),
        smem=kernel.smem_bytes if _dynamic_smem(module) else 0,
        args=args,
        check_races=check_races,
    )


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
