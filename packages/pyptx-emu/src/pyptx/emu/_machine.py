"""One wave of CTAs running: register file, thread groups, and the scheduler.

Threads that are at the same program counter and not waiting form a :class:`Group`; an
instruction runs once per group, vectorized over its lanes (all its CTAs and warps at once).
Divergent branches split a group; groups that reach the same program counter merge again.

Scheduling picks the runnable group with the lowest program counter (so the lanes of an
``if`` reconverge where the branches meet, and loops finish before the code after them
runs), runs it straight on until a branch, a wait or another group's program counter, and
repeats. A group waiting on a barrier, an mbarrier or its warp's other lanes is set aside
with a :class:`Wait` and polled when something changes. A group that keeps jumping back
without changing any memory or synchronization state (a spin loop) yields to the others.
When nothing can run and nothing waiting can proceed, that is a deadlock, reported with
every waiting group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from pyptx.emitter import emit

from ._errors import Deadlock, EmuError, Fault, NotEmulated, UninitializedRead
from ._lanes import WARP, Lanes
from ._memory import Memory
from ._program import Program

__all__ = [
    "EXIT",
    "YIELD",
    "Executor",
    "Group",
    "LaunchConfig",
    "Machine",
    "Wait",
    "Wave",
    "refusal",
]

Dim3 = tuple[int, int, int]

YIELD: Any = object()
"""What an executor returns after moving some of its lanes with :meth:`Machine.move`."""

EXIT = -1
"""The program counter of exited lanes."""

Executor = Callable[["Machine", Lanes], Any]
"""An instruction ready to run: returns ``None`` (next instruction), a program counter
(every lane jumps there) or :data:`YIELD`."""

SPIN_LIMIT = 64
"""Backward jumps without any change of memory or synchronization state after which a group
counts as spinning and lets other groups run first."""

LIVELOCK_LIMIT = 1_000_000
"""Backward jumps of spinning groups, with nothing else runnable and no state change, after
which the machine reports a deadlock (a spin loop that can never end)."""


class Wait(Protocol):
    """Why a group is set aside, and when it may go on."""

    reexecute: bool
    """On release, run the instruction again (``True``) or continue after it."""
    soft: bool
    """May be released with ``ok=False`` when nothing else can run (a ``try_wait`` that
    times out); a hard wait (a barrier) never is."""
    merge_key: object
    """Waits with equal non-``None`` keys at the same program counter join into one group
    (lanes of a warp waiting for each other at a ``.sync`` instruction)."""

    def poll(self, m: Machine, lanes: Lanes) -> np.ndarray | None:
        """A mask of the lanes that may go on now, or ``None`` if none may."""

    def release(self, m: Machine, lanes: Lanes, ok: bool) -> None:
        """Finish the instruction for ``lanes`` (write results), ``ok`` False on a timeout."""

    def describe(self, m: Machine, lanes: Lanes) -> str:
        """What the lanes wait for, for deadlock reports."""


@dataclass(frozen=True)
class LaunchConfig:
    """What a launch asked for.

    Attributes:
        grid: CTAs per dimension.
        block: threads per CTA per dimension.
        cluster: CTAs per cluster per dimension.
        dynamic_smem: bytes of dynamic shared memory per CTA.
        shared_bytes: bytes of shared memory per CTA in all (static + dynamic).
        check_races: whether to run the shared-memory race checker.
    """

    grid: Dim3
    block: Dim3
    cluster: Dim3
    dynamic_smem: int
    shared_bytes: int
    check_races: bool

    @property
    def threads(self) -> int:
        """Threads per CTA."""
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def padded(self) -> int:
        """Threads per CTA rounded up to whole warps: the wave lanes each CTA takes."""
        return -(-self.threads // WARP) * WARP

    @property
    def cluster_size(self) -> int:
        """CTAs per cluster."""
        return self.cluster[0] * self.cluster[1] * self.cluster[2]


@dataclass(frozen=True)
class Wave:
    """The CTAs one machine runs together (whole clusters).

    Attributes:
        ctaid: each CTA's ``%ctaid`` as an ``(k, 3)`` array.
        rank: each CTA's ``%cluster_ctarank``.
        cluster_first: the wave index of each CTA's cluster's rank-0 CTA.
    """

    ctaid: np.ndarray
    rank: np.ndarray
    cluster_first: np.ndarray


class Group:
    """Lanes at one program counter (see the module docstring)."""

    __slots__ = ("epoch", "lanes", "pc", "spin", "spinning", "wait")

    def __init__(self, pc: int, lanes: Lanes, wait: Wait | None = None) -> None:
        self.pc = pc
        self.lanes = lanes
        self.wait = wait
        self.spin = 0
        self.spinning = False
        self.epoch = -1


class Machine:
    """A wave of CTAs executing one kernel (see the module docstring).

    Semantics read and write the state below; nothing else is shared between waves except
    the global memory segments.

    Attributes:
        program: the program.
        config: the launch.
        wave: the CTAs of this wave.
        mem: this wave's memory.
        n: lanes in the wave (each CTA padded to whole warps).
        regs: the register file, one array per register slot.
        cta_of: each lane's CTA index within the wave.
        tid: each lane's ``%tid`` as an ``(n, 3)`` array.
        tid_linear: each lane's linear thread index in its CTA.
        laneid: each lane's ``%laneid``.
        exited: lanes that have exited (padding lanes start exited).
        ext: per-wave state of instruction families (mbarriers, async groups, ...).
        epoch: counts changes of memory or synchronization state (see :meth:`touch`).
    """

    def __init__(
        self,
        program: Program,
        executors: list[Executor],
        config: LaunchConfig,
        wave: Wave,
        mem: Memory,
        entry: int,
    ) -> None:
        self.program = program
        self.entry = entry
        self.executors = executors
        self.config = config
        self.wave = wave
        self.mem = mem
        threads = config.threads
        self.padded = config.padded
        ctas = int(wave.ctaid.shape[0])
        self.ctas = ctas
        self.n = n = ctas * self.padded
        lane = np.arange(n, dtype=np.int64)
        self.cta_of = mem.cta_of
        self.tid_linear = lane % self.padded
        bx, by, _ = config.block
        t = self.tid_linear
        self.tid = np.stack([t % bx, (t // bx) % by, t // (bx * by)], axis=1).astype(np.uint32)
        self.laneid = (lane % WARP).astype(np.uint32)
        self.exited = self.tid_linear >= threads
        self.regs: list[np.ndarray] = []
        self.init: list[np.ndarray | None] = []
        for reg in program.registers:
            shape = (n, 2) if reg.halves == 2 else (n,)
            self.regs.append(np.zeros(shape, dtype=reg.dtype))
            self.init.append(self.exited.copy())
        self.counts = [0] * len(executors)
        self.ext: dict[str, Any] = {}
        self.tensor_maps: tuple[Any, ...] = ()
        self.epoch = 0
        self.depth = np.zeros(n, dtype=np.int64)
        self.stack = np.zeros((n, 0), dtype=np.int64)
        self.group: Group | None = None
        self.groups: list[Group] = []
        self._moves: list[tuple[np.ndarray, int, Wait | None]] = []
        self._polled = -1
        self._limit = 0
        self._starved = 0
        self._soft_epoch = -1
        self.pc = entry
        """The program counter of the instruction running now."""
        self.on_sync: Callable[[np.ndarray, np.ndarray | None, bool], None] | None = None
        """Called by :meth:`synchronized` (the race checker listens)."""

    # ----------------------------------------------------------------- state helpers

    @property
    def clock(self) -> int:
        """Warp instructions executed so far in this wave (``%clock``, ``%globaltimer``)."""
        return sum(self.counts)

    def touch(self) -> None:
        """Record a change of memory or synchronization state (ends spin-loop suspicion)."""
        self.epoch += 1

    def synchronized(
        self, ctas: np.ndarray, lanes: np.ndarray | None = None, *, warp: bool = False
    ) -> None:
        """Record a synchronization among threads (semantics call it; the race checker listens).

        Args:
            ctas: wave CTA indices where a barrier completed.
            lanes: when given, only these threads synchronized with the ones they waited
                for (an mbarrier wait).
            warp: ``lanes`` synchronized among themselves only (a warp barrier).
        """
        if self.on_sync is not None:
            self.on_sync(ctas, lanes, warp)

    def lanes(self, idx: np.ndarray) -> Lanes:
        """A :class:`Lanes` over the given wave lane indices (sorted)."""
        return Lanes(idx, self.n)

    def check_init(self, index: int, lanes: Lanes, name: str) -> None:
        """Raise :class:`UninitializedRead` if register ``index`` is unwritten in a lane."""
        init = self.init[index]
        if init is None:
            return
        ok = init[lanes.sel]
        if ok.all():
            if lanes.full or init.all():
                self.init[index] = None
            return
        i = int(np.argmin(ok))
        raise Fault(
            UninitializedRead,
            f"register {name} is read before anything was written to it in this thread",
            lane=int(lanes.idx[i]),
        )

    def mark_init(self, index: int, lanes: Lanes) -> None:
        """Record that register ``index`` was written in ``lanes``."""
        init = self.init[index]
        if init is None:
            return
        if lanes.full:
            self.init[index] = None
            return
        init[lanes.sel] = True

    def cta_coords(self, lane: int) -> tuple[Dim3, Dim3]:
        """``(%ctaid, %tid)`` of a wave lane, as plain tuples."""
        c = self.wave.ctaid[int(self.cta_of[lane])]
        t = self.tid[lane]
        return (int(c[0]), int(c[1]), int(c[2])), (int(t[0]), int(t[1]), int(t[2]))

    # ----------------------------------------------------------------- moving lanes

    def move(self, idx: np.ndarray, pc: int, wait: Wait | None = None) -> None:
        """Send lanes ``idx`` of the running group to ``pc`` (``EXIT``: they exit).

        Optionally they wait there. Lanes not moved continue after the instruction; the
        executor then returns :data:`YIELD`.
        """
        if idx.size:
            self._moves.append((idx, pc, wait))

    def _finish(self, g: Group, pc: int) -> None:
        """Apply the moves of the instruction at ``pc`` to the running group."""
        moves, self._moves = self._moves, []
        self.groups.remove(g)
        moved = np.zeros(self.n, dtype=bool)
        for idx, target, wait in moves:
            moved[idx] = True
            if target == EXIT:
                self.exited[idx] = True
                self.touch()
                continue
            self._add(Group(target, self.lanes(idx), wait))
        rest = g.lanes.idx[~moved[g.lanes.idx]]
        if rest.size:
            self._add(Group(pc + 1, self.lanes(rest)))

    def _add(self, g: Group) -> None:
        wait = g.wait
        if wait is not None and wait.merge_key is not None:
            # Lanes waiting for the rest of their warp at the same instruction join up.
            for other in self.groups:
                if (
                    other.pc == g.pc
                    and other.wait is not None
                    and other.wait.merge_key == wait.merge_key
                ):
                    self.groups.remove(other)
                    merged = np.union1d(other.lanes.idx, g.lanes.idx)
                    g = Group(g.pc, self.lanes(merged), wait)
                    break
        self.groups.append(g)
        if wait is not None:
            mask = wait.poll(self, g.lanes)
            if mask is not None and mask.any():
                self._release(g, mask, ok=True)

    # ----------------------------------------------------------------- scheduling

    def run(self) -> None:
        """Run the wave to completion.

        Raises:
            EmuError: a fault, a deadlock, or an instruction that is not emulated.
        """
        start = self.entry
        live = np.flatnonzero(~self.exited)
        if live.size:
            self.groups = [Group(start, self.lanes(live))]
        while True:
            g = self._pick()
            if g is None:
                if not self.groups:
                    return
                if self._release_soft():
                    continue
                raise self._deadlock()
            self._run(g)

    def _pick(self) -> Group | None:
        groups = self.groups
        if not groups:
            return None
        runnable = [g for g in groups if g.wait is None]
        if (not runnable or self._polled != self.epoch) and len(runnable) < len(groups):
            self._poll()
            runnable = [g for g in groups if g.wait is None]
        if not runnable:
            return None
        calm = [g for g in runnable if not g.spinning]
        if calm:
            best = min(calm, key=_pc)
            self._starved = 0
        else:
            # Every runnable group spins: rotate through them. With other threads waiting
            # on them, a spin that never changes anything is a livelock.
            best = runnable[self._starved % len(runnable)]
            if len(groups) > 1:
                self._starved += 1
                if self._starved > LIVELOCK_LIMIT:
                    return None
        same = [g for g in runnable if g.pc == best.pc and g is not best and not g.spinning]
        if same:
            for g in same:
                groups.remove(g)
            groups.remove(best)
            merged = np.concatenate([best.lanes.idx, *(g.lanes.idx for g in same)])
            merged.sort()
            best = Group(best.pc, self.lanes(merged))
            groups.append(best)
        others = [g.pc for g in runnable if g is not best and g not in same and not g.spinning]
        self._limit = min(others) if others and calm else len(self.executors) + 1
        if best.pc >= self._limit:
            self._limit = best.pc + 1
        return best

    def _poll(self) -> None:
        self._polled = self.epoch
        for g in list(self.groups):
            wait = g.wait
            if wait is None:
                continue
            mask = wait.poll(self, g.lanes)
            if mask is None or not mask.any():
                continue
            self._release(g, mask, ok=True)

    def _release(self, g: Group, mask: np.ndarray, ok: bool) -> None:
        wait = g.wait
        assert wait is not None
        go = g.lanes if bool(mask.all()) else g.lanes.subset(mask, self.n)
        wait.release(self, go, ok)
        self.groups.remove(g)
        pc = g.pc if wait.reexecute else g.pc + 1
        self.groups.append(Group(pc, go))
        if not mask.all():
            self.groups.append(Group(g.pc, g.lanes.subset(~mask, self.n), wait))

    def _release_soft(self) -> bool:
        """Time out the soft waits (once per state change): nothing else can run."""
        if self._starved > LIVELOCK_LIMIT:
            return False
        soft = [g for g in self.groups if g.wait is not None and g.wait.soft]
        if not soft or self._soft_epoch == self.epoch:
            return False
        self._soft_epoch = self.epoch
        for g in soft:
            self._release(g, np.ones(g.lanes.n, dtype=bool), ok=False)
        return True

    def _deadlock(self) -> Deadlock:
        lines = []
        first: tuple[Group, int] | None = None
        for g in sorted(self.groups, key=_pc):
            stmt = self.program.code[g.pc] if g.pc < len(self.program.code) else None
            where = f"line {stmt.line} '{stmt.insn.mnemonic}'" if stmt is not None else f"pc {g.pc}"
            what = g.wait.describe(self, g.lanes) if g.wait is not None else "spinning in a loop"
            lines.append(f"{self._who(g.lanes)} at {where}: {what}")
            if first is None:
                first = (g, int(g.lanes.idx[0]))
        detail = "every remaining thread waits on something that can no longer happen"
        if first is None:
            return Deadlock(detail)
        g, lane = first
        cta, tid = self.cta_coords(lane)
        stmt = self.program.code[g.pc]
        return Deadlock(
            detail,
            tuple(lines),
            instruction=_text(stmt.insn),
            line=stmt.line,
            span=stmt.insn.span,
            cta=cta,
            tid=tid,
        )

    def _who(self, lanes: Lanes) -> str:
        """'warps 0-3 of CTA (0, 0, 0)' style description of some lanes."""
        parts = []
        ctas = np.unique(self.cta_of[lanes.idx])
        for c in ctas[:4]:
            in_cta = lanes.idx[self.cta_of[lanes.idx] == c]
            warps = np.unique((in_cta % self.padded) // WARP)
            coords = tuple(int(v) for v in self.wave.ctaid[int(c)])
            parts.append(f"{_ranges('warp', warps)} of CTA {coords}")
        more = f" and {ctas.size - 4} more CTAs" if ctas.size > 4 else ""
        return "; ".join(parts) + more

    # ----------------------------------------------------------------- running

    def _run(self, g: Group) -> None:
        self.group = g
        execs = self.executors
        counts = self.counts
        lanes = g.lanes
        nw = lanes.nwarps
        pc = g.pc
        limit = self._limit
        try:
            while pc < limit:
                self.pc = pc
                counts[pc] += nw
                r = execs[pc](self, lanes)
                if r is None:
                    pc += 1
                    continue
                if r is YIELD:
                    self._finish(g, pc)
                    return
                if r <= pc:
                    if g.epoch == self.epoch:
                        g.spin += 1
                        if g.spin > SPIN_LIMIT:
                            g.spinning = True
                            g.pc = r
                            return
                    else:
                        g.epoch = self.epoch
                        g.spin = 0
                        g.spinning = False
                pc = r
            g.pc = pc
        except Fault as fault:
            self._moves = []
            raise self._located(fault, pc, lanes) from None
        except EmuError as err:
            self._moves = []
            if err.instruction is None:
                raise self._located(err, pc, lanes) from None
            raise

    def _located(self, err: Fault | EmuError, pc: int, lanes: Lanes) -> EmuError:
        """The public error for ``err`` at the instruction ``pc``, with its line and thread."""
        stmt = self.program.code[pc]
        lane = getattr(err, "lane", None)
        cta, tid = self.cta_coords(lane if lane is not None else int(lanes.idx[0]))
        kind = err.kind if isinstance(err, Fault) else type(err)
        where = {
            "instruction": _text(stmt.insn),
            "line": stmt.line,
            "span": stmt.insn.span,
            "cta": cta,
            "tid": tid,
            "address": err.address,
            "space": err.space,
        }
        if issubclass(kind, Deadlock):
            return Deadlock(err.detail, getattr(err, "waiting", ()), **where)
        return kind(err.detail, **where)  # type: ignore[arg-type]


def _pc(g: Group) -> int:
    return g.pc


def _ranges(noun: str, values: np.ndarray) -> str:
    vals = [int(v) for v in values]
    spans: list[str] = []
    start = prev = vals[0]
    for v in [*vals[1:], None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        spans.append(f"{start}" if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    plural = noun + ("s" if len(vals) > 1 else "")
    return f"{plural} {', '.join(spans)}"


def _text(insn: Any) -> str:
    return str(emit(insn, canonical=True).strip())


def refusal(message: str) -> Executor:
    """An executor that raises :class:`NotEmulated` with ``message`` when it runs.

    Instructions the emulator cannot execute get one, so a kernel whose unsupported paths are
    never taken still runs.
    """

    def refuse(m: Machine, lanes: Lanes) -> Any:
        raise NotEmulated(message)

    return refuse
