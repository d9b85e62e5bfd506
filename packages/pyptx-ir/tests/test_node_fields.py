"""node_fields: the child fields that can hold nodes, and nothing a walk would miss."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import pyptx.ir as ir
from pyptx.ir import Instruction, Node, Register, child_fields, node_fields


def _node_classes() -> list[type[Node]]:
    return [
        c for c in vars(ir).values() if inspect.isclass(c) and issubclass(c, Node) and c is not Node
    ]


def test_plain_value_fields_are_left_out() -> None:
    assert node_fields(Instruction) == ("operands", "predicate")
    assert node_fields(Register) == ()


def test_node_fields_are_child_fields_in_order() -> None:
    for cls in _node_classes():
        kept = node_fields(cls)
        assert list(kept) == [n for n in child_fields(cls) if n in kept], cls.__name__


def test_every_field_left_out_holds_no_node_on_a_real_tree() -> None:
    # Every node of a parsed module: the fields node_fields leaves out hold no node.
    if (
        importlib.util.find_spec("pyptx.parser") is None
    ):  # pyptx-ir alone: build a small tree by hand instead
        nodes: list[Node] = [Instruction("add", ("s32",), (Register("%r1"),))]
    else:
        from pyptx.parser import parse

        root = Path(__file__).resolve().parents[3] / "tests" / "corpus"
        nodes = []
        for path in sorted(root.rglob("*.ptx"))[::25]:
            nodes.extend(ir.walk(parse(path.read_text(encoding="utf-8"))))

    def holds_node(value: object) -> bool:
        if isinstance(value, Node):
            return True
        return isinstance(value, tuple) and any(holds_node(v) for v in value)

    for node in nodes:
        for name in child_fields(type(node)):
            if name not in node_fields(type(node)):
                assert not holds_node(getattr(node, name)), (type(node).__name__, name)
