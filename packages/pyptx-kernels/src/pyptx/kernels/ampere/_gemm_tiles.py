"""Tile configuration and shared-memory swizzle of the Ampere GEMM (pure Python, no tracing).

:class:`TileConfig` holds the build configuration of :mod:`pyptx.kernels.ampere.gemm` and the
sizes derived from it; :func:`swizzled_offset` is the layout of a shared-memory tile, the
one formula both the ``cp.async`` writers and the ``ldmatrix`` readers follow (the kernel
evaluates it in registers; tests evaluate it here).

The swizzle. A tile is stored row by row, ``row_bytes`` per row, in 16-byte *chunks* (8
bf16/f16 values, one ``cp.async`` and one ``ldmatrix`` row). Shared memory has 32 banks of 4
bytes, so a 128-byte *line* holds 8 chunks and chunk ``q`` of a line sits in banks
``4q..4q+3``. One ``ldmatrix`` phase reads 8 chunks (the 8 rows of one 8x8 matrix); it is
conflict free when those 8 chunks fall in 8 different chunk positions of their lines. Stored
plainly they do not: with 64-byte rows, rows ``r`` and ``r + 2`` put chunk ``c`` in the same
position (4-way conflict for 8 rows); with 256-byte rows all 8 rows do (8-way conflict).

So chunk ``c`` of row ``r`` is stored at chunk ``c ^ f(r)`` of the same row, with
``f(r) = (r // rows_per_line) % xor_span`` where ``rows_per_line = max(1, 128 // row_bytes)``
and ``xor_span = min(row_bytes // 16, 8)``: the rows sharing a line keep their halves (or
quarters), and consecutive lines rotate their chunks by XOR. ``f`` repeats every 8 rows, so
any 8 consecutive rows starting at a multiple of 8 (one ldmatrix matrix, or one
``cp.async`` pass of whole lines) see 8 distinct chunk positions, and adding a multiple of 8
to a row never changes ``f``: offsets of whole 8-row groups stay immediates. The XOR only
touches the low ``log2(xor_span)`` bits of the chunk index, so a chunk never leaves its row.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._registry import KernelUnavailable

__all__ = ["DTYPES", "SMEM_LIMIT", "TileConfig", "swizzle_xor", "swizzled_offset"]

DTYPES = ("bf16", "f16")
"""The element types the kernel takes (inputs and output)."""

SMEM_LIMIT = 163 * 1024
"""Shared memory one CTA may use on an sm_80 GPU (A100: 164 KB per SM, 163 KB per block)."""

CHUNK = 16
"""Bytes per ``cp.async`` copy and per ``ldmatrix`` row: 8 two-byte elements."""

ELEM = 2
"""Bytes per element (bf16 and f16)."""


def swizzle_xor(row: int, row_bytes: int) -> int:
    """``f(row)``: the XOR applied to the chunk index of ``row`` (see the module docstring)."""
    rows_per_line = max(1, 128 // row_bytes)
    xor_span = min(row_bytes // CHUNK, 8)
    return (row // rows_per_line) % xor_span


def swizzled_offset(row: int, chunk: int, row_bytes: int) -> int:
    """Byte offset of 16-byte chunk ``chunk`` of ``row`` in a swizzled tile."""
    return row * row_bytes + (chunk ^ swizzle_xor(row, row_bytes)) * CHUNK


def _power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


@dataclass(frozen=True)
class TileConfig:
    """One configuration of the Ampere GEMM and the sizes that follow from it.

    Attributes:
        dtype: ``"bf16"`` or ``"f16"``: A, B and C.
        block_m: rows of C per CTA.
        block_n: columns of C per CTA.
        block_k: the k-tile: elements of K per pipeline stage.
        warps_m: warps along M (each owns ``block_m // warps_m`` rows).
        warps_n: warps along N (each owns ``block_n // warps_n`` columns).
        stages: depth of the ``cp.async`` ring (k-tiles in shared memory at once).
        group_m: rows of output tiles the CTA order walks down before moving right (L2
            reuse; 1 is plain row-major order).
    """

    dtype: str = "bf16"
    block_m: int = 128
    block_n: int = 128
    block_k: int = 32
    warps_m: int = 2
    warps_n: int = 2
    stages: int = 4
    group_m: int = 8

    def __post_init__(self) -> None:
        problems = []
        if self.dtype not in DTYPES:
            problems.append(f"dtype {self.dtype!r} is not one of {DTYPES}")
        for name in ("block_m", "block_n", "block_k", "warps_m", "warps_n"):
            if not _power_of_two(getattr(self, name)):
                problems.append(f"{name}={getattr(self, name)} is not a power of two")
        if problems:
            raise KernelUnavailable(f"Ampere GEMM config: {'; '.join(problems)}")
        if self.block_k < 16:
            problems.append(f"block_k={self.block_k} is below one mma k-step (16)")
        if self.warp_m % 16 or self.warp_n % 16:
            problems.append(
                f"the warp tile {self.warp_m}x{self.warp_n} is not a multiple of 16x16 "
                "(one ldmatrix.x4 of A and of B)"
            )
        if self.threads > 1024:
            problems.append(f"{self.threads} threads per CTA (at most 1024)")
        if self.group_m < 1:
            problems.append(f"group_m={self.group_m} (at least 1)")
        if self.stages < 2:
            problems.append(f"stages={self.stages} (a pipeline needs at least 2)")
        for name, cpr, rows in (("A", self.a_chunks, self.block_m), ("B", self.b_chunks, 0)):
            rows = rows or self.block_k
            if self.threads % cpr or (rows * cpr) % self.threads:
                problems.append(
                    f"the {name} tile ({rows} rows of {cpr} chunks) does not split into "
                    f"whole rows over {self.threads} threads"
                )
        if self.smem_bytes > SMEM_LIMIT:
            problems.append(f"{self.smem_bytes} bytes of shared memory (at most {SMEM_LIMIT})")
        if problems:
            raise KernelUnavailable(f"Ampere GEMM config: {'; '.join(problems)}")

    @property
    def threads(self) -> int:
        """Threads per CTA."""
        return 32 * self.warps_m * self.warps_n

    @property
    def warp_m(self) -> int:
        """Rows of C per warp."""
        return self.block_m // self.warps_m

    @property
    def warp_n(self) -> int:
        """Columns of C per warp."""
        return self.block_n // self.warps_n

    @property
    def a_row_bytes(self) -> int:
        """Bytes per row of the A tile in shared memory (``block_k`` elements)."""
        return self.block_k * ELEM

    @property
    def b_row_bytes(self) -> int:
        """Bytes per row of the B tile in shared memory (``block_n`` elements)."""
        return self.block_n * ELEM

    @property
    def a_chunks(self) -> int:
        """16-byte chunks per A tile row."""
        return self.a_row_bytes // CHUNK

    @property
    def b_chunks(self) -> int:
        """16-byte chunks per B tile row."""
        return self.b_row_bytes // CHUNK

    @property
    def a_stage_bytes(self) -> int:
        """Bytes of one stage of A (``block_m x block_k``)."""
        return self.block_m * self.a_row_bytes

    @property
    def b_stage_bytes(self) -> int:
        """Bytes of one stage of B (``block_k x block_n``)."""
        return self.block_k * self.b_row_bytes

    @property
    def smem_bytes(self) -> int:
        """Shared memory of the whole ring, A and B."""
        return self.stages * (self.a_stage_bytes + self.b_stage_bytes)

    @property
    def name(self) -> str:
        """The PTX entry name, e.g. ``gemm_bf16_128x128x32_w2x2_s4_g8``."""
        return (
            f"gemm_{self.dtype}_{self.block_m}x{self.block_n}x{self.block_k}"
            f"_w{self.warps_m}x{self.warps_n}_s{self.stages}_g{self.group_m}"
        )
