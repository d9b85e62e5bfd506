"""Invariant 3: canonical emission re-parses to an equal tree and assembles to the same code."""

from __future__ import annotations

import pytest
from ptxas_tools import (
    assemble,
    corpus_files,
    corpus_id,
    find_ptxas,
    ptxas_rejects,
    read,
    text_sections,
)

from pyptx.emitter import emit
from pyptx.ir import walk
from pyptx.parser import parse

FILES = corpus_files()


@pytest.mark.parametrize("path", FILES, ids=corpus_id)
def test_canonical_reparses_to_equal_tree(path) -> None:  # type: ignore[no-untyped-def]
    module = parse(read(path), str(path))
    canonical = emit(module, canonical=True)
    again = parse(canonical, "<canonical>")
    assert again == module
    # Canonical output is a fixed point.
    assert emit(again, canonical=True) == canonical
    # Trivia never takes part in equality, so the stripped tree is equal too; it holds no
    # trivia anywhere, so its plain emission is the canonical text.
    stripped = module.without_trivia()
    assert stripped == module
    assert not [n for n in walk(stripped) if getattr(n, "trivia", None) is not None]
    assert emit(stripped) == canonical


def test_rejects_list_names_existing_files() -> None:
    ids = {corpus_id(p) for p in FILES}
    missing = sorted(set(ptxas_rejects()) - ids)
    assert not missing, f"tests/corpus/ptxas_rejects.txt names missing files: {missing}"


ASSEMBLED = [p for p in FILES if corpus_id(p) not in ptxas_rejects()]


@pytest.mark.skipif(find_ptxas() is None, reason="no ptxas: pip install nvidia-cuda-nvcc")
@pytest.mark.parametrize("path", ASSEMBLED, ids=corpus_id)
def test_canonical_assembles_to_same_machine_code(path) -> None:  # type: ignore[no-untyped-def]
    source = read(path)
    module = parse(source, str(path))
    arch = next((t for t in module.targets if t.startswith("sm_")), "sm_80")
    ok, original, err = assemble(source, arch)
    assert ok, (
        f"ptxas rejects {corpus_id(path)} ({err.strip()[:200]}); if that is expected, "
        "list it in tests/corpus/ptxas_rejects.txt"
    )
    ok2, canonical, err2 = assemble(emit(module, canonical=True), arch)
    assert ok2, f"ptxas rejects the canonical form: {err2.strip()[:300]}"
    a, b = text_sections(original), text_sections(canonical)
    assert a, "the cubin has no .text sections"
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == b[name], f"{name} differs after canonical emission"
