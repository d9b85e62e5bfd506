"""alpha_equivalent: same program up to a consistent, bijective renaming."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from pyptx.codegen.alpha import AlphaResult, alpha_equivalent
from pyptx.emitter import emit
from pyptx.ir import (
    Declarator,
    Function,
    Immediate,
    Instruction,
    Label,
    LabelRef,
    Module,
    Register,
    Rewriter,
    SpecialRegister,
    Symbol,
)
from pyptx.parser import parse

SRC = """\
.version 8.5
.target sm_90a
.address_size 64

.file 1 "k.cu"
.global .align 4 .u32 counter = 7;
.global .align 8 .u64 counter_ptr = generic(counter);
.shared .align 16 .b8 smem[1024];

.func  (.param .b32 func_retval0) helper(
	.param .b32 helper_param_0
)
{
	.reg .b32 	%r<4>;
$L__func_begin0:
	ld.param.u32 	%r1, [helper_param_0];
	ld.global.u32 	%r2, [counter];
	add.s32 	%r3, %r1, %r2;
	st.param.b32 	[func_retval0+0], %r3;
	ret;
$L__func_end0:
}

.visible .entry kern(
	.param .u64 kern_param_0,
	.param .u32 kern_param_1
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<5>;
$L__func_begin1:
	.loc	1 3 0, function_name $L__info_string0
	ld.param.u64 	%rd1, [kern_param_0];
	ld.param.u32 	%r1, [kern_param_1];
	mov.u32 	%r2, %tid.x;
	setp.ge.s32 	%p1, %r2, %r1;
	@%p1 bra 	$L__BB1_2;
	mov.u32 	%r3, smem;
	add.s32 	%r4, %r3, 16;
	{
	.reg .b32 t;
	.reg .pred q;
	mov.b32 t, %r4;
	setp.eq.u32 q, t, 0;
	@q bra DONE;
	add.u32 t, t, 1;
DONE:
	}
	{
	.reg .b32 t;
	mov.b32 t, 5;
	}
	{ // callseq 0
	.param .b32 param0;
	st.param.b32 	[param0+0], %r4;
	.param .b32 retval0;
	call.uni (retval0), helper, (param0);
	ld.param.b32 	%r5, [retval0+0];
	}
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r2, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r5;
$L__BB1_2:
	ret;
$L__func_end1:
}
	.section	.debug_info
	{
.b32 .debug_abbrev
.b64 $L__func_begin0
.b64 $L__func_end0
.b64 $L__func_begin1
.b64 kern_param_1
$L__info_string0:
.b8 107,0
	}
"""


@pytest.fixture(scope="module")
def module() -> Module:
    return parse(SRC, "alpha.ptx")


class Rename(Rewriter):
    """Renames names textually, by node kind: {kind: {old: new}} (kinds: reg, sym, label).

    Registers are matched on their full name, or on a declared range prefix (%r<10> with
    {"%r": "%x"} renames %r3 to %x3).
    """

    def __init__(self, mapping: dict[str, dict[str, str]], only_in: str | None = None) -> None:
        self.mapping = mapping
        self.only_in = only_in

    def _get(self, kind: str, name: str) -> str:
        table = self.mapping.get(kind, {})
        if name in table:
            return table[name]
        if kind == "reg":
            m = re.fullmatch(r"(.*?)(\d+)", name)
            if m and m.group(1) in table:
                return table[m.group(1)] + m.group(2)
        return name

    def rewrite_Register(self, n: Register) -> Register:
        return replace(n, name=self._get("reg", n.name))

    def rewrite_Symbol(self, n: Symbol) -> Symbol:
        new = self._get("sym", n.name)
        return replace(n, name=self._get("label", new) if new == n.name else new)

    def rewrite_LabelRef(self, n: LabelRef) -> LabelRef:
        return replace(n, name=self._get("label", n.name))

    def rewrite_Label(self, n: Label) -> Label:
        return replace(n, name=self._get("label", n.name))

    def rewrite_Declarator(self, n: Declarator) -> Declarator:
        name = self._get("reg", n.name)
        return replace(n, name=self._get("sym", n.name) if name == n.name else name)

    def rewrite_Function(self, n: Function) -> Function:
        return replace(n, name=self._get("sym", n.name))


def renamed(m: Module, **mapping: dict[str, str]) -> Module:
    return Rename(mapping).rewrite(m)


class OnlyIn(Rewriter):
    """Applies a rewriter to one function only."""

    def __init__(self, fn: str, inner: Rewriter) -> None:
        self.fn = fn
        self.inner = inner

    def rewrite_Function(self, f: Function) -> Function:
        return self.inner.rewrite(f) if f.name == self.fn else f


class EditInstruction(Rewriter):
    """Replaces the first instruction whose mnemonic is ``mnemonic`` using ``edit``."""

    def __init__(self, mnemonic: str, edit) -> None:  # type: ignore[no-untyped-def]
        self.mnemonic = mnemonic
        self.edit = edit
        self.done = False

    def rewrite_Instruction(self, insn: Instruction) -> Instruction:
        if not self.done and insn.mnemonic == self.mnemonic:
            self.done = True
            return self.edit(insn)  # type: ignore[no-any-return]
        return insn


def edited(m: Module, mnemonic: str, edit) -> Module:  # type: ignore[no-untyped-def]
    rw = EditInstruction(mnemonic, edit)
    out = rw.rewrite(m)
    assert rw.done, f"no {mnemonic} in the module"
    return out


# ---------------------------------------------------------------------------- accepts


def test_result_type_and_truthiness(module: Module) -> None:
    yes = alpha_equivalent(module, module)
    assert isinstance(yes, AlphaResult)
    assert yes.equivalent and bool(yes) and yes.reason == ""
    no = AlphaResult(False, "x")
    assert not no


def test_module_vs_itself_and_canonical_reparse(module: Module) -> None:
    assert alpha_equivalent(module, module)
    again = parse(emit(module, canonical=True))
    assert alpha_equivalent(module, again)


def test_trivia_is_ignored(module: Module) -> None:
    spaced = parse(SRC.replace("\tadd.s32 \t%r3", "  add.s32   %r3  ").replace(";\n", "; // c\n"))
    assert alpha_equivalent(module, spaced)


def test_consistent_renaming_of_every_namespace(module: Module) -> None:
    other = renamed(
        module,
        reg={"%r": "%x", "%rd": "%q", "%p": "%pp", "t": "tt", "q": "qq"},
        sym={
            "counter": "cnt",
            "smem": "buf",
            "helper": "h",
            "helper_param_0": "a0",
            "kern_param_0": "out",
            "kern_param_1": "n",
            "param0": "arg",
            "retval0": "ret_",
        },
        label={
            "$L__BB1_2": "BB2",
            "DONE": "done",
            "$L__func_begin0": "fb0",
            "$L__func_end0": "fe0",
            "$L__func_begin1": "fb1",
            "$L__info_string0": "info",
        },
    )
    assert emit(other) != emit(module)
    result = alpha_equivalent(module, other)
    assert result, result.reason


def test_entry_name_may_be_renamed_consistently(module: Module) -> None:
    assert alpha_equivalent(module, renamed(module, sym={"kern": "k2"}))


def test_register_range_renaming_maps_every_index(module: Module) -> None:
    other = renamed(module, reg={"%r": "%v"})
    assert "%v4" in emit(other) and "%r4" not in emit(other)
    assert alpha_equivalent(module, other)


def test_registers_are_scoped_per_function(module: Module) -> None:
    other = OnlyIn("helper", Rename({"reg": {"%r": "%h"}})).rewrite(module)
    assert alpha_equivalent(module, other)


def test_same_name_in_sibling_blocks_may_be_renamed_apart(module: Module) -> None:
    text = emit(module)
    first, rest = text.split(".reg .b32 t;", 1)
    body, tail = rest.split("}", 1)
    other = parse(first + ".reg .b32 u;" + re.sub(r"\bt\b", "u", body) + "}" + tail)
    assert alpha_equivalent(module, other)


def test_permuted_range_index_is_rejected(module: Module) -> None:
    swapped = renamed(module, reg={"%r3": "%r9"})
    result = alpha_equivalent(module, swapped)
    assert not result
    assert "%r3" in result.reason and "%r9" in result.reason


# ---------------------------------------------------------------------------- rejects


def test_non_bijective_symbols_are_rejected(module: Module) -> None:
    result = alpha_equivalent(module, renamed(module, sym={"counter": "smem"}))
    assert not result
    assert "bijection" in result.reason


def test_non_bijective_params_are_rejected(module: Module) -> None:
    result = alpha_equivalent(module, renamed(module, sym={"kern_param_1": "kern_param_0"}))
    assert not result


def test_non_bijective_labels_are_rejected(module: Module) -> None:
    other = renamed(module, label={"$L__func_begin1": "$L__BB1_2"})
    assert not alpha_equivalent(module, other)


def test_two_registers_merged_are_rejected(module: Module) -> None:
    merged = renamed(module, reg={"%r3": "%r4"})
    assert not alpha_equivalent(module, merged)


def test_swapped_operands_are_rejected(module: Module) -> None:
    def swap(insn: Instruction) -> Instruction:
        d, a, b = insn.operands
        return replace(insn, operands=(d, b, a))

    result = alpha_equivalent(module, edited(module, "add.s32", swap))
    assert not result
    assert "function helper" in result.reason
    assert "statement" in result.reason
    assert "add.s32" in result.reason


def test_changed_opcode_is_rejected(module: Module) -> None:
    other = edited(module, "add.s32", lambda i: replace(i, opcode="sub"))
    result = alpha_equivalent(module, other)
    assert not result and "sub.s32" in result.reason


def test_changed_modifier_is_rejected(module: Module) -> None:
    other = edited(module, "setp.ge.s32", lambda i: replace(i, modifiers=("gt", "s32")))
    assert not alpha_equivalent(module, other)


def test_changed_immediate_is_rejected(module: Module) -> None:
    def bump(insn: Instruction) -> Instruction:
        d, a, _ = insn.operands
        return replace(insn, operands=(d, a, Immediate("17")))

    assert not alpha_equivalent(module, edited(module, "add.s32", bump))
    assert alpha_equivalent(module, edited(module, "add.s32", lambda i: i))


def test_renamed_special_register_is_rejected(module: Module) -> None:
    def retarget(insn: Instruction) -> Instruction:
        d, _ = insn.operands
        return replace(insn, operands=(d, SpecialRegister("%tid.y")))

    other = edited(module, "mov.u32", retarget)
    assert not alpha_equivalent(module, other)


def test_special_register_vs_register_is_rejected(module: Module) -> None:
    def retarget(insn: Instruction) -> Instruction:
        d, _ = insn.operands
        return replace(insn, operands=(d, Register("%r9")))

    assert not alpha_equivalent(module, edited(module, "mov.u32", retarget))


def test_dangling_reference_is_rejected(module: Module) -> None:
    class DeclOnly(Rewriter):
        def rewrite_Declarator(self, n: Declarator) -> Declarator:
            return replace(n, name="cnt") if n.name == "counter" else n

    assert not alpha_equivalent(module, DeclOnly().rewrite(module))


def test_global_renamed_in_one_function_only_is_rejected(module: Module) -> None:
    other = OnlyIn("helper", Rename({"sym": {"counter": "cnt"}})).rewrite(module)
    assert not alpha_equivalent(module, other)


def test_label_renamed_without_its_debug_reference_is_rejected(module: Module) -> None:
    class LabelOnly(Rewriter):
        def rewrite_Label(self, n: Label) -> Label:
            return replace(n, name="fb1") if n.name == "$L__func_begin1" else n

    result = alpha_equivalent(module, LabelOnly().rewrite(module))
    assert not result
    assert "$L__func_begin1" in result.reason


def test_param_renamed_without_its_debug_reference_is_rejected(module: Module) -> None:
    class DeclOnly(Rewriter):
        def rewrite_Declarator(self, n: Declarator) -> Declarator:
            return replace(n, name="n") if n.name == "kern_param_1" else n

        def rewrite_Symbol(self, n: Symbol) -> Symbol:
            return replace(n, name="n") if n.name == "kern_param_1" else n

    only_body = OnlyIn("kern", DeclOnly()).rewrite(module)
    assert not alpha_equivalent(module, only_body)
    everywhere = renamed(module, sym={"kern_param_1": "n"})
    assert ".b64 n\n" in emit(everywhere)
    assert alpha_equivalent(module, everywhere)


def test_section_reference_to_another_label_is_rejected(module: Module) -> None:
    text = SRC.replace(".b64 $L__func_begin1", ".b64 $L__func_end1")
    assert not alpha_equivalent(module, parse(text))


def test_free_names_must_stay(module: Module) -> None:
    text = SRC.replace(".b32 .debug_abbrev", ".b32 .debug_line")
    assert not alpha_equivalent(module, parse(text))


def test_shadowing_change_is_rejected(module: Module) -> None:
    # Renaming the inner block's `t` to `%r4` makes `mov.b32 t, %r4` read the inner register.
    text = emit(module)
    first, rest = text.split(".reg .b32 t;", 1)
    body, tail = rest.split("}", 1)
    other = parse(first + ".reg .b32 %r4;" + re.sub(r"\bt\b", "%r4", body) + "}" + tail)
    assert not alpha_equivalent(module, other)


def test_extra_statement_is_rejected(module: Module) -> None:
    text = SRC.replace("\tret;\n$L__func_end1:", "\tret;\n\tret;\n$L__func_end1:")
    result = alpha_equivalent(module, parse(text))
    assert not result
    assert "statements" in result.reason


def test_is_symmetric_on_a_rejection(module: Module) -> None:
    other = renamed(module, sym={"counter": "smem"})
    assert not alpha_equivalent(other, module)


def test_large_module_is_checked(module: Module) -> None:
    body = "".join(f"\tadd.s32 \t%r{i % 9 + 1}, %r{(i + 1) % 9 + 1}, {i};\n" for i in range(5000))
    text = SRC.replace("\tmov.u32 \t%r2, %tid.x;\n", "\tmov.u32 \t%r2, %tid.x;\n" + body)
    big = parse(text)
    assert alpha_equivalent(big, renamed(big, reg={"%r": "%z"}))
    assert not alpha_equivalent(big, parse(text.replace(", 4999;", ", 4998;")))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (".b8 107,0", ".b8 107,1"),  # a number of a data line
        (".b8 107,0", ".b16 107,0"),  # its type
        (".b8 107,0", ".b8 107,0,0"),  # its length
        (".b64 kern_param_1", ".b64 1"),  # a reference vs a number
    ],
)
def test_changed_section_data_is_rejected(module: Module, old: str, new: str) -> None:
    result = alpha_equivalent(module, parse(SRC.replace(old, new)))
    assert not result
    assert "section" in result.reason or "statement" in result.reason


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("[retval0+0]", "[retval0+4]"),  # the offset
        ("[retval0+0]", "[retval0-0]"),  # the sign
        ("[retval0+0]", "[param0+0]"),  # the base, renamed inconsistently
        ("st.global.u32 \t[%rd4]", "st.global.u32 \t[%rd4+0]"),  # an offset added
    ],
)
def test_changed_address_is_rejected(module: Module, old: str, new: str) -> None:
    assert old in SRC
    assert not alpha_equivalent(module, parse(SRC.replace(old, new)))


def test_renamed_address_base_and_section_reference_are_accepted(module: Module) -> None:
    # The fast paths for addresses and data lines still resolve names, not spellings.
    other = renamed(module, sym={"kern_param_1": "n", "retval0": "rv"}, reg={"%rd": "%a"})
    assert "[rv+0]" in emit(other) and ".b64 n" in emit(other)
    assert alpha_equivalent(module, other)
