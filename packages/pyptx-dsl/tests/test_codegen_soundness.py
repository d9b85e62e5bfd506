"""Sugar never changes the program: reproducers of past faults, and generated programs.

Two properties, for every sugar pass alone and for all of them together:

1. the Python the transpiler writes emits a module alpha-equivalent to the input (the same
   instructions and operands, names renamed consistently and scope-aware);
2. where ptxas accepts the input, it accepts that output and emits the same machine code
   (the ``.text.*`` sections of ``ptxas -c``).

The passes are checked here without the transpiler's own safety net (it runs the generated
code and drops a pass whose output does not check); ``transpile`` itself is checked too.
"""

from __future__ import annotations

import pytest
from codegen_testing import assemble_cubin, find_ptxas, run_generated, text_sections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from pyptx.codegen import module_to_python, ptx_to_python
from pyptx.codegen._verify import emitted_equivalent
from pyptx.codegen.alpha import alpha_equivalent
from pyptx.codegen.pipeline import SUGAR_PASSES, run_passes
from pyptx.parser import parse

HEAD = """.version 8.0
.target sm_90a
.address_size 64
.global .surfref surf;
.visible .entry k(.param .u64 k_param_0)
{
\t.reg .pred %p<8>;
\t.reg .b32 %r<64>;
\t.reg .b64 %rd<8>;
\t.reg .b32 %x;
\t.reg .b32 %y;
\tld.param.u64 %rd1, [k_param_0];
"""
TAIL = "\tret;\n}\n"

PASS_SETS = [(p,) for p in SUGAR_PASSES] + [tuple(SUGAR_PASSES)]
PASS_IDS = [p.name for p in SUGAR_PASSES] + ["all"]


def program(body: str) -> str:
    return HEAD + body + TAIL


def pass_output(source: str, passes: tuple[object, ...]) -> str:
    """The PTX that the Python written for ``passes`` (no safety net) emits."""
    code = module_to_python(run_passes(parse(source), passes), compact=True)  # type: ignore[arg-type]
    return str(run_generated(code).module.ptx())


def assert_same_program(source: str, out: str) -> None:
    result = alpha_equivalent(parse(source), parse(out))
    assert result, result.reason


def assert_same_machine_code(source: str, out: str) -> None:
    if find_ptxas() is None:
        pytest.skip("no ptxas: pip install nvidia-cuda-nvcc")
    ok, before, err = assemble_cubin(source, "sm_90a")
    assert ok, f"the test's own input must assemble (else the check says nothing):\n{err}"
    ok, after, err = assemble_cubin(out, "sm_90a")
    assert ok, err
    assert sorted(text_sections(before).values()) == sorted(text_sections(after).values())


# ------------------------------------------------------------------------------------------
# Reproducers (each was a silent change of the program)
# ------------------------------------------------------------------------------------------

SURFACE_REPEATS = program(
    "".join(
        f"\tsust.b.2d.v2.b32.trap  [surf, {{%r{2 * i + 1}, %r{2 * i + 2}}}], {{%x, %y}};\n"
        for i in range(3)
    )
)
TMA_REPEATS = program(
    "".join(
        "\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
        f"[%r{3 * i + 1}], [%rd1, {{%r{3 * i + 2}, %r{3 * i + 3}}}], [%r20];\n"
        for i in range(3)
    )
)
SHADOWED_LOOP = program(
    "\tmov.u32 %r1, 0;\nLOOP:\n\tadd.s32 %r1, %r1, 1;\n\t{\n\t.reg .b32 %t;\n\tmov.u32 %t, 0;\n"
    "LOOP:\n\tadd.s32 %t, %t, 1;\n\tsetp.lt.s32 %p2, %t, 4;\n\t@%p2 bra LOOP;\n\t}\n"
    "\tsetp.lt.s32 %p1, %r1, 10;\n\t@%p1 bra LOOP;\n"
)
HEX_HINT_WAITS = program(
    "$L__BB0_1:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2, 0x989680;\n"
    "\t@!%p1 bra $L__BB0_1;\n"
    "$L__BB0_2:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [%r1], %r2;\n"
    "\t@!%p2 bra $L__BB0_2;\n"
)
NEGATIVE_ZERO = program("\tadd.s32 %r1, %r0, -0;\n")
REPRODUCERS = {
    "surface-coordinates-in-fixed-text": SURFACE_REPEATS,
    "tma-coordinates-in-fixed-text": TMA_REPEATS,
    "label-shadowed-in-a-nested-block": SHADOWED_LOOP,
    "hex-suspend-hint-then-a-plain-wait": HEX_HINT_WAITS,
    "negative-zero": NEGATIVE_ZERO,
}


@pytest.mark.parametrize("passes", PASS_SETS, ids=PASS_IDS)
@pytest.mark.parametrize("source", list(REPRODUCERS.values()), ids=list(REPRODUCERS))
def test_reproducers_keep_the_program(source: str, passes: tuple[object, ...]) -> None:
    out = pass_output(source, passes)
    assert_same_program(source, out)
    if passes == tuple(SUGAR_PASSES):
        assert_same_machine_code(source, out)


def test_negative_zero_keeps_its_spelling_without_sugar() -> None:
    assert run_generated(ptx_to_python(NEGATIVE_ZERO)).module.ptx() == NEGATIVE_ZERO


def test_a_wait_the_helper_cannot_spell_stays_plain_and_the_next_one_is_collapsed() -> None:
    code = ptx_to_python(HEX_HINT_WAITS, sugar=True)
    assert code.count("ptx.mbarrier.wait(") == 1
    assert "0x989680" in code
    out = run_generated(code).module.ptx()
    assert out.count("$L__mbar_wait_0:") == 1
    assert_same_program(HEX_HINT_WAITS, out)


def test_fixed_text_coordinates_keep_the_copies_unrolled() -> None:
    code = ptx_to_python(SURFACE_REPEATS, sugar=True)
    assert "for i in range" not in code
    assert code.count("[surf, {%r") == 3


NAMED_PREDICATE = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry k()
{
\t.reg .b32 %r<2>;
\t{
\t.reg .pred leader;
\telect.sync %r1|leader, 0xffffffff;
\t}
\tret;
}
"""


def test_a_traced_tree_unlike_the_parsed_one_is_judged_by_its_text() -> None:
    """The self-check compares trees first; a tree built differently falls back to text."""
    module = parse(NAMED_PREDICATE)
    code = ptx_to_python(NAMED_PREDICATE, sugar=True)
    traced = run_generated(code).module.module(layout=False)
    # The DSL reads `leader` in the operand text as a symbol, the parser as a register.
    assert not alpha_equivalent(module, traced)
    assert emitted_equivalent(code, module)
    assert "sugar left out" not in code
    broken = code.replace("0xffffffff", "0xfffffffe")
    assert not emitted_equivalent(broken, module)


def test_the_transpiler_drops_a_pass_whose_output_does_not_check() -> None:
    """A pass that breaks the program is left out; the other passes still apply."""

    class Breaks:
        name = "breaks"

        def __call__(self, module):  # type: ignore[no-untyped-def]
            from pyptx.codegen.regions import FoldRepeats

            return FoldRepeats(min_count=2)(_swap_first_add(module))

    source = program("".join(f"\tadd.s32 %r{i}, %r{i + 10}, {i};\n" for i in range(1, 5)))
    code = ptx_to_python(source, passes=[Breaks(), *SUGAR_PASSES[:1]], source_name="k.ptx")
    assert_same_program(source, str(run_generated(code).module.ptx()))
    # The note names the pass and where its output first went wrong (the first add, 13:2).
    assert "# sugar left out, its output did not check: breaks: k.ptx:13:2 (" in code


def _swap_first_add(module):  # type: ignore[no-untyped-def]
    """Changes the program: the first add's immediate becomes 99."""
    from dataclasses import replace

    from pyptx.ir import Immediate, Instruction, Rewriter

    class Swap(Rewriter):
        done = False

        def rewrite_Instruction(self, n: Instruction) -> Instruction:
            if n.opcode == "add" and not self.done:
                self.done = True
                return replace(n, operands=(*n.operands[:2], Immediate("99")))
            return n

    return Swap().rewrite(module)


# ------------------------------------------------------------------------------------------
# Generated programs
# ------------------------------------------------------------------------------------------

HINTS = ["", ", 1000", ", 0x989680", ", 0X10", ", 017", ", 0b101", ", 10U", ", %r40"]
INT_SPELLINGS = ["7", "-3", "0", "-0", "0x10", "010", "0b11", "5U"]


@st.composite
def repeat_block(draw: st.DrawFn) -> str:
    """Copies of a 1-3 instruction body whose numbers grow linearly, mixing fixed-text
    operands (coordinates inside an address) with plain register operands."""
    count = draw(st.integers(3, 4))
    step = draw(st.integers(1, 3))
    templates = draw(
        st.lists(
            st.sampled_from(
                [
                    "\tadd.s32 %r{a}, %r{b}, {i};\n",
                    "\tst.global.u32 [%rd1+{off}], %r{a};\n",
                    "\tsust.b.2d.v2.b32.trap  [surf, {{%r{a}, %r{b}}}], {{%x, %y}};\n",
                    "\tsust.b.2d.v2.b32.trap  [surf, {{%x, %y}}], {{%r{a}, %r{b}}};\n",
                    "\tcp.async.bulk.tensor.2d.shared::cluster.global.tile."
                    "mbarrier::complete_tx::bytes [%r{a}], [%rd1, {{%r{b}, %r{c}}}], [%r40];\n",
                    "\tmov.u32 %r{a}, {imm};\n",
                ]
            ),
            min_size=1,
            max_size=3,
        )
    )
    imm = draw(st.sampled_from(INT_SPELLINGS))
    out = []
    for t in range(count):
        for k, template in enumerate(templates):
            base = 1 + k * 4 + t * step * 3
            out.append(
                template.format(
                    a=base, b=base + 1, c=base + 2, i=t * step, off=4 * (t + 1), imm=imm
                )
            )
    return "".join(out)


@st.composite
def loop_block(draw: st.DrawFn) -> str:
    """A counted loop (label ``{k}``-numbered), optionally holding a nested block with a loop
    whose label shadows the outer one's."""
    label = draw(st.sampled_from(["LOOP{k}", "$L__BB0_{k}"]))
    nested = draw(st.booleans())
    inner_label = label if draw(st.booleans()) else label + "_in"
    inner = (
        f"\t{{\n\t.reg .b32 %t;\n\tmov.u32 %t, 0;\n{inner_label}:\n\tadd.s32 %t, %t, 1;\n"
        f"\tsetp.lt.s32 %p3, %t, 4;\n\t@%p3 bra {inner_label};\n\t}}\n"
        if nested
        else ""
    )
    return (
        f"\tmov.u32 %r50, 0;\n{label}:\n\tadd.s32 %r50, %r50, 1;\n{inner}"
        f"\tsetp.lt.s32 %p4, %r50, 10;\n\t@%p4 bra {label};\n"
    )


@st.composite
def wait_block(draw: st.DrawFn) -> str:
    """An mbarrier spin wait with a suspend-time hint in any spelling (or none)."""
    n = draw(st.integers(1, 2))
    hint = draw(st.sampled_from(HINTS))
    uni = draw(st.sampled_from(["", ".uni"]))
    return (
        f"$L__W_{{k}}:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p{n}, [%r41], %r42{hint};\n"
        f"\t@!%p{n} bra{uni} $L__W_{{k}};\n"
    )


@st.composite
def programs(draw: st.DrawFn) -> str:
    """A kernel of up to four blocks; every label is numbered, so none repeats in a block."""
    blocks = draw(st.lists(st.one_of(repeat_block(), loop_block(), wait_block()), max_size=4))
    return program("".join(b.replace("{k}", str(k)) for k, b in enumerate(blocks)))


@pytest.mark.parametrize("passes", PASS_SETS, ids=PASS_IDS)
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=programs())
def test_generated_programs_keep_the_program(source: str, passes: tuple[object, ...]) -> None:
    assert_same_program(source, pass_output(source, passes))


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=programs())
def test_generated_programs_keep_the_machine_code(source: str) -> None:
    assert_same_machine_code(source, pass_output(source, tuple(SUGAR_PASSES)))


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=programs())
def test_transpile_output_always_checks(source: str) -> None:
    out = str(run_generated(ptx_to_python(source, sugar=True)).module.ptx())
    assert_same_program(source, out)
