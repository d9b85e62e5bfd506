"""Instructions with little or no effect on results in a one-grid emulator.

* ``setmaxnreg``: a register-allocation hint. It changes nothing here, but the ISA requires
  every warp of the warpgroup to execute the same ``setmaxnreg``, so the warps wait for each
  other at it (a warp that never comes is reported as a deadlock), and the register count
  must be a multiple of 8 in 24..256.
* ``griddepcontrol.launch_dependents`` / ``.wait``: programmatic dependent launch. The
  emulator runs one grid at a time, to completion, so there is nothing to signal or wait for.
* ``clusterlaunchcontrol.try_cancel`` / ``query_cancel``: the emulator runs every CTA of the
  grid itself, so a cancellation request never cancels a cluster. The 16-byte response it
  writes (at once, then a complete-tx of 16 bytes on the mbarrier, as the asynchronous
  proxy would) is encoded as four little-endian ``u32`` words: word 0 is
  :data:`RESPONSE_TAG` with bit 0 set when a cluster was cancelled (never, here); words 1-3
  hold the first cancelled CTA's ``%ctaid`` when one was, and ``0xffffffff`` otherwise.
  ``is_canceled`` reads bit 0; ``get_first_ctaid`` reads words 1-3 (``0xffffffff`` for a
  failed request, where PTX leaves the value undefined, so that using it shows). A response
  without the tag was not written by ``try_cancel`` and is an error.
* ``alloca``, ``stacksave``, ``stackrestore``: a per-thread stack of :data:`STACK_BYTES`
  (CUDA's default stack size) in local memory, above the kernel's ``.local`` variables,
  growing down. ``alloca`` in a called function is not emulated: its memory must be freed
  when the function returns, and the call frames do not track that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .. import _mbar
from .._errors import EmuError, Fault, NotEmulated, OutOfBounds
from .._lanes import Lanes
from .._machine import YIELD, Executor
from .._memory import Space
from .._site import Site
from .._warp import warpgroup_converged

__all__ = ["RESPONSE_TAG", "SEMANTICS", "STACK_BYTES"]


RESPONSE_TAG = 0x434C_4300
"""Word 0 of a ``clusterlaunchcontrol.try_cancel`` response, less its cancelled bit."""

STACK_BYTES = 1024
"""Bytes of ``alloca`` stack per thread (CUDA's default ``cudaLimitStackSize``)."""

_NONE = np.uint32(0xFFFF_FFFF)

# --------------------------------------------------------------------------- setmaxnreg


def setmaxnreg(site: Site) -> Executor:
    """``setmaxnreg.{inc,dec}.sync.aligned.u32 count``: wait for the warpgroup; no effect."""
    count = site.imm("imm-reg-count")
    if isinstance(count, float) or not 24 <= count <= 256 or count % 8:
        raise NotEmulated(
            f"{site.mnemonic}: the register count must be a multiple of 8 in 24..256, got {count}"
        )

    def run(m: Any, lanes: Lanes) -> Any:
        return None if warpgroup_converged(m, site, lanes) is lanes else YIELD

    return run


def griddepcontrol(site: Site) -> Executor:
    """``griddepcontrol.{launch_dependents,wait}``: nothing to do in a one-grid emulator."""

    def run(m: Any, lanes: Lanes) -> Any:
        return None

    return run


# --------------------------------------------------------------------------- cluster launch control


def _failed_response() -> np.ndarray:
    return np.array([RESPONSE_TAG, _NONE, _NONE, _NONE], dtype=np.uint32).view(np.uint8)


def try_cancel(site: Site) -> Executor:
    """``clusterlaunchcontrol.try_cancel.async...b128 [addr], [mbar]``: never cancels.

    Writes the "not cancelled" response to ``addr`` (of every CTA of the cluster with
    ``.multicast::cluster::all``) and performs complete-tx of 16 bytes on ``mbar`` there.
    """
    space = site.space()
    addr = site.addr("addr")
    mbar = site.addr("mbar")
    multicast = site.slot("multicast") is not None
    response = _failed_response()

    def run(m: Any, lanes: Lanes) -> Any:
        where = _mbar.shared_flat(m, space, addr(m, lanes), lanes, 16, 16, "the response")
        bars = _mbar.mbarrier_flat(m, space, mbar(m, lanes), lanes)
        if multicast:
            where, bars, idx = _to_cluster(m, lanes, where, bars)
        else:
            idx = lanes.idx
        m.mem.shared[where[:, None] + np.arange(16)] = response
        _mbar.complete_tx(m, bars, 16, lanes=idx)

    return run


def _to_cluster(
    m: Any, lanes: Lanes, where: np.ndarray, bars: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The same shared offsets in every CTA of each lane's cluster."""
    row = m.mem.shared_row
    size = m.config.cluster_size
    cta = m.cta_of[lanes.idx]
    first = m.wave.cluster_first[cta]
    targets = first[:, None] + np.arange(size)
    alive = (~m.exited.reshape(m.ctas, -1)).any(axis=1)
    if not alive[targets].all():
        i = int(np.argmax(~alive[targets].all(axis=1)))
        raise Fault(
            EmuError,
            "clusterlaunchcontrol.try_cancel.multicast::cluster::all with an exited CTA in the"
            " cluster: PTX leaves it undefined",
            lane=int(lanes.idx[i]),
        )
    own = (cta * row)[:, None]
    spread = (targets * row - own).reshape(-1)
    idx = np.repeat(lanes.idx, size)
    return np.repeat(where, size) + spread, np.repeat(bars, size) + spread, idx


def _response_words(site: Site) -> Callable[[Any, Lanes], np.ndarray]:
    """A reader of the response operand as ``(n, 4)`` ``u32`` words, checked."""
    read = site.src("response", PtxType.B128)

    def words(m: Any, lanes: Lanes) -> np.ndarray:
        w = np.ascontiguousarray(read(m, lanes)).view(np.uint32).reshape(lanes.n, 4)
        bad = (w[:, 0] & ~np.uint32(1)) != np.uint32(RESPONSE_TAG)
        if bad.any():
            i = int(np.argmax(bad))
            raise Fault(
                EmuError,
                f"{site.mnemonic}: the response was not written by clusterlaunchcontrol."
                f"try_cancel (word 0 is {int(w[i, 0]):#010x}); wait on its mbarrier before"
                " loading it",
                lane=int(lanes.idx[i]),
            )
        return w

    return words


def query_cancel(site: Site) -> Executor:
    """``clusterlaunchcontrol.query_cancel.{is_canceled,get_first_ctaid*}``."""
    query = site.slot("query") or ""
    words = _response_words(site)
    if query == "is_canceled":
        pred = site.dst("pred", PtxType.PRED)

        def canceled(m: Any, lanes: Lanes) -> Any:
            pred(m, lanes, (words(m, lanes)[:, 0] & np.uint32(1)).astype(bool))

        return canceled
    if query == "get_first_ctaid":
        vec = site.vec_dst("d", PtxType.B32)

        def all_axes(m: Any, lanes: Lanes) -> Any:
            w = words(m, lanes)
            vec(m, lanes, np.concatenate([w[:, 1:], np.zeros((lanes.n, 1), np.uint32)], axis=1))

        return all_axes
    axis = 1 + "xyz".index(query[-1])
    d = site.dst("d", PtxType.B32)

    def one_axis(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, words(m, lanes)[:, axis])

    return one_axis


# --------------------------------------------------------------------------- stack


class _Stack:
    """Each thread's ``alloca`` stack pointer (a local-space address), growing down."""

    def __init__(self, m: Any) -> None:
        mem = m.mem
        self.base = -(-mem.local_size // 16) * 16
        self.top = self.base + STACK_BYTES
        row = -(-self.top // 8) * 8
        grown = np.zeros(m.n * row, dtype=np.uint8)
        grown.reshape(m.n, row)[:, : mem.local_row] = mem.local.reshape(m.n, mem.local_row)
        mem.local, mem.local_row, mem.local_size = grown, row, self.top
        self.sp = np.full(m.n, self.top, dtype=np.int64)


def _stack(m: Any) -> _Stack:
    state = m.ext.get("stack")
    if state is None:
        state = m.ext["stack"] = _Stack(m)
    return state


def alloca(site: Site) -> Executor:
    """``alloca.type ptr, size{, align}``: carve ``size`` bytes off the thread's stack."""
    ty = site.type()
    size = site.src("size", ty)
    align = int(site.imm("align")) if site.operand("align") is not None else 8
    if align <= 0 or align & (align - 1) or align > 1 << 23:
        raise NotEmulated(f"{site.mnemonic}: the alignment must be a power of 2 up to 2**23")
    align = max(align, 8)
    ptr = site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        if (m.depth[lanes.idx] > 0).any():
            raise Fault(
                NotEmulated,
                "alloca in a called function is not emulated (its memory is freed when the"
                " function returns, which the emulator's call frames do not track)",
                lane=int(lanes.idx[int(np.argmax(m.depth[lanes.idx] > 0))]),
            )
        st = _stack(m)
        want = size(m, lanes).astype(np.int64)
        sp = (st.sp[lanes.idx] - want) & ~np.int64(align - 1)
        over = (sp < st.base) | (want < 0)
        if over.any():
            i = int(np.argmax(over))
            raise Fault(
                OutOfBounds,
                f"alloca of {int(want[i])} bytes overflows the {STACK_BYTES}-byte stack of the"
                " thread",
                lane=int(lanes.idx[i]),
                space=Space.LOCAL.value,
            )
        st.sp[lanes.idx] = sp
        ptr(m, lanes, sp.astype(np.uint64 if ty is PtxType.U64 else np.uint32))

    return run


def stacksave(site: Site) -> Executor:
    """``stacksave.type d``: the thread's stack pointer."""
    ty = site.type()
    d = site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        sp = _stack(m).sp[lanes.idx]
        d(m, lanes, sp.astype(np.uint64 if ty is PtxType.U64 else np.uint32))

    return run


def stackrestore(site: Site) -> Executor:
    """``stackrestore.type a``: set the stack pointer back to a value of ``stacksave``."""
    a = site.src("a", site.type())

    def run(m: Any, lanes: Lanes) -> Any:
        st = _stack(m)
        sp = a(m, lanes).astype(np.int64)
        bad = (sp < st.base) | (sp > st.top)
        if bad.any():
            i = int(np.argmax(bad))
            raise Fault(
                EmuError,
                f"stackrestore to {int(sp[i]):#x}, which is not a stack pointer stacksave returned",
                lane=int(lanes.idx[i]),
            )
        st.sp[lanes.idx] = sp

    return run


SEMANTICS: dict[str, Callable[[Site], Executor]] = {
    "setmaxnreg": setmaxnreg,
    "griddepcontrol": griddepcontrol,
    "clusterlaunchcontrol.try_cancel": try_cancel,
    "clusterlaunchcontrol.query_cancel": query_cancel,
    "alloca": alloca,
    "stacksave": stacksave,
    "stackrestore": stackrestore,
}
