"""Helpers for the DSL tests (pytest puts this directory on sys.path)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from pyptx import PtxDslError


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
