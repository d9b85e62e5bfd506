"""State spaces, byte-addressed, with every access checked.

One :class:`Memory` per wave of CTAs holds

* the global heap: the module's ``.global`` variables, then each array argument, each an
  :class:`Segment` over the caller's own bytes (writes land in the caller's array);
* shared memory, one row of bytes per CTA of the wave (static variables, then the dynamic
  ``.extern .shared`` region);
* local memory and call frames (param space above :data:`FRAME_BASE`), one row per thread;
* the kernel's parameter buffer and the module's ``.const`` bytes, shared by all threads.

Addresses are plain integers. Generic addresses (the ones ``cvta`` produces and generic
``ld``/``st`` take) put each space in its own window of the 64-bit space
(:data:`WINDOWS`); shared-space addresses of another CTA of the cluster (``mapa``) carry its
rank above bit :data:`RANK_SHIFT`.

Every access is vectorized over the lanes that execute it: addresses come in as one array,
bytes go out as an ``(n, k)`` array. An access outside its allocation raises
:class:`OutOfBounds`, one not aligned to its size :class:`Misaligned`, naming the first lane.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._errors import Fault, Misaligned, OutOfBounds
from ._program import FRAME_BASE

__all__ = [
    "GLOBAL_BASE",
    "RANK_SHIFT",
    "WINDOWS",
    "Memory",
    "Segment",
    "Space",
]


class Space(enum.Enum):
    """The state space an access goes to (``::cta``/``::entry`` spellings folded)."""

    GENERIC = "generic"
    GLOBAL = "global"
    SHARED = "shared"
    SHARED_CLUSTER = "shared::cluster"
    LOCAL = "local"
    PARAM = "param"
    CONST = "const"

    @classmethod
    def of(cls, modifiers: tuple[str, ...] | list[str]) -> Space:
        """The space an instruction's modifiers name (generic when none does)."""
        for m in modifiers:
            space = _SPACE_WORDS.get(m)
            if space is not None:
                return space
        return cls.GENERIC


_SPACE_WORDS = {
    "global": Space.GLOBAL,
    "shared": Space.SHARED,
    "shared::cta": Space.SHARED,
    "shared::cluster": Space.SHARED_CLUSTER,
    "local": Space.LOCAL,
    "param": Space.PARAM,
    "param::entry": Space.PARAM,
    "param::func": Space.PARAM,
    "const": Space.CONST,
}

WINDOW_SHIFT = 40
"""Generic addresses are told apart by their bits from here up."""

WINDOWS: dict[Space, int] = {
    Space.GLOBAL: 0x7F,
    Space.SHARED: 0x7E,
    Space.LOCAL: 0x7D,
    Space.PARAM: 0x7C,
    Space.CONST: 0x7B,
}
"""Each space's window of the generic address space: ``addr >> WINDOW_SHIFT``."""

GLOBAL_BASE = WINDOWS[Space.GLOBAL] << WINDOW_SHIFT
"""The first global address handed out."""

RANK_SHIFT = 24
"""A shared-space address ``(rank + 1) << RANK_SHIFT | offset`` is ``offset`` in the shared
memory of the CTA with that rank in the cluster (what ``mapa`` returns); below it, the
executing CTA's own shared memory."""

Chunk = tuple[np.ndarray, np.ndarray, slice | np.ndarray, Space]
"""Part of an access in one buffer: (bytes, flat offsets of the first byte, which lanes of the
access, the space it landed in)."""

_EMPTY = np.zeros(0, dtype=np.uint8)

SEGMENT_ALIGN = 256
"""Alignment of every global allocation (as cudaMalloc's)."""


@dataclass(eq=False)
class Segment:
    """One allocation of the global heap.

    Attributes:
        base: its first address.
        data: its bytes (a view of the caller's array where there is one).
        label: what it is, for messages ("argument 1 'x'", "global variable 'table'").
        writable: whether stores may change it.
    """

    base: int
    data: np.ndarray
    label: str
    writable: bool = True

    @property
    def end(self) -> int:
        """One past its last address."""
        return self.base + int(self.data.size)


class Memory:
    """The memory of one wave (see the module docstring).

    Args:
        segments: the global heap, sorted by base address.
        param_buffer: the kernel's parameter bytes.
        const: the module's ``.const`` bytes.
        ctas: how many CTAs the wave holds.
        shared_size: bytes of shared memory per CTA (static + dynamic).
        padded: threads per CTA, padded to whole warps (lane ``i`` is in CTA ``i // padded``).
        local_size: bytes of local memory per thread.
        frame_size: bytes of call frames per thread.
        cluster_first: for each CTA of the wave, the wave index of its cluster's first CTA.
        cluster_size: CTAs per cluster.
    """

    def __init__(
        self,
        segments: list[Segment],
        param_buffer: np.ndarray,
        const: np.ndarray,
        *,
        ctas: int,
        shared_size: int,
        padded: int,
        local_size: int,
        frame_size: int,
        cluster_first: np.ndarray,
        cluster_size: int,
    ) -> None:
        self.segments = segments
        self.bases = np.array([s.base for s in segments], dtype=np.uint64)
        self.ends = np.array([s.end for s in segments], dtype=np.uint64)
        lanes = ctas * padded
        self.param_buffer = param_buffer
        self.const = const
        self.shared_size = shared_size
        self.shared_row = max(8, (shared_size + 7) // 8 * 8)
        self.shared = np.zeros(ctas * self.shared_row, dtype=np.uint8)
        self.local_row = max(8, (local_size + 7) // 8 * 8)
        self.local_size = local_size
        self.local = np.zeros(lanes * self.local_row, dtype=np.uint8)
        self.frame_row = max(8, (frame_size + 7) // 8 * 8)
        self.frame_size = frame_size
        self.frames = np.zeros(lanes * self.frame_row, dtype=np.uint8)
        self.cta_of = np.arange(lanes, dtype=np.int64) // padded
        """Each lane's CTA index within the wave."""
        self.cluster_first = cluster_first
        self.cluster_size = cluster_size
        self.on_shared: Callable[[np.ndarray, np.ndarray, int, str], None] | None = None
        """Called with (lanes, flat shared offsets, size, kind) on every shared access when
        the race checker is on; kind is "load", "store" or "atomic"."""
        self._atomic = False

    # ----------------------------------------------------------------- typed access

    def load(
        self, space: Space, addr: np.ndarray, lanes: np.ndarray, size: int, count: int = 1
    ) -> np.ndarray:
        """Read ``count`` consecutive elements of ``size`` bytes at each lane's address.

        Args:
            space: the state space of ``addr``.
            addr: one address per lane (``uint64``).
            lanes: the wave lane of each address (CTA and thread come from it).
            size: element size in bytes (1, 2, 4, 8 or 16).
            count: elements per lane (a vector access); the access must be aligned to
                ``size * count``.

        Returns:
            An ``(n, count)`` array of the unsigned dtype of width ``size`` (16-byte elements
            as ``(n, 2 * count)`` ``uint64``).
        """
        raw = self.load_bytes(space, addr, lanes, size * count, size * count)
        return _typed(raw, size)

    def store(self, space: Space, addr: np.ndarray, lanes: np.ndarray, values: np.ndarray) -> None:
        """Write ``(n, count)`` elements (an unsigned dtype) at each lane's address.

        The access must be aligned to its whole size. Lanes writing the same bytes: the last
        one wins (PTX leaves it unspecified which).
        """
        values = np.ascontiguousarray(values)
        raw = values.view(np.uint8).reshape(values.shape[0], -1)
        self.store_bytes(space, addr, lanes, raw, raw.shape[1])

    # ----------------------------------------------------------------- raw bytes

    def load_bytes(
        self, space: Space, addr: np.ndarray, lanes: np.ndarray, nbytes: int, align: int
    ) -> np.ndarray:
        """``nbytes`` bytes at each lane's address as an ``(n, nbytes)`` ``uint8`` array."""
        out = np.empty((addr.shape[0], nbytes), dtype=np.uint8)
        for buffer, flat, sub, _ in self._resolve(space, addr, lanes, nbytes, align, False):
            out[sub] = _gather(buffer, flat, nbytes)
        return out

    def store_bytes(
        self, space: Space, addr: np.ndarray, lanes: np.ndarray, data: np.ndarray, align: int
    ) -> None:
        """Write ``(n, nbytes)`` bytes at each lane's address."""
        nbytes = data.shape[1]
        for buffer, flat, sub, _ in self._resolve(space, addr, lanes, nbytes, align, True):
            _scatter(buffer, flat, data[sub], nbytes)

    def resolve(
        self,
        space: Space,
        addr: np.ndarray,
        lanes: np.ndarray,
        nbytes: int,
        align: int,
        store: bool,
        *,
        atomic: bool = False,
    ) -> list[Chunk]:
        """Where each lane's access lands: ``(buffer, flat offsets, lanes subset, space)``.

        For semantics that operate on memory in place (atomics): ``buffer[flat]`` are the
        first bytes of the accesses of ``subset`` of the lanes, one chunk per backing buffer.
        Pass ``atomic=True`` for atomic accesses (the race checker does not count atomics
        against each other).
        """
        self._atomic = atomic
        try:
            return self._resolve(space, addr, lanes, nbytes, align, store)
        finally:
            self._atomic = False

    def _resolve(
        self,
        space: Space,
        addr: np.ndarray,
        lanes: np.ndarray,
        nbytes: int,
        align: int,
        store: bool,
    ) -> list[Chunk]:
        addr = addr.astype(np.uint64, copy=False)
        if align > 1:
            bad = (addr % np.uint64(align)) != 0
            if bad.any():
                i = int(np.argmax(bad))
                raise Fault(
                    Misaligned,
                    f"a {nbytes}-byte access needs {align}-byte alignment, but the address is"
                    f" {int(addr[i]):#x}",
                    lane=int(lanes[i]),
                    address=int(addr[i]),
                    space=space.value,
                )
        if space is Space.GENERIC:
            return self._generic(addr, lanes, nbytes, store)
        return _RESOLVERS[space](self, addr, lanes, nbytes, store)

    def _generic(
        self, addr: np.ndarray, lanes: np.ndarray, nbytes: int, store: bool
    ) -> list[Chunk]:
        window = addr >> np.uint64(WINDOW_SHIFT)
        first = int(window[0]) if window.size else WINDOWS[Space.GLOBAL]
        if window.size == 0 or bool((window == first).all()):
            return self._window(first, addr, lanes, nbytes, store)
        out: list[Chunk] = []
        for w in np.unique(window):
            sub = np.flatnonzero(window == w)
            for buf, flat, inner, sp in self._window(int(w), addr[sub], lanes[sub], nbytes, store):
                out.append((buf, flat, sub[inner], sp))
        return out

    def _window(
        self, window: int, addr: np.ndarray, lanes: np.ndarray, nbytes: int, store: bool
    ) -> list[Chunk]:
        space = _BY_WINDOW.get(window, Space.GLOBAL)
        if space is not Space.GLOBAL:
            addr = addr - np.uint64(WINDOWS[space] << WINDOW_SHIFT)
        return _RESOLVERS[space](self, addr, lanes, nbytes, store)

    # ----------------------------------------------------------------- per space

    def _global(self, addr: np.ndarray, lanes: np.ndarray, nbytes: int, store: bool) -> list[Chunk]:
        seg = np.searchsorted(self.bases, addr, side="right").astype(np.int64) - 1
        inside = seg >= 0
        safe = np.maximum(seg, 0)
        if self.segments:
            inside &= addr + np.uint64(nbytes) <= self.ends[safe]
        else:
            inside[:] = False
        _refuse(
            ~inside,
            addr,
            lanes,
            "global",
            lambda i: (
                f"a {nbytes}-byte global access at {int(addr[i]):#x} is outside every"
                f" allocation{self._nearest(int(addr[i]), nbytes)}"
            ),
        )
        first = int(safe[0]) if safe.size else 0
        if safe.size == 0 or bool((safe == first).all()):
            return [self._in_segment(first, addr, lanes, store, slice(None))]
        # Lanes in different allocations: one chunk per allocation.
        chunks: list[Chunk] = []
        for index in np.unique(safe):
            sub = np.flatnonzero(safe == index)
            chunks.append(self._in_segment(int(index), addr[sub], lanes[sub], store, sub))
        return chunks

    def _in_segment(
        self,
        index: int,
        addr: np.ndarray,
        lanes: np.ndarray,
        store: bool,
        sub: slice | np.ndarray,
    ) -> Chunk:
        if not self.segments:
            return (_EMPTY, addr.astype(np.int64), sub, Space.GLOBAL)
        segment = self.segments[index]
        self._check_writable(segment, store, addr, lanes)
        return (segment.data, (addr - np.uint64(segment.base)).astype(np.int64), sub, Space.GLOBAL)

    def _check_writable(
        self, segment: Segment, store: bool, addr: np.ndarray, lanes: np.ndarray
    ) -> None:
        if store and not segment.writable:
            raise Fault(
                OutOfBounds,
                f"a store into {segment.label}, which is read-only",
                lane=int(lanes[0]),
                address=int(addr[0]),
                space="global",
            )

    def _nearest(self, address: int, nbytes: int) -> str:
        """Where a global address that hit no allocation lies relative to the nearest one."""
        if not self.segments:
            return " (no global memory is allocated)"
        best = min(self.segments, key=lambda s: min(abs(address - s.base), abs(address - s.end)))
        size = best.end - best.base
        if best.base <= address < best.end:
            start = address - best.base
            return f"; it runs past the end of {best.label} ({size} bytes) from byte {start}"
        if best.end <= address < best.end + 4096:
            gap = address - best.end
            where = "right after" if gap == 0 else f"{gap} bytes after"
            return f"; it starts {where} the end of {best.label} ({size} bytes)"
        if best.base - 4096 <= address < best.base:
            return f"; it starts {best.base - address} bytes before {best.label}"
        return ""

    def _shared(self, addr: np.ndarray, lanes: np.ndarray, nbytes: int, store: bool) -> list[Chunk]:
        cta = self.cta_of[lanes]
        rank = (addr >> np.uint64(RANK_SHIFT)).astype(np.int64)
        offset = (addr & np.uint64((1 << RANK_SHIFT) - 1)).astype(np.int64)
        if bool(rank.any()):
            _refuse(
                (rank > self.cluster_size) | ((addr >> np.uint64(32)) > 0),
                addr,
                lanes,
                "shared::cluster",
                lambda i: (
                    f"shared address {int(addr[i]):#x} names no CTA of the cluster"
                    f" (cluster size {self.cluster_size})"
                ),
            )
            cta = np.where(rank > 0, self.cluster_first[cta] + rank - 1, cta)
        _refuse(
            offset + nbytes > self.shared_size,
            addr,
            lanes,
            "shared",
            lambda i: (
                f"a {nbytes}-byte shared access at offset {int(offset[i]):#x} is outside"
                f" the {self.shared_size} bytes of shared memory of the CTA"
            ),
        )
        flat = cta * self.shared_row + offset
        if self.on_shared is not None:
            kind = "atomic" if self._atomic else ("store" if store else "load")
            self.on_shared(lanes, flat, nbytes, kind)
        return [(self.shared, flat, slice(None), Space.SHARED)]

    def _local(self, addr: np.ndarray, lanes: np.ndarray, nbytes: int, store: bool) -> list[Chunk]:
        offset = addr.astype(np.int64)
        _refuse(
            (addr >= np.uint64(1 << 32)) | (offset + nbytes > self.local_size),
            addr,
            lanes,
            "local",
            lambda i: (
                f"a {nbytes}-byte local access at {int(addr[i]):#x} is outside the"
                f" {self.local_size} bytes of local memory per thread"
            ),
        )
        flat = lanes.astype(np.int64) * self.local_row + offset
        return [(self.local, flat, slice(None), Space.LOCAL)]

    def _param(self, addr: np.ndarray, lanes: np.ndarray, nbytes: int, store: bool) -> list[Chunk]:
        offset = addr.astype(np.int64)
        frame = offset >= FRAME_BASE
        everyone = np.ones(addr.shape[0], dtype=bool)
        if bool(frame.any()) and not bool(frame.all()):
            _refuse(everyone, addr, lanes, "param", lambda i: "one access mixes kernel"
                    " parameters and call-frame parameters")  # fmt: skip
        if bool(frame.all()):
            rel = offset - FRAME_BASE
            outside = rel + nbytes > self.frame_size
            buffer, flat = self.frames, lanes.astype(np.int64) * self.frame_row + rel
        else:
            outside = offset + nbytes > self.param_buffer.size
            buffer, flat = self.param_buffer, offset
        _refuse(
            outside,
            addr,
            lanes,
            "param",
            lambda i: (
                f"a {nbytes}-byte param access at {int(addr[i]):#x} is outside the parameters"
            ),
        )
        if store and buffer is self.param_buffer:
            _refuse(everyone, addr, lanes, "param", lambda i: "kernel parameters are read-only"
                    " (st.param writes call frames only)")  # fmt: skip
        return [(buffer, flat, slice(None), Space.PARAM)]

    def _const(self, addr: np.ndarray, lanes: np.ndarray, nbytes: int, store: bool) -> list[Chunk]:
        offset = addr.astype(np.int64)
        _refuse(
            np.full(addr.shape[0], store) | (offset + nbytes > self.const.size),
            addr,
            lanes,
            "const",
            lambda i: (
                f"a {nbytes}-byte const access at {int(addr[i]):#x}: "
                + ("a store to .const memory" if store else "outside the .const bytes")
            ),
        )
        return [(self.const, offset, slice(None), Space.CONST)]


def _refuse(
    bad: np.ndarray, addr: np.ndarray, lanes: np.ndarray, space: str, why: Callable[[int], str]
) -> None:
    """Raise :class:`OutOfBounds` for the first lane where ``bad`` holds (``why(i)`` says why)."""
    if bool(bad.any()):
        i = int(np.argmax(bad))
        raise Fault(OutOfBounds, why(i), lane=int(lanes[i]), address=int(addr[i]), space=space)


_BY_WINDOW = {w: s for s, w in WINDOWS.items()}

_RESOLVERS: dict[Space, Callable[[Memory, np.ndarray, np.ndarray, int, bool], list[Chunk]]] = {
    Space.GLOBAL: Memory._global,
    Space.SHARED: Memory._shared,
    Space.SHARED_CLUSTER: Memory._shared,
    Space.LOCAL: Memory._local,
    Space.PARAM: Memory._param,
    Space.CONST: Memory._const,
}


def _gather(buffer: np.ndarray, flat: np.ndarray, nbytes: int) -> np.ndarray:
    """``buffer[flat + k]`` for ``k < nbytes`` as ``(n, nbytes)`` bytes (typed when aligned)."""
    for size in (8, 4, 2):
        if nbytes % size == 0 and buffer.size % size == 0 and not (flat % size).any():
            words = buffer.view(_UINT[size])
            index = flat // size
            if nbytes == size:
                got = words[index][:, None]
            else:
                got = words[index[:, None] + np.arange(nbytes // size)]
            return got.view(np.uint8).reshape(flat.shape[0], nbytes)
    return buffer[flat[:, None] + np.arange(nbytes)]


def _scatter(buffer: np.ndarray, flat: np.ndarray, data: np.ndarray, nbytes: int) -> None:
    for size in (8, 4, 2):
        if nbytes % size == 0 and buffer.size % size == 0 and not (flat % size).any():
            words = buffer.view(_UINT[size])
            index = flat // size
            values = np.ascontiguousarray(data).view(_UINT[size])
            if nbytes == size:
                words[index] = values[:, 0]
            else:
                words[index[:, None] + np.arange(nbytes // size)] = values
            return
    buffer[flat[:, None] + np.arange(nbytes)] = data


_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _typed(raw: np.ndarray, size: int) -> np.ndarray:
    if size == 16:
        return raw.view(np.uint64)
    return raw.view(_UINT[size])
