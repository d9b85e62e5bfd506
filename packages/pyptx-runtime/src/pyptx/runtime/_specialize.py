"""Specializations: a kernel traced for one set of template parameters, dims and target.

A :class:`Specialization` holds everything a launch needs that does not change from call to
call: the PTX, grid/block/cluster, the shared memory size, and a plan saying how each kernel
parameter is fed (a buffer's address, a TMA descriptor over a buffer, or scalar bytes). They
are cached per kernel (weakly: dropping the kernel drops its specializations) and keyed by
the template parameters, the dims (so shapes) and the target.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import os
import struct
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pyptx.dsl.kernel import Kernel, TracedKernel
from pyptx.dsl.tile import Tile
from pyptx.emitter import emit, instruction_lines
from pyptx.ir import PtxType, TypeKind

from ._binding import launch_dims

__all__ = [
    "ParamPlan",
    "ParamSource",
    "Specialization",
    "specializations",
    "specialize",
    "specialize_bound",
]


class ParamSource(enum.Enum):
    """How one kernel parameter gets its value at launch."""

    POINTER = "pointer"
    """A ``.u64`` global address: the buffer's data pointer."""
    TENSOR_MAP = "tensor_map"
    """A 128-byte ``CUtensorMap`` over the buffer, passed by value."""
    SCALAR = "scalar"
    """A ``raw_params`` value, packed little-endian."""


@dataclass(frozen=True)
class ParamPlan:
    """One kernel parameter's source.

    Attributes:
        kind: pointer, tensor map or scalar.
        index: the buffer index (inputs then outputs) or the scalar's byte offset.
        size: the parameter's size in bytes.
        tile: the buffer's spec (pointers and tensor maps).
        type: the scalar's PTX type (scalars).
    """

    kind: ParamSource
    index: int
    size: int
    tile: Tile | None = None
    type: PtxType | None = None


@dataclass(frozen=True)
class Specialization:
    """A kernel traced for one call signature, with its launch configuration.

    Attributes:
        kernel_name: the PTX entry name.
        arch: the target the PTX was traced for.
        traced: the DSL's result (module, shared memory, Python lines).
        ptx: the PTX text.
        instruction_lines: the PTX line of each instruction (for error messages).
        grid: CTAs per grid, x/y/z.
        block: threads per CTA, x/y/z.
        cluster: CTAs per cluster, x/y/z.
        dynamic_smem: dynamic shared memory bytes to launch with.
        params: how each kernel parameter is fed, in declaration order.
        dims: the symbolic dims this specialization was traced for.
        handle: a 63-bit hash of the PTX, the launch configuration and the dims, naming
            this specialization in the launch shim (and in JAX's custom calls).
    """

    kernel_name: str
    arch: str
    traced: TracedKernel
    ptx: str
    instruction_lines: tuple[int, ...]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    cluster: tuple[int, int, int]
    dynamic_smem: int
    params: tuple[ParamPlan, ...]
    dims: tuple[tuple[str, int], ...]
    handle: int

    @property
    def scalar_bytes(self) -> int:
        """Size of the packed scalar block."""
        ends = [p.index + p.size for p in self.params if p.kind is ParamSource.SCALAR]
        return max(ends, default=0)

    @functools.cached_property
    def scalar_struct(self) -> struct.Struct:
        """One ``struct`` layout for every scalar, padding included (built once)."""
        fmt, offset = "<", 0
        for plan in self.params:
            if plan.kind is ParamSource.SCALAR:
                assert plan.type is not None
                fmt += "x" * (plan.index - offset) + _struct_code(plan.type)
                offset = plan.index + plan.size
        return struct.Struct(fmt)

    def pack_scalars(self, values: Sequence[int | float]) -> bytes:
        """The ``raw_params`` values packed as the shim and the param buffer want them."""
        return self.scalar_struct.pack(*values)


def _struct_code(ty: PtxType) -> str:
    size = max(ty.bits // 8, 1)
    if ty.kind is TypeKind.FLOAT:
        return {2: "e", 4: "f", 8: "d"}[size]
    code = {1: "b", 2: "h", 4: "i", 8: "q"}[size]
    return code if ty.kind is TypeKind.SIGNED else code.upper()


def _plan(kernel: Kernel) -> tuple[ParamPlan, ...]:
    plans: list[ParamPlan] = []
    for i, tile in enumerate(kernel.in_specs + kernel.out_specs):
        kind = ParamSource.TENSOR_MAP if tile.layout.is_tma else ParamSource.POINTER
        plans.append(ParamPlan(kind, i, 128 if tile.layout.is_tma else 8, tile=tile))
    offset = 0
    for ty_name, _ in kernel.raw_params:
        ty = PtxType.from_name(ty_name)
        assert ty is not None  # the DSL checked raw_params when tracing
        size = max(ty.bits // 8, 1)
        offset = (offset + size - 1) // size * size
        plans.append(ParamPlan(ParamSource.SCALAR, offset, size, type=ty))
        offset += size
    return tuple(plans)


def _handle(ptx: str, *config: object) -> int:
    h = hashlib.sha256(ptx.encode())
    h.update(repr(config).encode())
    return int.from_bytes(h.digest()[:8], "little") & ((1 << 63) - 1)


# id(kernel) -> its specializations; a finalizer drops the entry with the kernel (a plain dict
# is faster than a WeakKeyDictionary on the launch path). Values never reference the kernel.
_CACHE: dict[int, dict[object, Specialization]] = {}
_LOCK = threading.Lock()


def specializations(kernel: Kernel) -> list[Specialization]:
    """The specializations of ``kernel`` traced so far (for inspection and tests)."""
    return list(_CACHE.get(id(kernel), {}).values())


def specialize_bound(
    kernel: Kernel,
    template: tuple[tuple[str, Any], ...],
    dims: tuple[tuple[str, Any], ...],
) -> Specialization:
    """:func:`specialize` for already sorted ``template`` and ``dims`` items (the hot path)."""
    if kernel.arch != "auto":
        found = _CACHE.get(id(kernel), {}).get((template, dims, None))
        if found is not None:
            return found
    return specialize(kernel, dict(template), dict(dims))


def specialize(
    kernel: Kernel, template: Mapping[str, Any], dims: Mapping[str, int], arch: str | None = None
) -> Specialization:
    """The kernel traced for ``template`` and ``dims`` (cached).

    Args:
        kernel: the kernel.
        template: its template parameters (all of them, defaults filled in).
        dims: every symbolic dim's value.
        arch: the target to trace for; ``None`` keeps the kernel's own (``"auto"`` resolves
            to the GPU's target, or the emulator's ``sm_90a``).

    Raises:
        PtxDslError: the kernel body fails to trace.
        ArgumentError: the grid/block spec cannot be evaluated.
    """
    if arch is None and kernel.arch == "auto":
        from ._launch import auto_arch

        arch = os.environ.get("PYPTX_ARCH") or auto_arch()  # resolved per call, keyed
    key = (tuple(sorted(template.items())), tuple(sorted(dims.items())), arch)
    with _LOCK:
        found = _CACHE.get(id(kernel), {}).get(key)
    if found is not None:
        return found
    kwargs = {**template, **{k: v for k, v in dims.items() if k not in template}}
    traced = kernel.build(arch, **kwargs)
    module = traced.module
    ptx = emit(module)
    grid = launch_dims(kernel, kernel.grid, "grid", dims, template)
    block = launch_dims(kernel, kernel.block, "block", dims, template)
    cluster = launch_dims(kernel, kernel.cluster, "cluster", dims, template)
    smem = traced.smem_bytes if traced.dynamic_smem else 0
    params = _plan(kernel)
    shape = tuple(sorted((k, int(v)) for k, v in dims.items()))
    spec = Specialization(
        kernel_name=kernel.name,
        arch=traced.arch,
        traced=traced,
        ptx=ptx,
        instruction_lines=tuple(instruction_lines(module)),
        grid=grid,
        block=block,
        cluster=cluster,
        dynamic_smem=smem,
        params=params,
        dims=shape,
        # The dims are in the handle: TMA descriptors registered with it depend on shapes.
        handle=_handle(ptx, kernel.name, grid, block, cluster, smem, params, shape),
    )
    with _LOCK:
        if id(kernel) not in _CACHE:
            weakref.finalize(kernel, _CACHE.pop, id(kernel), None)
        _CACHE.setdefault(id(kernel), {})[key] = spec
    return spec
