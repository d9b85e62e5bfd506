"""Named CTA barriers: ``ptx.named_barrier(id, count=...)`` with ``sync`` and ``arrive``.

A CTA has 16 hardware barriers; barrier 0 is the one ``__syncthreads`` uses. Warp-specialized
kernels give each group of warps its own barrier and thread count, so a consumer warpgroup
can synchronize without stalling the producer. Each method emits exactly one ``bar``
instruction through ``ptx.bar``; the ISA table checks the id (0..15) and the count (a
multiple of 32).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..dsl.errors import PtxDslError
from ._sync import bar

__all__ = ["NamedBarrier", "named_barrier"]


@dataclass(frozen=True)
class NamedBarrier:
    """A barrier number and the number of threads that take part in it.

    Attributes:
        barrier_id: 0..15, an int or a 32-bit register.
        count: participating threads (a multiple of 32), an int or a register; ``None`` for
            every thread of the CTA.
    """

    barrier_id: object
    count: object = None

    def sync(self, *, pred: object = None) -> None:
        """``bar.sync id{, count};``: arrive and wait for the others (one instruction)."""
        bar.sync(self.barrier_id, self.count, pred=pred)

    def arrive(self, *, pred: object = None) -> None:
        """``bar.arrive id, count;``: arrive without waiting (one instruction).

        A producer arrives, the consumers ``sync``: together they are ``count`` threads.

        Raises:
            PtxDslError: the barrier has no thread count (PTX requires one for arrive).
        """
        if self.count is None:
            raise PtxDslError(
                "bar.arrive needs a thread count; create the barrier with "
                "ptx.named_barrier(id, count=...)"
            )
        bar.arrive(self.barrier_id, self.count, pred=pred)


def named_barrier(barrier_id: object, *, count: object = None) -> NamedBarrier:
    """A named CTA barrier (emits nothing; its methods emit ``bar.sync`` / ``bar.arrive``).

    Args:
        barrier_id: the barrier number, 0..15 (int or 32-bit register).
        count: participating threads, a multiple of 32 (int or register); default: all.

    Returns:
        The :class:`NamedBarrier`.

    Example:
        ``ptx.named_barrier(consumer + 2, count=128).sync()`` emits
        ``bar.sync %r5, 128;``.

    See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar-barrier
    """
    return NamedBarrier(barrier_id, count)
