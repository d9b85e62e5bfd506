"""Real compiler output on the emulator: nvcc and Triton kernels against numpy.

The kernels and their sources are under ``tests/kernels`` (regenerate the PTX with
``python tools/gen_emu_kernels.py``). Every reference is computed independently of the
emulator, with numpy; results are compared exactly wherever the math is exact (integer data,
float data chosen so that no rounding happens or so that the rounding is reproduced
step by step), with tolerances only where PTX lets the hardware's rounding differ (each one
says why).
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_corpus import (
    bf16_bits,
    dyadic,
    entry_params,
    manifest,
    reproducer,
    run_cuda,
    run_triton,
)

from pyptx.emu import tensor_map


@pytest.fixture(params=[False, True], ids=["plain", "race-checked"])
def races(request: pytest.FixtureRequest) -> bool:
    """Run a shared-memory kernel twice: as is, and with the shared-memory race checker (real
    compiler output synchronizes correctly, so the checker must stay quiet)."""
    return bool(request.param)


# ----------------------------------------------------------------------------------------
# The corpus itself
# ----------------------------------------------------------------------------------------


def test_every_source_has_its_ptx_and_every_ptx_is_listed() -> None:
    from kernel_corpus import KERNELS, PTX_DIR

    listed = manifest()
    cuda = {p.stem for p in (KERNELS / "cuda").glob("*.cu")}
    assert cuda <= set(listed), f"run tools/gen_emu_kernels.py: no PTX for {cuda - set(listed)}"
    assert {p.stem for p in PTX_DIR.glob("*.ptx")} == set(listed)
    triton_sources = {p.name for p in (KERNELS / "triton").glob("*.py")}
    assert triton_sources == {
        facts["source"].split("/")[-1] for facts in listed.values() if facts["kind"] == "triton"
    }
    for name, facts in listed.items():
        text = (PTX_DIR / f"{name}.ptx").read_text(encoding="utf-8")
        assert f".target {facts['arch']}" in text, name
        assert "/work/" not in text and "/tmp/" not in text, f"{name}: path in the PTX"


# ----------------------------------------------------------------------------------------
# nvcc (CUDA 13.0) kernels
# ----------------------------------------------------------------------------------------


def test_saxpy_grid_stride_is_one_fma_per_element() -> None:
    rng = np.random.default_rng(1)
    n = 3000
    # x, y in +-[1, 2) and a = 1.75: a * x + y is exact in float64, so rounding that once to
    # float32 is exactly fma.rn.f32 (what nvcc contracts a * x[i] + y[i] to).
    x = (rng.uniform(1, 2, n) * rng.choice([-1, 1], n)).astype(np.float32)
    y = (rng.uniform(1, 2, n) * rng.choice([-1, 1], n)).astype(np.float32)
    a = 1.75
    fused = (a * x.astype(np.float64) + y).astype(np.float32)
    separate = (np.float32(a) * x) + y
    assert np.count_nonzero(fused != separate) > 100  # the test tells fma from mul + add
    out = y.copy()
    run_cuda("saxpy_grid_stride", grid=4, block=128, args=[n, a, x, out])
    np.testing.assert_array_equal(out, fused, err_msg=reproducer("saxpy_grid_stride", grid=4))


def test_warp_reduce_shfl_xor_sum_and_shfl_down_max() -> None:
    rng = np.random.default_rng(2)
    threads = 256
    x = rng.standard_normal(threads).astype(np.float32)
    v = rng.integers(-(2**31), 2**31 - 1, threads, dtype=np.int32)
    sums = np.zeros(threads // 32, np.float32)
    maxes = np.zeros(threads // 32, np.int32)
    lane_sums = np.zeros(threads, np.float32)
    run_cuda("warp_reduce", grid=2, block=128, args=[x, v, sums, maxes, lane_sums])
    # The butterfly in float32, step by step: lane l adds lane l ^ offset's value.
    s = x.reshape(-1, 32).copy()
    lanes = np.arange(32)
    for offset in (16, 8, 4, 2, 1):
        s = s + s[:, lanes ^ offset]
    np.testing.assert_array_equal(lane_sums, s.reshape(-1))
    np.testing.assert_array_equal(sums, s[:, 0])
    np.testing.assert_array_equal(maxes, v.reshape(-1, 32).max(axis=1))


def test_block_reduce_through_shared_memory(races: bool) -> None:
    rng = np.random.default_rng(3)
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    blocks = 4
    partial = np.zeros(blocks, np.float32)
    run_cuda("block_reduce", grid=blocks, block=256, args=[x, partial, n], check_races=races)
    # The same tree in float32: step s adds element t + s into element t.
    buf = np.zeros(blocks * 256, np.float32)
    buf[:n] = x
    buf = buf.reshape(blocks, 256)
    s = 128
    while s:
        buf = buf[:, :s] + buf[:, s : 2 * s]
        s //= 2
    np.testing.assert_array_equal(partial, buf[:, 0])


def test_histogram_shared_and_global_atomics(races: bool) -> None:
    rng = np.random.default_rng(4)
    n = 5000
    data = rng.integers(0, 256, n, dtype=np.uint8)
    hist = np.zeros(64, np.uint32)
    run_cuda("histogram", grid=3, block=128, args=[data, n, hist], check_races=races)
    np.testing.assert_array_equal(hist, np.bincount(data % 64, minlength=64))


def test_transpose_tiled_with_padded_shared_tile(races: bool) -> None:
    rows, cols = 40, 72
    a = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    out = np.full((cols, rows), -1.0, np.float32)
    run_cuda(
        "transpose_tiled", grid=(3, 2), block=(32, 8), args=[a, out, rows, cols], check_races=races
    )
    np.testing.assert_array_equal(out, a.T)


def test_dot_product_with_float_atomic_add() -> None:
    rng = np.random.default_rng(5)
    n = 2000
    # Small integers: every partial sum is an integer below 2**24, so the float sums are exact
    # in any order (the atomics' order is unspecified).
    x = rng.integers(-8, 9, n).astype(np.float32)
    y = rng.integers(-8, 9, n).astype(np.float32)
    result = np.zeros(1, np.float32)
    run_cuda("dot_atomic", grid=4, block=128, args=[x, y, n, result])
    assert result[0] == float(np.dot(x.astype(np.int64), y.astype(np.int64)))


def test_cp_async_double_buffered_copy_with_zero_fill(races: bool) -> None:
    rng = np.random.default_rng(6)
    n = 2523  # 4 full tiles of 512 floats, a partial one, and an empty one
    tiles_per_block, blocks = 3, 2
    x = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    run_cuda(
        "cp_async_double_buffer",
        grid=blocks,
        block=128,
        args=[x, out, n, tiles_per_block],
        check_races=races,
    )
    padded = np.zeros(blocks * tiles_per_block * 512, np.float32)
    padded[:n] = x
    # Thread t of a tile writes the 16-byte chunk of thread 127 - t, as 2 * v + 1.
    mirrored = padded.reshape(-1, 128, 4)[:, ::-1, :].reshape(-1)
    np.testing.assert_array_equal(out, (2 * mirrored + 1)[:n])


def test_mma_sync_bf16_gemm_with_ldmatrix(races: bool) -> None:
    rng = np.random.default_rng(7)
    m, n, k = 128, 256, 80
    a = dyadic(rng, (m, k))
    b = dyadic(rng, (k, n))
    c = np.full((m, n), np.nan, np.float32)
    run_cuda(
        "mma_bf16_ldmatrix",
        grid=(n // 32, m // 32),
        block=128,
        args=[bf16_bits(a), bf16_bits(b), c, m, n, k],
        check_races=races,
    )
    # Multiples of 1/8 below 4: every product and partial sum is exact in fp32.
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b)


def test_wgmma_m64n64k16_bf16_from_shared_descriptors(races: bool) -> None:
    rng = np.random.default_rng(8)
    a = dyadic(rng, (64, 64))
    bt = dyadic(rng, (64, 64))  # B^T: (n, k) row-major, the K-major B operand
    c = np.full((64, 64), np.nan, np.float32)
    run_cuda(
        "wgmma_bf16_m64n64k16",
        grid=1,
        block=128,
        args=[bf16_bits(a), bf16_bits(bt), c],
        check_races=races,
    )
    np.testing.assert_array_equal(c, a.astype(np.float64) @ bt.T.astype(np.float64))


def test_tma_tile_load_add_store(races: bool) -> None:
    rows, cols = 40, 72  # partial tiles at both edges
    src = (np.arange(rows * cols, dtype=np.float32) / 4).reshape(rows, cols)
    dst = np.full((rows, cols), -1.0, np.float32)
    maps = [tensor_map(src, box=(32, 32)), tensor_map(dst, box=(32, 32))]
    run_cuda("tma_tile_add", grid=(3, 2), block=128, args=[*maps, 0.5], check_races=races)
    np.testing.assert_array_equal(dst, src + np.float32(0.5))


def test_libcudacxx_memcpy_async_with_block_barrier(races: bool) -> None:
    rng = np.random.default_rng(16)
    blocks = 3
    src = rng.standard_normal(blocks * 1024).astype(np.float32)
    out = np.full_like(src, np.nan)
    run_cuda("bulk_copy_barrier", grid=blocks, block=128, args=[src, out], check_races=races)
    np.testing.assert_array_equal(
        out, np.float32(3) * src.reshape(blocks, 1024)[:, ::-1].reshape(-1)
    )


def test_cluster_distributed_shared_memory(races: bool) -> None:
    rng = np.random.default_rng(9)
    clusters, size, threads = 2, 4, 64
    data = rng.integers(-1000, 1000, clusters * size * threads, dtype=np.int32)
    out = np.zeros_like(data)
    sums = np.zeros(clusters, np.int32)
    run_cuda(
        "cluster_dsmem",
        grid=clusters * size,
        block=threads,
        args=[data, out, sums],
        check_races=races,
    )
    per_cta = data.reshape(clusters, size, threads)
    # CTA r reads CTA (r + 1) % 4's slice backwards and adds 1000 * r.
    expected = np.roll(per_cta, -1, axis=1)[:, :, ::-1] + 1000 * np.arange(size)[None, :, None]
    np.testing.assert_array_equal(out, expected.reshape(-1))
    np.testing.assert_array_equal(sums, per_cta.sum(axis=(1, 2)))


def _collatz_steps(v: int) -> int:
    steps = 0
    while v > 1:
        v = 3 * v + 1 if v & 1 else v // 2
        steps += 1
    return steps


def test_noinline_device_function_calls() -> None:
    rng = np.random.default_rng(10)
    n = 100
    seeds = rng.integers(1, 5000, n).astype(np.uint32)
    x = dyadic(rng, (n,), span=40)
    steps = np.zeros(n, np.uint32)
    y = np.zeros(n, np.float32)
    run_cuda("noinline_call", grid=2, block=64, args=[seeds, x, steps, y, n])
    np.testing.assert_array_equal(steps, [_collatz_steps(int(s)) for s in seeds])
    np.testing.assert_array_equal(y, np.clip(x, -1, 2) * 4)


# ----------------------------------------------------------------------------------------
# Triton (3.9) kernels
# ----------------------------------------------------------------------------------------


def test_triton_entries_take_two_scratch_pointers_after_the_signature() -> None:
    for name, facts in manifest().items():
        if facts["kind"] == "triton":
            assert len(entry_params(name)) == len(facts["arguments"]) + 2, name


def test_triton_vector_add() -> None:
    rng = np.random.default_rng(11)
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    run_triton("vector_add_sm80", grid=-(-n // 256), args=[x, y, out, n])
    np.testing.assert_array_equal(out, x + y)


def test_triton_softmax_rows(races: bool) -> None:
    rng = np.random.default_rng(12)
    rows, cols, stride = 6, 100, 112
    x = (rng.standard_normal((rows, stride)) * 3).astype(np.float32)
    out = np.full((rows, stride), -1.0, np.float32)
    run_triton("softmax_sm80", grid=rows, args=[out, x, stride, stride, cols], check_races=races)
    ref = np.exp(x[:, :cols].astype(np.float64) - x[:, :cols].max(axis=1, keepdims=True))
    ref /= ref.sum(axis=1, keepdims=True)
    # tl.exp lowers to ex2.approx.f32 of x * log2(e) (PTX: max relative error 2**-22, plus the
    # rounding of the product), and the division to div.full.f32 (2 ulp): not correctly
    # rounded, so compare with a tolerance of a few float32 ulps.
    np.testing.assert_allclose(out[:, :cols], ref, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(out[:, cols:], -1.0)  # the padding is left alone


def test_triton_layer_norm_forward(races: bool) -> None:
    rng = np.random.default_rng(13)
    rows, n, stride = 4, 200, 208
    x = (rng.standard_normal((rows, stride)) * 2 + 1).astype(np.float32)
    w = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    y = np.full((rows, stride), -1.0, np.float32)
    mean = np.zeros(rows, np.float32)
    rstd = np.zeros(rows, np.float32)
    eps = 1e-5
    run_triton(
        "layer_norm_sm80",
        grid=rows,
        args=[x, y, w, b, mean, rstd, stride, n, eps],
        check_races=races,
    )
    x64 = x[:, :n].astype(np.float64)
    mu = x64.mean(axis=1)
    r = 1 / np.sqrt(((x64 - mu[:, None]) ** 2).mean(axis=1) + eps)
    # Float32 sums in Triton's reduction order (not numpy's) and an approximate square root
    # or reciprocal (sqrt.approx / rsqrt.approx / div.full allow a few ulps): tolerances.
    np.testing.assert_allclose(mean, mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, r, rtol=1e-5)
    ref = (x64 - mu[:, None]) * r[:, None] * w + b
    np.testing.assert_allclose(y[:, :n], ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(y[:, n:], -1.0)


@pytest.mark.parametrize("name", ["matmul_bf16_sm80", "matmul_bf16_sm90a"])
def test_triton_matmul_bf16(name: str, races: bool) -> None:
    rng = np.random.default_rng(14)
    m, n, k = 128, 64, 96  # 2 x 1 programs of 64 x 64, 3 steps of BLOCK_K = 32 (3 stages)
    a = dyadic(rng, (m, k))
    b = dyadic(rng, (k, n))
    c = np.full((m, n), np.nan, np.float32)
    grid = (m // 64) * (n // 64)
    args = [bf16_bits(a), bf16_bits(b), c, m, n, k, k, n, n]
    run_triton(name, grid=grid, args=args, check_races=races)
    # Multiples of 1/8 below 4: exact in bf16 and every fp32 sum is exact.
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b, err_msg=name)


def test_triton_atomic_sum(races: bool) -> None:
    rng = np.random.default_rng(15)
    n = 2000
    # Integer values: the float atomics' order does not matter (all sums exact).
    x = rng.integers(-100, 101, n).astype(np.float32)
    out = np.zeros(1, np.float32)
    run_triton("atomic_sum_sm80", grid=-(-n // 512), args=[x, n, out], check_races=races)
    assert out[0] == float(x.astype(np.int64).sum())
