"""Every kernel of examples/dsl, called through pyptx.runtime, matches numpy.

Each example is called as a user would, from torch CPU tensors and under ``jax.jit`` on the
CPU platform; without a GPU the runtime runs it in the emulator (pyptx-emu), with the
shared-memory race checker on. Inputs are chosen so that the math is exact where the
kernel's is (small integers for the sums and matrix products, whose order then does not
matter); kernels built on approximate instructions (``ex2.approx``, ``rsqrt.approx``) are
compared within the PTX ISA's error bounds.
"""

from __future__ import annotations

import numpy as np
import pytest
from emulated import FRONTENDS, bf16_bits, bf16_values, call, e4m3_bits, load_example

pytest.importorskip("torch")
pytest.importorskip("jax")

RNG = np.random.default_rng(1234)


@pytest.fixture(params=FRONTENDS)
def frontend(request: pytest.FixtureRequest) -> str:
    """Which array library calls the kernel: torch CPU tensors, or JAX under jax.jit."""
    return str(request.param)


def _ints(shape: tuple[int, ...], lo: int = -4, hi: int = 5) -> np.ndarray:
    return RNG.integers(lo, hi, size=shape).astype(np.float32)


def test_vector_add(frontend: str) -> None:
    _, k = load_example("vector_add")
    n = 1000
    x, y = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    (out,) = call(frontend, k, [x, y], [n])
    np.testing.assert_array_equal(out, x + y)


def test_saxpy(frontend: str) -> None:
    _, k = load_example("saxpy")
    n = 3000
    x, y = _ints((n,)), _ints((n,))
    expected = 3.0 * x + y
    (y,) = call(frontend, k, [x, y], [3.0, n])  # y is updated in place (mutates)
    np.testing.assert_array_equal(y, expected)


def test_block_reduce(frontend: str) -> None:
    _, k = load_example("block_reduce")
    n = 5000
    x = _ints((n,))
    (out,) = call(frontend, k, [x], [n])  # accumulates into the zero-filled output
    assert out[0] == x.sum()


def test_histogram(frontend: str) -> None:
    _, k = load_example("histogram")
    n = 4096
    data = RNG.integers(0, 256, size=n).astype(np.uint8)
    data[:300] = 7  # a hot bin: many lanes of a warp hit it at once
    (hist,) = call(frontend, k, [data], [n])
    np.testing.assert_array_equal(hist, np.bincount(data, minlength=256))


def test_rms_norm(frontend: str) -> None:
    module, k = load_example("rms_norm")
    rows, hidden, eps = 3, module.HIDDEN, 1e-6
    x = RNG.standard_normal((rows, hidden)).astype(np.float32)
    w = RNG.standard_normal(hidden).astype(np.float32)
    (y,) = call(frontend, k, [x, w])
    x64 = x.astype(np.float64)
    ref = x64 / np.sqrt((x64**2).mean(axis=1, keepdims=True) + eps) * w
    # rsqrt.approx.f32: relative error below 2**-22.9 (PTX ISA); the rest is f32 rounding.
    np.testing.assert_allclose(y, ref, rtol=2e-6, atol=1e-6)


def test_softmax(frontend: str) -> None:
    module, k = load_example("softmax")
    rows, cols = 8, module.COLS
    x = (RNG.standard_normal((rows, cols)) * 4).astype(np.float32)
    (y,) = call(frontend, k, [x])
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    # ex2.approx.ftz.f32: 2 ulp; the sum and division add a few f32 roundings.
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-9)


def test_swiglu(frontend: str) -> None:
    _, k = load_example("swiglu")
    n = 4096
    gate_f = bf16_values(bf16_bits(_ints((n,), -8, 9) / 4))
    up_f = bf16_values(bf16_bits(_ints((n,), -8, 9) / 4))
    gate, up = bf16_bits(gate_f), bf16_bits(up_f)
    (out,) = call(frontend, k, [gate, up], [n])
    g = gate_f.astype(np.float64)
    ref = g / (1 + np.exp(-g)) * up_f
    # silu in f32 with ex2/rcp.approx, rounded to bf16 twice (8 significant bits).
    np.testing.assert_allclose(bf16_values(out), ref, rtol=2**-7, atol=1e-3)


def test_transpose(frontend: str) -> None:
    _, k = load_example("transpose")
    rows, cols = 256, 128
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    (y,) = call(frontend, k, [x])
    np.testing.assert_array_equal(y, x.T)


def test_tma_load_upcasts_bf16(frontend: str) -> None:
    _, k = load_example("tma_load")
    rows, cols = 128, 192
    x_f = bf16_values(bf16_bits(_ints((rows, cols), -100, 100) / 8))
    x = bf16_bits(x_f)
    (y,) = call(frontend, k, [x])
    np.testing.assert_array_equal(y, x_f)


@pytest.mark.parametrize("relu", [False, True])
def test_tma_store_casts_to_bf16(frontend: str, relu: bool) -> None:
    _, k = load_example("tma_store")
    rows, cols = 128, 128
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    (y,) = call(frontend, k, [x], relu=relu)
    # cvt.rn.bf16x2.f32: round to nearest even on the upper 16 bits.
    bits = x.view(np.uint32).astype(np.uint64)
    expected = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    if relu:
        expected[x < 0] = 0
    np.testing.assert_array_equal(y, expected)


def _gemm_inputs(m: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = _ints((m, k))
    b = _ints((n, k))
    return a, b, (a.astype(np.float64) @ b.astype(np.float64).T).astype(np.float32)


@pytest.mark.parametrize(
    ("name", "dims"),
    [
        ("gemm_ampere", {"M": 128, "N": 64, "K": 256}),
        ("wgmma_gemm", {"M": 64, "N": 256, "K": 128}),
        ("warp_specialized_gemm", {"M": 128, "N": 256, "K": 256}),
        ("tcgen05_gemm", {"M": 128, "N": 128, "K": 128}),
    ],
)
def test_bf16_gemm(frontend: str, name: str, dims: dict[str, int]) -> None:
    _, k = load_example(name)
    a, b, ref = _gemm_inputs(dims["M"], dims["N"], dims["K"])
    (c,) = call(frontend, k, [bf16_bits(a), bf16_bits(b)])
    np.testing.assert_array_equal(c, ref)


def test_fp8_gemm(frontend: str) -> None:
    _, k = load_example("fp8_gemm")
    m, n, kk = 64, 64, 64
    values = np.array([0.0, 1.0, 2.0, -1.0, -2.0, 0.5], dtype=np.float32)
    a = RNG.choice(values, size=(m, kk))
    b = RNG.choice(values, size=(n, kk))
    scale = 0.25
    (c,) = call(frontend, k, [e4m3_bits(a), e4m3_bits(b)], [scale])
    ref = (a.astype(np.float64) @ b.astype(np.float64).T * scale).astype(np.float32)
    np.testing.assert_array_equal(c, ref)


def test_every_example_is_covered() -> None:
    from emulated import EXAMPLES

    tested = {
        "vector_add", "saxpy", "block_reduce", "histogram", "rms_norm", "softmax", "swiglu",
        "transpose", "tma_load", "tma_store", "gemm_ampere", "wgmma_gemm",
        "warp_specialized_gemm", "tcgen05_gemm", "fp8_gemm",
    }  # fmt: skip
    assert {p.stem for p in EXAMPLES.glob("*.py")} == tested
