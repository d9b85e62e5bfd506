"""IR nodes: immutability, structural equality, immediates, traversal and the rewriter."""

from __future__ import annotations

import dataclasses
import math

import pytest

from pyptx.ir import (
    Address,
    Block,
    Declarator,
    Function,
    FunctionKind,
    Immediate,
    ImmediateKind,
    Instruction,
    Label,
    LabelRef,
    Module,
    Node,
    PtxType,
    Register,
    Rewriter,
    StateSpace,
    VariableDecl,
    Visitor,
    builder,
    strip_trivia,
    structurally_equal,
    walk,
)


def _kernel() -> Module:
    fn = builder.FunctionBuilder("k", params=[builder.param(PtxType.U64, "p")])
    fn.reg(PtxType.B32, "%r", 4)
    fn.inst("ld.param.u64", builder.reg("%rd1"), builder.addr(builder.sym("p")))
    fn.label("LOOP")
    fn.inst("add.s32", builder.reg("%r1"), builder.reg("%r1"), builder.imm(1))
    fn.inst("bra", LabelRef("LOOP"), pred=builder.reg("%p1"))
    fn.inst("ret")
    return builder.module("sm_90a", (8, 0), fn.build())


def test_nodes_are_frozen_and_slotted() -> None:
    r = Register("%r1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.name = "%r2"  # type: ignore[misc]
    assert not hasattr(r, "__dict__")


def test_trivia_does_not_take_part_in_equality_or_hash() -> None:
    a = Register("%r1", (" ",))
    b = Register("%r1", ("\t\t",))
    assert a == b and hash(a) == hash(b) and structurally_equal(a, b)
    assert Register("%r1") != Register("%r2")
    assert Instruction("add", ("s32",)) != Instruction("add", ("u32",))


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("42", 42, ImmediateKind.DECIMAL),
        ("-4", -4, ImmediateKind.DECIMAL),
        ("0x1F", 31, ImmediateKind.HEX),
        ("0b101", 5, ImmediateKind.BINARY),
        ("017", 15, ImmediateKind.OCTAL),
        ("7U", 7, ImmediateKind.DECIMAL),
        ("0f3F800000", 1.0, ImmediateKind.HEX_F32),
        ("0d4000000000000000", 2.0, ImmediateKind.HEX_F64),
        ("1.5", 1.5, ImmediateKind.FLOAT),
        ("-0fBF800000", 1.0, ImmediateKind.HEX_F32),  # minus (-1.0)
    ],
)
def test_immediate_values_keep_spelling(text: str, value: float, kind: ImmediateKind) -> None:
    imm = Immediate(text)
    assert imm.kind is kind
    assert imm.text == text
    assert imm.value == value


def test_immediate_of() -> None:
    assert Immediate.of(3).text == "3"
    assert Immediate.of(1.0).text == "0d3FF0000000000000"
    assert math.isclose(Immediate.of(0.1).value, 0.1)
    with pytest.raises(TypeError):
        Immediate.of(True)


def test_walk_and_visitor_see_every_instruction() -> None:
    m = _kernel()
    insns = [n for n in walk(m) if isinstance(n, Instruction)]
    assert [i.mnemonic for i in insns] == ["ld.param.u64", "add.s32", "bra", "ret"]
    assert list(m.instructions()) == insns

    class Count(Visitor):
        def __init__(self) -> None:
            self.regs: list[str] = []

        def visit_Register(self, r: Register) -> None:
            self.regs.append(r.name)

    v = Count()
    v.visit(m)
    assert v.regs == ["%rd1", "%r1", "%r1", "%p1"]


def test_rewriter_shares_untouched_subtrees_and_supports_delete_and_splice() -> None:
    m = _kernel()

    class Edit(Rewriter):
        def rewrite_Instruction(self, i: Instruction) -> Node | list[Node] | None:
            if i.opcode == "ret":
                return None
            if i.opcode == "add":
                return [i, Instruction("membar", ("gl",))]
            return i

    new = Edit().rewrite(m)
    fn = new.functions[0]
    assert [type(s).__name__ for s in fn.statements] == [
        "VariableDecl",
        "Instruction",
        "Label",
        "Instruction",
        "Instruction",
        "Instruction",
    ]
    assert [s.mnemonic for s in fn.statements if isinstance(s, Instruction)] == [
        "ld.param.u64",
        "add.s32",
        "membar.gl",
        "bra",
    ]
    # The header statements were not touched, so they are the very same objects.
    assert all(a is b for a, b in zip(m.statements[:3], new.statements[:3], strict=False))
    # A rewriter that changes nothing returns the same tree.
    assert Rewriter().rewrite(m) is m


def test_rewriter_rejects_deleting_a_single_child() -> None:
    class Bad(Rewriter):
        def rewrite_Register(self, r: Register) -> None:
            return None

    addr = Address(Register("%rd1"))
    with pytest.raises(TypeError, match=r"Address\.base holds one node"):
        Bad().rewrite(addr)


def test_strip_trivia() -> None:
    insn = Instruction("ret", (), (), None, ("\n\t", "", "  // done"))
    assert strip_trivia(insn).trivia is None
    assert strip_trivia(insn) == insn


def test_strip_trivia_shares_what_has_none() -> None:
    bare = Instruction("add", ("s32",), (Register("%r1"), Register("%r2"), Register("%r3")))
    assert strip_trivia(bare) is bare
    spaced = Instruction("ret", (), (), None, ("\n\t", "", ""))
    block = Block((bare, spaced))
    out = strip_trivia(block)
    assert out.statements[0] is bare  # untouched subtree shared, not copied
    assert out.statements[1] is not spaced and out.statements[1].trivia is None
    assert type(out.statements[1]) is Instruction and out == block


def test_strip_trivia_strips_a_shared_node_once() -> None:
    # The parser shares one node between identical lines; stripping keeps them shared.
    spaced = Instruction("ret", (), (), None, ("\n\t", "", ""))
    other = Instruction("exit", (), (), None, ("\n\t", "", ""))
    out = strip_trivia(Block((spaced, other, spaced)))
    first, middle, last = out.statements
    assert first is last and first is not spaced and first.trivia is None
    assert middle.trivia is None and middle.opcode == "exit"
    assert out == Block((spaced, other, spaced))


def test_module_accessors() -> None:
    m = _kernel()
    assert m.version == (8, 0)
    assert m.targets == ("sm_90a",)
    assert m.address_size == 64
    assert [f.name for f in m.kernels] == ["k"]
    assert m.function("k").is_kernel
    with pytest.raises(KeyError, match="functions: k"):
        m.function("missing")
    decl = m.functions[0].statements[0]
    assert isinstance(decl, VariableDecl)
    assert decl.state_space is StateSpace.REG and decl.type is PtxType.B32
    assert decl.declarators[0].names() == ("%r0", "%r1", "%r2", "%r3")


def test_function_and_block_defaults() -> None:
    f = Function(FunctionKind.FUNC, "f")
    assert f.statements == () and not f.is_kernel
    b = Block((Label("A"), Block((Label("B"),))))
    assert [s.name for s in b.walk_statements() if isinstance(s, Label)] == ["A", "B"]
    assert Declarator("x", (4, None)).dims == (4, None)
