"""The warp-specialized persistent Hopper GEMM behind ``hopper.gemm_*`` and the grouped GEMM.

One traced kernel body, specialized by :class:`GemmConfig`:

* ``C = A @ B`` with A ``(M, K)`` row-major, C ``(M, N)`` bf16 row-major, fp32 accumulation;
* bf16: B ``(K, N)`` row-major, read by wgmma as an MN-major (transposed) operand;
* e4m3: B given as ``B^T`` ``(N, K)`` row-major (K-major), since 8-bit wgmma only reads
  K-major B from shared memory;
* grouped: A is the groups' rows stacked with each group padded to a multiple of ``bm``
  rows, B the groups' ``(K, N)`` matrices side by side ``(K, G * N)``, and a table gives the
  group of every ``bm``-row tile (see :mod:`pyptx.kernels.hopper.grouped_gemm`).

Roles (384 threads, three warpgroups):

* warpgroup 0, the **producer**, gives registers back (``setmaxnreg.dec``); one elected thread
  walks the same tile sequence as the consumers and, for every k-tile, waits until the ring
  stage is free (``empty``), arms ``full`` with the stage's byte count and issues the TMA
  loads;
* warpgroups 1 and 2, the **consumers**, take the registers (``setmaxnreg.inc``), each owns
  64 rows of the ``bm = 128`` row tile: it waits on ``full``, issues ``bk / 16`` (bf16) or
  ``bk / 32`` (e4m3) ``wgmma.mma_async`` m64n``bn`` into fp32 registers, keeps them in
  flight while it releases the previous k-tile's stage on ``empty``; after the tile's last
  k-tile it runs the TMA-store epilogue while the producer already streams the next tile.

The ring index and its phase parity live in registers (:class:`_Ring`) and run on across
tiles, so a tile may start at any stage and K need not be a multiple of ``bk * stages``.

Persistent schedule: with a cluster of ``c`` CTAs along N (``c`` = 1 or 2), a *cluster tile*
is ``bm`` rows by ``c * bn`` columns; cluster ``i`` of ``g`` processes cluster tiles ``i``,
``i + g``, ``i + 2g``... (numbered in groups of ``group_m`` row tiles for L2 reuse); CTA
rank ``r`` takes the ``r``-th ``bn`` columns. Both CTAs of a pair read the same A rows, so
each loads half of them (``bm / 2`` rows) with ``.multicast::cluster``: the box lands at
the same offset in both CTAs and counts towards both CTAs' ``full`` transaction counts.

Edges: TMA fills out-of-bounds elements of a load with zeros (so a partial k-tile adds
nothing) and clips out-of-bounds elements of a store, so M, N and K need not be tile
multiples. A CTA whose whole tile lies past N (odd tile count, cluster of 2) still runs it
(its peer needs its half of A), and its store writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyptx import Kernel, Layout, Tile, kernel, ptx, reg, smem
from pyptx.reg import Reg
from pyptx.types import bf16, bf16x2, e4m3, s32, u32, u64

__all__ = ["GemmConfig", "GemmShape", "build_kernel", "ctas_for"]

THREADS = 384
"""One producer and two consumer warpgroups."""

CONSUMER_WARPS = 8
PRODUCER_REGS = 40
"""Registers per producer thread after ``setmaxnreg.dec`` (it only computes addresses)."""

CONSUMER_REGS = 232
"""Registers per consumer thread after ``setmaxnreg.inc``: 128 accumulators at n256, plus
addresses. 128 x 40 + 256 x 232 = 64,512 of the SM's 65,536."""

SPAN = 128
"""Bytes of one 128B-swizzle row: every operand row in shared memory is one span (``bk``
bf16 = 64, e4m3 = 128), and the output is staged in 64-column (128-byte) slabs."""

WG_ROWS = 64
"""Rows of the tile one consumer warpgroup owns (the M of ``wgmma m64nNk*``)."""

SMEM_LIMIT = 227 * 1024
"""Shared memory one sm_90a CTA may allocate (dynamic, opted in above 48 KiB)."""

_DTYPES = {"bf16": bf16, "e4m3": e4m3}


@dataclass(frozen=True)
class GemmConfig:
    """The compile-time configuration of one GEMM kernel.

    Attributes:
        dtype: the input type, ``"bf16"`` or ``"e4m3"`` (the output is bf16 either way).
        bn: tile columns (the N of ``wgmma m64nN``): 64, 128, 192 or 256.
        stages: depth of the shared-memory ring.
        cluster: CTAs per cluster along N (1, or 2 to multicast the A tile).
        grouped: the grouped (MoE) form, with a tile-to-group table.
        group_m: row tiles per group of the tile order (see :meth:`_Cta.walk`).
    """

    dtype: str = "bf16"
    bn: int = 256
    stages: int = 3
    cluster: int = 2
    grouped: bool = False
    group_m: int = 8

    def __post_init__(self) -> None:
        if self.dtype not in _DTYPES:
            raise ValueError(f"dtype must be 'bf16' or 'e4m3', got {self.dtype!r}")
        if self.bn not in (64, 128, 192, 256):
            raise ValueError(f"bn must be 64, 128, 192 or 256, got {self.bn}")
        if not 2 <= self.stages <= 8:
            raise ValueError(f"stages must be 2..8, got {self.stages}")
        if self.group_m < 1:
            raise ValueError(f"group_m must be at least 1, got {self.group_m}")
        if self.cluster not in (1, 2):
            raise ValueError(f"cluster must be 1 or 2, got {self.cluster}")
        if self.grouped and self.dtype != "bf16":
            raise ValueError("the grouped GEMM takes bf16 only")
        if self.smem_bytes > SMEM_LIMIT:
            raise ValueError(
                f"bn={self.bn} with {self.stages} stages needs {self.smem_bytes} bytes of "
                f"shared memory, more than the {SMEM_LIMIT} an sm_90a CTA may use; use fewer "
                "stages or a narrower tile"
            )

    @property
    def bm(self) -> int:
        """Tile rows: two consumer warpgroups of 64."""
        return 2 * WG_ROWS

    @property
    def bk(self) -> int:
        """Tile depth: one 128-byte swizzle span of K (64 bf16, 128 e4m3)."""
        return SPAN // self.elem_bytes

    @property
    def b_mn_major(self) -> bool:
        """Whether B is read MN-major from a (K, N) matrix (bf16) or K-major from B^T."""
        return self.dtype == "bf16"

    @property
    def elem_bytes(self) -> int:
        """Bytes per input element."""
        return 2 if self.dtype == "bf16" else 1

    @property
    def k_step(self) -> int:
        """The K of one wgmma: 16 bf16 or 32 e4m3 (32 bytes either way)."""
        return 32 // self.elem_bytes

    @property
    def a_stage_bytes(self) -> int:
        """Bytes of one stage of A (``bm`` rows of one span)."""
        return self.bm * SPAN

    @property
    def b_stage_bytes(self) -> int:
        """Bytes of one stage of B (``bk`` x ``bn`` elements)."""
        return self.bn * SPAN

    @property
    def c_bytes(self) -> int:
        """Bytes of the output staging tile (bf16, ``bm`` x ``bn``)."""
        return self.bm * self.bn * 2

    @property
    def smem_bytes(self) -> int:
        """Shared memory the kernel allocates: the ring, the output staging, the barriers."""
        ring = self.stages * (self.a_stage_bytes + self.b_stage_bytes)
        return ring + self.c_bytes + 16 * self.stages


def ctas_for(config: GemmConfig, m_tiles: int, n_tiles: int, sms: int) -> int:
    """The persistent grid: one CTA per SM at most, whole clusters, no idle cluster."""
    pairs = -(-n_tiles // config.cluster)
    clusters = max(1, min(m_tiles * pairs, sms // config.cluster))
    return clusters * config.cluster


class _Ring:
    """A position in an S-stage mbarrier ring: stage index and phase parity, in registers.

    Stage ``s`` is used for the ``j``-th time when ``phase`` is ``j % 2``: consumers wait for
    ``full[s]`` to complete phase ``phase``, the producer for ``empty[s]`` to complete phase
    ``phase ^ 1`` (its first wait, on the phase "before" the initial one, succeeds at once).
    """

    def __init__(self, stages: int) -> None:
        self.stages = stages
        self.stage = reg.scalar(u32, 0)
        self.phase = reg.scalar(u32, 0)

    def advance(self) -> None:
        """Next stage; flip the parity when the index wraps (add, setp, selp, xor)."""
        ptx.add(self.stage, self.stage, 1)
        wrapped = self.stage == self.stages
        ptx.selp(self.stage, 0, self.stage, wrapped)
        ptx.xor(self.phase, self.phase, 1, pred=wrapped)


@dataclass(frozen=True)
class GemmShape:
    """The problem one kernel is specialized on (the PTX bakes these in as constants).

    Attributes:
        m: rows of A and C (for the grouped form: all groups' rows, each padded to ``bm``).
        n: columns of C.
        k: the reduction dim.
        groups: the grouped form's group count (B is ``(k, groups * n)``); 0 otherwise.
    """

    m: int
    n: int
    k: int
    groups: int = 0


def _specs(cfg: GemmConfig, shape: GemmShape) -> tuple[tuple[Tile, ...], tuple[Tile, ...]]:
    """The kernel's tensors: A, B (and the group table), C."""
    dt = _DTYPES[cfg.dtype]
    m, n, k = shape.m, shape.n, shape.k
    nb = shape.groups * n if cfg.grouped else n  # the grouped B: G matrices side by side
    a = Tile(m, k, dt, layout=Layout.TMA_128B, tma_box=(cfg.bm // cfg.cluster, cfg.bk))
    if cfg.b_mn_major:  # (K, N): loaded as 64-column slabs
        b = Tile(k, nb, dt, layout=Layout.TMA_128B, tma_box=(cfg.bk, SPAN // 2))
    else:  # B^T (N, K): K-major, one box per stage
        b = Tile(nb, k, dt, layout=Layout.TMA_128B, tma_box=(cfg.bn, cfg.bk))
    c = Tile(m, n, bf16, layout=Layout.TMA_128B, tma_box=(WG_ROWS, SPAN // 2))
    ins = (a, b, Tile(m // cfg.bm, s32)) if cfg.grouped else (a, b)
    return ins, (c,)


def build_kernel(cfg: GemmConfig, shape: GemmShape, name: str) -> Kernel:
    """The kernel for ``cfg`` at ``shape``, its PTX entry named ``name``.

    Its one template parameter, ``ctas``, is the number of SMs to fill (default 132, an
    H100 SXM); the grid is :func:`ctas_for` of it. Parameters: A, B (and the group table when
    grouped) as inputs, C as the output.

    Raises:
        ValueError: a grouped shape without groups, or with rows not a multiple of ``bm``.
    """
    if cfg.grouped and (shape.groups < 1 or shape.m % cfg.bm):
        raise ValueError(f"grouped: need groups >= 1 and m a multiple of {cfg.bm}, got {shape}")
    m_tiles, n_tiles = -(-shape.m // cfg.bm), -(-shape.n // cfg.bn)

    def grid(ctas: int) -> tuple[int, int, int]:
        return (ctas_for(cfg, m_tiles, n_tiles, ctas), 1, 1)

    def entry_grouped(a: Any, b: Any, table: Any, c: Any, *, ctas: int = 132) -> None:
        _body(cfg, shape, a, b, table, c)

    def entry(a: Any, b: Any, c: Any, *, ctas: int = 132) -> None:
        _body(cfg, shape, a, b, None, c)

    chosen = entry_grouped if cfg.grouped else entry
    chosen.__name__ = chosen.__qualname__ = name
    ins, outs = _specs(cfg, shape)
    # zero_outputs=False: the persistent walk visits every (row tile, column tile) of C,
    # and each tile's TMA stores cover it, clipped at C's edges only. Grouped: C has the
    # padded rows of A, every 128-row tile of them has a table entry, and padding rows are
    # stored too (the call drops them).
    return kernel(
        in_specs=ins,
        out_specs=outs,
        grid=grid,
        block=(THREADS, 1, 1),
        cluster=(cfg.cluster, 1, 1),
        # ptxas honours setmaxnreg only when it knows the register budget at entry.
        raw_directives=[("maxntid", (THREADS, 1, 1)), ("minnctapersm", (1,))],
        arch="sm_90a",
        zero_outputs=False,
    )(chosen)


@dataclass
class _Cta:
    """What both roles of a CTA share: allocations, ids and the persistent tile walk."""

    cfg: GemmConfig
    shape: GemmShape
    s_a: Any
    s_b: Any
    s_c: Any
    full: Any
    empty: Any
    tid: Reg
    rank: Reg  # this CTA's rank in its cluster (0 without clusters)
    first: Reg  # this cluster's first cluster tile: its index in the grid

    @property
    def k_tiles(self) -> int:
        """k-tiles per output tile (the last one partial when K is not a multiple of bk)."""
        return -(-self.shape.k // self.cfg.bk)

    def walk(self, emit_tile: Callable[[Reg, Reg, Reg], None]) -> None:
        """Run ``emit_tile(tm, m0, n0)`` over this cluster's tiles: the persistent loop.

        ``tm`` is the tile row, ``m0``/``n0`` the first row/column of this CTA's tile. The
        cluster tiles (a row tile by a pair of column tiles) are numbered in groups of
        ``group_m`` row tiles, down the rows first within a group, so that the tiles running
        at the same time share A rows and B columns in L2; cluster ``i`` of ``g`` takes
        tiles ``i``, ``i + g``, ... (one device loop, ``g`` from ``%nclusterid``).
        """
        cfg = self.cfg
        m_tiles, n_tiles = -(-self.shape.m // cfg.bm), -(-self.shape.n // cfg.bn)
        pairs = -(-n_tiles // cfg.cluster)
        count = m_tiles * pairs
        group = min(cfg.group_m, m_tiles)
        t = reg.scalar(u32)
        ptx.mov(t, self.first)
        step = reg.from_(
            ptx.special.nclusterid.x() if cfg.cluster > 1 else ptx.special.nctaid.x(), u32
        )
        rank_cols = self.rank * cfg.bn
        with ptx.if_(t < count), ptx.loop("tile") as top:
            n0 = reg.scalar(u32)
            if pairs == 1:  # one column of tiles: plain order
                tm = t
                ptx.mov(n0, rank_cols)
            else:
                # Group g holds row tiles g * group .. + rows - 1 (rows < group for the last
                # one) by every pair: index r in it is row r % rows, pair r / rows.
                first_row = (t / (group * pairs)) * group
                rows = reg.scalar(u32)
                ptx.sub(rows, m_tiles, first_row)
                ptx.min(rows, rows, group)
                r = t - first_row * pairs
                tm = first_row + r % rows
                ptx.mad(n0, r / rows, cfg.cluster * cfg.bn, rank_cols, mode="lo")
            emit_tile(tm, tm * cfg.bm, n0)
            ptx.add(t, t, step)
            ptx.bra(top, pred=t < count)


def _body(cfg: GemmConfig, shape: GemmShape, a: Any, b: Any, table: Any, c: Any) -> None:
    """The kernel: shared memory, barrier set-up, then one role per warpgroup."""
    dt = _DTYPES[cfg.dtype]
    s_a = smem.wgmma_tile(dt, (cfg.stages, cfg.bm, cfg.bk), name="sA")  # K-major
    if cfg.b_mn_major:
        s_b = smem.wgmma_tile(dt, (cfg.stages, cfg.bk, cfg.bn), major="MN", name="sB")
    else:
        s_b = smem.wgmma_tile(dt, (cfg.stages, cfg.bn, cfg.bk), name="sB")
    # Output staging: per consumer, bn / 64 slabs of 64 rows x 128 bytes, 128B-swizzled like
    # the TMA store box, so one store reads one slab.
    s_c = smem.alloc(bf16, (2, WG_ROWS, cfg.bn), swizzle="128B", align=1024, name="sC")
    full = smem.mbarrier(cfg.stages, name="full")
    empty = smem.mbarrier(cfg.stages, name="empty")

    tid = reg.from_(ptx.special.tid.x(), u32)
    if cfg.cluster > 1:
        rank = reg.from_(ptx.special.cluster_ctarank(), u32)
        first = reg.from_(ptx.special.clusterid.x(), u32)
    else:
        rank = reg.scalar(u32, 0)  # keeps one code path; ptxas folds it
        first = reg.from_(ptx.special.ctaid.x(), u32)
    cta = _Cta(cfg, shape, s_a, s_b, s_c, full, empty, tid, rank, first)

    with ptx.if_(tid == 0):
        for s in range(cfg.stages):
            # full[s]: the producer's arrive.expect_tx; the TMA bytes complete the phase.
            ptx.mbarrier.init(full[s], 1)
            # empty[s]: one arrival per consumer warp of every CTA that reads stage s (with
            # multicast, the peer's producer writes into this CTA's stage too).
            ptx.mbarrier.init(empty[s], CONSUMER_WARPS * cfg.cluster)
        ptx.fence.mbarrier_init()
    # Every CTA's barriers are initialized before a peer multicasts into them or arrives.
    _cta_or_cluster_sync(cfg.cluster)

    with ptx.if_((tid >> 5) < 4):
        ptx.setmaxnreg.dec(PRODUCER_REGS)
        with ptx.if_((tid >> 5) == 0), ptx.if_(ptx.elect.sync()):
            _produce(cta, a, b, table)
    with ptx.else_():
        ptx.setmaxnreg.inc(CONSUMER_REGS)
        _consume(cta, c)

    # Keep this CTA (its shared memory and barriers) alive until the peer has stopped
    # multicasting into it and arriving on its barriers.
    _cta_or_cluster_sync(cfg.cluster)


def _cta_or_cluster_sync(cluster: int) -> None:
    if cluster > 1:
        ptx.cluster.arrive(sem="release", aligned=True)
        ptx.cluster.wait(aligned=True)
    else:
        ptx.bar.sync(0)


def _produce(cta: _Cta, a: Any, b: Any, table: Any) -> None:
    """The producer thread: for every k-tile of every tile, free stage -> TMA loads."""
    cfg = cta.cfg
    desc_a, desc_b = a.tma_desc(), b.tma_desc()
    ptx.prefetch.tensormap(desc_a)
    ptx.prefetch.tensormap(desc_b)
    ring = _Ring(cfg.stages)
    full_base, empty_base = smem.base(cta.full), smem.base(cta.empty)
    half = cfg.bm // cfg.cluster  # rows of A this CTA loads (into every CTA of the pair)
    a_dst0 = reg.scalar(u32)
    ptx.mad(a_dst0, cta.rank, half * SPAN, smem.base(cta.s_a), mode="lo")
    b_dst0 = smem.base(cta.s_b)
    stage_tx = cfg.a_stage_bytes + cfg.b_stage_bytes  # the bytes that complete full[s]
    multicast = (1 << cfg.cluster) - 1 if cfg.cluster > 1 else None
    table_ptr = table.ptr() if table is not None else None

    def produce(tm: Reg, m0: Reg, n0: Reg) -> None:
        a_row = reg.scalar(u32)
        ptx.mad(a_row, cta.rank, half, m0, mode="lo")
        b_col = n0
        if table_ptr is not None:
            # The tile's group g: its B is columns g * N .. g * N + N - 1.
            group, entry = reg.scalar(u32), reg.scalar(u64)
            ptx.mad(entry, tm, 4, table_ptr, mode="wide")
            ptx.ld(group, ptx.addr(entry), space="global", nc=True)
            b_col = reg.scalar(u32)
            ptx.mad(b_col, group, cta.shape.n, n0, mode="lo")
        for kt in ptx.range_(0, cta.k_tiles):
            k0 = kt * cfg.bk
            empty_s, full_s = reg.scalar(u32), reg.scalar(u32)
            ptx.mad(empty_s, ring.stage, 8, empty_base, mode="lo")
            ptx.mad(full_s, ring.stage, 8, full_base, mode="lo")
            # Wait until every consumer warp (of both CTAs) has released the stage.
            ptx.mbarrier.wait(ptx.addr(empty_s), ring.phase ^ 1)
            # Arm full[s] with every byte that lands in this CTA's stage: all of A (half of
            # it multicast by the peer) and this CTA's B.
            ptx.mbarrier.arrive.expect_tx(ptx.addr(full_s), stage_tx)
            a_dst, b_dst = reg.scalar(u32), reg.scalar(u32)
            ptx.mad(a_dst, ring.stage, cfg.a_stage_bytes, a_dst0, mode="lo")
            bar = ptx.addr(full_s)
            if multicast is None:
                ptx.tma.load_2d(ptx.addr(a_dst), desc_a, row=a_row, col=k0, mbar=bar)
            else:
                ptx.tma.load_2d_multicast(
                    ptx.addr(a_dst), desc_a, row=a_row, col=k0, mbar=bar, mask=multicast
                )
            ptx.mad(b_dst, ring.stage, cfg.b_stage_bytes, b_dst0, mode="lo")
            if cfg.b_mn_major:  # bn / 64 slabs of bk rows x 64 columns; slab j is chunk j
                for j in range(cfg.bn // 64):
                    col = b_col + 64 * j if j else b_col
                    dst = ptx.addr(b_dst, j * cfg.bk * SPAN) if j else ptx.addr(b_dst)
                    ptx.tma.load_2d(dst, desc_b, row=k0, col=col, mbar=bar)
            else:
                ptx.tma.load_2d(ptx.addr(b_dst), desc_b, row=b_col, col=k0, mbar=bar)
            ring.advance()

    cta.walk(produce)


def _consume(cta: _Cta, c: Any) -> None:
    """A consumer warpgroup: wgmma over the ring, then the TMA-store epilogue of each tile."""
    cfg, tid = cta.cfg, cta.tid
    dt = _DTYPES[cfg.dtype]
    bn = cfg.bn
    wg = (tid >> 7) - 1  # 0 or 1: rows 64 * wg .. 64 * wg + 63 of the tile
    lane = tid & 31
    leader = (tid & 127) == 0  # issues this warpgroup's TMA stores
    # This warpgroup's 128 threads sync on named barrier 1 or 2 (0 is __syncthreads).
    wg_barrier = ptx.named_barrier(wg + 1, count=128)
    acc = reg.wgmma_frag(bn)
    desc_c = c.tma_desc()

    # Descriptors of stage 0 (this warpgroup's 64 rows of A); a stage adds its size, a k
    # step 32 bytes of K (K-major: +2 in the 16-byte address field) or 16 rows of 128 bytes
    # (MN-major B: +128).
    a_base = reg.scalar(u64)
    ptx.mad(a_base, wg, WG_ROWS * SPAN >> 4, ptx.wgmma.descriptor(cta.s_a[0]), mode="wide")
    b_base = ptx.wgmma.descriptor(cta.s_b[0])
    b_step = cfg.k_step * SPAN >> 4 if cfg.b_mn_major else 2
    full_base, empty_base = smem.base(cta.full), smem.base(cta.empty)
    # A stage is released in every CTA that reads it, both CTAs of a pair: mapa gives the
    # shared::cluster address of each one's empty barriers.
    targets = [ptx.mapa(empty_base, r) for r in range(cfg.cluster)]
    if cfg.cluster == 1:
        targets = [empty_base]
    signaller = ptx.elect.sync()  # one lane per consumer warp arrives

    # Epilogue addresses. stmatrix .x4 stores four 8x8 bf16 matrices, lane l giving the
    # address of row l % 8 of matrix l / 8. For columns 16p .. 16p + 15 of this warp's 16
    # rows the matrices are (rows 0-7, cols +0), (rows 8-15, +0), (rows 0-7, +8),
    # (rows 8-15, +8), so lane l writes row 16w + l % 16, 16-byte chunk 2p + l / 16. The
    # 128B swizzle XORs the chunk index (mod 8) with the row (mod 8) = l % 8: chunk
    # (2 * (p % 4) + l / 16) ^ (l % 8) of slab p / 4. Four address registers (p % 4); the
    # slab is an immediate offset.
    wg_stage = reg.scalar(u32)
    ptx.mad(wg_stage, wg, WG_ROWS * bn * 2, smem.base(cta.s_c), mode="lo")
    row = (((tid >> 5) & 3) << 4) | (lane & 15)
    chunk = ((lane >> 4) << 4) ^ ((lane & 7) << 4)
    row_base = reg.scalar(u32)
    ptx.mad(row_base, row, SPAN, wg_stage, mode="lo")
    rows = [row_base + (chunk ^ (32 * q) if q else chunk) for q in range(4)]

    ring = _Ring(cfg.stages)
    stage8 = reg.scalar(u32)  # 8 * stage: the offset of the stage's barriers
    previous8 = reg.scalar(u32)  # the same for the k-tile before

    def release(offset: Reg) -> None:
        """Arrive on the empty barrier at ``offset`` of every CTA that read the stage."""
        for target in targets:
            ptx.mbarrier.arrive(
                ptx.addr(target + offset), sem="release", scope="cluster", space="shared::cluster"
            )

    def consume(tm: Reg, m0: Reg, n0: Reg) -> None:
        for kt in ptx.range_(0, cta.k_tiles):
            ptx.shl(stage8, ring.stage, 3)
            ptx.mbarrier.wait(ptx.addr(full_base + stage8), ring.phase)
            a_d, b_d = reg.scalar(u64), reg.scalar(u64)
            ptx.mad(a_d, ring.stage, cfg.a_stage_bytes >> 4, a_base, mode="wide")
            ptx.mad(b_d, ring.stage, cfg.b_stage_bytes >> 4, b_base, mode="wide")
            accumulate = kt != 0  # the tile's first MMA overwrites the accumulators
            ptx.wgmma.fence()  # orders the epilogue's reads of the accumulators before it
            for kk in range(cfg.bk // cfg.k_step):
                ptx.wgmma.mma_async(
                    acc,
                    a_d + 2 * kk if kk else a_d,
                    b_d + b_step * kk if kk else b_d,
                    dtype_a=dt,
                    scale_d=accumulate if kk == 0 else 1,
                    trans_b=1 if cfg.b_mn_major else None,
                )
            ptx.wgmma.commit_group()
            # Keep this k-tile's MMAs in flight; once the previous k-tile's have completed
            # (wait_group 1), they have read their stage, which may then be refilled.
            ptx.wgmma.wait_group(1)
            with ptx.if_(accumulate & signaller):
                release(previous8)
            ptx.mov(previous8, stage8)
            ring.advance()
        ptx.wgmma.wait_group(0)  # the accumulators are final; the last stage is read
        with ptx.if_(signaller):
            release(previous8)
        _epilogue(cfg, acc, rows, wg_stage, leader, wg_barrier, desc_c, wg, m0, n0)

    cta.walk(consume)
    # Shared memory must outlive the last stores' reads (and the CTA their writes).
    with ptx.if_(leader):
        ptx.cp.async_.bulk.wait_group(0)


def _epilogue(
    cfg: GemmConfig,
    acc: Any,
    rows: list[Reg],
    wg_stage: Reg,
    leader: Reg,
    wg_barrier: ptx.NamedBarrier,
    desc_c: Reg,
    wg: Reg,
    m0: Reg,
    n0: Reg,
) -> None:
    """Registers -> bf16 -> swizzled staging (stmatrix) -> TMA stores of this warpgroup."""
    slab = WG_ROWS * SPAN
    # The previous tile's stores must have read the staging tile before it is rewritten:
    # the thread that issued them waits, the barrier holds everyone else.
    with ptx.if_(leader):
        ptx.cp.async_.bulk.wait_group(0, read=True)
    wg_barrier.sync()
    # wgmma fragment: d[4j], d[4j+1] are row 16w + l / 4, columns 8j + 2 (l % 4) + 0, 1;
    # d[4j+2], d[4j+3] the same columns 8 rows down: exactly the 8x8 matrix fragments of
    # stmatrix, four per 16 columns.
    for p in range(cfg.bn // 16):
        packed = reg.array(bf16x2, 4)
        for i in range(4):  # the upper half holds the odd column (little-endian)
            ptx.cvt(packed[i], acc[8 * p + 2 * i + 1], acc[8 * p + 2 * i], rnd="rn")
        ptx.stmatrix(ptx.addr(rows[p % 4], (p // 4) * slab), packed)
    # Generic-proxy writes become visible to the TMA (async proxy) after this fence; the
    # barrier then waits for every thread's writes and fence.
    ptx.fence.proxy.async_("shared::cta")
    wg_barrier.sync()
    with ptx.if_(leader):
        m_row = reg.scalar(u32)
        ptx.mad(m_row, wg, WG_ROWS, m0, mode="lo")
        for j in range(cfg.bn // 64):  # rows or columns past C's edge are clipped
            ptx.tma.store_2d(
                desc_c,
                ptx.addr(wg_stage, j * slab) if j else ptx.addr(wg_stage),
                row=m_row,
                col=n0 + 64 * j if j else n0,
            )
        ptx.cp.async_.bulk.commit_group()
