"""hopper.flash_attention: emulated against a float64 reference, assembled with ptxas.

Each configuration is emulated once (module-scoped fixtures), at sequence lengths of one to
three 128-row tiles that are not multiples of the tile, with batch * heads > 1 so that tiles
run past their head's last row into the next head's rows (which the kernel must mask).

Tolerance. The reference is ``softmax(q k^T / sqrt(d) + mask) v`` in float64 on the same
(already rounded) inputs, so the kernel's error comes from two roundings of a 16-bit type
with ``u`` = 2^-8 (bf16) or 2^-11 (f16) relative half-ulp:

* P is rounded to the input type before ``O += P V``: each weight is off by at most
  ``u * p``, so the normalized output by at most ``u * max|v|``;
* the output is rounded to the input type: at most ``u * |o| <= u * max|v|``.

Everything else (f32 accumulation of at most 300 products, ex2.approx: 2^-22 relative on the
GPU, correctly rounded in the emulator; rcp.approx: 1 ulp) is below 2^-14 * max|v|. So
``|out - ref| <= 2 u max|v|`` plus a 1 % margin; a wrong mask, scale or rescale is off by far
more than that (tenths).
"""

from __future__ import annotations

import kernels_testing as kt
import numpy as np
import pytest

from pyptx.kernels._ptxas import parse_usage
from pyptx.kernels._registry import KernelUnavailable
from pyptx.kernels.hopper import attention

torch = pytest.importorskip("torch")

(IMPL,) = attention.IMPLEMENTATIONS
UNIT = {"bf16": 2.0**-8, "f16": 2.0**-11}  # half an ulp, relative


reference = kt.ref_attention
"""Float64 attention with torch SDPA semantics (causal = top-left ``tril``)."""


def inputs(shape_q: tuple[int, ...], seq_k: int, seed: int) -> list[np.ndarray]:
    """q, k, v as float32 values that are exact in bf16 and f16 (8 significant bits)."""
    rng = np.random.default_rng(seed)
    b, h, _, d = shape_q
    shapes = [shape_q, (b, h, seq_k, d), (b, h, seq_k, d)]
    return [np.round(rng.standard_normal(s) * 32) / 32 for s in shapes]


def check(out: np.ndarray, ref: np.ndarray, v: np.ndarray, dtype: str) -> None:
    atol = 2 * UNIT[dtype] * float(np.abs(v).max()) * 1.01
    np.testing.assert_allclose(out, ref, rtol=0, atol=atol)


def run_torch(
    shape_q: tuple[int, ...], seq_k: int, causal: bool, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel on torch CPU bf16 tensors: (output, reference, v) as float64."""
    q, k, v = inputs(shape_q, seq_k, seed)
    tq, tk, tv = (torch.from_numpy(x).to(torch.bfloat16) for x in (q, k, v))
    out = IMPL.call(tq, tk, tv, causal)
    assert out.dtype == torch.bfloat16 and tuple(out.shape) == shape_q
    return out.double().numpy(), reference(q, k, v, causal), v


# (batch, heads, seq_q, head_dim), seq_k, causal. Tiles are 128 rows/keys.
CASES: dict[str, tuple[tuple[int, int, int, int], int, bool]] = {
    # 3 key tiles (the 2-stage ring wraps: stage 0 refilled), seq_q < seq_k, 2 heads
    "d64-full-q70-k300": ((1, 2, 70, 64), 300, False),
    # 2 query tiles x up to 2 key tiles, the diagonal tile masked, 2 batches
    "d64-causal-q200-k200": ((2, 1, 200, 64), 200, True),
    # causal with seq_q < seq_k: top-left, keys past the last row never loaded
    "d128-causal-q150-k260": ((1, 2, 150, 128), 260, True),
    "d128-full-q100-k100": ((1, 2, 100, 128), 100, False),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def torch_case(request: pytest.FixtureRequest) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    shape_q, seq_k, causal = CASES[request.param]
    return run_torch(shape_q, seq_k, causal, seed=len(request.param))


def test_matches_float64_reference(torch_case: tuple[np.ndarray, ...]) -> None:
    out, ref, v = torch_case
    check(out, ref, v, "bf16")


def test_numpy_f16_causal_with_more_queries_than_keys() -> None:
    # Query rows past seq_k see every key; f16 through numpy arrays (emulator backend).
    q, k, v = inputs((1, 1, 300, 64), 150, seed=7)
    out = IMPL.call(*(x.astype(np.float16) for x in (q, k, v)), True)
    assert isinstance(out, np.ndarray) and out.dtype == np.float16
    check(out.astype(np.float64), reference(q, k, v, True), v, "f16")


def test_tolerance_catches_a_missing_causal_mask() -> None:
    # The same inputs without the mask differ from the causal reference by far more than
    # the tolerance, so the comparison above could fail.
    q, k, v = inputs((1, 1, 40, 64), 40, seed=3)
    with pytest.raises(AssertionError):
        check(reference(q, k, v, False), reference(q, k, v, True), v, "bf16")


@pytest.mark.parametrize(
    ("shapes", "dtypes", "match"),
    [
        ([(1, 2, 64, 96)] * 3, ["bf16"] * 3, "head_dim 96 is not supported"),
        ([(1, 2, 64, 64)] * 3, ["f32"] * 3, "must all be bfloat16 or all float16"),
        ([(1, 2, 64, 64)] * 3, ["bf16", "f16", "bf16"], "must all be bfloat16 or all float16"),
        ([(2, 64, 64)] * 3, ["bf16"] * 3, r"must be \(batch, heads, seq, head_dim\)"),
        ([(1, 2, 64, 64), (1, 2, 32, 64), (1, 2, 16, 64)], ["bf16"] * 3, "k and v must be"),
        ([(1, 2, 0, 64)] * 3, ["bf16"] * 3, "empty input"),
    ],
)
def test_refuses_what_it_cannot_take(
    shapes: list[tuple[int, ...]], dtypes: list[str], match: str
) -> None:
    kinds = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
    arrays = [torch.zeros(s, dtype=kinds[t]) for s, t in zip(shapes, dtypes, strict=True)]
    with pytest.raises(KernelUnavailable, match=match):
        IMPL.call(*arrays, False)


def test_build_refuses_other_head_dims() -> None:
    with pytest.raises(KernelUnavailable, match="head_dim 96"):
        IMPL.build(head_dim=96)


def _ptx(head_dim: int, causal: bool, seq: int) -> str:
    kern = IMPL.build(head_dim=head_dim, causal=causal)
    return str(kern.ptx(RQ=4 * seq, RK=4 * seq, BH=4, SQ=seq))


@pytest.mark.parametrize("head_dim", [64, 128])
def test_ptx_does_not_depend_on_the_sequence_length(head_dim: int) -> None:
    short, long = _ptx(head_dim, True, 100), _ptx(head_dim, True, 100_000)
    assert short == long
    assert "ld.param.u32" in short and "seq_k" in short  # lengths are run-time parameters
    # the key loop is a device loop: S = QK^T and O += PV are each issued in the first (last)
    # tile and in the loop body, whatever the length
    assert short.count("wgmma.mma_async") == 2 * (head_dim // 16 + 128 // 16)


CONFIGS = [(d, c, t) for d in (64, 128) for c in (False, True) for t in ("bf16", "f16")]


@pytest.mark.parametrize(("head_dim", "causal", "dtype"), CONFIGS)
def test_assembles_for_sm90a_without_spills(
    head_dim: int, causal: bool, dtype: str, ptxas: str
) -> None:
    kernel = IMPL.build(head_dim=head_dim, causal=causal, dtype=dtype)
    log = kt.ptxas_log(kernel, ptxas)
    assert "Potential Performance Loss" not in log, log  # wgmma serialized by ptxas
    usage = parse_usage(log, kernel.name)
    assert usage.spill_stores == usage.spill_loads == IMPL.spills == 0
    # 384 threads, one CTA per SM: ptxas's entry budget (setmaxnreg moves it at run time)
    assert usage.registers <= 168


def test_catalog_entry() -> None:
    assert IMPL.name == "hopper.flash_attention" and IMPL.family == "flash_attention"
    assert IMPL.arch == "sm_90a" and IMPL.dtypes == ("bf16", "f16")
    assert IMPL.build(**IMPL.example) is IMPL.build(**IMPL.example)  # cached per config


# ------------------------------------------------------------------------------------ GPU


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize(
    ("shape_q", "seq_k"),
    [((2, 8, 1024, 128), 1024), ((1, 4, 1000, 64), 1500), ((3, 5, 333, 128), 777)],
)
def test_gpu_matches_torch_sdpa(
    shape_q: tuple[int, ...], seq_k: int, causal: bool, dtype: str
) -> None:
    kt.require_cuda_arch("sm_90a")
    sdpa = torch.nn.functional.scaled_dot_product_attention
    kind = getattr(torch, dtype)
    gen = torch.Generator(device="cuda").manual_seed(0)
    b, h, _, d = shape_q
    q = torch.randn(shape_q, device="cuda", dtype=kind, generator=gen)
    k, v = (torch.randn(b, h, seq_k, d, device="cuda", dtype=kind, generator=gen) for _ in "kv")
    out = IMPL.call(q, k, v, causal)
    ref = sdpa(q.float(), k.float(), v.float(), is_causal=causal).to(kind)
    tol = 2e-2 if dtype == "bfloat16" else 4e-3
    torch.testing.assert_close(out, ref, atol=tol, rtol=tol)
