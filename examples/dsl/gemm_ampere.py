"""Ampere bf16 GEMM mainloop: 4-stage cp.async pipeline, swizzled smem, ldmatrix, mma.sync.

``C = A @ B.T`` with ``A`` (M x K) and ``B`` (N x K) bf16, row-major, ``C`` (M x N) f32.

* CTA tile 64 x 64, K tile 32, four warps in a 2 x 2 grid, each owning a 32 x 32 block of
  ``C`` as 2 x 4 ``mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`` tiles (32 f32
  accumulators per thread).
* Global -> shared: ``cp.async.cg.shared.global`` 16-byte copies, two per thread per
  operand and stage, in a ``STAGES``-deep ring (``cp.async.commit_group`` /
  ``cp.async.wait_group STAGES-2``). A stage is only overwritten after the ``bar.sync`` that
  follows the last reads of it.
* Shared -> registers: ``ldmatrix.sync.aligned.m8n8.x4.shared.b16``. A tile row is 64 bytes
  (4 chunks of 16 bytes); chunk ``c`` of row ``r`` is stored at chunk ``c ^ ((r >> 1) & 3)``,
  so the eight rows one ``ldmatrix`` matrix reads hit eight different 16-byte bank groups.
  Every thread applies the same XOR on the copy side.
* The K loop is a ``ptx.range_`` device loop stepping by ``STAGES`` k-tiles whose body is
  unrolled over the stages in Python, so stage offsets are immediates. Copies for k-tiles
  past the end are predicated off (their commit groups are empty).

The problem size is bound when the kernel is traced (``gemm_ampere.ptx(M=..., N=..., K=...)``;
multiples of 64, 64 and ``32 * STAGES``).
"""

from pyptx import Tile, intrinsic, kernel, ptx, reg, smem
from pyptx.types import b32, bf16, f32, u32, u64

SHAPE = {"M": 4096, "N": 4096, "K": 4096}  # the size the snapshot is traced at
BM, BN, BK = 64, 64, 32
STAGES = 4
THREADS = 128
ROW_BYTES = BK * 2  # one smem tile row: 64 bytes, 4 chunks of 16
STAGE_BYTES = BM * ROW_BYTES  # 4 KB per operand and stage


@intrinsic
def load_stage(stage, s_a, s_b, g_a, g_b, pred, k):
    """cp.async one k-tile of A and B (rows of ``k`` elements) into ``stage``; advance the
    global pointers."""
    for j in range(2):  # rows r and r + 32
        s_off = stage * STAGE_BYTES + j * 32 * ROW_BYTES
        g_off = j * 32 * k * 2
        ptx.cp.async_.cg(ptx.addr(s_a, s_off), ptx.addr(g_a, g_off), 16, pred=pred)
        ptx.cp.async_.cg(ptx.addr(s_b, s_off), ptx.addr(g_b, g_off), 16, pred=pred)
    ptx.add(g_a, g_a, BK * 2)
    ptx.add(g_b, g_b, BK * 2)


@intrinsic
def mma_stage(stage, a_addr, b_addr, a_frag, b_frag, acc):
    """ldmatrix the warp's A/B fragments from ``stage`` and issue 2 x 8 mma.sync."""
    for kk in range(BK // 16):
        for mi in range(2):
            ptx.ldmatrix(a_frag[mi], ptx.addr(a_addr[kk], stage * STAGE_BYTES + mi * 16 * 64))
        for nj in range(2):
            ptx.ldmatrix(b_frag[nj], ptx.addr(b_addr[kk], stage * STAGE_BYTES + nj * 16 * 64))
        for mi in range(2):
            for ni in range(4):
                b = b_frag[ni // 2][2 * (ni % 2) : 2 * (ni % 2) + 2]
                c = acc[mi][ni]
                ptx.mma(c, a_frag[mi], b, c, shape="m16n8k16", dtype_a=bf16)


def _lane_addresses(row, chunk, base):
    """Shared addresses this lane passes to ldmatrix, one per 16-wide k step of a k-tile.

    ``chunk`` is the lane's swizzled 16-byte chunk for k step 0; k step ``kk`` reads logical
    chunk ``2 * kk + hi``, and since the XOR only touches the low two bits, its swizzled
    chunk is ``chunk ^ (2 * kk)``.
    """
    line = reg.scalar(u32)
    ptx.mad(line, row, ROW_BYTES, base, mode="lo")
    return [line + ((chunk ^ (2 * kk) if kk else chunk) << 4) for kk in range(BK // 16)]


@kernel(
    in_specs=(Tile("M", "K", bf16), Tile("N", "K", bf16)),
    out_specs=(Tile("M", "N", f32),),
    grid=lambda M, N: (N // BN, M // BM, 1),
    block=(THREADS, 1, 1),
    arch="sm_80",
)
def gemm_ampere(a, b, c):
    K, N = a.shape[1], b.shape[0]
    pa, pb, pc = a.ptr(), b.ptr(), c.ptr()
    s_a = smem.alloc(bf16, (STAGES, BM, BK), name="sA")
    s_b = smem.alloc(bf16, (STAGES, BN, BK), name="sB")
    tid = reg.from_(ptx.special.tid.x(), u32)
    m0 = reg.from_(ptx.special.ctaid.y(), u32) << 6  # * BM
    n0 = reg.from_(ptx.special.ctaid.x(), u32) << 6  # * BN
    base_a, base_b = smem.base(s_a), smem.base(s_b)

    # Copy side: thread t moves chunk (t & 3) of rows (t >> 2) and (t >> 2) + 32.
    row, chunk = tid >> 2, tid & 3
    swz = chunk ^ ((tid >> 3) & 3)  # == chunk ^ ((row >> 1) & 3)
    s_off = reg.scalar(u32)
    ptx.mad(s_off, row, ROW_BYTES, swz << 4, mode="lo")
    s_copy_a, s_copy_b = base_a + s_off, base_b + s_off
    k_elem = chunk << 3
    g_elem, g_a, g_b = reg.scalar(u32), reg.scalar(u64), reg.scalar(u64)
    ptx.mad(g_elem, m0 + row, K, k_elem, mode="lo")
    ptx.mad(g_a, g_elem, 2, pa, mode="wide")
    ptx.mad(g_elem, n0 + row, K, k_elem, mode="lo")
    ptx.mad(g_b, g_elem, 2, pb, mode="wide")

    # ldmatrix side: per-lane row and (swizzled) chunk for each 16-wide k step.
    lane, warp = tid & 31, tid >> 5
    wm, wn = warp & 1, warp >> 1
    xor = (lane >> 1) & 3
    a_row, a_hi = reg.scalar(u32), lane >> 4
    ptx.mad(a_row, wm, 32, lane & 15, mode="lo")
    b_row = reg.scalar(u32)
    ptx.mad(b_row, wn, 32, lane & 7, mode="lo")
    ptx.mad(b_row, a_hi, 8, b_row, mode="lo")
    b_hi = (lane >> 3) & 1
    a_addr = _lane_addresses(a_row, a_hi ^ xor, base_a)
    b_addr = _lane_addresses(b_row, b_hi ^ xor, base_b)

    acc = [[reg.array(f32, 4) for _ in range(4)] for _ in range(2)]
    for tile in acc:
        for frag in tile:
            for r in frag:
                ptx.mov(r, 0.0)
    a_frag = [reg.array(b32, 4) for _ in range(2)]
    b_frag = [reg.array(b32, 4) for _ in range(2)]

    k_tiles = K // BK
    for s in range(STAGES - 1):
        load_stage(s, s_copy_a, s_copy_b, g_a, g_b, None, K)
        ptx.cp.async_.commit_group()
    for kt in ptx.range_(0, k_tiles, STAGES):
        for s in range(STAGES):
            ptx.cp.async_.wait_group(STAGES - 2)  # k-tile kt + s has landed
            ptx.bar.sync(0)  # ... for every thread, and stage s - 1 is free again
            more = kt < k_tiles - (s + STAGES - 1)
            load_stage((s + STAGES - 1) % STAGES, s_copy_a, s_copy_b, g_a, g_b, more, K)
            ptx.cp.async_.commit_group()
            mma_stage(s, a_addr, b_addr, a_frag, b_frag, acc)

    # Epilogue: c0,c1 -> row lane/4, cols 2*(lane%4)+{0,1}; c2,c3 -> 8 rows below.
    c_row, c_col = reg.scalar(u32), reg.scalar(u32)
    ptx.mad(c_row, wm, 32, m0 + (lane >> 2), mode="lo")
    ptx.mad(c_col, wn, 32, n0 + ((lane & 3) << 1), mode="lo")
    c_elem, c_ptr = reg.scalar(u32), reg.scalar(u64)
    ptx.mad(c_elem, c_row, N, c_col, mode="lo")
    ptx.mad(c_ptr, c_elem, 4, pc, mode="wide")
    for mi in range(2):
        for ni in range(4):
            frag = acc[mi][ni]
            for half in range(2):
                offset = ((mi * 16 + half * 8) * N + ni * 8) * 4
                pair = (frag[2 * half], frag[2 * half + 1])
                ptx.st(ptx.addr(c_ptr, offset), pair, space="global")


if __name__ == "__main__":
    print(gemm_ampere.ptx(**SHAPE), end="")
