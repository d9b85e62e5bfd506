"""The parser's one-line fast paths build exactly the trees the general rules build."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest
from ptxas_tools import corpus_files, corpus_id, read

from pyptx.ir import Node
from pyptx.parser._parser import Parser


def _full(value: Any) -> Any:
    """The tree as nested tuples, trivia included (``==`` on nodes ignores trivia)."""
    if isinstance(value, Node):
        return (
            type(value).__name__,
            *((f.name, _full(getattr(value, f.name))) for f in fields(value)),  # type: ignore[arg-type]
        )
    if isinstance(value, tuple):
        return tuple(_full(v) for v in value)
    return value


@pytest.mark.parametrize("path", corpus_files(), ids=corpus_id)
def test_fast_and_general_paths_agree(path) -> None:  # type: ignore[no-untyped-def]
    text = read(path)
    fast = Parser(text, str(path), fast=True).module()
    slow = Parser(text, str(path), fast=False).module()
    assert _full(fast) == _full(slow)
