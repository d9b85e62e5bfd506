"""The GPU launch core shared by torch and JAX: compile, register with the shim, launch.

:class:`KernelRegistry` is the process-wide table of specializations the shim knows: a
specialization's PTX is compiled once per target (through the on-disk cubin cache), its
parameter slots are built (TMA descriptor templates included) and it is registered with the
shim under a handle (the specialization's own for its target, a derived one for another). The
shim loads the module lazily in each CUDA context that launches it (so every device of a
torch process or a ``jax.shard_map`` mesh gets its own).

An entry prepared for eager torch launches is released, and its modules unloaded, when the
last kernel object that launched it is garbage-collected. Entries that something outside
Python may still call are pinned for the life of the process: those used by JAX (XLA
executables carry the handle) and those launched during CUDA graph capture (the graph keeps
the function). :meth:`KernelRegistry.release` and :meth:`KernelRegistry.clear` release
explicitly.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field

from ._compile import Compiled, compile_ptx
from ._driver import device_arch
from ._errors import ArgumentError
from ._shim import ParamSlot, load_shim
from ._specialize import ParamSource, Specialization
from ._tma import tensor_map_spec
from ._tma_encode import tensor_map_template

__all__ = ["KernelRegistry", "compile_target", "handle_for", "kernel_registry", "launch_on_gpu"]


def compile_target(kernel_arch: str, device: str) -> str:
    """The target to assemble a kernel traced for ``kernel_arch`` for, on a ``device`` GPU.

    Architecture-specific targets (``sm_90a``, ``sm_100a``) run only on that exact
    architecture; plain ones (``sm_80``) are assembled for the device (PTX is
    forward-compatible) when the device is at least as new.

    Raises:
        ArgumentError: the kernel cannot run on the device.
    """
    if kernel_arch == device:
        return device

    def number(arch: str) -> int:
        return int(arch[3:].rstrip("af"))

    if kernel_arch.endswith("f") and number(kernel_arch) // 10 == number(device) // 10:
        if number(kernel_arch) <= number(device):
            return kernel_arch  # a family target: its cubin runs on later family members
    elif not kernel_arch.endswith(("a", "f")) and number(kernel_arch) <= number(device):
        return device
    raise ArgumentError(
        f"the kernel targets {kernel_arch}, which cannot run on this {device} GPU; trace "
        f"it for {device} (arch='{device}' or arch='auto')"
    )


def handle_for(spec: Specialization, target: str) -> int:
    """The shim handle of ``spec`` compiled for ``target`` (its own handle for its own arch)."""
    if target == spec.arch:
        return spec.handle
    digest = hashlib.sha256(f"{spec.handle}:{target}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


@dataclass
class _Entry:
    spec: Specialization
    compiled: Compiled
    owners: int = 0
    pinned: bool = False
    finalizers: list[weakref.finalize] = field(default_factory=list)


class KernelRegistry:
    """Process-wide table: specialization handle -> compiled cubin, registered with the shim."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[int, _Entry] = {}
        self._owned: set[tuple[int, int]] = set()
        self.ready: dict[tuple[int, int], int] = {}
        """(specialization handle, device) -> the shim handle prepared for that device."""
        self.generation = 0
        """Counts releases: a launch plan made before a release is not used after it."""

    def prepare(self, spec: Specialization, target: str, *, owner: object = None) -> int:
        """Compile ``spec`` for ``target`` and register it with the shim (once).

        Args:
            spec: the specialization.
            target: the device's target (see :func:`compile_target`).
            owner: an object (the kernel) whose garbage collection releases the entry;
                ``None`` pins the entry for the life of the process.

        Returns:
            The handle to launch with.

        Raises:
            CompileError: the PTX is rejected.
            ShimError: the shim cannot be built or loaded.
            GpuUnavailable: TMA templates need the driver, and there is none.
        """
        handle = handle_for(spec, target)
        with self._lock:
            entry = self._entries.get(handle)
        if entry is None:
            compiled = compile_ptx(
                spec.ptx,
                target,
                name=spec.kernel_name,
                python_lines=spec.traced.python_lines,
                instruction_lines=spec.instruction_lines,
            )
            load_shim().register(
                handle,
                spec.kernel_name,
                compiled.cubin,
                spec.grid,
                spec.block,
                spec.cluster,
                spec.dynamic_smem,
                _slots(spec),
            )
            with self._lock:
                entry = self._entries.setdefault(handle, _Entry(spec, compiled))
        if owner is None:
            entry.pinned = True
        else:
            self._own(entry, handle, owner)
        return handle

    def pin(self, handle: int) -> None:
        """Keep ``handle``'s entry for the life of the process (or an explicit release)."""
        with self._lock:
            entry = self._entries.get(handle)
            if entry is not None:
                entry.pinned = True

    def _own(self, entry: _Entry, handle: int, owner: object) -> None:
        key = (id(owner), handle)
        with self._lock:
            if key in self._owned:
                return
            self._owned.add(key)
            entry.owners += 1
        entry.finalizers.append(weakref.finalize(owner, self._disown, key))

    def _disown(self, key: tuple[int, int]) -> None:
        handle = key[1]
        with self._lock:
            self._owned.discard(key)
            entry = self._entries.get(handle)
            if entry is None:
                return
            entry.owners -= 1
            if entry.owners > 0 or entry.pinned:
                return
        self.release(handle)

    def get(self, handle: int) -> Specialization | None:
        """The specialization registered under ``handle``, if any."""
        with self._lock:
            entry = self._entries.get(handle)
        return entry.spec if entry is not None else None

    def handles(self) -> list[int]:
        """Every registered handle."""
        with self._lock:
            return sorted(self._entries)

    def release(self, handle: int) -> bool:
        """Forget ``handle`` and unload its modules from every context; ``False`` if unknown."""
        with self._lock:
            entry = self._entries.pop(handle, None)
            self.generation += 1
            self._owned = {k for k in self._owned if k[1] != handle}
            self.ready = {k: v for k, v in self.ready.items() if v != handle}
        if entry is None:
            return False
        for finalizer in entry.finalizers:
            finalizer.detach()
        load_shim().unregister(handle)
        return True

    def clear(self) -> None:
        """Release every entry."""
        for handle in self.handles():
            self.release(handle)


_REGISTRY: KernelRegistry | None = None
_REGISTRY_LOCK = threading.Lock()


def kernel_registry() -> KernelRegistry:
    """The process-wide :class:`KernelRegistry` (created on first use)."""
    global _REGISTRY
    with _REGISTRY_LOCK:
        if _REGISTRY is None:
            _REGISTRY = KernelRegistry()
        return _REGISTRY


def _slots(spec: Specialization) -> list[ParamSlot]:
    dims = dict(spec.dims)
    slots = []
    for plan in spec.params:
        if plan.kind is ParamSource.SCALAR:
            slots.append(ParamSlot.scalar(plan.index, plan.size))
        elif plan.kind is ParamSource.POINTER:
            slots.append(ParamSlot.pointer(plan.index))
        else:
            assert plan.tile is not None
            shape = plan.tile.resolve_shape(dims)
            template = tensor_map_template(tensor_map_spec(plan.tile, shape, dims))
            slots.append(ParamSlot.tensor_map(plan.index, template))
    return slots


def launch_on_gpu(
    spec: Specialization,
    *,
    device: int,
    stream: int,
    pointers: Sequence[int],
    scalars: Sequence[int | float],
    owner: object = None,
) -> int:
    """Launch ``spec`` on ``device`` on ``stream`` with the given buffer addresses.

    Returns:
        The shim handle it launched.

    Raises:
        ArgumentError: the kernel's target cannot run on the device.
        CompileError, ShimError, GpuUnavailable, RuntimeLaunchError: see
            :meth:`KernelRegistry.prepare` and :meth:`pyptx.runtime._shim.Shim.launch`.
    """
    registry = _REGISTRY or kernel_registry()
    key = (spec.handle, device)
    handle = registry.ready.get(key)
    if handle is None or (owner is not None and (id(owner), handle) not in registry._owned):
        arch = device_arch(device)
        if arch is None:
            from ._errors import GpuUnavailable

            raise GpuUnavailable(f"CUDA device {device} is not visible to the driver")
        handle = registry.prepare(spec, compile_target(spec.arch, arch), owner=owner)
        registry.ready[key] = handle
    elif owner is None:
        registry.pin(handle)
    load_shim().launch(handle, stream, pointers, spec.pack_scalars(scalars), device)
    return handle
