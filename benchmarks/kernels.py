"""Speed of pyptx.kernels on a GPU, beside torch (cuBLAS, eager ops) and torch.compile.

Usage::

    python benchmarks/kernels.py [--quick] [--json PATH] [--only FAMILY] [--no-compile]
                                 [--budget SECONDS] [--repeat N] [--warmup N]

For each kernel family that has a pyptx kernel for the GPU's arch, one or two problems run
through the public functions of :mod:`pyptx.kernels` (``gemm``, ``grouped_gemm``,
``rms_norm``, ``layer_norm``, ``swiglu``, ``softmax``, ``flash_attention``: what an app
calls, argument checks, output allocation and host-side packing included) beside:

* torch eager: ``torch.matmul`` (cuBLAS), ``torch._scaled_mm`` (cuBLAS FP8, with B given
  column-major and unit scales), a ``torch.matmul`` per group and ``torch._grouped_mm``,
  ``torch.nn.functional.rms_norm`` / ``layer_norm``, ``silu(g) * u``, ``torch.softmax``,
  ``scaled_dot_product_attention`` (whatever backend torch picks);
* ``torch.compile`` (default mode, ``dynamic=False``) of the first torch op of the problem.

Compute-bound families report TFLOPS (2 M N K per GEMM; attention 4 B H S_q S_k D, halved
when causal), memory-bound ones GB/s (bytes read plus bytes written, each array once) and
that as a percentage of the device's measured device-to-device copy bandwidth
(``dst.copy_(src)`` of a large tensor, counted the same way: read plus write). A
"zero-fill" row times ``torch.zeros`` of the pyptx call's output alone: the memset the
runtime would add before each launch of a kernel with zero-filled outputs. Every kernel of
``pyptx.kernels`` declares ``zero_outputs=False`` (it writes its whole output), so the pyptx
rows allocate with ``torch.empty`` and that memset is not in them.

Method: CUDA events around back-to-back calls on the current stream. ``--warmup`` calls
first (compiling PTX, loading, Dynamo/Inductor), then one timed call to size the samples:
each of ``--repeat`` samples times enough calls to last about ``--sample-ms``, and a row is
the median sample in milliseconds per call. Before timing, each pyptx output is compared
with the torch eager output (relative max error; ``MISMATCH`` above 2e-2 for 16-bit outputs,
6e-2 for FP8): the speed of a wrong kernel is not reported as a result.

The issue's targets are checked on the same run: bf16 GEMM at 4096^3 and 8192^3 at or above
``torch.matmul``; RMSNorm, LayerNorm, SwiGLU and softmax at or above 92 % of the copy
bandwidth; flash attention forward at head dim 128 at or above 600 TFLOPS.

``--budget`` bounds the run: rows not started when it is spent are reported as skipped
(torch.compile rows, which cost the most to prepare, run last). A SIGTERM (``timeout``)
also ends the run with the rows measured so far printed and written. Without a CUDA device
the script prints one ``skipped:`` line and exits 0. ``--dry-run-cpu`` checks the script's
own plumbing without a GPU: tiny problems on CPU tensors, run by the emulator, timed with
``perf_counter``; its figures mean nothing.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import signal
import statistics
import subprocess
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
from launch_overhead import _version  # noqa: E402
from launch_overhead import no_gpu_reason as no_launch_reason  # noqa: E402
from parse_throughput import git_commit  # noqa: E402

ROWS_TARGET = 0.92  # memory-bound kernels: this fraction of the copy bandwidth
FA_TARGET_TFLOPS = 600.0  # flash attention forward, head dim 128
GEMM_TARGET_SIZES = (4096, 8192)  # bf16 GEMM cubes that must match torch.matmul
TOLERANCE = {"e4m3": 6e-2}  # relative max error allowed against torch (others: 2e-2)
ROWS_FAMILIES = ("rms_norm", "layer_norm", "swiglu", "softmax")

PYPTX = "pyptx.kernels"
ZERO_FILL = "zero-fill of the output (not in pyptx's time: zero_outputs=False)"
COMPILE = "torch.compile"


class Interrupted(Exception):
    """SIGTERM arrived: stop measuring, report what was measured."""


@dataclass
class Case:
    """One problem of one family.

    ``make(torch, device)`` builds the inputs; ``pyptx(inputs, arch_kw)`` calls the public
    function; ``torch_ops`` are (provider, op) pairs, the first being the baseline that
    ``torch.compile`` also wraps; ``work`` is FLOPs (``kind == "flops"``) or bytes.
    """

    family: str
    label: str
    dtype: str
    kind: str
    work: float
    make: Callable[[Any, str], dict[str, Any]]
    pyptx: Callable[[dict[str, Any], dict[str, Any]], Any]
    torch_ops: list[tuple[str, Callable[[dict[str, Any]], Any]]]
    extra_pyptx: list[tuple[str, str, Callable[[dict[str, Any]], Any]]] = field(
        default_factory=list
    )  # (provider, arch it needs, call): other entry points of the library


@dataclass
class Row:
    """One measured (or skipped) provider of one case."""

    family: str
    problem: str
    provider: str
    kernel: str
    kind: str
    work: float
    samples_ms: list[float] = field(default_factory=list)
    rel_error: float | None = None
    mismatch: bool = False
    skipped: str | None = None

    @property
    def ms(self) -> float | None:
        return statistics.median(self.samples_ms) if self.samples_ms else None

    @property
    def rate(self) -> float | None:
        """TFLOPS (``kind == "flops"``) or GB/s (``"bytes"``)."""
        ms = self.ms
        if ms is None or ms <= 0:
            return None
        return self.work / ms / (1e9 if self.kind == "flops" else 1e6)


# ------------------------------------------------------------------------------- problems


def _gemm_case(torch: Any, n: int, dtype: str) -> Case:
    """An n x n x n GEMM: bf16 against torch.matmul, e4m3 against torch._scaled_mm."""

    def make(torch: Any, device: str) -> dict[str, Any]:
        gen = torch.Generator(device=device).manual_seed(n)
        a = torch.randn(n, n, device=device, generator=gen)
        b = torch.randn(n, n, device=device, generator=gen)
        if dtype == "bf16":
            return {"a": a.bfloat16(), "b": b.bfloat16()}
        a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
        one = torch.ones((), device=device)
        # _scaled_mm wants B column-major: the transposed copy is made here, untimed.
        return {"a": a8, "b": b8, "b_t": b8.t().contiguous(), "one": one}

    ops: list[tuple[str, Callable[[dict[str, Any]], Any]]]
    extra: list[tuple[str, str, Callable[[dict[str, Any]], Any]]] = []
    if dtype == "bf16":
        ops = [("torch.matmul (cuBLAS)", lambda t: torch.matmul(t["a"], t["b"]))]
    else:
        ops = [
            (
                "torch._scaled_mm (cuBLAS FP8, B column-major)",
                lambda t: torch._scaled_mm(
                    t["a"], t["b_t"].t(), t["one"], t["one"], out_dtype=torch.bfloat16
                ),
            )
        ]

        def bt(t: dict[str, Any]) -> Any:
            from pyptx.kernels.hopper.gemm import gemm_fp8_bt

            return gemm_fp8_bt(t["a"], t["b_t"])

        extra = [("pyptx hopper.gemm_fp8_bt (B^T given, no copy)", "sm_90a", bt)]
    return Case(
        family="gemm",
        label=f"{n}x{n}x{n} {dtype}",
        dtype=dtype,
        kind="flops",
        work=2.0 * n**3,
        make=make,
        pyptx=lambda t, kw: _kernels().gemm(t["a"], t["b"], **kw),
        torch_ops=ops,
        extra_pyptx=extra,
    )


def _grouped_case(torch: Any, ms: list[int], n: int, k: int) -> Case:
    """MoE experts: one (K, N) per group, uneven token counts M_i."""

    def make(torch: Any, device: str) -> dict[str, Any]:
        gen = torch.Generator(device=device).manual_seed(len(ms))
        a = [torch.randn(m, k, device=device, generator=gen).bfloat16() for m in ms]
        b = [torch.randn(k, n, device=device, generator=gen).bfloat16() for _ in ms]
        ends = torch.tensor(ms, device=device, dtype=torch.int32).cumsum(0).to(torch.int32)
        return {"a": a, "b": b, "a_cat": torch.cat(a), "b_stack": torch.stack(b), "offs": ends}

    return Case(
        family="grouped_gemm",
        label=f"{len(ms)} groups, M {sum(ms)} total ({min(ms)}..{max(ms)}), N {n}, K {k} bf16",
        dtype="bf16",
        kind="flops",
        work=2.0 * sum(ms) * n * k,
        make=make,
        pyptx=lambda t, kw: _kernels().grouped_gemm(t["a"], t["b"], **kw),
        torch_ops=[
            (
                "torch.matmul per group (cuBLAS)",
                lambda t: [torch.matmul(x, w) for x, w in zip(t["a"], t["b"], strict=True)],
            ),
            (
                "torch._grouped_mm (A stacked, B (G, K, N), untimed packing)",
                lambda t: torch._grouped_mm(t["a_cat"], t["b_stack"], offs=t["offs"]),
            ),
        ],
    )


def _rows_case(torch: Any, family: str, rows: int, hidden: int) -> Case:
    """A bf16 (rows, hidden) row-wise problem; bytes: every array read or written once."""
    f = torch.nn.functional
    eps = 1e-5
    arrays = {"rms_norm": 2, "layer_norm": 2, "swiglu": 3, "softmax": 2}[family]
    vectors = {"rms_norm": 1, "layer_norm": 2, "swiglu": 0, "softmax": 0}[family]
    work = 2.0 * (arrays * rows * hidden + vectors * hidden)

    def make(torch: Any, device: str) -> dict[str, Any]:
        gen = torch.Generator(device=device).manual_seed(hidden)

        def rand(*shape: int) -> Any:
            return torch.randn(*shape, device=device, generator=gen).bfloat16()

        return {"x": rand(rows, hidden), "u": rand(rows, hidden), "w": rand(hidden),
                "b": rand(hidden)}  # fmt: skip

    K = _kernels
    calls: dict[str, tuple[Callable[..., Any], Callable[..., Any], str]] = {
        "rms_norm": (
            lambda t, kw: K().rms_norm(t["x"], t["w"], eps, **kw),
            lambda t: f.rms_norm(t["x"], (hidden,), t["w"], eps),
            "torch.nn.functional.rms_norm",
        ),
        "layer_norm": (
            lambda t, kw: K().layer_norm(t["x"], t["w"], t["b"], eps, **kw),
            lambda t: f.layer_norm(t["x"], (hidden,), t["w"], t["b"], eps),
            "torch.nn.functional.layer_norm",
        ),
        "swiglu": (
            lambda t, kw: K().swiglu(t["x"], t["u"], **kw),
            lambda t: f.silu(t["x"]) * t["u"],
            "silu(g) * u",
        ),
        "softmax": (
            lambda t, kw: K().softmax(t["x"], **kw),
            lambda t: torch.softmax(t["x"], dim=-1),
            "torch.softmax",
        ),
    }
    pyptx, op, name = calls[family]
    return Case(family, f"{rows}x{hidden} bf16", "bf16", "bytes", work, make, pyptx,
                [(f"{name} (eager)", op)])  # fmt: skip


def _attention_case(torch: Any, shape: tuple[int, int, int, int], causal: bool) -> Case:
    """Flash attention forward on (batch, heads, seq, head_dim) bf16 q, k, v."""
    batch, heads, seq, dim = shape
    flops = 4.0 * batch * heads * seq * seq * dim * (0.5 if causal else 1.0)

    def make(torch: Any, device: str) -> dict[str, Any]:
        gen = torch.Generator(device=device).manual_seed(seq + dim)
        q, k, v = (torch.randn(shape, device=device, generator=gen).bfloat16() for _ in "qkv")
        return {"q": q, "k": k, "v": v}

    sdpa = torch.nn.functional.scaled_dot_product_attention
    return Case(
        family="flash_attention",
        label=f"{shape} bf16 hd{dim}{' causal' if causal else ''}",
        dtype="bf16",
        kind="flops",
        work=flops,
        make=make,
        pyptx=lambda t, kw: _kernels().flash_attention(t["q"], t["k"], t["v"], causal, **kw),
        torch_ops=[
            (
                "scaled_dot_product_attention (eager)",
                lambda t: sdpa(t["q"], t["k"], t["v"], is_causal=causal),
            )
        ],
    )


def cases(torch: Any, tiny: bool) -> list[Case]:
    """Every problem, headline GEMMs first. ``tiny``: the emulator-sized dry-run versions."""
    if tiny:
        return [
            _gemm_case(torch, 128, "bf16"),
            _gemm_case(torch, 128, "e4m3"),
            _grouped_case(torch, [100, 60], 128, 64),
            *(_rows_case(torch, fam, 4, 256) for fam in ROWS_FAMILIES),
            _attention_case(torch, (1, 1, 128, 128), False),
        ]
    # 8192 tokens over 8 experts, uneven; multiples of 16 (torch._grouped_mm's alignment)
    # but, but for one, not of the kernels' 128-row tiles.
    ms = [1504, 528, 1264, 784, 1008, 912, 1168, 1024]
    return [
        *(_gemm_case(torch, n, "bf16") for n in GEMM_TARGET_SIZES),
        _gemm_case(torch, 8192, "e4m3"),
        _grouped_case(torch, ms, 4096, 4096),
        *(_rows_case(torch, fam, 32768, 4096) for fam in ROWS_FAMILIES),
        _attention_case(torch, (4, 16, 4096, 128), False),
        _attention_case(torch, (4, 16, 4096, 128), True),
        _attention_case(torch, (4, 32, 4096, 64), False),
        _attention_case(torch, (4, 32, 4096, 64), True),
    ]


def _kernels() -> Any:
    import pyptx.kernels

    return pyptx.kernels


# ------------------------------------------------------------------------------- timing


class CudaTimer:
    """Milliseconds per call of back-to-back calls between two CUDA events."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def sync(self) -> None:
        self.torch.cuda.synchronize()

    def time(self, fn: Callable[[], Any], calls: int) -> float:
        self.start.record()
        for _ in range(calls):
            fn()
        self.end.record()
        self.end.synchronize()
        return float(self.start.elapsed_time(self.end)) / calls


class WallTimer:
    """``perf_counter`` timing, for ``--dry-run-cpu`` (the emulator is synchronous)."""

    def sync(self) -> None:
        pass

    def time(self, fn: Callable[[], Any], calls: int) -> float:
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        return (time.perf_counter() - t0) * 1e3 / calls


@dataclass
class Settings:
    warmup: int
    repeat: int
    sample_ms: float
    max_calls: int


def measure(fn: Callable[[], Any], timer: Any, s: Settings) -> list[float]:
    """``s.repeat`` samples (ms per call) of ``fn``, after ``s.warmup`` untimed calls."""
    for _ in range(s.warmup):
        fn()
    timer.sync()
    one = timer.time(fn, 1)
    calls = max(1, min(s.max_calls, math.ceil(s.sample_ms / max(one, 1e-3))))
    return [timer.time(fn, calls) for _ in range(s.repeat)]


def rel_error(torch: Any, got: Any, want: Any) -> float:
    """max |got - want| / max |want| over all outputs (lists compared pairwise)."""
    gots = got if isinstance(got, (list, tuple)) else [got]
    wants = want if isinstance(want, (list, tuple)) else [want]
    if len(gots) != len(wants):
        return math.inf
    worst, scale = 0.0, 0.0
    for g, w in zip(gots, wants, strict=True):
        if tuple(g.shape) != tuple(w.shape):
            return math.inf
        if not w.numel():
            continue
        worst = max(worst, float((g.float() - w.float()).abs().max()))
        scale = max(scale, float(w.float().abs().max()))
    return worst / scale if scale else worst


def storage_bytes(out: Any) -> int:
    """Bytes of the distinct storages behind the output tensor(s) (what a fill would write)."""
    outs = out if isinstance(out, (list, tuple)) else [out]
    seen: dict[int, int] = {}
    for o in outs:
        storage = o.untyped_storage()
        seen[storage.data_ptr()] = storage.nbytes()
    return sum(seen.values())


# ------------------------------------------------------------------------------- the run


class Runner:
    """Measures the rows, within the time budget."""

    def __init__(self, torch: Any, opts: argparse.Namespace, arch: str, device: str) -> None:
        self.torch, self.opts, self.arch, self.device = torch, opts, arch, device
        self.timer: Any = WallTimer() if opts.dry_run_cpu else CudaTimer(torch)
        self.arch_kw = {"arch": arch} if opts.dry_run_cpu else {}
        self.settings = Settings(opts.warmup, opts.repeat, opts.sample_ms, opts.max_calls)
        self.started = time.monotonic()
        self.deadline = self.started + opts.budget if opts.budget else math.inf
        self.rows: list[Row] = []

    def out_of_time(self) -> str | None:
        if time.monotonic() < self.deadline:
            return None
        return f"time budget spent (--budget {self.opts.budget:g} s)"

    def row(self, case: Case, provider: str, kernel: str) -> Row:
        r = Row(case.family, case.label, provider, kernel, case.kind, case.work)
        self.rows.append(r)
        return r

    def timed(self, r: Row, fn: Callable[[], Any], settings: Settings | None = None) -> None:
        why = self.out_of_time()
        if why:
            r.skipped = why
            return
        try:
            r.samples_ms = measure(fn, self.timer, settings or self.settings)
        except Interrupted:
            r.skipped = "interrupted (SIGTERM)"
            raise
        except Exception as exc:  # the row's result, not the script's
            r.skipped = f"failed: {type(exc).__name__}: {_first_line(exc)}"

    def copy_bandwidth(self) -> Row:
        """``dst.copy_(src)`` of ``--copy-mib`` MiB: bytes read plus written per call."""
        torch = self.torch
        n = self.opts.copy_mib * 2**20
        r = Row("copy", f"{self.opts.copy_mib} MiB", "dst.copy_(src)", "-", "bytes", 2.0 * n)
        self.rows.append(r)
        if self.opts.dry_run_cpu:
            r.skipped = "--dry-run-cpu"
            return r
        pair = [torch.empty(n, dtype=torch.uint8, device=self.device).random_()]
        pair.append(torch.empty_like(pair[0]))
        self.timed(r, lambda: pair[1].copy_(pair[0]))
        pair.clear()  # 2 GiB back before the problems allocate theirs
        return r

    def eager(self, case: Case) -> dict[str, Any] | None:
        """The pyptx, torch eager and zero-fill rows of ``case``; its inputs (None: skipped)."""
        kernels = _kernels()
        torch = self.torch
        try:
            impl = kernels._api.select(case.family, self.arch, case.dtype)[0].name
        except kernels.KernelUnavailable as exc:
            self.row(case, PYPTX, "-").skipped = f"no kernel: {exc}"
            return None
        mine = self.row(case, PYPTX, impl)
        why = self.out_of_time()
        if why:
            mine.skipped = why
            return None
        try:
            inputs = case.make(torch, self.device)
            got = case.pyptx(inputs, self.arch_kw)  # compiles and loads the kernel
            want = case.torch_ops[0][1](inputs)
            self.timer.sync()
        except Interrupted:
            mine.skipped = "interrupted (SIGTERM)"
            raise
        except Exception as exc:
            mine.skipped = f"failed: {type(exc).__name__}: {_first_line(exc)}"
            return None
        mine.rel_error = rel_error(torch, got, want)
        mine.mismatch = not mine.rel_error <= TOLERANCE.get(case.dtype, 2e-2)
        fill = storage_bytes(got)
        del got, want
        if mine.mismatch:
            mine.skipped = f"MISMATCH with torch: relative error {mine.rel_error:.3g}; not timed"
        else:
            self.timed(mine, lambda: case.pyptx(inputs, self.arch_kw))
        for provider, needs, call in case.extra_pyptx:
            if needs == self.arch:
                self.timed(self.row(case, provider, impl), lambda c=call: c(inputs))
        for provider, op in case.torch_ops:
            self.timed(self.row(case, provider, "-"), lambda op=op: op(inputs))
        zero = self.row(case, ZERO_FILL, f"torch.zeros, {fill / 2**20:.0f} MiB")
        zero.kind, zero.work = "bytes", float(fill)
        self.timed(zero, lambda: torch.zeros(fill, dtype=torch.uint8, device=self.device))
        return inputs

    def compiled(self, case: Case, inputs: dict[str, Any]) -> None:
        """The torch.compile row of ``case`` (its first torch op)."""
        provider, op = case.torch_ops[0]
        r = self.row(case, f"{COMPILE} of {provider.split(' (')[0]}", "-")
        if self.opts.no_compile:
            r.skipped = "--no-compile"
            return
        compiled = self.torch.compile(op, dynamic=False)
        self.timed(r, lambda: compiled(inputs))

    def run(self, todo: list[Case]) -> None:
        copy = self.copy_bandwidth()
        if copy.ms is None:
            print(f"copy bandwidth not measured: {copy.skipped}", file=sys.stderr)
        kept = []
        for case in todo:
            inputs = self.eager(case)
            if not self.opts.dry_run_cpu:
                self.torch.cuda.empty_cache()  # the previous problem's temporaries
            if inputs is not None:
                kept.append((case, inputs))
            print(f"  {case.family} {case.label}: done (t={self.elapsed():.0f}s)", flush=True)
        for case, inputs in kept:
            self.compiled(case, inputs)
            print(f"  {COMPILE} {case.family} {case.label} (t={self.elapsed():.0f}s)", flush=True)

    def elapsed(self) -> float:
        return time.monotonic() - self.started


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else ""


# ------------------------------------------------------------------------------- report


def targets(rows: list[Row]) -> list[dict[str, Any]]:
    """The issue's targets on this run, each met, missed or n/a (not measured)."""
    copy = next((r for r in rows if r.family == "copy"), None)
    copy_rate = copy.rate if copy else None

    def find(family: str, label_has: str, provider: str) -> Row | None:
        for r in rows:
            if r.family == family and label_has in r.problem and r.provider.startswith(provider):
                return r
        return None

    out: list[dict[str, Any]] = []
    for n in GEMM_TARGET_SIZES:
        mine = find("gemm", f"{n}x{n}x{n} bf16", PYPTX)
        ref = find("gemm", f"{n}x{n}x{n} bf16", "torch.matmul")
        a, b = (mine.rate if mine else None), (ref.rate if ref else None)
        out.append(
            {
                "target": f"bf16 GEMM {n}^3 at or above torch.matmul (same run)",
                "measured": a,
                "limit": b,
                "unit": "TFLOPS",
                "met": None if a is None or b is None else a >= b,
            }
        )
    for fam in ROWS_FAMILIES:
        mine = find(fam, "", PYPTX)
        rate = mine.rate if mine else None
        frac = None if rate is None or not copy_rate else rate / copy_rate
        out.append(
            {
                "target": f"{fam} at or above {ROWS_TARGET:.0%} of the copy bandwidth",
                "measured": None if frac is None else 100 * frac,
                "limit": 100 * ROWS_TARGET,
                "unit": "% of copy",
                "met": None if frac is None else frac >= ROWS_TARGET,
            }
        )
    for causal in (False, True):
        label = "hd128 causal" if causal else "hd128"
        mine = next(
            (
                r
                for r in rows
                if r.family == "flash_attention"
                and r.provider == PYPTX
                and r.problem.endswith(label)
            ),
            None,
        )
        rate = mine.rate if mine else None
        out.append(
            {
                "target": f"flash attention forward {label} at or above {FA_TARGET_TFLOPS:.0f} "
                "TFLOPS",
                "measured": rate,
                "limit": FA_TARGET_TFLOPS,
                "unit": "TFLOPS",
                "met": None if rate is None else rate >= FA_TARGET_TFLOPS,
            }
        )
    return out


def table(rows: list[Row]) -> str:
    """The rows as one markdown table."""
    copy = next((r for r in rows if r.family == "copy"), None)
    copy_rate = copy.rate if copy else None
    baseline: dict[tuple[str, str], float] = {}
    for r in rows:  # the first torch eager row of each problem
        mine = r.provider in (PYPTX, ZERO_FILL) or r.provider.startswith(("pyptx", COMPILE))
        if not mine and r.rate is not None:
            baseline.setdefault((r.family, r.problem), r.rate)
    lines = [
        "| family | problem | provider | kernel | ms | TFLOPS or GB/s | % of copy | vs torch "
        "| check |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        check = "" if r.rel_error is None else f"err {r.rel_error:.1e}"
        if r.ms is None:
            why = (r.skipped or "").replace("|", "/")
            lines.append(
                f"| {r.family} | {r.problem} | {r.provider} | {r.kernel} | - | skipped: {why} "
                f"| | | {check} |"
            )
            continue
        rate = r.rate or 0.0
        shown = f"{rate:,.1f} TFLOPS" if r.kind == "flops" else f"{rate:,.0f} GB/s"
        pct = f"{100 * rate / copy_rate:.1f} %" if r.kind == "bytes" and copy_rate else ""
        base = baseline.get((r.family, r.problem))
        compared = base and r.family != "copy" and r.provider != ZERO_FILL
        vs = f"{rate / base:.2f}x" if compared else ""
        lines.append(
            f"| {r.family} | {r.problem} | {r.provider} | {r.kernel} | {r.ms:.4f} | {shown} "
            f"| {pct} | {vs} | {check} |"
        )
    return "\n".join(lines)


def target_lines(goals: list[dict[str, Any]]) -> str:
    out = []
    for g in goals:
        verdict = {True: "met", False: "MISSED", None: "n/a (not measured)"}[g["met"]]
        measured = "-" if g["measured"] is None else f"{g['measured']:,.1f}"
        limit = "-" if g["limit"] is None else f"{g['limit']:,.1f}"
        out.append(f"- {g['target']}: {measured} vs {limit} {g['unit']}: {verdict}")
    return "\n".join(out)


def nvidia_smi_driver() -> str | None:
    try:
        result = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip().splitlines()[0] if result.stdout.strip() else None


def machine_info(torch: Any, arch: str, dry_run: bool) -> dict[str, Any]:
    """The device, driver and software versions, for the header and the JSON."""
    import pyptx.runtime

    info: dict[str, Any] = {
        "arch": arch,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "triton": _version("triton"),
        "cuda_bindings": _version("cuda-bindings") or _version("cuda-python"),
    }
    if dry_run:
        info["device"] = f"CPU ({platform.machine()}), emulator: --dry-run-cpu"
        return info
    props = torch.cuda.get_device_properties(0)
    info |= {
        "device": torch.cuda.get_device_name(0),
        "sms": props.multi_processor_count,
        "memory_gib": round(props.total_memory / 2**30, 1),
        "driver": nvidia_smi_driver(),
        "cuda_driver_api": pyptx.runtime.driver_version(),
    }
    return info


def no_gpu_reason() -> str | None:
    """Why nothing can run here (the driver probe, then torch), or ``None``."""
    reason = no_launch_reason()
    if reason is not None:
        return reason
    try:
        import torch
    except ImportError as exc:
        return f"torch is not installed ({exc})"
    if not torch.cuda.is_available():
        return f"torch {torch.__version__} cannot use the GPU"
    return None


def main(argv: list[str]) -> int:
    """Measure, print the table and the targets, optionally write JSON."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=20, help="timed samples; the median counts")
    ap.add_argument("--warmup", type=int, default=10, help="untimed calls before timing")
    ap.add_argument("--sample-ms", type=float, default=5.0, help="GPU time per sample, about")
    ap.add_argument("--max-calls", type=int, default=200, help="most calls in one sample")
    ap.add_argument("--copy-mib", type=int, default=1024, help="size of the copied tensor")
    ap.add_argument("--only", action="append", help="only this family (repeatable)")
    ap.add_argument("--no-compile", action="store_true", help="leave out torch.compile rows")
    ap.add_argument("--budget", type=float, default=0, help="seconds; 0: no limit")
    ap.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    ap.add_argument("--json", type=Path, help="also write the results as JSON to this path")
    ap.add_argument(
        "--dry-run-cpu",
        action="store_true",
        help="check the plumbing without a GPU: tiny problems in the emulator (numbers mean "
        "nothing)",
    )
    ap.add_argument("--arch", default="sm_90a", help="with --dry-run-cpu: whose kernels run")
    opts = ap.parse_args(argv[1:])
    if opts.quick:
        opts.repeat, opts.warmup, opts.sample_ms, opts.copy_mib = 5, 3, 2.0, 512
    if opts.dry_run_cpu:
        opts.repeat, opts.warmup, opts.sample_ms, opts.max_calls = 1, 0, 0.0, 1
        opts.copy_mib = 1
    command = "python " + " ".join(argv)
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    reason = None if opts.dry_run_cpu else no_gpu_reason()
    if reason is not None:
        print(f"skipped: no CUDA device ({reason})")
        if opts.json:
            skipped = {"benchmark": "kernels", "skipped": reason, "date": date}
            opts.json.parent.mkdir(parents=True, exist_ok=True)
            opts.json.write_text(json.dumps(skipped, indent=2) + "\n")
        return 0

    import torch

    import pyptx.runtime

    if opts.dry_run_cpu:
        arch, device = opts.arch, "cpu"
    else:
        arch, device = pyptx.runtime.device_arch(0) or "unknown", "cuda"
    info = machine_info(torch, arch, opts.dry_run_cpu)
    commit = git_commit()
    print(
        f"{info['device']} ({arch}), driver {info.get('driver')} "
        f"(CUDA driver API {info.get('cuda_driver_api')}), Python {info['python']}, torch "
        f"{info['torch']} (CUDA {info['torch_cuda']}), triton {info['triton']}, {date}, "
        f"commit {commit[:12]}, command: {command}"
    )
    clock = "perf_counter (dry run)" if opts.dry_run_cpu else "CUDA events"
    print(
        f"{clock}; median of {opts.repeat} samples of about {opts.sample_ms:g} ms each "
        f"(at most {opts.max_calls} calls), after {opts.warmup} warm-up calls",
        flush=True,
    )
    todo = [c for c in cases(torch, opts.dry_run_cpu) if not opts.only or c.family in opts.only]
    runner = Runner(torch, opts, arch, device)

    def stop(signum: int, frame: Any) -> None:
        raise Interrupted()

    previous = signal.signal(signal.SIGTERM, stop)
    interrupted = False
    try:
        runner.run(todo)
    except Interrupted:
        interrupted = True
        print("!! SIGTERM: reporting the rows measured so far", flush=True)
    finally:
        signal.signal(signal.SIGTERM, previous)
    goals = targets(runner.rows)
    print(table(runner.rows))
    print("\nTargets (issue 13):")
    print(target_lines(goals))
    if opts.json:
        report: dict[str, Any] = {
            "benchmark": "kernels",
            "date": date,
            "commit": commit,
            "command": command,
            "machine": info,
            "settings": {
                k: getattr(opts, k)
                for k in ("repeat", "warmup", "sample_ms", "max_calls", "copy_mib", "budget")
            },
            "interrupted": interrupted,
            "results": [{**asdict(r), "ms": r.ms, "rate": r.rate} for r in runner.rows],
            "targets": goals,
        }
        opts.json.parent.mkdir(parents=True, exist_ok=True)
        opts.json.write_text(json.dumps(report, indent=2) + "\n")
    failed = [r for r in runner.rows if r.mismatch or (r.skipped or "").startswith("failed")]
    mine = [r for r in failed if r.provider.startswith(("pyptx", PYPTX))]
    return 1 if mine else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
