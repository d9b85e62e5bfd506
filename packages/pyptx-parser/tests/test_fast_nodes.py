"""The parser's speed mechanics: fast constructors build exactly the IR objects, and the
per-parse state stays small."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

from pyptx.ir import (
    Address,
    Block,
    Declarator,
    Immediate,
    Instruction,
    Label,
    LabelRef,
    Loc,
    Param,
    ParenList,
    Predicate,
    PtxType,
    Register,
    SectionData,
    SpecialRegister,
    StateSpace,
    Symbol,
    VariableDecl,
    VectorOperand,
)
from pyptx.parser import _nodes

_R = Register("%r1", (" ",))
_D = Declarator("%r", (), 4, None, (" ", "", "", ""))
# One constructor call per fast constructor, with values for every field in order.
CASES: list[tuple[Any, type[Any], tuple[Any, ...]]] = [
    (_nodes.new_register, Register, ("%r1", (" ",))),
    (_nodes.new_special_register, SpecialRegister, ("%tid.x", ("",))),
    (_nodes.new_immediate, Immediate, ("0x10", ("\t",))),
    (_nodes.new_symbol, Symbol, ("buf", ("",))),
    (_nodes.new_label_ref, LabelRef, ("$L__BB0_1", (" ",))),
    (_nodes.new_label, Label, ("$L__BB0_1", ("\n", "", ""))),
    (_nodes.new_vector, VectorOperand, ((_R, _R), ("", ",", ""))),
    (_nodes.new_paren_list, ParenList, ((_R, Symbol("x", ("",))), ("", ",", ""))),
    (_nodes.new_predicate, Predicate, (_R, True, ("\n\t", ""))),
    (_nodes.new_section_data, SectionData, (PtxType.B8, (Immediate("1", ("",)),), ("", ""))),
    (_nodes.new_instruction, Instruction, ("add", ("s32",), (_R, _R), None, ("\n", "", ""))),
    (_nodes.new_address, Address, (_R, Immediate("4", ("",)), "+", (), ("", "", ""))),
    (_nodes.new_loc, Loc, (1, 2, 3, (), ("\n\t", " ", " ", " ", ""))),
    (_nodes.new_declarator, Declarator, ("%r", (), 4, None, (" ", "", "", ""))),
    (_nodes.new_variable_decl, VariableDecl, ((StateSpace.REG,), (_D,), ("\n\t", "", ""))),
    (_nodes.new_param, Param, ((StateSpace.PARAM,), _D, ("\n\t",))),
    (_nodes.new_block, Block, ((_R,), ("\n", "\n", ""))),
]


def test_every_fast_constructor_is_tested() -> None:
    assert {cls for _, cls, _ in CASES} == set(_nodes.BUILT)


@pytest.mark.parametrize("make, cls, args", CASES, ids=[c.__name__ for _, c, _ in CASES])
def test_fast_constructor_builds_the_ir_object(
    make: Any, cls: type[Any], args: tuple[Any, ...]
) -> None:
    # The constructor's parameters are the class's fields, in declaration order.
    names = tuple(f.name for f in dataclasses.fields(cls))
    assert tuple(inspect.signature(make).parameters) == names
    node = make(*args)
    expected = cls(*args)
    assert type(node) is cls
    assert node == expected
    assert hash(node) == hash(expected)
    assert dataclasses.astuple(node) == dataclasses.astuple(expected)
    # Frozen like any IR node once built.
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(node, names[0], args[0])
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(node, "trivia")


def test_parser_keeps_few_instance_attributes() -> None:
    # The hot paths read parser attributes on every line. CPython 3.11 keeps the values of
    # an instance's first attributes in a table shared by all instances, which its
    # specialized attribute access relies on; a 30th attribute made parsing the corpus about
    # 3 % slower (cachegrind instruction count), so new per-parse state must replace old.
    from pyptx.parser._parser import Parser

    parser = Parser(".version 8.0\n.target sm_80\n.entry k()\n{\n\tret;\n}\n", "t.ptx")
    parser.module()
    assert len(vars(parser)) <= 29, sorted(vars(parser))
