"""Fast constructors for the IR nodes the parser builds most often.

IR nodes are frozen, slotted dataclasses; their generated ``__init__`` assigns every field
through ``object.__setattr__``, which costs about half of the time it takes to build a small
node. The constructors here allocate the instance with ``object.__new__`` and fill its slots
through the slot descriptors, which gives exactly the same object (same type, same field
values, nothing else) at roughly two thirds of the cost. They take every field positionally,
in declaration order, and apply no defaults. IR classes with ``__post_init__`` checks must not
be built this way (none of the classes below has one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

from pyptx.ir import (
    Address,
    Immediate,
    Instruction,
    Label,
    LabelRef,
    Loc,
    Predicate,
    Register,
    SectionData,
    SpecialRegister,
    Symbol,
    VectorOperand,
)

_N = TypeVar("_N")


def _setters(cls: type[Any]) -> list[Callable[[Any, Any], None]]:
    """The ``__set__`` of each field's slot descriptor, in field order."""
    assert "__post_init__" not in cls.__dict__, cls
    return [cls.__dict__[f.name].__set__ for f in fields(cls)]


def _maker2(cls: type[_N]) -> Callable[[Any, Any], _N]:
    new = object.__new__
    s1, s2 = _setters(cls)

    def make(a: Any, b: Any) -> _N:
        node = new(cls)
        s1(node, a)
        s2(node, b)
        return node

    return make


def _maker3(cls: type[_N]) -> Callable[[Any, Any, Any], _N]:
    new = object.__new__
    s1, s2, s3 = _setters(cls)

    def make(a: Any, b: Any, c: Any) -> _N:
        node = new(cls)
        s1(node, a)
        s2(node, b)
        s3(node, c)
        return node

    return make


def _maker5(cls: type[_N]) -> Callable[[Any, Any, Any, Any, Any], _N]:
    new = object.__new__
    s1, s2, s3, s4, s5 = _setters(cls)

    def make(a: Any, b: Any, c: Any, d: Any, e: Any) -> _N:
        node = new(cls)
        s1(node, a)
        s2(node, b)
        s3(node, c)
        s4(node, d)
        s5(node, e)
        return node

    return make


new_register = _maker2(Register)
"""``Register(name, trivia)``."""
new_special_register = _maker2(SpecialRegister)
"""``SpecialRegister(name, trivia)``."""
new_immediate = _maker2(Immediate)
"""``Immediate(text, trivia)``."""
new_symbol = _maker2(Symbol)
"""``Symbol(name, trivia)``."""
new_label_ref = _maker2(LabelRef)
"""``LabelRef(name, trivia)``."""
new_label = _maker2(Label)
"""``Label(name, trivia)``."""
new_vector = _maker2(VectorOperand)
"""``VectorOperand(elements, trivia)``."""
new_predicate = _maker3(Predicate)
"""``Predicate(register, negated, trivia)``."""
new_section_data = _maker3(SectionData)
"""``SectionData(type, values, trivia)``."""
new_instruction = _maker5(Instruction)
"""``Instruction(opcode, modifiers, operands, predicate, trivia)``."""
new_address = _maker5(Address)
"""``Address(base, offset, sign, extra, trivia)``."""
new_loc = _maker5(Loc)
"""``Loc(file, line, column, attributes, trivia)``."""
