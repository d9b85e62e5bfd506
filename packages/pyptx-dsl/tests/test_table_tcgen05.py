"""ptx.tcgen05 against the ISA table: the table, not the wrappers, decides what is legal.

For every tcgen05 instruction in :data:`pyptx.ir.isa.SPECS`, every form and every combination
of its modifiers (capped, each value at least once) is turned into the matching ``ptx.tcgen05``
call, traced at a target and ``.version`` the table's gates admit, and must come out as that
very instruction. Then forms the table does not allow (a target or version below a gate, a
wrong modifier combination, a wrong operand) must be rejected at the caller's line with the
table's own reason, computed with :func:`pyptx.ir.isa.check` on the instruction the wrapper
builds (traced once with the validator switched off).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from dsl_testing import combos, table_verdicts

from pyptx import kernel, ptx, reg, smem
from pyptx.dsl.errors import PtxDslError
from pyptx.ir import TARGETS, Instruction, isa
from pyptx.ir.isa import Form, Gate, InstructionSpec, OperandKind
from pyptx.types import b16, f32, pred, u16, u32, u64

Slots = Mapping[str, str]
Body = Callable[[], None]
Builder = Callable[[Slots, "Form | None"], Body]

FAMILY = [s for s in isa.SPECS.values() if s.name.startswith("tcgen05.")]
CAP = 96
"""At most this many modifier combinations per form (past it, a set that has every value)."""


# ----------------------------------------------------------------- slots -> wrapper calls


def _cta(s: Slots) -> int:
    return int(s["cta_group"].removeprefix("cta_group::"))


def _alloc(s: Slots, f: Form | None) -> Body:
    def body() -> None:
        dst = smem.alloc(u32, 1, align=16) if "space" in s else reg.scalar(u64)
        ptx.tcgen05.alloc(dst, 64, cta_group=_cta(s))

    return body


def _dealloc(s: Slots, f: Form | None) -> Body:
    return lambda: ptx.tcgen05.dealloc(reg.scalar(u32), 64, cta_group=_cta(s))


def _relinquish(s: Slots, f: Form | None) -> Body:
    return lambda: ptx.tcgen05.relinquish_alloc_permit(cta_group=_cta(s))


def _a_in_tmem(s: Slots, f: Form | None) -> bool:
    """Whether the form takes A only from Tensor Memory (an address, not a descriptor)."""
    if f is None:
        return "ashift" in s
    return next(op for op in f.operands if op.name == "a").kinds == OperandKind.ADDRESS


def _mma(variant: str) -> Builder:
    def build(s: Slots, f: Form | None) -> Body:
        kw: dict[str, object] = {"kind": s["kind"], "cta_group": _cta(s), "ashift": "ashift" in s}
        if "scale_vec" in s:
            kw["scale_vec"] = s["scale_vec"].removeprefix("scale_vec::")
        if "collector" in s:
            _, where, kw["collector"] = s["collector"].split("::")
            if where != "a":
                kw["buffer"] = int(where[1:])
        if "ws" in variant:
            kw.pop("ashift")
        a_tmem = _a_in_tmem(s, f)

        def body() -> None:
            if "block_scale" in s:
                kw.update(scale_a=reg.scalar(u32), scale_b=reg.scalar(u32))
            call = ptx.tcgen05.mma
            for part in variant.split(".")[1:]:
                call = getattr(call, part)
            head = [reg.scalar(u32), reg.scalar(u32 if a_tmem else u64), reg.scalar(u64)]
            meta = [reg.scalar(u32)] if variant.endswith("sp") else []
            call(*head, *meta, 0x08200490, enable_input_d=reg.scalar(pred), **kw)

        return body

    return build


def _count(s: Slots, spec: InstructionSpec) -> int:
    """The register count the table gives operand ``r`` for these modifiers."""
    r = next(op for op in spec.forms[0].operands if op.name == "r")
    assert callable(r.count)
    n = r.count({k: (v,) for k, v in s.items()})
    assert n is not None
    return n


def _ld_st(load: bool) -> Builder:
    spec = isa.SPECS["tcgen05.ld" if load else "tcgen05.st"]

    def build(s: Slots, f: Form | None) -> Body:
        n = _count(s, spec)
        split = 16 if s["shape"] == "16x32bx2" else None
        num = int(s["num"].removeprefix("x"))

        def body() -> None:
            regs, taddr = reg.array(f32 if load else u32, n), reg.scalar(u32)
            if load:
                ptx.tcgen05.ld(regs, taddr, shape=s["shape"], num=num, pack="pack" in s,
                               half_split_offset=split)  # fmt: skip
            else:
                ptx.tcgen05.st(taddr, regs, shape=s["shape"], num=f"x{num}", unpack="pack" in s,
                               half_split_offset=split)  # fmt: skip

        return body

    return build


def _cp(s: Slots, f: Form | None) -> Body:
    def body() -> None:
        ptx.tcgen05.cp(
            reg.scalar(u32), reg.scalar(u64), shape=s["shape"], cta_group=_cta(s),
            multicast=s.get("multicast"), dst_fmt=s.get("dst_fmt"), src_fmt=s.get("src_fmt"),
        )  # fmt: skip

    return body


def _shift(s: Slots, f: Form | None) -> Body:
    return lambda: getattr(ptx.tcgen05.shift, s["dir"])(reg.scalar(u32), cta_group=_cta(s))


def _commit(s: Slots, f: Form | None) -> Body:
    def body() -> None:
        mbar = smem.mbarrier(1)[0] if "space" in s else reg.scalar(u64)
        mask = reg.scalar(b16) if "multicast" in s else None
        ptx.tcgen05.commit(mbar, cta_group=_cta(s), multicast_mask=mask)

    return body


def _bare(name: str) -> Builder:
    """``tcgen05.wait::ld`` -> ``ptx.tcgen05.wait.ld()`` (no modifiers to choose)."""
    group, _, member = name.removeprefix("tcgen05.").partition("::")
    return lambda s, f: lambda: getattr(getattr(ptx.tcgen05, group), member)()


BUILDERS: dict[str, Builder] = {
    "tcgen05.alloc": _alloc,
    "tcgen05.dealloc": _dealloc,
    "tcgen05.relinquish_alloc_permit": _relinquish,
    "tcgen05.mma": _mma("mma"),
    "tcgen05.mma.sp": _mma("mma.sp"),
    "tcgen05.mma.ws": _mma("mma.ws"),
    "tcgen05.mma.ws.sp": _mma("mma.ws.sp"),
    "tcgen05.ld": _ld_st(True),
    "tcgen05.st": _ld_st(False),
    "tcgen05.cp": _cp,
    "tcgen05.shift": _shift,
    "tcgen05.commit": _commit,
    **{
        name: _bare(name)
        for name in (
            "tcgen05.wait::ld",
            "tcgen05.wait::st",
            "tcgen05.fence::before_thread_sync",
            "tcgen05.fence::after_thread_sync",
        )
    },
}


# ----------------------------------------------------------------- the table's forms


def _combos(form: Form) -> Iterator[dict[str, str]]:
    """Modifier choices of one form: all of them, or past CAP a set that has every value."""
    assert not any(g.patterns or g.repeat for g in form.groups), "enumerate listed values only"
    yield from combos(form, CAP)


def _gate(spec: InstructionSpec, form: Form, s: Slots) -> Gate:
    gate = spec.gate.combine(form.gate)
    for g in form.groups:
        if g.name in s and s[g.name] in g.gates:
            gate = gate.combine(g.gates[s[g.name]])
    return gate


def _admitted(gate: Gate) -> tuple[str, tuple[int, int]]:
    """The lowest target the gate allows, and the lowest ``.version`` both accept."""
    target = gate.suggest()
    assert target is not None, "no target has every feature of this form"
    return target, max(gate.ptx, TARGETS[target].min_ptx)


def _mnemonic(spec: InstructionSpec, s: Slots) -> str:
    return ".".join((spec.name, *s.values()))


CASES = [(spec, form, s) for spec in FAMILY for form in spec.forms for s in _combos(form)]
"""Every (instruction, form, modifiers) the enumeration covers."""
ALLOWED = [pytest.param(*case, id=_mnemonic(case[0], case[2])) for case in CASES]


def _trace(body: Body, arch: str, version: tuple[int, int] | None) -> list[Instruction]:
    module = kernel(arch=arch, version=version)(body).module()
    return [i for i in module.instructions() if i.opcode == "tcgen05"]


def test_every_spec_of_the_family_has_a_wrapper() -> None:
    assert {s.name for s in FAMILY} == set(BUILDERS)


@pytest.mark.parametrize(("spec", "form", "slots"), ALLOWED)
def test_wrapper_emits_every_form_the_table_allows(
    spec: InstructionSpec, form: Form, slots: Slots
) -> None:
    arch, version = _admitted(_gate(spec, form, slots))
    (insn,) = _trace(BUILDERS[spec.name](slots, form), arch, version)
    found = isa.match(insn)
    assert found is not None, insn.mnemonic
    assert (found.spec, found.form) == (spec, form), insn.mnemonic
    assert dict(found.slots) == {k: (v,) for k, v in slots.items()}
    assert not isa.check(insn, target=arch, version=version)


# ----------------------------------------------------------------- what the table refuses


def _table_reason(body: Body, arch: str, version: tuple[int, int] | None) -> str:
    """The table's first diagnostic for the instruction the wrapper builds (unvalidated)."""
    seen = table_verdicts(kernel(arch=arch, version=version)(body).module)
    insn, reason = next((i, why) for i, why in reversed(seen) if i.opcode == "tcgen05")
    assert reason, f"the table allows {insn.mnemonic} on {arch}"
    return reason


def _rejects_with_the_table_reason(
    body: Body, arch: str = "sm_100a", version: tuple[int, int] | None = None
) -> str:
    reason = _table_reason(body, arch, version)
    with pytest.raises(PtxDslError) as info:
        kernel(arch=arch, version=version)(body).module()
    err = info.value
    assert reason in err.message, err.message
    assert err.filename is not None and Path(err.filename).name == Path(__file__).name, str(err)
    return reason


FIRST = [
    pytest.param(spec, spec.forms[0], next(_combos(spec.forms[0])), id=spec.name) for spec in FAMILY
]


@pytest.mark.parametrize(("spec", "form", "slots"), FIRST)
def test_a_target_without_tcgen05_gets_the_table_reason(
    spec: InstructionSpec, form: Form, slots: Slots
) -> None:
    _, version = _admitted(_gate(spec, form, slots))
    reason = _rejects_with_the_table_reason(
        BUILDERS[spec.name](slots, form), "sm_90a", max(version, TARGETS["sm_90a"].min_ptx)
    )
    assert "sm_90a" in reason


VERSION_GATED = [
    pytest.param(spec, form, s, id=_mnemonic(spec, s))
    for spec, form, s in CASES
    if _gate(spec, form, s).ptx > TARGETS[_admitted(_gate(spec, form, s))[0]].min_ptx
]


@pytest.mark.parametrize(("spec", "form", "slots"), VERSION_GATED)
def test_a_version_below_a_gate_gets_the_table_reason(
    spec: InstructionSpec, form: Form, slots: Slots
) -> None:
    arch, _ = _admitted(_gate(spec, form, slots))
    low = TARGETS[arch].min_ptx
    reason = _rejects_with_the_table_reason(BUILDERS[spec.name](slots, form), arch, low)
    assert f".version {low[0]}.{low[1]}" in reason


def _bad(name: str, **slots: str) -> Body:
    return BUILDERS[name](slots, None)


_MMA = {"cta_group": "cta_group::1"}
BAD_MODIFIERS: dict[str, Body] = {
    "ld num past the shape's registers": _bad("tcgen05.ld", shape="16x256b", num="x64"),
    "st num past the shape's registers": _bad("tcgen05.st", shape="16x128b", num="x128"),
    "mma scale_vec of another kind": _bad(
        "tcgen05.mma",
        **_MMA,
        kind="kind::mxf8f6f4",
        block_scale="block_scale",
        scale_vec="scale_vec::4X",
    ),
    "mma.sp scale_vec of another kind": _bad(
        "tcgen05.mma.sp",
        **_MMA,
        kind="kind::mxf4",
        block_scale="block_scale",
        scale_vec="block16",
    ),
    "mxf4nvf4 without scale_vec": _bad(
        "tcgen05.mma", **_MMA, kind="kind::mxf4nvf4", block_scale="block_scale"
    ),
    "ashift with the fill collector": _bad(
        "tcgen05.mma", **_MMA, kind="kind::f16", ashift="ashift", collector="collector::a::fill"
    ),
    "ws with cta_group 2": _bad("tcgen05.mma.ws", cta_group="cta_group::2", kind="kind::f16"),
    "ws with a block-scaled kind": _bad("tcgen05.mma.ws.sp", **_MMA, kind="kind::mxf4"),
    "cp 64x128b without multicast": _bad("tcgen05.cp", **_MMA, shape="64x128b"),
    "cp 128x256b with multicast": _bad("tcgen05.cp", **_MMA, shape="128x256b", multicast="warpx4"),
    "cp dst_fmt without src_fmt": _bad("tcgen05.cp", **_MMA, shape="4x256b", dst_fmt="b8x16"),
    "cta_group 3": _bad("tcgen05.relinquish_alloc_permit", cta_group="cta_group::3"),
}


def _dabi() -> tuple[object, object, object, object]:
    return reg.scalar(u32), reg.scalar(u64), reg.scalar(u64), reg.scalar(u32)


BAD_OPERANDS: dict[str, Body] = {
    "ashift with A from a descriptor": lambda: ptx.tcgen05.mma(
        *_dabi(), kind="f16", enable_input_d=True, ashift=True
    ),
    "scale_input_d with kind::i8": lambda: ptx.tcgen05.mma(
        *_dabi(), kind="i8", enable_input_d=True, scale_input_d=1
    ),
    "scale_input_d past 15": lambda: ptx.tcgen05.mma(
        *_dabi(), kind="tf32", enable_input_d=True, scale_input_d=16
    ),
    "lanes for the other cta_group": lambda: ptx.tcgen05.mma(
        *_dabi(), kind="f16", enable_input_d=True, disable_output_lane=reg.array(u32, 8)
    ),
    "block-scaled kind without scales": lambda: ptx.tcgen05.mma.sp(
        *_dabi()[:3], reg.scalar(u32), 0, kind="mxf4", enable_input_d=True, scale_vec="2X"
    ),
    "a 64-bit Tensor Memory address": lambda: ptx.tcgen05.shift.down(reg.scalar(u64)),
    "a 64-bit D address": lambda: ptx.tcgen05.mma.ws(
        reg.scalar(u64), *_dabi()[1:], kind="tf32", enable_input_d=False
    ),
    "ld registers too few": lambda: ptx.tcgen05.ld(
        reg.array(u32, 3), reg.scalar(u32), shape="16x128b", num=2
    ),
    "ld 16x32bx2 without its offset": lambda: ptx.tcgen05.ld(
        reg.array(u32, 1), reg.scalar(u32), shape="16x32bx2", num=1
    ),
    "alloc columns not a power of two": lambda: ptx.tcgen05.alloc(smem.alloc(u32, 1), 96),
    "dealloc 64-bit address": lambda: ptx.tcgen05.dealloc(reg.scalar(u64), 32),
    "commit mask in a 32-bit register": lambda: ptx.tcgen05.commit(
        smem.mbarrier(1)[0], multicast_mask=reg.scalar(u32)
    ),
    "enable_input_d not a predicate": lambda: ptx.tcgen05.mma(
        *_dabi(), kind="f16", enable_input_d=reg.scalar(u16)
    ),
}


@pytest.mark.parametrize("body", [*BAD_MODIFIERS.values(), *BAD_OPERANDS.values()],
                         ids=[*BAD_MODIFIERS, *BAD_OPERANDS])  # fmt: skip
def test_a_form_the_table_refuses_gets_the_table_reason(body: Body) -> None:
    _rejects_with_the_table_reason(body)
