"""Named trivia slots: every IR class names its gaps, and gaps are read and written by name."""

from __future__ import annotations

import dataclasses

import pytest

import pyptx.ir as ir
from pyptx.ir import (
    LEADING,
    TRAILING,
    Address,
    Align,
    Block,
    CallPrototype,
    Declarator,
    Function,
    FunctionKind,
    Immediate,
    Instruction,
    Label,
    LabelRef,
    Linkage,
    Node,
    Param,
    Predicate,
    PtxType,
    Register,
    StateSpace,
    Symbol,
    Target,
    VarAttribute,
    VariableDecl,
    VectorOperand,
    comma_gaps,
    qualifier_tokens,
    token_gaps,
    with_gaps,
)

R1, R2, R3 = Register("%r1"), Register("%r2"), Register("%r3")
P1 = Register("%p1")
PARAM = Param((StateSpace.PARAM, PtxType.U64), Declarator("p"))


def _ir_classes() -> list[type[Node]]:
    """Every node class pyptx.ir exports that has a trivia field."""
    out = []
    for name in ir.__all__:
        obj = getattr(ir, name)
        if isinstance(obj, type) and issubclass(obj, Node) and obj is not Node:
            assert "trivia" in {f.name for f in dataclasses.fields(obj)}, name  # type: ignore[arg-type]
            out.append(obj)
    return out


CLASSES = _ir_classes()

# At least one node of every class, with the variable parts of each layout exercised.
SAMPLES: list[Node] = [
    R1,
    ir.SpecialRegister("%tid.x"),
    Symbol("x"),
    LabelRef("L"),
    Immediate("1"),
    ir.StringLiteral("a.cu"),
    ir.Sink(),
    VectorOperand(()),
    VectorOperand((R1, R2, R3)),
    ir.BraceList((Immediate("1"), ir.BraceList((Immediate("2"),)))),
    ir.FieldInit("filter_mode", Symbol("nearest")),
    Address(R1),
    Address(R1, Immediate("4")),
    Address(Symbol("tmap"), extra=(VectorOperand((R1, R2)),)),
    ir.ParenList((R1, R2)),
    ir.Negated(P1),
    ir.PredPair(P1, Register("%p2")),
    ir.BinaryExpr("+", Symbol("x"), Immediate("8")),
    ir.UnaryExpr("-", Symbol("x")),
    ir.ParenExpr(Symbol("x")),
    ir.GenericAddress(Symbol("x")),
    Predicate(P1),
    Predicate(P1, negated=True),
    Instruction("ret"),
    Instruction("add", ("s32",), (R1, R2, R3)),
    Instruction("bra", (), (LabelRef("L"),), Predicate(P1)),
    Label("L"),
    Block((Instruction("ret"),)),
    Declarator("%r", range_count=8),
    Declarator("buf", (4, None), initializer=ir.BraceList((Immediate("1"),))),
    VariableDecl((StateSpace.REG, PtxType.B32), (Declarator("a"), Declarator("b"))),
    VariableDecl(
        (Linkage.VISIBLE, StateSpace.GLOBAL, Align(16), VarAttribute("unified", ("1", "2"))),
        (Declarator("g"),),
    ),
    PARAM,
    Param((), Declarator("q")),
    Function(FunctionKind.ENTRY, "k", (PARAM,), Block(())),
    Function(FunctionKind.FUNC, "f", None, None, (Linkage.EXTERN,), (PARAM,)),
    ir.Version(8, 0),
    Target(("sm_90a",)),
    Target(("sm_90a", "debug")),
    ir.AddressSize(64),
    ir.File(1, ir.StringLiteral("a.cu")),
    ir.File(1, ir.StringLiteral("a.cu"), (Immediate("0"), Immediate("12"))),
    ir.Loc(1, 2, 3),
    ir.LocFunctionName(Symbol("f")),
    ir.LocInlinedAt(1, 2, 3),
    ir.Pragma((ir.StringLiteral("nounroll"),)),
    ir.Alias("a", "b"),
    ir.Section(".debug_info", (ir.SectionData(PtxType.B8, (Immediate("1"),)),)),
    ir.SectionData(PtxType.B8, (Immediate("1"), Immediate("2"))),
    ir.FunctionDirective(ir.FunctionDirectiveKind.MAXNTID, (Immediate("128"), Immediate("1"))),
    ir.FunctionDirective(ir.FunctionDirectiveKind.NORETURN),
    ir.BranchTargets((LabelRef("A"), LabelRef("B"))),
    ir.CallTargets((Symbol("f"),)),
    CallPrototype(None, None),
    CallPrototype((PARAM,), (PARAM, PARAM), noreturn=True),
    ir.Module(()),
]


def test_the_samples_cover_every_ir_class() -> None:
    assert {type(s) for s in SAMPLES} == set(CLASSES)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_ir_class_with_trivia_declares_its_gap_names(cls: type[Node]) -> None:
    fixed = cls.__dict__.get("GAPS") is not None
    rule = "gap_names" in cls.__dict__
    assert fixed != rule, f"{cls.__name__} must set GAPS or override gap_names(), not both"
    if fixed:
        names = cls.GAPS
        assert names is not None and len(set(names)) == len(names)
        assert not cls.STATEMENT or names[-1] == TRAILING


@pytest.mark.parametrize("node", SAMPLES, ids=lambda n: type(n).__name__)
def test_names_follow_the_convention(node: Node) -> None:
    names = node.gap_names()
    assert len(set(names)) == len(names), names
    assert dict(node.gap_index()) == {n: i for i, n in enumerate(names)}
    if node.STATEMENT:
        assert names[-1] == TRAILING
    # leading, where there is one, is the first gap; trailing only ends statements.
    assert LEADING not in names or names[0] == LEADING
    assert TRAILING not in names or (node.STATEMENT and names[-1] == TRAILING)
    # A full trivia reads back name by name.
    texts = tuple(f"<{n}>" for n in names)
    filled = dataclasses.replace(node, trivia=texts)  # type: ignore[type-var]
    assert filled.gaps() == {n: f"<{n}>" for n in names}
    assert all(filled.gap(n) == f"<{n}>" for n in names)


def test_instruction_gaps_by_name() -> None:
    insn = Instruction("add", ("s32",), (R1, R2, R3), trivia=("\n\t", " ", "", "\t", "  // c"))
    assert insn.gap_names() == (
        "leading",
        "before_comma_1",
        "before_comma_2",
        "before_semicolon",
        "trailing",
    )
    assert insn.gap(LEADING) == "\n\t"
    assert insn.gap("before_comma_1") == " "
    assert insn.gap("before_semicolon") == "\t"
    assert insn.gap(TRAILING) == "  // c"
    # One operand or none: no comma gaps.
    assert Instruction("ret").gap_names() == ("leading", "before_semicolon", "trailing")
    # A guarded instruction's first gap follows the predicate, which holds the leading one.
    guarded = Instruction("bra", (), (LabelRef("L"),), Predicate(P1, True, ("\n\t", "")))
    assert guarded.gap_names()[0] == "before_opcode"
    assert guarded.predicate is not None
    assert guarded.predicate.gap_names() == ("leading", "before_bang")
    assert guarded.predicate.gap(LEADING) == "\n\t"
    with pytest.raises(KeyError, match="no gap named 'leading'"):
        guarded.gap(LEADING)


def test_gap_of_a_canonical_node_is_none() -> None:
    assert Label("L").gap(LEADING) is None
    assert Label("L").gaps() is None
    with pytest.raises(KeyError, match="before_semicolon"):
        Label("L").gap("before_semicolon")


def test_trivia_that_no_longer_fits_keeps_only_leading_and_trailing() -> None:
    insn = Instruction("add", ("s32",), (R1, R2, R3), trivia=("\n\t", " ", "", "\t", "  // c"))
    edited = dataclasses.replace(insn, operands=(R1, R2))
    assert edited.gaps() is None
    assert edited.gap(LEADING) == "\n\t"
    assert edited.gap(TRAILING) == "  // c"
    assert edited.gap("before_semicolon") is None
    moved = with_gaps(edited, leading="\n\t\t", trailing="")
    assert moved.trivia == ("\n\t\t", " ", "", "\t", "")
    with pytest.raises(ValueError, match="no longer fits"):
        with_gaps(edited, before_semicolon=" ")


def test_with_gaps_replaces_by_name() -> None:
    label = Label("L", ("\n", " ", ""))
    assert with_gaps(label, trailing="  // loop").trivia == ("\n", " ", "  // loop")
    assert with_gaps(label) is label
    # A canonical node gets every gap: the named ones, then fill, then "".
    fresh = with_gaps(Instruction("ret"), {LEADING: "\n\t"}, trailing=" // x")
    assert fresh.trivia == ("\n\t", "", " // x")
    with pytest.raises(KeyError, match="no gap named 'before_colon'"):
        with_gaps(Instruction("ret"), before_colon="")


def test_list_gap_names() -> None:
    assert comma_gaps(0) == comma_gaps(1) == ()
    assert comma_gaps(3) == ("before_comma_1", "before_comma_2")
    assert comma_gaps(2, "params_") == ("params_before_comma_1",)
    assert token_gaps(0) == ()
    assert token_gaps(3) == ("leading", "before_token_1", "before_token_2")


def test_declaration_gap_names() -> None:
    d = Declarator("buf", (4, None), 2, Immediate("0"))
    assert d.gap_names() == (
        "leading",
        "before_lt",
        "before_count",
        "before_gt",
        "before_lbracket_0",
        "before_size_0",
        "before_rbracket_0",
        "before_lbracket_1",
        "before_rbracket_1",
        "before_eq",
    )
    quals = (Linkage.VISIBLE, StateSpace.SHARED, Align(16), PtxType.B8)
    decl = VariableDecl(quals, (Declarator("a"), Declarator("b")))
    tokens = sum(len(qualifier_tokens(q)) for q in quals)
    assert tokens == 5  # .align and its number are two tokens
    assert decl.gap_names() == (*token_gaps(5), "before_comma_1", "before_semicolon", "trailing")
    assert qualifier_tokens(VarAttribute("unified", ("1", "2"))) == (
        ".attribute",
        "(",
        ".unified",
        "(",
        "1",
        ",",
        "2",
        ")",
        ")",
    )
    assert Param((), Declarator("q")).gap_names() == ()


def test_function_and_prototype_gap_names() -> None:
    f = Function(FunctionKind.FUNC, "f", (PARAM, PARAM), None, (Linkage.EXTERN,), (PARAM,))
    assert f.gap_names() == (
        "leading",
        "before_token_1",
        "returns_before_lparen",
        "returns_before_rparen",
        "before_name",
        "params_before_lparen",
        "params_before_comma_1",
        "params_before_rparen",
        "before_semicolon",
        "trailing",
    )
    kernel = Function(FunctionKind.ENTRY, "k", None, Block(()))
    assert kernel.gap_names() == ("leading", "before_name", "trailing")
    proto = CallPrototype(None, (PARAM,), noreturn=True)
    assert proto.gap_names() == (
        "leading",
        "before_sink",
        "params_before_lparen",
        "params_before_rparen",
        "before_noreturn",
        "before_semicolon",
        "trailing",
    )


def test_target_and_address_gap_names() -> None:
    assert Target(("sm_90a", "debug")).gap_names() == (
        "leading",
        "before_name_0",
        "before_comma_1",
        "before_name_1",
        "trailing",
    )
    addr = Address(Symbol("t"), Immediate("4"), "+", (R1, R2))
    assert addr.gap_names() == (
        "leading",
        "before_sign",
        "before_comma_1",
        "before_comma_2",
        "before_rbracket",
    )


def test_a_class_without_names_says_so() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Custom(Node):
        trivia: ir.Trivia = None

    with pytest.raises(NotImplementedError, match="Custom declares no gap names"):
        Custom().gap_names()
