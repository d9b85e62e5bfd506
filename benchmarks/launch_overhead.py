"""Launch overhead of pyptx kernels on a GPU: microseconds per launch of an empty kernel.

Usage::

    python benchmarks/launch_overhead.py [--iters N] [--repeat R] [--nodes N] [--quick]
                                         [--json PATH]

The kernel is written with the DSL and holds nothing but ``ret``: one ``Tile("N", f32)``
input (never read), one CTA of 32 threads. Each method launches it from Python:

* ``raw cuLaunchKernel``: ``cuda.bindings.driver.cuLaunchKernel`` on a function loaded with
  ``cuModuleLoadData`` from the same cubin pyptx compiles (the floor for any Python launcher);
* ``torch eager``: ``kernel(x)`` on a CUDA tensor (binding, checks, the C++ shim), current
  stream; ``torch eager, stream=int`` passes the stream instead of asking torch for it;
* ``torch.compile``: a ``torch.compile(fullgraph=True)`` function returning ``kernel(x)``
  (Dynamo guards, the output's zero-fill, then the ``pyptx::launch`` custom op) for a twin
  with one output ``y``, and for a twin declaring ``mutates=(x,)``; each row checks first
  that every compiled call reaches the op (a call with no result can be dropped as dead
  code);
* ``CUDA graph`` rows: ``--nodes`` launches captured in one ``torch.cuda.graph`` and
  replayed, reported per node, for pyptx launches and for the same number of raw
  ``cuLaunchKernel`` launches (the native baseline);
* ``jax.jit``: a jitted function calling a twin kernel that declares ``mutates=("x",)`` (a
  call with no result would be dead code to XLA), with ``x`` donated and fed back, so each
  call is one dispatch of one custom call and no copy.

Method: a warm-up (``--warmup`` calls: compiling, loading, Dynamo/XLA tracing), then
``--repeat`` timings of ``--iters`` back-to-back calls between two synchronizations
(``torch.cuda.synchronize``, ``cuStreamSynchronize`` or ``jax.block_until_ready``); a row is
the median of the repeats in microseconds per launch (per node for graphs). The time includes
the GPU draining the queue, so when Python submits faster than the GPU runs empty kernels
the row shows the GPU's rate. The issue's targets are printed next to the numbers: eager
within 2 us of raw ``cuLaunchKernel`` from Python, graph replay within 1 us per node of the
native graph. Without a GPU the script prints one ``skipped:`` line and exits 0.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import functools
import gc
import importlib.metadata
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
for src in sorted((REPO / "packages").glob("*/src"), reverse=True):
    sys.path.insert(0, str(src))
sys.path.insert(0, str(REPO / "benchmarks"))
from parse_throughput import git_commit  # noqa: E402

EMPTY_N = 256  # elements of the input the kernel never reads
BLOCK = 32
EAGER_TARGET_US = 2.0  # eager launch: at most this much slower than raw cuLaunchKernel
GRAPH_TARGET_US = 1.0  # graph replay: at most this much slower per node than a native graph

RAW = "raw cuLaunchKernel (Python)"
EAGER = "torch eager"
EAGER_STREAM = "torch eager, stream=int"
COMPILED = "torch.compile, out_specs=(y,)"
COMPILED_MUT = "torch.compile, mutates=(x,)"
GRAPH_NATIVE = "CUDA graph, raw launches (per node)"
GRAPH_PYPTX = "CUDA graph, pyptx launches (per node)"
JAX = "jax.jit (mutates, donated)"


@dataclass
class Row:
    """One measured method."""

    method: str
    baseline: str | None  # the row the delta is taken against
    samples_us: list[float] = field(default_factory=list)
    skipped: str | None = None

    @property
    def us(self) -> float | None:
        return statistics.median(self.samples_us) if self.samples_us else None


def no_gpu_reason() -> str | None:
    """Why nothing can launch here (pyptx.runtime's driver probe), or ``None``."""
    try:
        from pyptx.runtime import _driver
    except ImportError as exc:
        return f"pyptx.runtime cannot be imported: {exc}"
    loaded = _driver._load()
    if isinstance(loaded, str):
        return loaded
    if _driver.gpu_count() == 0:
        return "the CUDA driver sees no GPU"
    return None


def empty_kernels(arch: str) -> tuple[Any, Any, Any]:
    """The empty kernel, its twin declaring ``mutates=("x",)``, and one with an output.

    Under ``torch.compile`` a launch must write something visible (pyptx refuses a kernel
    with neither ``out_specs`` nor ``mutates`` there), so the compiled rows use the last two.
    """
    from pyptx.dsl.kernel import kernel
    from pyptx.dsl.tile import Tile
    from pyptx.types import f32

    common: dict[str, Any] = {
        "in_specs": (Tile("N", f32),),
        "grid": (1, 1, 1),
        "block": (BLOCK, 1, 1),
        "arch": arch,
    }

    @kernel(**common)
    def empty(x):
        """Nothing: the PTX body is ``ret;``."""

    @kernel(**common, mutates=("x",))
    def empty_inplace(x):
        """Nothing either; XLA keeps the call because it "updates" x."""

    @kernel(**common, out_specs=(Tile("N", f32),))
    def empty_output(x, y):
        """Nothing either; the runtime zero-fills the output y, which the kernel never writes."""

    return empty, empty_inplace, empty_output


def time_calls(
    call: Callable[[], Any], sync: Callable[[], Any], *, iters: int, repeat: int, warmup: int
) -> list[float]:
    """Microseconds per call of ``call``: one sample per repeat of ``iters`` calls."""
    for _ in range(warmup):
        call()
    sync()
    samples = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            sync()
            t0 = time.perf_counter()
            for _ in range(iters):
                call()
            sync()
            samples.append((time.perf_counter() - t0) / iters * 1e6)
        finally:
            gc.enable()
    return samples


class RawLauncher:
    """``cuLaunchKernel`` through cuda.bindings on a module loaded from ``cubin``."""

    def __init__(self, cubin: bytes, name: str, pointer: int) -> None:
        from pyptx.runtime._driver import check, driver

        self.cu, self.check = driver(), check
        self.device = check(self.cu.cuDeviceGet(0), "cuDeviceGet")
        context = check(self.cu.cuDevicePrimaryCtxRetain(self.device), "cuDevicePrimaryCtxRetain")
        check(self.cu.cuCtxPushCurrent(context), "cuCtxPushCurrent")
        self.module = check(self.cu.cuModuleLoadData(cubin), "cuModuleLoadData")
        self.function = check(
            self.cu.cuModuleGetFunction(self.module, name.encode()), "cuModuleGetFunction"
        )
        # kernelParams: an array of one pointer to the 8-byte argument (kept alive here).
        self.argument = ctypes.c_uint64(pointer)
        self.params = (ctypes.c_void_p * 1)(ctypes.addressof(self.argument))

    def launcher(self, stream: int) -> Callable[[], Any]:
        """A zero-argument launch on ``stream`` (a CUstream as an int)."""
        return functools.partial(
            self.cu.cuLaunchKernel,
            self.function,
            1, 1, 1,
            BLOCK, 1, 1,
            0,
            self.cu.CUstream(stream),
            ctypes.addressof(self.params),
            0,
        )  # fmt: skip

    def launch_checked(self, stream: int) -> None:
        """One launch whose result is checked (before a timing)."""
        self.check(self.launcher(stream)(), "cuLaunchKernel")

    def sync(self, stream: int) -> None:
        """``cuStreamSynchronize`` with its result checked."""
        self.check(self.cu.cuStreamSynchronize(self.cu.CUstream(stream)), "cuStreamSynchronize")

    def close(self) -> None:
        """Unloads the module and releases the context."""
        self.check(self.cu.cuModuleUnload(self.module), "cuModuleUnload")
        self.check(self.cu.cuCtxPopCurrent(), "cuCtxPopCurrent")
        self.check(self.cu.cuDevicePrimaryCtxRelease(self.device), "cuDevicePrimaryCtxRelease")


def _torch() -> tuple[Any, str | None]:
    try:
        import torch
    except ImportError as exc:
        return None, f"torch is not installed ({exc})"
    if not torch.cuda.is_available():
        return None, f"torch {torch.__version__} cannot use the GPU"
    return torch, None


def _jax() -> tuple[Any, str | None]:
    try:
        import jax
    except ImportError as exc:
        return None, f"jax is not installed ({exc})"
    try:
        jax.devices("cuda")
    except RuntimeError as exc:
        return None, f"jax {jax.__version__} has no CUDA backend ({exc})"
    return jax, None


def measure(opts: argparse.Namespace) -> tuple[list[Row], dict[str, Any]]:
    """Every row, and what the JSON says about the machine."""
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    from pyptx.runtime import _driver, compile_ptx, specialize
    from pyptx.runtime._gpu import compile_target

    arch = _driver.device_arch(0)
    assert arch is not None
    empty, empty_inplace, empty_output = empty_kernels(arch)
    spec = specialize(empty, {}, {"N": EMPTY_N})
    cubin = compile_ptx(spec.ptx, compile_target(spec.arch, arch), name=spec.kernel_name).cubin
    torch, torch_missing = _torch()
    jax, jax_missing = _jax()
    timing = {"iters": opts.iters, "repeat": opts.repeat, "warmup": opts.warmup}
    rows = {
        name: Row(name, baseline)
        for name, baseline in (
            (RAW, None),
            (EAGER, RAW),
            (EAGER_STREAM, RAW),
            (COMPILED, RAW),
            (COMPILED_MUT, RAW),
            (GRAPH_NATIVE, None),
            (GRAPH_PYPTX, GRAPH_NATIVE),
            (JAX, RAW),
        )
    }

    x = torch.zeros(EMPTY_N, device="cuda") if torch is not None else None
    stream = int(torch.cuda.current_stream().cuda_stream) if torch is not None else 0
    raw = RawLauncher(cubin, spec.kernel_name, x.data_ptr() if x is not None else 0)
    try:
        sync = torch.cuda.synchronize if torch is not None else functools.partial(raw.sync, 0)
        raw.launch_checked(stream)
        rows[RAW].samples_us = time_calls(raw.launcher(stream), sync, **timing)
        if torch is None:
            for name in (EAGER, EAGER_STREAM, COMPILED, COMPILED_MUT, GRAPH_NATIVE, GRAPH_PYPTX):
                rows[name].skipped = torch_missing
        else:
            rows[EAGER].samples_us = time_calls(functools.partial(empty, x), sync, **timing)
            rows[EAGER_STREAM].samples_us = time_calls(
                functools.partial(empty, x, stream=stream), sync, **timing
            )
            compiled_row(torch, empty_output, x, rows[COMPILED], sync, timing)
            compiled_row(torch, empty_inplace, x, rows[COMPILED_MUT], sync, timing)
            try:
                graph_rows(torch, raw, functools.partial(empty, x), rows, opts)
            except Exception as exc:  # any failure is the rows' result, not the script's
                for name in (GRAPH_NATIVE, GRAPH_PYPTX):
                    rows[name].skipped = f"failed: {type(exc).__name__}: {exc}"
        if jax is None:
            rows[JAX].skipped = jax_missing
        else:
            try:
                rows[JAX].samples_us = jax_samples(jax, empty_inplace, timing)
            except Exception as exc:  # any failure is the row's result, not the script's
                rows[JAX].skipped = f"failed: {type(exc).__name__}: {exc}"
    finally:
        raw.close()
    info = machine_info(arch)
    return list(rows.values()), info


def compiled_row(
    torch: Any, kernel: Any, x: Any, row: Row, sync: Callable[[], Any], timing: dict[str, int]
) -> None:
    """Time a ``torch.compile(fullgraph=True)`` function that calls ``kernel(x)``.

    A call whose result nobody uses can be dropped from the compiled graph as dead code, so
    the calls that reach the custom op's implementation are counted first; the row is
    reported as failed unless every compiled call launched the kernel.
    """
    from pyptx.runtime import _torch as frontend

    compiled = functools.partial(torch.compile(lambda t: kernel(t), fullgraph=True), x)
    original, reached = frontend._op_launch, [0]

    def counting(*args: Any) -> None:
        reached[0] += 1
        original(*args)

    try:
        compiled()  # compiles
        setattr(frontend, "_op_launch", counting)  # noqa: B010 - a private hook, restored below
        try:
            for _ in range(10):
                compiled()
        finally:
            setattr(frontend, "_op_launch", original)  # noqa: B010
        if reached[0] != 10:
            row.skipped = f"failed: only {reached[0]} of 10 compiled calls launched the kernel"
            return
        row.samples_us = time_calls(compiled, sync, **timing)
    except Exception as exc:  # any failure is the row's result, not the script's
        row.skipped = f"failed: {type(exc).__name__}: {exc}"


def graph_rows(
    torch: Any,
    raw: RawLauncher,
    pyptx_launch: Callable[[], Any],
    rows: dict[str, Row],
    opts: argparse.Namespace,
) -> None:
    """Capture ``opts.nodes`` launches in a graph, native and pyptx, and time replays."""
    pyptx_launch()  # loaded and registered before the capture
    torch.cuda.synchronize()
    graphs = {}
    for name in (GRAPH_NATIVE, GRAPH_PYPTX):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            if name == GRAPH_NATIVE:
                launch = raw.launcher(int(torch.cuda.current_stream().cuda_stream))
            else:
                launch = pyptx_launch
            for _ in range(opts.nodes):
                launch()
        graphs[name] = graph
    for name, graph in graphs.items():
        per_call = time_calls(
            graph.replay,
            torch.cuda.synchronize,
            iters=opts.replays,
            repeat=opts.repeat,
            warmup=2,
        )
        rows[name].samples_us = [us / opts.nodes for us in per_call]


def jax_samples(jax: Any, kernel: Any, timing: dict[str, int]) -> list[float]:
    """Microseconds per ``x = f(x)`` of a jitted, donating call of ``kernel``."""
    import jax.numpy as jnp

    f = jax.jit(lambda t: kernel(t), donate_argnums=0)
    state = [jax.device_put(jnp.zeros(EMPTY_N, jnp.float32), jax.devices("cuda")[0])]

    def step() -> None:
        state[0] = f(state[0])

    return time_calls(step, lambda: state[0].block_until_ready(), **timing)


def _version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def machine_info(arch: str) -> dict[str, Any]:
    """The device, the driver and the software versions, for the header and the JSON."""
    from pyptx.runtime import _driver

    cu = _driver.driver()
    device = _driver.check(cu.cuDeviceGet(0), "cuDeviceGet")
    name = _driver.check(cu.cuDeviceGetName(256, device), "cuDeviceGetName")
    return {
        "device": name.split(b"\0", 1)[0].decode(errors="replace"),
        "arch": arch,
        "gpu_count": _driver.gpu_count(),
        "driver_version": _driver.driver_version(),
        "python": platform.python_version(),
        "torch": _version("torch"),
        "jax": _version("jax"),
        # cuda-python before 12.8 shipped the bindings in the cuda-python distribution itself
        "cuda_bindings": _version("cuda-bindings") or _version("cuda-python"),
    }


def targets(rows: list[Row]) -> list[dict[str, Any]]:
    """The issue's two targets, with the measured deltas and whether they are met."""
    by_name = {r.method: r for r in rows}
    out = []
    for label, row, limit in (
        ("eager within 2 us of raw cuLaunchKernel", EAGER, EAGER_TARGET_US),
        ("graph replay within 1 us per node of native", GRAPH_PYPTX, GRAPH_TARGET_US),
    ):
        delta = _delta(by_name[row], by_name)
        out.append(
            {
                "target": label,
                "method": row,
                "limit_us": limit,
                "delta_us": delta,
                "met": None if delta is None else delta <= limit,
            }
        )
    return out


def _delta(row: Row, by_name: dict[str, Row]) -> float | None:
    if row.baseline is None or row.us is None:
        return None
    base = by_name[row.baseline].us
    return None if base is None else row.us - base


def table(rows: list[Row], goals: list[dict[str, Any]]) -> str:
    """The results as a fixed-width table."""
    by_name = {r.method: r for r in rows}
    goal_of = {g["method"]: g for g in goals}
    lines = [f"{'method':<40} {'us/launch':>10} {'delta':>9}  {'vs':<26} target"]
    for row in rows:
        if row.us is None:
            why = row.skipped.splitlines()[0][:200] if row.skipped else ""
            lines.append(f"{row.method:<40} {'-':>10} {'':>9}  skipped: {why}")
            continue
        delta = _delta(row, by_name)
        shown = "" if delta is None else f"{delta:+9.2f}"
        versus = "" if row.baseline is None else row.baseline.split(" (")[0]
        goal = goal_of.get(row.method)
        note = ""
        if goal is not None:
            verdict = {True: "met", False: "MISSED", None: "n/a"}[goal["met"]]
            note = f"<= +{goal['limit_us']:.1f} us: {verdict}"
        lines.append(f"{row.method:<40} {row.us:>10.2f} {shown:>9}  {versus:<26} {note}".rstrip())
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Measure, print the table and optionally write the JSON report."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iters", type=int, default=10_000, help="launches per timed sample")
    ap.add_argument("--repeat", type=int, default=7, help="timed samples; the median counts")
    ap.add_argument("--warmup", type=int, default=500, help="untimed calls before timing")
    ap.add_argument("--nodes", type=int, default=1000, help="launches captured per graph")
    ap.add_argument("--replays", type=int, default=50, help="graph replays per timed sample")
    ap.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    ap.add_argument("--json", type=Path, help="also write the results as JSON to this path")
    opts = ap.parse_args(argv[1:])
    if opts.quick:
        opts.iters, opts.repeat, opts.warmup = 1000, 3, 100
        opts.nodes, opts.replays = 200, 10
    command = "python " + " ".join(argv)
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    reason = no_gpu_reason()
    if reason is not None:
        print(f"skipped: no CUDA device ({reason})")
        if opts.json:
            skipped = {"benchmark": "launch_overhead", "skipped": reason, "date": date}
            opts.json.parent.mkdir(parents=True, exist_ok=True)
            opts.json.write_text(json.dumps(skipped, indent=2) + "\n")
        return 0
    rows, info = measure(opts)
    goals = targets(rows)
    commit = git_commit()
    print(
        f"{info['device']} ({info['arch']}), driver {info['driver_version']}, "
        f"Python {info['python']}, torch {info['torch']}, jax {info['jax']}, "
        f"cuda-bindings {info['cuda_bindings']}, {date}, commit {commit[:12]}, "
        f"command: {command}"
    )
    print(
        f"median of {opts.repeat} samples of {opts.iters} launches "
        f"(graphs: {opts.replays} replays of {opts.nodes} nodes); empty kernel, 1 CTA x {BLOCK}"
    )
    print(table(rows, goals))
    if opts.json:
        report: dict[str, Any] = {
            "benchmark": "launch_overhead",
            "date": date,
            "commit": commit,
            "command": command,
            "machine": info,
            "settings": {
                k: getattr(opts, k) for k in ("iters", "repeat", "warmup", "nodes", "replays")
            },
            "results": [
                {
                    **asdict(r),
                    "us_per_launch": r.us,
                    "delta_us": _delta(r, {x.method: x for x in rows}),
                }
                for r in rows
            ],
            "targets": goals,
        }
        opts.json.parent.mkdir(parents=True, exist_ok=True)
        opts.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
