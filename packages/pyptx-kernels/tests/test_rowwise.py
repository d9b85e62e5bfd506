"""The row-wise kernels (RMSNorm, LayerNorm, SwiGLU, softmax) of every arch.

In the emulator, through each implementation's ``call`` with torch CPU tensors (one JAX case),
against float64 numpy references; refused shapes; ptxas registers and spills at each
configuration the implementations claim; GPU tests (marked ``gpu``) against torch.

Shapes: 3 rows (no multiple of anything). Hidden 64 is one partial chunk (8 or 16 vectors
for a 32-thread CTA); hidden 1032 runs the device loop three times with a one-vector tail
(16-bit: 129 vectors, 64 threads; f32: 258 vectors, 128 threads, so two threads own a third
vector).
"""

from __future__ import annotations

from typing import Any

import kernels_testing as kt
import numpy as np
import pytest
import torch

from pyptx.kernels import _rowwise_common as common
from pyptx.kernels._registry import Implementation, KernelUnavailable, implementations
from pyptx.kernels.hopper import rowwise as hopper

ROWWISE = ("rms_norm", "layer_norm", "swiglu", "softmax")
IMPLS = [i for i in implementations() if i.family in ROWWISE]
(LAYER_NORM,) = (i for i in hopper.IMPLEMENTATIONS if i.family == "layer_norm")
EPS = 1e-5
TORCH = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}

# Tolerances against the float64 reference. The kernels compute in f32 and round once to the
# output type, so for bf16 (8 significant bits) and f16 (11) the output rounding dominates:
# half an ulp is at most 2^-8 / 2^-11 relative, and an f32 result within a few f32 ulps of a
# rounding boundary may round the other way, so one whole ulp (2^-7, 2^-10) is allowed. For
# f32 outputs: rsqrt/ex2/rcp.approx are within 2 ulps on a GPU (the emulator rounds them
# correctly), plus the f32 sums of ~1000 terms (relative error ~sqrt(H) * 2^-24 ~ 2e-6):
# rtol 2e-5. atol covers outputs near zero, where the error is relative to the row's scale
# (LayerNorm's x - mean: ~1e-6 absolute in f32); softmax outputs (~1e-3) need less.
RTOL = {"f32": 2e-5, "bf16": 2.0**-7, "f16": 2.0**-10}
ATOL = {"f32": 2e-6, "bf16": 1e-6, "f16": 1e-6}


# --- inputs ---------------------------------------------------------------------------------------


def inputs(family: str, dtype: str, rows: int, hidden: int, seed: int) -> list[torch.Tensor]:
    """Random torch CPU tensors for ``family`` (rounded to ``dtype``, so exact inputs)."""
    gen = torch.Generator().manual_seed(seed)

    def rand(*shape: int, scale: float = 1.0, shift: float = 0.0) -> torch.Tensor:
        return (torch.randn(*shape, generator=gen) * scale + shift).to(TORCH[dtype])

    if family == "rms_norm":
        return [rand(rows, hidden, scale=2.0), rand(hidden, shift=1.0)]
    if family == "layer_norm":  # a mean far from 0: the two-pass variance matters
        return [rand(rows, hidden, scale=2.0, shift=5.0), rand(hidden, shift=1.0), rand(hidden)]
    if family == "swiglu":
        return [rand(rows, hidden, scale=3.0), rand(rows, hidden)]
    return [rand(rows, hidden, scale=4.0)]


def reference(family: str, arrays: list[torch.Tensor]) -> np.ndarray:
    """The float64 reference of kernels_testing (the norms with :data:`EPS`)."""
    as64 = [a.to(torch.float64).numpy() for a in arrays]
    if family in ("rms_norm", "layer_norm"):
        as64.append(EPS)
    return np.asarray(getattr(kt, f"ref_{family}")(*as64))


def run(impl: Implementation, arrays: list[torch.Tensor]) -> Any:
    if impl.family in ("rms_norm", "layer_norm"):
        return impl.call(*arrays, EPS)
    return impl.call(*arrays)


def check(out: Any, ref: np.ndarray, dtype: str) -> None:
    assert tuple(out.shape) == ref.shape
    got = out.to(torch.float64).numpy() if isinstance(out, torch.Tensor) else np.asarray(out)
    np.testing.assert_allclose(got.astype(np.float64), ref, rtol=RTOL[dtype], atol=ATOL[dtype])


# --- emulator -------------------------------------------------------------------------------------

CASES = [("bf16", 64), ("f32", 1032), ("bf16", 1032), ("f16", 1032)]


@pytest.mark.parametrize(("dtype", "hidden"), CASES, ids=[f"{d}-h{h}" for d, h in CASES])
@pytest.mark.parametrize("impl", IMPLS, ids=lambda i: i.name)
def test_emulated(impl: Implementation, dtype: str, hidden: int) -> None:
    arrays = inputs(impl.family, dtype, 3, hidden, seed=hidden)
    out = run(impl, arrays)
    assert isinstance(out, torch.Tensor) and out.dtype == TORCH[dtype]
    check(out, reference(impl.family, arrays), dtype)


@pytest.mark.parametrize("family", ["rms_norm", "layer_norm", "softmax"])
def test_streamed_rows(family: str) -> None:
    """The variant for rows over 64 KiB (each pass reads global memory), forced at 1032."""
    (impl,) = (i for i in hopper.IMPLEMENTATIONS if i.family == family)
    k = impl.build(dtype="f32", hidden=1032, staged=False)
    assert ".b8 row[" not in k.ptx(R=3)  # no staging buffer
    arrays = inputs(family, "f32", 3, 1032, seed=7)
    out = k(*arrays, EPS) if family != "softmax" else k(*arrays)
    check(out, reference(family, arrays), "f32")


def test_threads_per_row_are_a_power_of_two() -> None:
    """ptx.block_reduce_* takes a power-of-two warp count: 2 to 4 vectors per thread."""
    counts = [common.threads_for(v) for v in (1, 128, 129, 258, 4096, 10**6)]
    assert counts == [32, 32, 64, 128, 1024, 1024]


def test_long_rows_are_streamed() -> None:
    spec = common.row_spec("bf16", 32768 + 8, None)
    assert not spec.staged and spec.threads == 1024
    assert common.row_spec("bf16", 32768, None).staged
    with pytest.raises(KernelUnavailable, match="over the 65536 bytes"):
        common.row_spec("f32", 16384 + 4, True)


def test_jax_rms_norm() -> None:
    jnp = pytest.importorskip("jax.numpy")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    impl = next(i for i in IMPLS if i.name == "hopper.rms_norm")
    arrays = inputs("rms_norm", "bf16", 3, 64, seed=3)
    as_np = [a.to(torch.float32).numpy().astype(ml_dtypes.bfloat16) for a in arrays]
    out = impl.call(*(jnp.asarray(a) for a in as_np), EPS)
    assert out.dtype == jnp.bfloat16 and out.shape == (3, 64)
    ref = reference("rms_norm", arrays)
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=RTOL["bf16"], atol=1e-6)


def test_softmax_extreme_rows() -> None:
    """Large values (exp would overflow without the max shift) and a constant row."""
    impl = next(i for i in IMPLS if i.name == "ampere.softmax")
    x = torch.tensor([[1000.0, 999.0, -1000.0, 0.0] * 2, [3.0] * 8], dtype=torch.float32)
    out = impl.call(x)
    check(out, kt.ref_softmax(x.double().numpy()), "f32")


# --- refusals -------------------------------------------------------------------------------------


@pytest.mark.parametrize("impl", IMPLS, ids=lambda i: i.name)
def test_refused_shapes(impl: Implementation) -> None:
    def call(x: torch.Tensor, other: torch.Tensor | None = None) -> Any:
        if impl.family == "swiglu":
            return impl.call(x, x if other is None else other)
        if impl.family == "softmax":
            return impl.call(x)
        w = torch.zeros(x.shape[-1], dtype=x.dtype) if other is None else other
        return impl.call(x, w, EPS) if impl.family == "rms_norm" else impl.call(x, w, w, EPS)

    with pytest.raises(KernelUnavailable, match="hidden size 100 is not a positive multiple of 8"):
        call(torch.zeros(2, 100, dtype=torch.bfloat16))
    with pytest.raises(KernelUnavailable, match="hidden size 6 is not a positive multiple of 4"):
        call(torch.zeros(2, 6, dtype=torch.float32))
    with pytest.raises(KernelUnavailable, match="dtype float64"):
        call(torch.zeros(2, 64, dtype=torch.float64))
    with pytest.raises(KernelUnavailable, match="2-D"):
        call(torch.zeros(2, 2, 64, dtype=torch.bfloat16))
    with pytest.raises(KernelUnavailable, match="no rows"):
        call(torch.zeros(0, 64, dtype=torch.bfloat16))
    if impl.family != "softmax":
        with pytest.raises(KernelUnavailable, match=r"should|match"):
            bad = torch.zeros(2, 32, dtype=torch.bfloat16)
            call(torch.zeros(2, 64, dtype=torch.bfloat16), bad)


# --- ptxas ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("impl", IMPLS, ids=lambda i: i.name)
def test_assembles_without_spills(impl: Implementation, ptxas: str) -> None:
    dims = {"N": 4096} if impl.family == "swiglu" else {"R": 4}
    for dtype in impl.dtypes:
        k = impl.build(**{**impl.example, "dtype": dtype})
        assert k.arch == impl.arch
        usage = kt.ptxas_usage(k, ptxas, **dims)
        spills = usage.spill_stores + usage.spill_loads
        assert spills == impl.spills == 0, f"{impl.name} {dtype}: {spills} spill bytes"
        assert usage.registers <= 64, f"{impl.name} {dtype}: {usage.registers} registers"


def test_ptx_does_not_grow_with_hidden() -> None:
    """The row is a device loop: only constants change with the hidden size.

    At one thread count (1024 threads from 4096 vectors up) the instructions are the same;
    below, the block reduction's last butterfly has log2(warps) steps.
    """

    def lines(hidden: int, staged: bool) -> int:
        k = LAYER_NORM.build(dtype="bf16", hidden=hidden, staged=staged)
        return len(k.ptx(R=1).splitlines())

    assert lines(2**16, False) == lines(2**20, False)
    assert lines(2**12, True) <= lines(2**15, True) <= lines(2**12, True) + 3 * 2 * 3


# --- GPU ------------------------------------------------------------------------------------------


TORCH_REF = {
    "rms_norm": lambda x, w: torch.nn.functional.rms_norm(
        x.float(), (x.shape[-1],), w.float(), EPS
    ),
    "layer_norm": lambda x, w, b: torch.nn.functional.layer_norm(
        x.float(), (x.shape[-1],), w.float(), b.float(), EPS
    ),
    "swiglu": lambda g, u: torch.nn.functional.silu(g.float()) * u.float(),
    "softmax": lambda x: torch.softmax(x.float(), dim=-1),
}


def _runs_on(kernel_arch: str, device: str) -> bool:
    """Whether a kernel traced for ``kernel_arch`` runs on a ``device`` GPU.

    The runtime's rule: its own arch, or a plain target such as sm_80 on any newer GPU.
    """
    from pyptx.runtime import ArgumentError
    from pyptx.runtime._gpu import compile_target

    try:
        compile_target(kernel_arch, device)
    except ArgumentError:
        return False
    return True


@pytest.mark.gpu
@pytest.mark.parametrize("impl", IMPLS, ids=lambda i: i.name)
@pytest.mark.parametrize(
    ("rows", "hidden"), [(1, 64), (1000, 4096), (4097, 8192), (7, 40000)], ids=str
)
def test_gpu_against_torch(impl: Implementation, rows: int, hidden: int) -> None:
    found = kt.cuda_arch()
    if not _runs_on(impl.arch, found):  # the sm_80 kernels also run on an H100 / H200
        pytest.skip(f"needs {impl.arch}, found {found}")
    for dtype in impl.dtypes:
        arrays = [a.cuda() for a in inputs(impl.family, dtype, rows, hidden, seed=rows)]
        out = run(impl, arrays)
        expected = TORCH_REF[impl.family](*arrays).to(TORCH[dtype])
        torch.testing.assert_close(out, expected, rtol=RTOL[dtype], atol=1e-5)
