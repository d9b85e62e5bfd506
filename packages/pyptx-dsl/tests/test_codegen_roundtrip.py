"""The round-trip contract over the whole corpus: PTX -> Python -> exec -> trace -> emit."""

from __future__ import annotations

from pathlib import Path

import pytest
from codegen_testing import corpus_files, corpus_id, read_exact, run_generated

from pyptx.codegen import ptx_to_python
from pyptx.dsl.layout import SourceLayout
from pyptx.parser import parse

FILES = corpus_files()


def test_corpus_is_there() -> None:
    assert len(FILES) >= 300


@pytest.mark.parametrize("path", FILES, ids=corpus_id)
def test_generated_python_reemits_the_input_byte_for_byte(path: Path) -> None:
    source = read_exact(path)
    generated = ptx_to_python(source, source_name=path.name)
    module = run_generated(generated)
    assert module.module.ptx() == source
    kernels = [f for f in module.module.functions if f.header.is_kernel]
    if len(kernels) == 1:
        assert kernels[0].ptx() == source


@pytest.mark.parametrize("path", FILES[::10], ids=corpus_id)
def test_layout_serialization_round_trips(path: Path) -> None:
    module = parse(read_exact(path))
    layout = SourceLayout.of(module)
    assert SourceLayout.loads(layout.dumps()) == layout
    assert layout.dumps() == SourceLayout.loads(layout.dumps()).dumps()
