"""TMA store epilogue: f32 -> bf16 cast staged in swizzled smem, written by one TMA (sm_90a).

Each CTA converts one 64 x 64 tile:

1. every thread reads four runs of eight f32 (``ld.global.nc.v4.f32``), packs them into
   ``bf16x2`` with ``cvt.rn[.relu].bf16x2.f32`` and writes 16 bytes to the staging tile with
   ``st.shared.v4.b32``, at the 128B-swizzled position the tensor map expects
   (``smem.apply_swizzle``);
2. ``fence.proxy.async.shared::cta`` makes those generic-proxy writes visible to the async
   proxy (TMA), and ``bar.sync 0`` waits for every thread's writes and fence;
3. thread 0 issues ``cp.async.bulk.tensor.2d.global.shared::cta.bulk_group``, commits the
   bulk group and waits with ``cp.async.bulk.wait_group.read 0`` until the TMA has finished
   reading shared memory, which must not be released (the CTA must not exit) before that.

``relu`` is a template parameter: ``tma_store_cast.ptx(ROWS=..., COLS=..., relu=True)``
emits the ``.relu`` form of every ``cvt`` and nothing else changes.
"""

from pyptx import Layout, Tile, kernel, ptx, reg, smem
from pyptx.types import bf16, bf16x2, f32, u32, u64

SHAPE = {"ROWS": 4096, "COLS": 4096}  # the size the snapshot is traced at; multiples of BOX
BOX = 64
THREADS = 128
CHUNKS = BOX * BOX * 2 // 16 // THREADS  # 16-byte bf16 chunks per thread


@kernel(
    in_specs=(Tile("ROWS", "COLS", f32),),
    out_specs=(Tile("ROWS", "COLS", bf16, layout=Layout.TMA_128B, tma_box=(BOX, BOX)),),
    grid=lambda ROWS, COLS: (COLS // BOX, ROWS // BOX, 1),
    block=(THREADS, 1, 1),
    arch="sm_90a",
)
def tma_store_cast(x, y, *, relu=False):
    cols = x.shape[1]
    px, desc = x.ptr(), y.tma_desc()
    tile = smem.alloc(bf16, (BOX, BOX), swizzle="128B", align=1024, name="staging")
    tid = reg.from_(ptx.special.tid.x(), u32)
    row0 = reg.from_(ptx.special.ctaid.y(), u32) << 6
    col0 = reg.from_(ptx.special.ctaid.x(), u32) << 6

    # Chunk j: tile row tid / 8 + 16 * j, bf16 columns 8 * (tid % 8) .. + 7.
    in_row, in_col = reg.scalar(u32), reg.scalar(u32)
    ptx.add(in_row, row0, tid >> 3)
    ptx.mad(in_col, tid & 7, 8, col0, mode="lo")
    elem, src = reg.scalar(u32), reg.scalar(u64)
    ptx.mad(elem, in_row, cols, in_col, mode="lo")
    ptx.mad(src, elem, 4, px, mode="wide")
    dst = smem.apply_swizzle(tid << 4, "128B") + smem.base(tile)

    for j in range(CHUNKS):
        row_off = j * (THREADS // 8) * cols * 4
        vals = reg.array(f32, 8)
        ptx.ld(tuple(vals[:4]), ptx.addr(src, row_off), space="global", nc=True)
        ptx.ld(tuple(vals[4:]), ptx.addr(src, row_off + 16), space="global", nc=True)
        packed = reg.array(bf16x2, 4)
        for k, p in enumerate(packed):
            # the upper half holds the odd element: little-endian order in memory
            ptx.cvt(p, vals[2 * k + 1], vals[2 * k], rnd="rn", relu=relu)
        ptx.st(ptx.addr(dst, j * THREADS * 16), tuple(packed), space="shared")

    ptx.fence.proxy.async_("shared::cta")
    ptx.bar.sync(0)
    with ptx.if_(tid == 0):
        ptx.cp.async_.bulk.tensor.store(desc, (col0, row0), tile)
        ptx.cp.async_.bulk.commit_group()
        ptx.cp.async_.bulk.wait_group(0, read=True)


if __name__ == "__main__":
    print(tma_store_cast.ptx(**SHAPE), end="")
