"""Row softmax over rows of ``COLS`` floats, one warp per row (sm_100a).

``y[r, :] = exp(x[r, :] - max(x[r, :])) / sum(exp(x[r, :] - max(x[r, :])))``

Each lane keeps ``COLS / 32`` values in registers (eight coalesced ``ld.global.nc.v4.f32``:
chunk ``c`` of the row is 512 contiguous bytes read by the whole warp). Two Blackwell
instructions shorten the reductions:

* ``max.f32 d, a, b, c`` takes three inputs (sm_100, PTX 8.8), halving the local max chain;
* ``redux.sync.max.f32`` reduces the row maximum across the warp in one instruction
  (sm_100a) instead of five shuffle steps.

``exp`` is computed as ``ex2.approx.ftz.f32((x - max) * log2(e))`` with a single ``fma``; the
row sum still needs a shuffle tree (``ptx.warp_reduce_sum``; ``redux.sync`` has no float add).
A CTA of 128 threads handles 4 consecutive rows, so M must be a multiple of 4.
"""

import math

from pyptx import Tile, kernel, ptx, reg
from pyptx.types import f32, u32, u64

COLS = 1024
ROWS_PER_CTA = 4
VEC = 4
CHUNKS = COLS // (32 * VEC)
LOG2E = math.log2(math.e)


@kernel(
    in_specs=(Tile("M", COLS, f32),),
    out_specs=(Tile("M", COLS, f32),),
    grid=lambda M: (M // ROWS_PER_CTA, 1, 1),
    block=(32 * ROWS_PER_CTA, 1, 1),
    arch="sm_100a",
)
def softmax(x, y):
    px, py = x.ptr(), y.ptr()
    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    lane, warp = tid & 31, tid >> 5
    row = reg.scalar(u32)
    ptx.mad(row, cta, ROWS_PER_CTA, warp, mode="lo")

    offset, lane_off = reg.scalar(u64), reg.scalar(u64)
    ptx.mul(offset, row, COLS * 4, mode="wide")
    ptx.mul(lane_off, lane, VEC * 4, mode="wide")
    ptx.add(offset, offset, lane_off)
    src, dst = px + offset, py + offset

    vals = [reg.array(f32, VEC) for _ in range(CHUNKS)]
    for c, v in enumerate(vals):
        ptx.ld(tuple(v), ptx.addr(src, c * 32 * VEC * 4), space="global", nc=True)
    flat = [e for v in vals for e in v]

    # Row maximum: three-input max.f32 locally, then redux.sync across the warp.
    row_max = reg.scalar(f32)
    ptx.max(row_max, flat[0], flat[1], flat[2])
    rest = flat[3:]
    while len(rest) >= 2:
        ptx.max(row_max, row_max, rest[0], rest[1])
        rest = rest[2:]
    for e in rest:
        ptx.max(row_max, row_max, e)
    ptx.redux.sync(row_max, row_max, 0xFFFFFFFF, op="max")

    # e = 2^(x * log2(e) - max * log2(e)), summed per lane, then across the warp.
    shift = reg.scalar(f32)
    ptx.mul(shift, row_max, -LOG2E)
    local_sum = reg.scalar(f32, 0.0)
    for e in flat:
        ptx.fma(e, e, LOG2E, shift, rnd="rn")
        ptx.ex2(e, e, ftz=True)
        ptx.add(local_sum, local_sum, e)
    row_sum = ptx.warp_reduce_sum(local_sum)
    inv = reg.scalar(f32)
    ptx.rcp(inv, row_sum, approx=True, ftz=True)

    for c, v in enumerate(vals):
        for e in v:
            ptx.mul(e, e, inv)
        ptx.st(ptx.addr(dst, c * 32 * VEC * 4), tuple(v), space="global")


if __name__ == "__main__":
    print(softmax.ptx(), end="")
