"""The matrix family's wrappers against the ISA table: every form it allows, and its reasons.

For each instruction that ``ptx.mma``, ``ptx.wgmma``, ``ptx.ldmatrix``, ``ptx.stmatrix`` and
``ptx.movmatrix`` emit, every form of :data:`pyptx.ir.isa.SPECS` is enumerated (each value of
each modifier slot at least once, the whole product where it is small), the matching call is
traced at the lowest target and ``.version`` the table's gates admit, with fragments sized by
the table's own operand counts, and the call must emit exactly that form. Then, per family,
calls the table rejects (a shape/type combination it lacks, a gate not met) must fail at the
user's line with the table's own reason, computed here with :func:`pyptx.ir.isa.check`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from dsl_testing import assignments, body, check_reason, insn, lowest_target, rejects_at

from pyptx import kernel, ptx, reg, smem
from pyptx.ir import TARGETS, isa
from pyptx.types import b8, b16, b32, b64, bf16, e2m1, f16, f16x2, f32, f64, s8, s32, u64, ue8m0

Slots = dict[str, str | None]
Call = Callable[[Slots, isa.Form], object]

_ACC = {"f32": f32, "f16": f16x2, "s32": s32, "f64": f64}
"""Register type of a D/C fragment element by the slot's type (two f16 per register)."""


def _on(s: Slots, name: str) -> bool:
    return s.get(name) is not None


def _counts(form: isa.Form, s: Slots) -> dict[str, int]:
    """The vector operands' element counts, from the table's own count functions."""
    slots = {k: (v,) for k, v in s.items() if v is not None}
    out = {}
    for op in form.operands:
        n = op.count(slots) if callable(op.count) else op.count
        if isinstance(n, int):
            out[op.name] = n
    return out


def _frag(s: Slots, form: isa.Form, which: str) -> object:
    n = _counts(form, s)[which]
    ty = _ACC[str(s[which[0] + "type"])] if which in "dc" else b32
    return reg.array(f64 if s.get("atype") == "f64" else ty, n)  # type: ignore[call-overload]


def _selector(form: isa.Form, s: Slots, name: str) -> int:
    """The largest sparsity selector the table allows (the edge of its range)."""
    op = next(o for o in form.operands if o.name == name)
    assert op.values is not None
    allowed = op.values({k: (v,) for k, v in s.items() if v is not None})
    assert allowed is not None
    return max(allowed[0])


def _bare(s: Slots, name: str) -> str | None:
    """A slot's value without its ``name::`` prefix (``kind::mxf4`` -> ``mxf4``)."""
    value = s.get(name)
    return value.removeprefix(f"{name}::") if value is not None else None


def _mma_kw(s: Slots) -> dict[str, object]:
    block = _on(s, "block_scale")
    sf = reg.scalar(b32)
    return {
        "shape": s["shape"], "dtype_a": s["atype"], "dtype_b": s["btype"],
        "dtype_c": s["ctype"], "dtype_d": s["dtype"], "satfinite": _on(s, "satfinite"),
        "kind": _bare(s, "kind"), "scale_vec": _bare(s, "scale_vec"), "stype": s.get("stype"),
        "scale_a": (sf, 0, 0) if block else None, "scale_b": (sf, 0, 1) if block else None,
    }  # fmt: skip


def _mma(s: Slots, form: isa.Form) -> object:
    d, a, b, c = (_frag(s, form, x) for x in "dabc")
    layouts = {"layout_a": s["alayout"], "layout_b": s["blayout"]}
    return ptx.mma(d, a, b, c, **layouts, **_mma_kw(s), bit_op=s.get("bitop"))  # type: ignore[arg-type]


def _mma_sp(ordered: bool) -> Call:
    def call(s: Slots, form: isa.Form) -> object:
        d, a, b, c = (_frag(s, form, x) for x in "dabc")
        sel = _selector(form, s, "f")
        return ptx.mma.sp(d, a, b, c, reg.scalar(b32), sel, ordered=ordered, **_mma_kw(s))  # type: ignore[arg-type]

    return call


def _matrix(s: Slots) -> dict[str, object]:
    ty = s.get("type") or s.get("dst_fmt")
    return {"num": s["num"], "trans": _on(s, "trans"), "shape": s["shape"], "ty": ty,
            "space": s.get("ss")}  # fmt: skip


def _address(s: Slots) -> object:
    return smem.alloc(b8, 4096) if _on(s, "ss") else reg.scalar(u64)


def _ldmatrix(s: Slots, form: isa.Form) -> object:
    regs = reg.array(b32, _counts(form, s)["d"])
    return ptx.ldmatrix(regs, _address(s), **_matrix(s), src_fmt=s.get("src_fmt"))  # type: ignore[arg-type]


def _stmatrix(s: Slots, form: isa.Form) -> object:
    regs = reg.array(b32, int(str(s["num"])[1:]))
    return ptx.stmatrix(_address(s), regs, **_matrix(s))  # type: ignore[arg-type]


def _movmatrix(s: Slots, form: isa.Form) -> object:
    return ptx.movmatrix(None, reg.scalar(b32), shape=str(s["shape"]), ty=s["type"])


def _wgmma(sparse: bool) -> Call:
    def call(s: Slots, form: isa.Form) -> object:
        d = reg.array(_ACC[str(s["dtype"])], _counts(form, s)["d"])  # type: ignore[call-overload]
        a_regs = any(o.name == "a" and o.kinds & isa.OperandKind.VECTOR for o in form.operands)
        a = reg.array(b32, 4) if a_regs else reg.scalar(b64)
        kw = {"shape": s["shape"], "dtype_a": s["atype"], "dtype_b": s["btype"],
              "dtype_d": s["dtype"], "satfinite": _on(s, "satfinite")}  # fmt: skip
        if sparse:
            sel = _selector(form, s, "sp-sel")
            return ptx.wgmma.mma_async.sp(d, a, reg.scalar(b64), reg.scalar(b32), sel, **kw)  # type: ignore[arg-type]
        return ptx.wgmma.mma_async(d, a, reg.scalar(b64), bit_op=s.get("op"), **kw)  # type: ignore[arg-type]

    return call


CALLS: dict[str, Call] = {
    "mma": _mma,
    "mma.sp": _mma_sp(False),
    "mma.sp::ordered_metadata": _mma_sp(True),
    "ldmatrix": _ldmatrix,
    "stmatrix": _stmatrix,
    "movmatrix": _movmatrix,
    "wgmma.mma_async": _wgmma(False),
    "wgmma.mma_async.sp": _wgmma(True),
    "wgmma.fence": lambda s, f: ptx.wgmma.fence(),
    "wgmma.commit_group": lambda s, f: ptx.wgmma.commit_group(),
    "wgmma.wait_group": lambda s, f: ptx.wgmma.wait_group(1),
}
"""Spelling (spec name or alias) -> the wrapper call for a form's slot values."""

SPEC = {"mma.sp::ordered_metadata": "mma.sp"}
"""The spec of each spelling that is an alias."""

NOT_WRAPPED = {
    "wmma.load": "no wmma wrapper (ptx.mma covers the register-fragment MMAs)",
    "wmma.store": "no wmma wrapper",
    "wmma.mma": "no wmma wrapper",
}
"""Specs of the matrix ISA modules that no matrix wrapper emits, and why."""

NOT_WRAPPED_SLOTS = {("mma", "rnd"): "ptx.mma has no rounding keyword for the f64 forms"}
"""(spec, slot) pairs no keyword spells; enumerated as absent only."""


def test_every_matrix_spec_has_a_wrapper_or_a_reason() -> None:
    from pyptx.ir.isa import _mma, _wgmma

    names = {sp.name for sp in (*_mma.SPECS, *_wgmma.SPECS)}
    wrapped = {SPEC.get(n, n) for n in CALLS}
    assert names <= wrapped | set(NOT_WRAPPED), sorted(names - wrapped - set(NOT_WRAPPED))


def _cases() -> Iterator[tuple[str, str, int, Slots]]:
    for spelling in CALLS:
        spec = isa.SPECS[SPEC.get(spelling, spelling)]
        for i, form in enumerate(spec.forms):
            if form.names and spelling not in form.names:
                continue
            absent = {slot for sp, slot in NOT_WRAPPED_SLOTS if sp == spec.name}
            for slots in assignments(form, absent):
                mods = (v for g in form.groups if (v := slots[g.name]))
                mnemonic = ".".join((spelling, *mods))
                m = isa.match(insn(mnemonic))
                # an earlier form may take the same modifiers (wgmma's A-in-registers twin
                # has the modifiers of the descriptor form: the operands tell them apart)
                if m is not None and (m.form is form or m.form.groups == form.groups):
                    yield spelling, mnemonic, i, slots


CASES = list(_cases())


def test_the_enumeration_covers_every_form_and_value() -> None:
    seen: dict[str, set[tuple[str, str]]] = {}
    forms: dict[str, set[int]] = {}
    for spelling, _, i, slots in CASES:
        name = SPEC.get(spelling, spelling)
        seen.setdefault(name, set()).update((k, v) for k, v in slots.items() if v is not None)
        forms.setdefault(name, set()).add(i)
    for name in {SPEC.get(n, n) for n in CALLS}:
        assert forms[name] == set(range(len(isa.SPECS[name].forms))), name
        for form in isa.SPECS[name].forms:
            for g in form.groups:
                if (name, g.name) in NOT_WRAPPED_SLOTS:
                    continue
                for v in g.values:
                    assert (g.name, v) in seen.get(name, set()), (name, g.name, v)


@pytest.mark.parametrize(
    ("spelling", "mnemonic", "index", "slots"),
    [pytest.param(*c, id=f"{c[1]}#{c[2]}") for c in CASES],
)
def test_wrapper_emits_each_form_the_table_allows(
    spelling: str, mnemonic: str, index: int, slots: Slots
) -> None:
    req = isa.requirements(insn(mnemonic))
    assert req is not None
    target = lowest_target(req)
    version = max(req.min_ptx, TARGETS[target].min_ptx)
    form = isa.SPECS[SPEC.get(spelling, spelling)].forms[index]
    call = CALLS[spelling]

    @kernel(arch=target, version=version)
    def k() -> None:
        call(slots, form)

    line = body(k.ptx())[0]
    emitted = isa.match(insn(line.split(" ")[0].rstrip(";")))
    assert emitted is not None, line
    assert emitted.name == spelling, line
    assert emitted.slots == {k: (v,) for k, v in slots.items() if v is not None}, line
    assert emitted.form.groups == form.groups, line


def _frags(*spec: tuple[object, int]) -> list[object]:
    """Register arrays of (element type, count), one per fragment."""
    return [reg.array(ty, n) for ty, n in spec]  # type: ignore[call-overload]


_F32_K16 = ((f32, 4), (b32, 4), (b32, 2), (f32, 4))
"""D, A, B, C of an m16n8 f32 MMA with two B registers."""
_F32_K64 = ((f32, 4), (b32, 4), (b32, 4), (f32, 4))

REJECTED: list[tuple[str, Callable[[], object], str, tuple[int, int] | None]] = [
    # mma: a shape the type lacks, layouts other than row.col, C unlike D, a target too low,
    # sparse int8 on an m8n8 shape, kind::f8f6f4 sparse without ordered metadata, PTX 9.0
    ("mma.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32",
     lambda: ptx.mma(*_frags(*_F32_K16), shape="m16n8k32", dtype_a=bf16), "sm_80", None),
    ("mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32",
     lambda: ptx.mma(*_frags(*_F32_K16), shape="m16n8k16", dtype_a=f16, layout_a="col",
                     layout_b="row"), "sm_80", None),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16",
     lambda: ptx.mma(*_frags(*_F32_K16[:3], (f16x2, 2)), shape="m16n8k16", dtype_a=f16,
                     dtype_c=f16), "sm_80", None),
    ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
     lambda: ptx.mma(*_frags(*_F32_K16), shape="m16n8k16", dtype_a=bf16), "sm_75", None),
    ("mma.sp.sync.aligned.m8n8k32.row.col.s32.s8.s8.s32",
     lambda: ptx.mma.sp(*_frags((s32, 2), (b32, 1), (b32, 1), (s32, 2)), reg.scalar(b32), 0,
                        shape="m8n8k32", dtype_a=s8), "sm_80", None),
    ("mma.sp.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32",
     lambda: ptx.mma.sp(*_frags(*_F32_K64), reg.scalar(b32), 0, shape="m16n8k64", dtype_a=e2m1,
                        kind="f8f6f4"), "sm_120a", None),
    ("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1"
     ".e2m1.f32.ue8m0",
     lambda: ptx.mma(*_frags(*_F32_K16), shape="m16n8k64", dtype_a=e2m1, kind="mxf4nvf4",
                     scale_vec="4X", stype=ue8m0, scale_a=(reg.scalar(b32), 0, 0),
                     scale_b=(reg.scalar(b32), 0, 0)), "sm_120a", (9, 0)),
    # ldmatrix / stmatrix / movmatrix: a target too low, .trans where the shape has none, a
    # .num the shape lacks, .trans missing where it is mandatory, a .version too old
    ("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8",
     lambda: ptx.ldmatrix(reg.array(b32, 2), smem.alloc(b8, 256), shape="m16n16", ty=b8,
                          trans=True), "sm_90a", None),
    ("ldmatrix.sync.aligned.m8n16.x1.trans.shared.b8x16.b4x16_p64",
     lambda: ptx.ldmatrix(reg.array(b32, 1), smem.alloc(b8, 256), shape="m8n16", ty="b8x16",
                          src_fmt="b4x16_p64", trans=True), "sm_100a", None),
    ("ldmatrix.sync.aligned.m16n16.x4.trans.shared.b8x16.b6x16_p32",
     lambda: ptx.ldmatrix(reg.array(b32, 8), smem.alloc(b8, 256), shape="m16n16", ty="b8x16",
                          src_fmt="b6x16_p32", trans=True), "sm_100a", None),
    ("stmatrix.sync.aligned.m8n8.x4.shared.b16",
     lambda: ptx.stmatrix(smem.alloc(b16, 256), reg.array(b32, 4)), "sm_80", None),
    ("stmatrix.sync.aligned.m16n8.x1.shared.b8",
     lambda: ptx.stmatrix(smem.alloc(b8, 256), reg.array(b32, 1), shape="m16n8", ty=b8),
     "sm_100a", None),
    ("movmatrix.sync.aligned.m8n8.trans.b16",
     lambda: ptx.movmatrix(None, reg.scalar(b32)), "sm_80", (7, 5)),
    # wgmma: not on sm_90, bf16 into f16, no sparse b1, fences on an sm_80 target
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16",
     lambda: ptx.wgmma.mma_async(reg.array(f32, 4), reg.scalar(b64), reg.scalar(b64),
                                 dtype_a=bf16), "sm_90", None),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16",
     lambda: ptx.wgmma.mma_async(reg.array(f16x2, 2), reg.scalar(b64), reg.scalar(b64),
                                 dtype_a=bf16, dtype_d=f16), "sm_90a", None),
    ("wgmma.mma_async.sp.sync.aligned.m64n8k32.s32.b1.b1",
     lambda: ptx.wgmma.mma_async.sp(reg.array(s32, 4), reg.scalar(b64), reg.scalar(b64),
                                    reg.scalar(b32), 0, dtype_a="b1", shape="m64n8k32"),
     "sm_90a", None),
    ("wgmma.fence.sync.aligned", lambda: ptx.wgmma.fence(), "sm_80", None),
]  # fmt: skip
"""(the instruction the call emits, the call, target, pinned .version) the table rejects."""


@pytest.mark.parametrize(
    ("text", "make", "arch", "version"), [pytest.param(*c, id=c[0]) for c in REJECTED]
)
def test_wrapper_rejects_with_the_tables_reason(
    text: str, make: Callable[[], object], arch: str, version: tuple[int, int] | None
) -> None:
    reason = check_reason(insn(text), arch, version)

    @kernel(arch=arch, version=version)
    def k() -> None:
        make()

    rejects_at(k, reason, make)
