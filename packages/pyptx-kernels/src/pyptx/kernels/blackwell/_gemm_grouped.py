"""Host side of the grouped GEMM: the tile table (the arrays: :mod:`.._gemm_arrays`).

The kernel takes every group in one launch: the groups' A stacked row-wise, their B stacked
into a ``(groups, K, N)`` tensor (read by a 3-D TMA map, so a partial k-tile of one group
reads zeros, never the next group's rows), and a table with one row per 128-row tile of
output: ``(group, first row, end row of the group, 0)``. Groups with no rows get no tile.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["tile_table"]


def tile_table(rows: Sequence[int], tile_m: int) -> np.ndarray:
    """One ``(group, first row, end row, 0)`` int32 row per ``tile_m``-row tile of each group.

    Args:
        rows: the rows of each group (``M_i``, zero allowed).
        tile_m: rows per tile.

    Returns:
        An ``(tiles, 4)`` int32 array; ``tiles`` is ``sum(ceil(M_i / tile_m))``.
    """
    entries: list[tuple[int, int, int, int]] = []
    start = 0
    for g, m in enumerate(rows):
        end = start + m
        entries += [(g, r, end, 0) for r in range(start, end, tile_m)]
        start = end
    return np.array(entries, dtype=np.int32).reshape(-1, 4)
