"""emitter.instruction_lines: where each instruction is in the emitted text."""

from __future__ import annotations

from pathlib import Path

import pytest
from ptxas_tools import corpus_files, corpus_id, read

from pyptx.emitter import emit, instruction_lines
from pyptx.ir import Instruction, Module
from pyptx.parser import parse

FILES = corpus_files()

SOURCE = """\
.version 8.0
.target sm_80
.address_size 64

// a comment before the kernel
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<3>;
	.reg .pred %p<2>;

	// two lines of comment
	// before the first instruction
	mov.u32 %r1, %tid.x;
	{ add.s32 %r2, %r1, 1; }
	@%p1 bra DONE;
DONE:
	ret;
}
"""


def _check(module: Module, text: str, lines: list[int]) -> None:
    instructions = list(module.instructions())
    assert len(lines) == len(instructions)
    source = text.splitlines()
    for insn, line in zip(instructions, lines, strict=True):
        assert insn.opcode in source[line - 1], (line, insn.mnemonic, source[line - 1])


def test_lines_of_a_small_module() -> None:
    module = parse(SOURCE)
    assert instruction_lines(module) == [13, 14, 15, 17]
    guarded = list(module.instructions())[2]
    assert isinstance(guarded, Instruction) and guarded.predicate is not None


def test_canonical_lines_follow_the_canonical_text() -> None:
    module = parse(SOURCE)
    text = emit(module, canonical=True)
    _check(module, text, instruction_lines(module, canonical=True))


@pytest.mark.parametrize("path", FILES, ids=corpus_id)
def test_every_instruction_of_the_corpus_is_on_its_line(path: Path) -> None:
    text = read(path)
    module = parse(text)
    _check(module, text, instruction_lines(module))
