"""Data movement: ``mov``, loads, stores, address conversions and cache hints.

``mov``, ``ld``, ``ldu``, ``st``, ``cvta``, ``isspacep``, ``mapa``, ``getctarank``,
``createpolicy`` and the cache hints that leave values alone.

Loads and stores go through :class:`~pyptx.emu._memory.Memory`, which checks every address;
a destination register wider than the loaded type is zero- or sign-extended by the type
(``ld.global.s8`` into a ``.b32`` register sign-extends), as PTX specifies.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .._errors import Fault, NotEmulated, OutOfBounds
from .._lanes import Lanes
from .._machine import Executor
from .._memory import RANK_SHIFT, WINDOW_SHIFT, WINDOWS, Space
from .._site import Site
from .._types import bits_of, value_dtype

__all__ = ["SEMANTICS"]


def mov(site: Site) -> Executor:
    """``mov.type d, a``: copy (a vector on either side packs or unpacks)."""
    ty = site.type()
    a = site.src("a", ty)
    d = site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, a(m, lanes))

    return run


def _vector_count(site: Site) -> int:
    for slot in ("vec", "v2", "v4", "v8", "l2_eviction"):
        value = site.slot(slot)
        if value is not None and value.startswith("v") and value[1:].isdigit():
            return int(value[1:])
    for m in site.insn.modifiers:
        if m in ("v2", "v4", "v8"):
            return int(m[1:])
    return 1


def _element(site: Site) -> tuple[PtxType, int]:
    """The element type and its size in bytes (``.b128``: 16)."""
    if site.has("b128"):
        return PtxType.B128, 16
    ty = site.type()
    return ty, max(1, bits_of(ty) // 8)


def ld(site: Site) -> Executor:
    """``ld{.space}{.vec}.type d, [a]``: load one element or a vector per lane."""
    ty, size = _element(site)
    count = _vector_count(site)
    space = site.space()
    addr = site.addr("a")
    if ty is PtxType.B128:
        d = site.dst("d", ty)

        def load128(m: Any, lanes: Lanes) -> Any:
            raw = m.mem.load(space, addr(m, lanes), lanes.idx, 16)
            d(m, lanes, raw)

        return load128
    view = value_dtype(ty)
    if count == 1:
        d1 = site.dst("d", ty)

        def load(m: Any, lanes: Lanes) -> Any:
            raw = m.mem.load(space, addr(m, lanes), lanes.idx, size)
            d1(m, lanes, raw[:, 0].view(view))

        return load
    dv = site.vec_dst("d", ty)

    def load_vector(m: Any, lanes: Lanes) -> Any:
        raw = m.mem.load(space, addr(m, lanes), lanes.idx, size, count)
        dv(m, lanes, raw.view(view))

    return load_vector


def st(site: Site) -> Executor:
    """``st{.space}{.vec}.type [a], b``: store one element or a vector per lane."""
    ty, size = _element(site)
    count = _vector_count(site)
    space = site.space()
    addr = site.addr("a")
    if ty is PtxType.B128:
        b128 = site.src("b", ty)

        def store128(m: Any, lanes: Lanes) -> Any:
            m.mem.store(space, addr(m, lanes), lanes.idx, b128(m, lanes))
            m.touch()

        return store128
    raw_dtype = np.dtype(f"u{size}")
    if count == 1:
        b = site.src("b", ty)

        def store(m: Any, lanes: Lanes) -> Any:
            values = b(m, lanes)
            m.mem.store(space, addr(m, lanes), lanes.idx, values.view(raw_dtype)[:, None])
            m.touch()

        return store
    bv = site.vec_src("b", ty)

    def store_vector(m: Any, lanes: Lanes) -> Any:
        values = bv(m, lanes)
        m.mem.store(space, addr(m, lanes), lanes.idx, values.view(raw_dtype))
        m.touch()

    return store_vector


_CVTA_SPACES = {
    "global": Space.GLOBAL,
    "shared": Space.SHARED,
    "shared::cta": Space.SHARED,
    "shared::cluster": Space.SHARED,
    "local": Space.LOCAL,
    "param": Space.PARAM,
    "param::entry": Space.PARAM,
    "const": Space.CONST,
}


def cvta(site: Site) -> Executor:
    """``cvta.space`` (space -> generic) and ``cvta.to.space`` (generic -> space)."""
    word = site.slot("space")
    space = _CVTA_SPACES.get(word or "")
    if space is None:
        raise NotEmulated(f"cvta of .{word}")
    ty = site.type("size")
    to = site.has("to")
    a = site.src("a", PtxType.U64 if ty.bits == 64 else PtxType.U32)
    d = site.dst("d", ty)
    window = np.uint64(0 if space is Space.GLOBAL else WINDOWS[space] << WINDOW_SHIFT)
    mask = np.uint64((1 << ty.bits) - 1)

    def run(m: Any, lanes: Lanes) -> Any:
        v = a(m, lanes).astype(np.uint64)
        out = v - window if to else v + window
        if space is not Space.GLOBAL and to:
            out &= np.uint64(0xFFFF_FFFF)
        d(m, lanes, (out & mask).astype(value_dtype(ty)))

    return run


def isspacep(site: Site) -> Executor:
    """``isspacep.space p, a``: whether a generic address lies in the space's window."""
    word = site.slot("space") or ""
    space = _CVTA_SPACES.get(word)
    if space is None:
        raise NotEmulated(f"isspacep.{word}")
    a = site.src("a", PtxType.U64)
    p = site.dst("p", PtxType.PRED)
    own_cta = word in ("shared", "shared::cta")

    def run(m: Any, lanes: Lanes) -> Any:
        v = a(m, lanes)
        inside = (v >> np.uint64(WINDOW_SHIFT)) == np.uint64(WINDOWS[space])
        if own_cta:
            inside &= (v & np.uint64((1 << 32) - 1)) >> np.uint64(RANK_SHIFT) == 0
        p(m, lanes, inside)

    return run


def mapa(site: Site) -> Executor:
    """``mapa d, a, b``: address ``a`` in the shared memory of cluster CTA rank ``b``.

    With ``.shared::cluster`` the addresses are shared-space ones; without, generic.
    """
    ty = site.type()
    a = site.src("a", PtxType.U64 if ty.bits == 64 else PtxType.U32)
    b = site.src("b", PtxType.U32)
    d = site.dst("d", ty)
    generic = not site.has("shared::cluster")
    window = np.uint64(WINDOWS[Space.SHARED] << WINDOW_SHIFT)
    low = np.uint64((1 << RANK_SHIFT) - 1)

    def run(m: Any, lanes: Lanes) -> Any:
        v = a(m, lanes).astype(np.uint64)
        if generic:
            v = v - window
        rank = b(m, lanes).astype(np.uint64)
        if (rank >= np.uint64(m.config.cluster_size)).any():
            raise _bad_rank(m, lanes, rank)
        out = ((rank + np.uint64(1)) << np.uint64(RANK_SHIFT)) | (v & low)
        if generic:
            out = out + window
        d(m, lanes, out.astype(value_dtype(ty)))

    return run


def _bad_rank(m: Any, lanes: Lanes, rank: np.ndarray) -> Fault:
    i = int(np.argmax(rank >= np.uint64(m.config.cluster_size)))
    return Fault(
        OutOfBounds,
        f"mapa to CTA rank {int(rank[i])}, but the cluster has {m.config.cluster_size} CTAs",
        lane=int(lanes.idx[i]),
    )


def getctarank(site: Site) -> Executor:
    """``getctarank d, a``: the cluster rank of the CTA a shared::cluster address belongs to."""
    ty = site.type()
    a = site.src("a", PtxType.U64 if ty.bits == 64 else PtxType.U32)
    d = site.dst("d", PtxType.U32)
    generic = not site.has("shared::cluster")
    window = np.uint64(WINDOWS[Space.SHARED] << WINDOW_SHIFT)

    def run(m: Any, lanes: Lanes) -> Any:
        v = a(m, lanes).astype(np.uint64)
        if generic:
            v = v - window
        rank = (v >> np.uint64(RANK_SHIFT)).astype(np.int64)
        own = m.wave.rank[m.cta_of[lanes.sel]]
        d(m, lanes, np.where(rank == 0, own, rank - 1).astype(np.uint32))

    return run


def createpolicy(site: Site) -> Executor:
    """``createpolicy``: an opaque cache policy; the emulator's is zero (no effect)."""
    d = site.dst("d", PtxType.B64)

    def run(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, np.zeros(lanes.n, dtype=np.uint64))

    return run


def hint(site: Site) -> Executor:
    """Cache hints (``prefetch``, ``applypriority``, ``discard``): no effect on values."""

    def run(m: Any, lanes: Lanes) -> Any:
        return None

    return run


SEMANTICS = {
    "mov": mov,
    "ld": ld,
    "ldu": ld,
    "st": st,
    "cvta": cvta,
    "isspacep": isspacep,
    "mapa": mapa,
    "getctarank": getctarank,
    "createpolicy": createpolicy,
    "prefetch": hint,
    "prefetchu": hint,
    "applypriority": hint,
    "discard": hint,
}
