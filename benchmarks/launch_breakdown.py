"""Where the microseconds of an eager pyptx launch go, step by step, on a GPU.

Usage::

    python benchmarks/launch_breakdown.py [--iters N] [--json PATH] [--profile PATH]

``benchmarks/launch_overhead.py`` says how far an eager launch is from raw ``cuLaunchKernel``;
this script says why. It times, on the empty kernel of that script (one ``Tile("N", f32)``
input, 1 CTA x 32), each step ``kernel(x)`` takes on a CUDA tensor, alone, in a loop of
``--iters`` calls (median of 5 samples, microseconds per call):

* the torch queries: current stream, stream-capture check, ``data_ptr``, device index;
* pyptx's steps: binding the arguments, looking up the specialization, packing the
  scalars, the registry lookup, and the shim's launch call (which includes the driver's
  ``cuLaunchKernelEx``);
* the whole ``kernel(x)``, and ``kernel(x, stream=<int>)``.

The steps overlap (the whole call is not their sum: caches stay warm in a loop), but a step
that costs much more than its share shows where to look. ``--profile PATH`` also writes a
``cProfile`` of the whole call (sorted by own time) to PATH. Without a GPU the script prints
one ``skipped:`` line and exits 0.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from launch_overhead import empty_kernels, no_gpu_reason, time_calls  # noqa: E402


def per_call_us(call: Callable[[], Any], iters: int, sync: Callable[[], Any]) -> float:
    """Median over 5 samples of microseconds per call of ``call`` (``iters`` calls each)."""
    samples = time_calls(call, sync, iters=iters, repeat=5, warmup=min(iters, 200))
    return statistics.median(samples)


def steps(kernel: Any, x: Any, torch: Any) -> dict[str, Callable[[], Any]]:
    """The steps of one eager launch of ``kernel(x)``, each as a zero-argument callable."""
    from pyptx.runtime._binding import bind
    from pyptx.runtime._gpu import kernel_registry
    from pyptx.runtime._shim import load_shim
    from pyptx.runtime._specialize import specialize_bound

    bound = bind(kernel, (x,), {})
    spec = specialize_bound(kernel, bound.template, bound.dims)
    registry = kernel_registry()
    handle = registry.ready[(spec.handle, 0)]
    shim = load_shim()
    stream = int(torch.cuda.current_stream(0).cuda_stream)
    pointer = x.data_ptr()
    packed = spec.pack_scalars(bound.scalars)
    side = torch.cuda.Stream()
    side_int = int(side.cuda_stream)
    return {
        "torch.cuda.current_stream(0).cuda_stream": lambda: (
            torch.cuda.current_stream(0).cuda_stream
        ),
        "torch.cuda.is_current_stream_capturing()": torch.cuda.is_current_stream_capturing,
        "x.data_ptr()": x.data_ptr,
        "x.device.index": lambda: x.device.index,
        "bind(kernel, (x,), {})": lambda: bind(kernel, (x,), {}),
        "specialize_bound(...)": lambda: specialize_bound(kernel, bound.template, bound.dims),
        "spec.pack_scalars(...)": lambda: spec.pack_scalars(bound.scalars),
        "registry.ready.get(...)": lambda: registry.ready.get((spec.handle, 0)),
        "load_shim()": load_shim,
        "shim.launch(...) (cuLaunchKernelEx)": lambda: shim.launch(
            handle, stream, [pointer], packed, 0
        ),
        "kernel(x)": lambda: kernel(x),
        "kernel(x, stream=<int>)": lambda: kernel(x, stream=side_int),
    }


def profile(call: Callable[[], Any], iters: int, path: Path) -> None:
    """``cProfile`` of ``iters`` calls, sorted by own time, written to ``path``."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(iters):
        call()
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(40)
    path.write_text(text.getvalue())
    print(f"profile of {iters} calls of kernel(x): {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iters", type=int, default=20000)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--profile", type=Path, help="write a cProfile of kernel(x) here")
    args = parser.parse_args(argv)

    reason = no_gpu_reason()
    if reason is not None:
        print(f"skipped: no CUDA device ({reason})")
        return 0
    try:
        import torch
    except ImportError as exc:
        print(f"skipped: torch is not installed ({exc})")
        return 0
    from pyptx.runtime._driver import device_arch

    kernel = empty_kernels(device_arch(0) or "sm_90a")[0]
    x = torch.zeros(256, device="cuda")
    kernel(x)  # compile, load, register
    torch.cuda.synchronize()
    rows = {}
    print(f"{'step':<44}{'us/call':>10}")
    for name, call in steps(kernel, x, torch).items():
        rows[name] = per_call_us(call, args.iters, torch.cuda.synchronize)
        print(f"{name:<44}{rows[name]:>10.2f}")
    if args.profile is not None:
        profile(lambda: kernel(x), args.iters, args.profile)
    if args.json is not None:
        args.json.write_text(json.dumps({"iters": args.iters, "us_per_call": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
