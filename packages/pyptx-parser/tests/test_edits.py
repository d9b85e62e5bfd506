"""Invariant 2: edits through the IR show as exactly that edit in the emitted text."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

import pytest
from ptxas_tools import corpus_files, corpus_id, read

from pyptx.emitter import emit
from pyptx.ir import Block, Declarator, Function, Instruction, Node, Register, Rewriter, walk
from pyptx.parser import parse

FILES = [
    p for p in corpus_files() if "Instruction" in {type(n).__name__ for n in walk(parse(read(p)))}
]


class Rename(Rewriter):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def rewrite_Register(self, r: Register) -> Register:
        return replace(r, name=self.new) if r.name == self.old else r

    def rewrite_Declarator(self, d: Declarator) -> Declarator:
        return replace(d, name=self.new) if d.name == self.old else d


def _code_and_comment(line: str) -> tuple[str, str]:
    """Split a line into code and ``//`` comment, ignoring ``//`` inside strings."""
    in_str = False
    for i, c in enumerate(line):
        if c == '"':
            in_str = not in_str
        elif not in_str and line.startswith("//", i):
            return line[:i], line[i:]
    return line, ""


@pytest.mark.parametrize("path", FILES, ids=corpus_id)
def test_rename_register_everywhere(path) -> None:  # type: ignore[no-untyped-def]
    source = read(path)
    module = parse(source)
    counts = Counter(n.name for n in walk(module) if isinstance(n, Register))
    if "/*" in source or not counts:
        pytest.skip("file has block comments or no registers")
    old = counts.most_common(1)[0][0]
    new = old + "_renamed"
    out = emit(Rename(old, new).rewrite(module))
    pattern = re.compile(r"(?<![\w$%])" + re.escape(old) + r"(?![\w$])")
    expected_lines = []
    for line in source.split("\n"):
        code, comment = _code_and_comment(line)
        expected_lines.append(pattern.sub(new, code) + comment)
    assert out == "\n".join(expected_lines)


def _first_instruction(module) -> tuple[Function, int]:  # type: ignore[no-untyped-def]
    for f in module.functions:
        if f.body is None:
            continue
        for i, s in enumerate(f.body.statements):
            t = s.trivia
            if (
                isinstance(s, Instruction)
                and t
                and re.fullmatch(r"\n[ \t]*", t[0])
                and "//" not in t[-1]
                and s.predicate is None
            ):
                return f, i
    pytest.skip("no plain one-line instruction at body level")


def _replace_body(module, fn, statements):  # type: ignore[no-untyped-def]
    new_fn = replace(fn, body=replace(fn.body, statements=tuple(statements)))
    return replace(module, statements=tuple(new_fn if s is fn else s for s in module.statements))


@pytest.mark.parametrize("path", FILES, ids=corpus_id)
def test_change_opcode_changes_one_line(path) -> None:  # type: ignore[no-untyped-def]
    source = read(path)
    module = parse(source)
    fn, i = _first_instruction(module)
    insn = fn.body.statements[i]
    stmts = list(fn.body.statements)
    stmts[i] = replace(insn, opcode="xyzzy")
    edited = _replace_body(module, fn, stmts)
    out = emit(edited).split("\n")
    src = source.split("\n")
    diff = [k for k, (a, b) in enumerate(zip(src, out, strict=False)) if a != b]
    assert len(out) == len(src) and len(diff) == 1
    k = diff[0]
    assert out[k] == src[k].replace(insn.opcode, "xyzzy", 1)


@pytest.mark.parametrize("path", FILES, ids=corpus_id)
def test_delete_statement_removes_its_line(path) -> None:  # type: ignore[no-untyped-def]
    source = read(path)
    module = parse(source)
    fn, i = _first_instruction(module)
    insn = fn.body.statements[i]
    src = source.split("\n")
    mnemonic_lines = [k for k, line in enumerate(src) if line.strip().startswith(insn.mnemonic)]
    stmts = list(fn.body.statements)
    del stmts[i]
    out = emit(_replace_body(module, fn, stmts)).split("\n")
    assert len(out) == len(src) - 1
    k = next(k for k, (a, b) in enumerate(zip(src, [*out, ""], strict=False)) if a != b)
    assert k in mnemonic_lines
    assert out == src[:k] + src[k + 1 :]


@pytest.mark.parametrize("path", FILES, ids=corpus_id)
def test_insert_statement_adds_one_canonical_line(path) -> None:  # type: ignore[no-untyped-def]
    source = read(path)
    module = parse(source)
    fn, i = _first_instruction(module)
    stmts: list[Node] = list(fn.body.statements)
    stmts.insert(i + 1, Instruction("membar", ("gl",)))
    out = emit(_replace_body(module, fn, stmts)).split("\n")
    src = source.split("\n")
    assert len(out) == len(src) + 1
    k = next(k for k, (a, b) in enumerate(zip([*src, ""], out, strict=False)) if a != b)
    assert out[k] == "\tmembar.gl;"
    assert out[:k] + out[k + 1 :] == src


def test_nested_block_insert_uses_its_depth() -> None:
    src = ".version 8.0\n.target sm_80\n.entry k()\n{\n\t{\n\t\tret;\n\t}\n}\n"
    module = parse(src)
    fn = module.functions[0]
    inner = fn.body.statements[0]
    assert isinstance(inner, Block)
    new_inner = replace(inner, statements=(*inner.statements, Instruction("exit")))
    edited = _replace_body(module, fn, [new_inner])
    assert emit(edited) == src.replace("\t\tret;\n", "\t\tret;\n\t\texit;\n")
