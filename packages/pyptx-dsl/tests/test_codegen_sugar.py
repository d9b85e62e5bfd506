"""Sugar keeps the program: alpha-equivalent on every corpus file, and ptxas still accepts it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from codegen_testing import (
    CORPUS,
    assemble_cubin,
    corpus_files,
    corpus_id,
    ptxas_rejects,
    read_exact,
    run_generated,
    text_sections,
)

from pyptx.codegen import module_to_python, ptx_to_python
from pyptx.codegen.alpha import alpha_equivalent
from pyptx.codegen.pipeline import SUGAR_PASSES, run_passes
from pyptx.codegen.regions import (
    CollapseMbarrierWaits,
    FoldRepeats,
    GroupExpressions,
    RaiseLoops,
    lower,
)
from pyptx.parser import parse

FILES = corpus_files()
REJECTED = ptxas_rejects()
ACCEPTED = [p for p in FILES if str(p.relative_to(CORPUS)) not in REJECTED]


def sugared_ptx(source: str) -> str:
    return str(run_generated(ptx_to_python(source, sugar=True)).module.ptx())


@pytest.mark.parametrize("path", FILES, ids=corpus_id)
def test_sugared_python_emits_an_alpha_equivalent_module(path: Path) -> None:
    source = read_exact(path)
    out = sugared_ptx(source)
    result = alpha_equivalent(parse(source), parse(out))
    assert result, result.reason


@pytest.mark.parametrize("path", ACCEPTED, ids=corpus_id)
def test_sugared_output_assembles_to_the_same_machine_code(path: Path, ptxas: str) -> None:
    """Where ptxas accepts the input, it accepts the sugared output and emits the same code
    (the contents of every ``.text.*`` section of ``ptxas -c``; names may differ)."""
    source = read_exact(path)
    arch = parse(source).targets[0]
    ok, before, err = assemble_cubin(source, arch)  # the ptxas fixture skips without one
    assert ok, err
    ok, after, err = assemble_cubin(sugared_ptx(source), arch)
    assert ok, err
    assert sorted(text_sections(before).values()) == sorted(text_sections(after).values())


def test_the_sugar_passes_do_something_on_the_corpus() -> None:
    loops = waits = renamed = 0
    for path in FILES[::2]:
        module = parse(read_exact(path))
        sugared = run_passes(module, SUGAR_PASSES)
        code = module_to_python(sugared, compact=True)
        loops += code.count("with ptx.loop(")
        waits += code.count("ptx.mbarrier.wait(")
        renamed += sum(
            a.name != b.name for a, b in zip(module.functions, sugared.functions, strict=True)
        )
    assert loops > 50 and waits >= 2 and renamed > 20


SPIN = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
\t.reg .pred %p<3>;
\t.reg .b32 %r<4>;
\tmov.u32 %r1, 0;
$L__BB0_1:
\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2;
\t@!%p1 bra $L__BB0_1;
$L__BB0_2:
\tadd.s32 %r3, %r3, 1;
\tsetp.lt.s32 %p2, %r3, 10;
\t@%p2 bra $L__BB0_2;
\tret;
}
"""


def test_spin_wait_and_loop_become_python_blocks(assemble) -> None:  # type: ignore[no-untyped-def]
    module = RaiseLoops()(CollapseMbarrierWaits()(parse(SPIN)))
    code = module_to_python(module)
    assert 'ptx.mbarrier.wait(ptx.addr(r[1]), r[2], space="shared::cta", dst=p[1])' in code
    assert 'with ptx.loop("BB0_2") as loop_bb0_2:' in code
    assert "ptx.bra(loop_bb0_2, pred=p[2])" in code
    out = run_generated(code).module.ptx()
    assert alpha_equivalent(parse(SPIN), parse(out))
    assert parse(out) == lower(module).without_trivia()
    assemble(out)


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        # the loop label is also the target of a branch before the loop
        (SPIN.replace("\tmov.u32 %r1, 0;", "\t@%p1 bra $L__BB0_2;"), "ptx.loop("),
        # the spin label is shared with another branch
        (SPIN.replace("\tmov.u32 %r1, 0;", "\t@%p1 bra $L__BB0_1;"), "ptx.mbarrier.wait("),
    ],
)
def test_regions_are_left_alone_when_not_provably_the_same(text: str, absent: str) -> None:
    module = RaiseLoops()(CollapseMbarrierWaits()(parse(text)))
    code = module_to_python(module)
    assert absent not in code
    out = run_generated(code).module.ptx()
    assert alpha_equivalent(parse(text), parse(out))


UNROLLED = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
\t.reg .b32 %r<20>;
\t.reg .b64 %rd<3>;
\tld.param.u64 %rd1, [k_param_0];
\tld.global.u32 %r1, [%rd1+4];
\tld.global.u32 %r2, [%rd1+8];
\tld.global.u32 %r3, [%rd1+12];
\tld.global.u32 %r4, [%rd1+16];
\tadd.s32 %r11, %r1, 7;
\tshl.b32 %r12, %r11, 1;
\tadd.s32 %r13, %r2, 7;
\tshl.b32 %r14, %r13, 1;
\tadd.s32 %r15, %r3, 7;
\tshl.b32 %r16, %r15, 1;
\tst.global.u32 [%rd1], %r12;
\tst.global.u32 [%rd1+0], %r14;
\tst.global.u32 [%rd1+0], %r16;
\tld.global.u32 %r5, [%rd1+3];
\tld.global.u32 %r6, [%rd1+2];
\tld.global.u32 %r7, [%rd1+5];
\tret;
}
"""


def test_unrolled_copies_fold_into_for_loops(assemble) -> None:  # type: ignore[no-untyped-def]
    module = FoldRepeats()(parse(UNROLLED))
    code = module_to_python(module)
    loads = "ptx.inst.ld.global_.u32(r[1 + i], ptx.addr(rd[1], 4 + 4 * i))"
    assert f"    for i in range(4):\n        {loads}" in code
    assert (
        "    for i in range(3):\n"
        "        ptx.inst.add.s32(r[11 + 2 * i], r[1 + i], 7)\n"
        "        ptx.inst.shl.b32(r[12 + 2 * i], r[11 + 2 * i], 1)\n"
    ) in code
    # [%rd1+0] is not what ptx.addr(rd[1], 0) spells, and 3, 2, 5 is not a linear sequence
    assert 'ptx.operand("[%rd1+0]")' in code and "ptx.addr(rd[1], 3)" in code
    out = run_generated(code).module.ptx()
    assert out == UNROLLED  # folding changes the Python only: the PTX is the same, byte for byte
    assemble(out)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"min_count": 1}, "min_count must be an int >= 2, got 1"),
        ({"max_period": 0}, "max_period must be an int >= 1, got 0"),
        ({"min_count": 2.5}, "min_count must be an int >= 2, got 2.5"),
    ],
)
def test_fold_repeats_options_out_of_range_are_refused(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        FoldRepeats(**options)


def test_fold_repeats_takes_its_least_options() -> None:
    """min_count=2 and max_period=1 are the bounds: a two-copy run of one statement folds."""
    text = UNROLLED.replace("\tret;\n", "\tmov.u32 %r9, 1;\n\tmov.u32 %r10, 2;\n\tret;\n")
    folded = FoldRepeats(min_count=2, max_period=1)(parse(text))
    assert "for i in range(2):" in module_to_python(folded)
    assert run_generated(module_to_python(folded)).module.ptx() == text


def test_a_varying_leaf_that_cannot_be_spelled_keeps_the_copies_unrolled() -> None:
    # [%rdN+0] has no exact ptx.addr spelling; its base varies, so no loop may freeze it.
    stores = "".join(f"\tst.global.u32 [%rd{n}+0], %r{n};\n" for n in (1, 2, 3, 4))
    text = UNROLLED.replace("\tret;\n", stores + "\tret;\n").replace("%rd<3>", "%rd<5>")
    code = module_to_python(FoldRepeats()(parse(text)))
    assert all(f'ptx.operand("[%rd{n}+0]")' in code for n in (1, 2, 3, 4))
    assert run_generated(code).module.ptx() == text


CHAIN = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{
\t.reg .b32 %r<9>;
\t.reg .b64 %rd<4>;
\tld.param.u64 %rd1, [k_param_0];
\tmov.u32 %r1, %tid.x;
\tshl.b32 %r2, %r1, 2;
\tadd.s32 %r3, %r2, 16;
\tmul.lo.s32 %r4, %r3, %r1;
\tcvt.u64.u32 %rd2, %r4;
\tadd.s64 %rd3, %rd1, %rd2;
\tst.global.u32 [%rd3], %r2;
\tret;
}
"""


def test_single_use_chains_get_an_expression_comment() -> None:
    code = module_to_python(GroupExpressions()(parse(CHAIN)))
    # %r2 is read twice (the add and the store), so the chain starts after it
    assert "    # rd[3] = rd[1] + (r[2] + 16) * r[1]" in code
    assert run_generated(code).module.ptx() == CHAIN  # a comment only: same PTX, byte for byte


def test_accumulator_lists_are_compacted() -> None:
    source = read_exact(CORPUS / "public" / "wgmma_gemm_tile.ptx")
    plain = ptx_to_python(source)
    sugared = ptx_to_python(source, sugar=True)
    assert "[r[i] for i in range(0, 64)]" in sugared
    assert "[r[i] for i in range(0, 64)]" not in plain and "r[63]," in plain
    assert sugared_ptx(source) == source  # compaction changes only the Python
