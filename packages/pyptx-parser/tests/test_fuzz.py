"""Property tests: mutated corpus files either parse and round-trip, or raise PtxSyntaxError.

PYPTX_HYPOTHESIS=long runs 20 times as many fresh examples.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from ptxas_tools import corpus_files, read

from pyptx.emitter import emit
from pyptx.parser import PtxSyntaxError, parse

EXAMPLES = examples(300)
SOURCES = [read(p) for p in corpus_files() if p.stat().st_size < 20_000]
ALPHABET = [*list('{}[]();,.:@!|%$_-+*/"\\<>=#\n\t 0123456789abcxyz'), "/*", "*/", "//", "\x00"]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        op = draw(st.sampled_from(["insert", "delete", "replace", "truncate", "duplicate"]))
        if op == "insert":
            text = text[:i] + draw(st.sampled_from(ALPHABET)) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 8)) :]
        elif op == "replace":
            text = text[:i] + draw(st.sampled_from(ALPHABET)) + text[i + 1 :]
        elif op == "truncate":
            text = text[:i]
        else:
            j = min(len(text), i + draw(st.integers(1, 40)))
            text = text[:j] + text[i:j] + text[j:]
    return text


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_input_round_trips_or_raises_syntax_error(text: str) -> None:
    try:
        module = parse(text, "fuzz.ptx")
    except PtxSyntaxError as e:
        assert e.filename == "fuzz.ptx" and e.line >= 1 and e.column >= 1
        assert str(e).startswith(f"fuzz.ptx:{e.line}:{e.column}: ")
        return
    assert emit(module) == text
    assert parse(emit(module, canonical=True)) == module


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=120).map("".join))
def test_random_text_never_leaks_other_exceptions(text: str) -> None:
    try:
        module = parse(".version 8.0\n.target sm_90a\n.entry k()\n{\n" + text + "\n}\n")
    except PtxSyntaxError:
        return
    assert parse(emit(module, canonical=True)) == module
