"""Sets of threads that execute an instruction together."""

from __future__ import annotations

import numpy as np

__all__ = ["WARP", "Lanes"]

WARP = 32
"""Threads per warp."""


class Lanes:
    """The threads (wave lanes) one instruction runs on, in increasing order.

    Per-thread arrays of the machine (registers, thread indices) are indexed with
    :attr:`sel`: a plain slice when every lane of the wave is present (no copy), else the
    index array.

    Attributes:
        idx: the wave lane indices (sorted ``int64``).
        sel: what to index per-thread arrays with.
        n: how many lanes.
        full: whether these are all the lanes of the wave.
    """

    __slots__ = ("_nwarps", "_warps", "full", "idx", "n", "sel")

    def __init__(self, idx: np.ndarray, total: int) -> None:
        self.idx = idx
        self.n = int(idx.shape[0])
        self.full = self.n == total
        self.sel: slice | np.ndarray = slice(None) if self.full else idx
        self._warps: np.ndarray | None = None
        self._nwarps = -1

    def subset(self, mask: np.ndarray, total: int) -> Lanes:
        """The lanes where ``mask`` (one bool per lane) is true."""
        return Lanes(self.idx[mask], total)

    @property
    def warps(self) -> np.ndarray:
        """The distinct wave warp indices among these lanes."""
        if self._warps is None:
            # idx is sorted, so its warps are too: keep each first occurrence (linear time).
            w = self.idx // WARP
            first = np.ones(w.shape[0], dtype=bool)
            first[1:] = w[1:] != w[:-1]
            self._warps = w[first]
        return self._warps

    @property
    def nwarps(self) -> int:
        """How many distinct warps these lanes belong to."""
        if self._nwarps < 0:
            self._nwarps = int(self.warps.shape[0])
        return self._nwarps

    def __repr__(self) -> str:
        return f"<Lanes n={self.n} warps={self.nwarps}>"
