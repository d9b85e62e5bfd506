"""Named trivia slots on parsed trees: every gap the parser fills has a name, and the emitter
writes each gap it reads by that name (edits by name show in the emitted text)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from ptxas_tools import corpus_files, corpus_id, read

from pyptx.emitter import emit
from pyptx.ir import (
    LEADING,
    TRAILING,
    Address,
    Alias,
    BraceList,
    CallTargets,
    Declarator,
    FieldInit,
    Function,
    Instruction,
    Label,
    Loc,
    LocFunctionName,
    LocInlinedAt,
    Module,
    Negated,
    Node,
    Register,
    Target,
    UnaryExpr,
    VariableDecl,
    VectorOperand,
    walk,
    with_gaps,
)
from pyptx.parser import parse

FILES = corpus_files()


@pytest.mark.parametrize("path", FILES, ids=corpus_id)
def test_every_parsed_node_has_one_trivia_string_per_gap_name(path: Path) -> None:
    module = parse(read(path), str(path))
    for node in walk(module):
        names = node.gap_names()
        if node.trivia is None or len(node.trivia) != len(names):
            pytest.fail(
                f"{corpus_id(path)}: a {type(node).__name__} has trivia {node.trivia!r} for gap "
                f'names {names!r}; reproduce with python -c "from pyptx.parser import '
                f"parse_file; from pyptx.ir import walk; [print(type(n).__name__, n.trivia, "
                f"n.gap_names()) for n in walk(parse_file('{path}'))]\""
            )
        index = node.gap_index()
        assert len(index) == len(names) and all(index[n] == i for i, n in enumerate(names))


SAMPLE = """.version 8.0
.target sm_90a , texmode_independent
.address_size 64
.global .texref t = { filter_mode = nearest , addr_mode_0 = clamp };
.global .u32 g[2] = { -1 , ~2 };

.visible .func (.param .b32 r) fb (.param .b32 a , .param .b32 b)
{
\t.reg .b32 %r<4> ;
\t.reg .pred %p<3>;
$Lt:
\t.calltargets fb ;
\t.loc 1 2 3, function_name $Lt, inlined_at 1 4 5
\t@!%p1 bra.uni \t$Lt ;  // loop
\tand.pred %p1, %p2 , !%p0;
\tld.global.v2.f32 {%r1 , %r2}, [%rd1 + 16];
\tret;
}
.alias fa , fb ;
"""


def _first(module: Module, cls: type[Node]) -> Node:
    return next(n for n in walk(module) if type(n) is cls)


def _instructions(module: Module) -> list[Instruction]:
    return list(module.instructions())


def test_the_sample_round_trips() -> None:
    assert emit(parse(SAMPLE)) == SAMPLE


def test_accessors_on_parsed_statements() -> None:
    m = parse(SAMPLE)
    bra, and_, ld, ret = _instructions(m)
    # The guarded bra: the predicate holds the statement's leading gap.
    assert bra.predicate is not None
    assert bra.predicate.gap(LEADING) == "\n\t"
    assert bra.predicate.gap("before_bang") == ""
    assert bra.gap("before_opcode") == " "
    assert bra.operands[0].gap(LEADING) == " \t"
    assert bra.gap("before_semicolon") == " "
    assert bra.gap(TRAILING) == "  // loop"
    assert and_.gap("before_comma_1") == "" and and_.gap("before_comma_2") == " "
    assert ret.gaps() == {"leading": "\n\t", "before_semicolon": "", "trailing": ""}
    vec, addr = ld.operands
    assert isinstance(vec, VectorOperand) and isinstance(addr, Address)
    assert vec.gap("before_comma_1") == " " and vec.gap("before_rbrace") == ""
    assert addr.gap("before_sign") == " " and addr.gap("before_rbracket") == ""
    reg = next(s for s in m.functions[0].statements if isinstance(s, VariableDecl))
    assert reg.gap("before_semicolon") == " "
    assert reg.declarators[0].gap("before_lt") == ""
    label = _first(m, Label)
    assert label.gap(LEADING) == "\n" and label.gap("before_colon") == ""


def test_accessors_on_parsed_directives_and_operands() -> None:
    m = parse(SAMPLE)
    target = _first(m, Target)
    assert target.gap("before_comma_1") == " " and target.gap("before_name_1") == " "
    f = _first(m, Function)
    assert f.gap("returns_before_lparen") == " " and f.gap("params_before_comma_1") == " "
    assert f.gap("before_name") == " " and f.gap("params_before_rparen") == ""
    alias = _first(m, Alias)
    assert alias.gap("before_comma") == " " and alias.gap("before_semicolon") == " "
    assert _first(m, CallTargets).gap("before_semicolon") == " "
    assert _first(m, Loc).gap("before_column") == " "
    assert _first(m, LocFunctionName).gap("before_comma") == ""
    assert _first(m, LocInlinedAt).gap("before_keyword") == " "
    assert _first(m, FieldInit).gap("before_eq") == " "
    braces = _first(m, BraceList)
    assert braces.gap("before_comma_1") == " " and braces.gap("before_rbrace") == " "
    dims = next(d for d in walk(m) if isinstance(d, Declarator) and d.name == "g")
    assert dims.gap("before_lbracket_0") == "" and dims.gap("before_size_0") == ""
    assert _first(m, UnaryExpr).gap(LEADING) == " "
    assert _first(m, Negated).gap(LEADING) == " "


def _edit_instructions(module: Module, edit: Callable[[Instruction], Instruction]) -> Module:
    f = module.functions[0]
    assert f.body is not None
    body = tuple(edit(s) if isinstance(s, Instruction) else s for s in f.body.statements)
    new_f = replace(f, body=replace(f.body, statements=body))
    return replace(module, statements=tuple(new_f if s is f else s for s in module.statements))


def test_a_gap_edited_by_name_shows_in_the_emitted_text() -> None:
    m = parse(SAMPLE)

    def comment_ret(s: Instruction) -> Instruction:
        return with_gaps(s, trailing="  // done") if s.opcode == "ret" else s

    out = emit(_edit_instructions(m, comment_ret))
    assert out == SAMPLE.replace("\tret;\n", "\tret;  // done\n")


def test_a_reshaped_statement_keeps_its_leading_and_trailing_gaps() -> None:
    m = parse(SAMPLE)

    def add_operand(s: Instruction) -> Instruction:
        if s.opcode != "bra":
            return s
        return replace(s, operands=(*s.operands, Register("%r1")))

    out = emit(_edit_instructions(m, add_operand))
    # The bra's own trivia no longer fits: indentation and comment stay, the rest is canonical.
    assert out == SAMPLE.replace(
        "\t@!%p1 bra.uni \t$Lt ;  // loop", "\t@!%p1 bra.uni \t$Lt, %r1;  // loop"
    )
