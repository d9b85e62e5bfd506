"""Accumulator fragment orders: which ``(row, col)`` of the tile each register holds.

Pure Python (no instruction, no trace needed): use them at trace time to address an
epilogue (the offsets are Python ints that become immediates), and in tests to scatter a
kernel's raw registers back into a matrix.

The orders are the PTX ISA's:

* ``mma.sync`` m16n8k* (f32/s32 accumulators, 4 registers per lane): lane ``l`` holds rows
  ``l/4`` and ``l/4 + 8``, columns ``2*(l%4)`` and ``+1``:
  ``c[i]`` is ``(l/4 + 8*(i/2), 2*(l%4) + i%2)``.
* ``wgmma`` m64nN (f32/s32 accumulators, N/2 registers per thread of the warpgroup): warp
  ``w = t/32`` owns rows ``16w .. 16w+15``; with lane ``l = t%32``, ``d[i]`` is
  ``(16w + l/4 + 8*((i%4)/2), 8*(i/4) + 2*(l%4) + i%2)``. An f16 accumulator packs
  elements ``2j`` and ``2j+1`` of that order into register ``j``.
* ``tcgen05.ld.32x32b.xN`` of an M=128 (``cta_group::1``) accumulator: thread ``t`` of the
  warpgroup reads TMEM lane ``t`` = row ``t``; register ``i`` is column ``col0 + i``.
"""

from __future__ import annotations

from ..dsl.errors import PtxDslError

__all__ = [
    "mma_acc_base",
    "mma_acc_coords",
    "mma_acc_offsets",
    "tcgen05_acc_coords",
    "wgmma_acc_base",
    "wgmma_acc_coords",
    "wgmma_acc_offsets",
]

Coord = tuple[int, int]


def _index(what: str, value: object, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < high:
        raise PtxDslError(f"{what} must be an int in [0, {high}), got {value!r}")
    return value


def _wgmma_n(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 8 <= n <= 256 or n % 8:
        raise PtxDslError(f"wgmma N must be an int in 8..256, a multiple of 8; got {n!r}")
    return n


def _mma_shape(shape: object) -> None:
    if not isinstance(shape, str) or not shape.startswith("m16n8k"):
        raise PtxDslError(f"mma accumulator orders are given for the m16n8k* shapes, got {shape!r}")


def wgmma_acc_base(thread: int) -> Coord:
    """``(row, col)`` of register 0 for ``thread`` (0..127) of the warpgroup.

    ``(16*(t//32) + (t%32)//4, 2*(t%4))``; in a kernel: ``row = (warp << 4) + (lane >> 2)``,
    ``col = (lane & 3) << 1``.
    """
    t = _index("wgmma thread", thread, 128)
    return 16 * (t // 32) + (t % 32) // 4, 2 * (t % 4)


def wgmma_acc_offsets(n: int) -> tuple[Coord, ...]:
    """``(drow, dcol)`` of each of the ``n/2`` registers from :func:`wgmma_acc_base`.

    Register ``i`` is ``(8*((i%4)//2), 8*(i//4) + i%2)``: the same for every thread, so an
    epilogue adds them as immediates.
    """
    count = _wgmma_n(n) // 2
    return tuple((8 * ((i % 4) // 2), 8 * (i // 4) + i % 2) for i in range(count))


def wgmma_acc_coords(n: int, thread: int) -> tuple[Coord, ...]:
    """``(row, col)`` in the 64 x ``n`` tile of each accumulator register of ``thread``.

    Args:
        n: the wgmma N (8..256, a multiple of 8).
        thread: the thread's index in its warpgroup (0..127).

    Returns:
        ``n/2`` coordinates, register 0 first (the order of ``reg.wgmma_frag(n)``).
    """
    r0, c0 = wgmma_acc_base(thread)
    return tuple((r0 + dr, c0 + dc) for dr, dc in wgmma_acc_offsets(n))


def mma_acc_base(lane: int) -> Coord:
    """``(row, col)`` of register 0 of an m16n8 accumulator for ``lane``: ``(l//4, 2*(l%4))``."""
    ln = _index("mma lane", lane, 32)
    return ln // 4, 2 * (ln % 4)


def mma_acc_offsets(shape: str = "m16n8k16") -> tuple[Coord, ...]:
    """``(drow, dcol)`` of the 4 registers ``c0..c3`` from :func:`mma_acc_base`.

    ``((0, 0), (0, 1), (8, 0), (8, 1))`` for every m16n8k* shape (f32/s32 accumulators).
    """
    _mma_shape(shape)
    return tuple((8 * (i // 2), i % 2) for i in range(4))


def mma_acc_coords(shape: str, lane: int) -> tuple[Coord, ...]:
    """``(row, col)`` in the 16 x 8 tile of ``c0..c3`` for ``lane`` (0..31) of the warp."""
    r0, c0 = mma_acc_base(lane)
    return tuple((r0 + dr, c0 + dc) for dr, dc in mma_acc_offsets(shape))


def tcgen05_acc_coords(thread: int, count: int, col0: int = 0) -> tuple[Coord, ...]:
    """``(row, col)`` of the ``count`` registers of one ``tcgen05.ld.sync.aligned.32x32b.x<count>``.

    For an M=128 ``cta_group::1`` accumulator (row ``m`` in TMEM lane ``m``), read by
    ``thread`` (0..127) of the warpgroup from TMEM column ``col0``: ``(thread, col0 + i)``.
    """
    t = _index("tcgen05 thread", thread, 128)
    if isinstance(count, bool) or count not in (1, 2, 4, 8, 16, 32, 64, 128):
        raise PtxDslError(f"tcgen05.ld 32x32b counts are 1..128, powers of two; got {count!r}")
    return tuple((t, col0 + i) for i in range(count))
