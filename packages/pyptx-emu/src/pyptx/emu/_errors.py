"""The emulator's errors: what a GPU would have done silently, reported with where and who.

Every fault names the instruction, its PTX line and the first thread (CTA and thread index)
that hit it; memory faults add the address and state space. The fields are attributes too,
so tools can act on them without parsing the message.
"""

from __future__ import annotations

__all__ = [
    "DataRace",
    "Deadlock",
    "EmuError",
    "Fault",
    "LaunchError",
    "Misaligned",
    "NotEmulated",
    "OutOfBounds",
    "UninitializedRead",
]

Dim3 = tuple[int, int, int]


class EmuError(Exception):
    """Base class of everything :func:`pyptx.emu.launch` raises about a kernel.

    Attributes:
        instruction: the PTX instruction text, when one instruction is at fault.
        line: its line in the PTX text (1-based), if known.
        span: its ``file:line:col`` (a :class:`pyptx.ir.Span`), when the module was parsed
            with ``spans=True``; the message then names it instead of the line.
        cta: the CTA index ``(x, y, z)`` of the first thread at fault, if any.
        tid: the thread index ``(x, y, z)`` within that CTA, if any.
        address: the memory address involved (memory faults).
        space: the state space of that address (``"global"``, ``"shared"``, ...).
        detail: the message without the location.
    """

    def __init__(
        self,
        detail: str,
        *,
        instruction: str | None = None,
        line: int | None = None,
        span: object = None,
        cta: Dim3 | None = None,
        tid: Dim3 | None = None,
        address: int | None = None,
        space: str | None = None,
    ) -> None:
        self.detail = detail
        self.instruction = instruction
        self.line = line
        self.span = span
        self.cta = cta
        self.tid = tid
        self.address = address
        self.space = space
        super().__init__(self._message())

    def _message(self) -> str:
        parts = [self.detail]
        where = []
        if self.instruction is not None:
            at = f" (PTX line {self.line})" if self.line is not None else ""
            if self.span is not None:  # the module was parsed with spans: file:line:col
                at = f" ({self.span})"
            where.append(f"in '{self.instruction}'{at}")
        if self.cta is not None and self.tid is not None:
            where.append(f"thread {self.tid} of CTA {self.cta}")
        if where:
            parts.append("; ".join(where))
        return "\n  ".join(parts)


class LaunchError(EmuError, ValueError):
    """The launch itself is wrong: grid, block, arguments, shared memory size, kernel name."""


class OutOfBounds(EmuError):
    """A memory access outside every allocation of its state space."""


class Misaligned(EmuError):
    """A memory access whose address is not a multiple of its size (or required alignment)."""


class Deadlock(EmuError):
    """Every remaining thread waits on something that can no longer happen.

    Attributes:
        waiting: one line per group of waiting warps: where they wait and on what.
    """

    def __init__(self, detail: str, waiting: tuple[str, ...] = (), **where: object) -> None:
        self.waiting = waiting
        text = detail
        if waiting:
            text += "\n  waiting:\n    " + "\n    ".join(waiting)
        super().__init__(text, **where)  # type: ignore[arg-type]


class UninitializedRead(EmuError):
    """An instruction used the value of a register that was never written in that thread."""


class DataRace(EmuError):
    """Two threads accessed the same shared-memory byte without a barrier between them.

    Only reported when the launch asks for it (``check_races=True``).
    """


class NotEmulated(EmuError):
    """The kernel uses an instruction, modifier or launch feature the emulator cannot run."""


class Fault(Exception):
    """Raised inside instruction semantics; the machine turns it into an :class:`EmuError`.

    The semantics know which lane and address went wrong but not which instruction, line or
    thread coordinates that is; the machine adds those.

    Attributes:
        kind: the public error class to raise.
        detail: the message.
        lane: the wave lane at fault (an index into the machine's thread arrays), if known.
        address: the address involved, if any.
        space: its state space, if any.
    """

    def __init__(
        self,
        kind: type[EmuError],
        detail: str,
        *,
        lane: int | None = None,
        address: int | None = None,
        space: str | None = None,
    ) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.lane = lane
        self.address = address
        self.space = space
