"""The shared-memory race checker (``launch(..., check_races=True)``).

For every byte of shared memory the checker remembers which thread last wrote it and which
thread(s) read it since the last synchronization that covers it. An access conflicts when
another thread wrote the byte (read-after-write, write-after-write) or, for a write, another
thread read it (write-after-read), with no synchronization in between. Synchronizations:

* a CTA barrier (``bar.sync``/``barrier.sync``/``bar.red``) completing: clears the CTA's bytes;
* a cluster barrier completing: clears the bytes of every CTA of the cluster;
* an mbarrier wait that succeeds: clears the bytes of the waiting threads' CTAs (a coarse
  approximation of acquire semantics that never reports a race the synchronization
  prevents, but can miss races between other threads of that CTA);
* ``bar.warp.sync`` and the other warp-synchronous instructions: forgets the accesses of the
  warp's threads.

Atomics do not conflict with each other, nor do the lanes of one warp writing one address
in one instruction (one write wins, as CUDA defines). A conflict raises :class:`DataRace`
naming both accesses (instruction lines and threads).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._errors import DataRace, Fault
from ._lanes import WARP

__all__ = ["RaceChecker"]

_NONE = -1
_MANY = -2


class RaceChecker:
    """Per-byte ownership of one wave's shared memory since the last synchronization."""

    def __init__(self, machine: Any) -> None:
        self.m = machine
        size = machine.mem.shared.size
        self.writer = np.full(size, _NONE, dtype=np.int64)
        self.writer_pc = np.zeros(size, dtype=np.int64)
        self.reader = np.full(size, _NONE, dtype=np.int64)
        self.reader_pc = np.zeros(size, dtype=np.int64)

    @classmethod
    def attach(cls, machine: Any) -> RaceChecker:
        """Start checking ``machine``'s shared memory."""
        checker = cls(machine)
        machine.mem.on_shared = checker.access
        machine.on_sync = checker.synchronized
        return checker

    def access(self, lanes: np.ndarray, flat: np.ndarray, nbytes: int, kind: str) -> None:
        """Check and record one access: ``nbytes`` bytes at ``flat`` by each of ``lanes``."""
        if kind == "atomic":
            return
        idx = (flat[:, None] + np.arange(nbytes)).reshape(-1)
        who = np.repeat(lanes, nbytes)
        writer = self.writer[idx]
        clash = (writer != _NONE) & (writer != who)
        if kind == "store":
            reader = self.reader[idx]
            clash |= (reader != _NONE) & (reader != who)
            self._conflict(clash, idx, who, "writes")
            self._same_instruction(idx, who)
            self.writer[idx] = who
            self.writer_pc[idx] = self.m.pc
            self.reader[idx] = _NONE
            return
        self._conflict(clash, idx, who, "reads")
        reader = self.reader[idx]
        self.reader[idx] = np.where((reader == _NONE) | (reader == who), who, _MANY)
        self.reader_pc[idx] = self.m.pc

    def _same_instruction(self, idx: np.ndarray, who: np.ndarray) -> None:
        """Threads of different warps writing the same byte "at once" race too.

        Lanes of one warp writing one address in one instruction do not: one of the writes
        wins (the CUDA programming guide defines it so), and compilers rely on it.
        """
        order = np.argsort(idx, kind="stable")
        s_idx, s_who = idx[order], who[order]
        warp = s_who // WARP
        dup = (s_idx[1:] == s_idx[:-1]) & (warp[1:] != warp[:-1])
        if dup.any():
            k = int(np.argmax(dup))
            self._raise(
                int(s_idx[k + 1]),
                int(s_who[k + 1]),
                "writes",
                int(s_who[k]),
                self.m.pc,
                "writes it in the same instruction",
            )

    def _conflict(self, clash: np.ndarray, idx: np.ndarray, who: np.ndarray, verb: str) -> None:
        if not clash.any():
            return
        k = int(np.argmax(clash))
        byte = int(idx[k])
        writer = int(self.writer[byte])
        if writer not in (_NONE, int(who[k])):
            self._raise(byte, int(who[k]), verb, writer, int(self.writer_pc[byte]), "wrote it")
        reader = int(self.reader[byte])
        other = reader if reader >= 0 else -1
        self._raise(byte, int(who[k]), verb, other, int(self.reader_pc[byte]), "read it")

    def _raise(self, byte: int, lane: int, verb: str, other: int, pc: int, what: str) -> None:
        m = self.m
        row = m.mem.shared_row
        offset = byte % row
        stmt = m.program.code[pc]
        if other >= 0:
            _, tid = m.cta_coords(other)
            by = f"thread {tid}"
        else:
            by = "another thread"
        raise Fault(
            DataRace,
            f"this thread {verb} shared memory offset {offset:#x}, but {by} {what} at PTX"
            f" line {stmt.line} ('{stmt.insn.mnemonic}') with no barrier in between",
            lane=lane,
            address=offset,
            space="shared",
        )

    def synchronized(self, ctas: np.ndarray, lanes: np.ndarray | None, warp: bool) -> None:
        """Forget the accesses the synchronization orders (see the module docstring)."""
        m = self.m
        if warp and lanes is not None:
            mine = np.zeros(m.n + 2, dtype=bool)
            mine[lanes] = True
            for owners in (self.writer, self.reader):
                hit = mine[owners]  # _NONE/_MANY index the two spare slots at the end
                owners[hit] = _NONE
            return
        if lanes is not None:
            ctas = np.unique(m.cta_of[lanes])
        row = m.mem.shared_row
        for c in np.unique(ctas):
            part = slice(int(c) * row, (int(c) + 1) * row)
            self.writer[part] = _NONE
            self.reader[part] = _NONE
