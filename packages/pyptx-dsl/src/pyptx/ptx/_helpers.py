"""The one table of ``ptx.*`` helpers that emit more than one instruction."""

from __future__ import annotations

__all__ = ["CORE_HELPERS"]

CORE_HELPERS: dict[str, str] = {
    "ptx.if_": "@!p bra $L__endif_N; <body>; $L__endif_N: (with else_: bra.uni $L__endif_M; "
    "$L__else_N: <else body>; $L__endif_M:)",
    "ptx.loop(pred=p)": "$L__<stem>_N: <body>; @p bra $L__<stem>_N (without pred=: the label only)",
    "ptx.range_": "mov i, start; [setp.ge p, i, stop; @p bra $L__range_end_N;] $L__range_N: "
    "<body>; add i, i, step; setp.lt p, i, stop; @p bra $L__range_N; [$L__range_end_N:]",
    "reg.scalar(ty, init)": "mov.<ty> r, init",
    "reg.from_": "mov.<ty> r, value",
    "TensorArg.ptr()": "ld.param.u64 a, [param]; cvta.to.global.u64 p, a (once, at kernel start)",
    "TensorArg.tma_desc()": "mov.u64 a, param; cvta.param.u64 d, a (once, at kernel start)",
    "smem.base": "mov.u32 r, symbol",
}
"""Helper -> the exact instructions it emits, for the core helpers. Each family module adds
its own rows in a ``MULTI_INSTRUCTION`` dict; ``pyptx.ptx.MULTI_INSTRUCTION_HELPERS`` merges
them."""
