"""Where each element of an ``mma`` fragment lives: the PTX ISA's fragment layouts as tables.

The PTX ISA ("Matrix fragments for mma.m*n*k*") gives, for every shape and element width,
the row and column of element ``i`` of each operand held by lane ``%laneid``, in terms of
``groupID = %laneid >> 2`` and ``threadID_in_group = %laneid % 4``. A :class:`Fragment`
holds those answers for all 32 lanes at once, so an executor gathers a whole warp's
fragments into matrices with one fancy-indexing step (and scatters results back the same
way).

Elements are numbered in register order: element ``i`` is in register ``i // p`` at bits
``(i % p) * w`` upward, ``p = 32 // w`` elements of ``w`` bits per 32-bit register (one per
register for ``.tf32`` and ``.f64``). The dense shapes other than ``m8n8k4`` on ``.f16``
share one scheme:

* A (``M x K``): register ``r`` holds rows ``groupID + 8 * (r & 1)`` and columns
  ``(r >> 1) * 4p + threadID_in_group * p + j``;
* B (``K x N``): register ``r`` holds rows ``r * 4p + threadID_in_group * p + j`` of column
  ``groupID``;
* C and D (``M x N``): element ``i`` is at row ``groupID + 8 * (i >> 1)``, column
  ``threadID_in_group * 2 + (i & 1)``.

``m8n8k4`` on ``.f16`` is Volta's quad-pair layout: the warp computes four independent
``8x8x4`` products, quad-pair ``q`` being lanes ``4q..4q+3`` and ``4q+16..4q+19``;
:attr:`Fragment.group` says which product an element belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "Fragment",
    "a_fragment",
    "accumulator_fragment",
    "b_fragment",
    "quad_pair_a",
    "quad_pair_accumulator",
    "quad_pair_b",
]

_LANE = np.arange(32, dtype=np.int64)[:, None]
_GROUP = _LANE >> 2
_THREAD = _LANE & 3


@dataclass(frozen=True)
class Fragment:
    """Matrix coordinates of every element of one operand, for all 32 lanes of a warp.

    Attributes:
        group: ``(32, e)``: which of the warp's independent products (0 but for ``m8n8k4``).
        row: ``(32, e)``: the element's row.
        col: ``(32, e)``: the element's column.
        groups: how many independent products the warp computes.
        rows: rows of the operand matrix.
        cols: columns of the operand matrix.
    """

    group: np.ndarray
    row: np.ndarray
    col: np.ndarray
    groups: int
    rows: int
    cols: int

    @property
    def elements(self) -> int:
        """Elements per lane."""
        return int(self.row.shape[1])

    def flat(self) -> np.ndarray:
        """``(32 * e,)`` flat indices into a ``(groups, rows, cols)`` matrix, lane-major."""
        index = (self.group * self.rows + self.row) * self.cols + self.col
        return index.reshape(-1)


def _fragment(row: np.ndarray, col: np.ndarray, rows: int, cols: int) -> Fragment:
    row, col = np.broadcast_arrays(row, col)
    zero = np.zeros_like(row)
    return Fragment(zero, row.copy(), col.copy(), 1, rows, cols)


def a_fragment(m: int, k: int, bits: int) -> Fragment:
    """The A fragment of a dense ``m x k`` multiplicand of ``bits``-bit elements.

    Args:
        m: rows (8 or 16).
        k: columns.
        bits: element width (64 for ``.f64``, 32 for ``.tf32``, 16, 8, 4 or 1).
    """
    per = max(1, 32 // bits)
    regs = m * k // 32 // per
    e = np.arange(regs * per, dtype=np.int64)[None, :]
    r, j = e // per, e % per
    row = _GROUP + 8 * (r & 1)
    col = (r >> 1) * 4 * per + _THREAD * per + j
    return _fragment(row, col, m, k)


def b_fragment(k: int, n: int, bits: int) -> Fragment:
    """The B fragment of a dense ``k x n`` multiplicand (``n = 8``) of ``bits``-bit elements."""
    per = max(1, 32 // bits)
    regs = k * n // 32 // per
    e = np.arange(regs * per, dtype=np.int64)[None, :]
    r, j = e // per, e % per
    row = r * 4 * per + _THREAD * per + j
    return _fragment(row, np.broadcast_to(_GROUP, row.shape), k, n)


def accumulator_fragment(m: int, n: int) -> Fragment:
    """The C/D fragment of an ``m x n`` accumulator (``n = 8``), one element per lane-slot."""
    e = np.arange(m * n // 32, dtype=np.int64)[None, :]
    row = _GROUP + 8 * (e >> 1)
    col = _THREAD * 2 + (e & 1)
    return _fragment(row, col, m, n)


# ------------------------------------------------------------------ m8n8k4 on .f16

_QP = (_LANE >> 2) & 3
"""The quad-pair of each lane."""
_HIGH = _LANE >> 4
"""1 for the upper half of the quad-pair (lanes 16..31)."""


def _quad(row: np.ndarray, col: np.ndarray, rows: int, cols: int) -> Fragment:
    row, col = np.broadcast_arrays(row, col)
    group = np.broadcast_to(_QP, row.shape)
    return Fragment(group.copy(), row.copy(), col.copy(), 4, rows, cols)


def quad_pair_a(layout: str) -> Fragment:
    """A of ``mma.m8n8k4`` on ``.f16`` (8x4 per quad-pair, four elements per lane).

    ``.row``: a lane holds row ``%laneid % 4`` (``+ 4`` in the upper half) along K;
    ``.col``: column ``%laneid % 4`` along M.
    """
    e = np.arange(4, dtype=np.int64)[None, :]
    if layout == "row":
        return _quad(_THREAD + 4 * _HIGH, e, 8, 4)
    return _quad(e + 4 * _HIGH, _THREAD, 8, 4)


def quad_pair_b(layout: str) -> Fragment:
    """B of ``mma.m8n8k4`` on ``.f16`` (4x8 per quad-pair, four elements per lane).

    ``.row``: a lane holds row ``%laneid % 4`` along N (columns ``+ 4`` in the upper half);
    ``.col``: column ``%laneid % 4`` (``+ 4`` in the upper half) along K.
    """
    e = np.arange(4, dtype=np.int64)[None, :]
    if layout == "row":
        return _quad(_THREAD, e + 4 * _HIGH, 4, 8)
    return _quad(e, _THREAD + 4 * _HIGH, 4, 8)


def quad_pair_accumulator(bits: int) -> Fragment:
    """C/D of ``mma.m8n8k4`` on ``.f16`` (8x8 per quad-pair, eight elements per lane).

    With ``.f16`` accumulators a lane holds one row (``%laneid % 4``, ``+ 4`` in the upper
    half); with ``.f32`` the ISA's interleaved layout: row ``X = (%laneid % 2) + (i & 2)``
    (``+ 4`` in the upper half), column ``(i & 4) + (%laneid & 2) + (i & 1)``.
    """
    e = np.arange(8, dtype=np.int64)[None, :]
    if bits == 16:
        return _quad(_THREAD + 4 * _HIGH, e, 8, 8)
    row = (_LANE & 1) + (e & 2) + 4 * _HIGH
    col = (e & 4) + (_LANE & 2) + (e & 1)
    return _quad(row, col, 8, 8)
