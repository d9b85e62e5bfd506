"""Run the bundled ``vector_add`` kernel through pyptx.runtime and check it against numpy.

With an NVIDIA GPU (and torch built with CUDA) the kernel is compiled, cached and launched on
the GPU; anywhere else the same call runs it in the CPU emulator (pyptx-emu)::

    python examples/run_vector_add.py [N]

Exits with status 1 when the result differs from numpy's ``x + y``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import numpy as np

from pyptx import Kernel
from pyptx.runtime import device_arch, gpu_count

KERNEL = Path(__file__).resolve().parent / "dsl" / "vector_add.py"


def load_vector_add() -> Kernel:
    """The ``vector_add`` kernel of ``examples/dsl/vector_add.py``."""
    spec = importlib.util.spec_from_file_location("vector_add_example", KERNEL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel: Kernel = module.vector_add
    return kernel


def run(kernel: Kernel, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, str]:
    """``kernel(x, y, n)`` on the GPU when torch can reach one, else in the emulator."""
    torch: Any = None
    if gpu_count():
        try:
            import torch
        except ImportError:
            torch = None
    if torch is not None and torch.cuda.is_available():
        out = kernel(torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda(), x.size)
        return out.cpu().numpy(), f"the GPU ({device_arch(0)}, {torch.cuda.get_device_name()})"
    return kernel(x, y, x.size), "the CPU emulator (no GPU here)"


def main(argv: list[str]) -> int:
    """Run and check; print one line per step."""
    n = int(argv[1]) if len(argv) > 1 else 100_000
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    kernel = load_vector_add()
    out, where = run(kernel, x, y)
    error = float(np.max(np.abs(out - (x + y)))) if n else 0.0
    ok = bool(np.array_equal(out, x + y))
    print(f"vector_add of {n} float32 values ran on {where}")
    print(f"max |out - (x + y)| = {error}; matches numpy: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
