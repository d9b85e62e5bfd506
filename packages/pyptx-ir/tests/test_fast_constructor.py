"""The IR's fast-construction hook: same objects as the dataclass constructors, validation kept."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass
from typing import Any

import pytest

import pyptx.ir
from pyptx.ir import Node, Register, fast_constructor

# Every concrete node class the package exports.
NODE_CLASSES = sorted(
    (
        cls
        for cls in vars(pyptx.ir).values()
        if isinstance(cls, type) and issubclass(cls, Node) and dataclasses.is_dataclass(cls)
    ),
    key=lambda cls: cls.__name__,
)


def test_there_are_node_classes() -> None:
    assert Register in NODE_CLASSES and len(NODE_CLASSES) > 30


@pytest.mark.parametrize("cls", NODE_CLASSES, ids=lambda cls: cls.__name__)
def test_builds_what_the_dataclass_constructor_builds(cls: type[Any]) -> None:
    make = fast_constructor(cls)
    names = tuple(f.name for f in dataclasses.fields(cls))
    assert tuple(inspect.signature(make).parameters) == names
    values = tuple(f"value of {name}" for name in names)  # no IR class checks its fields yet
    node = make(*values)
    expected = cls(*values)
    assert type(node) is cls
    assert node == expected
    assert hash(node) == hash(expected)
    assert tuple(getattr(node, n) for n in names) == values
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(node, names[0], "other")


@dataclass(frozen=True, slots=True)
class _Checked(Node):
    """A node class with validation, as IR classes may gain it."""

    width: int
    trivia: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.width <= 0:
            raise ValueError(f"width must be positive, got {self.width}")


def test_post_init_validation_runs() -> None:
    make = fast_constructor(_Checked)
    assert make(4, None) == _Checked(4)
    with pytest.raises(ValueError, match="width must be positive, got 0"):
        make(0, None)


@dataclass(frozen=True, slots=True)
class _OptedOut(Node):
    """A node class that overrides the hook with its own constructor."""

    name: str
    trivia: tuple[str, ...] | None = None

    @classmethod
    def _fast_constructor(cls) -> Any:
        return cls


def test_a_class_can_override_the_hook() -> None:
    assert fast_constructor(_OptedOut) is _OptedOut


@dataclass(frozen=True)
class _NoSlots(Node):
    name: str


@dataclass(frozen=True, slots=True)
class _Derived(Node):
    name: str
    size: int = dataclasses.field(init=False, default=0)


def test_refuses_classes_it_cannot_build() -> None:
    with pytest.raises(TypeError, match="frozen, slotted dataclass"):
        fast_constructor(_NoSlots)
    with pytest.raises(TypeError, match="fields __init__ does not set"):
        fast_constructor(_Derived)
    with pytest.raises(TypeError, match="needs an IR dataclass"):
        fast_constructor(int)  # type: ignore[type-var]
