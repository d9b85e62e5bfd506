"""RMSNorm over rows of ``HIDDEN`` floats: ``y = x * rsqrt(mean(x**2) + eps) * w`` (sm_80).

One CTA of 256 threads normalizes one row. Each thread loads its 16 elements with four
16-byte ``ld.global.nc.v4.f32`` loads and keeps them in registers, so ``x`` is read from
memory once. The sum of squares is reduced inside each warp with shuffles, then across the
eight warps through shared memory: after ``bar.sync`` every thread reads all eight warp totals
(two ``ld.shared.v4.f32``), so no second barrier is needed. ``rsqrt.approx.f32`` gives the
scale, and the weighted result leaves with ``st.global.v4.f32``.

The Python ``for`` loops unroll at trace time (the chunk count is a compile-time constant);
``eps`` is a keyword-only template parameter, so ``rms_norm.ptx(eps=1e-5)`` traces a variant.
"""

from pyptx import Tile, kernel, ptx, reg, smem
from pyptx.types import f32, u32, u64

HIDDEN = 4096
BLOCK = 256
WARPS = BLOCK // 32
VEC = 4  # floats per 16-byte access
CHUNKS = HIDDEN // (BLOCK * VEC)


@kernel(
    in_specs=(Tile("M", HIDDEN, f32), Tile(HIDDEN, f32)),
    out_specs=(Tile("M", HIDDEN, f32),),
    grid=lambda M: (M, 1, 1),
    block=(BLOCK, 1, 1),
    arch="sm_80",
)
def rms_norm(x, w, y, *, eps=1e-6):
    px, pw, py = x.ptr(), w.ptr(), y.ptr()
    tid = reg.from_(ptx.special.tid.x(), u32)
    row = reg.from_(ptx.special.ctaid.x(), u32)

    # Byte offsets: this row, and this thread's first 16-byte chunk within a row.
    row_off, col_off = reg.scalar(u64), reg.scalar(u64)
    ptx.mul(row_off, row, HIDDEN * 4, mode="wide")
    ptx.mul(col_off, tid, VEC * 4, mode="wide")
    x_row = px + row_off + col_off
    y_row = py + row_off + col_off
    w_col = pw + col_off

    # Load the thread's elements; chunk c lies BLOCK * 16 bytes after chunk c - 1.
    vals = [reg.array(f32, VEC) for _ in range(CHUNKS)]
    for c, v in enumerate(vals):
        ptx.ld(tuple(v), ptx.addr(x_row, c * BLOCK * VEC * 4), space="global", nc=True)

    sum_sq = reg.scalar(f32, 0.0)
    for v in vals:
        for e in v:
            ptx.fma(sum_sq, e, e, sum_sq, rnd="rn")

    # Warp totals -> shared memory -> every thread adds the WARPS totals.
    warp_sum = ptx.warp_reduce_sum(sum_sq)
    totals = smem.alloc(f32, WARPS, name="warp_totals")
    lane, warp = tid & 31, tid >> 5
    with ptx.if_(lane == 0):
        slot = smem.base(totals) + (warp << 2)
        ptx.st(ptx.addr(slot), warp_sum, space="shared")
    ptx.bar.sync(0)
    parts = reg.array(f32, WARPS)
    for i in range(0, WARPS, VEC):
        ptx.ld(tuple(parts[i : i + VEC]), totals.addr(i * 4), space="shared")
    total = reg.scalar(f32)
    ptx.add(total, parts[0], parts[1])
    for p in parts[2:]:
        ptx.add(total, total, p)

    # rstd = 1 / sqrt(total / HIDDEN + eps)
    mean_sq = reg.scalar(f32)
    ptx.fma(mean_sq, total, 1.0 / HIDDEN, eps, rnd="rn")
    rstd = reg.scalar(f32)
    ptx.rsqrt(rstd, mean_sq)

    for c, v in enumerate(vals):
        weight = reg.array(f32, VEC)
        offset = c * BLOCK * VEC * 4
        ptx.ld(tuple(weight), ptx.addr(w_col, offset), space="global", nc=True)
        out = reg.array(f32, VEC)
        for o, e, g in zip(out, v, weight, strict=True):
            ptx.mul(o, e, rstd)
            ptx.mul(o, o, g)
        ptx.st(ptx.addr(y_row, offset), tuple(out), space="global")


if __name__ == "__main__":
    print(rms_norm.ptx(), end="")
