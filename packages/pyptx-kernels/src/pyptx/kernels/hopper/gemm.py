"""Hopper (sm_90a) GEMMs: warp-specialized, persistent, TMA + wgmma, bf16 and FP8 e4m3.

* :func:`gemm_bf16` ``(a, b)``: ``a`` (M, K) and ``b`` (K, N) bf16, row-major; returns
  ``a @ b`` (M, N) bf16, accumulated in fp32 (``torch.matmul`` semantics).
* :func:`gemm_fp8` ``(a, b)``: the same for e4m3 inputs; returns bf16. wgmma reads 8-bit B
  from shared memory K-major only, so the kernel takes ``B^T`` (N, K): this function makes
  that transposed copy of ``b`` in the caller's library (one K x N byte copy per call).
  :func:`gemm_fp8_bt` takes ``b_t`` (N, K) directly and copies nothing.

The kernel (one producer warpgroup streaming TMA loads through an mbarrier ring, two consumer
warpgroups running ``wgmma``, a persistent tile loop and a TMA-store epilogue) is in
:mod:`._gemm_kernel`; the design is in ``docs/guide/kernels/gemm_hopper.md``.

Shapes: any M; K and N multiples of 8 for bf16 (TMA needs 16-byte aligned rows), K a multiple
of 16 and N of 8 for e4m3. Tiles at the edges of M, N and K are handled by TMA (zero fill on
load, clipping on store). Each shape is its own specialization (M, N, K are PTX constants);
the K loop is a device loop, so the PTX does not grow with K.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pyptx import Kernel

from .._gemm_arrays import sm_count, transposed
from .._registry import Implementation, KernelUnavailable
from ._gemm_kernel import GemmConfig, GemmShape, build_kernel

__all__ = [
    "EXAMPLE_BF16",
    "EXAMPLE_FP8",
    "IMPLEMENTATIONS",
    "build_bf16",
    "build_fp8",
    "gemm_bf16",
    "gemm_fp8",
    "gemm_fp8_bt",
]

TILE_CONFIG: dict[str, Any] = {"bn": 256, "stages": 3, "cluster": 2}
"""The tile configuration calls use: 128 x 256 tiles (two m64n256 consumers), a three-stage
ring (3 x 48 KiB plus the 64 KiB output staging tile: 208 KiB of shared memory), clusters of
two CTAs along N sharing A by multicast."""

EXAMPLE_BF16: dict[str, Any] = {"m": 4096, "n": 4096, "k": 4096, **TILE_CONFIG}
"""The bf16 kernel's catalog configuration (``build_bf16`` keywords)."""

EXAMPLE_FP8: dict[str, Any] = {"m": 4096, "n": 4096, "k": 4096, **TILE_CONFIG}
"""The e4m3 kernel's catalog configuration (``build_fp8`` keywords)."""


@lru_cache(maxsize=128)
def build_bf16(*, m: int, n: int, k: int, **tiles: Any) -> Kernel:
    """The bf16 GEMM kernel for an (m, k) x (k, n) problem (cached per configuration).

    Args:
        m: rows of A and C.
        n: columns of B and C.
        k: the reduction dim.
        **tiles: the tile configuration, :class:`GemmConfig`'s ``bn`` (64, 128, 192, 256),
            ``stages`` (ring depth), ``cluster`` (CTAs per cluster along N; 2 multicasts A to
            both) and ``group_m`` (row tiles per group of the persistent tile order); its
            defaults for the ones not given.
    """
    return build_kernel(GemmConfig("bf16", **tiles), GemmShape(m, n, k), "hopper_gemm_bf16")


@lru_cache(maxsize=128)
def build_fp8(*, m: int, n: int, k: int, **tiles: Any) -> Kernel:
    """The e4m3 GEMM kernel for an (m, k) x (k, n) problem, B given as (n, k) (cached).

    Args as for :func:`build_bf16`.
    """
    return build_kernel(GemmConfig("e4m3", **tiles), GemmShape(m, n, k), "hopper_gemm_e4m3")


def _dims(a: Any, b: Any, dtype: str, b_transposed: bool) -> tuple[int, int, int]:
    """(M, N, K), checked against what TMA and the kernel take."""
    if len(a.shape) != 2 or len(b.shape) != 2:
        raise KernelUnavailable(f"expected 2-D a and b, got shapes {a.shape} and {b.shape}")
    m, k = (int(d) for d in a.shape)
    n, kb = (int(d) for d in b.shape) if b_transposed else (int(b.shape[1]), int(b.shape[0]))
    if k != kb:
        raise KernelUnavailable(f"a is {tuple(a.shape)} and b is {tuple(b.shape)}: K differs")
    if not (m and n and k):
        raise KernelUnavailable(f"an empty GEMM ({m} x {k} by {k} x {n}) launches nothing")
    per_16_bytes = 8 if dtype == "bf16" else 16
    if k % per_16_bytes:
        raise KernelUnavailable(
            f"K = {k} is not a multiple of {per_16_bytes}: TMA needs the rows of a (and of "
            f"{'b^T' if dtype == 'e4m3' else 'b'}) 16-byte aligned ({per_16_bytes} x {dtype})"
        )
    if n % 8:
        raise KernelUnavailable(
            f"N = {n} is not a multiple of 8: TMA needs the rows of "
            f"{'the bf16 output' if dtype == 'e4m3' else 'b and of the output'} 16-byte "
            "aligned (8 x bf16)"
        )
    return m, n, k


def gemm_bf16(a: Any, b: Any, **tiles: Any) -> Any:
    """``a @ b`` for bf16 ``a`` (M, K) and ``b`` (K, N): (M, N) bf16, fp32 accumulation.

    Runs on the GPU for CUDA arrays and in the emulator for host arrays (torch CPU, numpy,
    JAX on CPU), through :mod:`pyptx.runtime`.

    Args:
        a: (M, K) bf16, row-major.
        b: (K, N) bf16, row-major.
        **tiles: overrides of :data:`TILE_CONFIG` (``bn``, ``stages``, ``cluster``,
            ``group_m``).

    Returns:
        The (M, N) bf16 product, in ``a``'s library and on its device.

    Raises:
        KernelUnavailable: K or N is not a multiple of 8, or a dim is 0.
    """
    m, n, k = _dims(a, b, "bf16", b_transposed=False)
    kern = build_bf16(m=m, n=n, k=k, **{**TILE_CONFIG, **tiles})
    return kern(a, b, ctas=sm_count(a))


def gemm_fp8_bt(a: Any, b_t: Any, **tiles: Any) -> Any:
    """``a @ b_t.T`` for e4m3 ``a`` (M, K) and ``b_t`` (N, K): (M, N) bf16, fp32 accumulation.

    The layout the FP8 kernel reads (K-major B); no copy is made.

    Args:
        a: (M, K) e4m3, row-major.
        b_t: (N, K) e4m3, row-major (B transposed).
        **tiles: overrides of :data:`TILE_CONFIG`.

    Returns:
        The (M, N) product in bf16 (no scale: multiply by the FP8 scales afterwards).

    Raises:
        KernelUnavailable: K is not a multiple of 16, N not of 8, or a dim is 0.
    """
    m, n, k = _dims(a, b_t, "e4m3", b_transposed=True)
    kern = build_fp8(m=m, n=n, k=k, **{**TILE_CONFIG, **tiles})
    return kern(a, b_t, ctas=sm_count(a))


def gemm_fp8(a: Any, b: Any, **tiles: Any) -> Any:
    """``a @ b`` for e4m3 ``a`` (M, K) and ``b`` (K, N): (M, N) bf16, fp32 accumulation.

    Copies ``b`` transposed (the kernel needs K-major B, see :func:`gemm_fp8_bt`).

    Args:
        a: (M, K) e4m3, row-major.
        b: (K, N) e4m3, row-major.
        **tiles: overrides of :data:`TILE_CONFIG`.

    Returns:
        The (M, N) product in bf16.

    Raises:
        KernelUnavailable: K is not a multiple of 16, N not of 8, or a dim is 0.
    """
    _dims(a, b, "e4m3", b_transposed=False)  # refuse before copying
    return gemm_fp8_bt(a, transposed(b), **tiles)


IMPLEMENTATIONS: tuple[Implementation, ...] = (
    Implementation(
        name="hopper.gemm_bf16",
        family="gemm",
        arch="sm_90a",
        dtypes=("bf16",),
        example=EXAMPLE_BF16,
        build=build_bf16,
        call=gemm_bf16,
        notes="warp-specialized persistent TMA + wgmma m64n256k16, 2-CTA clusters (A "
        "multicast), TMA-store epilogue; K and N multiples of 8",
    ),
    Implementation(
        name="hopper.gemm_fp8",
        family="gemm",
        arch="sm_90a",
        dtypes=("e4m3",),
        example=EXAMPLE_FP8,
        build=build_fp8,
        call=gemm_fp8,
        notes="returns bf16; wgmma m64n256k32 e4m3 needs K-major B, so b (K, N) is copied "
        "transposed per call (gemm_fp8_bt takes b^T); K a multiple of 16, N of 8",
    ),
)
"""The Hopper GEMMs: bf16 and FP8 (e4m3 in, bf16 out)."""
