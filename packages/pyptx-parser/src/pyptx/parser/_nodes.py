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
defaults. Like the dataclass ``__init__`` it stands in for, its code is generated from the
class's fields, so that each store names its slot. IR classes with ``__post_init__`` checks
must not be built this way (none of the classes below has one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

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

_N = TypeVar("_N")

BUILT: list[type[Any]] = []
"""The IR classes that have a fast constructor here (checked by a test)."""


def _maker(cls: type[_N]) -> Callable[..., _N]:
    """``cls``'s fast constructor: a building twin filled slot by slot, then switched."""
    assert "__post_init__" not in cls.__dict__, cls
    twin = type(
        f"_Building{cls.__name__}",
        (cls,),
        {
            "__slots__": (),
            "__setattr__": object.__setattr__,
            "__delattr__": object.__delattr__,
        },
    )
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    source = (
        f"def new_{cls.__name__}({', '.join(names)}):\n"
        "    node = new(twin)\n"
        + "".join(f"    node.{name} = {name}\n" for name in names)
        + "    node.__class__ = cls\n"
        "    return node\n"
    )
    namespace: dict[str, Any] = {"new": object.__new__, "twin": twin, "cls": cls}
    exec(source, namespace)  # field names only: identifiers of our own IR classes
    make: Callable[..., _N] = namespace[f"new_{cls.__name__}"]
    make.__doc__ = f"``{cls.__name__}({', '.join(names)})``, built fast."
    BUILT.append(cls)
    return make


new_register = _maker(Register)
new_special_register = _maker(SpecialRegister)
new_immediate = _maker(Immediate)
new_symbol = _maker(Symbol)
new_label_ref = _maker(LabelRef)
new_label = _maker(Label)
new_vector = _maker(VectorOperand)
new_paren_list = _maker(ParenList)
new_predicate = _maker(Predicate)
new_section_data = _maker(SectionData)
new_instruction = _maker(Instruction)
new_address = _maker(Address)
new_loc = _maker(Loc)
new_declarator = _maker(Declarator)
new_variable_decl = _maker(VariableDecl)
new_param = _maker(Param)
new_block = _maker(Block)
