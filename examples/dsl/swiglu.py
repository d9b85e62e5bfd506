"""SwiGLU, ``out = silu(gate) * up`` on bf16 vectors, with packed bf16x2 math (sm_120a).

Each thread handles 8 elements: one 16-byte ``ld.global.nc.v4.b32`` each of ``gate`` and
``up`` brings four packed ``bf16x2`` pairs into registers. For every pair:

1. ``mov.b32 {lo, hi}, g`` splits the pair and ``cvt.f32.bf16`` widens both halves;
2. ``silu(g) = g / (1 + 2^(-g * log2(e)))`` is computed in f32 (``ex2.approx``,
   ``rcp.approx``), where bf16 would lose too much precision;
3. ``cvt.rn.bf16x2.f32`` packs the two results again and a single ``mul.rn.bf16x2``
   multiplies both halves by ``up``.

The four products leave with one ``st.global.v4.b32``. ``n`` (a multiple of 8) is the
element count.
"""

import math

from pyptx import Tile, kernel, ptx, reg
from pyptx.types import bf16, bf16x2, f32, u32, u64

BLOCK = 256
PAIRS = 4  # bf16x2 registers per 16-byte access
NEG_LOG2E = -math.log2(math.e)


@kernel(
    in_specs=(Tile("N", bf16), Tile("N", bf16)),
    out_specs=(Tile("N", bf16),),
    raw_params=[("u32", "n")],
    grid=lambda N: ((N // 8 + BLOCK - 1) // BLOCK, 1, 1),
    block=(BLOCK, 1, 1),
    arch="sm_120a",
)
def swiglu(gate, up, out):
    pg, pu, po = gate.ptr(), up.ptr(), out.ptr()
    n = ptx.param("n")
    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    i = reg.scalar(u32)
    ptx.mad(i, cta, BLOCK, tid, mode="lo")
    first = i << 3  # first element handled by this thread

    with ptx.if_(first < n):
        offset = reg.scalar(u64)
        ptx.mul(offset, i, 16, mode="wide")
        g, u = reg.array(bf16x2, PAIRS), reg.array(bf16x2, PAIRS)
        ptx.ld(tuple(g), ptx.addr(pg + offset), space="global", nc=True)
        ptx.ld(tuple(u), ptx.addr(pu + offset), space="global", nc=True)

        result = reg.array(bf16x2, PAIRS)
        for gj, uj, rj in zip(g, u, result, strict=True):
            halves = reg.scalar(bf16), reg.scalar(bf16)
            ptx.mov(halves, gj)  # {lo, hi}
            silu = []
            for h in halves:
                x = reg.scalar(f32)
                ptx.cvt(x, h)
                e = reg.scalar(f32)
                ptx.mul(e, x, NEG_LOG2E)
                ptx.ex2(e, e, ftz=True)
                ptx.add(e, e, 1.0)
                ptx.rcp(e, e, approx=True, ftz=True)  # sigmoid(x)
                ptx.mul(x, x, e)
                silu.append(x)
            packed = reg.scalar(bf16x2)
            ptx.cvt(packed, silu[1], silu[0], rnd="rn")  # upper half from hi, lower from lo
            ptx.mul(rj, packed, uj, rnd="rn")
        ptx.st(ptx.addr(po + offset), tuple(result), space="global")


if __name__ == "__main__":
    print(swiglu.ptx(), end="")
