"""``ptx.kloop``: a counted device loop whose body is unrolled, with a tail for the rest.

The loop runs ``body()`` exactly ``total`` times; the PTX holds ``unroll`` copies of the body
in the main loop and ``unroll - 1`` guarded copies for the remainder, whatever ``total`` is
at run time (a K loop whose trip count is a kernel parameter does not grow the PTX).
"""

from __future__ import annotations

from collections.abc import Callable

from pyptx.ir import PtxType

from ..dsl._trace import current
from ..dsl.control import bra, if_, label
from ..dsl.errors import PtxDslError
from ..dsl.regs import Reg, _new
from ._arith import sub
from ._logic import and_

__all__ = ["kloop"]


def kloop(
    total: int | Reg, *, unroll: int, body: Callable[[], object], loop_label: str = "kloop"
) -> None:
    """Run ``body()`` ``total`` times: ``unroll`` per main-loop trip, then the remainder.

    With a Python int ``total`` the body is traced ``total`` times (a Python loop). With a
    register ``total`` (``u32`` or ``s32``, >= 0) emits::

        and.b32 rem, total, unroll-1;
        sub.<t> left, total, rem;              // a multiple of unroll
        setp.ne.<t> p, left, 0;
        @!p bra $L__<loop_label>_end_N;
        $L__<loop_label>_N:
            <body> x unroll
            sub.<t> left, left, unroll;
            setp.ne.<t> p, left, 0;
            @p bra $L__<loop_label>_N;
        $L__<loop_label>_end_N:
        for j in 0 .. unroll-2:  setp.gt.<t> q, rem, j;  @!q bra $L__endif_M;  <body>;  $L__endif_M:

    (the tail's ``ptx.if_`` blocks). Loop-carried state lives in registers the body updates.

    Args:
        total: the trip count: a Python int, or a 32-bit integer register.
        unroll: body copies per main-loop trip, a power of two.
        body: a Python callable that traces one iteration.
        loop_label: the stem of the loop's labels (made unique per kernel).

    Raises:
        PtxDslError: ``unroll`` is not a positive power of two or ``total`` is neither.
    """
    if (
        isinstance(unroll, bool)
        or not isinstance(unroll, int)
        or unroll <= 0
        or unroll & (unroll - 1)
    ):
        raise PtxDslError(f"ptx.kloop needs unroll= a positive power of two, got {unroll!r}")
    if isinstance(total, int) and not isinstance(total, bool):
        for _ in range(total):
            body()
        return
    if not isinstance(total, Reg) or total.type not in (PtxType.U32, PtxType.S32):
        raise PtxDslError(f"ptx.kloop total must be an int or a u32/s32 register, got {total!r}")
    ty = total.type
    trace = current()
    rem = _new(ty)
    and_(rem, total, unroll - 1, ty=PtxType.B32)
    left = _new(ty)
    sub(left, total, rem)
    end = trace.new_label(f"{loop_label}_end")
    bra(end, pred=~(left != 0))
    top = label(trace.new_label(loop_label))
    for _ in range(unroll):
        body()
    sub(left, left, unroll)
    bra(top, pred=left != 0)
    label(end)
    for j in range(unroll - 1):
        with if_(rem > j):
            body()
