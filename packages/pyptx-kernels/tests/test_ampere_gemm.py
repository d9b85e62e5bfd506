"""The Ampere (sm_80) mma.sync GEMM: emulator results, shape limits, PTX and ptxas facts.

Emulator cases run through ``impl.call`` with torch CPU tensors (and one numpy case), each
once per module, with the shared-memory race checker on (conftest). Inputs are small integers in
[-3, 3]: every product and every fp32 partial sum is exact (|sum| <= 9 K, far below 2^24),
so the kernel's only rounding is the final fp32 -> bf16/f16 conversion (round to nearest
even), which is exactly the reference's float64 -> bf16/f16 rounding: results compare
bit-exactly. A kernel with a wrong fragment layout, swizzle, edge mask or pipeline
hand-off gives different numbers.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import kernels_testing as kt
import numpy as np
import pytest

from pyptx.kernels._registry import KernelUnavailable
from pyptx.kernels.ampere import gemm as ampere_gemm
from pyptx.kernels.ampere._gemm_tiles import TileConfig, swizzle_xor, swizzled_offset

torch = pytest.importorskip("torch")

IMPL = ampere_gemm.IMPLEMENTATIONS[0]
TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


def _operands(m: int, n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, k)).astype(np.float32)
    b = rng.integers(-3, 4, (k, n)).astype(np.float32)
    return a, b


def _torch_case(dtype: str, m: int, n: int, k: int, seed: int, **config: Any) -> tuple[Any, Any]:
    """(kernel result, reference) for torch CPU tensors of ``dtype``."""
    a, b = _operands(m, n, k, seed)
    ty = TORCH_DTYPES[dtype]
    out = IMPL.call(torch.from_numpy(a).to(ty), torch.from_numpy(b).to(ty), **config)
    reference = torch.from_numpy(a.astype(np.float64) @ b.astype(np.float64)).to(ty)
    return out, reference


@pytest.fixture(scope="module")
def bf16_tiles() -> tuple[Any, Any]:
    """A tile-multiple shape: 128 x 128 (one CTA tile), K = 64 (two k-tiles)."""
    return _torch_case("bf16", 128, 128, 64, seed=1)


@pytest.fixture(scope="module")
def bf16_edges() -> tuple[Any, Any]:
    """Every edge at once: M = 72, N = 40 inside one tile, K = 56 = 32 + 24 (a partial
    k-tile)."""
    return _torch_case("bf16", 72, 40, 56, seed=2)


@pytest.fixture(scope="module")
def f16_grid() -> tuple[Any, Any]:
    """f16 over a 2 x 2 grid of CTAs with ragged edges, K = 104 (three full k-tiles and a
    partial one: the ring wraps past its 4 stages, and the loop exits mid-body)."""
    return _torch_case("f16", 136, 136, 104, seed=3)


@pytest.fixture(scope="module")
def bf16_raster() -> tuple[Any, Any]:
    """Grouped rasterization with a short last group.

    64 x 64 tiles, group_m = 3 over 4 x 3 output tiles: groups of 3 and 1 tile rows.
    """
    return _torch_case("bf16", 200, 136, 24, seed=5, block_m=64, block_n=64, group_m=3)


@pytest.mark.parametrize("case", ["bf16_tiles", "bf16_edges", "f16_grid", "bf16_raster"])
def test_matches_the_exact_reference(case: str, request: pytest.FixtureRequest) -> None:
    out, reference = request.getfixturevalue(case)
    assert out.dtype == reference.dtype
    assert out.shape == reference.shape
    torch.testing.assert_close(out, reference, rtol=0, atol=0)


def test_numpy_arrays_run_in_the_emulator() -> None:
    a, b = _operands(24, 16, 40, seed=4)
    out = IMPL.call(a.astype(np.float16), b.astype(np.float16))
    assert isinstance(out, np.ndarray)
    assert out.dtype == np.float16
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize(
    ("shape_a", "shape_b", "dtype", "message"),
    [
        ((16, 20), (20, 16), torch.bfloat16, "K = 20"),
        ((16, 16), (16, 12), torch.bfloat16, "N = 12"),
        ((16, 16), (16, 16), torch.float32, "bf16 or f16"),
        ((16, 16), (24, 16), torch.bfloat16, "a (M, K) and b (K, N)"),
        ((0, 16), (16, 16), torch.bfloat16, "empty output"),
    ],
)
def test_refuses_what_it_cannot_take(
    shape_a: tuple[int, int], shape_b: tuple[int, int], dtype: Any, message: str
) -> None:
    a, b = torch.zeros(shape_a, dtype=dtype), torch.zeros(shape_b, dtype=dtype)
    with pytest.raises(KernelUnavailable, match=re.escape(message)):
        IMPL.call(a, b)


def _stand_in(shape: tuple[int, int], **attributes: Any) -> SimpleNamespace:
    """An object with an array's shape and dtype: checks that never reach a launch."""
    return SimpleNamespace(shape=shape, dtype="bfloat16", **attributes)


def test_refuses_sizes_beyond_32_bit_indices() -> None:
    with pytest.raises(KernelUnavailable, match=re.escape("below 2^31")):
        IMPL.call(_stand_in((2**31, 64)), _stand_in((64, 64)))


def test_refuses_a_misaligned_cuda_tensor() -> None:
    aligned = _stand_in((64, 64), is_cuda=True, data_ptr=lambda: 4096)
    odd = _stand_in((64, 64), is_cuda=True, data_ptr=lambda: 4096 + 8)
    with pytest.raises(KernelUnavailable, match=re.escape("b's data 16-byte aligned")):
        IMPL.call(aligned, odd)


def test_refuses_mixed_dtypes() -> None:
    a = torch.zeros((16, 16), dtype=torch.bfloat16)
    with pytest.raises(KernelUnavailable, match="got a bf16 and b f16"):
        IMPL.call(a, a.to(torch.float16))


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"block_m": 96}, "block_m=96 is not a power of two"),
        ({"stages": 1}, "stages=1"),
        ({"group_m": 0}, "group_m=0"),
        ({"dtype": "f32"}, "dtype 'f32'"),
        ({"block_n": 16, "warps_n": 2}, "warp tile 64x8"),
        ({"stages": 12}, "bytes of shared memory"),
        ({"tile": 3}, "unknown keys ['tile']"),
    ],
)
def test_refuses_bad_configurations(config: dict[str, Any], message: str) -> None:
    with pytest.raises(KernelUnavailable, match=re.escape(message)):
        ampere_gemm.build(**config)


def test_ptx_does_not_depend_on_the_problem_size() -> None:
    """M, N, K are runtime scalars and the K loop is a device loop: one PTX for all sizes."""
    kernel = IMPL.build(**IMPL.example)
    small = kernel.ptx(M=128, N=128, K=64)
    large = kernel.ptx(M=4096, N=4096, K=8192)
    assert small == large
    assert small.count("$L__k_tiles_0:") == 1
    # One barrier after the prologue and one per k-tile (the emulator's race checker does not
    # see cp.async copies land, so this is what pins the per-k-tile barrier down).
    assert small.count("bar.sync 0;") == 1 + 4
    # One pass of the loop: one k-tile per ring stage, 64 mma per warp per k-tile.
    assert small.count("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") == 4 * 64
    assert small.count("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") == 4 * (1 + 4 * 2)


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_assembles_for_sm_80_without_spills(dtype: str, ptxas: str) -> None:
    kernel = IMPL.build(**{**IMPL.example, "dtype": dtype})
    assert kernel.arch == "sm_80"
    usage = kt.ptxas_usage(kernel, ptxas)
    assert (usage.spill_stores, usage.spill_loads) == (0, 0), usage
    # Two 128-thread CTAs per SM (the 64 KB ring leaves room for two) need <= 256.
    assert usage.registers <= 255, usage


@pytest.mark.parametrize("row_bytes", [32, 64, 128, 256, 512])
def test_swizzle_is_conflict_free_and_stays_in_its_row(row_bytes: int) -> None:
    chunks = row_bytes // 16
    for row in range(64):
        stored = sorted(swizzled_offset(row, c, row_bytes) for c in range(chunks))
        assert stored == [row * row_bytes + 16 * c for c in range(chunks)]
    for first in range(0, 64, 8):  # one ldmatrix matrix: 8 rows at the same logical chunk
        for chunk in range(chunks):
            offsets = [swizzled_offset(first + r, chunk, row_bytes) for r in range(8)]
            bank_groups = {(o % 128) // 16 for o in offsets}
            assert len(bank_groups) == 8, (row_bytes, first, chunk, offsets)
    assert all(swizzle_xor(r + 8, row_bytes) == swizzle_xor(r, row_bytes) for r in range(64))


def test_the_implementation_entry() -> None:
    assert IMPL.name == "ampere.gemm"
    assert (IMPL.family, IMPL.arch, IMPL.dtypes) == ("gemm", "sm_80", ("bf16", "f16"))
    assert IMPL.spills == 0
    assert TileConfig(**IMPL.example).smem_bytes == 64 * 1024
    assert IMPL.build(**IMPL.example) is IMPL.build(**IMPL.example)  # cached


# --------------------------------------------------------------------------------------------
# GPU: against torch.matmul (cuBLAS) on random data.
# --------------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize(
    ("m", "n", "k"), [(128, 128, 64), (72, 40, 56), (1000, 1016, 1000), (4096, 4096, 4096)]
)
def test_gpu_matches_torch_matmul(dtype: str, m: int, n: int, k: int) -> None:
    found = kt.cuda_arch()
    if torch.cuda.get_device_capability()[0] < 8:
        pytest.skip(f"needs sm_80 or newer, found {found}")
    ty = TORCH_DTYPES[dtype]
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn((m, k), device="cuda", dtype=ty, generator=gen)
    b = torch.randn((k, n), device="cuda", dtype=ty, generator=gen)
    out = IMPL.call(a, b)
    reference = torch.matmul(a.float(), b.float()).to(ty)
    # Both accumulate in fp32 in different orders, then round once to bf16/f16: allow a few
    # output ulps relative to the size of the dot products (~sqrt(k)).
    scale = k**0.5
    tol = (2**-7 if dtype == "bf16" else 2**-10) * 2
    torch.testing.assert_close(out, reference, rtol=tol, atol=tol * scale)
