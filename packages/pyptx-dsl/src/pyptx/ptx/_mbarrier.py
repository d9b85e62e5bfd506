"""``ptx.mbarrier``: shared-memory barriers with arrival counts, phases and transaction counts.

Every call emits exactly one ``mbarrier.*`` instruction, except ``ptx.mbarrier.wait`` (the
``try_wait.parity`` spin loop, listed in :data:`MULTI_INSTRUCTION`). Barrier operands are
``smem.mbarrier(n)[i]`` references, ``ptx.addr(...)`` or address registers (32- or 64-bit for
shared memory, 64-bit for generic addresses).

Modifier keywords use the PTX spellings: ``space`` is ``"shared"`` (the default, PTX 7.0),
``"shared::cta"`` (PTX 7.8), ``"shared::cluster"`` (a remote barrier, where allowed) or
``None`` (a generic address); ``sem`` and ``scope`` (``"cta"``/``"cluster"``) go together.
``bar`` is the barrier, ``dst`` a register to write the result to instead of a fresh one (a
``b64`` state, a ``pred``, a ``u32`` count) and ``pred`` an optional guard predicate. Counts,
parities and hints are ints or 32-bit registers; the ISA table judges their values and
which keyword combinations each instruction takes.

Rings of consecutive mbarriers (a pipeline's stages) are :func:`mbarrier_array`
(``ptx.mbarrier_array``, also ``ptx.mbarrier.array``): ``ring[i]`` for a constant stage,
``ring.at(stage)`` for a stage in a register; either is a :class:`BarrierSlot`, an address
that also has ``init``/``wait``/``arrive``/``arrive_expect_tx``/``arrive_remote`` methods
emitting through ``ptx.mbarrier`` (and ``ptx.mad`` / ``ptx.mapa``), so the ISA table checks
each instruction. What each ring helper emits is in :data:`MULTI_INSTRUCTION`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyptx.ir import PtxType

from ..dsl._trace import current
from ..dsl.control import bra, label
from ..dsl.errors import PtxDslError
from ..dsl.operands import addr, emit_inst
from ..dsl.regs import Reg, _new
from ..dsl.shared import MbarrierArray, MbarrierRef, SharedAlloc, base
from ..dsl.values import Addr
from ._arith import mad
from ._cluster import mapa
from ._sync_operands import address, dest, flag, integer, words

__all__ = ["BarrierSlot", "MbarrierRing", "mbarrier", "mbarrier_array"]

MULTI_INSTRUCTION: dict[str, str] = {
    "ptx.mbarrier.wait": "$L__mbar_wait_N: mbarrier.try_wait.parity[.sem.scope][.space].b64 p, "
    "[bar], phase[, hint]; @!p bra[.uni] $L__mbar_wait_N;",
    "MbarrierRing.at (register stage)": "mad.lo.u32 a, stage, 8, base (an allocated ring's "
    "base: mov.u32 b, symbol, once, at kernel start)",
    "MbarrierRing.init_all": "mbarrier.init.shared.b64 [slot], count; per barrier",
    "BarrierSlot.wait": "the ptx.mbarrier.wait loop",
    "BarrierSlot.arrive_remote": "[mov.u32 r, symbol;] [add.u32 r, r, offset;] "
    "mapa.shared::cluster.u32 m, r, cta; mbarrier.arrive.release.cluster.shared::cluster.b64 _, "
    "[m], count",
}
"""The mbarrier helpers that emit more than one instruction, with exactly what they emit."""


_Kw = dict[str, Any]
"""The keywords of a call (its ``locals()``): ``bar``, ``space``, ``pred``, ``sem``, ..."""


def _emit(op: str, out: list[object], kw: _Kw, rest: list[object]) -> None:
    """Emit ``mbarrier.op{.sem}{.scope}{.space}.b64 out, [bar], rest``; the table judges it."""
    space = kw["space"]
    b = address(f"mbarrier.{op} barrier", kw["bar"], space="generic" if space is None else "shared")
    mods = [*op.split("."), *words(kw.get("sem"), kw.get("scope"), space), "b64"]
    emit_inst("mbarrier", mods, [*out, b, *rest], kw.get("pred"))


def _ints(op: str, **values: object) -> list[object]:
    """The integer operands given (ints or integer registers; the table checks the values)."""
    return [integer(f"mbarrier.{op} {k}", v) for k, v in values.items() if v is not None]


class _ArriveFamily:
    """``mbarrier.arrive`` or ``mbarrier.arrive_drop``, with ``.expect_tx`` and ``.noComplete``."""

    def __init__(self, op: str) -> None:
        self._op = op

    def _arrive(self, op: str, kw: _Kw, **n: object) -> Reg | None:
        """Emit ``op`` with counts ``n``; the state is the sink ``_`` for another CTA's barrier."""
        dst = kw["dst"]
        sink = dst is None and kw["space"] == "shared::cluster" and not op.endswith("noComplete")
        state = None if sink else dest(dst, PtxType.B64)
        _emit(op, [state], kw, _ints(op, **n))
        return state

    def __call__(
        self,
        bar: object,
        count: object = None,
        *,
        sem: str | None = None,
        scope: str | None = None,
        space: str | None = "shared",
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg | None:
        """Arrive on the barrier (``arrive``), or arrive and leave it (``arrive_drop``).

        Emits ``mbarrier.<op>{.sem.scope}{.space}.b64 state, [bar]{, count};``; ``arrive_drop``
        also lowers the expected arrival count of later phases by ``count`` (the arrivals to
        signal, default 1). ``sem`` is ``"release"`` (PTX 8.0) or ``"relaxed"`` (PTX 8.6);
        with ``space="shared::cluster"`` (a barrier of another CTA) the state is the sink ``_``.

        Returns:
            The ``b64`` state register, or ``None`` for ``space="shared::cluster"``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-arrive
        """
        return self._arrive(self._op, locals(), count=count)

    def expect_tx(
        self,
        bar: object,
        tx_count: object,
        *,
        sem: str | None = None,
        scope: str | None = None,
        space: str | None = "shared",
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg | None:
        """Expect ``tx_count`` more transaction bytes, then arrive (PTX 8.0, sm_90).

        Emits ``mbarrier.<op>.expect_tx{.sem.scope}{.space}.b64 state, [bar], tx_count;``:
        ``tx_count`` is the bytes the asynchronous copies will complete; the other arguments
        are those of the plain arrive (``sem`` ``"release"`` or ``"relaxed"``).

        Returns:
            The ``b64`` state register, or ``None`` for ``space="shared::cluster"``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-arrive
        """
        return self._arrive(f"{self._op}.expect_tx", locals(), tx_count=tx_count)

    def noComplete(
        self,
        bar: object,
        count: object,
        *,
        sem: str | None = None,
        scope: str | None = None,
        space: str | None = "shared",
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg:
        """Arrive without being allowed to complete the phase.

        Emits ``mbarrier.<op>.noComplete{.release.cta}{.space}.b64 state, [bar], count;``: the
        arguments are those of the plain arrive, with ``count`` required, the barrier in this
        CTA (``space`` not ``"shared::cluster"``) and only ``sem="release"``, ``scope="cta"``.

        Returns:
            The ``b64`` state register.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-arrive
        """
        state = self._arrive(f"{self._op}.noComplete", locals(), count=count)
        assert state is not None
        return state


class _Wait:
    """``mbarrier.test_wait`` or ``mbarrier.try_wait``, with the ``.parity`` form."""

    def __init__(self, op: str) -> None:
        self._op = op

    def _wait(self, kw: _Kw) -> Reg:
        """Emit the wait: ``state`` is the b64 state (the table checks it), ``phase`` a parity."""
        parity = "phase" in kw or flag(f"mbarrier.{self._op} parity=", kw["parity"])
        op, token = f"{self._op}.parity" if parity else self._op, kw.get("phase", kw.get("state"))
        token = _ints(op, **{"phase parity": token})[0] if parity else token
        hint = _ints(op, **{"suspend time hint": kw.get("suspend_time_hint")})
        out = dest(kw["dst"], PtxType.PRED)
        _emit(op, [out], kw, [token, *hint])
        return out


class _TestWait(_Wait):
    def __call__(
        self, bar: object, state: object, *,
        parity: bool = False, sem: str | None = None, scope: str | None = None,
        space: str | None = "shared", dst: Reg | None = None, pred: object = None,
    ) -> Reg:  # fmt: skip
        """Test (without waiting) whether the phase of ``state`` has completed.

        Emits ``mbarrier.test_wait{.sem.scope}{.space}.b64 p, [bar], state;``: ``state`` is the
        ``b64`` state from ``mbarrier.arrive`` (a phase parity with ``parity=True``, the
        ``.parity`` form, same as ``ptx.mbarrier.test_wait.parity``); ``sem`` is ``"acquire"``
        or ``"relaxed"`` (PTX 8.6); ``space`` is ``"shared"``, ``"shared::cta"`` or ``None``.

        Returns:
            The ``pred`` register: true when the phase has completed.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait
        """
        return self._wait(locals())

    def parity(
        self,
        bar: object,
        phase: object,
        *,
        sem: str | None = None,
        scope: str | None = None,
        space: str | None = "shared",
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg:
        """``mbarrier.test_wait.parity{.sem.scope}{.space}.b64 p, [bar], phase;``.

        ``phase`` is the phase parity, 0 or 1; the other arguments are those of
        ``ptx.mbarrier.test_wait``.

        Returns:
            The ``pred`` register: true when the phase with that parity has completed.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait
        """
        return self._wait(locals())


class _TryWait(_Wait):
    def __call__(
        self, bar: object, state: object, suspend_time_hint: object = None, *,
        parity: bool = False, sem: str | None = None, scope: str | None = None,
        space: str | None = "shared", dst: Reg | None = None, pred: object = None,
    ) -> Reg:  # fmt: skip
        """Wait a bounded, system-chosen time for the phase of ``state`` to complete.

        Emits ``mbarrier.try_wait{.sem.scope}{.space}.b64 p, [bar], state{, hint};``.
        ``suspend_time_hint`` is an optional time limit in nanoseconds (int or 32-bit
        register); ``parity=True`` is ``ptx.mbarrier.try_wait.parity``; the other arguments
        are those of ``ptx.mbarrier.test_wait``.

        Returns:
            The ``pred`` register: true when the phase completed in time.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait
        """
        return self._wait(locals())

    def parity(
        self, bar: object, phase: object, suspend_time_hint: object = None, *,
        sem: str | None = None, scope: str | None = None, space: str | None = "shared",
        dst: Reg | None = None, pred: object = None,
    ) -> Reg:  # fmt: skip
        """``mbarrier.try_wait.parity{.sem.scope}{.space}.b64 p, [bar], phase{, hint};``.

        ``phase`` is the phase parity, 0 or 1; the other arguments are those of
        ``ptx.mbarrier.try_wait``.

        Returns:
            The ``pred`` register: true when the phase completed in time.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait
        """
        return self._wait(locals())


class Mbarrier:
    """``ptx.mbarrier``: see the module docstring for the operand and keyword conventions."""

    def __init__(self) -> None:
        self.arrive = _ArriveFamily("arrive")
        self.arrive_drop = _ArriveFamily("arrive_drop")
        self.test_wait = _TestWait("test_wait")
        self.try_wait = _TryWait("try_wait")
        self.arrive_expect_tx = self.arrive.expect_tx

    def init(
        self, bar: object, count: object, *, space: str | None = "shared", pred: object = None
    ) -> None:
        """Set the expected arrival count and start phase 0.

        Emits ``mbarrier.init{.space}.b64 [bar], count;``: ``count`` arrivals (1..2^20-1)
        complete a phase; ``space`` is ``"shared"``, ``"shared::cta"`` or ``None`` (generic).

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-init
        """
        _emit("init", [], locals(), _ints("init", count=count))

    def inval(self, bar: object, *, space: str | None = "shared", pred: object = None) -> None:
        """Invalidate a barrier so its memory can be reused.

        Emits ``mbarrier.inval{.space}.b64 [bar];``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-inval
        """
        _emit("inval", [], locals(), [])

    def expect_tx(
        self,
        bar: object,
        tx_count: object,
        *,
        sem: str | None = None,
        scope: str | None = None,
        space: str | None = "shared",
        pred: object = None,
    ) -> None:
        """Raise the barrier's expected transaction bytes without arriving (PTX 8.0, sm_90).

        Emits ``mbarrier.expect_tx{.relaxed.scope}{.space}.b64 [bar], tx_count;``: ``tx_count``
        is in bytes, ``sem`` is ``None`` or ``"relaxed"``, and ``space`` may also be
        ``"shared::cluster"``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-expect-tx
        """
        _emit("expect_tx", [], locals(), _ints("expect_tx", tx_count=tx_count))

    def complete_tx(
        self,
        bar: object,
        tx_count: object,
        *,
        sem: str | None = None,
        scope: str | None = None,
        space: str | None = "shared",
        pred: object = None,
    ) -> None:
        """Mark ``tx_count`` transaction bytes complete, as an async copy would (PTX 8.0, sm_90).

        Emits ``mbarrier.complete_tx{.relaxed.scope}{.space}.b64 [bar], tx_count;``; the
        arguments are those of :meth:`expect_tx`.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-complete-tx
        """
        _emit("complete_tx", [], locals(), _ints("complete_tx", tx_count=tx_count))

    def pending_count(self, state: object, *, dst: Reg | None = None, pred: object = None) -> Reg:
        """``mbarrier.pending_count.b64 count, state;``: arrivals still pending in ``state``.

        Args:
            state: a ``b64`` state register from ``mbarrier.arrive``.
            dst: a 32-bit register to write instead of a fresh ``u32`` one.
            pred: optional guard predicate.

        Returns:
            The ``u32`` pending count.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-pending-count
        """
        out = dest(dst, PtxType.U32)
        emit_inst("mbarrier", ("pending_count", "b64"), (out, state), pred)
        return out

    def wait(
        self, bar: object, phase: object, suspend_time_hint: object = None, *,
        sem: str | None = None, scope: str | None = None, space: str | None = "shared",
        dst: Reg | None = None, uni: bool = False,
    ) -> None:  # fmt: skip
        """Block until the phase with parity ``phase`` completes: a ``try_wait.parity`` loop.

        Emits exactly (three statements, see ``ptx.MULTI_INSTRUCTION_HELPERS``)::

            $L__mbar_wait_N:
            mbarrier.try_wait.parity{.sem.scope}{.space}.b64 p, [bar], phase{, hint};
            @!p bra{.uni} $L__mbar_wait_N;

        Guard it with ``ptx.if_`` rather than a predicate. ``dst`` names the predicate
        register ``p`` (default: a fresh one); ``uni=True`` writes ``bra.uni``. The other
        arguments are those of :meth:`try_wait.parity <_TryWait.parity>`.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait
        """
        top = label(current().new_label("mbar_wait"))
        p = self.try_wait.parity(
            bar, phase, suspend_time_hint, sem=sem, scope=scope, space=space, dst=dst
        )
        bra(top, pred=~p, uni=uni)

    def array(self, base: object, byte_offset: int = 0, count: int | None = None) -> MbarrierRing:
        """View ``count`` consecutive mbarriers as a ring: :func:`mbarrier_array` (no instruction).

        The seed system's spelling of ``ptx.mbarrier_array(base, byte_offset, count)``;
        ``full = ptx.mbarrier.array(smem_base, SMEM_FULL, STAGES)`` then ``full[s]`` /
        ``full.at(stage)``.
        """
        return mbarrier_array(base, byte_offset, count)


mbarrier = Mbarrier()
"""``ptx.mbarrier.init(bars[0], 1)``, ``ptx.mbarrier.arrive.expect_tx(bars[0], 4096)``,
``ptx.mbarrier.try_wait.parity(bars[0], phase)``, ``ptx.mbarrier.wait(bars[0], phase)``,
``ptx.mbarrier.array(base, offset, n)``."""


# --------------------------------------------------------------------------- rings


def _u32_reg(what: str, value: object) -> Reg:
    if not isinstance(value, Reg) or value.type.bits != 32 or value.type is PtxType.PRED:
        raise PtxDslError(f"{what} must be a 32-bit integer register, but got {value!r}")
    return value


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
        mbarrier.init(self, count, pred=pred)

    def wait(self, phase: object) -> None:
        """Spin until the phase with parity ``phase`` completes (the ``ptx.mbarrier.wait`` loop)."""
        mbarrier.wait(self, phase)

    def arrive(self, *, pred: object = None) -> Reg | None:
        """``mbarrier.arrive.shared.b64 state, [slot];``; returns the ``b64`` state."""
        return mbarrier.arrive(self, pred=pred)

    def arrive_expect_tx(self, tx_count: object, *, pred: object = None) -> Reg | None:
        """``mbarrier.arrive.expect_tx.shared.b64 state, [slot], tx_count;`` (sm_90)."""
        return mbarrier.arrive.expect_tx(self, tx_count, pred=pred)

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
        mbarrier.arrive(
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
