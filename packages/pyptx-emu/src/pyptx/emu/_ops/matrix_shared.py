"""``ldmatrix``, ``stmatrix`` and ``movmatrix``: matrices between shared memory and fragments.

``.m8n8 .b16`` (all three): matrix ``j`` of ``.xN`` is 8 rows of 16 bytes; row ``r`` starts
at the address held by lane ``8j + r`` (the other lanes' addresses are not used). In the
register fragment, lane ``L`` holds in register ``j`` the elements at row ``L >> 2``,
columns ``2 * (L % 4)`` (low half) and ``2 * (L % 4) + 1`` (high half); ``.trans`` swaps
row and column (the fragment holds the transpose of the matrix in memory). ``movmatrix``
transposes such a fragment in registers.

The sm_100 8-bit forms, derived from the PTX ISA's figures (and checked against CUTLASS's
``SM100_U8x8_LDSM_T``/``SM100_U8x4_STSM_T`` layouts):

* ``ldmatrix.m16n16.trans.b8``: matrix ``j`` is 16 rows of 16 bytes, row ``r`` at the
  address of lane ``16j + r``; byte ``b`` of register ``2j + h`` of lane ``L`` holds the
  byte at row ``4 * (L % 4) + b``, column ``(L >> 2) + 8h`` (4 consecutive columns across 2
  rows of the transposed matrix).
* ``stmatrix.m16n8.trans.b8``: matrix ``j`` is 8 rows of 16 bytes, row ``r`` at the address
  of lane ``8j + r``; byte ``q`` of register ``j`` of lane ``L`` goes to row
  ``2 * (L % 4) + (q & 1)``, column ``(L >> 2) + 8 * (q >> 1)``.

Row addresses must be 16-byte aligned and (for generic addresses) in shared memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .._errors import EmuError, Fault, NotEmulated
from .._lanes import WARP, Lanes
from .._machine import YIELD, Executor
from .._memory import WINDOW_SHIFT, WINDOWS, Space
from .._site import Site
from .matrix_common import aligned

__all__ = ["ldmatrix", "movmatrix", "stmatrix"]

_LANE = np.arange(WARP, dtype=np.int64)
_G = _LANE >> 2
_T = _LANE & 3

# .m8n8 .b16: lane L, half e -> (row, col) in the 8x8 matrix.
_ROW16 = np.broadcast_to(_G[:, None], (WARP, 2))
_COL16 = 2 * _T[:, None] + np.arange(2)[None, :]

# ldmatrix .m16n16 .trans .b8: lane L, register half h, byte b -> (memory row, memory col).
_H = np.arange(2)[None, :, None]
_B = np.arange(4)[None, None, :]
_LD8_ROW = np.broadcast_to(4 * _T[:, None, None] + _B, (WARP, 2, 4))
_LD8_COL = np.broadcast_to(_G[:, None, None] + 8 * _H, (WARP, 2, 4))

# stmatrix .m16n8 .trans .b8: lane L, byte q -> (memory row, memory col).
_Q = np.arange(4)[None, :]
_ST8_ROW = 2 * _T[:, None] + (_Q & 1)
_ST8_COL = _G[:, None] + 8 * (_Q >> 1)

_SHARED_WINDOW = WINDOWS[Space.SHARED]


def _count(site: Site) -> int:
    num = site.slot("num") or "x1"
    return int(num[1:])


def _space(site: Site) -> Space:
    space = site.space()
    return Space.SHARED if space is not Space.GENERIC else Space.GENERIC


def _rows(
    m: Any, site: Site, lanes: Lanes, space: Space, addr: np.ndarray, count: int
) -> tuple[np.ndarray, np.ndarray]:
    """The first ``count`` lanes' addresses of each warp, and those lanes (flattened)."""
    w = lanes.n // WARP
    a = addr.reshape(w, WARP)[:, :count].reshape(-1)
    who = lanes.idx.reshape(w, WARP)[:, :count].reshape(-1)
    if space is Space.GENERIC:
        bad = (a >> np.uint64(WINDOW_SHIFT)) != _SHARED_WINDOW
        if bad.any():
            i = int(np.argmax(bad))
            raise Fault(
                EmuError,
                f"{site.mnemonic} needs shared-memory row addresses, but {int(a[i]):#x} is not"
                " in the shared window of the generic address space (the PTX ISA leaves"
                " that undefined); convert it with cvta.shared or use .shared",
                lane=int(who[i]),
                address=int(a[i]),
                space="generic",
            )
    return a, who


def ldmatrix(site: Site) -> Executor:
    """``ldmatrix.sync.aligned.shape.num{.trans}{.ss}.type d, [p]`` (module docstring)."""
    if site.slot("dst_fmt") is not None:
        raise NotEmulated(
            f"{site.mnemonic}: the .b8x16 decompressing forms are not emulated (where the"
            " PTX ISA puts each 6- or 4-bit element in its byte is not checked here)"
        )
    shape = site.slot("shape")
    count = _count(site)
    trans = site.has("trans")
    space = _space(site)
    addr = site.addr("p")
    if shape == "m8n8":
        d = site.vec_dst("d", PtxType.B32)
        rows_idx, cols_idx = (_COL16, _ROW16) if trans else (_ROW16, _COL16)

        def run16(m: Any, lanes: Lanes) -> Any:
            if not aligned(m, site, lanes):
                return YIELD
            w = lanes.n // WARP
            a, who = _rows(m, site, lanes, space, addr(m, lanes), 8 * count)
            mats = m.mem.load(space, a, who, 2, 8).reshape(w, count, 8, 8)
            out = mats[:, :, rows_idx, cols_idx]  # (w, count, 32, 2)
            regs = np.ascontiguousarray(out.transpose(0, 2, 1, 3)).view(np.uint32)
            d(m, lanes, regs.reshape(w * WARP, count))
            return None

        return run16
    if shape == "m16n16" and site.slot("type") == "b8":
        d8 = site.vec_dst("d", PtxType.B32)

        def run8(m: Any, lanes: Lanes) -> Any:
            if not aligned(m, site, lanes):
                return YIELD
            w = lanes.n // WARP
            a, who = _rows(m, site, lanes, space, addr(m, lanes), 16 * count)
            mats = m.mem.load(space, a, who, 1, 16).reshape(w, count, 16, 16)
            out = mats[:, :, _LD8_ROW, _LD8_COL]  # (w, count, 32, 2, 4)
            regs = np.ascontiguousarray(out.transpose(0, 2, 1, 3, 4)).view(np.uint32)
            d8(m, lanes, regs.reshape(w * WARP, 2 * count))
            return None

        return run8
    raise NotEmulated(f"{site.mnemonic}: this ldmatrix form is not emulated")


def stmatrix(site: Site) -> Executor:
    """``stmatrix.sync.aligned.shape.num{.trans}{.ss}.type [p], r`` (module docstring)."""
    shape = site.slot("shape")
    count = _count(site)
    trans = site.has("trans")
    space = _space(site)
    addr = site.addr("p")
    r = site.vec_src("r", PtxType.B32)
    if shape == "m8n8":
        rows_idx, cols_idx = (_COL16, _ROW16) if trans else (_ROW16, _COL16)
        elem, per = np.uint16, 2
    elif shape == "m16n8":
        rows_idx, cols_idx = _ST8_ROW, _ST8_COL
        elem, per = np.uint8, 4
    else:
        raise NotEmulated(f"{site.mnemonic}: this stmatrix form is not emulated")
    width = 16 // np.dtype(elem).itemsize

    def run(m: Any, lanes: Lanes) -> Any:
        if not aligned(m, site, lanes):
            return YIELD
        w = lanes.n // WARP
        a, who = _rows(m, site, lanes, space, addr(m, lanes), 8 * count)
        regs = np.ascontiguousarray(r(m, lanes).astype(np.uint32))
        parts = regs.view(elem).reshape(w, WARP, count, per).transpose(0, 2, 1, 3)
        mats = np.zeros((w, count, 8, width), dtype=elem)
        mats[:, :, rows_idx, cols_idx] = parts
        m.mem.store(space, a, who, mats.reshape(w * count * 8, width))
        m.touch()
        return None

    return run


def movmatrix(site: Site) -> Executor:
    """``movmatrix.sync.aligned.m8n8.trans.b16 d, a``: transpose an 8x8 fragment."""
    a = site.src("a", PtxType.B32)
    d = site.dst("d", PtxType.B32)
    # d[L, e] = M[2 * (L % 4) + e][L >> 2]; M[r][c] sits in lane 4r + c // 2, half c % 2.
    src_row = _COL16
    src_col = _ROW16
    src_lane = 4 * src_row + (src_col >> 1)
    src_half = src_col & 1

    def run(m: Any, lanes: Lanes) -> Any:
        if not aligned(m, site, lanes):
            return YIELD
        w = lanes.n // WARP
        halves = np.ascontiguousarray(a(m, lanes).astype(np.uint32)).view(np.uint16)
        halves = halves.reshape(w, WARP, 2)
        out = np.ascontiguousarray(halves[:, src_lane, src_half]).view(np.uint32)
        d(m, lanes, out.reshape(w * WARP))
        return None

    return run
