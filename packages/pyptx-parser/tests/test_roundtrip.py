"""Invariant 1: ``emit(parse(s)) == s`` for every corpus file, rebuilt from the tree."""

from __future__ import annotations

import re
from dataclasses import fields

import pytest
from ptxas_tools import corpus_files, corpus_id, read

from pyptx.emitter import emit
from pyptx.ir import Module, Node, walk
from pyptx.parser import parse

FILES = corpus_files()
TRIVIA_ONLY = re.compile(r"(?:[ \t\r\n\f\v]+|//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/)*\Z")


def test_corpus_is_present() -> None:
    assert len(FILES) >= 219, f"expected the vendored corpus under tests/corpus, got {len(FILES)}"


def _strings(node: Node) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for f in fields(node):  # type: ignore[arg-type]
        value = getattr(node, f.name)
        if f.name == "trivia":
            for s in value or ():
                out.append(("trivia", s))
        elif isinstance(value, str):
            out.append((f.name, value))
        elif isinstance(value, tuple):
            out.extend((f.name, v) for v in value if isinstance(v, str))
    return out


@pytest.mark.parametrize("path", FILES, ids=corpus_id)
def test_round_trip_is_byte_identical(path) -> None:  # type: ignore[no-untyped-def]
    source = read(path)
    module = parse(source, str(path))
    out = emit(module)
    if out != source:
        i = next((k for k, (a, b) in enumerate(zip(out, source, strict=False)) if a != b), len(out))
        line = source.count("\n", 0, i) + 1
        pytest.fail(
            f"round trip differs at {corpus_id(path)}:{line}; reproduce with "
            f'python -c "from pyptx.parser import parse_file; from pyptx.emitter import emit; '
            f"import sys; sys.stdout.write(emit(parse_file('{path}')))\" | diff {path} -"
        )


@pytest.mark.parametrize("path", FILES, ids=corpus_id)
def test_tree_holds_no_source_text(path) -> None:  # type: ignore[no-untyped-def]
    """Trivia is only whitespace and comments; no other string holds a source line."""
    source = read(path)
    module: Module = parse(source, str(path))
    lines = {ln.strip() for ln in source.splitlines() if len(ln.strip()) >= 12}
    for node in walk(module):
        for name, s in _strings(node):
            if name == "trivia":
                assert TRIVIA_ONLY.match(s), f"{type(node).__name__} trivia holds code: {s!r}"
            else:
                assert "\n" not in s, f"{type(node).__name__}.{name} spans lines: {s!r}"
                assert s.strip() not in lines or " " not in s.strip(), (
                    f"{type(node).__name__}.{name} holds a whole source line: {s!r}"
                )
