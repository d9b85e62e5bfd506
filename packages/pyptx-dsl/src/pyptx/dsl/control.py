"""Device control flow: ``if_``/``else_``, ``loop``, ``range_``, labels and branches.

These helpers emit *device* branches; Python control flow (``for``/``if`` on Python values)
still runs at trace time and unrolls or specializes the kernel. Multi-instruction helpers
are listed with their exact output in :data:`pyptx.ptx.MULTI_INSTRUCTION_HELPERS`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pyptx.ir import LabelRef, PtxType

from ._trace import IfRecord, current
from .errors import PtxDslError
from .operands import NotPred, emit_inst
from .regs import Reg, _arith_type, scalar

__all__ = ["bra", "else_", "if_", "label", "loop", "new_label", "range_"]


def _pred(p: object, what: str = "ptx.if_") -> tuple[Reg, bool]:
    if isinstance(p, NotPred) and isinstance(p.reg, Reg):
        return p.reg, True
    if isinstance(p, Reg) and p.type is PtxType.PRED:
        return p, False
    raise PtxDslError(
        f"{what} needs a predicate register (e.g. `tid < 32`) or its negation `~p`, got {p!r}"
    )


@contextmanager
def if_(pred: object) -> Iterator[None]:
    """Run the block on the device only where ``pred`` holds.

    Emits ``@!pred bra $L__endif_N;`` before the block and the label after it (with an
    ``else_`` block: ``bra.uni $L__endif_N;`` and ``$L__else_N:`` between the branches).
    Nestable.
    """
    reg, negate = _pred(pred)
    trace = current()
    with trace.nested() as body:
        yield
    trace.append(IfRecord(reg, negate, body))


@contextmanager
def else_() -> Iterator[None]:
    """The alternative branch of the ``if_`` block just closed.

    Raises:
        PtxDslError: no ``if_`` block immediately precedes it, or it already has an else.
    """
    trace = current()
    items = trace.blocks[-1]
    last = items[-1] if items else None
    if not isinstance(last, IfRecord) or last.otherwise is not None:
        raise PtxDslError("ptx.else_() must directly follow a `with ptx.if_(...)` block")
    with trace.nested() as body:
        yield
    last.otherwise = body


def new_label(stem: str = "L") -> LabelRef:
    """A fresh kernel-unique label name (not yet placed); place it with :func:`label`."""
    return LabelRef(current().new_label(stem))


def label(name: str | LabelRef) -> LabelRef:
    """Place a label here (``name:``). Emits the label line only.

    Raises:
        PtxDslError: the label is already placed in this kernel.
    """
    text = name.name if isinstance(name, LabelRef) else name
    current().define_label(text)
    return LabelRef(text)


def bra(target: str | LabelRef, *, pred: object = None, uni: bool = False) -> None:
    """``[@pred] bra[.uni] target;`` (one instruction)."""
    text = target.name if isinstance(target, LabelRef) else target
    ref = current().use_label(text)
    emit_inst("bra", ("uni",) if uni else (), (ref,), pred)


@contextmanager
def loop(stem: str = "loop", *, pred: object = None) -> Iterator[LabelRef]:
    """A device loop: places ``$L__<stem>_N:`` and yields its label.

    Without ``pred`` nothing is emitted at the end: branch back with ``ptx.bra(lbl,
    pred=...)`` inside (or ``ptx.bra(lbl, uni=True)`` for a loop left only by a branch out).
    With ``pred`` (a predicate register or ``~p``, usually set in the body) the loop closes
    itself: ``@pred bra $L__<stem>_N;`` follows the body, the seed system's
    ``with ptx.loop("k_loop", pred=keep_going):`` (listed in
    ``ptx.MULTI_INSTRUCTION_HELPERS``).

    Raises:
        PtxDslError: ``pred`` is not a predicate register or its negation.
    """
    if pred is not None:
        _pred(pred, "ptx.loop pred=")
    lbl = label(current().new_label(stem))
    yield lbl
    if pred is not None:
        bra(lbl, pred=pred)


def range_(
    start: int | Reg,
    stop: int | Reg | None = None,
    step: int | Reg = 1,
    *,
    ty: PtxType = PtxType.U32,
) -> Iterator[Reg]:
    """A real device loop ``for i in range(start, stop, step)``: the body is traced once.

    Emits ``mov`` of the start into a fresh counter; when the trip count is not known to be
    positive, a guard ``setp.ge`` + ``@p bra $L__range_end_N`` (``le`` for negative steps);
    ``$L__range_N:``; the body; ``add`` of the step; ``setp.lt`` (``gt``); ``@p bra
    $L__range_N``; and ``$L__range_end_N:`` when guarded. Code size does not grow with the
    trip count (use a Python ``for`` to unroll instead). A register ``step`` (a grid stride,
    say) counts upward.
    """
    if stop is None:
        start, stop = 0, start
    if isinstance(step, Reg):
        if step.type is PtxType.PRED:
            raise PtxDslError("ptx.range_ step must be an int or an integer register")
    elif not isinstance(step, int) or isinstance(step, bool) or step == 0:
        raise PtxDslError(f"ptx.range_ needs a nonzero int (or register) step, got {step!r}")
    trace = current()
    arith = _arith_type(ty)
    i = scalar(ty, start)
    known = False
    if isinstance(start, int) and isinstance(stop, int) and isinstance(step, int):
        if (stop - start) * step <= 0:
            return  # zero trips: the body is never traced
        known = True
    end = None
    ascending = isinstance(step, Reg) or step > 0
    cmp_done, cmp_more = ("ge", "lt") if ascending else ("le", "gt")
    if not known:
        end = trace.new_label("range_end")
        p = scalar(PtxType.PRED)
        emit_inst("setp", (cmp_done, arith.value), (p, i, stop))
        emit_inst("bra", (), (trace.use_label(end),), p)
    top = trace.new_label("range")
    trace.define_label(top)
    yield i
    emit_inst("add", (arith.value,), (i, i, step))
    p2 = scalar(PtxType.PRED)
    emit_inst("setp", (cmp_more, arith.value), (p2, i, stop))
    emit_inst("bra", (), (trace.use_label(top),), p2)
    if end is not None:
        trace.define_label(end)
