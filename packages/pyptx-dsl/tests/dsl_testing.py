"""Helpers for the DSL tests (pytest puts this directory on sys.path)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from pyptx import PtxDslError
from pyptx.dsl import validate
from pyptx.ir import Instruction, isa


def body(text: str) -> list[str]:
    """The instruction and label lines of the first function body, stripped, no decls."""
    lines = text.split("\n")
    start = lines.index("{") + 1
    end = len(lines) - 1 - lines[::-1].index("}")
    return [
        ln.strip()
        for ln in lines[start:end]
        if ln.strip() and not ln.strip().startswith((".reg", ".shared", ".local"))
    ]


def here() -> int:
    """The caller's line number (for asserting where an error is reported)."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return frame.f_back.f_lineno


def raises_at(k, where: list[int], match: str) -> str:  # type: ignore[no-untyped-def]
    """Trace ``k``; it must raise PtxDslError at the caller's file and the line last in ``where``.

    The message must also name no pyptx-internal path.
    """
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    filename = Path(frame.f_back.f_code.co_filename).name
    with pytest.raises(PtxDslError, match=match) as info:
        k.ptx()
    text = str(info.value)
    assert f"{filename}:{where[-1]}:" in text, text
    assert "pyptx/dsl" not in text and "pyptx/ptx" not in text, text
    return text


TABLE = "<the ISA table's reason>"
"""``match`` for a call only the ISA table rejects: the expected message is computed here."""


def table_reason(k) -> str:  # type: ignore[no-untyped-def]
    """Trace ``k`` with the table's check recorded instead of enforced; its first reason."""
    found: list[str] = []

    def record(trace: validate.TraceFacts, insn: Instruction) -> None:
        version = trace.version or validate.LATEST_PTX
        diags = isa.check(insn, target=trace.arch, version=version, reg_type=trace.reg_types.get)
        found.extend(f"{insn.mnemonic}: {d.message}" for d in diags[:1])

    with pytest.MonkeyPatch.context() as m:
        m.setattr(validate, "check_instruction", record)
        k.ptx()
    assert found, "the ISA table accepts every instruction of this call"
    return found[0]
