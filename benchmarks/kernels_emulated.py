"""CPU proxies for the speed of pyptx.kernels: emulator instruction counts and ptxas resources.

Usage::

    python benchmarks/kernels_emulated.py [--arch sm_90a] [--only NAME] [--quick] [--json PATH]

Until the kernels run on a GPU (``benchmarks/kernels.py``), these are the figures the
library's speed is judged by. For every kernel of the catalog (``pyptx.kernels.catalog()``)
the script runs one small problem with the kernel's own tile configuration through its
``call`` in the emulator (numpy arrays, bf16 / e4m3 data from ml_dtypes), checks the result
against a float64 numpy reference (a count from a wrong run means nothing), and reports:

* ``warp-instr``: the launch's ``LaunchStats.warp_instructions`` from pyptx.emu, i.e. PTX
  instructions issued, counted once per warp that issued them. pyptx.runtime drops the
  statistics of the launches it runs in the emulator, so the script wraps
  ``pyptx.runtime._emulate.launch`` (the emulator's ``launch`` as the runtime calls it) for
  the duration of each call and keeps what it returns;
* ``per unit``: that count divided by the problem's units: output tiles for GEMMs (the
  kernel's tile, K loop included; persistent kernels amortize their set-up over the tiles
  each CTA runs), rows for the row-wise kernels, 128-row query tiles for attention (also per
  visited (query tile, key tile) block);
* ``MMA/unit``: the tensor-core instructions among them (``mma.sync``,
  ``wgmma.mma_async``, ``tcgen05.mma``), per unit. A ``wgmma`` is issued by the four
  warps of its warpgroup, so it counts four times; a ``tcgen05.mma`` is issued by one
  elected thread and counts once;
* the ``ptxas -v`` registers, spill bytes (stores/loads) and shared memory (static +
  dynamic) at the kernel's catalog configuration, as ``python -m pyptx.kernels check``
  prints them.

These are PTX counts, not SASS, and the emulator does not spin: an ``mbarrier.try_wait``
that would fail on a GPU is retried only when nothing else can run, so waits count about
once each. The counts are deterministic (same commit, same counts on any machine); the
``emu s`` column is the emulator's wall time, which is not a GPU proxy.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
for src in sorted((REPO / "packages").glob("*/src"), reverse=True):
    sys.path.insert(0, str(src))

from parse_throughput import machine_info  # noqa: E402

MMA_PREFIXES = ("mma.sync", "wgmma.mma_async", "tcgen05.mma")
"""Mnemonic prefixes counted as tensor-core instructions."""

EPS = 1e-5
ROWS = 8  # rows of the row-wise problems
HIDDEN = 4096  # their hidden size: the catalog's example


@dataclass
class Problem:
    """One emulated problem: the call's arguments and what they are in units."""

    describe: str
    args: list[Any]
    expected: list[np.ndarray]
    unit: str
    units: int
    blocks: int | None = None  # attention: visited (query tile, key tile) pairs


@dataclass
class Result:
    """One row of the table."""

    name: str
    arch: str
    problem: str = ""
    launch: str = ""
    unit: str = ""
    units: int = 0
    warp_instructions: int = 0
    mma_instructions: int = 0
    per_unit: float = 0.0
    mma_per_unit: float = 0.0
    per_block: float | None = None
    emulator_s: float = 0.0
    max_error: float = 0.0
    top_mnemonics: list[tuple[str, int]] = field(default_factory=list)
    registers: int | None = None
    spills: str = "-"
    smem: str = "-"
    failed: str | None = None


# ------------------------------------------------------------------------------- inputs


def _bits(values: np.ndarray, dtype: str) -> np.ndarray:
    """``values`` rounded to the pyptx dtype ``dtype`` as a numpy array (ml_dtypes types)."""
    import ml_dtypes

    kinds = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
    kinds["e4m3"] = ml_dtypes.float8_e4m3fn
    return np.ascontiguousarray(values.astype(np.float32).astype(kinds[dtype]))


def _f64(x: np.ndarray) -> np.ndarray:
    return np.asarray(x).astype(np.float32).astype(np.float64)


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def gemm_tile(name: str, m: int) -> tuple[int, int]:
    """The (rows, columns) output tile ``name``'s call uses for ``m`` rows."""
    if name == "ampere.gemm":
        from pyptx.kernels.ampere.gemm import EXAMPLE

        return int(EXAMPLE["block_m"]), int(EXAMPLE["block_n"])
    if name.startswith("hopper."):
        from pyptx.kernels.hopper.gemm import TILE_CONFIG

        return 128, int(TILE_CONFIG["bn"])
    from pyptx.kernels.blackwell import gemm as bw

    if name == "blackwell.grouped_gemm_bf16":
        return bw.BM, int(bw.GROUPED["bn"])
    chosen = bw.TWO_CTA if m >= bw.TWO_CTA_MIN_M else bw.ONE_CTA
    return bw.BM * chosen["cta_group"], int(chosen["bn"])


def gemm_problem(name: str, dtype: str, quick: bool, rng: np.random.Generator) -> Problem:
    """(256, 512) x (512, 512) (K 128 with ``--quick``): small integers, so exact sums."""
    m, n, k = 256, 512, 128 if quick else 512
    a = _bits(rng.integers(-3, 4, size=(m, k)), dtype)
    b = _bits(rng.integers(-3, 4, size=(k, n)), dtype)
    tm, tn = gemm_tile(name, m)
    units = _ceil(m, tm) * _ceil(n, tn)
    return Problem(f"{m}x{n}x{k} {dtype}", [a, b], [_f64(a) @ _f64(b)], f"{tm}x{tn} tile", units)


def grouped_problem(name: str, dtype: str, quick: bool, rng: np.random.Generator) -> Problem:
    """Four experts of (K, N) = (512, 512) over 128 + 256 + 128 + 200 token rows."""
    ms, n, k = (128, 256, 128, 200), 512, 128 if quick else 512
    a_list = [_bits(rng.integers(-3, 4, size=(m, k)), dtype) for m in ms]
    b_list = [_bits(rng.integers(-3, 4, size=(k, n)), dtype) for _ in ms]
    tm, tn = gemm_tile(name, 0)
    units = sum(_ceil(m, tm) for m in ms) * _ceil(n, tn)
    expected = [_f64(a) @ _f64(b) for a, b in zip(a_list, b_list, strict=True)]
    what = f"{len(ms)} groups, M {'+'.join(map(str, ms))}, N {n}, K {k} {dtype}"
    return Problem(what, [a_list, b_list], expected, f"{tm}x{tn} tile", units)


def rows_problem(family: str, dtype: str, rng: np.random.Generator) -> Problem:
    """``ROWS`` rows of ``HIDDEN``: normal data, weights near 1, biases near 0."""
    x = _bits(rng.standard_normal((ROWS, HIDDEN)) * 2.0, dtype)
    w = _bits(rng.uniform(0.5, 1.5, HIDDEN), dtype)
    b = _bits(rng.standard_normal(HIDDEN) * 0.1, dtype)
    xf, wf, bf = _f64(x), _f64(w), _f64(b)
    if family == "rms_norm":
        args: list[Any] = [x, w, EPS]
        want = xf / np.sqrt((xf * xf).mean(-1, keepdims=True) + EPS) * wf
    elif family == "layer_norm":
        args = [x, w, b, EPS]
        mean = xf.mean(-1, keepdims=True)
        var = ((xf - mean) ** 2).mean(-1, keepdims=True)
        want = (xf - mean) / np.sqrt(var + EPS) * wf + bf
    elif family == "swiglu":
        u = _bits(rng.standard_normal((ROWS, HIDDEN)), dtype)
        args = [x, u]
        want = xf / (1.0 + np.exp(-xf)) * _f64(u)
    else:
        args = [x]
        e = np.exp(xf - xf.max(-1, keepdims=True))
        want = e / e.sum(-1, keepdims=True)
    return Problem(f"{ROWS}x{HIDDEN} {dtype}", args, [want], "row", ROWS)


def attention_problem(example: dict[str, Any], quick: bool, rng: np.random.Generator) -> Problem:
    """(1, 2, S, D) q, k, v at the example's head dim, dtype and causality; S 256 (128 quick)."""
    from pyptx.kernels.hopper._attention_kernel import BM, BN

    dtype, dim, causal = example["dtype"], example["head_dim"], example["causal"]
    batch, heads, seq = 1, 2, 128 if quick else 256
    q, k, v = (_bits(rng.standard_normal((batch, heads, seq, dim)), dtype) for _ in range(3))
    qf, kf, vf = _f64(q), _f64(k), _f64(v)
    scores = qf @ np.swapaxes(kf, -1, -2) / math.sqrt(dim)
    if causal:
        scores = np.where(np.tril(np.ones((seq, seq), dtype=bool)), scores, -np.inf)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    want = p / p.sum(-1, keepdims=True) @ vf
    q_tiles = _ceil(seq, BM)
    if causal:  # query tile i sees keys 0 .. (i + 1) BM - 1
        visited = sum(_ceil(min(seq, (i + 1) * BM), BN) for i in range(q_tiles))
    else:
        visited = q_tiles * _ceil(seq, BN)
    what = f"({batch}, {heads}, {seq}, {dim}) {dtype}{' causal' if causal else ''}"
    units = batch * heads * q_tiles
    blocks = batch * heads * visited
    return Problem(what, [q, k, v, causal], [want], f"{BM}-row query tile", units, blocks)


def problem_for(impl: Any, quick: bool, rng: np.random.Generator) -> Problem:
    """The emulated problem of ``impl`` (its catalog example's dtype)."""
    dtype = impl.example.get("dtype", impl.dtypes[0])
    if impl.family == "gemm":
        return gemm_problem(impl.name, dtype, quick, rng)
    if impl.family == "grouped_gemm":
        return grouped_problem(impl.name, dtype, quick, rng)
    if impl.family == "flash_attention":
        return attention_problem(dict(impl.example), quick, rng)
    return rows_problem(impl.family, dtype, rng)


# ------------------------------------------------------------------------------- running


@contextlib.contextmanager
def recorded_launches() -> Iterator[list[tuple[dict[str, Any], Any]]]:
    """Within the block, every emulated launch of pyptx.runtime appends (keywords, stats)."""
    from pyptx.runtime import _emulate

    launches: list[tuple[dict[str, Any], Any]] = []
    original = _emulate.launch

    def recording(*args: Any, **kwargs: Any) -> Any:
        stats = original(*args, **kwargs)
        launches.append((kwargs, stats))
        return stats

    setattr(_emulate, "launch", recording)  # noqa: B010 - a private hook, restored below
    try:
        yield launches
    finally:
        setattr(_emulate, "launch", original)  # noqa: B010


def _max_error(got: Any, want: np.ndarray) -> float:
    """Largest |got - want| relative to the largest |want| (0 for an empty result)."""
    g = _f64(got)
    if g.shape != want.shape:
        raise AssertionError(f"result shape {g.shape}, expected {want.shape}")
    if not want.size:
        return 0.0
    return float(np.abs(g - want).max() / max(np.abs(want).max(), 1e-30))


# bf16 outputs: one rounding (2^-8 relative) of values up to the row's largest; a little more
# for attention (P is rounded before P @ V) and the approximate f32 instructions.
TOLERANCE = 2.0**-6


def emulate(impl: Any, quick: bool) -> Result:
    """Run ``impl`` once on its problem in the emulator and count its instructions."""
    result = Result(impl.name, impl.arch)
    rng = np.random.default_rng(13)
    try:
        prob = problem_for(impl, quick, rng)
        result.problem, result.unit, result.units = prob.describe, prob.unit, prob.units
        with recorded_launches() as launches:
            t0 = time.perf_counter()
            out = impl.call(*prob.args)
            result.emulator_s = time.perf_counter() - t0
        if len(launches) != 1:
            raise AssertionError(f"{len(launches)} emulated launches, expected 1")
        kwargs, stats = launches[0]
        outs = out if isinstance(out, list) else [out]
        result.max_error = max(_max_error(o, w) for o, w in zip(outs, prob.expected, strict=True))
        if result.max_error > TOLERANCE:
            raise AssertionError(f"wrong result: relative error {result.max_error:.3g}")
    except Exception as exc:  # a failing kernel is a row of the table, not the end of it
        result.failed = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        return result
    grid, block, cluster = kwargs["grid"], kwargs["block"], kwargs.get("cluster", (1, 1, 1))
    result.launch = f"grid {_dims(grid)} x {_dims(block)}"
    if math.prod(_tuple(cluster)) > 1:
        result.launch += f", cluster {_dims(cluster)}"
    mma = sum(c for m, c in stats.by_mnemonic.items() if m.startswith(MMA_PREFIXES))
    result.warp_instructions, result.mma_instructions = stats.warp_instructions, mma
    result.per_unit = stats.warp_instructions / prob.units
    result.mma_per_unit = mma / prob.units
    if prob.blocks:
        result.per_block = stats.warp_instructions / prob.blocks
    result.top_mnemonics = stats.by_mnemonic.most_common(8)
    return result


def _tuple(d: Any) -> tuple[int, ...]:
    return (d,) if isinstance(d, int) else tuple(d)


def _dims(d: Any) -> str:
    dims = list(_tuple(d))
    while len(dims) > 1 and dims[-1] == 1:
        dims.pop()
    return "x".join(map(str, dims))


def add_ptxas(results: list[Result], impls: dict[str, Any]) -> str | None:
    """Fill in the ``ptxas -v`` columns; returns the ptxas version (``None``: no ptxas)."""
    from pyptx.kernels._catalog import check_kernel
    from pyptx.kernels._ptxas import find_ptxas, version

    ptxas = find_ptxas()
    if ptxas is None:
        return None
    for r in results:
        check = check_kernel(impls[r.name], ptxas)
        if check.usage is not None:
            u = check.usage
            r.registers = u.registers
            r.spills = f"{u.spill_stores}/{u.spill_loads}"
            r.smem = f"{u.smem}+{check.smem_dynamic}"
    return version(ptxas)


# ------------------------------------------------------------------------------- report


def header(argv: list[str]) -> dict[str, str]:
    """The machine, date, commit and command."""
    info = machine_info(argv)
    info["machine"] += f", numpy {np.__version__}, no GPU needed"
    return info


def table(results: list[Result]) -> str:
    """The results as a markdown table."""
    lines = [
        "| kernel | arch | emulated problem | launch | unit | units | warp-instr | per unit "
        "| MMA/unit | registers | spills st/ld | smem | emu s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        if r.failed:
            lines.append(f"| {r.name} | {r.arch} | {r.problem} | FAILED: {r.failed} |")
            continue
        per = f"{r.per_unit:,.0f}"
        if r.per_block is not None:
            per += f" ({r.per_block:,.0f} per query x key block)"
        mma = f"{r.mma_per_unit:,.0f}" if r.mma_instructions else "-"
        regs = "-" if r.registers is None else str(r.registers)
        lines.append(
            f"| {r.name} | {r.arch} | {r.problem} | {r.launch} | {r.unit} | {r.units} "
            f"| {r.warp_instructions:,} | {per} | {mma} | {regs} | {r.spills} | {r.smem} "
            f"| {r.emulator_s:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Emulate each kernel, print the table, optionally write JSON; 1 if a kernel failed."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", help="only the kernels for this arch (sm_80, sm_90a, sm_100a)")
    ap.add_argument("--only", action="append", help="only this kernel (repeatable)")
    ap.add_argument("--quick", action="store_true", help="smaller K and sequence length")
    ap.add_argument("--json", type=Path, help="also write the results as JSON to this path")
    opts = ap.parse_args(argv[1:])
    from pyptx.kernels import _registry

    impls = {
        i.name: i
        for i in _registry.implementations()
        if (opts.arch is None or i.arch == opts.arch) and (not opts.only or i.name in opts.only)
    }
    if not impls:
        print("no kernel matches the filters", file=sys.stderr)
        return 2
    info = header(argv)
    print(f"{info['machine']}, {info['date']}, commit {info['commit']}, command: {info['command']}")
    results = []
    for impl in impls.values():
        results.append(emulate(impl, opts.quick))
        r = results[-1]
        print(f"  {r.name}: {'FAILED ' + r.failed if r.failed else f'{r.emulator_s:.2f} s'}")
    ptxas = add_ptxas(results, impls)
    print(f"ptxas {ptxas}" if ptxas else "ptxas: not found (registers, spills, smem left out)")
    print(table(results))
    if opts.json:
        report = {
            "benchmark": "kernels_emulated",
            **info,
            "ptxas": ptxas,
            "quick": opts.quick,
            "results": [asdict(r) for r in results],
        }
        opts.json.parent.mkdir(parents=True, exist_ok=True)
        opts.json.write_text(json.dumps(report, indent=2) + "\n")
    return 1 if any(r.failed for r in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
