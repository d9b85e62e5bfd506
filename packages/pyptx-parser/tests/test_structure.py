"""The parser builds structured IR: every construct lands in typed fields, never raw text."""

from __future__ import annotations

from pyptx.emitter import emit
from pyptx.ir import (
    Address,
    Align,
    BinaryExpr,
    BraceList,
    BranchTargets,
    CallPrototype,
    CallTargets,
    FieldInit,
    File,
    FunctionDirectiveKind,
    FunctionKind,
    GenericAddress,
    Immediate,
    Instruction,
    Label,
    LabelRef,
    Linkage,
    Loc,
    LocFunctionName,
    LocInlinedAt,
    Negated,
    ParenList,
    Pragma,
    PredPair,
    PtrQualifier,
    PtxType,
    Register,
    Section,
    SectionData,
    Sink,
    SpecialRegister,
    StateSpace,
    Symbol,
    VarAttribute,
    VariableDecl,
    VectorOperand,
    VectorWidth,
)
from pyptx.parser import parse

SOURCE = """\
//
// a module exercising the directives of PTX ISA chapter 11
//
.version 8.7
.target sm_90a, texmode_independent, debug
.address_size 64

.file 1 "/src/k.cu", 1700000000, 4096
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 a, .param .b64 b);
.weak .global .align 8 .u64 table[2][3] = {{1, 2, 3}, {4, 5, 6}};
.common .global .u32 counter;
.global .u64 ptr = generic(counter)+4;
.const .f32 consts[] = {0f3F800000, 1.5};
.extern .shared .align 16 .b8 dyn_smem[];
.global .attribute(.managed) .align 4 .b32 managed_var;
.global .samplerref smp = { addr_mode_0 = clamp_to_edge, filter_mode = linear };
.global .v4 .f32 vec4;
.alias f_alias, helper;
.pragma "nounroll";

.visible .func (.param .b32 ret) helper(.param .b32 x) .noreturn
{
	ret;
}

.visible .entry k(
	.param .u64 .ptr .global .align 16 k_param_0,
	.param .align 8 .b8 k_param_1[16]
)
.maxntid 128, 1, 1
.minnctapersm 2
.maxnreg 64
.reqnctapercluster 2, 1, 1
.explicitcluster
.maxclusterrank 8
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<8>, extra_a, extra_b;
	.reg .b64 	%rd<4>;
	.loc	1 12 5, function_name $L__info_string0, inlined_at 1 40 7
	mov.u32 	%r1, %tid.x;
	setp.lt.u32 	%p1|%p2, %r1, 32;
	@!%p1 bra 	$L__BB0_2;
	ld.global.nc.L2::128B.v4.f32 	{%r2, %r3, _, %r4}, [%rd1+-16];
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes \
[%r5], [%rd2, {%r6, %r7}], [%r1];
	and.pred 	%p1, %p1, !%p2;
	mov.u64 	%rd3, table+8;
	{
		.reg .b32 inner;
		mov.b32 inner, extra_a;
	}
$L__BB0_2:
	prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);
	call.uni (retval0), vprintf, (param0, param1);
	$L__tbl: .branchtargets $L__BB0_2, $L__BB0_2;
	$L__ct: .calltargets helper;
	ret;
}

.section	.debug_abbrev
{
.b8 1                                   // Abbreviation Code
.b32 .debug_abbrev
$L__info_string0:
.b8 107,0
.b64 $L__BB0_2-$L__BB0_2
}
"""


def test_round_trips() -> None:
    assert emit(parse(SOURCE)) == SOURCE


def test_header() -> None:
    m = parse(SOURCE)
    assert m.version == (8, 7)
    assert m.targets == ("sm_90a", "texmode_independent", "debug")
    assert m.address_size == 64
    f = next(s for s in m.statements if isinstance(s, File))
    assert (f.index, f.path.text, [e.value for e in f.extras]) == (
        1,
        "/src/k.cu",
        [1700000000, 4096],
    )


def test_globals() -> None:
    m = parse(SOURCE)
    g = {d.declarators[0].name: d for d in m.globals}
    table = g["table"]
    assert table.linkage == (Linkage.WEAK,)
    assert table.state_space is StateSpace.GLOBAL and table.align == 8
    assert table.declarators[0].dims == (2, 3)
    init = table.declarators[0].initializer
    assert isinstance(init, BraceList) and isinstance(init.items[1], BraceList)
    assert [i.value for i in init.items[1].items] == [4, 5, 6]  # type: ignore[union-attr]
    assert g["counter"].linkage == (Linkage.COMMON,)
    ptr_init = g["ptr"].declarators[0].initializer
    assert isinstance(ptr_init, BinaryExpr) and isinstance(ptr_init.lhs, GenericAddress)
    assert ptr_init.lhs.operand == Symbol("counter")
    assert g["consts"].declarators[0].dims == (None,)
    assert g["dyn_smem"].linkage == (Linkage.EXTERN,)
    assert g["dyn_smem"].state_space is StateSpace.SHARED
    assert VarAttribute("managed") in g["managed_var"].qualifiers
    smp = g["smp"].declarators[0].initializer
    assert isinstance(smp, BraceList) and smp.items[1] == FieldInit("filter_mode", Symbol("linear"))
    assert g["vec4"].vector == 4 and VectorWidth(4) in g["vec4"].qualifiers


def test_functions_and_params() -> None:
    m = parse(SOURCE)
    vprintf, helper, k = m.functions
    assert vprintf.body is None and vprintf.linkage == (Linkage.EXTERN,)
    assert [p.name for p in vprintf.params or ()] == ["a", "b"]
    assert helper.kind is FunctionKind.FUNC
    assert [p.name for p in helper.returns or ()] == ["ret"]
    assert [d.kind for d in helper.directives] == [FunctionDirectiveKind.NORETURN]  # type: ignore[attr-defined]
    p0, p1 = k.params or ()
    assert p0.qualifiers == (
        StateSpace.PARAM,
        PtxType.U64,
        PtrQualifier(),
        StateSpace.GLOBAL,
        Align(16),
    )
    assert p1.declarator.dims == (16,) and p1.align == 8
    kinds = [d.kind for d in k.directives]  # type: ignore[attr-defined]
    assert kinds == [
        FunctionDirectiveKind.MAXNTID,
        FunctionDirectiveKind.MINNCTAPERSM,
        FunctionDirectiveKind.MAXNREG,
        FunctionDirectiveKind.REQNCTAPERCLUSTER,
        FunctionDirectiveKind.EXPLICITCLUSTER,
        FunctionDirectiveKind.MAXCLUSTERRANK,
    ]
    assert [v.value for v in k.directives[0].values] == [128, 1, 1]  # type: ignore[attr-defined]


def test_body() -> None:
    m = parse(SOURCE)
    k = m.function("k")
    stmts = k.statements
    regs = stmts[1]
    assert isinstance(regs, VariableDecl)
    assert [d.name for d in regs.declarators] == ["%r", "extra_a", "extra_b"]
    assert regs.declarators[0].range_count == 8
    loc = stmts[3]
    assert isinstance(loc, Loc) and (loc.file, loc.line, loc.column) == (1, 12, 5)
    assert loc.attributes == (LocFunctionName(Symbol("$L__info_string0")), LocInlinedAt(1, 40, 7))
    insns = [s for s in stmts if isinstance(s, Instruction)]
    mov, setp, bra, ld, cp, andp, mov2, call, ret = insns
    assert mov.operands == (Register("%r1"), SpecialRegister("%tid.x"))
    assert setp.operands[0] == PredPair(Register("%p1"), Register("%p2"))
    assert bra.predicate is not None and bra.predicate.negated
    assert bra.operands == (LabelRef("$L__BB0_2"),)
    assert ld.modifiers == ("global", "nc", "L2::128B", "v4", "f32")
    assert ld.operands[0] == VectorOperand(
        (Register("%r2"), Register("%r3"), Sink(), Register("%r4"))
    )
    assert ld.operands[1] == Address(Register("%rd1"), Immediate("-16"), "+")
    assert cp.opcode == "cp"
    assert (
        cp.modifiers[4] == "shared::cluster" and cp.modifiers[-1] == "mbarrier::complete_tx::bytes"
    )
    tensor = cp.operands[1]
    assert isinstance(tensor, Address) and tensor.extra == (
        VectorOperand((Register("%r6"), Register("%r7"))),
    )
    assert andp.operands[2] == Negated(Register("%p2"))
    assert mov2.operands[1] == BinaryExpr("+", Symbol("table"), Immediate("8"))
    inner_block = stmts[stmts.index(mov2) + 1]
    inner = inner_block.statements[1]  # type: ignore[attr-defined]
    assert inner.operands == (Register("inner"), Register("extra_a"))
    assert isinstance(call.operands[0], ParenList) and call.operands[1] == Symbol("vprintf")
    proto = next(s for s in stmts if isinstance(s, CallPrototype))
    assert [p.type for p in proto.returns or ()] == [PtxType.B32]
    assert [p.name for p in proto.params or ()] == ["_"]
    bt = next(s for s in stmts if isinstance(s, BranchTargets))
    assert bt.labels == (LabelRef("$L__BB0_2"), LabelRef("$L__BB0_2"))
    ct = next(s for s in stmts if isinstance(s, CallTargets))
    assert ct.functions == (Symbol("helper"),)
    assert [s.name for s in stmts if isinstance(s, Label)] == [
        "$L__BB0_2",
        "prototype_0",
        "$L__tbl",
        "$L__ct",
    ]
    assert ret.operands == ()


def test_pragma_and_section() -> None:
    m = parse(SOURCE)
    pragma = next(s for s in m.statements if isinstance(s, Pragma))
    assert [v.text for v in pragma.values] == ["nounroll"]
    sec = next(s for s in m.statements if isinstance(s, Section))
    assert sec.name == ".debug_abbrev"
    data = [i for i in sec.items if isinstance(i, SectionData)]
    assert data[0].type is PtxType.B8 and data[0].values == (Immediate("1"),)
    assert data[1].values == (Symbol(".debug_abbrev"),)
    assert [v.value for v in data[2].values] == [107, 0]  # type: ignore[union-attr]
    assert isinstance(data[3].values[0], BinaryExpr)
    assert [i.name for i in sec.items if isinstance(i, Label)] == ["$L__info_string0"]


def test_forward_label_reference_is_a_label() -> None:
    src = (
        ".version 8.0\n.target sm_80\n.entry k()\n{\n\t.reg .b64 %rd<2>;\n"
        "\tmov.u64 %rd1, later;\n\tbra.uni later;\nlater:\n\tret;\n}\n"
    )
    insns = [s for s in parse(src).functions[0].statements if isinstance(s, Instruction)]
    assert insns[0].operands[1] == LabelRef("later")
    assert insns[1].operands[0] == LabelRef("later")


def test_crlf_and_comments_are_kept() -> None:
    src = ".version 8.0\r\n.target sm_80 /* c */\r\n.entry k() // x\r\n{\r\n\tret; // done\r\n}\r\n"
    assert emit(parse(src)) == src


def test_sink_in_a_predicate_pair() -> None:
    src = ".version 8.0\n.target sm_90a\n.entry k()\n{\n\telect.sync _|%p0, 0xffffffff;\n}\n"
    insn = parse(src).functions[0].statements[0]
    assert isinstance(insn, Instruction)
    assert insn.operands[0] == PredPair(Sink(), Register("%p0"))
    assert emit(parse(src)) == src
