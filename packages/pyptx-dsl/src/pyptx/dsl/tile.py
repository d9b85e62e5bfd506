"""Tensor boundary specs: :class:`Tile` (shape, dtype, layout) and :class:`Layout`."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from pyptx.ir import PtxType

from .errors import PtxDslError

__all__ = ["Dim", "Layout", "Tile"]

Dim = int | str
"""A tile dimension: a concrete int, or a symbolic name bound when the kernel is traced."""


class Layout(enum.Enum):
    """Memory layout of a tile.

    ``ROW`` row-major (C order); ``COL`` column-major (Fortran order); ``TMA_128B`` /
    ``TMA_64B`` / ``TMA_32B`` loaded by TMA with that swizzle (Hopper+); ``INTERLEAVED`` the
    CUTLASS interleaved layout.
    """

    ROW = "row"
    COL = "col"
    TMA_128B = "tma_128b"
    TMA_64B = "tma_64b"
    TMA_32B = "tma_32b"
    INTERLEAVED = "interleaved"

    @property
    def is_tma(self) -> bool:
        """Whether tiles with this layout are passed as TMA descriptors."""
        return self in (Layout.TMA_128B, Layout.TMA_64B, Layout.TMA_32B)

    @property
    def swizzle_bytes(self) -> int | None:
        """The TMA swizzle width in bytes, or ``None`` for non-TMA layouts."""
        return {Layout.TMA_128B: 128, Layout.TMA_64B: 64, Layout.TMA_32B: 32}.get(self)


_TYPE_NAMES = {t.value: t for t in PtxType} | {
    "bfloat16": PtxType.BF16,
    "float16": PtxType.F16,
    "float32": PtxType.F32,
    "float64": PtxType.F64,
    "int8": PtxType.S8,
    "int16": PtxType.S16,
    "int32": PtxType.S32,
    "int64": PtxType.S64,
    "uint8": PtxType.U8,
    "uint16": PtxType.U16,
    "uint32": PtxType.U32,
    "uint64": PtxType.U64,
    "bool": PtxType.PRED,
    "float8_e4m3fn": PtxType.E4M3,
    "float8_e5m2": PtxType.E5M2,
}


@dataclass(frozen=True, init=False)
class Tile:
    """A tensor spec: shape + dtype + layout (+ TMA box for TMA-loaded tiles).

    ``Tile("M", "K", bf16)`` is an MxK bf16 row-major tensor whose M and K are bound when the
    kernel is traced (``kernel.ptx(M=..., K=...)``) or launched (from the array shapes).

    Args:
        *dims_and_dtype: the dimensions (ints or names), then optionally the dtype and layout.
        dtype: the element type (instead of passing it positionally).
        layout: the memory layout.
        tma_box: the box one TMA load brings in (defaults to the whole tensor).
        tma_rank: 2 for a plain descriptor, 3 for the reshaped Hopper GEMM form.
        tma_padding: request the padded innermost store box (``tma_rank=3`` only).

    Raises:
        PtxDslError: no dtype, a bad dimension, or an inconsistent TMA setting.
    """

    dims: tuple[Dim, ...]
    dtype: PtxType
    layout: Layout
    tma_box: tuple[Dim, ...] | None
    tma_rank: int
    tma_padding: bool

    def __init__(
        self,
        *dims_and_dtype: Dim | PtxType | Layout,
        dtype: PtxType | None = None,
        layout: Layout = Layout.ROW,
        tma_box: tuple[Dim, ...] | None = None,
        tma_rank: int = 2,
        tma_padding: bool = False,
    ) -> None:
        dims: list[Dim] = []
        for item in dims_and_dtype:
            if isinstance(item, PtxType):
                dtype = item
            elif isinstance(item, Layout):
                layout = item
            elif isinstance(item, (int, str)) and not isinstance(item, bool):
                if isinstance(item, int) and item <= 0:
                    raise PtxDslError(f"Tile dimensions must be positive, got {item}")
                dims.append(item)
            else:
                raise PtxDslError(f"Tile takes int/str dims, a dtype and a Layout, got {item!r}")
        if dtype is None:
            raise PtxDslError("Tile needs a dtype, e.g. Tile('M', 'K', bf16)")
        if tma_rank not in (2, 3):
            raise PtxDslError(f"tma_rank must be 2 or 3, got {tma_rank}")
        if tma_padding and tma_rank != 3:
            raise PtxDslError("tma_padding only applies to tma_rank=3 tiles")
        object.__setattr__(self, "dims", tuple(dims))
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "layout", layout)
        object.__setattr__(self, "tma_box", tuple(tma_box) if tma_box is not None else None)
        object.__setattr__(self, "tma_rank", tma_rank)
        object.__setattr__(self, "tma_padding", tma_padding)

    @property
    def rank(self) -> int:
        """Number of dimensions."""
        return len(self.dims)

    @property
    def symbolic_dims(self) -> tuple[str, ...]:
        """The symbolic dimension names, in order of first appearance."""
        out: list[str] = []
        for d in (*self.dims, *(self.tma_box or ())):
            if isinstance(d, str) and d not in out:
                out.append(d)
        return tuple(out)

    def resolve_shape(self, env: dict[str, int]) -> tuple[int, ...]:
        """Resolve symbolic dims with ``env``.

        Raises:
            PtxDslError: a symbolic dim is missing from ``env``.
        """
        out = []
        for d in self.dims:
            if isinstance(d, str):
                if d not in env:
                    raise PtxDslError(f"dimension {d!r} is not bound; pass {d}=<int>")
                out.append(env[d])
            else:
                out.append(d)
        return tuple(out)

    def matches(self, array_shape: tuple[int, ...], array_dtype_name: str) -> bool:
        """Whether an array's rank, concrete dims and dtype fit this tile (symbols not checked)."""
        if len(array_shape) != self.rank or _TYPE_NAMES.get(array_dtype_name) is not self.dtype:
            return False
        return all(
            isinstance(d, str) or d == s for d, s in zip(self.dims, array_shape, strict=True)
        )

    def extract_env(self, array_shape: tuple[int, ...]) -> dict[str, int]:
        """Bind this tile's symbolic dims from a concrete shape.

        Raises:
            PtxDslError: the rank differs, a concrete dim differs, or one name gets two values.
        """
        if len(array_shape) != self.rank:
            raise PtxDslError(f"expected a rank-{self.rank} array, got shape {array_shape}")
        env: dict[str, int] = {}
        for d, s in zip(self.dims, array_shape, strict=True):
            if isinstance(d, str):
                if env.setdefault(d, s) != s:
                    raise PtxDslError(f"dimension {d!r} is both {env[d]} and {s}")
            elif d != s:
                raise PtxDslError(f"expected dimension {d}, got {s} (shape {array_shape})")
        return env

    @staticmethod
    def _tma_layout(inner: Dim, dtype: PtxType) -> Layout:
        if isinstance(inner, str):
            return Layout.ROW
        width = inner * dtype.bits // 8
        for size, layout in ((128, Layout.TMA_128B), (64, Layout.TMA_64B), (32, Layout.TMA_32B)):
            if width % size == 0:
                return layout
        return Layout.ROW

    @classmethod
    def wgmma_a(
        cls, m: Dim, k: Dim, dtype: PtxType, *, tile_m: Dim | None = None, tile_k: Dim | None = None
    ) -> Tile:
        """A wgmma A operand (row-major MxK, K-major) loaded by TMA in (tile_m, tile_k) boxes.

        The swizzle is picked from the bytes of one box row (128/64/32B); symbolic K gives
        ``Layout.ROW`` and leaves the choice to the runtime.
        """
        box_k = tile_k if tile_k is not None else k
        layout = cls._tma_layout(box_k, dtype)
        return cls(m, k, dtype, layout=layout, tma_box=(tile_m if tile_m is not None else m, box_k))

    @classmethod
    def wgmma_b(
        cls, k: Dim, n: Dim, dtype: PtxType, *, tile_k: Dim | None = None, tile_n: Dim | None = None
    ) -> Tile:
        """A wgmma B operand (row-major KxN, MN-major) loaded by TMA in (tile_k, tile_n) boxes."""
        box_n = tile_n if tile_n is not None else n
        layout = cls._tma_layout(box_n, dtype)
        return cls(k, n, dtype, layout=layout, tma_box=(tile_k if tile_k is not None else k, box_n))
