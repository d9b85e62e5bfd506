"""Hopper (sm_90a) grouped GEMM for mixture-of-experts shapes: G bf16 GEMMs in one launch.

:func:`grouped_gemm_bf16` ``(a_list, b_list)`` returns ``[a @ b for a, b in zip(...)]``: every
``b_list[i]`` is (K, N) with one K and N for all groups (the experts' weights), ``a_list[i]``
is (M_i, K) with any M_i, 0 included (the tokens routed to expert i). bf16 in and out, fp32
accumulation.

Design (``docs/guide/kernels/grouped_gemm.md``): the same warp-specialized persistent kernel
as :mod:`.gemm` (:mod:`._gemm_kernel` with ``grouped=True``) over three arrays the call builds
in the caller's library:

* ``A``: the groups' rows stacked, each group padded with zero rows to a multiple of 128 (the
  tile height), so that no 128-row tile straddles two groups and the TMA store of a tile never
  writes into the next group's rows;
* ``B``: the G weight matrices side by side, (K, G * N); group g's columns start at g * N;
* a device-side table (int32, one entry per 128-row tile of ``A``) holding the tile's group.

The persistent loop walks (row tile, column tile) pairs of the padded problem; the producer
reads the row tile's group from the table and loads B from columns ``g * N + n0``. Columns
of a partial last N tile that reach into group g + 1 produce values the store clips (C is
(rows, N)). Outputs are row views of the one padded result (no copy). Costs: one copy of A
(padding) and of the weights (side by side) per call, and one specialization per distinct
padded row total (M is a PTX constant).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from pyptx import Kernel

from .._gemm_arrays import concat_columns, like, pack_rows, sm_count, split_rows, zeros
from .._registry import Implementation, KernelUnavailable
from ._gemm_kernel import GemmConfig, GemmShape, build_kernel

__all__ = ["EXAMPLE", "IMPLEMENTATIONS", "TILE_ROWS", "build", "grouped_gemm_bf16"]

TILE_ROWS = 128
"""Each group's rows are padded to a multiple of this (the kernel's tile height)."""

EXAMPLE: dict[str, Any] = {
    "m": 8192,
    "n": 4096,
    "k": 4096,
    "groups": 8,
    "bn": 256,
    "stages": 3,
    "cluster": 2,
}
"""The catalog configuration: 8 experts of 4096 x 4096 over 8192 (padded) token rows."""


@lru_cache(maxsize=128)
def build(*, m: int, n: int, k: int, groups: int, **tiles: Any) -> Kernel:
    """The grouped kernel over ``m`` padded rows (a multiple of 128) and ``groups`` experts.

    Args:
        m: rows of the padded, stacked A (and of the padded output).
        n: columns of each group's B and of the output.
        k: the reduction dim.
        groups: the number of groups (B is (k, groups * n)).
        **tiles: the tile configuration, as for :func:`pyptx.kernels.hopper.gemm.build_bf16`.
    """
    cfg = GemmConfig("bf16", grouped=True, **tiles)
    return build_kernel(cfg, GemmShape(m, n, k, groups), "hopper_grouped_gemm_bf16")


def _check(a_list: Sequence[Any], b_list: Sequence[Any]) -> tuple[list[int], int, int]:
    """(M_i, N, K), checked against what the kernel takes."""
    if len(a_list) != len(b_list) or not a_list:
        raise KernelUnavailable(
            f"expected as many (at least one) A as B, got {len(a_list)} and {len(b_list)}"
        )
    k, n = (int(d) for d in b_list[0].shape)
    for i, b in enumerate(b_list):
        if tuple(int(d) for d in b.shape) != (k, n):
            raise KernelUnavailable(
                f"every group's B must have the same (K, N) (the experts of one layer); "
                f"b_list[0] is {(k, n)} but b_list[{i}] is {tuple(b.shape)}"
            )
    ms = []
    for i, a in enumerate(a_list):
        if len(a.shape) != 2 or int(a.shape[1]) != k:
            raise KernelUnavailable(f"a_list[{i}] must be (M_{i}, {k}), got {tuple(a.shape)}")
        ms.append(int(a.shape[0]))
    if k == 0 or n == 0:
        raise KernelUnavailable(f"an empty GEMM (K = {k}, N = {n}) launches nothing")
    if k % 8 or n % 8:
        raise KernelUnavailable(
            f"K = {k} and N = {n} must be multiples of 8: TMA needs 16-byte aligned rows "
            "(8 x bf16) in A, B and the output"
        )
    return ms, n, k


def grouped_gemm_bf16(a_list: Sequence[Any], b_list: Sequence[Any], **tiles: Any) -> list[Any]:
    """``[a @ b for a, b in zip(a_list, b_list)]`` for bf16 MoE groups, in one launch.

    Args:
        a_list: (M_i, K) bf16 arrays, row-major; M_i may be 0.
        b_list: (K, N) bf16 arrays, row-major, one K and N for all groups.
        **tiles: overrides of the tile configuration (``bn``, ``stages``, ``cluster``).

    Returns:
        The (M_i, N) bf16 products, in the inputs' library and device (row views of one
        padded result).

    Raises:
        KernelUnavailable: the groups differ in K or N, K or N is not a multiple of 8, or
            the lists are empty or of different lengths.
    """
    ms, n, k = _check(a_list, b_list)
    padded = [-(-m // TILE_ROWS) * TILE_ROWS for m in ms]
    starts = [sum(padded[:i]) for i in range(len(padded))]
    total = sum(padded)
    if total == 0:  # every group is empty
        return [zeros(b_list[0], (0, n)) for _ in ms]
    table = np.repeat(np.arange(len(ms), dtype=np.int32), [p // TILE_ROWS for p in padded])
    a = pack_rows(a_list, padded)
    b = b_list[0] if len(b_list) == 1 else concat_columns(b_list)
    config = {k_: v for k_, v in EXAMPLE.items() if k_ in ("bn", "stages", "cluster")}
    kern = build(m=total, n=n, k=k, groups=len(ms), **{**config, **tiles})
    out = kern(a, b, like(a, table), ctas=sm_count(a))
    return split_rows(out, starts, ms)


IMPLEMENTATIONS: tuple[Implementation, ...] = (
    Implementation(
        name="hopper.grouped_gemm_bf16",
        family="grouped_gemm",
        arch="sm_90a",
        dtypes=("bf16",),
        example=EXAMPLE,
        build=build,
        call=grouped_gemm_bf16,
        notes="MoE: one (K, N) for all groups, any M_i (0 too); groups padded to 128 rows "
        "and B placed side by side on the host (one copy each); a tile-to-group table",
    ),
)
"""The Hopper grouped GEMM (bf16)."""
