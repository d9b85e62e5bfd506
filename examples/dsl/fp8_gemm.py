"""FP8 (e4m3) GEMM with warp-level ``mma.sync`` m16n8k32, scaled f32 output (sm_120a).

``C = scale * (A @ B.T)`` with ``A`` (M x K) and ``B`` (N x K) stored as e4m3 bytes,
row-major, and ``C`` (M x N) f32. ``scale`` is the product of the per-tensor FP8 scales,
passed as a ``.param .f32``.

Each of the four warps computes a 16 x 32 block of ``C`` as four
``mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32`` tiles that share one A fragment. The
fragments come straight from global memory (no shared-memory staging): with
``g = lane / 4`` and ``q = lane % 4``, A register ``j`` holds the four bytes at row
``g + 8 * (j & 1)``, columns ``4 * q + 16 * (j >> 1)`` of the 16 x 32 A tile; B register ``j``
holds four consecutive k of column ``g``. Consecutive lanes read consecutive 4-byte words.
This is the dense FP8 form that sm_89 introduced; on sm_120a the same tensor cores also run
the ``kind::f8f6f4`` (FP6/FP4) and block-scaled ``kind::mxf*`` variants.
"""

from pyptx import Tile, kernel, ptx, reg
from pyptx.types import b32, e4m3, f32, u32, u64

SHAPE = {"M": 4096, "N": 4096, "K": 4096}  # the size the snapshot is traced at
BM, BN, BK = 64, 32, 32
WARPS = BM // 16


@kernel(
    in_specs=(Tile("M", "K", e4m3), Tile("N", "K", e4m3)),
    out_specs=(Tile("M", "N", f32),),
    raw_params=[("f32", "scale")],
    grid=lambda M, N: (N // BN, M // BM, 1),
    block=(32 * WARPS, 1, 1),
    arch="sm_120a",
)
def fp8_gemm(a, b, c):
    K, N = a.shape[1], b.shape[0]
    pa, pb, pc = a.ptr(), b.ptr(), c.ptr()
    scale = ptx.param("scale")
    tid = reg.from_(ptx.special.tid.x(), u32)
    lane, warp = tid & 31, tid >> 5
    cta_m = reg.from_(ptx.special.ctaid.y(), u32)
    cta_n = reg.from_(ptx.special.ctaid.x(), u32)
    g, q = lane >> 2, lane & 3
    row = reg.scalar(u32)  # this lane's first A row
    ptx.mad(row, cta_m, BM, g, mode="lo")
    ptx.mad(row, warp, 16, row, mode="lo")
    col = reg.scalar(u32)  # this lane's B row (= C column group)
    ptx.mad(col, cta_n, BN, g, mode="lo")

    # Byte pointers (e4m3 is one byte): mad.wide by 1 zero-extends the offset and adds.
    k_byte = q << 2
    elem = reg.scalar(u32)
    a_ptr, b_ptr = reg.scalar(u64), reg.scalar(u64)
    ptx.mad(elem, row, K, k_byte, mode="lo")
    ptx.mad(a_ptr, elem, 1, pa, mode="wide")
    ptx.mad(elem, col, K, k_byte, mode="lo")
    ptx.mad(b_ptr, elem, 1, pb, mode="wide")

    acc = [reg.array(f32, 4) for _ in range(BN // 8)]
    for frag in acc:
        for r in frag:
            ptx.mov(r, 0.0)
    a_frag = reg.array(b32, 4)
    b_frag = [reg.array(b32, 2) for _ in range(BN // 8)]

    for _ in ptx.range_(0, K // BK):
        for j, r in enumerate(a_frag):
            offset = (j & 1) * 8 * K + (j >> 1) * 16
            ptx.ld(r, ptx.addr(a_ptr, offset), space="global", nc=True)
        for ni, frag in enumerate(b_frag):
            for j, r in enumerate(frag):
                ptx.ld(r, ptx.addr(b_ptr, ni * 8 * K + j * 16), space="global", nc=True)
        for ni in range(BN // 8):
            ptx.mma(acc[ni], a_frag, b_frag[ni], acc[ni], shape="m16n8k32", dtype_a=e4m3)
        ptx.add(a_ptr, a_ptr, BK)
        ptx.add(b_ptr, b_ptr, BK)

    # c0,c1 -> row g, cols 2q, 2q+1 of each n8 tile; c2,c3 -> row g + 8.
    c_col = reg.scalar(u32)
    ptx.mad(c_col, cta_n, BN, q << 1, mode="lo")
    c_ptr = reg.scalar(u64)
    ptx.mad(elem, row, N, c_col, mode="lo")
    ptx.mad(c_ptr, elem, 4, pc, mode="wide")
    for ni, frag in enumerate(acc):
        for r in frag:
            ptx.mul(r, r, scale)
        for half in range(2):
            offset = (half * 8 * N + ni * 8) * 4
            ptx.st(ptx.addr(c_ptr, offset), (frag[2 * half], frag[2 * half + 1]), space="global")


if __name__ == "__main__":
    print(fp8_gemm.ptx(**SHAPE), end="")
