"""Helpers for the DSL tests (importable: conftest puts this directory on sys.path)."""

from __future__ import annotations


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
