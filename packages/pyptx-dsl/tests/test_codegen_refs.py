"""collect_references: the passes' fast reference walk finds what the IR's generic walk finds."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from codegen_testing import corpus_files, corpus_id, read_exact

from pyptx.codegen._refs import REFERENCE_TYPES, collect_references, label_names
from pyptx.ir import LabelRef, Node, walk
from pyptx.parser import parse


def _generic(node: Node) -> Counter[tuple[str, int]]:
    """Every reference node below ``node`` by the IR's own walk: (class, identity)."""
    return Counter((type(n).__name__, id(n)) for n in walk(node) if type(n) in REFERENCE_TYPES)


def _fast(node: object) -> Counter[tuple[str, int]]:
    return Counter((type(n).__name__, id(n)) for n in collect_references(node, []))


@pytest.mark.parametrize("path", corpus_files(), ids=corpus_id)
def test_every_reference_of_the_corpus_is_found(path: Path) -> None:
    module = parse(read_exact(path))
    assert _fast(module) == _generic(module)


SRC = """\
.version 8.5
.target sm_90a
.address_size 64
.global .texref tex;
.visible .entry k(.param .u64 k_param_0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [k_param_0+8];
	@!%p1 bra $L__BB0_2;
	tex.2d.v4.f32.s32 {%r1, %r2, %r3, %r4}, [tex, {%r5, %r6}];
	st.global.u32 [%rd1+-4], %r7;
$L__BB0_2:
	ret;
}
.section .debug_info
{
.b32 .debug_abbrev
.b64 $L__BB0_2, 1, 2
}
"""


def test_operands_with_structure_and_guards() -> None:
    module = parse(SRC)
    found = Counter(n.name for n in collect_references(module, []))  # type: ignore[union-attr]
    # Address bases and extras, vector elements, a negated guard, data-line references.
    for name in ("k_param_0", "tex", "%r5", "%r6", "%r1", "%p1", "%rd1", ".debug_abbrev"):
        assert found[name] >= 1, name
    assert found["$L__BB0_2"] == 2  # the branch and the data line
    assert _fast(module) == _generic(module)
    assert label_names(module).count("$L__BB0_2") == sum(
        1 for n in walk(module) if type(n) is LabelRef and n.name == "$L__BB0_2"
    )
