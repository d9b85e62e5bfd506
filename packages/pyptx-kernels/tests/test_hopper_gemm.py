"""The Hopper GEMMs (pyptx.kernels.hopper.gemm): emulator runs, ptxas, shape limits, GPU.

Emulator runs go through ``impl.call`` with torch CPU tensors (and one numpy case), at the
tile configuration the GPU uses (128 x 256 tiles, 3 stages, clusters of 2), with the
persistent grid of :data:`EMULATOR_SMS` CTAs. Inputs are small integers, so every product and
partial sum is exact in fp32 whatever the order: the only rounding is the final one to bf16,
which the reference (float64 matmul rounded to bf16, round-to-nearest-even like the kernel's
``cvt.rn``) makes too. Hence exact comparisons. Each configuration is emulated once, with
the emulator's shared-memory race checker on: a stage refilled before the MMAs reading it
have completed, or a staging tile rewritten before its TMA store has read it, fails the run.
"""

from __future__ import annotations

from typing import Any

import kernels_testing as kt
import numpy as np
import pytest

from pyptx.kernels._gemm_arrays import EMULATOR_SMS
from pyptx.kernels._registry import KernelUnavailable
from pyptx.kernels.hopper import gemm
from pyptx.kernels.hopper._gemm_kernel import GemmConfig, ctas_for

torch = pytest.importorskip("torch")
ml_dtypes = pytest.importorskip("ml_dtypes")

RNG = np.random.default_rng(2026)
IMPLS = {impl.name: impl for impl in gemm.IMPLEMENTATIONS}
BF16 = IMPLS["hopper.gemm_bf16"]
FP8 = IMPLS["hopper.gemm_fp8"]


def _ints(shape: tuple[int, ...]) -> np.ndarray:
    return RNG.integers(-4, 5, size=shape).astype(np.float32)


def _reference(a: np.ndarray, b: np.ndarray) -> Any:
    """float64 product rounded once to bf16 (a torch tensor)."""
    product = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(product).max() > 0  # a kernel writing nothing cannot pass
    return torch.from_numpy(product).to(torch.bfloat16)


def _bf16(x: np.ndarray) -> Any:
    return torch.from_numpy(x).to(torch.bfloat16)


# --------------------------------------------------------------------------------- emulator


@pytest.fixture(scope="module")
def persistent_run() -> tuple[Any, Any]:
    """384 x 512 x 256: 3 x 2 tiles of 128 x 256 = 3 cluster tiles over 2 clusters."""
    a, b = _ints((384, 256)), _ints((256, 512))
    return BF16.call(_bf16(a), _bf16(b)), _reference(a, b)


def test_persistent_loop_and_cluster_shape_is_covered() -> None:
    cfg = GemmConfig(**{k: v for k, v in gemm.TILE_CONFIG.items()})
    # cluster 0 runs two cluster tiles (two tiles per CTA), cluster 1 one; a tile of 4
    # k-tiles on a 3-stage ring makes the second tile start at stage 1, phase wrapped.
    assert ctas_for(cfg, m_tiles=3, n_tiles=2, sms=EMULATOR_SMS) == 4
    assert cfg.cluster == 2 and -(-256 // cfg.bk) % cfg.stages != 0


def test_bf16_persistent_clustered(persistent_run: tuple[Any, Any]) -> None:
    out, ref = persistent_run
    assert out.dtype == torch.bfloat16 and out.shape == (384, 512)
    assert torch.equal(out, ref)


def test_bf16_edges_numpy() -> None:
    """M, N, K off the tiles (200 x 136 x 72): TMA zero fill and store clipping, numpy."""
    a, b = _ints((200, 72)), _ints((72, 136))
    out = BF16.call(a.astype(ml_dtypes.bfloat16), b.astype(ml_dtypes.bfloat16))
    assert isinstance(out, np.ndarray) and out.dtype == ml_dtypes.bfloat16
    ref = _reference(a, b).view(torch.int16).numpy().view(np.uint16)
    np.testing.assert_array_equal(out.view(np.uint16), ref)


def test_bf16_without_cluster_small_tiles() -> None:
    """No cluster (no multicast), 128 x 128 tiles, 2 stages, edges; the tile order in groups
    of 3 row tiles: 4 x 3 tiles = a group of 3 rows and a last one of 1, on 4 CTAs."""
    a, b = _ints((392, 200)), _ints((200, 264))
    out = gemm.gemm_bf16(_bf16(a), _bf16(b), bn=128, stages=2, cluster=1, group_m=3)
    assert torch.equal(out, _reference(a, b))


def test_fp8_e4m3_returns_bf16() -> None:
    """e4m3 in (b given (K, N), transposed by the call), bf16 out; partial N tile."""
    values = np.array([0.0, 1.0, 2.0, -1.0, -2.0, 0.5, 3.0, -4.0], dtype=np.float32)
    a = RNG.choice(values, size=(192, 256))
    b = RNG.choice(values, size=(256, 264))
    e4m3 = torch.float8_e4m3fn
    ta, tb = torch.from_numpy(a).to(e4m3), torch.from_numpy(b).to(e4m3)
    assert torch.equal(ta.float(), torch.from_numpy(a))  # the values are exact in e4m3
    out = FP8.call(ta, tb)
    assert out.dtype == torch.bfloat16 and out.shape == (192, 264)
    assert torch.equal(out, _reference(a, b))


# ------------------------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    ("impl", "a_shape", "b_shape", "message"),
    [
        (BF16, (64, 100), (100, 64), "K = 100 is not a multiple of 8"),
        (BF16, (64, 64), (64, 12), "N = 12 is not a multiple of 8"),
        (FP8, (64, 24), (24, 64), "K = 24 is not a multiple of 16"),
        (FP8, (64, 32), (32, 20), "N = 20 is not a multiple of 8"),
    ],
)
def test_unaligned_rows_are_refused(
    impl: Any, a_shape: tuple[int, int], b_shape: tuple[int, int], message: str
) -> None:
    dtype = torch.bfloat16 if impl is BF16 else torch.float8_e4m3fn
    a, b = torch.zeros(a_shape, dtype=dtype), torch.zeros(b_shape, dtype=dtype)
    with pytest.raises(KernelUnavailable, match=message):
        impl.call(a, b)


def test_a_ring_over_the_shared_memory_limit_is_refused() -> None:
    assert GemmConfig(bn=256, stages=3).smem_bytes == 213_040
    with pytest.raises(ValueError, match="needs 262208 bytes of shared memory"):
        GemmConfig(bn=256, stages=4)


# --------------------------------------------------------------------------------- ptxas


def test_ptx_does_not_grow_with_k() -> None:
    small = gemm.build_bf16(m=4096, n=4096, k=128).ptx()
    large = gemm.build_bf16(m=4096, n=4096, k=1 << 20).ptx()
    assert len(small.splitlines()) == len(large.splitlines())
    assert small.count("wgmma.mma_async") == large.count("wgmma.mma_async") == 4


@pytest.mark.parametrize("name", sorted(IMPLS))
def test_example_assembles_without_spills(name: str, ptxas: str) -> None:
    impl = IMPLS[name]
    usage = kt.ptxas_usage(impl.build(**impl.example), ptxas)
    # 168 = 65536 / 384 rounded down to 8: the entry budget; setmaxnreg moves registers
    # from the producer (40) to the consumers (232) at run time.
    assert (usage.registers, usage.spill_stores, usage.spill_loads) == (168, 0, 0)
    assert impl.spills == 0


@pytest.mark.parametrize(
    "tiles",
    [{"bn": 128, "stages": 4, "cluster": 1}, {"bn": 192, "stages": 4, "cluster": 2}],
    ids=["n128-s4-c1", "n192-s4-c2"],
)
def test_other_tile_configurations_assemble(tiles: dict[str, int], ptxas: str) -> None:
    usage = kt.ptxas_usage(gemm.build_bf16(m=4096, n=4096, k=4096, **tiles), ptxas)
    assert (usage.spill_stores, usage.spill_loads) == (0, 0)


# ---------------------------------------------------------------------------------- GPU


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(4096, 4096, 4096), (1000, 2056, 520), (8, 8, 8)])
def test_gpu_bf16_matches_torch(shape: tuple[int, int, int]) -> None:
    kt.require_cuda_arch("sm_90a")
    m, n, k = shape
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    out = BF16.call(a, b)
    torch.testing.assert_close(out, torch.matmul(a, b), rtol=2e-2, atol=2e-2 * k**0.5)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(4096, 4096, 4096), (1000, 2056, 528)])
def test_gpu_fp8_matches_torch(shape: tuple[int, int, int]) -> None:
    kt.require_cuda_arch("sm_90a")
    m, n, k = shape
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(k, n, device="cuda").to(torch.float8_e4m3fn)
    ref = torch.matmul(a.float(), b.float()).to(torch.bfloat16)
    torch.testing.assert_close(FP8.call(a, b), ref, rtol=2e-2, atol=2e-2 * k**0.5)
