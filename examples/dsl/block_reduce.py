"""Sum of a float vector: grid-stride loads, a block reduction, one atomic per CTA (sm_80).

Each thread first sums its share of ``x`` in a register (a grid-stride ``ptx.range_`` loop).
The CTA then reduces the ``BLOCK`` partial sums in two levels:

1. inside each warp with ``ptx.warp_reduce_sum`` (five ``shfl.sync.bfly`` + ``add`` pairs);
2. lane 0 of every warp writes its warp's total to shared memory, ``bar.sync 0`` makes the
   writes visible, and warp 0 reduces the ``BLOCK / 32`` totals with a width-8 shuffle tree.

Thread 0 finally adds the CTA's total to ``out[0]`` with ``red.global.add.f32``; ``out`` must
be zeroed before the launch. The two-level reduction is an ``@intrinsic``, so its instructions
are bracketed by ``// begin block_sum`` / ``// end block_sum`` comments in the PTX.
"""

from pyptx import Tile, intrinsic, kernel, ptx, reg, smem
from pyptx.types import f32, u32, u64

GRID = 264
BLOCK = 256
WARPS = BLOCK // 32


@intrinsic
def block_sum(value, tid):
    """Sum ``value`` over the CTA; the result is valid in warp 0."""
    partials = smem.alloc(f32, WARPS, name="warp_totals")
    lane = tid & 31
    warp = tid >> 5
    warp_total = ptx.warp_reduce_sum(value)
    base = smem.base(partials)
    with ptx.if_(lane == 0):
        ptx.st(ptx.addr(base + (warp << 2)), warp_total, space="shared")
    ptx.bar.sync(0)
    # Warp 0: lanes 0..WARPS-1 pick up one warp total each, the other lanes contribute 0.
    mine = reg.scalar(f32, 0.0)
    has_total = tid < WARPS
    ptx.ld(mine, ptx.addr(base + (lane << 2)), space="shared", pred=has_total)
    return ptx.warp_reduce_sum(mine, width=WARPS)


@kernel(
    in_specs=(Tile("N", f32),),
    out_specs=(Tile(1, f32),),
    raw_params=[("u32", "n")],
    grid=(GRID, 1, 1),
    block=(BLOCK, 1, 1),
    arch="sm_80",
)
def reduce_sum(x, out):
    px, pout = x.ptr(), out.ptr()
    n = ptx.param("n")
    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    first = reg.scalar(u32)
    ptx.mad(first, cta, BLOCK, tid, mode="lo")

    acc = reg.scalar(f32, 0.0)
    for i in ptx.range_(first, n, GRID * BLOCK):
        offset = reg.scalar(u64)
        ptx.mul(offset, i, 4, mode="wide")
        v = reg.scalar(f32)
        ptx.ld(v, ptx.addr(px + offset), space="global", nc=True)
        ptx.add(acc, acc, v)

    total = block_sum(acc, tid)
    with ptx.if_(tid == 0):
        ptx.red(ptx.addr(pout), total, op="add", space="global")


if __name__ == "__main__":
    print(reduce_sum.ptx(), end="")
