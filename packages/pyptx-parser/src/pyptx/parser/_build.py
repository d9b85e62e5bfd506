"""The fast constructors of the IR nodes the parser builds most often.

Each is :func:`pyptx.ir.fast_constructor` of its class: it takes every field positionally,
in declaration order (``trivia`` last), applies no defaults, and returns exactly the object
the class's own constructor returns (validation included, should the class gain any).
"""

from __future__ import annotations

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
    Register,
    SectionData,
    SpecialRegister,
    Symbol,
    VariableDecl,
    VectorOperand,
    fast_constructor,
)

new_register = fast_constructor(Register)
new_special_register = fast_constructor(SpecialRegister)
new_immediate = fast_constructor(Immediate)
new_symbol = fast_constructor(Symbol)
new_label_ref = fast_constructor(LabelRef)
new_label = fast_constructor(Label)
new_vector = fast_constructor(VectorOperand)
new_paren_list = fast_constructor(ParenList)
new_predicate = fast_constructor(Predicate)
new_section_data = fast_constructor(SectionData)
new_instruction = fast_constructor(Instruction)
new_address = fast_constructor(Address)
new_loc = fast_constructor(Loc)
new_declarator = fast_constructor(Declarator)
new_variable_decl = fast_constructor(VariableDecl)
new_param = fast_constructor(Param)
new_block = fast_constructor(Block)
