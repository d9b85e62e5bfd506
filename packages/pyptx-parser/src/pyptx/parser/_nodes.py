"""Fast constructors for the IR nodes the parser builds most often.

IR nodes are frozen, slotted dataclasses. Their generated ``__init__`` assigns every field
through ``object.__setattr__``, and filling the slots through their descriptors' ``__set__``
is not much cheaper: either way most of the time of building a small node goes into calls.

The constructors here build the node as an instance of a *building twin*: a subclass that
adds no slots (so it has exactly the node's memory layout) and restores plain attribute
assignment, which the interpreter turns into direct slot stores. Once every field is set,
the instance's class is switched to the IR class itself, which the layouts being identical
allows. The result is exactly the object the IR constructor makes (same type, same field
values, nothing else), frozen from then on, at about two thirds of the cost of the slot
descriptors and half the cost of the dataclass ``__init__``.

Each constructor takes every field positionally, in declaration order, and applies no
defaults; a test compares their fields with the IR classes'. IR classes with
``__post_init__`` checks must not be built this way (none of the classes below has one).
"""

from __future__ import annotations

from typing import Any

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
)


def _twin(cls: type[Any]) -> Any:
    """A subclass of the frozen IR class ``cls`` with the same layout and plain assignment."""
    assert "__post_init__" not in cls.__dict__, cls
    return type(
        f"_Building{cls.__name__}",
        (cls,),
        {
            "__slots__": (),
            "__setattr__": object.__setattr__,
            "__delattr__": object.__delattr__,
        },
    )


_new = object.__new__
_REGISTER = _twin(Register)
_SPECIAL_REGISTER = _twin(SpecialRegister)
_IMMEDIATE = _twin(Immediate)
_SYMBOL = _twin(Symbol)
_LABEL_REF = _twin(LabelRef)
_LABEL = _twin(Label)
_VECTOR = _twin(VectorOperand)
_PAREN_LIST = _twin(ParenList)
_PREDICATE = _twin(Predicate)
_SECTION_DATA = _twin(SectionData)
_INSTRUCTION = _twin(Instruction)
_ADDRESS = _twin(Address)
_LOC = _twin(Loc)
_DECLARATOR = _twin(Declarator)
_VARIABLE_DECL = _twin(VariableDecl)
_PARAM = _twin(Param)
_BLOCK = _twin(Block)

FIELDS: dict[type[Any], tuple[str, ...]] = {
    Register: ("name", "trivia"),
    SpecialRegister: ("name", "trivia"),
    Immediate: ("text", "trivia"),
    Symbol: ("name", "trivia"),
    LabelRef: ("name", "trivia"),
    Label: ("name", "trivia"),
    VectorOperand: ("elements", "trivia"),
    ParenList: ("items", "trivia"),
    Predicate: ("register", "negated", "trivia"),
    SectionData: ("type", "values", "trivia"),
    Instruction: ("opcode", "modifiers", "operands", "predicate", "trivia"),
    Address: ("base", "offset", "sign", "extra", "trivia"),
    Loc: ("file", "line", "column", "attributes", "trivia"),
    Declarator: ("name", "dims", "range_count", "initializer", "trivia"),
    VariableDecl: ("qualifiers", "declarators", "trivia"),
    Param: ("qualifiers", "declarator", "trivia"),
    Block: ("statements", "trivia"),
}
"""The fields each constructor below sets, in its parameter order (checked by a test)."""


def new_register(name: Any, trivia: Any) -> Register:
    """``Register(name, trivia)``."""
    node = _new(_REGISTER)
    node.name = name
    node.trivia = trivia
    node.__class__ = Register
    return node  # type: ignore[no-any-return]


def new_special_register(name: Any, trivia: Any) -> SpecialRegister:
    """``SpecialRegister(name, trivia)``."""
    node = _new(_SPECIAL_REGISTER)
    node.name = name
    node.trivia = trivia
    node.__class__ = SpecialRegister
    return node  # type: ignore[no-any-return]


def new_immediate(text: Any, trivia: Any) -> Immediate:
    """``Immediate(text, trivia)``."""
    node = _new(_IMMEDIATE)
    node.text = text
    node.trivia = trivia
    node.__class__ = Immediate
    return node  # type: ignore[no-any-return]


def new_symbol(name: Any, trivia: Any) -> Symbol:
    """``Symbol(name, trivia)``."""
    node = _new(_SYMBOL)
    node.name = name
    node.trivia = trivia
    node.__class__ = Symbol
    return node  # type: ignore[no-any-return]


def new_label_ref(name: Any, trivia: Any) -> LabelRef:
    """``LabelRef(name, trivia)``."""
    node = _new(_LABEL_REF)
    node.name = name
    node.trivia = trivia
    node.__class__ = LabelRef
    return node  # type: ignore[no-any-return]


def new_label(name: Any, trivia: Any) -> Label:
    """``Label(name, trivia)``."""
    node = _new(_LABEL)
    node.name = name
    node.trivia = trivia
    node.__class__ = Label
    return node  # type: ignore[no-any-return]


def new_vector(elements: Any, trivia: Any) -> VectorOperand:
    """``VectorOperand(elements, trivia)``."""
    node = _new(_VECTOR)
    node.elements = elements
    node.trivia = trivia
    node.__class__ = VectorOperand
    return node  # type: ignore[no-any-return]


def new_paren_list(items: Any, trivia: Any) -> ParenList:
    """``ParenList(items, trivia)``."""
    node = _new(_PAREN_LIST)
    node.items = items
    node.trivia = trivia
    node.__class__ = ParenList
    return node  # type: ignore[no-any-return]


def new_predicate(register: Any, negated: Any, trivia: Any) -> Predicate:
    """``Predicate(register, negated, trivia)``."""
    node = _new(_PREDICATE)
    node.register = register
    node.negated = negated
    node.trivia = trivia
    node.__class__ = Predicate
    return node  # type: ignore[no-any-return]


def new_section_data(type: Any, values: Any, trivia: Any) -> SectionData:
    """``SectionData(type, values, trivia)``."""
    node = _new(_SECTION_DATA)
    node.type = type
    node.values = values
    node.trivia = trivia
    node.__class__ = SectionData
    return node  # type: ignore[no-any-return]


def new_instruction(
    opcode: Any, modifiers: Any, operands: Any, predicate: Any, trivia: Any
) -> Instruction:
    """``Instruction(opcode, modifiers, operands, predicate, trivia)``."""
    node = _new(_INSTRUCTION)
    node.opcode = opcode
    node.modifiers = modifiers
    node.operands = operands
    node.predicate = predicate
    node.trivia = trivia
    node.__class__ = Instruction
    return node  # type: ignore[no-any-return]


def new_address(base: Any, offset: Any, sign: Any, extra: Any, trivia: Any) -> Address:
    """``Address(base, offset, sign, extra, trivia)``."""
    node = _new(_ADDRESS)
    node.base = base
    node.offset = offset
    node.sign = sign
    node.extra = extra
    node.trivia = trivia
    node.__class__ = Address
    return node  # type: ignore[no-any-return]


def new_loc(file: Any, line: Any, column: Any, attributes: Any, trivia: Any) -> Loc:
    """``Loc(file, line, column, attributes, trivia)``."""
    node = _new(_LOC)
    node.file = file
    node.line = line
    node.column = column
    node.attributes = attributes
    node.trivia = trivia
    node.__class__ = Loc
    return node  # type: ignore[no-any-return]


def new_declarator(
    name: Any, dims: Any, range_count: Any, initializer: Any, trivia: Any
) -> Declarator:
    """``Declarator(name, dims, range_count, initializer, trivia)``."""
    node = _new(_DECLARATOR)
    node.name = name
    node.dims = dims
    node.range_count = range_count
    node.initializer = initializer
    node.trivia = trivia
    node.__class__ = Declarator
    return node  # type: ignore[no-any-return]


def new_variable_decl(qualifiers: Any, declarators: Any, trivia: Any) -> VariableDecl:
    """``VariableDecl(qualifiers, declarators, trivia)``."""
    node = _new(_VARIABLE_DECL)
    node.qualifiers = qualifiers
    node.declarators = declarators
    node.trivia = trivia
    node.__class__ = VariableDecl
    return node  # type: ignore[no-any-return]


def new_param(qualifiers: Any, declarator: Any, trivia: Any) -> Param:
    """``Param(qualifiers, declarator, trivia)``."""
    node = _new(_PARAM)
    node.qualifiers = qualifiers
    node.declarator = declarator
    node.trivia = trivia
    node.__class__ = Param
    return node  # type: ignore[no-any-return]


def new_block(statements: Any, trivia: Any) -> Block:
    """``Block(statements, trivia)``."""
    node = _new(_BLOCK)
    node.statements = statements
    node.trivia = trivia
    node.__class__ = Block
    return node  # type: ignore[no-any-return]
