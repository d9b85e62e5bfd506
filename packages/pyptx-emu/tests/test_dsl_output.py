"""The corpus's Triton and CuTe DSL output (tests/corpus/generated/{triton,cute}) on the emulator.

Every kernel, for every target it was compiled for, runs at a small shape on random inputs
and is checked against numpy. The launch facts come from the sources in the ``src/`` folders
(block sizes, ``tl.constexpr`` values, CuTe's static shapes); Triton 3.9 appends two global
scratch pointers to every kernel's parameters, and keeps reductions and pipelines in its
dynamic shared memory (``global_smem``).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pyptx.emu import launch

GENERATED = Path(__file__).resolve().parents[3] / "tests" / "corpus" / "generated"
ARCHS = ("sm_80", "sm_90a", "sm_100a", "sm_120a")
FP8_ARCHS = ("sm_90a", "sm_100a", "sm_120a")
SMEM = 96 * 1024  # what the largest (a 3-stage 128x128x64 fp16 pipeline) needs; sm_120a has 99 KiB


def _ptx(dsl: str, stem: str, arch: str) -> str:
    return (GENERATED / dsl / f"{stem}_{arch}.ptx").read_text(encoding="utf-8")


def _block(text: str) -> int:
    found = re.search(r"\.reqntid\s+(\d+)", text)
    assert found is not None, "the kernel states its block size"
    return int(found.group(1))


def _triton(stem: str, arch: str, grid: int | tuple[int, ...], args: list[object]) -> None:
    text = _ptx("triton", stem, arch)
    scratch = [np.zeros(256, np.uint8), np.zeros(256, np.uint8)]
    launch(text, grid=grid, block=_block(text), smem=SMEM, args=[*args, *scratch])


def _bf16(x: np.ndarray) -> np.ndarray:
    """float32 values rounded toward zero to bfloat16, as their uint16 bit patterns."""
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _from_bf16(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _e4m3_table() -> np.ndarray:
    """The value of every e4m3 (fp8, OCP "fn") byte; NaN for 0x7F and 0xFF."""
    codes = np.arange(256)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exp = (codes >> 3) & 0xF
    man = codes & 0x7
    normal = (1 + man / 8) * 2.0 ** (exp - 7.0)
    value = np.where(exp == 0, man / 8 * 2.0**-6, normal) * sign
    value[(codes & 0x7F) == 0x7F] = np.nan
    return value


# ------------------------------------------------------------------------------------ Triton


@pytest.mark.parametrize("arch", ARCHS)
def test_vector_add(arch: str) -> None:
    rng = np.random.default_rng(21)
    n = 1500  # BLOCK = 1024: two programs, a ragged tail
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.full(2048, -1.0, np.float32)
    _triton("vector_add", arch, 2, [x, y, out, n])
    np.testing.assert_array_equal(out[:n], x + y)
    np.testing.assert_array_equal(out[n:], -1.0)  # the mask keeps the tail untouched


@pytest.mark.parametrize("arch", ARCHS)
def test_softmax(arch: str) -> None:
    rng = np.random.default_rng(22)
    rows, cols, stride = 3, 700, 1024
    x = rng.standard_normal((rows, stride)).astype(np.float16)
    out = np.zeros((rows, stride), np.float16)
    _triton("softmax", arch, rows, [out, x, stride, cols])
    ref = x[:, :cols].astype(np.float64)
    ref = np.exp(ref - ref.max(axis=1, keepdims=True))
    ref /= ref.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out[:, :cols].astype(np.float64), ref, rtol=2e-3, atol=1e-4)
    np.testing.assert_array_equal(out[:, cols:], 0.0)


@pytest.mark.parametrize("arch", ARCHS)
def test_layer_norm(arch: str) -> None:
    rng = np.random.default_rng(23)
    rows, n, stride = 2, 700, 768  # BLOCK = 512: two blocks per row, the second ragged
    x = _bf16(rng.standard_normal((rows, stride)))
    w = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    y = np.zeros((rows, stride), np.uint16)
    mean, rstd = np.zeros(rows, np.float32), np.zeros(rows, np.float32)
    _triton("layer_norm", arch, rows, [x, y, w, b, mean, rstd, stride, n, 1e-5])
    xf = _from_bf16(x[:, :n]).astype(np.float64)
    want_mean = xf.mean(axis=1)
    want_rstd = 1 / np.sqrt(xf.var(axis=1) + 1e-5)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, want_rstd, rtol=1e-5)
    ref = (xf - want_mean[:, None]) * want_rstd[:, None] * w + b
    np.testing.assert_allclose(_from_bf16(y[:, :n]), ref, rtol=1e-2, atol=1e-2)
    np.testing.assert_array_equal(y[:, n:], 0)


@pytest.mark.parametrize("arch", ARCHS)
def test_histogram(arch: str) -> None:
    rng = np.random.default_rng(24)
    n, bins = 600, 64  # BLOCK = 256: three programs
    x = rng.integers(0, 1000, n).astype(np.int32)
    hist = np.zeros(bins + 1, np.int32)
    total = np.zeros(1, np.float32)
    _triton("histogram", arch, 3, [x, hist, total, n])
    np.testing.assert_array_equal(hist[:bins], np.bincount(x % bins, minlength=bins))
    assert hist[bins] == x.max()
    np.testing.assert_allclose(total[0], x.astype(np.float64).sum() / 3, rtol=1e-5)


@pytest.mark.parametrize("arch", ARCHS)
def test_scan_sort(arch: str) -> None:
    rng = np.random.default_rng(25)
    block = 512
    x = rng.standard_normal(2 * block).astype(np.float32)
    keys = rng.integers(-3000, 3000, 2 * block).astype(np.int16)
    scan, ordered = np.zeros_like(x), np.zeros_like(x)
    given = keys.copy()
    _triton("scan_sort", arch, 2, [x, scan, ordered, keys])
    parts = x.reshape(2, block)
    np.testing.assert_allclose(scan, np.cumsum(parts, axis=1).ravel(), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(ordered, -np.sort(-parts, axis=1).ravel())
    np.testing.assert_array_equal(keys, np.sort(given.reshape(2, block), axis=1).ravel())


@pytest.mark.parametrize("arch", ARCHS)
def test_convert(arch: str) -> None:
    rng = np.random.default_rng(26)
    n = 300  # BLOCK = 256: two programs
    x = (rng.standard_normal(n) * 2).astype(np.float32)
    given = x.copy()
    h = np.zeros(n, np.float16)
    b = np.zeros(n, np.uint16)
    q = np.zeros(n, np.int8)
    u = np.zeros(n, np.uint64)
    _triton("convert", arch, 2, [x, h, b, q, u, n])
    np.testing.assert_array_equal(h, given.astype(np.float16))
    # Round to nearest even, as cvt.rn.bf16.f32 does.
    bits = given.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    np.testing.assert_array_equal(b, rounded)
    np.testing.assert_array_equal(q, np.trunc(np.clip(given * 127, -128, 127)).astype(np.int8))
    word = given.view(np.uint32).astype(np.uint64)
    offs = np.arange(n, dtype=np.uint64)
    np.testing.assert_array_equal(u, ((word << 7) ^ (word >> 3)) | offs)
    want = np.floor(given) + 1 / np.sqrt(np.abs(given) + 1)
    np.testing.assert_allclose(x, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("arch", ARCHS)
def test_matmul(arch: str) -> None:
    rng = np.random.default_rng(27)
    m, n, k = 128, 128, 160  # one 128x128 tile; three K steps of 64, the last ragged
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    _triton("matmul", arch, 1, [a, b, c, m, n, k, k, n, n])
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=2e-2)


@pytest.mark.parametrize("arch", FP8_ARCHS)
def test_fp8_matmul(arch: str) -> None:
    rng = np.random.default_rng(28)
    m, n, k = 128, 128, 128  # one tile, one K step of 128
    table = _e4m3_table()
    small = np.flatnonzero(np.abs(table) <= 2)  # codes of exact values in [-2, 2]
    a = rng.choice(small, (m, k)).astype(np.uint8)
    b = rng.choice(small, (k, n)).astype(np.uint8)
    c = np.zeros((m, n), np.uint16)
    scale = np.array([0.5, 0.25], np.float32)
    _triton("fp8_matmul", arch, (1, 1), [a, b, c, scale, m, n, k])
    ref = (table[a] @ table[b]) * 0.125
    np.testing.assert_allclose(_from_bf16(c), ref, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("arch", ARCHS)
def test_attention(arch: str) -> None:
    rng = np.random.default_rng(29)
    seq, head, scale = 128, 64, 0.125  # one block of queries, causal, one head
    q, k, v = (_bf16(rng.standard_normal((seq, head))) for _ in range(3))
    o = np.zeros((seq, head), np.uint16)
    lse = np.zeros(seq, np.float32)
    _triton("attention", arch, (1, 1), [q, k, v, o, lse, seq, seq * head, head, scale])
    qf, kf, vf = (_from_bf16(t).astype(np.float64) for t in (q, k, v))
    s = qf @ kf.T * scale
    s[np.triu_indices(seq, 1)] = -np.inf
    p = np.exp(s - s.max(axis=1, keepdims=True))
    ref = (p / p.sum(axis=1, keepdims=True)) @ vf
    np.testing.assert_allclose(_from_bf16(o), ref, rtol=3e-2, atol=3e-2)
    # log2 of the softmax denominator, in the kernel's base-2 units (scale folded in).
    want_lse = (s.max(axis=1) + np.log(p.sum(axis=1))) / np.log(2)
    np.testing.assert_allclose(lse, want_lse, rtol=1e-2, atol=1e-2)


# ------------------------------------------------------------------------------------ CuTe DSL


def _cute(
    stem: str, arch: str, grid: tuple[int, int], block: tuple[int, int], *arrays: np.ndarray
) -> None:
    # Each tensor is a byte-array parameter holding its address (a static layout).
    launch(_ptx("cute", stem, arch), grid=grid, block=block, args=[(a,) for a in arrays])


@pytest.mark.parametrize("arch", ARCHS)
def test_cute_elementwise(arch: str) -> None:
    rng = np.random.default_rng(30)
    a = rng.standard_normal((32, 256)).astype(np.float16)
    b = rng.standard_normal((32, 256)).astype(np.float16)
    c = np.zeros_like(a)
    _cute("elementwise", arch, (8, 1), (128, 1), a, b, c)  # 8-element tiles, 128 per CTA
    np.testing.assert_allclose(c.astype(np.float32), (a * b + a).astype(np.float32), rtol=2e-3)


@pytest.mark.parametrize("arch", ARCHS)
def test_cute_row_sum(arch: str) -> None:
    rng = np.random.default_rng(31)
    x = _bf16(rng.standard_normal((16, 256)))
    out = np.zeros(16, np.float32)
    _cute("row_sum", arch, (4, 1), (128, 1), x, out)  # a warp per row, 4 rows per CTA
    np.testing.assert_allclose(out, _from_bf16(x).sum(axis=1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("arch", ARCHS)
def test_cute_transpose(arch: str) -> None:
    rng = np.random.default_rng(32)
    x = rng.standard_normal((64, 96)).astype(np.float32)
    out = np.zeros((96, 64), np.float32)
    _cute("transpose", arch, (3, 2), (32, 8), x, out)  # 32x32 tiles, 8 rows of threads
    np.testing.assert_array_equal(out, x.T)


@pytest.mark.parametrize("arch", ARCHS)
def test_cute_mma_gemm(arch: str) -> None:
    rng = np.random.default_rng(33)
    a = rng.standard_normal((128, 64)).astype(np.float16)
    b = rng.standard_normal((128, 64)).astype(np.float16)  # N x K: B is K-major
    c = np.zeros((128, 128), np.float32)
    _cute("mma_gemm", arch, (2, 2), (128, 1), a, b, c)  # 64x64 tiles
    ref = a.astype(np.float32) @ b.astype(np.float32).T
    np.testing.assert_allclose(c, ref, rtol=1e-3, atol=1e-3)
