"""``ptx.mbarrier``: shared-memory barriers with arrival counts, phases and transaction counts.

Every call emits exactly one ``mbarrier.*`` instruction, except ``ptx.mbarrier.wait`` (the
``try_wait.parity`` spin loop, listed in :data:`MULTI_INSTRUCTION`). Barrier operands are
``smem.mbarrier(n)[i]`` references, ``ptx.addr(...)`` or address registers (32- or 64-bit for
shared memory, 64-bit for generic addresses).

Modifier keywords use the PTX spellings: ``space`` is ``"shared"`` (the default, PTX 7.0),
``"shared::cta"`` (PTX 7.8), ``"shared::cluster"`` (a remote barrier, where allowed) or
``None`` (a generic address); ``sem`` and ``scope`` (``"cta"``/``"cluster"``) go together.
"""

from __future__ import annotations

from pyptx.ir import PtxType

from ..dsl._trace import current
from ..dsl.control import bra, label
from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg
from ._sync_operands import address, choice, dest, flag, int_operand, spell

__all__ = ["mbarrier"]

MULTI_INSTRUCTION: dict[str, str] = {
    "ptx.mbarrier.wait": "$L__mbar_wait_N: mbarrier.try_wait.parity[.sem.scope][.space].b64 p, "
    "[bar], phase[, hint]; @!p bra[.uni] $L__mbar_wait_N;",
}
"""The mbarrier helpers that emit more than one instruction, with exactly what they emit."""

_LOCAL = ("shared", "shared::cta", None)
_ANY = ("shared", "shared::cta", "shared::cluster", None)
_MAX_COUNT = (1 << 20) - 1


def _space(name: str, space: object, allowed: tuple[str | None, ...]) -> str | None:
    return choice(f"{name} space", space, allowed)


def _bar(name: str, bar: object, space: str | None) -> object:
    return address(f"{name} barrier", bar, space="generic" if space is None else "shared")


def _sem_scope(name: str, sem: object, scope: object, sems: tuple[str, ...]) -> list[str]:
    s = choice(f"{name} sem", sem, (None, *sems))
    c = choice(f"{name} scope", scope, (None, "cta", "cluster"))
    if (s is None) != (c is None):
        given, missing = ("sem", "scope") if c is None else ("scope", "sem")
        hint = "scope='cta' or scope='cluster'" if c is None else f"sem={sems[0]!r}"
        raise PtxDslError(
            f"{name} takes sem and scope together, but got {given} without {missing}; "
            f"pass {hint} as well"
        )
    return [s, c] if s is not None and c is not None else []


def _mods(op: list[str], sem_scope: list[str], space: str | None) -> list[str]:
    return op + sem_scope + ([space] if space else []) + ["b64"]


class _ArriveFamily:
    """``mbarrier.arrive`` or ``mbarrier.arrive_drop``, with ``.expect_tx`` and ``.noComplete``."""

    def __init__(self, op: str) -> None:
        self._op = op

    def _state(self, name: str, space: str | None, dst: object) -> Reg | None:
        if space == "shared::cluster":
            if dst is not None:
                raise PtxDslError(
                    f"{name} on a shared::cluster barrier returns no state (it writes the sink "
                    "_), but dst= was given; leave dst out"
                )
            return None
        return dest(name, dst, PtxType.B64)

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
        also lowers the expected arrival count of later phases by ``count``.

        Args:
            bar: the barrier.
            count: arrivals to signal (default 1; int or 32-bit register).
            sem: ``"release"`` (PTX 8.0) or ``"relaxed"`` (PTX 8.6), together with ``scope``.
            scope: ``"cta"`` or ``"cluster"``, together with ``sem``.
            space: ``"shared"``, ``"shared::cta"``, ``"shared::cluster"`` (a barrier of another
                CTA: the state is the sink ``_``) or ``None`` (generic address).
            dst: a 64-bit register to receive the state instead of a fresh ``b64`` one.
            pred: optional guard predicate.

        Returns:
            The ``b64`` state register, or ``None`` for ``space="shared::cluster"``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-arrive
        """
        name = f"mbarrier.{self._op}"
        sp = _space(name, space, _ANY)
        ss = _sem_scope(name, sem, scope, ("release", "relaxed"))
        ops: list[object] = [_bar(name, bar, sp)]
        if count is not None:
            ops.append(int_operand(f"{name} count", count, low=1, high=_MAX_COUNT))
        state = self._state(name, sp, dst)
        emit_inst("mbarrier", _mods([self._op], ss, sp), [state, *ops], pred)
        return state

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

        Emits ``mbarrier.<op>.expect_tx{.sem.scope}{.space}.b64 state, [bar], tx_count;``.

        Args:
            bar: the barrier.
            tx_count: bytes the asynchronous copies will complete (int or 32-bit register).
            sem: ``"release"`` or ``"relaxed"``, together with ``scope``.
            scope: ``"cta"`` or ``"cluster"``, together with ``sem``.
            space: ``"shared"``, ``"shared::cta"``, ``"shared::cluster"`` (state is ``_``) or
                ``None``.
            dst: a 64-bit register for the state instead of a fresh one.
            pred: optional guard predicate.

        Returns:
            The ``b64`` state register, or ``None`` for ``space="shared::cluster"``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-arrive
        """
        name = f"mbarrier.{self._op}.expect_tx"
        sp = _space(name, space, _ANY)
        ss = _sem_scope(name, sem, scope, ("release", "relaxed"))
        b = _bar(name, bar, sp)
        tx = int_operand(f"{name} tx_count", tx_count, high=_MAX_COUNT)
        state = self._state(name, sp, dst)
        emit_inst("mbarrier", _mods([self._op, "expect_tx"], ss, sp), (state, b, tx), pred)
        return state

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

        Emits ``mbarrier.<op>.noComplete{.release.cta}{.space}.b64 state, [bar], count;``.

        Args:
            bar: the barrier (in this CTA).
            count: arrivals to signal (int or 32-bit register).
            sem: ``None`` or ``"release"``, together with ``scope``.
            scope: ``None`` or ``"cta"``, together with ``sem``.
            space: ``"shared"``, ``"shared::cta"`` or ``None``.
            dst: a 64-bit register for the state instead of a fresh one.
            pred: optional guard predicate.

        Returns:
            The ``b64`` state register.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-arrive
        """
        name = f"mbarrier.{self._op}.noComplete"
        sp = _space(name, space, _LOCAL)
        ss = _sem_scope(name, sem, scope, ("release",))
        if ss and ss[1] != "cta":
            raise PtxDslError(f"{name} takes only scope 'cta', but got {ss[1]!r}")
        b = _bar(name, bar, sp)
        n = int_operand(f"{name} count", count, low=1, high=_MAX_COUNT)
        state = self._state(name, sp, dst)
        assert state is not None
        emit_inst("mbarrier", _mods([self._op, "noComplete"], ss, sp), (state, b, n), pred)
        return state


class _Wait:
    """``mbarrier.test_wait`` or ``mbarrier.try_wait``, with the ``.parity`` form."""

    def __init__(self, op: str) -> None:
        self._op = op

    def _emit(
        self,
        parity: bool,
        bar: object,
        token: object,
        hint: object,
        sem: object,
        scope: object,
        space: object,
        dst: object,
        pred: object,
    ) -> Reg:
        op = [self._op, "parity"] if parity else [self._op]
        name = "mbarrier." + ".".join(op)
        sp = _space(name, space, _LOCAL)
        ss = _sem_scope(name, sem, scope, ("acquire", "relaxed"))
        ops: list[object] = [_bar(name, bar, sp)]
        if parity:
            ops.append(int_operand(f"{name} phase parity", token, high=1))
        elif isinstance(token, Reg) and token.type.bits == 64 and token.type is not PtxType.PRED:
            ops.append(token)
        else:
            raise PtxDslError(
                f"{name} takes the 64-bit state returned by mbarrier.arrive, but got "
                f"{spell(token)}; to wait on a phase parity (0/1) use the .parity form"
            )
        if hint is not None:
            ops.append(int_operand(f"{name} suspend time hint", hint, high=0xFFFFFFFF))
        out = dest(name, dst, PtxType.PRED)
        emit_inst("mbarrier", _mods(op, ss, sp), [out, *ops], pred)
        return out


class _TestWait(_Wait):
    def __call__(
        self,
        bar: object,
        state: object,
        *,
        parity: bool = False,
        sem: str | None = None,
        scope: str | None = None,
        space: str | None = "shared",
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg:
        """Test (without waiting) whether the phase of ``state`` has completed.

        Emits ``mbarrier.test_wait{.sem.scope}{.space}.b64 p, [bar], state;``.

        Args:
            bar: the barrier.
            state: the ``b64`` state from ``mbarrier.arrive`` (a phase parity with
                ``parity=True``).
            parity: emit the ``.parity`` form (same as ``ptx.mbarrier.test_wait.parity``).
            sem: ``"acquire"`` or ``"relaxed"`` (PTX 8.6), together with ``scope``.
            scope: ``"cta"`` or ``"cluster"``, together with ``sem``.
            space: ``"shared"``, ``"shared::cta"`` or ``None``.
            dst: a predicate register to write instead of a fresh one.
            pred: optional guard predicate.

        Returns:
            The ``pred`` register: true when the phase has completed.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait
        """
        return self._emit(
            flag("mbarrier.test_wait parity=", parity),
            bar,
            state,
            None,
            sem,
            scope,
            space,
            dst,
            pred,
        )

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

        Args:
            bar: the barrier.
            phase: phase parity 0 or 1 (int or 32-bit register).
            sem: ``"acquire"`` or ``"relaxed"``, together with ``scope``.
            scope: ``"cta"`` or ``"cluster"``, together with ``sem``.
            space: ``"shared"``, ``"shared::cta"`` or ``None``.
            dst: a predicate register to write instead of a fresh one.
            pred: optional guard predicate.

        Returns:
            The ``pred`` register: true when the phase with that parity has completed.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait
        """
        return self._emit(True, bar, phase, None, sem, scope, space, dst, pred)


class _TryWait(_Wait):
    def __call__(
        self,
        bar: object,
        state: object,
        suspend_time_hint: object = None,
        *,
        parity: bool = False,
        sem: str | None = None,
        scope: str | None = None,
        space: str | None = "shared",
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg:
        """Wait a bounded, system-chosen time for the phase of ``state`` to complete.

        Emits ``mbarrier.try_wait{.sem.scope}{.space}.b64 p, [bar], state{, hint};``.

        Args:
            bar: the barrier.
            state: the ``b64`` state from ``mbarrier.arrive`` (a phase parity with
                ``parity=True``).
            suspend_time_hint: optional time limit in nanoseconds (int or 32-bit register).
            parity: emit the ``.parity`` form (same as ``ptx.mbarrier.try_wait.parity``).
            sem: ``"acquire"`` or ``"relaxed"`` (PTX 8.6), together with ``scope``.
            scope: ``"cta"`` or ``"cluster"``, together with ``sem``.
            space: ``"shared"``, ``"shared::cta"`` or ``None``.
            dst: a predicate register to write instead of a fresh one.
            pred: optional guard predicate.

        Returns:
            The ``pred`` register: true when the phase completed in time.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait
        """
        return self._emit(
            flag("mbarrier.try_wait parity=", parity),
            bar,
            state,
            suspend_time_hint,
            sem,
            scope,
            space,
            dst,
            pred,
        )

    def parity(
        self,
        bar: object,
        phase: object,
        suspend_time_hint: object = None,
        *,
        sem: str | None = None,
        scope: str | None = None,
        space: str | None = "shared",
        dst: Reg | None = None,
        pred: object = None,
    ) -> Reg:
        """``mbarrier.try_wait.parity{.sem.scope}{.space}.b64 p, [bar], phase{, hint};``.

        Args:
            bar: the barrier.
            phase: phase parity 0 or 1 (int or 32-bit register).
            suspend_time_hint: optional time limit in nanoseconds (int or 32-bit register).
            sem: ``"acquire"`` or ``"relaxed"``, together with ``scope``.
            scope: ``"cta"`` or ``"cluster"``, together with ``sem``.
            space: ``"shared"``, ``"shared::cta"`` or ``None``.
            dst: a predicate register to write instead of a fresh one.
            pred: optional guard predicate.

        Returns:
            The ``pred`` register: true when the phase completed in time.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait
        """
        return self._emit(True, bar, phase, suspend_time_hint, sem, scope, space, dst, pred)


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

        Emits ``mbarrier.init{.space}.b64 [bar], count;``.

        Args:
            bar: the barrier.
            count: arrivals that complete a phase (1..2^20-1; int or 32-bit register).
            space: ``"shared"``, ``"shared::cta"`` or ``None`` (generic).
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-init
        """
        sp = _space("mbarrier.init", space, _LOCAL)
        b = _bar("mbarrier.init", bar, sp)
        n = int_operand("mbarrier.init count", count, low=1, high=_MAX_COUNT)
        emit_inst("mbarrier", _mods(["init"], [], sp), (b, n), pred)

    def inval(self, bar: object, *, space: str | None = "shared", pred: object = None) -> None:
        """Invalidate a barrier so its memory can be reused.

        Emits ``mbarrier.inval{.space}.b64 [bar];``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-inval
        """
        sp = _space("mbarrier.inval", space, _LOCAL)
        emit_inst("mbarrier", _mods(["inval"], [], sp), (_bar("mbarrier.inval", bar, sp),), pred)

    def _tx(
        self,
        op: str,
        bar: object,
        tx_count: object,
        sem: object,
        scope: object,
        space: object,
        pred: object,
    ) -> None:
        name = f"mbarrier.{op}"
        sp = _space(name, space, _ANY)
        ss = _sem_scope(name, sem, scope, ("relaxed",))
        b = _bar(name, bar, sp)
        tx = int_operand(f"{name} tx_count", tx_count, high=_MAX_COUNT)
        emit_inst("mbarrier", _mods([op], ss, sp), (b, tx), pred)

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

        Emits ``mbarrier.expect_tx{.relaxed.scope}{.space}.b64 [bar], tx_count;``.

        Args:
            bar: the barrier.
            tx_count: bytes (int or 32-bit register).
            sem: ``None`` or ``"relaxed"``, together with ``scope``.
            scope: ``"cta"`` or ``"cluster"``, together with ``sem``.
            space: ``"shared"``, ``"shared::cta"``, ``"shared::cluster"`` or ``None``.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-expect-tx
        """
        self._tx("expect_tx", bar, tx_count, sem, scope, space, pred)

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

        Emits ``mbarrier.complete_tx{.relaxed.scope}{.space}.b64 [bar], tx_count;``.

        Args:
            bar: the barrier.
            tx_count: bytes (int or 32-bit register).
            sem: ``None`` or ``"relaxed"``, together with ``scope``.
            scope: ``"cta"`` or ``"cluster"``, together with ``sem``.
            space: ``"shared"``, ``"shared::cta"``, ``"shared::cluster"`` or ``None``.
            pred: optional guard predicate.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-complete-tx
        """
        self._tx("complete_tx", bar, tx_count, sem, scope, space, pred)

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
        if not (isinstance(state, Reg) and state.type.bits == 64):
            raise PtxDslError(
                "mbarrier.pending_count takes the 64-bit state returned by mbarrier.arrive, "
                f"but got {spell(state)}"
            )
        out = dest("mbarrier.pending_count", dst, PtxType.U32)
        emit_inst("mbarrier", ("pending_count", "b64"), (out, state), pred)
        return out

    def wait(
        self,
        bar: object,
        phase: object,
        suspend_time_hint: object = None,
        *,
        sem: str | None = None,
        scope: str | None = None,
        space: str | None = "shared",
        dst: Reg | None = None,
        uni: bool = False,
    ) -> None:
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
