"""SAXPY, ``y[i] = a * x[i] + y[i]``, with a grid-stride device loop (sm_80).

The kernel is launched with a fixed number of CTAs (``GRID`` of ``BLOCK`` threads, a few per
SM) and each thread walks the vector with a stride of ``GRID * BLOCK`` elements, so one launch
covers any ``n``. ``ptx.range_`` emits a real device loop: its body is traced once and the PTX
does not grow with ``n``. Because the start (the thread's global index) and the bound ``n``
are registers, the loop is guarded and may run zero times.

The scalars ``a`` and ``n`` are plain ``.param`` values (``raw_params``), read with
``ld.param``. ``y`` is read and written in place, so it is an input that the kernel declares
in ``mutates``: ``saxpy(x, y, 2.0, n)`` updates ``y`` (a new array under JAX) and returns it.
"""

from pyptx import Tile, kernel, ptx, reg
from pyptx.types import f32, u32, u64

GRID = 528  # 4 CTAs per SM on a 132-SM H100; any value works
BLOCK = 256


@kernel(
    in_specs=(Tile("N", f32), Tile("N", f32)),
    mutates=("y",),
    raw_params=[("f32", "a"), ("u32", "n")],
    grid=(GRID, 1, 1),
    block=(BLOCK, 1, 1),
    arch="sm_80",
)
def saxpy(x, y):
    px, py = x.ptr(), y.ptr()
    a, n = ptx.param("a"), ptx.param("n")

    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    first = reg.scalar(u32)
    ptx.mad(first, cta, BLOCK, tid, mode="lo")

    for i in ptx.range_(first, n, GRID * BLOCK):
        offset = reg.scalar(u64)
        ptx.mul(offset, i, 4, mode="wide")
        xi, yi = reg.scalar(f32), reg.scalar(f32)
        ptx.ld(xi, ptx.addr(px + offset), space="global", nc=True)
        ptr = py + offset
        ptx.ld(yi, ptx.addr(ptr), space="global")
        ptx.fma(yi, a, xi, yi, rnd="rn")
        ptx.st(ptx.addr(ptr), yi, space="global")


if __name__ == "__main__":
    print(saxpy.ptx(), end="")
