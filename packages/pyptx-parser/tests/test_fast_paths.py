"""The parser's one-line fast paths build exactly the trees the general rules build."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest
from ptxas_tools import corpus_files, corpus_id, read

from pyptx.ir import Node
from pyptx.parser._module import parse_module


def _full(value: Any) -> Any:
    """The tree as nested tuples, trivia included (``==`` on nodes ignores trivia)."""
    if isinstance(value, Node):
        return (
            type(value).__name__,
            *((f.name, _full(getattr(value, f.name))) for f in fields(value)),  # type: ignore[arg-type]
        )
    if isinstance(value, tuple):
        return tuple(_full(v) for v in value)
    return value


@pytest.mark.parametrize("path", corpus_files(), ids=corpus_id)
def test_fast_and_general_paths_agree(path) -> None:  # type: ignore[no-untyped-def]
    text = read(path)
    fast = parse_module(text, str(path), fast=True)
    slow = parse_module(text, str(path), fast=False)
    assert _full(fast) == _full(slow)


_HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"
_BODIES = [
    # declarations: ranges, bare names (declared registers change later lines), arrays, align
    "\t.reg .b32 %r<3>;\n\t.reg .b64 temp_param_reg;\n\tmov.b64 temp_param_reg, 1;\n",
    "\t.reg .b32 x<4>;\n\tmov.b32 x3, x1;\n\tmov.b32 x7, x1;\n",
    "\t.reg.b32 %r<3>;\n\t.reg .b32  %r<3> ;  // c\n\t.reg .b32 %a, %b;\n",
    "\t.local .align 8 .b8 \t__local_depot0[16];\n\t.shared .align 16 .b8 s[1024] ;\n",
    "\t.reg .b32 r [ 4 ];\n\t.reg .v4 .b32 v;\n\t.param .b64 param0;\n\t.param .b64 param0;\n",
    # instructions the looser mnemonic pattern must hand on
    "\tL1: mov.u32 %r1, %r2;\n\tcp.async.bulk.shared::cluster.b32 [%r1], %r2; // x\n",
    "\tmov.u32 %r1, generic;\n\tbra L1;\nL1:\n\tbra L1;\n\tbra \tL1;\n",
    # repeated lines after blank lines, comments and two statements on one line
    "\tret;\n\n\tret;\n\t// c\n\tret;\n\tret; ret;\n\tret;\n\tret;",
    "\tmov.u32 %r1, %r2;\r\n\tmov.u32 %r1, %r2;\r\n",
    # nvcc's layout '<mnemonic> <tab><operands>;' and lines that only look like it
    "\tadd.s32 \t%r1, %r2, 4;\n  \tadd.s32 \t%r1, %r2;\n\tadd.s32 \t%r1, %r2 ;\n",
    "\tmov.u32 \t%r1, $L1;\n$L1:\n\tbra.uni \t$L__BB0_1;\n$L__BB0_1:\n\tbra.uni \t$L1;\n",
    "\tadd.s32 \t%r1, %r2; add.s32 \t%r3, %r4;\n\tadd.s32 \t%r1, %r2; // c\n",
    "\tmov.b64 \t{%r1, %r2}, %rd3;\n\t@%p1 add.s32 \t%r1, %r2;\n\tadd.s32 \t%r1, %r2;\r\n",
    "\tld.global.u32 \t%r1, [%rd1+4];\n\tst.shared.u32 \t[x], %r1;\n\tmov.u32 \t%r1, _;\n",
    "\tret \t;\n\tmov.u32 \t%r1, generic;\n\tcall.uni \tf, (p);\n\tcall \tf;\n",
    "\t@%p1 bra \t$L1;\n\t@!%p1 bra.uni\t$L1;\n\t@ ! %p1  add.s32 \t%r1, %r2;\n$L1:\n",
    "\t.reg .pred p;\n\t@p bra \t$L1;\n\t@%clock add.s32 \t%r1, 1;\n$L1:\n\t@%p1 call \tf;\n",
    "\txor.b32  \t%r1, %r2, 3;\nadd.s32\t%r1, %r2;\n\t\tadd.s32 \t%r1, %r2;\n",
    "\tld.param.v2.b32 \t{%r1, %r2}, [p];\n\tmov.b64 \t{_, %r3}, %rd1;\n",
    "\tmov.b64 \t{%r1,,}, %rd1;\n",
    "\tadd.s32 %r1,\t%r2;\n\t@%p1 ret\t;\n\tmov.u32 \t%r1, %tid.x;\n",
    # Triton's layout (one space after the mnemonic) and look-alikes
    "    mov.u32 %r1, 0;\n    ld.param.v2.b32 {%r1, %r2}, [p+8];\n\tld.param.b32 %r3, [p];\n",
    "    mov.u32  %r1, %r2;\n    @%p1 bra $L1;\n$L1:\n    ret;\n    ret ;\n\tmov.u32 %r1,%r2;\n",
    "    mov.u32 %r1 %r2;\n",
    "    mov.u32 { %r1 , %r2 } , %rd1;\n    mov.u32 {%r1, {%r2}}, %rd1;\n",
    "\tadd..s32 \t%r1, %r2;\n",
    "\t@%p1 add..s32 \t%r1, %r2;\n",
    "\tmov.b64 \t{%r1, %r2, %rd1;\n",
    "\tadd.s32 \t%r1,, %r2;\n",
    "\tadd.s32 \t%r1, %r2:\n",
    '\tadd.s32 \t%r1, "s";\n',
    # calls: over several lines, empty lists, registers, numbers, prototypes, CRLF
    "\tcall.uni (retval0), \n\tf, \n\t(\n\tparam0, \n\tparam1\n\t);\n\tcall.uni f, ();\n",
    "\tcall.uni (), f;\n\tcall f, (%r1, 1);\n\tcall.uni (r), f, (p), proto;\n\tcall (a, b), f;\n",
    "\tcall.uni f, (p\r\n\t);\r\n\tcall.uni%r1, (p);\n\tcall.uni f , ( p ) ;\n",
    "\t.reg .b32 rr;\n\tcall.uni (rr), f, (L2, %tid.x);\nL2:\n\tcall.uni (L2), L2;\n",
    "\tcall.uni f, (p);\n\tcall.uni f, (p);\n\t@%p1 call.uni f, (p);\n",
    # calls the fast path hands on: the general rules parse or reject them
    "\tcall.uni generic, (p);\n\tcall.uni _, (p);\n\tcall.uni f, ((p));\n",
    "\tcall.uni (retval0) f, (p);\n",
    "\tcall.uni f, (p,);\n",
    "\tcall.uni f, (p;\n",
    "\tcall.uni f, p);\n",
    "\tcall.uni f,, (p);\n",
    # statements after blank lines (with CR, spaces, tabs) and comment lines
    "\tret;\n\n\tadd.s32 \t%r1, %r2;\n\n$L1:\n\r\n\r\n$L2:\n \t\n$L3:\n\n\tL4:\n\n\n",
    "\tret;\n\n\tadd.s32 %r1, %r2;\n\n\tadd.s32 %r1, %r2;\n\t// c\n\tadd.s32 %r1, %r2;\n\n",
    # labels and .loc lines in nvcc's layout, and lines that only look like them
    "$L__BB0_1:\n\t.loc\t1 2 3\n\t.loc\t1 2 3\n%L1:\ngeneric:\n_a$b:\n\t.loc\t1 2  3\n",
    "\t.loc\t1 2 3,\n",
    "\t.loc\t1 2 3 4\n",
    "$L1: //x\n\t$L2:\n\t.loc\t1 2 3 // c\n\t.loc\t1 2 3\r\n\t.loc\t1 2 \u0663\n",
    "9L:\n",
    # labels and .loc lines
    "$L__BB0_1:\n\t.loc\t1 2 3\n$L__BB0_2 :\n\t.loc 1 2 3 // c\n\t.loc\t1 2 3, inlined_at 1 2 3\n",
    # a space before the comma of the inlined_at attribute
    "\t.loc 1 2 3 ,  inlined_at 1 4 5\n\t.loc\t1 2 3\t, inlined_at 1 4 5\n",
    "$L1::\n",
    # braces of blocks and callseq comments
    "\t{ // callseq 1, 0\n\t.reg .b32 temp_param_reg;\n\tret;\n\t} // callseq 1\n\t{\n\t}\n",
]
_MODULES = [
    # parameter lists: arrays, align, ptr, line breaks and comments between parameters
    ".entry k(\n\t.param .u64 k_param_0,\n\t.param .align 8 .b8 k_param_1[16],\n"
    "\t.param .u64 .ptr .global .align 16 k_param_2\n)\n{\n\tret;\n}\n",
    ".func (.param .b32 r) f(.param .b32 a /* c */, .param .b32 b[2][3], .param .b32 c<2>)\n"
    "{\n\tret;\n}\n",
    # initializer lists: numbers over several lines, nested, negative, expressions
    ".global .align 1 .b8 s[4] = {72, 101,\n\t108, 0};\n.global .b32 t[2] = { 1 ,2 };\n",
    ".global .b32 u[2][2] = {{1, 2}, {3, 4}};\n.global .b32 v[3] = {1, -2, 3 + 4};\n",
    ".global .b32 w[2] = {1,, 2};\n",
    # section data in nvcc's layout, and lines that only look like it
    ".section .debug_info\n{\n.b8 1,2\n.b8 1,2\n.b32 .debug_abbrev\n.b64 $L1\n.b8 1 // c\n}\n",
    ".section .debug_info\n{\n.b8 1,,2\n}\n",
    ".section .debug_info\n{\n.b8x\n}\n",
    ".section .debug_info\n{\n.b8\n}\n",
    ".section .debug_info\n{\n.b8 1\r\n.b8  2\n\t.b8 3\n.b8 (1)\n.b8 -1\n.b8 0x1f\n}\n",
    ".section .debug_info\n{\n.bogus 1\n}\n",
    # a section's line seen again in a later section
    ".section .debug_abbrev\n{\n.b8 1\n.b8 1\n}\n.section .debug_info\n{\n.b8 1\n.b32 $L1\n}\n",
    # several directives to a line, as the transpiler packs section data, and look-alikes
    ".section .debug_loc\n{\n.b64 $L1 .b64 $L2 .b8 6 .b8 0\n.b8 6 .b8 0 .b8 1\n.b8 6 .b8 0\n}\n",
    ".section .debug_loc\n{\n.b8 1, 2 .b8 3\t.b8 4  \t.b16 5 // c\n.b32 $L1+4 .b8 1\n}\n",
    ".section .debug_loc\n{\n.b8 1 .b8 1 .b8 1\n.b8 1 .b8 1\n.b8 1\n}\n",
    ".section .debug_loc\n{\n.b8 1 $L1: .b8 2\n.b8 1 .bogus 2\n}\n",
    ".section .debug_loc\n{\n.b8 1 .b8\n}\n",
    ".section .debug_loc\n{\n.b8 1 .b8 2 .\n}\n",
    ".section .debug_loc\n{\n.f32 1.5 .b8 2\n.b8 1 2 .b8 3\n.b8 (1) .b8 2\n}\n",
]


def _agree(text: str) -> None:
    try:
        slow = parse_module(text, "t.ptx", fast=False)
    except Exception as err:  # the fast paths must fail the same way
        with pytest.raises(type(err)) as info:
            parse_module(text, "t.ptx", fast=True)
        assert str(info.value) == str(err)
        return
    assert _full(parse_module(text, "t.ptx", fast=True)) == _full(slow)


@pytest.mark.parametrize("body", _BODIES)
def test_fast_paths_agree_in_bodies(body: str) -> None:
    _agree(_HEAD + ".entry k()\n{\n" + body + "\n}\n")


@pytest.mark.parametrize("text", _MODULES)
def test_fast_paths_agree_at_module_scope(text: str) -> None:
    _agree(_HEAD + text)


_SECTION_FILES = [p for p in corpus_files() if ".section" in read(p)]


def _packed(text: str, per_line: int) -> str:
    """``text`` with the data lines of its sections joined ``per_line`` to a line."""
    out: list[str] = []
    run: list[str] = []
    for line in text.split("\n"):
        if line.startswith(".b") and not line.rstrip().endswith(":"):
            run.append(line)
            if len(run) < per_line:
                continue
        if run:
            out.append(" ".join(run))
            run = []
        if not line.startswith(".b"):
            out.append(line)
    if run:
        out.append(" ".join(run))
    return "\n".join(out)


@pytest.mark.parametrize("path", _SECTION_FILES, ids=corpus_id)
def test_fast_paths_agree_on_packed_section_data(path) -> None:  # type: ignore[no-untyped-def]
    from pyptx.emitter import emit

    text = _packed(emit(parse_module(read(path), str(path)), canonical=True), 7)
    assert " .b8 " in text or " .b64 " in text or " .b32 " in text  # packing happened
    _agree(text)
