"""The parser's fast constructors (from the IR's ``fast_constructor`` hook) build exactly the
IR objects."""

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
from pyptx.parser import _build

_R = Register("%r1", (" ",))
_D = Declarator("%r", (), 4, None, (" ", "", "", ""))
# One constructor call per fast constructor, with values for every field in order.
CASES: list[tuple[Any, type[Any], tuple[Any, ...]]] = [
    (_build.new_register, Register, ("%r1", (" ",))),
    (_build.new_special_register, SpecialRegister, ("%tid.x", ("",))),
    (_build.new_immediate, Immediate, ("0x10", ("\t",))),
    (_build.new_symbol, Symbol, ("buf", ("",))),
    (_build.new_label_ref, LabelRef, ("$L__BB0_1", (" ",))),
    (_build.new_label, Label, ("$L__BB0_1", ("\n", "", ""))),
    (_build.new_vector, VectorOperand, ((_R, _R), ("", ",", ""))),
    (_build.new_paren_list, ParenList, ((_R, Symbol("x", ("",))), ("", ",", ""))),
    (_build.new_predicate, Predicate, (_R, True, ("\n\t", ""))),
    (_build.new_section_data, SectionData, (PtxType.B8, (Immediate("1", ("",)),), ("", ""))),
    (_build.new_instruction, Instruction, ("add", ("s32",), (_R, _R), None, ("\n", "", ""), None)),
    (_build.new_address, Address, (_R, Immediate("4", ("",)), "+", (), ("", "", ""))),
    (_build.new_loc, Loc, (1, 2, 3, (), ("\n\t", " ", " ", " ", ""))),
    (_build.new_declarator, Declarator, ("%r", (), 4, None, (" ", "", "", ""))),
    (_build.new_variable_decl, VariableDecl, ((StateSpace.REG,), (_D,), ("\n\t", "", ""))),
    (_build.new_param, Param, ((StateSpace.PARAM,), _D, ("\n\t",))),
    (_build.new_block, Block, ((_R,), ("\n", "\n", ""))),
]


def test_every_fast_constructor_is_tested() -> None:
    made = {value for name, value in vars(_build).items() if name.startswith("new_")}
    assert made == {make for make, _, _ in CASES}


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
