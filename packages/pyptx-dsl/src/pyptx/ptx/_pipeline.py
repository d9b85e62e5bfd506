"""Stage rings of mbarriers: phase tracking and a producer/consumer pipeline.

* :func:`pipeline` (``ptx.pipeline``) is a loop-carried ``(cursor, phase)`` pair for an
  ``n``-stage ring; each :meth:`PipelineState.advance` hands out the next stage and the
  phase parity to wait for on it.
* :func:`mbarrier_array` (``ptx.mbarrier_array``) views consecutive 8-byte mbarriers as a
  ring: ``ring[i]`` for a constant stage, ``ring.at(stage)`` for a stage in a register;
  either is a :class:`BarrierSlot`, an address that also has ``init``/``wait``/``arrive``/
  ``arrive_expect_tx``/``arrive_remote`` methods.
* :func:`mbarrier_pipeline` (``smem.mbarrier_pipeline``) allocates a ``full`` and an
  ``empty`` ring and names the four steps of a pipeline: ``producer_acquire``,
  ``producer_commit``, ``consumer_wait``, ``consumer_release``.

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

from ..dsl._trace import current
from ..dsl.errors import PtxDslError
from ..dsl.operands import addr
from ..dsl.regs import Reg, _new, scalar
from ..dsl.shared import MbarrierArray, MbarrierRef, SharedAlloc, base, mbarrier
from ..dsl.values import Addr
from ._arith import add, mad
from ._cluster import mapa
from ._compare import selp
from ._logic import xor
from ._mbarrier import mbarrier as _mbar

__all__ = [
    "BarrierSlot",
    "MbarrierPipeline",
    "MbarrierRing",
    "PipelineState",
    "mbarrier_array",
    "pipeline",
]


def _u32_reg(what: str, value: object) -> Reg:
    if not isinstance(value, Reg) or value.type.bits != 32 or value.type is PtxType.PRED:
        raise PtxDslError(f"{what} must be a 32-bit integer register, but got {value!r}")
    return value


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
class BarrierSlot(Addr):
    """One mbarrier of a ring: an address ``[base+offset]`` with mbarrier methods.

    It is an address operand, so it goes wherever a barrier does (``ptx.mbarrier.*``,
    ``mbar=`` of a TMA copy). Methods emit through ``ptx.mbarrier``.

    Attributes:
        base: a ``u32`` shared address register, or the mbarrier array / allocation.
        offset: the constant byte offset from ``base``.
    """

    base: object
    offset: int

    def init(self, count: object, *, pred: object = None) -> None:
        """``mbarrier.init.shared.b64 [slot], count;``."""
        _mbar.init(self, count, pred=pred)

    def wait(self, phase: object) -> None:
        """Spin until the phase with parity ``phase`` completes (the ``ptx.mbarrier.wait`` loop)."""
        _mbar.wait(self, phase)

    def arrive(self, *, pred: object = None) -> Reg | None:
        """``mbarrier.arrive.shared.b64 state, [slot];``; returns the ``b64`` state."""
        return _mbar.arrive(self, pred=pred)

    def arrive_expect_tx(self, tx_count: object, *, pred: object = None) -> Reg | None:
        """``mbarrier.arrive.expect_tx.shared.b64 state, [slot], tx_count;`` (sm_90)."""
        return _mbar.arrive.expect_tx(self, tx_count, pred=pred)

    def register(self) -> Reg:
        """A ``u32`` register holding this barrier's shared address.

        Emits nothing for a register ring at offset 0, ``add.u32 r, base, offset`` for one
        at an offset, and ``mov.u32 r, symbol`` (+ the add) for an allocated ring.
        """
        start = self.base if isinstance(self.base, Reg) else base(_symbol_of(self.base))
        return start + self.offset if self.offset else start

    def arrive_remote(self, cta_id: object, count: object = 1, *, pred: object = None) -> None:
        """Arrive on the barrier at the same address in CTA ``cta_id`` of the cluster (sm_90).

        Emits (after :meth:`register` for a register ring)::

            mapa.shared::cluster.u32 r, slot, cta_id;
            mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r], count;

        ``count`` is the arrival count (int or 32-bit register).
        """
        if isinstance(self.base, MbarrierArray) and self.offset % 8 == 0:
            local: object = MbarrierRef(self.base, self.offset // 8)
        else:
            local = self.register()
        remote = mapa(local, cta_id, pred=pred)
        _mbar.arrive(
            addr(remote),
            count,
            sem="release",
            scope="cluster",
            space="shared::cluster",
            pred=pred,
        )


def _symbol_of(value: object) -> MbarrierArray | SharedAlloc:
    assert isinstance(value, (MbarrierArray, SharedAlloc))
    return value


@dataclass(frozen=True)
class MbarrierRing:
    """``count`` consecutive mbarriers from ``base + byte_offset`` (see :func:`mbarrier_array`).

    Attributes:
        base: the mbarrier array, shared allocation, or ``u32`` shared address register.
        byte_offset: where the first barrier is, in bytes from ``base``.
        count: the number of barriers.
    """

    base: object
    byte_offset: int
    count: int

    def __getitem__(self, idx: int) -> BarrierSlot:
        """The barrier of constant stage ``idx`` (no instruction)."""
        if not isinstance(idx, int) or isinstance(idx, bool) or not 0 <= idx < self.count:
            raise PtxDslError(
                f"a ring of {self.count} mbarriers takes an int index in [0, {self.count}); "
                f"got {idx!r} (for a register stage use .at(stage))"
            )
        return _slot(self.base, self.byte_offset + 8 * idx)

    def at(self, stage: object) -> BarrierSlot:
        """The barrier of stage ``stage``: a Python int, or a ``u32`` register.

        For a register emits ``mad.lo.u32 a, stage, 8, base;`` (the base of an allocated
        ring is a ``mov.u32 b, symbol`` placed once at the start of the kernel).
        """
        if isinstance(stage, int) and not isinstance(stage, bool):
            return self[stage]
        s = _u32_reg("MbarrierRing.at stage", stage)
        a = _new(PtxType.U32)
        mad(a, s, 8, self._base_register(), mode="lo")
        return _slot(a, self.byte_offset)

    def _base_register(self) -> Reg:
        if isinstance(self.base, Reg):
            return self.base
        trace = current()
        key = ("mbarrier_ring_base", _symbol_of(self.base).symbol)
        if key not in trace.cache:
            with trace.hoisted():
                trace.cache[key] = base(_symbol_of(self.base))
        cached = trace.cache[key]
        assert isinstance(cached, Reg)
        return cached

    def init_all(self, count: object, *, pred: object = None) -> None:
        """``mbarrier.init`` of every barrier with the same arrival count (``count`` lines)."""
        for i in range(self.count):
            self[i].init(count, pred=pred)

    def arrive_remote_all(self, cta_id: object, count: object = 1, *, pred: object = None) -> None:
        """:meth:`BarrierSlot.arrive_remote` on every barrier of the ring."""
        for i in range(self.count):
            self[i].arrive_remote(cta_id, count, pred=pred)


def _slot(base_value: object, offset: int) -> BarrierSlot:
    node = addr(base_value, offset).node
    return BarrierSlot(node=node, base=base_value, offset=offset)


def mbarrier_array(base: object, byte_offset: int = 0, count: int | None = None) -> MbarrierRing:
    """View ``count`` consecutive 8-byte mbarriers as a ring (emits nothing).

    Args:
        base: ``smem.mbarrier(n)`` (the usual case), a shared allocation, or a ``u32``
            register with a shared address (a hand-laid-out dynamic shared memory region).
        byte_offset: bytes from ``base`` to the first barrier (a multiple of 8).
        count: barriers in the ring; default: all of an ``smem.mbarrier`` array from
            ``byte_offset`` on (required for the other bases).

    Returns:
        The :class:`MbarrierRing`.

    Raises:
        PtxDslError: a misaligned offset, a missing count, or a ring past the array's end.
    """
    if not isinstance(byte_offset, int) or isinstance(byte_offset, bool) or byte_offset % 8:
        raise PtxDslError(f"mbarriers are 8-byte aligned: byte_offset={byte_offset!r}")
    if isinstance(base, MbarrierArray):
        room = base.count - byte_offset // 8
        n = room if count is None else count
        if n > room:
            raise PtxDslError(
                f"a ring of {n} mbarriers from byte {byte_offset} overruns {base.name} "
                f"({base.count} mbarriers)"
            )
    elif isinstance(base, SharedAlloc) or (
        isinstance(base, Reg) and base.type.bits == 32 and base.type is not PtxType.PRED
    ):
        if count is None:
            raise PtxDslError("ptx.mbarrier_array needs count= for a register or allocation base")
        n = count
    else:
        raise PtxDslError(
            "ptx.mbarrier_array takes smem.mbarrier(n), a shared allocation or a u32 shared "
            f"address register, got {base!r}"
        )
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise PtxDslError(f"ptx.mbarrier_array needs a positive int count, got {n!r}")
    return MbarrierRing(base, byte_offset, n)


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
    "MbarrierRing.at (register stage)": "mad.lo.u32 a, stage, 8, base (an allocated ring's "
    "base: mov.u32 b, symbol, once, at kernel start)",
    "MbarrierRing.init_all": "mbarrier.init.shared.b64 [slot], count; per barrier",
    "BarrierSlot.wait": "the ptx.mbarrier.wait loop",
    "BarrierSlot.arrive_remote": "[mov.u32 r, symbol;] [add.u32 r, r, offset;] "
    "mapa.shared::cluster.u32 m, r, cta; mbarrier.arrive.release.cluster.shared::cluster.b64 _, "
    "[m], count",
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
