"""TMA tile load with an mbarrier transaction count: bf16 -> f32 upcast (sm_90a).

Each CTA copies one 64 x 64 tile of a bf16 matrix into shared memory with a single
``cp.async.bulk.tensor.2d`` (TMA) and writes it back to global memory as f32:

1. thread 0 prefetches the tensor map, initializes the mbarrier for one arrival, and
   ``fence.mbarrier_init`` publishes the initialization before ``bar.sync``;
2. thread 0 announces the 8,192 bytes the copy will deliver
   (``mbarrier.arrive.expect_tx``) and issues the TMA load, which completes the transaction
   count on the same barrier;
3. every thread spins on ``mbarrier.try_wait.parity`` (``ptx.mbarrier.wait``) for phase 0;
4. the tile arrived 128B-swizzled (``Layout.TMA_128B``): chunk ``c`` of row ``r`` sits at
   chunk ``c ^ (r % 8)``, so each thread maps its logical offset through
   ``smem.apply_swizzle`` (three ALU instructions), reads 16 bytes with
   ``ld.shared.v4.b32`` and widens its eight bf16 values. A bf16 is the upper half of an f32,
   so ``shl.b32 16`` / ``and.b32 0xFFFF0000`` convert exactly.

The input is passed as a TMA descriptor (a 128-byte ``.param``) built on the host for the
64 x 64 box; the output is a plain pointer.
"""

from pyptx import Layout, Tile, kernel, ptx, reg, smem
from pyptx.types import b32, bf16, f32, u32, u64

SHAPE = {"ROWS": 4096, "COLS": 4096}  # the size the snapshot is traced at; multiples of BOX
BOX = 64
THREADS = 128
CHUNKS = BOX * BOX * 2 // 16 // THREADS  # 16-byte chunks per thread


@kernel(
    in_specs=(Tile("ROWS", "COLS", bf16, layout=Layout.TMA_128B, tma_box=(BOX, BOX)),),
    out_specs=(Tile("ROWS", "COLS", f32),),
    grid=lambda ROWS, COLS: (COLS // BOX, ROWS // BOX, 1),
    block=(THREADS, 1, 1),
    arch="sm_90a",
)
def tma_upcast(x, y):
    cols = x.shape[1]
    desc, py = x.tma_desc(), y.ptr()
    tile = smem.alloc(bf16, (BOX, BOX), swizzle="128B", align=1024, name="tile")
    full = smem.mbarrier(1, name="full")
    tid = reg.from_(ptx.special.tid.x(), u32)
    row0 = reg.from_(ptx.special.ctaid.y(), u32) << 6
    col0 = reg.from_(ptx.special.ctaid.x(), u32) << 6
    leader = tid == 0

    with ptx.if_(leader):
        ptx.prefetch.tensormap(desc)
        ptx.mbarrier.init(full[0], 1)
        ptx.fence.mbarrier_init()
    ptx.bar.sync(0)
    with ptx.if_(leader):
        ptx.mbarrier.arrive.expect_tx(full[0], BOX * BOX * 2)
        ptx.cp.async_.bulk.tensor(tile, desc, (col0, row0), full[0])  # innermost first
    ptx.mbarrier.wait(full[0], 0)

    # Chunk j of this thread: logical byte offset 16 * (tid + THREADS * j), i.e. row
    # tid / 8 + 16 * j, 16-byte column tid % 8. Adding 2048 * j keeps the row's low three
    # bits, so only j = 0 needs the swizzle.
    src = smem.apply_swizzle(tid << 4, "128B") + smem.base(tile)
    out_row, out_col = reg.scalar(u32), reg.scalar(u32)
    ptx.add(out_row, row0, tid >> 3)
    ptx.mad(out_col, tid & 7, 8, col0, mode="lo")
    elem, dst = reg.scalar(u32), reg.scalar(u64)
    ptx.mad(elem, out_row, cols, out_col, mode="lo")
    ptx.mad(dst, elem, 4, py, mode="wide")
    for j in range(CHUNKS):
        packed = reg.array(b32, 4)  # eight bf16 values
        ptx.ld(tuple(packed), ptx.addr(src, j * THREADS * 16), space="shared")
        wide = reg.array(b32, 8)  # their f32 bit patterns
        for k, p in enumerate(packed):
            ptx.shl(wide[2 * k], p, 16)
            ptx.and_(wide[2 * k + 1], p, 0xFFFF0000)
        row_off = j * (THREADS // 8) * cols * 4
        ptx.st(ptx.addr(dst, row_off), tuple(wide[:4]), space="global")
        ptx.st(ptx.addr(dst, row_off + 16), tuple(wide[4:]), space="global")


if __name__ == "__main__":
    print(tma_upcast.ptx(**SHAPE), end="")
