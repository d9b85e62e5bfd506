"""Shared-memory allocations, mbarrier arrays and address helpers (public as ``pyptx.smem``)."""

from __future__ import annotations

from dataclasses import dataclass

from pyptx.ir import Align, Declarator, PtxType, StateSpace, Symbol, VariableDecl

from ._trace import EXTRA_SMEM_PLACEHOLDER, current
from .errors import PtxDslError
from .operands import Addr, addr, emit_inst
from .regs import Reg, _new

__all__ = [
    "MbarrierArray",
    "MbarrierRef",
    "SharedAlloc",
    "SharedSlice",
    "alloc",
    "alloc_with_layout",
    "base",
    "load",
    "mbarrier",
    "store",
]

_SWIZZLES = (None, "32B", "64B", "128B")


@dataclass(frozen=True)
class SharedAlloc:
    """A shared-memory allocation (``.shared .align A .b8 name[bytes];``).

    Attributes:
        name: the PTX symbol (also ``symbol``, so it can be an address base).
        dtype: element type.
        shape: element shape; the first dimension is the pipeline stage when staged.
        swizzle: the swizzle mode the data is laid out with (``"128B"``...), or ``None``.
        gmma_layout: layout metadata for wgmma descriptor synthesis (from ``wgmma_tile``).
        gmma_major: ``"K"`` or ``"MN"`` for wgmma operands.
        align: byte alignment.
    """

    name: str
    dtype: PtxType
    shape: tuple[int, ...]
    swizzle: str | None = None
    gmma_layout: object | None = None
    gmma_major: str | None = None
    align: int = 128

    @property
    def symbol(self) -> str:
        """The PTX symbol of the allocation."""
        return self.name

    @property
    def nbytes(self) -> int:
        """Size in bytes."""
        n = 1
        for d in self.shape:
            n *= d
        return n * max(self.dtype.bits, 8) // 8

    @property
    def stage_bytes(self) -> int:
        """Bytes of one stage (one index of the first dimension)."""
        return self.nbytes // self.shape[0] if self.shape else self.nbytes

    def __getitem__(self, stage: int) -> SharedSlice:
        if not isinstance(stage, int) or isinstance(stage, bool):
            raise PtxDslError(
                f"index {self.name} with a Python int stage (got {type(stage).__name__}); "
                "for a register index compute the address with ptx.addr(base + offset)"
            )
        if not 0 <= stage < (self.shape[0] if self.shape else 1):
            raise PtxDslError(
                f"stage {stage} is out of range for {self.name} of shape {self.shape}"
            )
        return SharedSlice(self, stage)

    def addr(self, offset: int = 0) -> Addr:
        """``[name+offset]``."""
        return addr(self, offset)


@dataclass(frozen=True)
class SharedSlice:
    """Stage ``stage`` of a :class:`SharedAlloc`: the address ``[name+stage*stage_bytes]``."""

    alloc: SharedAlloc
    stage: int

    @property
    def name(self) -> str:
        """The underlying allocation's symbol."""
        return self.alloc.name

    @property
    def offset(self) -> int:
        """Byte offset of this stage within the allocation."""
        return self.stage * self.alloc.stage_bytes

    def addr(self, offset: int = 0) -> Addr:
        """``[name+stage_offset+offset]``."""
        return addr(self.alloc, self.offset + offset)


@dataclass(frozen=True)
class MbarrierArray:
    """``count`` 8-byte mbarrier objects in shared memory; index it for an :class:`MbarrierRef`."""

    name: str
    count: int

    @property
    def symbol(self) -> str:
        """The PTX symbol of the array."""
        return self.name

    def __getitem__(self, idx: int) -> MbarrierRef:
        if not isinstance(idx, int) or isinstance(idx, bool) or not 0 <= idx < self.count:
            raise PtxDslError(f"mbarrier index must be an int in [0, {self.count}), got {idx!r}")
        return MbarrierRef(self, idx)


@dataclass(frozen=True)
class MbarrierRef:
    """One mbarrier of an array: the address ``[name+8*idx]``."""

    array: MbarrierArray
    idx: int

    @property
    def name(self) -> str:
        """The array's symbol."""
        return self.array.name

    @property
    def byte_offset(self) -> int:
        """Byte offset within the array."""
        return 8 * self.idx

    def addr(self) -> Addr:
        """``[name+8*idx]``."""
        return addr(self.array, self.byte_offset)


def _declare(name: str | None, stem: str, ty: PtxType, count: int, align: int) -> str:
    trace = current()
    sym = trace.claim_name(name) if name else trace.unique_name(stem)
    decl = VariableDecl((StateSpace.SHARED, Align(align), ty), (Declarator(sym, (count,)),))
    trace.shared_decls.append(decl)
    trace.shared_bytes = (trace.shared_bytes + align - 1) // align * align + count * ty.bits // 8
    return sym


def alloc_with_layout(
    dtype: PtxType,
    shape: tuple[int, ...] | int,
    swizzle: str | None = None,
    align: int | None = None,
    name: str | None = None,
    *,
    gmma_layout: object | None = None,
    gmma_major: str | None = None,
) -> SharedAlloc:
    """Like :func:`alloc`, also recording wgmma layout metadata (used by ``wgmma_tile``)."""
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    if not dims or any(not isinstance(d, int) or d <= 0 for d in dims):
        raise PtxDslError(f"smem.alloc needs a positive int shape, got {shape!r}")
    if swizzle not in _SWIZZLES:
        raise PtxDslError(f"swizzle must be one of 32B, 64B, 128B or None, got {swizzle!r}")
    a = align if align is not None else 128
    if a <= 0 or a & (a - 1):
        raise PtxDslError(f"alignment must be a power of two, got {a}")
    n = 1
    for d in dims:
        n *= d
    nbytes = n * max(dtype.bits, 8) // 8
    sym = _declare(name, "smem", PtxType.B8, nbytes, a)
    return SharedAlloc(sym, dtype, dims, swizzle, gmma_layout, gmma_major, a)


def alloc(
    dtype: PtxType,
    shape: tuple[int, ...] | int,
    swizzle: str | None = None,
    align: int | None = None,
    name: str | None = None,
) -> SharedAlloc:
    """Allocate shared memory: declares ``.shared .align A .b8 name[bytes];`` (no instruction).

    Args:
        dtype: element type.
        shape: element shape, e.g. ``(STAGES, BM, BK)``, or a flat count.
        swizzle: the swizzle mode the data will be stored with (metadata for helpers).
        align: byte alignment (default 128).
        name: the symbol (default ``smem_<n>``).

    Above 48 KB of shared memory in total the kernel switches to dynamic shared memory:
    allocations become offsets into ``extern .shared dyn_smem[]``.
    """
    return alloc_with_layout(dtype, shape, swizzle, align, name)


def mbarrier(count: int, name: str | None = None) -> MbarrierArray:
    """Declare ``.shared .align 8 .b8 name[8*count];`` for ``count`` mbarriers (no instruction)."""
    if not isinstance(count, int) or count <= 0:
        raise PtxDslError(f"smem.mbarrier needs a positive int count, got {count!r}")
    sym = _declare(name, "mbar", PtxType.B8, 8 * count, 8)
    return MbarrierArray(sym, count)


def base(name: str | SharedAlloc | MbarrierArray | None = None) -> Reg:
    """A ``u32`` register with a shared-memory address (``mov.u32 r, name;``, one instruction).

    Without a name: the start of the kernel's own dynamic shared memory region, the
    ``smem=<bytes>`` of ``@kernel``, which follows every ``smem.alloc`` in ``dyn_smem``.
    """
    if name is None:
        sym = EXTRA_SMEM_PLACEHOLDER
        current().names.add(sym)
    elif isinstance(name, str):
        sym = name
    else:
        sym = name.symbol
    r = _new(PtxType.U32)
    emit_inst("mov", ("u32",), (r, Symbol(sym)))
    return r


def load(dtype: PtxType, address: object) -> Reg:
    """``ld.shared.<dtype> r, [address];`` (one instruction); returns ``r``."""
    r = _new(dtype)
    emit_inst("ld", ("shared", dtype.value), (r, _as_addr(address)))
    return r


def store(dtype: PtxType, address: object, value: object) -> None:
    """``st.shared.<dtype> [address], value;`` (one instruction)."""
    emit_inst("st", ("shared", dtype.value), (_as_addr(address), value))


def _as_addr(address: object) -> object:
    if isinstance(address, Addr):
        return address
    if isinstance(address, (SharedSlice, MbarrierRef)):
        return address.addr()
    if isinstance(address, (Reg, SharedAlloc, MbarrierArray)):
        return addr(address)
    raise PtxDslError(
        f"a shared address must be a register, allocation, slice, mbarrier or ptx.addr(...), "
        f"got {type(address).__name__}"
    )
