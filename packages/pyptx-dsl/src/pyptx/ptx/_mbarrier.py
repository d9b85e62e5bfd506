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
"""

from __future__ import annotations

from typing import Any

from pyptx.ir import PtxType

from ..dsl._trace import current
from ..dsl.control import bra, label
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg
from ._sync_operands import address, dest, flag, integer, words

__all__ = ["mbarrier"]

MULTI_INSTRUCTION: dict[str, str] = {
    "ptx.mbarrier.wait": "$L__mbar_wait_N: mbarrier.try_wait.parity[.sem.scope][.space].b64 p, "
    "[bar], phase[, hint]; @!p bra[.uni] $L__mbar_wait_N;",
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


mbarrier = Mbarrier()
"""``ptx.mbarrier.init(bars[0], 1)``, ``ptx.mbarrier.arrive.expect_tx(bars[0], 4096)``,
``ptx.mbarrier.try_wait.parity(bars[0], phase)``, ``ptx.mbarrier.wait(bars[0], phase)``."""
