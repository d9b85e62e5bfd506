"""The Hopper grouped GEMM (pyptx.kernels.hopper.grouped_gemm): emulator, ptxas, limits, GPU.

Small-integer inputs make every fp32 sum exact, so the results must equal the float64
products rounded once to bf16 (see test_hopper_gemm.py). The emulator's race checker is on
(conftest).
"""

from __future__ import annotations

from typing import Any

import kernels_testing as kt
import numpy as np
import pytest

from pyptx.kernels._registry import KernelUnavailable
from pyptx.kernels.hopper import grouped_gemm

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
(IMPL,) = grouped_gemm.IMPLEMENTATIONS


def _problem(ms: list[int], k: int, n: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    a = [RNG.integers(-4, 5, size=(m, k)).astype(np.float32) for m in ms]
    b = [RNG.integers(-4, 5, size=(k, n)).astype(np.float32) for _ in ms]
    return a, b


def _reference(a: np.ndarray, b: np.ndarray) -> Any:
    return torch.from_numpy(a.astype(np.float64) @ b.astype(np.float64)).to(torch.bfloat16)


def test_three_groups_one_empty_torch() -> None:
    """M_i = 200, 0, 72 (3 row tiles after padding, over 2 clusters), K 80, N 264.

    Group 0's second column tile reads columns 256..511 of its B, of which 264.. belong to
    group 1: the store must clip them.
    """
    a, b = _problem([200, 0, 72], k=80, n=264)
    bf16 = torch.bfloat16
    out = IMPL.call(
        [torch.from_numpy(x).to(bf16) for x in a], [torch.from_numpy(x).to(bf16) for x in b]
    )
    assert [tuple(o.shape) for o in out] == [(200, 264), (0, 264), (72, 264)]
    for o, x, y in zip(out, a, b, strict=True):
        assert o.dtype == bf16
        assert torch.equal(o, _reference(x, y))
    assert out[0].abs().max() > 0


def test_jax_under_jit() -> None:
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    a, b = _problem([0, 130], k=64, n=72)

    @jax.jit
    def run(a_list: list[Any], b_list: list[Any]) -> list[Any]:
        return IMPL.call(a_list, b_list)  # type: ignore[no-any-return]

    out = run([jnp.asarray(x, jnp.bfloat16) for x in a], [jnp.asarray(x, jnp.bfloat16) for x in b])
    assert [o.shape for o in out] == [(0, 72), (130, 72)]
    ref = _reference(a[1], b[1]).float().numpy()
    np.testing.assert_array_equal(np.asarray(out[1], dtype=np.float32), ref)


def test_all_groups_empty_launches_nothing() -> None:
    a = [torch.zeros((0, 64), dtype=torch.bfloat16)] * 2
    b = [torch.ones((64, 16), dtype=torch.bfloat16)] * 2
    out = IMPL.call(a, b)
    assert [tuple(o.shape) for o in out] == [(0, 16), (0, 16)]


@pytest.mark.parametrize(
    ("a_shapes", "b_shapes", "message"),
    [
        ([(8, 64), (8, 64)], [(64, 64), (64, 32)], "same \\(K, N\\)"),
        ([(8, 60)], [(60, 64)], "multiples of 8"),
        ([(8, 64)], [(64, 64), (64, 64)], "as many"),
    ],
)
def test_refusals(
    a_shapes: list[tuple[int, int]], b_shapes: list[tuple[int, int]], message: str
) -> None:
    a = [torch.zeros(s, dtype=torch.bfloat16) for s in a_shapes]
    b = [torch.zeros(s, dtype=torch.bfloat16) for s in b_shapes]
    with pytest.raises(KernelUnavailable, match=message):
        IMPL.call(a, b)


def test_ptx_does_not_grow_with_k() -> None:
    small = grouped_gemm.build(m=1024, n=1024, k=128, groups=4).ptx()
    large = grouped_gemm.build(m=1024, n=1024, k=1 << 20, groups=4).ptx()
    assert len(small.splitlines()) == len(large.splitlines())


def test_example_assembles_without_spills(ptxas: str) -> None:
    usage = kt.ptxas_usage(IMPL.build(**IMPL.example), ptxas)
    assert (usage.registers, usage.spill_stores, usage.spill_loads) == (168, 0, 0)


@pytest.mark.gpu
@pytest.mark.parametrize("ms", [[512, 0, 1000, 7], [4096] * 8])
def test_gpu_matches_torch(ms: list[int]) -> None:
    kt.require_cuda_arch("sm_90a")
    k, n = 1024, 2048
    a = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for m in ms]
    b = [torch.randn(k, n, device="cuda", dtype=torch.bfloat16) for _ in ms]
    for o, x, y in zip(IMPL.call(a, b), a, b, strict=True):
        torch.testing.assert_close(o, torch.matmul(x, y), rtol=2e-2, atol=2e-2 * k**0.5)
