"""Host-side cost of one kernel call in pyptx.runtime, per step, without a GPU.

A GPU launch from torch does, before the shim's ``cuLaunchKernelEx``: bind and check the
arguments against the specs, find the cached specialization, allocate the zero-filled outputs,
pack the scalars, and the shim's ctypes call. This script times each of those steps on torch
CPU tensors (the same code runs for CUDA tensors; only the allocation and the driver call
differ), so the Python overhead of a launch can be read without a GPU::

    python benchmarks/runtime_dispatch.py [--iters N]

It prints microseconds per call (median of 7 samples) for each step and their sum.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _vector_add() -> Any:
    path = ROOT / "examples" / "dsl" / "vector_add.py"
    spec = importlib.util.spec_from_file_location("bench_vector_add", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.vector_add


def _time(fn: Callable[[], object], iters: int) -> float:
    """Median microseconds per call over 7 samples of ``iters`` calls."""
    samples = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        samples.append((time.perf_counter() - start) / iters * 1e6)
    return statistics.median(samples)


def main(argv: list[str]) -> int:
    """Time each step and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iters", type=int, default=20_000)
    ap.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    opts = ap.parse_args(argv[1:])
    iters = 2_000 if opts.quick else opts.iters
    try:
        import torch
    except ImportError:
        print("skipped: torch is not installed")
        return 0
    from pyptx.runtime import load_shim, specialize
    from pyptx.runtime._binding import bind
    from pyptx.runtime._specialize import specialize_bound

    kernel = _vector_add()
    n = 4096
    x, y = torch.ones(n), torch.ones(n)
    bound = bind(kernel, (x, y, n), {})
    spec = specialize(kernel, {}, {"N": n})
    shim = load_shim()
    steps: list[tuple[str, Callable[[], object]]] = [
        ("bind + check 2 tensors and 1 scalar", lambda: bind(kernel, (x, y, n), {})),
        (
            "find the cached specialization",
            lambda: specialize_bound(kernel, bound.template, bound.dims),
        ),
        ("allocate the zero-filled output (CPU)", lambda: torch.zeros(n)),
        ("pack the scalars", lambda: spec.pack_scalars(bound.scalars)),
        ("read 3 data pointers", lambda: [t.data_ptr() for t in (x, y, x)]),
        ("shim call: look up the handle (ctypes)", lambda: shim.is_registered(spec.handle)),
    ]
    print(f"pyptx.runtime host-side steps of one call, {iters} calls x 7 samples (median)")
    total = 0.0
    for name, fn in steps:
        us = _time(fn, iters)
        total += us
        print(f"  {name:<42} {us:7.2f} us")
    print(f"  {'sum':<42} {total:7.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
