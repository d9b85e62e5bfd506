"""Warp-synchronous instructions: waiting until a warp's lanes meet at one instruction.

``.sync`` instructions (``shfl.sync``, ``vote.sync``, ``bar.warp.sync``, ``mma.sync``, ...)
take effect only when every non-exited lane named in ``membermask`` executes the same
instruction. :func:`converged` checks that; when lanes are missing it sets the present ones
aside with a :class:`WarpSyncWait`, which joins every group that reaches the same
instruction and releases them together (they run the instruction again, as one group).
Missing lanes that can never arrive end in a deadlock report. Warpgroup instructions
(``wgmma``, ``setmaxnreg``) do the same for the four warps of a warpgroup
(:func:`warpgroup_converged`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._lanes import WARP, Lanes
from ._site import Site

__all__ = [
    "FULL_MASK",
    "WARPGROUP",
    "WarpSyncWait",
    "WarpgroupWait",
    "converged",
    "full_warps",
    "warpgroup_converged",
    "warpgroups_ready",
]

FULL_MASK = 0xFFFF_FFFF
"""A membermask naming all 32 lanes."""

_BITS = np.arange(WARP, dtype=np.uint32)


def full_warps(lanes: Lanes) -> bool:
    """Whether ``lanes`` is made of whole warps (32 lanes of each warp present)."""
    return lanes.n == lanes.nwarps * WARP


def _missing(m: Any, lanes: Lanes, masks: np.ndarray | None) -> bool:
    """Whether some lane named by a membermask (and not exited) is absent from ``lanes``."""
    if masks is None and full_warps(lanes):
        return False
    present = np.zeros(m.n, dtype=bool)
    present[lanes.idx] = True
    base = (lanes.idx // WARP) * WARP
    peers = base[:, None] + _BITS.astype(np.int64)
    if masks is None:
        named = np.ones((lanes.n, WARP), dtype=bool)
    else:
        named = ((masks.astype(np.uint32)[:, None] >> _BITS) & 1).astype(bool)
    ok = ~named | present[peers] | m.exited[peers]
    return not bool(ok.all())


def converged(
    m: Any,
    site: Site,
    lanes: Lanes,
    masks: Callable[[Any, Lanes], np.ndarray] | None = None,
) -> bool:
    """Whether the instruction at ``site`` may run on ``lanes`` now.

    Args:
        m: the machine.
        site: the warp-synchronous instruction.
        lanes: the lanes executing it.
        masks: a reader of each lane's membermask, or ``None`` for the whole warp
            (``.aligned`` instructions).

    Returns:
        ``True`` when every named lane is present or exited. Otherwise the lanes are moved
        to wait for the others and the executor must return ``YIELD``.
    """
    values = masks(m, lanes) if masks is not None else None
    if not _missing(m, lanes, values):
        return True
    m.move(lanes.idx, site.pc, WarpSyncWait(site, masks))
    return False


class WarpSyncWait:
    """Lanes waiting for the rest of their warp at one ``.sync`` instruction."""

    reexecute = True
    soft = False

    def __init__(self, site: Site, masks: Callable[[Any, Lanes], np.ndarray] | None) -> None:
        self.site = site
        self.masks = masks
        self.merge_key = ("warp-sync", site.pc)

    def poll(self, m: Any, lanes: Lanes) -> np.ndarray | None:
        """All lanes go once no named lane is missing (they join at the same pc)."""
        values = self.masks(m, lanes) if self.masks is not None else None
        if _missing(m, lanes, values):
            return None
        return np.ones(lanes.n, dtype=bool)

    def release(self, m: Any, lanes: Lanes, ok: bool) -> None:
        """Nothing to finish: the instruction runs again."""

    def describe(self, m: Any, lanes: Lanes) -> str:
        """What is missing."""
        return (
            f"{self.site.mnemonic} waits for the other lanes of its warp named in its"
            " membermask, which are elsewhere in the program"
        )


WARPGROUP = 128
"""Threads per warpgroup (four consecutive warps of a CTA, the first warp a multiple of 4)."""


def _warpgroup_of(m: Any) -> tuple[np.ndarray, int]:
    """Each wave lane's warpgroup index, and how many warpgroups the wave has."""
    per_cta = -(-m.padded // WARPGROUP)
    return m.cta_of * per_cta + m.tid_linear // WARPGROUP, m.ctas * per_cta


def warpgroups_ready(m: Any, lanes: Lanes) -> np.ndarray:
    """Which of ``lanes`` have every thread of their warpgroup among them or exited."""
    of, count = _warpgroup_of(m)
    here = np.zeros(m.n, dtype=bool)
    here[lanes.idx] = True
    missing = np.bincount(of[~(here | m.exited)], minlength=count)
    return missing[of[lanes.idx]] == 0


def warpgroup_converged(m: Any, site: Site, lanes: Lanes) -> Lanes | None:
    """The lanes of ``lanes`` whose whole warpgroup executes ``site`` now.

    The warpgroup version of :func:`converged`, for ``.sync.aligned`` warpgroup instructions
    (``wgmma.*``, ``setmaxnreg``): the four warps of a warpgroup take effect together. Lanes
    whose warpgroup is incomplete are set aside with a :class:`WarpgroupWait` until the
    other warps reach the same instruction (or exit).

    Returns:
        ``lanes`` itself when every warpgroup is complete; the complete ones otherwise, after
        which the executor runs on them and returns ``YIELD``; ``None`` when no warpgroup is
        complete (return ``YIELD`` at once).
    """
    ready = warpgroups_ready(m, lanes)
    if ready.all():
        return lanes
    m.move(lanes.idx[~ready], site.pc, WarpgroupWait(site))
    return lanes.subset(ready, m.n) if ready.any() else None


class WarpgroupWait:
    """Lanes waiting for the rest of their warpgroup at one warpgroup-wide instruction."""

    reexecute = True
    soft = False

    def __init__(self, site: Site) -> None:
        self.site = site
        self.merge_key = ("warpgroup-sync", site.pc)

    def poll(self, m: Any, lanes: Lanes) -> np.ndarray | None:
        """The lanes whose whole warpgroup has arrived (or exited)."""
        ready = warpgroups_ready(m, lanes)
        return ready if ready.any() else None

    def release(self, m: Any, lanes: Lanes, ok: bool) -> None:
        """Nothing to finish: the instruction runs again with the whole warpgroup."""

    def describe(self, m: Any, lanes: Lanes) -> str:
        """Which warps of the first waiting warpgroup are missing."""
        lane = int(lanes.idx[0])
        first = lane - int(m.tid_linear[lane]) % WARPGROUP
        here = np.zeros(m.n, dtype=bool)
        here[lanes.idx] = True
        present = here | m.exited
        missing = [
            (first - lane + int(m.tid_linear[lane])) // WARP + w
            for w in range(WARPGROUP // WARP)
            if first + w * WARP < m.n
            and not present[first + w * WARP : first + (w + 1) * WARP].all()
        ]
        names = ", ".join(map(str, missing))
        which = (
            f"warps {names} of the CTA are" if len(missing) > 1 else f"warp {names} of the CTA is"
        )
        return (
            f"{self.site.mnemonic} waits for the other warps of its warpgroup ({which} elsewhere"
            " in the program)"
        )
