"""Test helpers of pyptx-kernels: numpy references per family, a tiny real kernel, the tables.

- :data:`CASES`: for each family, candidate problem sizes, input data, the public call and a
  float64 numpy reference; :func:`check_public_call` runs one kernel through the public API
  in the emulator (torch CPU tensors) and compares.
- :func:`fake_swiglu`: an Implementation built from a small real DSL kernel (f32 SwiGLU, one
  thread per element), for testing the machinery while the table is empty.
- :func:`compare_row` / :func:`compare_snapshot`: the ptxas table and the PTX snapshots, with
  ``PYPTX_UPDATE_KERNEL_TABLES=1`` rewriting them instead of comparing.
- :func:`ptxas_usage` / :func:`ptxas_log`: ``ptxas -v`` of one traced kernel;
  :func:`cuda_arch` / :func:`require_cuda_arch`: the GPU tests' skips.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import json
import math
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pyptx.kernels as K
import pyptx.runtime
from pyptx import Tile, kernel, ptx, reg
from pyptx.dsl.kernel import Kernel
from pyptx.kernels import Implementation, KernelUnavailable, _registry
from pyptx.kernels._catalog import KernelCheck
from pyptx.kernels._ptxas import PtxasUsage, parse_usage, run_verbose
from pyptx.types import f32, u32, u64

TESTS = Path(__file__).resolve().parent
TABLE = TESTS / "ptxas_table.json"
SNAPSHOTS = TESTS / "snapshots"
UPDATE_ENV = "PYPTX_UPDATE_KERNEL_TABLES"
REGENERATE = (
    f"{UPDATE_ENV}=1 python -m pytest -p no:cacheprovider packages/pyptx-kernels/tests/"
    "test_ptxas_table.py packages/pyptx-kernels/tests/test_snapshots.py"
)
"""The command that rewrites the ptxas table and the snapshots from the current kernels."""


def updating() -> bool:
    """Whether this run rewrites the tables instead of comparing them (:data:`UPDATE_ENV`)."""
    return os.environ.get(UPDATE_ENV, "") not in ("", "0")


# ------------------------------------------------------------------ references (float64)


def ref_gemm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a @ b


def ref_rms_norm(x: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def ref_layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)  # biased, as torch's layer_norm
    return (x - mean) / np.sqrt(var + eps) * w + b


def ref_swiglu(g: np.ndarray, u: np.ndarray) -> np.ndarray:
    return g / (1.0 + np.exp(-g)) * u


def ref_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def ref_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> np.ndarray:
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    if causal:  # query i sees keys j <= i (top-left aligned, torch's is_causal)
        seq_q, seq_k = scores.shape[-2:]
        scores = np.where(np.tril(np.ones((seq_q, seq_k), dtype=bool)), scores, -np.inf)
    return ref_softmax(scores) @ v


# ------------------------------------------------------------------ family cases

EPS = 1e-5
OUTPUT_DTYPE = {"e4m3": "bf16", "e5m2": "bf16"}
"""Input dtype -> output dtype where they differ (FP8 GEMMs return bf16)."""

TOLERANCES = {"f32": (1e-4, 1e-5), "f16": (5e-3, 5e-3), "bf16": (2e-2, 2e-2)}
"""Output dtype -> (rtol, atol) against the float64 reference of the rounded inputs.

f32: the kernels' approximate instructions (``rsqrt.approx``, ``ex2.approx``: about 2^-22
relative) and fp32 sums in another order. f16 / bf16: one rounding of the output (2^-11 /
2^-8 relative) plus intermediates kept in that type (attention's probabilities before P @ V).
GEMM inputs are small integers, so GEMMs are exact in every dtype.
"""


@dataclass(frozen=True)
class FamilyCase:
    """How the generic test runs one family.

    Attributes:
        shapes: problem sizes to try, in order; the first one the kernel takes is run (a
            kernel refuses with KernelUnavailable before it launches, so refusals are free).
        inputs: ``(shape, rng) -> float64 arrays`` (the data before rounding to the dtype).
        run: ``(arrays, arch) -> result``: the public call on the framework arrays.
        reference: ``arrays (rounded, float64) -> expected`` (an array, or a list for groups).
    """

    shapes: tuple[Any, ...]
    inputs: Callable[[Any, np.random.Generator], list[np.ndarray]]
    run: Callable[[list[Any], str], Any]
    reference: Callable[[list[np.ndarray]], Any]


def _ints(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.integers(-2, 3, size=shape).astype(np.float64)


def _normal(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    return rng.standard_normal(shape) * scale


def _rows_inputs(extra: int, scale: float = 1.0) -> Callable[..., list[np.ndarray]]:
    """x (..., H) plus ``extra`` (H,) vectors (weights near 1, then biases near 0)."""

    def make(shape: tuple[int, ...], rng: np.random.Generator) -> list[np.ndarray]:
        x = _normal(rng, *shape, scale=scale)
        vectors = [rng.uniform(0.5, 1.5, shape[-1]), _normal(rng, shape[-1], scale=0.1)]
        return [x, *vectors[:extra]]

    return make


# Rows shapes: three leading dims (so flattening is exercised) and hidden sizes from small up.
_ROWS = ((2, 3, 256), (2, 3, 1024), (2, 3, 4096))

CASES: dict[str, FamilyCase] = {
    "gemm": FamilyCase(
        # (M, K, N); the last for kernels that take large M only (blackwell.gemm_bf16_2cta).
        shapes=((100, 64, 72), (128, 64, 128), (256, 128, 256), (512, 64, 72)),
        inputs=lambda s, rng: [_ints(rng, s[0], s[1]), _ints(rng, s[1], s[2])],
        run=lambda xs, arch: K.gemm(*xs, arch=arch),
        reference=lambda xs: ref_gemm(*xs),
    ),
    "grouped_gemm": FamilyCase(
        # (M per group, K, N): experts of one K and N with different token counts.
        shapes=(((40, 88), 64, 64), ((64, 128), 64, 128), ((128, 256), 128, 256)),
        inputs=lambda s, rng: [
            *(_ints(rng, m, s[1]) for m in s[0]),
            *(_ints(rng, s[1], s[2]) for _ in s[0]),
        ],
        run=lambda xs, arch: K.grouped_gemm(xs[: len(xs) // 2], xs[len(xs) // 2 :], arch=arch),
        reference=lambda xs: [
            ref_gemm(a, b) for a, b in zip(xs[: len(xs) // 2], xs[len(xs) // 2 :], strict=True)
        ],
    ),
    "rms_norm": FamilyCase(
        shapes=_ROWS,
        inputs=_rows_inputs(1),
        run=lambda xs, arch: K.rms_norm(*xs, EPS, arch=arch),
        reference=lambda xs: ref_rms_norm(*xs, EPS),
    ),
    "layer_norm": FamilyCase(
        shapes=_ROWS,
        inputs=_rows_inputs(2),
        run=lambda xs, arch: K.layer_norm(*xs, EPS, arch=arch),
        reference=lambda xs: ref_layer_norm(*xs, EPS),
    ),
    "swiglu": FamilyCase(
        shapes=_ROWS,
        inputs=lambda s, rng: [_normal(rng, *s, scale=2.0), _normal(rng, *s)],
        run=lambda xs, arch: K.swiglu(*xs, arch=arch),
        reference=lambda xs: ref_swiglu(*xs),
    ),
    "softmax": FamilyCase(
        shapes=_ROWS,
        inputs=lambda s, rng: [_normal(rng, *s, scale=2.0)],
        run=lambda xs, arch: K.softmax(*xs, arch=arch),
        reference=lambda xs: ref_softmax(*xs),
    ),
    "flash_attention": FamilyCase(
        # (batch, heads, seq, head_dim), causal: the mask is the part most easily wrong.
        shapes=((1, 2, 80, 64), (1, 2, 128, 64), (1, 1, 128, 128)),
        inputs=lambda s, rng: [_normal(rng, *s) for _ in range(3)],
        run=lambda xs, arch: K.flash_attention(*xs, causal=True, arch=arch),
        reference=lambda xs: ref_attention(*xs, causal=True),
    ),
}


def to_torch(values: np.ndarray, dtype: str) -> Any:
    """``values`` rounded to the pyptx dtype ``dtype``, as a torch CPU tensor."""
    import torch

    names = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}
    names |= {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2"}
    return torch.from_numpy(values.astype(np.float32)).to(getattr(torch, names[dtype]))


def to_float64(t: Any) -> np.ndarray:
    """A torch tensor of any float dtype as float64 numpy."""
    import torch

    return np.asarray(t.to(torch.float32).cpu().numpy(), dtype=np.float64)


def torch_dtype_name(t: Any) -> str:
    """The pyptx name of a torch tensor's dtype."""
    names = {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}
    name = str(t.dtype).removeprefix("torch.")
    return names.get(name, name)


@contextlib.contextmanager
def only(impls: Sequence[Implementation]) -> Iterator[pytest.MonkeyPatch]:
    """Within the block the library's table is ``impls`` (undone on exit)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_registry, "implementations", lambda: tuple(impls))
        yield mp


def check_public_call(impl: Implementation, device: str = "cpu", seed: int = 0) -> tuple[Any, str]:
    """Run ``impl`` through its family's public function and compare with the reference.

    The table is narrowed to ``impl`` for the call, so the public function must pick it. The
    first shape of the family's :class:`FamilyCase` that the kernel takes is run, with the
    kernel's first dtype, as torch tensors on ``device``: on "cpu" the kernel runs in the
    emulator (with the race checker conftest turns on).

    Returns:
        The shape that ran and the dtype.

    Raises:
        AssertionError: the result's dtype, shape or values are wrong, or the kernel took
            none of the shapes.
    """
    case = CASES[impl.family]
    dtype = impl.dtypes[0]
    refusals = []
    rng = np.random.default_rng(seed)
    with only([impl]):
        for shape in case.shapes:
            arrays = [to_torch(v, dtype).to(device) for v in case.inputs(shape, rng)]
            try:
                result = case.run(arrays, impl.arch)
            except KernelUnavailable as exc:
                refusals.append(f"{shape}: {exc}")
                continue
            expected = case.reference([to_float64(a) for a in arrays])
            _compare(impl.name, result, expected, OUTPUT_DTYPE.get(dtype, dtype))
            return shape, dtype
    raise AssertionError(
        f"{impl.name} took none of the {impl.family} shapes in kernels_testing.CASES; add one "
        "it takes:\n" + "\n".join(refusals)
    )


def _compare(name: str, result: Any, expected: Any, dtype: str) -> None:
    results = result if isinstance(result, list) else [result]
    expecteds = expected if isinstance(expected, list) else [expected]
    assert len(results) == len(expecteds), f"{name}: {len(results)} results"
    rtol, atol = TOLERANCES[dtype]
    for got, want in zip(results, expecteds, strict=True):
        assert torch_dtype_name(got) == dtype, f"{name}: returned {got.dtype}, expected {dtype}"
        assert tuple(got.shape) == want.shape, f"{name}: returned {tuple(got.shape)}"
        np.testing.assert_allclose(to_float64(got), want, rtol=rtol, atol=atol, err_msg=name)


# ------------------------------------------------------------------ a tiny real kernel

NEG_LOG2E = -math.log2(math.e)


@functools.cache
def build_fake_swiglu(hidden: int, arch: str = "sm_80", silu: bool = True) -> Kernel:
    """f32 SwiGLU over rows of ``hidden``: one CTA per row, one thread per element.

    ``silu=False`` builds a wrong kernel (``g * u``), to show the checks catch one.
    """

    @kernel(
        in_specs=(Tile("R", hidden, f32), Tile("R", hidden, f32)),
        out_specs=(Tile("R", hidden, f32),),
        grid=lambda R: (R, 1, 1),
        block=(hidden, 1, 1),
        arch=arch,
    )
    def fake_swiglu(g, u, y):
        tid = reg.from_(ptx.special.tid.x(), u32)
        row = reg.from_(ptx.special.ctaid.x(), u32)
        i = reg.scalar(u32)
        ptx.mad(i, row, hidden, tid, mode="lo")
        offset = reg.scalar(u64)
        ptx.mul(offset, i, 4, mode="wide")
        x, up = reg.scalar(f32), reg.scalar(f32)
        ptx.ld(x, ptx.addr(g.ptr() + offset), space="global")
        ptx.ld(up, ptx.addr(u.ptr() + offset), space="global")
        if silu:  # x * sigmoid(x), sigmoid(x) = 1 / (1 + 2^(-x log2 e))
            e = reg.scalar(f32)
            ptx.mul(e, x, NEG_LOG2E)
            ptx.ex2(e, e)
            ptx.add(e, e, 1.0)
            ptx.rcp(e, e, approx=True)
            ptx.mul(x, x, e)
        ptx.mul(x, x, up)
        ptx.st(ptx.addr(y.ptr() + offset), x, space="global")

    return fake_swiglu


def fake_swiglu(
    arch: str = "sm_80", name: str = "", silu: bool = True, max_hidden: int = 1024
) -> Implementation:
    """An Implementation of the swiglu family around :func:`build_fake_swiglu`.

    Its ``call`` refuses hidden sizes over ``max_hidden`` (one thread per element) with
    KernelUnavailable, as a real kernel refuses a shape it cannot take.
    """

    def build(hidden: int) -> Kernel:
        return build_fake_swiglu(hidden, arch, silu)

    def call(g: Any, u: Any) -> Any:
        hidden = g.shape[1]
        if hidden > max_hidden:
            raise KernelUnavailable(f"hidden size {hidden} is over {max_hidden}")
        return build(hidden)(g, u)

    return Implementation(
        name=name or f"fake.swiglu_{arch}",
        family="swiglu",
        arch=arch,
        dtypes=("f32",),
        example={"hidden": 64},
        build=build,
        call=call,
    )


# ------------------------------------------------------------------ ptxas and the GPU


def ptxas_log(kernel: Kernel, ptxas: str, **dims: Any) -> str:
    """The ``ptxas -v`` report of ``kernel`` (traced with template ``dims``) for its arch.

    Raises:
        PtxasError: ptxas rejected the PTX.
    """
    return run_verbose(kernel.ptx(**dims), kernel.arch, ptxas, kernel.name)


def ptxas_usage(kernel: Kernel, ptxas: str, **dims: Any) -> PtxasUsage:
    """Registers, spill bytes and static shared memory ``ptxas -v`` reports for ``kernel``."""
    return parse_usage(ptxas_log(kernel, ptxas, **dims), kernel.name)


def cuda_arch() -> str:
    """The pyptx arch of the CUDA device torch uses ("sm_90a"); skips the test without one."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device visible to torch")
    found = pyptx.runtime.device_arch(torch.cuda.current_device())
    if found is None:
        pytest.skip("no CUDA driver for the device torch sees")
    return found


def require_cuda_arch(arch: str) -> None:
    """Skip the test unless torch's CUDA device is an ``arch`` GPU (the kernels' exact target)."""
    found = cuda_arch()
    if found != arch:
        pytest.skip(f"needs {arch}, found {found}")


# ------------------------------------------------------------------ ptxas table and snapshots


def table_row(check: KernelCheck) -> dict[str, int]:
    """A kernel's row of the ptxas table: registers, spill bytes, smem (static + dynamic)."""
    assert check.usage is not None, f"{check.name}: {'; '.join(check.problems)}"
    u = check.usage
    return {
        "registers": u.registers,
        "spill_stores": u.spill_stores,
        "spill_loads": u.spill_loads,
        "smem": u.smem + check.smem_dynamic,
    }


def load_table(path: Path) -> dict[str, Any]:
    """The ptxas table: ``{"ptxas": version, "kernels": {name: row}}`` (empty if missing)."""
    if not path.exists():
        return {"ptxas": None, "kernels": {}}
    return dict(json.loads(path.read_text()))


def write_table(path: Path, table: dict[str, Any]) -> None:
    table["kernels"] = dict(sorted(table["kernels"].items()))
    path.write_text(json.dumps(table, indent=2) + "\n")


def compare_row(path: Path, name: str, row: dict[str, int], ptxas_version: str) -> None:
    """Compare ``row`` with ``name``'s row of the table at ``path`` (or write it when updating)."""
    table = load_table(path)
    if updating():
        table["ptxas"] = ptxas_version
        table["kernels"][name] = row
        write_table(path, table)
        return
    if name not in table["kernels"]:
        pytest.fail(f"{name} has no row in {path.name}; regenerate with:\n  {REGENERATE}")
    if table["ptxas"] != ptxas_version:
        pytest.fail(
            f"{path.name} was made with ptxas {table['ptxas']}, this is ptxas {ptxas_version}; "
            f"use the pinned ptxas, or regenerate with:\n  {REGENERATE}"
        )
    want = table["kernels"][name]
    if want != row:
        changed = ", ".join(f"{k} {want.get(k)} -> {v}" for k, v in row.items() if want.get(k) != v)
        pytest.fail(
            f"{name}: ptxas -v changed: {changed}. If the change is meant, regenerate with:\n"
            f"  {REGENERATE}"
        )


def compare_snapshot(directory: Path, name: str, ptx_text: str) -> None:
    """Compare ``ptx_text`` with ``<directory>/<name>.ptx`` (or write it when updating)."""
    path = directory / f"{name}.ptx"
    if updating():
        directory.mkdir(parents=True, exist_ok=True)
        path.write_text(ptx_text)
        return
    if not path.exists():
        pytest.fail(f"no PTX snapshot {path.name} for {name}; regenerate with:\n  {REGENERATE}")
    old = path.read_text()
    if old != ptx_text:
        diff = difflib.unified_diff(
            old.splitlines(), ptx_text.splitlines(), "snapshot", "traced", lineterm="", n=1
        )
        shown = "\n".join(list(diff)[:60])
        pytest.fail(
            f"{name}: the PTX at the example configuration changed:\n{shown}\n"
            f"If the change is meant, regenerate with:\n  {REGENERATE}"
        )


def stale(names: Sequence[str], known: Sequence[str]) -> list[str]:
    """The entries of ``names`` that are not among ``known`` (kernels that no longer exist)."""
    return sorted(set(names) - set(known))
