"""Blackwell (sm_100a) bf16 GEMMs on ``tcgen05``: 1-CTA, 2-CTA (``cta_group::2``) and grouped.

``gemm_bf16`` (1-CTA) and ``gemm_bf16_2cta`` compute ``C = A @ B`` for row-major
``A (M, K)`` and ``B (K, N)`` bf16 with fp32 accumulation in Tensor Memory and a bf16 result
(``torch.matmul`` semantics). Each CTA
runs a warp-specialized pipeline (see :mod:`._gemm_kernel` and
``docs/guide/kernels/gemm_blackwell.md``): one thread streams k-tiles into a ring of shared
memory stages with TMA, one thread issues ``tcgen05.mma`` and releases stages with
``tcgen05.commit``, and all four warps move the accumulator out of TMEM (``tcgen05.ld``),
convert it and store it. The K loop is a device loop: the PTX does not grow with K.

Two kernels, two library entries (``cta_group`` of the configuration):

* ``blackwell.gemm_bf16_2cta`` (``cta_group=2``): a cluster of two CTAs computes a
  ``256 x bn`` tile with one ``M = 256`` MMA per K step; each CTA loads its 128 rows of A
  and half the columns of B, so a CTA's shared memory traffic per MMA flop is halved. Its
  ``call`` refuses ``M`` below :data:`TWO_CTA_MIN_M` (there the 1-CTA kernel launches twice
  the CTAs and fills the GPU better), so that :func:`pyptx.kernels.gemm`, which asks the
  entries in table order, runs it for large ``M`` and the 1-CTA kernel otherwise.
* ``blackwell.gemm_bf16`` (``cta_group=1``): a CTA computes a ``128 x bn`` tile with
  ``M = 128`` MMAs; any ``M``.

``grouped_gemm_bf16`` runs a list of ``(M_i, K) @ (K, N)`` products (the MoE expert shape:
every group has the same ``K`` and ``N``, any ``M_i``, zero included) in one launch.

Edges: M, N and K need not be tile multiples. Loads past the matrix read as zero (TMA
out-of-bounds fill), so partial k-tiles add nothing, and stores are predicated per row and
per 8 columns. TMA needs 16-byte row pitches, so ``K`` and ``N`` must be multiples of 8;
otherwise :class:`~pyptx.kernels.KernelUnavailable`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from pyptx import Kernel, Layout, Tile, kernel, ptx, reg
from pyptx.types import bf16, s32, u32, u64

from .._gemm_arrays import concat_rows, like, split_rows, stack, zeros
from .._registry import Implementation, KernelUnavailable
from ._gemm_grouped import tile_table
from ._gemm_kernel import (
    BK,
    BM,
    CHUNK,
    THREADS,
    Config,
    epilogue,
    issue_mmas,
    produce,
    setup,
    teardown,
)

__all__ = [
    "IMPLEMENTATIONS",
    "TWO_CTA_MIN_M",
    "build_gemm",
    "build_grouped_gemm",
    "gemm_bf16",
    "gemm_bf16_2cta",
    "grouped_gemm_bf16",
]

ARCH = "sm_100a"

TWO_CTA_MIN_M = 512
"""``gemm_bf16_2cta`` takes ``M`` from this many rows of A; below, the 1-CTA kernel is the
better choice (twice the CTAs of the at most two rows of 256-row pair tiles) and the call
refuses."""

ONE_CTA = {"bn": 128, "stages": 4, "cta_group": 1}
"""The default 1-CTA configuration: a 128 x 128 tile, 4 stages of 32 KB."""
TWO_CTA = {"bn": 256, "stages": 4, "cta_group": 2}
"""The default 2-CTA configuration: a 256 x 256 tile per pair, 4 stages of 32 KB per CTA."""


def _config(bn: int, stages: int, cta_group: int) -> Config:
    if cta_group not in (1, 2):
        raise ValueError(f"cta_group must be 1 or 2, got {cta_group}")
    if bn not in (128, 256):
        raise ValueError(f"bn must be 128 or 256, got {bn}")
    if stages not in (2, 4, 8):
        raise ValueError(f"stages must be 2, 4 or 8, got {stages}")
    cfg = Config(bn=bn, stages=stages, cta_group=cta_group)
    if cfg.smem_bytes > 200 * 1024:
        raise ValueError(f"{stages} stages of bn={bn} need {cfg.smem_bytes} bytes of smem")
    return cfg


def _b_tile(*dims: int) -> Tile:
    """B (or the stacked Bs) read by TMA in 64 K x 64 N boxes (N-major, 128-byte swizzle)."""
    box = (1,) * (len(dims) - 2) + (BK, CHUNK)
    return Tile(*dims, bf16, layout=Layout.TMA_128B, tma_box=box)


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


@cache
def build_gemm(*, M: int, N: int, K: int, bn: int, stages: int, cta_group: int) -> Kernel:
    """The GEMM kernel for ``(M, K) @ (K, N)`` bf16 -> bf16 in one configuration.

    Args:
        M: rows of A and C.
        N: columns of B and C (a multiple of 8).
        K: columns of A, rows of B (a multiple of 8).
        bn: columns of the tile of one MMA: 128 or 256.
        stages: shared-memory pipeline depth: 2, 4 or 8.
        cta_group: 1 or 2 (a pair of CTAs per ``M = 256`` tile).

    Returns:
        The kernel, launched as ``k(a, b) -> c``.
    """
    cfg = _config(bn, stages, cta_group)
    k_tiles = _ceil(K, BK)
    rows = BM * cta_group  # rows of the tile of one MMA

    # zero_outputs=False: one CTA per 128 rows by bn columns of C; its 128 threads store
    # one row each, every 8 columns below N (the epilogue's predicate), rows below M.
    @kernel(
        in_specs=(
            Tile(M, K, bf16, layout=Layout.TMA_128B, tma_box=(BM, BK)),
            _b_tile(K, N),
        ),
        out_specs=(Tile(M, N, bf16),),
        grid=(_ceil(N, bn), cta_group * _ceil(M, rows), 1),
        block=(THREADS, 1, 1),
        cluster=(1, cta_group, 1),
        arch=ARCH,
        zero_outputs=False,
    )
    def tcgen05_gemm_bf16(a: Any, b: Any, c: Any) -> None:
        p = setup(cfg)
        # ctaid.y counts 128-row slices; with cta_group = 2 the pair (ranks 0, 1) takes two.
        m_cta = reg.from_(ptx.special.ctaid.y(), u32) << 7
        n0 = reg.from_(ptx.special.ctaid.x(), u32) * bn
        with ptx.if_(p.warp == 0), ptx.if_(ptx.elect.sync()):
            b_col = n0 if p.rank is None else n0 + p.rank * cfg.b_cols
            produce(p, k_tiles, a.tma_desc(), b.tma_desc(), m_cta, b_col)
        leader = p.warp == 1 if p.rank is None else (p.warp == 1) & (p.rank == 0)
        with ptx.if_(leader), ptx.if_(ptx.elect.sync()):
            issue_mmas(p, k_tiles)
        row = m_cta + (p.warp << 5) + p.lane
        epilogue(p, c.ptr(), row, M, n0, N)
        teardown(p)

    return tcgen05_gemm_bf16


@cache
def build_grouped_gemm(
    *, rows: int, tiles: int, groups: int, N: int, K: int, bn: int, stages: int
) -> Kernel:
    """The grouped GEMM kernel (1-CTA) for ``groups`` products sharing ``K`` and ``N``.

    Inputs: the groups' A stacked into ``(rows, K)``, their B stacked into
    ``(groups, K, N)``, and the tile table ``(tiles, 4)`` int32 made by
    :func:`._gemm_grouped.tile_table`: per 128-row tile its group, first row and the group's
    end row. Output: ``(rows, N)``, each group's rows where its A rows are. A tile may run
    past its group's end into the next group's rows of A; those rows are computed with the
    wrong B and never stored (rows ``>= end`` are masked).

    Args:
        rows: total rows of A (sum of the groups' M).
        tiles: entries of the tile table (launch rows of the grid).
        groups: number of groups.
        N: columns of B and C (a multiple of 8).
        K: columns of A, rows of each B (a multiple of 8).
        bn: columns of the tile: 128 or 256.
        stages: pipeline depth: 2, 4 or 8.

    Returns:
        The kernel, launched as ``k(a, b, table) -> c``.
    """
    cfg = _config(bn, stages, 1)
    k_tiles = _ceil(K, BK)

    # zero_outputs=False: C has no padding rows; each group's rows are covered by its
    # tiles (first rows start, start + 128, ... below its end), and a tile stores its rows
    # below the group's end, all columns. A group with no rows has no rows in C either.
    @kernel(
        in_specs=(
            Tile(rows, K, bf16, layout=Layout.TMA_128B, tma_box=(BM, BK)),
            _b_tile(groups, K, N),
            Tile(tiles, 4, s32),
        ),
        out_specs=(Tile(rows, N, bf16),),
        grid=(_ceil(N, bn), tiles, 1),
        block=(THREADS, 1, 1),
        arch=ARCH,
        zero_outputs=False,
    )
    def tcgen05_grouped_gemm_bf16(a: Any, b: Any, table: Any, c: Any) -> None:
        p = setup(cfg)
        n0 = reg.from_(ptx.special.ctaid.x(), u32) * bn
        entry_addr = reg.scalar(u64)
        ptx.mad(entry_addr, reg.from_(ptx.special.ctaid.y(), u32), 16, table.ptr(), mode="wide")
        entry = reg.array(u32, 4)  # group, first row, end row, unused
        ptx.ld(tuple(entry), entry_addr, space="global")
        group, m0, end = entry[0], entry[1], entry[2]
        with ptx.if_(p.warp == 0), ptx.if_(ptx.elect.sync()):
            produce(p, k_tiles, a.tma_desc(), b.tma_desc(), m0, n0, b_group=group)
        with ptx.if_(p.warp == 1), ptx.if_(ptx.elect.sync()):
            issue_mmas(p, k_tiles)
        row = m0 + (p.warp << 5) + p.lane
        epilogue(p, c.ptr(), row, end, n0, N)
        teardown(p)

    return tcgen05_grouped_gemm_bf16


def _dims(a: Any, b: Any) -> tuple[int, int, int]:
    """(M, N, K) of ``a @ b``, or the reason the kernels cannot take them."""
    if len(a.shape) != 2 or len(b.shape) != 2:
        raise ValueError(
            f"gemm takes 2-D a and b, got shapes {tuple(a.shape)} and {tuple(b.shape)}"
        )
    (m, k), (k2, n) = a.shape, b.shape
    if k != k2:
        raise ValueError(f"a is {m} x {k} but b is {k2} x {n}: the inner dimensions differ")
    if k % 8 or n % 8:
        raise KernelUnavailable(
            f"blackwell.gemm_bf16 reads A and B with TMA, which needs 16-byte rows: K ({k}) and "
            f"N ({n}) must be multiples of 8 bf16"
        )
    if not (m and n and k):
        raise KernelUnavailable(
            f"blackwell.gemm_bf16 does not launch an empty GEMM ({m}x{k} @ {k}x{n})"
        )
    return int(m), int(n), int(k)


def gemm_bf16(a: Any, b: Any, *, bn: int = 128, stages: int = 4) -> Any:
    """``a @ b`` for bf16 ``a (M, K)`` and ``b (K, N)`` with the 1-CTA kernel (:data:`ONE_CTA`).

    A bf16 ``(M, N)`` array, fp32 accumulation; any ``M``. Runs on the GPU for CUDA arrays,
    in the emulator for CPU ones.

    Args:
        a: (M, K) bf16, row-major.
        b: (K, N) bf16, row-major.
        bn: columns of the tile (128 or 256).
        stages: pipeline depth (2, 4 or 8).

    Raises:
        KernelUnavailable: K or N not a multiple of 8, or an empty dimension.
        ValueError: a or b not 2-D, or their inner dimensions differ.
    """
    m, n, k = _dims(a, b)
    return build_gemm(M=m, N=n, K=k, bn=bn, stages=stages, cta_group=1)(a, b)


def gemm_bf16_2cta(a: Any, b: Any, *, bn: int = 256, stages: int = 4) -> Any:
    """``a @ b`` for bf16 ``a (M, K)`` and ``b (K, N)`` with the 2-CTA kernel (:data:`TWO_CTA`).

    As :func:`gemm_bf16`, with a pair of CTAs (``cta_group::2``) per 256-row tile, for
    ``M`` of at least :data:`TWO_CTA_MIN_M`.

    Args:
        a: (M, K) bf16, row-major, ``M >= TWO_CTA_MIN_M``.
        b: (K, N) bf16, row-major.
        bn: columns of the pair's tile (128 or 256).
        stages: pipeline depth (2, 4 or 8).

    Raises:
        KernelUnavailable: ``M`` below :data:`TWO_CTA_MIN_M` (``blackwell.gemm_bf16`` is the
            better kernel there), K or N not a multiple of 8, or an empty dimension.
        ValueError: a or b not 2-D, or their inner dimensions differ.
    """
    m, n, k = _dims(a, b)
    if m < TWO_CTA_MIN_M:
        raise KernelUnavailable(
            f"blackwell.gemm_bf16_2cta takes M >= {TWO_CTA_MIN_M}; M = {m} fills at most "
            f"{_ceil(m, 2 * BM)} pair tile(s) of 256 rows, where the 1-CTA kernel "
            "(blackwell.gemm_bf16) is the better choice"
        )
    return build_gemm(M=m, N=n, K=k, bn=bn, stages=stages, cta_group=2)(a, b)


GROUPED = {"bn": 128, "stages": 4}
"""The grouped GEMM's configuration (1-CTA)."""


def grouped_gemm_bf16(a_list: Sequence[Any], b_list: Sequence[Any], **config: int) -> list[Any]:
    """``[a_i @ b_i]`` for bf16 ``a_i (M_i, K)`` and ``b_i (K, N)`` in one launch.

    Every group has the same ``K`` and ``N`` (the MoE expert shape); ``M_i`` may differ and
    be 0 (that group's result is an empty ``(0, N)`` array). ``config`` overrides
    :data:`GROUPED` (``bn``, ``stages``).

    Raises:
        KernelUnavailable: K or N not a multiple of 8.
        ValueError: the lists are empty or of different lengths, or the shapes disagree.
    """
    if not a_list or len(a_list) != len(b_list):
        raise ValueError(
            f"grouped_gemm takes two lists of the same, non-zero length; got {len(a_list)} "
            f"and {len(b_list)}"
        )
    k, n = (int(d) for d in b_list[0].shape)
    for i, (x, w) in enumerate(zip(a_list, b_list, strict=True)):
        if len(x.shape) != 2 or tuple(w.shape) != (k, n) or x.shape[1] != k:
            raise ValueError(
                f"group {i}: a is {tuple(x.shape)} and b {tuple(w.shape)}; every group needs "
                f"a (M_i, {k}) and b ({k}, {n}) like group 0"
            )
    if k % 8 or n % 8:
        raise KernelUnavailable(
            f"blackwell.grouped_gemm_bf16 reads A and B with TMA, which needs 16-byte rows: K "
            f"({k}) and N ({n}) must be multiples of 8 bf16"
        )
    rows = [int(x.shape[0]) for x in a_list]
    starts = [sum(rows[:i]) for i in range(len(rows))]
    total = sum(rows)
    if total == 0 or k == 0 or n == 0:
        return split_rows(zeros(a_list[0], (total, n)), starts, rows)
    table = tile_table(rows, BM)
    cfg = {**GROUPED, **config}
    kern = build_grouped_gemm(rows=total, tiles=len(table), groups=len(b_list), N=n, K=k, **cfg)
    a = concat_rows(a_list)
    out = kern(a, stack(b_list), like(a, table))
    return split_rows(out, starts, rows)


IMPLEMENTATIONS: tuple[Implementation, ...] = (
    # The 2-CTA entry comes first: gemm() asks the entries in this order, and this one
    # refuses M < TWO_CTA_MIN_M, which the 1-CTA entry then takes.
    Implementation(
        name="blackwell.gemm_bf16_2cta",
        family="gemm",
        arch=ARCH,
        dtypes=("bf16",),
        example={"M": 4096, "N": 4096, "K": 4096, **TWO_CTA},
        build=build_gemm,
        call=gemm_bf16_2cta,
        notes=(
            "tcgen05 cta_group::2: a CTA pair per 256x256 tile, M=256 MMAs, 4-stage TMA ring; "
            f"takes M >= {TWO_CTA_MIN_M} (the 1-CTA entry takes smaller M)"
        ),
    ),
    Implementation(
        name="blackwell.gemm_bf16",
        family="gemm",
        arch=ARCH,
        dtypes=("bf16",),
        example={"M": 4096, "N": 4096, "K": 4096, **ONE_CTA},
        build=build_gemm,
        call=gemm_bf16,
        notes="tcgen05 + TMEM accumulator, 128x128 tile per CTA, 4-stage TMA ring; any M",
    ),
    Implementation(
        name="blackwell.grouped_gemm_bf16",
        family="grouped_gemm",
        arch=ARCH,
        dtypes=("bf16",),
        example={"rows": 4096, "tiles": 36, "groups": 8, "N": 4096, "K": 4096, **GROUPED},
        build=build_grouped_gemm,
        call=grouped_gemm_bf16,
        notes="all groups share K and N; M_i may be 0; one launch over a tile table",
    ),
)
