"""Ampere (sm_80) GEMM: ``C = A @ B`` in bf16 or f16 with fp32 accumulation, on mma.sync.

``A`` is (M, K) and ``B`` (K, N), both row-major; ``C`` (M, N) comes back in the input dtype
(``torch.matmul`` semantics). One kernel per :class:`~._gemm_tiles.TileConfig`; M, N and K are
``.param`` scalars, so one PTX (and one cubin) serves every shape and the K loop is a device
loop: the PTX does not change with K at all.

The pipeline of one CTA (default ``128 x 128 x 32``, 2 x 2 warps of ``64 x 64``, 4 stages):

* **Global -> shared**: ``cp.async.cg`` 16-byte copies into a ``stages``-deep ring of
  (A, B) k-tiles, one ``cp.async.commit_group`` per k-tile. Copies that fall outside A or B
  (rows past M, columns past N, k past K) are issued with ``ignore-src``: they read nothing
  and write 16 zero bytes, so edge tiles need no other masking in the main loop.
* **Shared -> registers**: ``ldmatrix.x4`` for A (a 16 x 16 block: one m16n8k16 A fragment)
  and ``ldmatrix.x4.trans`` for B (a 16(k) x 16(n) block: two B fragments). ``.trans``
  because B's shared tile is k-major rows of n while mma wants each thread's B pair along k.
  Both tiles are XOR-swizzled (:mod:`._gemm_tiles`) so each ldmatrix phase is conflict free.
  Fragments are double-buffered in registers: the ldmatrix of the next k16 step (across the
  k-tile's barrier for the last one) is issued before the mma of the current one.
* **Math**: ``mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}`` into 4 x 8 fragments of 4
  fp32 accumulators per thread (128 registers at the default tile).
* **Epilogue**: ``cvt.rn.{bf16x2,f16x2}.f32`` packs the (col, col + 1) pairs and predicated
  ``st.global.b32`` writes the pairs that fall inside C.
* **CTA order**: a 1-D grid walked ``group_m`` tile rows at a time, for L2 reuse.

One ``bar.sync`` per k-tile, after ``cp.async.wait_group stages-2``, both publishes the next
k-tile and frees the stage read one k-tile earlier (docs/guide/kernels/gemm.md explains each
synchronization).

Shape limits: K and N must be multiples of 8 (A's rows are K elements and B's rows N
elements, copied in 16-byte pieces that must be 16-byte aligned); M is free; sizes below
2^31. Anything else is refused with :class:`~pyptx.kernels.KernelUnavailable`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from pyptx import Kernel, Tile, intrinsic, kernel, ptx, reg, smem
from pyptx.types import b32, bf16, bf16x2, f16, f16x2, f32, pred, s32, u32, u64

from .._registry import Implementation, KernelUnavailable
from ._gemm_tiles import CHUNK, ELEM, TileConfig

__all__ = ["EXAMPLE", "IMPLEMENTATIONS", "build", "call"]

_ELEMENT = {"bf16": bf16, "f16": f16}
_PAIR = {"bf16": bf16x2, "f16": f16x2}
# Library dtype names (torch without its prefix, numpy/ml_dtypes, JAX) -> pyptx names.
_DTYPE_NAMES = {"bfloat16": "bf16", "float16": "f16"}

EXAMPLE: dict[str, Any] = {
    "dtype": "bf16",
    "block_m": 128,
    "block_n": 128,
    "block_k": 32,
    "warps_m": 2,
    "warps_n": 2,
    "stages": 4,
    "group_m": 8,
}
"""The catalog's configuration: CUTLASS's classic sm_80 128x128x32 tile with 4 warps."""


F = TypeVar("F", bound=Callable[..., Any])


def _scope(fn: F) -> F:
    """``@intrinsic`` named ``fn.__name__`` (``// begin load_k_tile``), not its qualname."""
    fn.__qualname__ = fn.__name__
    return intrinsic(fn)


class _SwizzledRow:
    """One register row of a swizzled tile: its address and XOR, for chunks of that row.

    ``at(chunk)`` is ``base + swizzled_offset(row, chunk)`` of :mod:`._gemm_tiles`, evaluated
    in registers: ``row * row_bytes + base`` (one ``mad``) and ``f(row)`` (a shift and an
    ``and``) once, then an ``xor``, a shift and an ``add`` per chunk.
    """

    def __init__(self, base: Any, row: Any, row_bytes: int) -> None:
        shift = max(1, 128 // row_bytes).bit_length() - 1  # log2(rows per 128-byte line)
        xor_span = min(row_bytes // CHUNK, 8)
        self.line = reg.scalar(u32)
        ptx.mad(self.line, row, row_bytes, base, mode="lo")
        self.xor = ((row >> shift) if shift else row) & (xor_span - 1)

    def at(self, chunk: Any) -> Any:
        """The shared address of 16-byte chunk ``chunk`` (a register) of this row."""
        return self.line + ((chunk ^ self.xor) << 4)


class _Operand:
    """One operand's copy plan: this thread's cp.async slots for a k-tile of A or B.

    The tile has ``rows`` rows of ``chunks`` 16-byte chunks; thread ``t`` copies chunk
    ``t % chunks`` of rows ``t // chunks + p * rows_per_pass`` for each pass ``p``, so the
    lanes of a warp read whole row segments (coalesced). Each pass keeps its own 64-bit
    global pointer, advanced by one k-tile after every copy, and its swizzled shared offset.
    """

    def __init__(self, rows: int, chunks: int, row_bytes: int, threads: int, tid: Any) -> None:
        self.rows_per_pass = threads // chunks
        self.passes = rows // self.rows_per_pass
        self.row_bytes = row_bytes
        self.row0 = tid >> (chunks.bit_length() - 1)  # chunks is a power of two
        self.chunk = tid & (chunks - 1)
        self.ptrs = [reg.scalar(u64) for _ in range(self.passes)]
        self.dst: list[tuple[Any, int]] = []  # per pass: (address register, immediate)

    def shared_offsets(self, base: Any) -> list[tuple[Any, int]]:
        """The swizzled shared address of each pass's chunk in stage 0.

        Rows ``8j`` apart share the swizzle (:mod:`._gemm_tiles`), so passes whose rows are
        a multiple of 8 apart reuse one register plus an immediate.
        """
        by_residue: dict[int, Any] = {}
        out = []
        for p in range(self.passes):
            shift = p * self.rows_per_pass
            if shift % 8 not in by_residue:
                row = self.row0 + shift % 8 if shift % 8 else self.row0
                by_residue[shift % 8] = _SwizzledRow(base, row, self.row_bytes).at(self.chunk)
            out.append((by_residue[shift % 8], (shift - shift % 8) * self.row_bytes))
        return out


def _build(cfg: TileConfig) -> Kernel:
    """Trace nothing yet: declare the ``@kernel`` for ``cfg`` (traced on first use)."""
    elem, pair_ty = _ELEMENT[cfg.dtype], _PAIR[cfg.dtype]
    bm, bn, bk, stages = cfg.block_m, cfg.block_n, cfg.block_k, cfg.stages
    group_m = cfg.group_m
    wm_rows, wn_cols = cfg.warp_m, cfg.warp_n
    frags_m, frags_n = wm_rows // 16, wn_cols // 8  # m16 x n8 accumulator tiles per warp
    k_steps = bk // 16  # mma k16 steps per k-tile
    a_stage, b_stage = cfg.a_stage_bytes, cfg.b_stage_bytes
    ra, rb = cfg.a_row_bytes, cfg.b_row_bytes

    @_scope
    def load_k_tile(stage: int, a: _Operand, b: _Operand, bounds: tuple) -> None:
        """cp.async the k-tile at the pointers into ``stage``; advance to the next k-tile.

        ``bounds`` is (``a_rows_ok``, ``b_cols_ok``, ``a_room``, ``b_room``, ``b_step``):
        A's row predicates per pass (row < M), B's column predicate (column < N), and two
        count-downs: ``a_room`` = K - k0 - 8 * (this thread's A chunk), so the A chunk is
        inside K iff ``a_room > 0``; ``b_room`` = K - k0 - (this thread's first B row), so B
        row ``+shift`` is inside iff ``b_room > shift``. Chunks outside A or B are
        zero-filled: ``ignore-src`` true reads nothing, so their addresses may point
        anywhere.
        """
        a_rows_ok, b_cols_ok, a_room, b_room, b_step = bounds
        for p in range(a.passes):
            ok = reg.scalar(pred)
            ptx.setp(ok, a_room, 0, cmp="gt", bool_op="and", c=a_rows_ok[p])
            dst, imm = a.dst[p]
            ptx.cp.async_.cg(ptx.addr(dst, stage * a_stage + imm), a.ptrs[p], 16, ignore_src=~ok)
        for p in range(b.passes):
            ok = reg.scalar(pred)
            ptx.setp(ok, b_room, p * b.rows_per_pass, cmp="gt", bool_op="and", c=b_cols_ok)
            dst, imm = b.dst[p]
            ptx.cp.async_.cg(ptx.addr(dst, stage * b_stage + imm), b.ptrs[p], 16, ignore_src=~ok)
        ptx.cp.async_.commit_group()
        for ptr in a.ptrs:
            ptx.add(ptr, ptr, bk * ELEM)
        for ptr in b.ptrs:
            ptx.add(ptr, ptr, b_step)
        ptx.sub(a_room, a_room, bk)
        ptx.sub(b_room, b_room, bk)

    def new_frags() -> tuple[list, list]:
        """Registers for one k16 step of this warp: A fragments, then B fragment pairs."""
        return (
            [reg.array(b32, 4) for _ in range(frags_m)],
            [reg.array(b32, 4) for _ in range(frags_n // 2)],
        )

    @_scope
    def load_frags(stage: int, kk: int, a_addr: list, b_addr: list, frags: tuple) -> None:
        """Issue the ldmatrix of this warp's A and B fragments of k16 step ``kk`` of ``stage``.

        A fragment ``mi``: ``ldmatrix.x4`` at rows ``16 * mi + lane % 16``, chunk
        ``2 * kk + lane // 16``: registers (rows 0-7, k 0-7), (rows 8-15, k 0-7),
        (rows 0-7, k 8-15), (rows 8-15, k 8-15), the m16n8k16 A fragment order.
        B pair ``nj``: ``ldmatrix.x4.trans`` at k rows ``16 * kk + lane % 16``, n chunk
        ``2 * nj + lane // 16``: registers (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15),
        (k 8-15, n 8-15), i.e. the (b0, b1) fragments of n8 tiles ``2 nj`` and ``2 nj + 1``.
        """
        a_frag, b_frag = frags
        for mi, frag in enumerate(a_frag):
            ptx.ldmatrix(frag, ptx.addr(a_addr[kk], stage * a_stage + mi * 16 * ra))
        for nj, frag in enumerate(b_frag):
            ptx.ldmatrix(frag, ptx.addr(b_addr[nj], stage * b_stage + kk * 16 * rb), trans=True)

    @_scope
    def mma_frags(frags: tuple, acc: list) -> None:
        """The warp's ``frags_m x frags_n`` mma.sync of one k16 step."""
        a_frag, b_frag = frags
        for mi in range(frags_m):
            for ni in range(frags_n):
                b_pair = b_frag[ni // 2][2 * (ni % 2) : 2 * (ni % 2) + 2]
                c = acc[mi][ni]
                ptx.mma(c, a_frag[mi], b_pair, c, shape="m16n8k16", dtype_a=elem)

    @_scope
    def store_c(acc: list, pc: Any, row0: Any, col0: Any, m: Any, n: Any) -> None:
        """Pack each accumulator pair to ``dtype`` and store the pairs inside C.

        Accumulator tile (mi, ni) of a lane holds C rows ``row0 + 16 mi + {0, 8}`` (c0, c1 and
        c2, c3), columns ``col0 + 8 ni + {0, 1}``; N is even, so a pair is in or out whole.
        """
        n2 = n << 1  # row stride of C in bytes
        base = reg.scalar(u64)
        ptx.mad(base, col0, ELEM, pc, mode="wide")
        col_ok = [(col0 + 8 * ni if ni else col0) < n for ni in range(frags_n)]
        for mi in range(frags_m):
            for half in range(2):
                row = row0 + (16 * mi + 8 * half) if mi or half else row0
                row_ok = row < m
                ptr = reg.scalar(u64)
                ptx.mad(ptr, row, n2, base, mode="wide")
                for ni in range(frags_n):
                    frag = acc[mi][ni]
                    packed = reg.scalar(pair_ty)
                    # cvt's first source is the upper half: column col + 1.
                    ptx.cvt(packed, frag[2 * half + 1], frag[2 * half], rnd="rn")
                    inside = row_ok & col_ok[ni]
                    ptx.st(ptx.addr(ptr, 8 * ni * ELEM), packed, space="global", ty=b32,
                           pred=inside)  # fmt: skip

    @_scope
    def tile_origin(m: Any, n: Any) -> tuple[Any, Any]:
        """The first row and column of C this CTA computes (grouped rasterization).

        The grid is 1-D over the ``tiles_m x tiles_n`` output tiles. Consecutive CTAs walk
        down a column of ``group_m`` tiles before moving right, so the CTAs resident at once
        share ``group_m`` row strips of A and a few column strips of B in L2, instead of one
        row strip of A and all of B (CUTLASS's threadblock swizzle, Triton's GROUP_M).
        """
        pid = reg.from_(ptx.special.ctaid.x(), u32)
        tiles_m = (m + (bm - 1)) >> (bm.bit_length() - 1)
        tiles_n = (n + (bn - 1)) >> (bn.bit_length() - 1)
        per_group = tiles_n * group_m  # CTAs per group of group_m tile rows
        first_m = (pid // per_group) * group_m
        size_m = reg.scalar(u32)  # the last group may be shorter
        ptx.min(size_m, tiles_m - first_m, group_m)
        in_group = pid % per_group
        m0 = (first_m + in_group % size_m) * bm
        n0 = (in_group // size_m) * bn
        return m0, n0

    def gemm(a: Any, b: Any, c: Any) -> None:
        m, n, k = ptx.param("m"), ptx.param("n"), ptx.param("k")
        pa, pb, pc = a.ptr(), b.ptr(), c.ptr()
        s_a = smem.alloc(elem, (stages, bm, bk), name="sA")
        s_b = smem.alloc(elem, (stages, bk, bn), name="sB")
        base_a, base_b = smem.base(s_a), smem.base(s_b)
        tid = reg.from_(ptx.special.tid.x(), u32)
        m0, n0 = tile_origin(m, n)

        # ---- copy plan: pointers, bounds, swizzled destinations (loop invariant) ----
        a_op = _Operand(bm, cfg.a_chunks, ra, cfg.threads, tid)
        b_op = _Operand(bk, cfg.b_chunks, rb, cfg.threads, tid)
        k2, n2 = k << 1, n << 1  # row strides of A and B in bytes
        a_col = reg.scalar(u64)  # A + 16 * chunk: the thread's column in every A row
        ptx.mad(a_col, a_op.chunk, CHUNK, pa, mode="wide")
        a_rows_ok = []
        for p in range(a_op.passes):
            row = m0 + (a_op.row0 + p * a_op.rows_per_pass if p else a_op.row0)
            a_rows_ok.append(row < m)
            ptx.mad(a_op.ptrs[p], row, k2, a_col, mode="wide")
        b_n = reg.scalar(u32)  # the first of the thread's 8 B columns
        ptx.mad(b_n, b_op.chunk, 8, n0, mode="lo")
        b_cols_ok = b_n < n
        b_col = reg.scalar(u64)
        ptx.mad(b_col, b_n, ELEM, pb, mode="wide")
        for p in range(b_op.passes):
            row = b_op.row0 + p * b_op.rows_per_pass if p else b_op.row0
            ptx.mad(b_op.ptrs[p], row, n2, b_col, mode="wide")
        b_step = reg.scalar(u64)  # one k-tile of B rows, in bytes
        ptx.mul(b_step, n2, bk, mode="wide")
        a_room, b_room = reg.scalar(s32), reg.scalar(s32)
        ptx.sub(a_room, k, a_op.chunk << 3)
        ptx.sub(b_room, k, b_op.row0)
        bounds = (a_rows_ok, b_cols_ok, a_room, b_room, b_step)
        a_op.dst = a_op.shared_offsets(base_a)
        b_op.dst = b_op.shared_offsets(base_b)

        # ---- ldmatrix plan: this lane's swizzled row addresses (loop invariant) ----
        lane, warp = tid & 31, tid >> 5
        wm = warp >> (cfg.warps_n.bit_length() - 1)  # warp // warps_n
        wn = warp & (cfg.warps_n - 1)
        hi = lane >> 4  # lanes 16-31 address the second 8-wide chunk
        a_row = reg.scalar(u32)
        ptx.mad(a_row, wm, wm_rows, lane & 15, mode="lo")
        # Fragment mi adds 16 rows (swizzle unchanged: an immediate); k-step kk reads chunk
        # 2 kk + hi, whose XOR differs per kk: one address register per k-step.
        a_line = _SwizzledRow(base_a, a_row, ra)
        a_addr = [a_line.at(hi + 2 * kk if kk else hi) for kk in range(k_steps)]
        b_row = lane & 15  # k row within a k16 step; the step adds 16 rows (an immediate)
        b_chunk = reg.scalar(u32)
        ptx.mad(b_chunk, wn, wn_cols // 8, hi, mode="lo")
        b_line = _SwizzledRow(base_b, b_row, rb)
        b_addr = [b_line.at(b_chunk + 2 * nj if nj else b_chunk) for nj in range(frags_n // 2)]

        acc = [[reg.array(f32, 4) for _ in range(frags_n)] for _ in range(frags_m)]
        for row_tiles in acc:
            for tile in row_tiles:
                for r in tile:
                    ptx.mov(r, 0.0)

        # ---- the pipeline ----
        # Prologue: k-tiles 0 .. stages-2 in flight, one commit group each; then k-tile 0's
        # first fragments into ``carry``, the registers each loop pass starts from.
        for s in range(stages - 1):
            load_k_tile(s, a_op, b_op, bounds)
        ptx.cp.async_.wait_group(stages - 2)  # k-tile 0 has landed (for this thread) ...
        ptx.bar.sync(0)  # ... and for every thread
        carry = new_frags()
        load_frags(0, 0, a_addr, b_addr, carry)
        tiles_left = reg.scalar(s32)
        ptx.add(tiles_left, k, bk - 1)
        ptx.shr(tiles_left, tiles_left, bk.bit_length() - 1)  # ceil(K / block_k), >= 0
        done = ptx.new_label("k_done")
        # The body is unrolled over the ring so stage offsets are immediates: k-tile t lives
        # in stage s = t % stages. Fragments are double-buffered in registers: the ldmatrix
        # of k16 step kk + 1 is issued before the mma of step kk, and the last step's mma
        # overlaps the ldmatrix of the next k-tile's first step. After each k-tile the loop
        # leaves when none is left.
        with ptx.loop("k_tiles") as top:
            for s in range(stages):
                # k-tile t + stages - 1 goes into stage (t - 1) % stages, which every warp
                # finished reading before the previous k-tile's barrier.
                load_k_tile((s + stages - 1) % stages, a_op, b_op, bounds)
                cur = carry
                for kk in range(k_steps):
                    if kk + 1 < k_steps:
                        nxt = new_frags()
                        load_frags(s, kk + 1, a_addr, b_addr, nxt)
                    else:
                        # This thread's copies of k-tile t + 1 have landed (all groups but
                        # the stages - 2 newest are complete) ...
                        ptx.cp.async_.wait_group(stages - 2)
                        # ... and everyone's have; and every warp has loaded all of k-tile
                        # t's fragments, so stage s may be refilled after this point.
                        ptx.bar.sync(0)
                        nxt = carry if k_steps > 1 else new_frags()
                        load_frags((s + 1) % stages, 0, a_addr, b_addr, nxt)
                    mma_frags(cur, acc)
                    cur = nxt
                if cur is not carry:  # one k16 step per k-tile: hand the next one over
                    for dst, src in zip(carry[0] + carry[1], cur[0] + cur[1], strict=True):
                        for d, r in zip(dst, src, strict=True):
                            ptx.mov(d, r)
                ptx.sub(tiles_left, tiles_left, 1)
                finished = tiles_left <= 0  # K = 0: one k-tile of zeros, then out
                if s < stages - 1:
                    ptx.bra(done, pred=finished)
                else:
                    ptx.bra(top, pred=~finished)
        ptx.label(done)
        # Copies past the last k-tile (zero fills) may still be in flight: drain them
        # before the CTA exits and its shared memory is reused.
        ptx.cp.async_.wait_all()

        c_row = reg.scalar(u32)
        ptx.mad(c_row, wm, wm_rows, m0 + (lane >> 2), mode="lo")
        c_col = reg.scalar(u32)
        ptx.mad(c_col, wn, wn_cols, n0 + ((lane & 3) << 1), mode="lo")
        store_c(acc, pc, c_row, c_col, m, n)

    gemm.__name__ = gemm.__qualname__ = cfg.name
    # zero_outputs=False: the grid has one CTA per 128 x 128 tile of C (tile_origin is a
    # bijection), the warps' fragments cover the tile, and store_c writes every pair inside
    # C (K = 0 included: the accumulators start at zero).
    return kernel(
        in_specs=(Tile("M", "K", elem), Tile("K", "N", elem)),
        out_specs=(Tile("M", "N", elem),),
        raw_params=[("u32", "m"), ("u32", "n"), ("u32", "k")],
        grid=lambda M, N: (-(-M // bm) * -(-N // bn), 1, 1),
        block=(cfg.threads, 1, 1),
        arch="sm_80",
        zero_outputs=False,
    )(gemm)


@cache
def _cached(cfg: TileConfig) -> Kernel:
    return _build(cfg)


def build(**config: Any) -> Kernel:
    """The Ampere GEMM kernel for a configuration (cached per configuration).

    Args:
        **config: :class:`~._gemm_tiles.TileConfig` fields: ``dtype`` (``"bf16"`` or
            ``"f16"``), ``block_m``, ``block_n``, ``block_k``, ``warps_m``, ``warps_n``,
            ``stages``; missing ones take :data:`EXAMPLE`'s values.

    Returns:
        The kernel ``k(a, b, m, n, k) -> c``: ``a`` (M, K) and ``b`` (K, N) row-major
        arrays of ``dtype``, ``m``, ``n``, ``k`` their sizes; ``c`` (M, N) of ``dtype``.
        Its PTX does not depend on the sizes.

    Raises:
        KernelUnavailable: the configuration is not one the kernel can be built for.
    """
    unknown = sorted(set(config) - set(EXAMPLE))
    if unknown:
        raise KernelUnavailable(
            f"Ampere GEMM config: unknown keys {unknown}; known: {sorted(EXAMPLE)}"
        )
    return _cached(TileConfig(**{**EXAMPLE, **config}))


def _dtype_name(array: Any) -> str:
    """``"bf16"`` / ``"f16"`` for a torch, JAX or numpy array of that type, else its dtype."""
    name = str(array.dtype).removeprefix("torch.")
    return _DTYPE_NAMES.get(name, name)


def _misaligned(array: Any) -> bool:
    """Whether a CUDA torch tensor's data does not start on a 16-byte boundary.

    cp.async copies 16 aligned bytes; a view into another tensor may start anywhere. Other
    arrays (numpy and JAX, CPU tensors) are either aligned or copied by the emulator.
    """
    if not getattr(array, "is_cuda", False):
        return False
    try:
        return bool(array.data_ptr() % 16)
    except RuntimeError:  # a fake tensor under torch.compile: no address to check
        return False


def call(a: Any, b: Any, **config: Any) -> Any:
    """``a @ b`` on the Ampere GEMM: a (M, K), b (K, N) -> (M, N) in the input dtype.

    Runs wherever the arrays are (torch CUDA tensors or JAX GPU arrays on the GPU; CPU
    tensors, numpy and JAX CPU arrays in the emulator), with fp32 accumulation.

    Args:
        a: (M, K) row-major, bf16 or f16.
        b: (K, N) row-major, the same dtype.
        **config: tile configuration overrides (see :func:`build`); ``dtype`` comes from
            the arrays.

    Returns:
        C (M, N) in the inputs' library and dtype.

    Raises:
        KernelUnavailable: a dtype other than bf16/f16, mismatched dtypes or shapes, K or N
            not a multiple of 8, an empty M or N, a size of 2^31 or more, or a CUDA tensor
            not 16-byte aligned.
    """
    dtype = _dtype_name(a)
    if dtype not in _ELEMENT or _dtype_name(b) != dtype:
        raise KernelUnavailable(
            f"the Ampere GEMM takes bf16 or f16 a and b of one dtype, got a {dtype} and "
            f"b {_dtype_name(b)}"
        )
    if len(a.shape) != 2 or len(b.shape) != 2 or a.shape[1] != b.shape[0]:
        raise KernelUnavailable(
            f"the Ampere GEMM needs a (M, K) and b (K, N), got a {tuple(a.shape)} and "
            f"b {tuple(b.shape)}"
        )
    (m, k), n = a.shape, b.shape[1]
    if k % 8 or n % 8:
        what = f"K = {k}" if k % 8 else f"N = {n}"
        raise KernelUnavailable(
            f"the Ampere GEMM needs K and N to be multiples of 8 (A's and B's rows are copied "
            f"in 16-byte pieces), got {what}; pad it to a multiple of 8"
        )
    if m == 0 or n == 0:
        raise KernelUnavailable(f"the Ampere GEMM has no work for an empty output ({m}, {n})")
    if max(m, n, k) >= 2**31:
        raise KernelUnavailable(
            f"the Ampere GEMM takes sizes below 2^31 (32-bit index math), got ({m}, {n}, {k})"
        )
    for name, array in (("a", a), ("b", b)):
        if _misaligned(array):
            raise KernelUnavailable(
                f"the Ampere GEMM needs {name}'s data 16-byte aligned (cp.async copies 16 "
                f"bytes); pass {name}.clone()"
            )
    return build(**{**config, "dtype": dtype})(a, b, m, n, k)


IMPLEMENTATIONS: tuple[Implementation, ...] = (
    Implementation(
        name="ampere.gemm",
        family="gemm",
        arch="sm_80",
        dtypes=("bf16", "f16"),
        example=EXAMPLE,
        build=build,
        call=call,
        notes=(
            "mma.sync m16n8k16, ldmatrix(.trans), 4-stage cp.async ring with ignore-src edge "
            "fill, XOR-swizzled smem; M, N, K are runtime scalars (one PTX for all shapes); "
            "K and N must be multiples of 8"
        ),
    ),
)
"""The Ampere GEMM: one implementation for bf16 and f16."""
