"""Vector add, ``out[i] = x[i] + y[i]`` (sm_80).

The smallest complete kernel: one thread per element, a bounds check against the element
count ``n`` (a scalar ``.param``), and every address computed explicitly. Each ``ptx.*`` call
below is one line of the PTX this file prints; the only helpers that emit more are
``reg.from_`` (one ``mov``) and ``TensorArg.ptr()`` (``ld.param`` + ``cvta.to.global`` on first
use).

Launch with ``block=(256, 1, 1)`` and ``ceil(n / 256)`` blocks.
"""

from pyptx import Tile, kernel, ptx, reg
from pyptx.types import f32, u32, u64

BLOCK = 256


@kernel(
    in_specs=(Tile("N", f32), Tile("N", f32)),
    out_specs=(Tile("N", f32),),
    raw_params=[("u32", "n")],
    grid=lambda N: ((N + BLOCK - 1) // BLOCK, 1, 1),
    block=(BLOCK, 1, 1),
    arch="sm_80",
)
def vector_add(x, y, out):
    # Kernel parameters: three global pointers and the element count.
    px, py, pout = x.ptr(), y.ptr(), out.ptr()
    n = ptx.param("n")

    # i = blockIdx.x * blockDim.x + threadIdx.x
    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    i = reg.scalar(u32)
    ptx.mad(i, cta, BLOCK, tid, mode="lo")

    with ptx.if_(i < n):
        offset = reg.scalar(u64)
        ptx.mul(offset, i, 4, mode="wide")  # byte offset of element i
        a, b = reg.scalar(f32), reg.scalar(f32)
        ptx.ld(a, ptx.addr(px + offset), space="global", nc=True)
        ptx.ld(b, ptx.addr(py + offset), space="global", nc=True)
        ptx.st(ptx.addr(pout + offset), a + b, space="global")


if __name__ == "__main__":
    print(vector_add.ptx(), end="")
