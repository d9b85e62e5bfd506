"""Host side of the grouped GEMM: the tile table and array plumbing in the caller's library.

The kernel takes every group in one launch: the groups' A stacked row-wise, their B stacked
into a ``(groups, K, N)`` tensor (read by a 3-D TMA map, so a partial k-tile of one group
reads zeros, never the next group's rows), and a table with one row per 128-row tile of
output: ``(group, first row, end row of the group, 0)``. Groups with no rows get no tile.

Arrays stay in the caller's library (torch, JAX or numpy): frameworks are imported only when
an array of theirs is passed, so importing :mod:`pyptx.kernels` pulls in none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["concat", "library", "split", "stack", "tile_table", "to_library", "zeros"]


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


def library(x: Any) -> str:
    """``"torch"``, ``"jax"`` or ``"numpy"``: the library an array belongs to."""
    root = type(x).__module__.split(".")[0]
    if root == "torch":
        return "torch"
    if root in ("jax", "jaxlib"):
        return "jax"
    return "numpy"


def concat(arrays: Sequence[Any]) -> Any:
    """The arrays joined along their first axis, in their library."""
    lib = library(arrays[0])
    if lib == "torch":
        import torch

        return torch.cat(list(arrays), dim=0).contiguous()
    if lib == "jax":
        import jax.numpy as jnp

        return jnp.concatenate(list(arrays), axis=0)
    return np.ascontiguousarray(np.concatenate(list(arrays), axis=0))


def stack(arrays: Sequence[Any]) -> Any:
    """The arrays stacked along a new first axis, in their library."""
    lib = library(arrays[0])
    if lib == "torch":
        import torch

        return torch.stack(list(arrays), dim=0).contiguous()
    if lib == "jax":
        import jax.numpy as jnp

        return jnp.stack(list(arrays), axis=0)
    return np.ascontiguousarray(np.stack(list(arrays), axis=0))


def to_library(table: np.ndarray, like: Any) -> Any:
    """``table`` (numpy) as an array of ``like``'s library, on its device."""
    lib = library(like)
    if lib == "torch":
        import torch

        return torch.from_numpy(table).to(like.device)
    if lib == "jax":
        import jax.numpy as jnp

        return jnp.asarray(table)
    return table


def zeros(like: Any, shape: tuple[int, ...]) -> Any:
    """A zero array of ``shape`` with ``like``'s library, dtype and device."""
    lib = library(like)
    if lib == "torch":
        import torch

        return torch.zeros(shape, dtype=like.dtype, device=like.device)
    if lib == "jax":
        import jax.numpy as jnp

        return jnp.zeros(shape, dtype=like.dtype)
    return np.zeros(shape, dtype=like.dtype)


def split(out: Any, rows: Sequence[int]) -> list[Any]:
    """``out`` cut row-wise into consecutive blocks of ``rows[i]`` rows."""
    parts, start = [], 0
    for m in rows:
        parts.append(out[start : start + m])
        start += m
    return parts
