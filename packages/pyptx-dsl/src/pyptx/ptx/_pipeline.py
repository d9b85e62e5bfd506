"""Stage rings of mbarriers: phase tracking and a producer/consumer pipeline.

* :func:`pipeline` (``ptx.pipeline``) is a loop-carried ``(cursor, phase)`` pair for an
  ``n``-stage ring; each :meth:`PipelineState.advance` hands out the next stage and the
  phase parity to wait for on it.
* :func:`mbarrier_pipeline` (``smem.mbarrier_pipeline``) allocates a ``full`` and an
  ``empty`` ring and names the four steps of a pipeline: ``producer_acquire``,
  ``producer_commit``, ``consumer_wait``, ``consumer_release``.

The rings themselves (``ptx.mbarrier_array``, also ``ptx.mbarrier.array``: consecutive
8-byte mbarriers, ``ring[i]`` / ``ring.at(stage)`` giving a ``BarrierSlot``) live with the
mbarrier instructions in :mod:`._mbarrier`.

Every instruction is emitted through a ``ptx.*`` wrapper (``ptx.mbarrier.*``, ``ptx.mad``,
``ptx.selp``, ...), so the ISA table checks it for the kernel's target. What each helper
emits is listed in :data:`MULTI_INSTRUCTION`.

The phase convention is the hardware's: a barrier starts in phase 0, and waiting on parity
``p`` returns once the most recent phase with parity ``p`` has completed; on a fresh barrier
waiting on parity 1 returns at once (the phase "before" phase 0 counts as complete). That
is why a producer's state starts at phase 1: its first pass over the ring does not wait
for releases that never happened.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyptx.ir import PtxType

from ..dsl.errors import PtxDslError
from ..dsl.regs import Reg, _new, scalar
from ..dsl.shared import mbarrier
from ._arith import add
from ._compare import selp
from ._logic import xor
from ._mbarrier import BarrierSlot, MbarrierRing, _u32_reg, mbarrier_array

__all__ = [
    "MbarrierPipeline",
    "PipelineState",
    "pipeline",
]


class PipelineState:
    """The stage cursor and phase parity of one walker (producer or consumer) of a ring.

    Attributes:
        n_stages: stages in the ring.
        cursor: ``u32`` register: the stage the next :meth:`advance` hands out, before
            wrapping (it runs 1..n_stages after the first advance).
        phase: ``u32`` register: the phase parity for the stage handed out last.
    """

    def __init__(self, n_stages: int, cursor: Reg, phase: Reg) -> None:
        self.n_stages = n_stages
        self.cursor = cursor
        self.phase = phase

    def advance(self) -> tuple[Reg, Reg]:
        """Hand out the next stage and its phase parity; move the cursor on.

        Emits four instructions::

            setp.eq.u32 p, cursor, n_stages;
            @p xor.b32 phase, phase, 1;        // wrapped: the next lap waits the other parity
            selp.u32 stage, 0, cursor, p;
            add.u32 cursor, stage, 1;

        Returns:
            ``(stage, phase)``: a fresh ``u32`` register with the stage index, and the
            ``phase`` register (updated in place) to wait on for it.
        """
        wrap = self.cursor == self.n_stages
        xor(self.phase, self.phase, 1, pred=wrap)
        stage = _new(PtxType.U32)
        selp(stage, 0, self.cursor, wrap)
        add(self.cursor, stage, 1)
        return stage, self.phase


def pipeline(
    n_stages: int, *, cursor: Reg | None = None, phase: Reg | None = None
) -> PipelineState:
    """A loop-carried stage cursor and phase parity for an ``n_stages`` ring.

    Create it before the device loop; call :meth:`PipelineState.advance` once per stage
    consumed (or produced) inside it.

    Args:
        n_stages: stages in the ring (a positive Python int).
        cursor: a ``u32`` register to use as the cursor (default: a fresh one set to 0,
            ``mov.u32 c, 0``).
        phase: a ``u32`` register with the starting parity (default: a fresh one set to 0,
            ``mov.u32 ph, 0``); a producer waiting on "empty" barriers starts at 1.

    Returns:
        The :class:`PipelineState`.

    Example:
        ``state = ptx.pipeline(4)`` then, in the loop, ``stage, phase = state.advance()``
        and ``full.at(stage).wait(phase)``.
    """
    if not isinstance(n_stages, int) or isinstance(n_stages, bool) or n_stages <= 0:
        raise PtxDslError(f"ptx.pipeline needs a positive int stage count, got {n_stages!r}")
    c = scalar(PtxType.U32, 0) if cursor is None else _u32_reg("ptx.pipeline cursor", cursor)
    p = scalar(PtxType.U32, 0) if phase is None else _u32_reg("ptx.pipeline phase", phase)
    return PipelineState(n_stages, c, p)


@dataclass(frozen=True)
class MbarrierPipeline:
    """A producer/consumer ring: ``full[s]`` (data landed) and ``empty[s]`` (stage free).

    Attributes:
        full: the ring the producer commits to and consumers wait on.
        empty: the ring consumers release to and the producer waits on.
        producer_arrivals: arrivals that complete a ``full`` phase (1 for one TMA-issuing
            thread; the transaction bytes are on top).
        consumer_arrivals: arrivals that complete an ``empty`` phase.
    """

    full: MbarrierRing
    empty: MbarrierRing
    producer_arrivals: int
    consumer_arrivals: int

    @property
    def stages(self) -> int:
        """The number of stages."""
        return self.full.count

    def init(self, *, pred: object = None) -> None:
        """``mbarrier.init`` of every ``full[s]`` and ``empty[s]`` (2 x stages lines).

        Run it in one thread, then make it visible before any other thread uses the barriers
        (``ptx.bar.sync(0)``, or ``ptx.fence.mbarrier_init()`` + a cluster barrier when other
        CTAs arrive on them or multicast into them).
        """
        for s in range(self.stages):
            self.full[s].init(self.producer_arrivals, pred=pred)
            self.empty[s].init(self.consumer_arrivals, pred=pred)

    def producer_state(self) -> PipelineState:
        """A fresh state for the producer: cursor 0, phase 1 (two ``mov.u32``).

        Phase 1 makes the first lap's :meth:`producer_acquire` return at once.
        """
        return pipeline(self.stages, phase=scalar(PtxType.U32, 1))

    def consumer_state(self) -> PipelineState:
        """A fresh state for a consumer: cursor 0, phase 0 (two ``mov.u32``)."""
        return pipeline(self.stages)

    def producer_acquire(self, stage: object, phase: object) -> None:
        """Wait until ``stage`` is free: the ``mbarrier.wait`` loop on ``empty[stage]``."""
        self.empty.at(stage).wait(phase)

    def producer_commit(
        self, stage: object, tx_bytes: object = None, *, pred: object = None
    ) -> BarrierSlot:
        """Signal that ``stage`` is (being) filled: arrive on ``full[stage]``.

        With ``tx_bytes`` emits ``mbarrier.arrive.expect_tx.shared.b64 _, [full], tx_bytes``
        (the phase then also waits for that many bytes of TMA / bulk copies that name this
        barrier); without, a plain ``mbarrier.arrive`` (for data written by the threads
        themselves, after their stores).

        Returns:
            ``full[stage]``, to pass as the copies' ``mbar=``.
        """
        slot = self.full.at(stage)
        if tx_bytes is None:
            slot.arrive(pred=pred)
        else:
            slot.arrive_expect_tx(tx_bytes, pred=pred)
        return slot

    def consumer_wait(self, stage: object, phase: object) -> None:
        """Wait until ``stage`` holds data: the ``mbarrier.wait`` loop on ``full[stage]``."""
        self.full.at(stage).wait(phase)

    def consumer_release(self, stage: object, *, pred: object = None) -> None:
        """Hand ``stage`` back to the producer: ``mbarrier.arrive`` on ``empty[stage]``.

        Every one of the ``consumer_arrivals`` arrivers must call it once per use of the
        stage, after its last read of the stage (``wgmma.wait_group`` first for wgmma).
        """
        self.empty.at(stage).arrive(pred=pred)


def mbarrier_pipeline(
    stages: int,
    *,
    producer_arrivals: int = 1,
    consumer_arrivals: int = 1,
    name: str | None = None,
) -> MbarrierPipeline:
    """Allocate the ``full`` and ``empty`` mbarriers of an ``stages``-deep pipeline.

    Declares two ``.shared .align 8 .b8 <name>[8*stages]`` arrays (``<name>_full`` and
    ``<name>_empty`` when ``name`` is given); emits no instruction. Initialize them with
    :meth:`MbarrierPipeline.init`.

    Args:
        stages: ring depth (a positive int).
        producer_arrivals: arrivals per ``full`` phase.
        consumer_arrivals: arrivals per ``empty`` phase (e.g. the consumer warps).
        name: symbol stem.

    Returns:
        The :class:`MbarrierPipeline`.

    Example::

        pipe = smem.mbarrier_pipeline(4, consumer_arrivals=8)
        with ptx.if_(tid == 0):
            pipe.init()
        ptx.bar.sync(0)
        ...                                   # producer
        state = pipe.producer_state()
        for k in ptx.range_(0, k_tiles):
            stage, phase = state.advance()
            pipe.producer_acquire(stage, phase)
            bar = pipe.producer_commit(stage, STAGE_BYTES)
            ptx.tma.load_2d(dst=..., src=desc, coords=(k0, m0), mbar=bar)
    """
    for what, v in (
        ("producer_arrivals", producer_arrivals),
        ("consumer_arrivals", consumer_arrivals),
    ):
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise PtxDslError(f"smem.mbarrier_pipeline {what} must be a positive int, got {v!r}")
    full = mbarrier(stages, None if name is None else f"{name}_full")
    empty = mbarrier(stages, None if name is None else f"{name}_empty")
    return MbarrierPipeline(
        mbarrier_array(full), mbarrier_array(empty), producer_arrivals, consumer_arrivals
    )


MULTI_INSTRUCTION: dict[str, str] = {
    "ptx.pipeline": "[mov.u32 cursor, 0;] [mov.u32 phase, 0;] (only for the registers not given)",
    "PipelineState.advance": "setp.eq.u32 p, cursor, N; @p xor.b32 phase, phase, 1; "
    "selp.u32 stage, 0, cursor, p; add.u32 cursor, stage, 1",
    "MbarrierPipeline.init": "mbarrier.init [full+8s], producer_arrivals; mbarrier.init "
    "[empty+8s], consumer_arrivals; per stage s",
    "MbarrierPipeline.producer_state": "mov.u32 phase, 1; mov.u32 cursor, 0",
    "MbarrierPipeline.producer_acquire": "MbarrierRing.at(empty) + the ptx.mbarrier.wait loop",
    "MbarrierPipeline.producer_commit": "MbarrierRing.at(full); mbarrier.arrive[.expect_tx] "
    "[a], [tx_bytes]",
    "MbarrierPipeline.consumer_wait": "MbarrierRing.at(full) + the ptx.mbarrier.wait loop",
    "MbarrierPipeline.consumer_release": "MbarrierRing.at(empty); mbarrier.arrive [a]",
}
"""The pipeline helpers and the exact instructions each emits."""
