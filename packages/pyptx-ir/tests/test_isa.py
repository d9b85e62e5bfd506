"""The ISA table (pyptx.ir.isa): lookup, the checker's diagnostics, requirements, consistency.

Instructions are written as PTX text and read by test_isa_helpers.insn (see there for the
register naming convention that gives registers their declared types).
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from test_isa_helpers import at_minimum, codes, insn, need, reg_type, run

from pyptx.ir import TARGETS, PtxType
from pyptx.ir.isa import (
    DOC_BASE,
    SPECS,
    Diagnostic,
    DiagnosticCode,
    Gate,
    InstructionSpec,
    ModifierGroup,
    OperandKind,
    Requirements,
    check,
    family_targets,
    lookup,
    match,
    requirements,
)

# ------------------------------------------------------------------------------ lookup


@pytest.mark.parametrize(
    ("mnemonic", "name", "rest"),
    [
        ("cp.async.bulk.tensor.2d.shared::cluster.global.tile", "cp.async.bulk.tensor",
         ("2d", "shared::cluster", "global", "tile")),
        ("cp.async.bulk.shared::cluster.global", "cp.async.bulk", ("shared::cluster", "global")),
        ("cp.async.bulk.prefetch.tensor.2d.L2.global", "cp.async.bulk.prefetch.tensor",
         ("2d", "L2", "global")),
        ("cp.async.bulk.prefetch.L2.global", "cp.async.bulk.prefetch", ("L2", "global")),
        ("cp.async.bulk.commit_group", "cp.async.bulk.commit_group", ()),
        ("cp.async.ca.shared.global", "cp.async", ("ca", "shared", "global")),
        ("cp.async.mbarrier.arrive.b64", "cp.async.mbarrier.arrive", ("b64",)),
        ("cp.reduce.async.bulk.tensor.1d.global.shared::cta.add", "cp.reduce.async.bulk.tensor",
         ("1d", "global", "shared::cta", "add")),
        ("wgmma.mma_async.sp.sync.aligned", "wgmma.mma_async.sp", ("sync", "aligned")),
        ("wgmma.mma_async.sync.aligned", "wgmma.mma_async", ("sync", "aligned")),
        ("tcgen05.mma.ws.sp.cta_group::1", "tcgen05.mma.ws.sp", ("cta_group::1",)),
        ("tcgen05.mma.cta_group::1.kind::f16", "tcgen05.mma", ("cta_group::1", "kind::f16")),
        ("add.cc.u32", "add.cc", ("u32",)),
        ("add.s32", "add", ("s32",)),
        ("bar.warp.sync", "bar.warp.sync", ()),
        ("bar.sync", "bar.sync", ()),
        ("bar.cta.sync", "bar.sync", ()),
        ("barrier.cluster.arrive.aligned", "barrier.cluster.arrive", ("aligned",)),
        ("fence.proxy.tensormap::generic.release.gpu", "fence.proxy.tensormap::generic",
         ("release", "gpu")),
        ("fence.proxy.async", "fence.proxy", ("async",)),
        ("fence.acq_rel.gpu", "fence", ("acq_rel", "gpu")),
        ("mbarrier.arrive_drop.shared.b64", "mbarrier.arrive_drop", ("shared", "b64")),
        ("mbarrier.arrive.shared.b64", "mbarrier.arrive", ("shared", "b64")),
        ("mma.sp::ordered_metadata.sync", "mma.sp", ("sync",)),
        ("match.any.sync.b32", "match.any.sync", ("b32",)),
        ("st.async.u32", "st.async", ("u32",)),
        ("st.global.u32", "st", ("global", "u32")),
    ],
)  # fmt: skip
def test_lookup_takes_the_longest_compound_name(
    mnemonic: str, name: str, rest: tuple[str, ...]
) -> None:
    opcode, *mods = mnemonic.split(".")
    found = lookup(opcode, tuple(mods))
    assert found is not None
    spec, left = found
    assert spec.name == name
    assert left == rest


@pytest.mark.parametrize(
    ("text", "dtype", "atype"),
    [
        ("cvt.bf16.f16 %rs1, %rs2;", "bf16", "f16"),
        ("cvt.f16.bf16 %rs1, %rs2;", "f16", "bf16"),
        ("cvt.rn.f16.f32 %rs1, %f2;", "f16", "f32"),
        ("cvt.rzi.s32.f64 %r1, %fd2;", "s32", "f64"),
    ],
)
def test_match_fills_type_slots_in_spelling_order(text: str, dtype: str, atype: str) -> None:
    found = match(insn(text), reg_type=reg_type)
    assert found is not None
    assert (found.slot("dtype"), found.slot("atype")) == (dtype, atype)
    assert found.index("d") == 0 and found.index("a") == 1


def test_match_pairs_operands_with_their_isa_names() -> None:
    text = (
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
        " {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};"
    )
    found = match(insn(text))
    assert found is not None
    assert found.spec.name == "mma"
    assert [op.name for op in found.operands or ()] == ["d", "a", "b", "c"]
    assert found.operand_type("c") is PtxType.F32
    assert found.slots["atype"] == ("bf16",)
    assert match(insn("frobnicate.u32 %r1;")) is None


def test_lookup_of_an_unknown_opcode_is_none() -> None:
    assert lookup("frobnicate", ("u32",)) is None
    assert lookup("cp", ("nothing",)) is None


def test_specs_is_a_read_only_mapping_by_name() -> None:
    assert SPECS["wgmma.mma_async"].name == "wgmma.mma_async"
    with pytest.raises(TypeError):
        SPECS["x"] = SPECS["add"]  # type: ignore[index]
    assert len(SPECS) >= 190


def test_each_form_says_which_slots_take_a_modifier() -> None:
    # Form.slots_taking remembers its answers per form; asked twice, in any order, of every
    # form and every listed spelling (and one no slot takes), it agrees with accepts().
    words = sorted(
        {v for sp in SPECS.values() for f in sp.forms for g in f.groups for v in g.values}
    )
    words += ["bogus", "m64n128k16", "sm_90"]
    for _ in range(2):
        for sp in SPECS.values():
            for f in sp.forms:
                for w in words[:: max(1, len(words) // 60)] + [
                    g.values[0] for g in f.groups if g.values
                ]:
                    want = tuple(i for i, g in enumerate(f.groups) if g.accepts(w))
                    assert f.slots_taking(w) == want, (sp.name, w)


# ------------------------------------------------------------------------------ messages


def test_operand_count_message_names_the_operands() -> None:
    (d,) = run("add.s32 %r1, %r2;")
    assert d.code is DiagnosticCode.OPERAND_COUNT
    assert d.message == "add.s32 expects 3 operands (d, a, b), but got 2"
    assert str(d) == d.message


def test_optional_operands_show_in_brackets() -> None:
    (d,) = run("cp.async.ca.shared.global [%r1], [%rd1];")
    assert d.code is DiagnosticCode.OPERAND_COUNT
    assert "expects 3 to 4 operands (dst, src, cp-size[, src-size])" in d.message


def test_unknown_modifier_lists_the_choices() -> None:
    (d,) = run("add.f33 %r1, %r2, %r3;")
    assert d.code is DiagnosticCode.UNKNOWN_MODIFIER
    assert d.message.startswith(
        "unknown modifier '.f33' for add; did you mean '.f32'? expected one of "
    )
    assert ".s32" in d.message and ".bf16x2" in d.message


def test_a_modifier_valid_elsewhere_names_what_it_clashes_with() -> None:
    (d,) = run("mul.hi.f32 %f1, %f2, %f3;")
    assert d.code is DiagnosticCode.UNKNOWN_MODIFIER
    assert "'.hi' is not valid for mul with .f32" in d.message
    assert ".rn" in d.message  # what mul.f32 does take


def test_repeated_slot_is_reported() -> None:
    (d,) = run("add.s32.u32 %r1, %r2, %r3;")
    assert d.code is DiagnosticCode.UNKNOWN_MODIFIER
    assert "'.u32' repeats the .type modifier of add, already given as '.s32'" in d.message


def test_missing_modifier_suggests_a_spelling() -> None:
    (d,) = run("mul.s32 %r1, %r2, %r3;")
    assert d.code is DiagnosticCode.MISSING_MODIFIER
    assert d.message == (
        "mul.s32 needs a .mode modifier (one of .hi, .lo), but got none; e.g. mul.hi"
    )


def test_target_message_names_the_fix() -> None:
    diags = run(
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4},"
        " %rd1, %rd2, 1, 1, 1, 0, 0;",
        target="sm_80",
        version=(8, 0),
    )
    (d,) = diags
    assert d.code is DiagnosticCode.TARGET
    assert (
        d.message
        == "wgmma.mma_async needs sm_90a, but the kernel targets sm_80; pass arch='sm_90a'"
    )


def test_version_message_names_the_fix() -> None:
    (d,) = run("elect.sync %r1|%p1, -1;", target="sm_90", version=(7, 8))
    assert d.code is DiagnosticCode.PTX_VERSION
    assert d.message == (
        "elect.sync needs PTX ISA 8.0 or newer, but the kernel declares .version 7.8;"
        " use .version 8.0"
    )


def test_modifier_gate_names_the_modifier() -> None:
    diags = run("ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2;", target="sm_75", version=(7, 4))
    (d,) = diags
    assert d.code is DiagnosticCode.TARGET
    assert d.message.startswith("ld with .L2::cache_hint needs sm_80 or newer")
    assert d.message.endswith("pass arch='sm_80'")


def test_operand_kind_message_describes_what_was_got() -> None:
    (d,) = run("ld.global.f32 %f1, %rd1;")
    assert d.code is DiagnosticCode.OPERAND_KIND
    assert d.operand == 1
    assert d.message == "ld.global.f32 operand 1 (a) expects an address, but got the register %rd1"


def test_register_width_message() -> None:
    (d,) = run("add.u64 %rd1, %r2, %rd3;")
    assert d.code is DiagnosticCode.REGISTER_WIDTH
    assert d.operand == 1
    assert d.message == (
        "add.u64 operand 1 (a) expects a 64-bit register for .u64, but %r2 is declared .b32"
    )


def test_vector_size_message_names_the_modifier() -> None:
    (d,) = run("ld.global.v4.f32 {%f1, %f2}, [%rd1];")
    assert d.code is DiagnosticCode.VECTOR_SIZE
    assert d.operand == 0
    assert d.message == (
        "ld.global.v4.f32 operand 0 (d) expects a vector of 4 elements (.v4), but got 2"
    )


def test_unknown_opcode() -> None:
    (d,) = run("frobnicate.u32 %r1, %r2;")
    assert d.code is DiagnosticCode.UNKNOWN_OPCODE
    assert "'frobnicate.u32'" in d.message and "ptx.raw" in d.message
    (d,) = run("fmaa.rn.f32 %f1, %f2, %f3, %f4;")
    assert "did you mean 'fma'" in d.message
    (d,) = run("cp.nothing.u32 %r1;")
    assert d.code is DiagnosticCode.UNKNOWN_OPCODE
    assert "cp.async" in d.message  # the names that do start with cp


def test_unknown_target_raises() -> None:
    with pytest.raises(ValueError, match="unknown PTX target 'sm_9000'"):
        check(insn("trap;"), target="sm_9000", version=(9, 0))


def test_diagnostics_are_frozen_values() -> None:
    (d,) = run("add.s32 %r1, %r2;")
    with pytest.raises(AttributeError):
        d.message = "x"  # type: ignore[misc]
    assert d == Diagnostic(DiagnosticCode.OPERAND_COUNT, d.message)


# ------------------------------------------------------------------------------ register widths


def test_width_checks_need_reg_type() -> None:
    bad = insn("add.u64 %rd1, %r2, %rd3;")
    assert check(bad, target="sm_80", version=(7, 0)) == ()
    assert codes(check(bad, target="sm_80", version=(7, 0), reg_type=reg_type)) == {
        DiagnosticCode.REGISTER_WIDTH
    }


@pytest.mark.parametrize(
    "text",
    [
        "add.u32 %r1, %r2, %r3;",  # .b32 registers fit .u32
        "add.f32 %f1, %f2, %f3;",
        "add.s64 %rd1, %rd2, 1;",  # immediates have no width
        "ld.global.u8 %r1, [%rd1];",  # ld/st/cvt take wider registers
        "ld.global.b16 %r1, [%rd1];",
        "st.global.u8 [%rd1], %r1;",
        "cvt.u64.u32 %rd1, %r1;",
        "cvt.u32.u8 %r1, %rs1;",
        "mul.wide.u32 %rd1, %r1, %r2;",  # .wide doubles the destination
        "mad.wide.s32 %rd1, %r1, %r2, %rd2;",
        "popc.b64 %r1, %rd1;",  # the count is always 32 bits
        "setp.eq.s32 %p1, %r1, %r2;",
        "selp.b64 %rd1, %rd2, %rd3, %p1;",
        "shl.b64 %rd1, %rd2, %r1;",  # the shift amount is .u32
        "add.f16x2 %r1, %r2, %r3;",  # packed halves live in 32-bit registers
        "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r1, %r2},"
        " {%r3, %r4, %r5, %r6}, {%r7, %r8}, {%r9, %r10};",
    ],
)
def test_width_rules_accept_what_ptx_accepts(text: str) -> None:
    assert run(text) == ()


@pytest.mark.parametrize(
    ("text", "operand"),
    [
        ("add.u64 %rd1, %rd2, %r3;", 2),
        ("ld.global.u64 %r1, [%rd1];", 0),  # narrower than the type
        ("mul.wide.u32 %r1, %r2, %r3;", 0),
        ("setp.eq.s32 %r1, %r2, %r3;", 0),  # not a predicate
        ("selp.b32 %r1, %r2, %r3, %r4;", 3),
        ("and.pred %p1, %r1, %p2;", 1),  # a b32 where a predicate goes
        ("getctarank.shared::cluster.u32 %r1, %rd1;", 1),
        ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%fd1, %fd2, %fd3, %fd4},"
         " {%r3, %r4, %r5, %r6}, {%r7, %r8}, {%f9, %f10, %f11, %f12};", 0),
    ],
)  # fmt: skip
def test_clear_width_mismatches_are_flagged(text: str, operand: int) -> None:
    diags = run(text)
    assert codes(diags) == {DiagnosticCode.REGISTER_WIDTH}
    assert {d.operand for d in diags} == {operand}


# ------------------------------------------------------------------------------ requirements


@pytest.mark.parametrize(
    ("text", "ptx", "sm", "arch"),
    [
        ("add.s32 %r1, %r2, %r3;", (1, 0), 0, False),
        ("add.rn.bf16 %rs1, %rs2, %rs3;", (7, 8), 90, False),
        ("cp.async.ca.shared.global [%r1], [%rd1], 4;", (7, 0), 80, False),
        ("elect.sync %r1|%p1, -1;", (8, 0), 90, False),
        ("wgmma.fence.sync.aligned;", (8, 0), 90, True),
        ("setmaxnreg.inc.sync.aligned.u32 240;", (8, 0), 90, True),
        ("tcgen05.fence::before_thread_sync;", (8, 6), 100, True),
        ("ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2;", (7, 4), 80, False),
        ("ld.global.b128 %q1, [%rd1];", (8, 3), 70, False),
        ("mov.u32 %r1, %cluster_ctarank;", (7, 8), 90, False),  # special register gate
        ("mbarrier.arrive.shared.b64 %rd1, [%r1], 2;", (7, 8), 90, False),  # operand gate
        ("bar.cta.sync 0;", (7, 8), 0, False),  # alias gate
        ("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes"
         " [%r1], [%rd1], 256, [%r2];", (8, 6), 90, False),
    ],
)  # fmt: skip
def test_requirements(text: str, ptx: tuple[int, int], sm: int, arch: bool) -> None:
    req = need(text)
    assert req.min_ptx == ptx
    assert req.min_sm == sm
    assert req.needs_arch_specific is arch


def test_requirements_of_arch_specific_instructions_list_their_targets() -> None:
    wgmma = need("wgmma.commit_group.sync.aligned;")
    assert wgmma.families == frozenset({"sm_90a"})
    assert wgmma.allows("sm_90a") and not wgmma.allows("sm_90") and not wgmma.allows("sm_100a")
    assert wgmma.suggest_target() == "sm_90a"
    tc = need("tcgen05.wait::ld.sync.aligned;")
    assert {"sm_100a", "sm_100f", "sm_103a", "sm_103f", "sm_101a", "sm_110a"} <= tc.families
    assert not tc.allows("sm_120a") and not tc.allows("sm_100")
    assert tc.suggest_target() == "sm_100a"
    shift = need("tcgen05.shift.cta_group::1.down [%r1];")
    assert shift.allows("sm_100a") and not shift.allows("sm_100f")  # architecture-only


def test_requirements_combine_to_the_kernels_needs() -> None:
    a = need("ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2;")
    b = need("setmaxnreg.dec.sync.aligned.u32 64;")
    both = a.combine(b)
    assert both.min_ptx == (8, 0)
    assert both.needs_arch_specific
    assert both.allows("sm_90a") and both.allows("sm_100a") and not both.allows("sm_90")
    clash = need("wgmma.fence.sync.aligned;").combine(need("tcgen05.fence::after_thread_sync;"))
    assert clash.needs_arch_specific and clash.families == frozenset()


def test_register_types_tell_optional_operands_apart() -> None:
    """cp.async's fourth operand is a u32 src-size or (PTX 7.5) an ignore-src predicate."""
    pred = insn("cp.async.ca.shared.global [%r1], [%rd1], 4, %p1;")
    size = insn("cp.async.ca.shared.global [%r1], [%rd1], 4, %r2;")
    negated = insn("cp.async.ca.shared.global [%r1], [%rd1], 4, !%p1;")
    with_types = requirements(pred, reg_type=reg_type)
    assert with_types is not None and with_types.min_ptx == (7, 5)
    assert need("cp.async.ca.shared.global [%r1], [%rd1], 4, !%p1;").min_ptx == (7, 5)
    assert need("cp.async.ca.shared.global [%r1], [%rd1], 4, %r2;").min_ptx == (7, 0)
    (d,) = check(pred, target="sm_80", version=(7, 0), reg_type=reg_type)
    assert d.code is DiagnosticCode.PTX_VERSION
    assert d.message.startswith("cp.async with the ignore-src operand needs PTX ISA 7.5")
    assert check(size, target="sm_80", version=(7, 0), reg_type=reg_type) == ()
    assert check(negated, target="sm_80", version=(7, 5)) == ()


def test_requirements_of_an_unknown_opcode_are_none() -> None:
    assert requirements(insn("frobnicate.u32 %r1;")) is None


def test_family_targets_expand_upwards_within_the_family() -> None:
    assert family_targets("sm_100f") == {"sm_100a", "sm_100f", "sm_103a", "sm_103f"}
    assert family_targets("sm_120f") == {"sm_120a", "sm_120f", "sm_121a", "sm_121f"}
    assert family_targets("sm_103f") == {"sm_103a", "sm_103f"}
    assert "sm_101a" in family_targets("sm_110f")  # sm_101 was renamed sm_110
    with pytest.raises(ValueError):
        family_targets("sm_100a")


def test_modifier_groups_take_values_and_patterns() -> None:
    shape = ModifierGroup("shape", (), (r"m\d+n\d+k\d+",), required=True)
    assert shape.accepts("m16n8k16") and not shape.accepts("m16n8")
    assert shape.spelling() == ".shape"
    assert shape.choices() == (r".m\d+n\d+k\d+",)
    fixed = ModifierGroup("type", ("f32",), required=True)
    assert fixed.accepts("f32") and not fixed.accepts("f64")
    assert fixed.spelling() == ".f32"


def test_syntax_lines_follow_the_isa_notation() -> None:
    assert SPECS["bar.sync"].syntax() == ("bar.sync a{, b}",)
    assert SPECS["setp"].syntax()[:2] == (
        "setp.cmp{.bool}.type p, a, b{, c}",
        "setp.cmp{.bool}{.ftz}.f32 p, a, b{, c}",
    )
    ld = SPECS["ld"].syntax()
    assert ld[0] == "ld{.weak}{.ss}{.cop}{.vec}.type d, [a]"
    assert "ld.sem.scope{.ss}{.vec}.type d, [a]" in ld
    assert "ld.mmio.relaxed.sys{.global}.type d, [a]" in ld
    assert any(line.endswith("d, [a]{, cache-policy}") for line in ld)


def test_gates_combine() -> None:
    base = Gate((7, 0), 80)
    arch = Gate((8, 0), 90, frozenset({"sm_90a", "sm_100a"}))
    both = base.combine(arch)
    assert both == Gate((8, 0), 90, frozenset({"sm_90a", "sm_100a"}))
    newer = arch.combine(Gate((8, 6), 100))
    assert newer.targets == frozenset({"sm_100a"})  # a minimum sm filters the targets
    assert Requirements.of(newer).suggest_target() == "sm_100a"


# ------------------------------------------------------------------------------ consistency


def _all_specs() -> list[InstructionSpec]:
    return list(SPECS.values())


def test_every_spec_has_a_doc_anchor_summary_and_family() -> None:
    for sp in _all_specs():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", sp.doc), sp.name
        assert sp.url == f"{DOC_BASE}#{sp.doc}"
        assert sp.summary and sp.summary.endswith("."), sp.name
        assert sp.family, sp.name
        assert sp.forms, sp.name
        assert len(sp.syntax()) == len(sp.forms)


def test_names_and_aliases_are_unique() -> None:
    seen: dict[str, str] = {}
    for sp in _all_specs():
        for name in (sp.name, *sp.aliases):
            assert name not in seen, f"{name} names both {seen[name]} and {sp.name}"
            seen[name] = sp.name
        assert set(sp.alias_gates) <= set(sp.aliases), sp.name


def test_modifier_slots_do_not_collide_ambiguously() -> None:
    """Slots are filled in spelling order, so a value two slots share must go first to a
    required slot (``mma``'s ``.dtype`` before ``.ctype``); slot names are unique."""
    for sp in _all_specs():
        for form in sp.forms:
            names = [g.name for g in form.groups]
            assert len(names) == len(set(names)), (sp.name, names)
            for i, g in enumerate(form.groups):
                assert g.values or g.patterns, (sp.name, g.name)
                assert len(g.values) == len(set(g.values)), (sp.name, g.name)
                assert set(g.gates) <= set(g.values), (sp.name, g.name)
                for h in form.groups[i + 1 :]:
                    if set(g.values) & set(h.values):
                        assert g.required, (sp.name, g.name, h.name)


def test_operands_refer_to_slots_that_exist() -> None:
    for sp in _all_specs():
        groups_anywhere = {g.name for f in sp.forms for g in f.groups}
        for form in sp.forms:
            names = {g.name for g in form.groups}
            ops = [op.name for op in form.operands]
            assert len(ops) == len(set(ops)), (sp.name, ops)
            for op in form.operands:
                assert op.kinds != OperandKind(0), (sp.name, op.name)
                if op.type_group is not None:
                    assert op.type_group in names, (sp.name, op.name)
                if op.type is not None:
                    assert PtxType.from_name(op.type) is not None, (sp.name, op.type)
                if isinstance(op.count, str):
                    assert op.count in groups_anywhere, (sp.name, op.name)
                for cond in op.when:
                    cond = cond.lstrip("!")
                    group, _, value = cond.rpartition("=")
                    if group:
                        g = form.group(group)
                        assert g is not None and g.accepts(value), (sp.name, cond)
                    else:
                        assert any(g.accepts(value) for g in form.groups), (sp.name, cond)
            assert not any(op.variadic for op in form.operands[:-1]), sp.name


def test_gates_name_real_targets_and_versions() -> None:
    def ok(gate: Gate) -> None:
        assert (1, 0) <= gate.ptx <= (9, 9)
        if gate.targets is not None:
            assert gate.targets, gate
            assert gate.targets <= set(TARGETS), gate.targets - set(TARGETS)

    for sp in _all_specs():
        ok(sp.gate)
        for g in sp.alias_gates.values():
            ok(g)
        for form in sp.forms:
            ok(form.gate)
            for grp in form.groups:
                for g in grp.gates.values():
                    ok(g)
            for op in form.operands:
                if op.gate is not None:
                    ok(op.gate)


def test_every_example_checks_clean_at_its_minimum() -> None:
    count = 0
    for sp in _all_specs():
        for ex in sp.examples:
            i = insn(ex)
            found = lookup(i.opcode, i.modifiers)
            assert found is not None and found[0] is sp, ex
            target, version = at_minimum(ex)
            assert check(i, target=target, version=version, reg_type=reg_type) == (), ex
            count += 1
    assert count >= 180


def test_requirement_coverage_of_the_isa() -> None:
    """The families the table was asked to cover are all there."""
    for name in (
        "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min",
        "max", "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "dp4a", "dp2a", "fma", "rcp",
        "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "copysign", "testp", "cvt", "cvta",
        "setp", "selp", "set", "slct", "and", "or", "xor", "not", "cnot", "lop3", "shl", "shr",
        "shf", "prmt", "mov", "ld", "st", "ldu", "prefetch", "prefetchu", "isspacep",
        "applypriority", "discard", "createpolicy", "shfl.sync", "vote.sync", "match.any.sync",
        "match.all.sync", "redux.sync", "activemask", "atom", "red", "bar.sync", "barrier.sync",
        "bar.warp.sync", "membar", "fence", "fence.proxy", "fence.mbarrier_init", "cp.async",
        "cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all",
        "cp.async.mbarrier.arrive", "cp.async.bulk", "cp.async.bulk.tensor",
        "cp.async.bulk.prefetch", "cp.async.bulk.prefetch.tensor", "cp.async.bulk.commit_group",
        "cp.async.bulk.wait_group", "cp.reduce.async.bulk", "cp.reduce.async.bulk.tensor",
        "mbarrier.init", "mbarrier.inval", "mbarrier.arrive", "mbarrier.arrive_drop",
        "mbarrier.expect_tx", "mbarrier.complete_tx", "mbarrier.test_wait", "mbarrier.try_wait",
        "mbarrier.pending_count", "barrier.cluster.arrive", "barrier.cluster.wait", "mapa",
        "getctarank", "elect.sync", "clusterlaunchcontrol.try_cancel",
        "clusterlaunchcontrol.query_cancel", "griddepcontrol", "setmaxnreg", "mma", "mma.sp",
        "ldmatrix", "stmatrix", "movmatrix", "wgmma.mma_async", "wgmma.mma_async.sp",
        "wgmma.fence", "wgmma.commit_group", "wgmma.wait_group", "tcgen05.alloc",
        "tcgen05.dealloc", "tcgen05.relinquish_alloc_permit", "tcgen05.mma", "tcgen05.mma.sp",
        "tcgen05.mma.ws", "tcgen05.ld", "tcgen05.st", "tcgen05.cp", "tcgen05.shift",
        "tcgen05.wait::ld", "tcgen05.fence::before_thread_sync", "tcgen05.commit",
        "tensormap.replace", "tensormap.cp_fenceproxy", "bra", "brx.idx", "call", "ret", "exit",
        "trap", "nanosleep", "pmevent", "tex", "tld4", "txq", "suld", "sust", "suq", "vote",
    ):  # fmt: skip
        assert name in SPECS, name


def test_check_is_pure_and_cached_per_mnemonic() -> None:
    i = insn("add.s32 %r1, %r2;")
    first = check(i, target="sm_80", version=(7, 0))
    again = check(replace(i, operands=i.operands), target="sm_80", version=(7, 0))
    assert first == again
