"""Matrix transpose through a 128 x 128 shared-memory tile: past the 48 KB static limit (sm_90a).

A CTA of 32 x 8 threads moves one 128 x 128 f32 tile from ``x`` (``ROWS x COLS``) to ``y``
(``COLS x ROWS``); both sizes are multiples of 128, bound when the kernel is traced
(``transpose.ptx(ROWS=..., COLS=...)``). Both global passes are coalesced: warps read rows of
``x`` and write rows of ``y``, and the transposition happens in shared memory. Each tile row
is padded to 129 floats so that reading a tile column touches 32 different banks.

The tile needs 128 * 129 * 4 = 66,048 bytes, more than the 48 KB a kernel may declare
statically. pyptx notices and switches the kernel to dynamic shared memory: the allocation
becomes an offset into ``.extern .shared .align 128 .b8 dyn_smem[]`` and
``transpose.smem_bytes`` tells the launcher how many bytes to request
(``cudaFuncAttributeMaxDynamicSharedMemorySize``). The kernel body is the same either way.

Both passes are ``ptx.range_`` device loops with constant bounds (no guard) that advance
pointer registers by eight rows per iteration.
"""

from pyptx import Tile, kernel, ptx, reg, smem
from pyptx.types import f32, u32, u64

SHAPE = {"ROWS": 8192, "COLS": 8192}  # the size the snapshot is traced at
TILE = 128
PITCH = TILE + 1  # floats per padded tile row
BX, BY = 32, 8


@kernel(
    in_specs=(Tile("ROWS", "COLS", f32),),
    out_specs=(Tile("COLS", "ROWS", f32),),
    grid=lambda ROWS, COLS: (COLS // TILE, ROWS // TILE, 1),
    block=(BX, BY, 1),
    arch="sm_90a",
)
def transpose(x, y):
    rows, cols = x.shape  # multiples of TILE
    px, py = x.ptr(), y.ptr()
    tile = smem.alloc(f32, (TILE, PITCH), name="tile")
    tx = reg.from_(ptx.special.tid.x(), u32)
    ty = reg.from_(ptx.special.tid.y(), u32)
    row0 = reg.from_(ptx.special.ctaid.y(), u32) << 7  # * TILE
    col0 = reg.from_(ptx.special.ctaid.x(), u32) << 7
    base = smem.base(tile)

    # Pass 1: tile[r][c] = x[row0 + r][col0 + c], r = ty + 8 * j.
    src_elem = reg.scalar(u32)
    ptx.mad(src_elem, row0 + ty, cols, col0 + tx, mode="lo")
    src = reg.scalar(u64)
    ptx.mad(src, src_elem, 4, px, mode="wide")
    dst = reg.scalar(u32)
    ptx.mad(dst, ty, PITCH * 4, base, mode="lo")
    ptx.mad(dst, tx, 4, dst, mode="lo")
    for _ in ptx.range_(0, TILE // BY):
        for c in range(TILE // BX):
            v = reg.scalar(f32)
            ptx.ld(v, ptx.addr(src, c * BX * 4), space="global", nc=True)
            ptx.st(ptx.addr(dst, c * BX * 4), v, space="shared")
        ptx.add(src, src, BY * cols * 4)
        ptx.add(dst, dst, BY * PITCH * 4)
    ptx.bar.sync(0)

    # Pass 2: y[col0 + r][row0 + c] = tile[c][r], r = ty + 8 * j.
    out_elem = reg.scalar(u32)
    ptx.mad(out_elem, col0 + ty, rows, row0 + tx, mode="lo")
    out = reg.scalar(u64)
    ptx.mad(out, out_elem, 4, py, mode="wide")
    rd = reg.scalar(u32)
    ptx.mad(rd, tx, PITCH * 4, base, mode="lo")
    ptx.mad(rd, ty, 4, rd, mode="lo")
    for _ in ptx.range_(0, TILE // BY):
        for c in range(TILE // BX):
            v = reg.scalar(f32)
            ptx.ld(v, ptx.addr(rd, c * BX * PITCH * 4), space="shared")
            ptx.st(ptx.addr(out, c * BX * 4), v, space="global")
        ptx.add(rd, rd, BY * 4)
        ptx.add(out, out, BY * rows * 4)


if __name__ == "__main__":
    print(transpose.ptx(**SHAPE), end="")
