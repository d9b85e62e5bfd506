"""Blackwell tcgen05 GEMMs (1-CTA, cta_group::2, grouped) in the emulator, with ptxas and on a GPU.

Inputs are small integers (-3..3), so every product and every fp32 sum is exact and so is its
bf16 rounding: the kernels must match ``(a.float() @ b.float()).bfloat16()`` bit for bit
(``rtol=0, atol=0``). Each configuration is emulated once (module-scoped fixtures): a tile-
multiple shape and an edge shape that is not a multiple of the tile in M, N or K and has more
k-tiles than pipeline stages (the ring wraps around and the phases flip), with the emulator's
shared-memory race checker on (conftest). The 2-CTA entry takes M >= 512 only, so its cases
start there.
"""

from __future__ import annotations

import re
from typing import Any

import kernels_testing as kt
import numpy as np
import pytest

import pyptx.kernels as K
from pyptx.kernels._registry import KernelUnavailable
from pyptx.kernels.blackwell import gemm
from pyptx.kernels.blackwell._gemm_grouped import tile_table

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(20261127)
IMPLS = {impl.name: impl for impl in gemm.IMPLEMENTATIONS}


def _ints(*shape: int) -> Any:
    """bf16 torch CPU tensor of small integers (exact in bf16, exact fp32 products/sums)."""
    return torch.from_numpy(RNG.integers(-3, 4, shape).astype(np.float32)).to(torch.bfloat16)


def _reference(a: Any, b: Any) -> Any:
    return (a.float() @ b.float()).to(torch.bfloat16)


def _run_gemm(name: str, m: int, n: int, k: int, **config: int) -> tuple[Any, Any]:
    a, b = _ints(m, k), _ints(k, n)
    return IMPLS[name].call(a, b, **config), _reference(a, b)


# ------------------------------------------------------------------------------- emulator


@pytest.fixture(scope="module")
def one_cta() -> tuple[Any, Any]:
    return _run_gemm("blackwell.gemm_bf16", 128, 128, 64)


@pytest.fixture(scope="module")
def one_cta_edge() -> tuple[Any, Any]:
    # M, N, K not tile multiples; 6 k-tiles through a 4-stage ring.
    return _run_gemm("blackwell.gemm_bf16", 200, 136, 328)


@pytest.fixture(scope="module")
def two_cta() -> tuple[Any, Any]:
    # Two pairs of 256 x 128 tiles.
    return _run_gemm("blackwell.gemm_bf16_2cta", 512, 128, 64, bn=128)


@pytest.fixture(scope="module")
def two_cta_edge() -> tuple[Any, Any]:
    # The default 2-CTA configuration (256 x 256 per pair): the third pair's rank 1 reads
    # rows past M only; N spans a partial second tile; K has a partial k-tile.
    return _run_gemm("blackwell.gemm_bf16_2cta", 600, 264, 200)


@pytest.mark.parametrize("case", ["one_cta", "one_cta_edge", "two_cta", "two_cta_edge"])
def test_gemm_matches_torch(case: str, request: pytest.FixtureRequest) -> None:
    out, ref = request.getfixturevalue(case)
    assert out.dtype == torch.bfloat16 and out.shape == ref.shape
    torch.testing.assert_close(out, ref, rtol=0, atol=0)


def test_gemm_from_jax() -> None:
    jnp = pytest.importorskip("jax.numpy")
    a, b = _ints(128, 64), _ints(64, 128)
    out = IMPLS["blackwell.gemm_bf16"].call(
        jnp.asarray(a.float().numpy(), dtype=jnp.bfloat16),
        jnp.asarray(b.float().numpy(), dtype=jnp.bfloat16),
    )
    assert type(out).__module__.startswith("jax") and out.dtype == jnp.bfloat16
    np.testing.assert_array_equal(np.asarray(out, np.float32), _reference(a, b).float().numpy())


@pytest.fixture(scope="module")
def grouped() -> tuple[list[Any], list[Any]]:
    # Three groups, the middle one empty; K and N not tile multiples; group 0 ends mid-tile,
    # so its last tile reads group 2's first rows of A (computed, never stored).
    k, n, rows = 72, 136, (100, 0, 130)
    a_list = [_ints(m, k) for m in rows]
    b_list = [_ints(k, n) for _ in rows]
    out = IMPLS["blackwell.grouped_gemm_bf16"].call(a_list, b_list)
    return out, [_reference(a, b) for a, b in zip(a_list, b_list, strict=True)]


def test_grouped_gemm_matches_torch(grouped: tuple[list[Any], list[Any]]) -> None:
    out, ref = grouped
    assert [tuple(o.shape) for o in out] == [(100, 136), (0, 136), (130, 136)]
    for o, r in zip(out, ref, strict=True):
        torch.testing.assert_close(o, r, rtol=0, atol=0)


def test_grouped_all_empty_launches_nothing() -> None:
    out = gemm.grouped_gemm_bf16([_ints(0, 64)], [_ints(64, 128)])
    assert len(out) == 1 and tuple(out[0].shape) == (0, 128)


def test_tile_table() -> None:
    table = tile_table([100, 0, 300], 128)
    expected = [[0, 0, 100, 0], [2, 100, 400, 0], [2, 228, 400, 0], [2, 356, 400, 0]]
    np.testing.assert_array_equal(table, expected)
    assert tile_table([0, 0], 128).shape == (0, 4)


# ------------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("m", "k", "n", "match"),
    [(64, 100, 64, "K \\(100\\)"), (64, 64, 60, "N \\(60\\)"), (0, 64, 64, "empty")],
)
def test_gemm_refuses_shapes_tma_cannot_take(m: int, k: int, n: int, match: str) -> None:
    with pytest.raises(KernelUnavailable, match=match):
        gemm.gemm_bf16(_ints(m, k), _ints(k, n))


def test_gemm_refuses_mismatched_inner_dims() -> None:
    with pytest.raises(ValueError, match="inner dimensions differ"):
        gemm.gemm_bf16(_ints(64, 64), _ints(72, 64))


def test_grouped_refuses_unaligned_and_mismatched() -> None:
    with pytest.raises(KernelUnavailable, match="multiples of 8"):
        gemm.grouped_gemm_bf16([_ints(8, 12)], [_ints(12, 64)])
    with pytest.raises(ValueError, match="group 1"):
        gemm.grouped_gemm_bf16([_ints(8, 64), _ints(8, 64)], [_ints(64, 64), _ints(64, 72)])


def test_two_cta_refuses_small_m() -> None:
    with pytest.raises(KernelUnavailable, match=r"M >= 512; M = 511 .*\(blackwell\.gemm_bf16\)"):
        gemm.gemm_bf16_2cta(_ints(gemm.TWO_CTA_MIN_M - 1, 8), _ints(8, 8))


def test_public_gemm_picks_two_cta_for_large_m(monkeypatch: pytest.MonkeyPatch) -> None:
    """pyptx.kernels.gemm asks the 2-CTA entry first; it refuses M < 512 to the 1-CTA one."""
    chosen: list[int] = []

    def fake_build(**config: int) -> Any:
        chosen.append(config["cta_group"])
        return lambda a, b: a

    monkeypatch.setattr(gemm, "build_gemm", fake_build)
    for m in (gemm.TWO_CTA_MIN_M, gemm.TWO_CTA_MIN_M - 1, 4096, 1):
        K.gemm(_ints(m, 8), _ints(8, 8), arch="sm_100a")
    assert chosen == [2, 1, 2, 1]


# ------------------------------------------------------------------------------- PTX and ptxas


CONFIGS = {
    "gemm_1cta": lambda: gemm.build_gemm(**IMPLS["blackwell.gemm_bf16"].example),
    "gemm_2cta": lambda: gemm.build_gemm(**IMPLS["blackwell.gemm_bf16_2cta"].example),
    "grouped": lambda: gemm.build_grouped_gemm(**IMPLS["blackwell.grouped_gemm_bf16"].example),
}


def test_ptx_does_not_grow_with_k() -> None:
    for cfg in (gemm.ONE_CTA, gemm.TWO_CTA):
        short = gemm.build_gemm(M=256, N=256, K=64, **cfg).ptx()
        long = gemm.build_gemm(M=256, N=256, K=8192, **cfg).ptx()
        assert len(long.splitlines()) == len(short.splitlines())
    args = {"rows": 256, "tiles": 2, "groups": 2, "N": 256, **gemm.GROUPED}
    short = gemm.build_grouped_gemm(K=64, **args).ptx()
    long = gemm.build_grouped_gemm(K=8192, **args).ptx()
    assert len(long.splitlines()) == len(short.splitlines())


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_first_mma_of_the_loop_overwrites_the_accumulator(name: str) -> None:
    # TMEM is not zeroed on allocation (the emulator's is, so the emulated runs cannot see
    # this): the first MMA of each k-tile takes `kt != 0` as enable-input-d, the other three
    # accumulate unconditionally.
    mmas = re.findall(
        r"tcgen05\.mma\.\S+ \[%r\d+\], %rd\d+, %rd\d+, \w+, (\S+);", CONFIGS[name]().ptx()
    )
    assert len(mmas) == 4
    assert mmas[0].startswith("%p") and mmas[1:] == ["1", "1", "1"]


# ptxas 13.5 -v, sm_100a, at each configuration (docs/guide/kernels/gemm_blackwell.md).
REGISTERS = {"gemm_1cta": 64, "gemm_2cta": 64, "grouped": 58}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_assembles_for_sm_100a_without_spills(name: str, ptxas: str) -> None:
    kernel = CONFIGS[name]()
    assert kernel.arch == "sm_100a"
    usage = kt.ptxas_usage(kernel, ptxas)
    assert (usage.spill_stores, usage.spill_loads) == (0, 0)
    assert usage.registers == REGISTERS[name]


def test_implementations_are_listed() -> None:
    assert [(i.name, i.family, i.arch, i.dtypes) for i in gemm.IMPLEMENTATIONS] == [
        ("blackwell.gemm_bf16_2cta", "gemm", "sm_100a", ("bf16",)),
        ("blackwell.gemm_bf16", "gemm", "sm_100a", ("bf16",)),
        ("blackwell.grouped_gemm_bf16", "grouped_gemm", "sm_100a", ("bf16",)),
    ]


# ------------------------------------------------------------------------------- GPU


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("name", "shape"),
    [
        ("blackwell.gemm_bf16", (128, 128, 64)),
        ("blackwell.gemm_bf16", (1000, 776, 1032)),
        ("blackwell.gemm_bf16", (4096, 4096, 4096)),
        ("blackwell.gemm_bf16_2cta", (512, 128, 64)),
        ("blackwell.gemm_bf16_2cta", (1000, 776, 1032)),
        ("blackwell.gemm_bf16_2cta", (4096, 4096, 4096)),
    ],
)
def test_gpu_gemm(name: str, shape: tuple[int, int, int]) -> None:
    kt.require_cuda_arch("sm_100a")
    m, n, k = shape
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    out = IMPLS[name].call(a, b)
    # fp32 accumulation in another order than cuBLAS, then one bf16 rounding each.
    torch.testing.assert_close(out, a @ b, rtol=2e-2, atol=1e-1)


@pytest.mark.gpu
def test_gpu_grouped_gemm() -> None:
    kt.require_cuda_arch("sm_100a")
    k, n = 1024, 2048
    a_list = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for m in (300, 0, 1, 1024)]
    b_list = [torch.randn(k, n, device="cuda", dtype=torch.bfloat16) for _ in a_list]
    out = gemm.grouped_gemm_bf16(a_list, b_list)
    for o, a, b in zip(out, a_list, b_list, strict=True):
        torch.testing.assert_close(o, a @ b, rtol=2e-2, atol=1e-1)
