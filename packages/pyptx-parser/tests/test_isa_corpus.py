"""The ISA table against real PTX: no false positives on the corpus, real errors caught.

Every instruction of every corpus file that ptxas accepts (tests/corpus/ptxas_rejects.txt
lists the others) must check clean for the file's own .target and .version, with register
widths checked against the function's .reg declarations. Mutating those instructions
(dropping an operand, adding a bogus modifier, lowering the target or the version) must be
reported with the right code, and the files ptxas rejects for an instruction-level reason
must be flagged. Each spec's examples assemble with ptxas at the minimum the table states.
Instructions with one isa.shape_key get one check() verdict, which isa.verdict gives for
every target and version at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import cache, lru_cache
from pathlib import Path

import pytest
from ptxas_tools import assemble, corpus_files, corpus_id, find_ptxas, ptxas_rejects, read

from pyptx.emitter import emit
from pyptx.ir import (
    TARGETS,
    Instruction,
    Module,
    PtxType,
)
from pyptx.ir.isa import (
    SPECS,
    DiagnosticCode,
    check,
    check_module,
    lookup,
    requirements,
    shape_key,
    verdict,
)
from pyptx.ir.isa._module_check import _register_types
from pyptx.parser import parse

ACCEPTED = [p for p in corpus_files() if corpus_id(p) not in ptxas_rejects()]
HERE = "packages/pyptx-parser/tests/test_isa_corpus.py"


@cache
def _module(path: Path) -> Module:
    return parse(read(path), str(path))


def _arch(module: Module) -> str:
    return next(t for t in module.targets if t.startswith("sm_"))


def _instructions(module: Module) -> Iterator[Instruction]:
    for fn in module.functions:
        if fn.body is not None:
            for s in fn.body.walk_statements():
                if isinstance(s, Instruction):
                    yield s


@pytest.mark.parametrize("path", ACCEPTED, ids=corpus_id)
def test_corpus_instructions_check_clean(path: Path) -> None:
    module = _module(path)
    target, version = _arch(module), module.version
    assert version is not None
    problems = [
        f"{emit(insn, canonical=True).strip()}  ->  {d.code.name}: {d}"
        for insn, d in check_module(module, target=target, version=version)
    ]
    assert not problems, (
        f"{len(problems)} false positives in {corpus_id(path)} ({target}, .version"
        f" {version[0]}.{version[1]}); reproduce: pytest {HERE} -k '{corpus_id(path)}'\n"
        + "\n".join(problems[:20])
    )


def test_corpus_opcode_coverage(record_property: Callable[[str, object], None]) -> None:
    total = covered = 0
    missing: dict[str, int] = {}
    for path in ACCEPTED:
        for insn in _instructions(_module(path)):
            total += 1
            if lookup(insn.opcode, insn.modifiers) is not None:
                covered += 1
            else:
                missing[insn.mnemonic] = missing.get(insn.mnemonic, 0) + 1
    record_property("isa_coverage", f"{covered}/{total}")
    assert total > 100_000
    assert covered / total >= 0.99, f"uncovered mnemonics: {sorted(missing)[:30]}"


# ------------------------------------------------------------------------ verdicts and shapes

_JUDGED_UNDER = tuple(
    (t, v)
    for t in ("sm_70", "sm_80", "sm_90a", "sm_100a", "sm_120a")
    for v in ((7, 0), (8, 0), (8, 6), (9, 2))
)


@pytest.mark.parametrize("path", corpus_files()[::6], ids=corpus_id)
def test_verdicts_and_shape_keys_agree_with_check(path: Path) -> None:
    # Group each function's instructions by shape_key, with the declared register types and
    # with every register retyped .b16 (so that many fail). Under 20 targets and versions,
    # the first and last instruction of each group get exactly check()'s pass/fail, and the
    # group's verdict() says the same.
    module = _module(path)
    judged = disagreed = 0
    problems: list[str] = []
    for fn in module.functions:
        if fn.body is None:
            continue
        types = _register_types(fn)
        retyped = dict.fromkeys(types, PtxType.B16)
        for reg_type in (types.get, retyped.get):
            groups: dict[object, list[Instruction]] = {}
            for s in fn.body.walk_statements():
                if isinstance(s, Instruction):
                    groups.setdefault(shape_key(s, reg_type), []).append(s)
            for group in groups.values():
                said = verdict(group[0], reg_type=reg_type)
                for insn in {id(group[0]): group[0], id(group[-1]): group[-1]}.values():
                    for target, version in _JUDGED_UNDER:
                        judged += 1
                        passes = not check(insn, target=target, version=version, reg_type=reg_type)
                        if passes != said.passes(target, version):
                            disagreed += 1
                            problems.append(f"{emit(insn).strip()} on {target} {version}")
    assert judged > 0
    assert not disagreed, f"{disagreed} of {judged} disagree: {problems[:10]}"


def test_verdict_of_an_instruction_the_table_rejects() -> None:
    for insn, target, version, _ in _distinct():
        for bad in (
            replace(insn, modifiers=(*insn.modifiers, "bogus")),
            replace(insn, operands=insn.operands[:-1]),
        ):
            said = verdict(bad)
            assert said.passes(target, version) == (not check(bad, target=target, version=version))
    with pytest.raises(ValueError, match="unknown PTX target"):
        verdict(_distinct()[0][0]).passes("sm_1", (8, 0))


# ------------------------------------------------------------------------ mutations


@lru_cache(maxsize=1)
def _distinct() -> tuple[tuple[Instruction, str, tuple[int, int], str], ...]:
    """The first instance of each mnemonic in the accepted corpus, with its file's target."""
    seen: dict[str, tuple[Instruction, str, tuple[int, int], str]] = {}
    for path in ACCEPTED:
        module = _module(path)
        assert module.version is not None
        for insn in _instructions(module):
            if insn.mnemonic not in seen:
                seen[insn.mnemonic] = (insn, _arch(module), module.version, corpus_id(path))
    return tuple(seen.values())


def _fixed_arity(insn: Instruction) -> bool:
    """Whether every form of the instruction's spec takes the same, fixed operand list."""
    found = lookup(insn.opcode, insn.modifiers)
    if found is None:
        return False
    forms = found[0].forms
    counts = {len(f.operands) for f in forms}
    flexible = any(op.optional or op.variadic or op.when for f in forms for op in f.operands)
    return len(counts) == 1 and not flexible and bool(insn.operands)


def test_dropping_an_operand_is_reported() -> None:
    tried, missed = 0, []
    for insn, target, version, where in _distinct():
        if not _fixed_arity(insn):
            continue
        tried += 1
        cut = replace(insn, operands=insn.operands[:-1])
        if DiagnosticCode.OPERAND_COUNT not in {
            d.code for d in check(cut, target=target, version=version)
        }:
            missed.append(f"{where}: {insn.mnemonic}")
    assert tried >= 250
    assert not missed, missed[:20]


def test_a_bogus_modifier_is_reported() -> None:
    tried, missed = 0, []
    for insn, target, version, where in _distinct():
        bogus = replace(insn, modifiers=(*insn.modifiers, "bogus"))
        diags = check(bogus, target=target, version=version)
        tried += 1
        if not any(
            d.code is DiagnosticCode.UNKNOWN_MODIFIER and ".bogus" in d.message for d in diags
        ):
            missed.append(f"{where}: {insn.mnemonic} -> {[d.message for d in diags]}")
    assert tried >= 800
    assert not missed, missed[:20]


_LOWER_TARGETS = ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_89", "sm_90", "sm_90a",
                  "sm_100a", "sm_120a")  # fmt: skip


def test_lowering_the_target_is_reported() -> None:
    tried, missed = 0, []
    for insn, _, version, where in _distinct():
        req = requirements(insn)
        assert req is not None, insn.mnemonic
        other = next((t for t in _LOWER_TARGETS if not req.allows(t)), None)
        if other is None:
            continue
        tried += 1
        v = max(version, TARGETS[other].min_ptx)
        codes = {d.code for d in check(insn, target=other, version=v)}
        if DiagnosticCode.TARGET not in codes:
            missed.append(f"{where}: {insn.mnemonic} on {other}")
    assert tried >= 150
    assert not missed, missed[:20]


def test_lowering_the_version_is_reported() -> None:
    tried, missed = 0, []
    for insn, target, _, where in _distinct():
        req = requirements(insn)
        assert req is not None, insn.mnemonic
        major, minor = req.min_ptx
        if (major, minor) <= (1, 0):
            continue
        lower = (major, minor - 1) if minor else (major - 1, 9)
        tried += 1
        codes = {d.code for d in check(insn, target=target, version=lower)}
        if DiagnosticCode.PTX_VERSION not in codes:
            missed.append(f"{where}: {insn.mnemonic} at .version {lower}")
    assert tried >= 300
    assert not missed, missed[:20]


# ------------------------------------------------------------------------ files ptxas rejects

REJECTED = {
    "public/hopper_misc.ptx": "UNKNOWN_MODIFIER",  # membar.cluster
    "public/tcgen05_blackwell.ptx": "OPERAND_KIND",  # tcgen05.cp from an address
    "public/tma_load_store.ptx": "PTX_VERSION",  # .shared::cta destination needs 8.6
    "public/wgmma_gemm_tile.ptx": "OPERAND_COUNT",
    "public/wgmma_simple.ptx": "UNKNOWN_MODIFIER",  # k16 is not an fp8 shape
    "public/cluster_ops.ptx": "REGISTER_WIDTH",  # getctarank.u32 of a 64-bit address
    "public/external/llvm/clusterlaunchcontrol__nvvm_clusterlaunchcontrol_try_cancel.ptx":
        "TARGET",  # sm_90a has no clusterlaunchcontrol
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_files_ptxas_rejects_are_flagged(name: str) -> None:
    assert name in ptxas_rejects()
    path = next(p for p in corpus_files() if corpus_id(p) == name)
    module = _module(path)
    assert module.version is not None
    found = {d.code.name for _, d in check_module(module, target=_arch(module))}
    assert REJECTED[name] in found, (name, found, ptxas_rejects()[name])


def test_check_module_checks_reg_parameters_by_their_declared_width() -> None:
    module = parse(
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".func f(.reg .b32 %a)\n{\n.reg .b64 %rd<2>;\nadd.u64 %rd1, %a, 1;\nret;\n}\n"
    )
    assert [d.code for _, d in check_module(module)] == [DiagnosticCode.REGISTER_WIDTH]


# ------------------------------------------------------------------------ examples vs ptxas

_KERNEL = """.version {v}
.target {t}
.address_size 64
.shared .align 128 .b8 smem[4096];
.global .align 128 .b8 gmem[4096];
.const .align 8 .b8 cmem[64];
.global .texref tex0;
.global .surfref surf0;
.extern .func (.param .b32 rv) callee (.param .b32 a);
.extern .func callee2;
.visible .entry k(.param .u64 p0, .param .align 64 .b8 tmap[128])
{{
.reg .pred %p<16>;
.reg .b8 %rb<8>;
.reg .b16 %rs<64>;
.reg .b32 %r<300>;
.reg .b64 %rd<64>;
.reg .f32 %f<300>;
.reg .f64 %fd<32>;
{b128}$L0:
$Ltab: .branchtargets $L0, $Lend;
{body}
$Lend:
ret;
}}
"""

_EXAMPLES = [(sp.name, ex) for sp in SPECS.values() for ex in sp.examples]


def _minimum(text: str) -> tuple[str, tuple[int, int]]:
    """The lowest target (sm_75 at least: ptxas 13's floor) and version the table claims."""
    insn = next(parse(f".version 9.2\n.target sm_100a\n.entry k() {{\n{text}\n}}\n").instructions())
    req = requirements(insn)
    assert req is not None, text
    target = req.suggest_target()
    if not req.needs_arch_specific and TARGETS[target].sm < 75:
        target = "sm_75"
    return target, max(req.min_ptx, TARGETS[target].min_ptx)


@pytest.mark.parametrize(("name", "example"), _EXAMPLES, ids=[e for _, e in _EXAMPLES])
def test_examples_check_clean_and_assemble_at_their_minimum(name: str, example: str) -> None:
    target, version = _minimum(example)
    v = f"{version[0]}.{version[1]}"
    source = _KERNEL.format(
        v=v, t=target, body=example, b128=".reg .b128 %q<8>;\n" if version >= (8, 3) else ""
    )
    module = parse(source)
    insn = next(module.instructions())
    found = lookup(insn.opcode, insn.modifiers)
    assert found is not None and found[0].name == name
    assert [d for i, d in check_module(module, target=target, version=version) if i is insn] == []
    if find_ptxas() is None:
        pytest.skip("no ptxas found (install nvidia-cuda-nvcc)")
    ok, _, err = assemble(source, target)
    assert ok, f"ptxas rejects {example!r} at {target}, .version {v}:\n{err}"
