"""256-bin byte histogram with shared-memory privatization and atomics (sm_120a).

Every CTA keeps a private histogram of 256 ``u32`` counters in shared memory:

1. each of the 256 threads zeroes one counter, then ``bar.sync 0``;
2. a grid-stride ``ptx.range_`` loop reads the input four bytes at a time
   (``ld.global.nc.u32``) and extracts each byte with ``bfe.u32``. The atomics are
   warp-aggregated: ``match.any.sync`` finds the lanes holding the same byte, the lowest of
   them (no peer in ``%lanemask_lt``) adds their number (``popc``) with one
   ``red.shared.add.u32`` (a fire-and-forget atomic: no old value is returned). Lanes leave
   the loop at different trip counts, so the member mask is ``activemask``, not ``-1``;
3. after a second ``bar.sync 0`` each thread adds one non-zero counter to the global
   histogram with ``red.global.add.u32``.

Contention on hot bins stays inside the warp and the SM; global memory sees at most 256
atomics per CTA. ``hist`` must be zeroed before the launch; ``n`` (the byte count) must be a
multiple of 4.
"""

from pyptx import Tile, kernel, ptx, reg, smem
from pyptx.types import u8, u32, u64

BINS = 256
BLOCK = BINS  # one counter per thread when zeroing and flushing
GRID = 188  # 1 CTA per SM on an RTX PRO 6000 Blackwell; any value works


@kernel(
    in_specs=(Tile("N", u8),),
    out_specs=(Tile(BINS, u32),),
    raw_params=[("u32", "n")],
    grid=(GRID, 1, 1),
    block=(BLOCK, 1, 1),
    arch="sm_120a",
)
def histogram(data, hist):
    pdata, phist = data.ptr(), hist.ptr()
    n = ptx.param("n")
    words = n >> 2

    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    bins = smem.alloc(u32, BINS, name="bins")
    base = smem.base(bins)
    my_bin = reg.scalar(u32)
    ptx.mad(my_bin, tid, 4, base, mode="lo")  # this thread's counter

    ptx.st(ptx.addr(my_bin), 0, space="shared", ty=u32)
    ptx.bar.sync(0)

    below = reg.from_(ptx.special.lanemask_lt(), u32)
    first = reg.scalar(u32)
    ptx.mad(first, cta, BLOCK, tid, mode="lo")
    for w in ptx.range_(first, words, GRID * BLOCK):
        offset = reg.scalar(u64)
        ptx.mul(offset, w, 4, mode="wide")
        word = reg.scalar(u32)
        ptx.ld(word, ptx.addr(pdata + offset), space="global", nc=True)
        active = reg.scalar(u32)
        ptx.activemask(active)
        for k in range(4):
            byte, peers, slot = reg.scalar(u32), reg.scalar(u32), reg.scalar(u32)
            ptx.bfe(byte, word, 8 * k, 8)
            ptx.match.sync(peers, byte, active, mode="any")
            first_peer = (peers & below) == 0
            count = reg.scalar(u32)
            ptx.popc(count, peers)
            ptx.mad(slot, byte, 4, base, mode="lo")
            ptx.red(ptx.addr(slot), count, op="add", space="shared", pred=first_peer)
    ptx.bar.sync(0)

    count = reg.scalar(u32)
    ptx.ld(count, ptx.addr(my_bin), space="shared")
    with ptx.if_(count != 0):
        out = reg.scalar(u64)
        ptx.mul(out, tid, 4, mode="wide")
        ptx.red(ptx.addr(phist + out), count, op="add", space="global")


if __name__ == "__main__":
    print(histogram.ptx(), end="")
