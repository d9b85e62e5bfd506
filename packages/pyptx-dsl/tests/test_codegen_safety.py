"""Untrusted PTX can never become executable Python in the transpiler's output.

Every name from the PTX becomes a sanitized identifier and every piece of text (comments,
strings, statement text, the layout) a string literal. Checked three ways: the generated
module re-emits the hostile input exactly; executing it never runs the payload; and its AST
holds only the node kinds and names the generator itself writes.
"""

from __future__ import annotations

import ast
import builtins

import pytest
from codegen_testing import run_generated
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from pyptx.codegen import ptx_to_python
from pyptx.codegen._literals import comment, identifier, string

PAYLOAD = "__import__('builtins').__dict__.__setitem__('PYPTX_PWNED', 1)"

HOSTILE = (
    f'''//\t""" ; {PAYLOAD} ; """
// '''
    + "''' ; "
    + PAYLOAD
    + ''' ; \'\'\'
/* multi-line comment
"""
{PAYLOAD}
# -*- coding: utf-16 -*-
\\
*/
.version 8.0
.target sm_90a
.address_size 64
.file 1 "evil\\"\\"\\" ; {PAYLOAD} ; \\"\\"\\".cu"
.global .align 4 .u32 __import__ = 1;
.global .align 4 .u32 $ptx;
.global .align 4 .u32 module;
.global .align 4 .u32 PtxModule;
.global .align 4 .u32 None;
.global .align 4 .u32 __builtins__;

.visible .entry exec(.param .u64 print, .param .u64 __name__)
{{
\t.reg .b32 %True<3>;
\t.reg .b64 %range<2>;
\t.reg .pred %__class__;
\tld.param.u64 %range1, [print];  // ); {PAYLOAD}; (
\tmov.u32 %True1, __import__;
\t.pragma "nounroll\\" ; {PAYLOAD} ; \\"";
$L__import__:
\t@%__class__ bra $L__import__;
\tret;
}}
'''.replace("{PAYLOAD}", PAYLOAD)
)

ALLOWED_NODES = (
    ast.Module, ast.Expr, ast.Assign, ast.FunctionDef, ast.arguments, ast.arg, ast.Call,
    ast.Attribute, ast.Name, ast.Load, ast.Store, ast.Constant, ast.List, ast.ListComp,
    ast.comprehension, ast.With, ast.withitem, ast.Tuple, ast.Subscript, ast.UnaryOp,
    ast.Invert, ast.USub, ast.keyword, ast.If, ast.Compare, ast.Eq, ast.Pass, ast.ImportFrom,
    ast.alias,
)  # fmt: skip


def assert_structurally_safe(code: str) -> None:
    """Only generator-written constructs: no PTX text outside string constants."""
    tree = ast.parse(code)
    assigned = {"ptx", "module", "PtxModule", "range", "i", "__name__"}
    for node in ast.walk(tree):
        assert isinstance(node, ALLOWED_NODES), ast.dump(node)
        if isinstance(node, ast.ImportFrom):
            assert node.module == "pyptx" and [a.name for a in node.names] == ["PtxModule", "ptx"]
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            assigned.add(node.id)
        if isinstance(node, (ast.FunctionDef, ast.arg)):
            assigned.add(node.name if isinstance(node, ast.FunctionDef) else node.arg)
        if isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
            assigned.add(node.optional_vars.id)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert used <= assigned, used - assigned
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value  # type: ignore[assignment]
            assert isinstance(root, (ast.Name, ast.Call, ast.Subscript)), ast.dump(node)
            if isinstance(root, ast.Name):
                assert root.id in {"ptx", "module"}, root.id


def test_hostile_ptx_round_trips_without_running_anything() -> None:
    code = ptx_to_python(HOSTILE, source_name='x.ptx\n__import__("os")  # coding: utf-16')
    assert code.isascii()
    assert_structurally_safe(code)
    assert not hasattr(builtins, "PYPTX_PWNED")
    out = run_generated(code).module.ptx()
    assert not hasattr(builtins, "PYPTX_PWNED")
    assert out == HOSTILE
    first_two = code.splitlines()[:2]
    assert not any("coding" in line for line in first_two)


def test_hostile_ptx_with_sugar_is_safe_too() -> None:
    code = ptx_to_python(HOSTILE, sugar=True)
    assert_structurally_safe(code)
    run_generated(code).module.ptx()
    assert not hasattr(builtins, "PYPTX_PWNED")


@settings(max_examples=examples(150), deadline=None)
@given(text=st.text(st.characters(blacklist_characters="\n\r\x00", blacklist_categories=("Cs",))))
def test_any_comment_text_round_trips_safely(text: str) -> None:
    ptx = f".version 8.0\n.target sm_90a // {text}\n.entry k()\n{{\n\tret; //{text}\n}}\n"
    code = ptx_to_python(ptx)
    assert code.isascii()
    assert_structurally_safe(code)
    assert run_generated(code).module.ptx() == ptx


@settings(max_examples=examples(300), deadline=None)
@given(text=st.text(st.characters(blacklist_categories=("Cs",))))
def test_string_literals_are_exact_and_inert(text: str) -> None:
    lit = string(text)
    assert lit.isascii()
    tree = ast.parse(lit, mode="eval")
    assert isinstance(tree.body, ast.Constant) and tree.body.value == text


@settings(max_examples=examples(300), deadline=None)
@given(text=st.text(st.characters(blacklist_categories=("Cs",))))
def test_comments_stay_on_one_line(text: str) -> None:
    line = comment(text)
    assert line.isascii() and line.startswith("# ")
    assert ast.parse(line + "\n").body == []
    assert len((line + "\n").splitlines()) == 1


@pytest.mark.parametrize(
    "name", ["%r", "$L__BB0_1", "__import__", "None", "match", "1abc", "%", "a.b$c", "__x__"]
)
def test_identifiers_are_plain_names(name: str) -> None:
    ident = identifier(name)
    assert ident.isidentifier() and ident.isascii()
    tree = ast.parse(ident, mode="eval")
    assert isinstance(tree.body, ast.Name)
    assert not (ident.startswith("__") and ident.endswith("__"))
