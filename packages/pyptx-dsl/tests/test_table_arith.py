"""The arith family's wrappers against the ISA table: what the table allows, they emit.

For every instruction spec the arith, compare, convert and logic wrappers emit, the forms of
the table are enumerated (every value of every modifier slot at least once, in one form or
another), each is turned into the matching ``ptx.*`` call in a kernel traced at a target and
``.version`` the table's gates admit, and the call must emit exactly that instruction. For
each ISA family some calls the table does not allow (a wrong type or modifier combination, or
a gate not met) must be rejected with the table's own reason, computed here with
``isa.check``. A wrapper that re-checks a rule by hand with its own words, refuses a form the
table allows, or spells a form differently from the table fails these tests.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from dsl_testing import body, check_reason, combos, insn, rejects_at

from pyptx import PtxDslError, kernel, ptx, reg, types
from pyptx.ir import Instruction, Register, isa
from pyptx.ir.isa import Form, OperandKind, OperandSpec
from pyptx.ir.targets import TARGETS

_ISA_FAMILIES = {
    "integer arithmetic",
    "extended-precision arithmetic",
    "floating point",
    "comparison and selection",
    "logic and shift",
}
_CONVERT = ("prmt", "cvt", "cvt.pack", "cvta")
SPEC_NAMES = sorted(
    name for name, sp in isa.SPECS.items() if sp.family in _ISA_FAMILIES or name in _CONVERT
)
"""Every spec the arith family's wrappers emit (cvta is the memory chapter's, ptx.cvta ours)."""

_WRAPPER = {"and": "and_", "or": "or_", "not": "not_", "add.cc": "add", "sub.cc": "sub"}
_TARGETS = ("sm_80", "sm_89", "sm_90a", "sm_100a", "sm_120a")
_FLAGS = {"NaN": "nan", "xorsign": "xorsign_abs"}
"""Flag slots and the keyword that spells them (the rest share the slot's name)."""
_VALUE_KW = ("rnd", "cmp", "op", "space")
"""Slots whose value is passed as the keyword of the same name."""


def _combos(form: Form, cap: int = 48) -> Iterator[dict[str, str]]:
    """Slot values of ``form``: the whole product when small, else every value at least once."""
    yield from combos(form, cap)


def _reg_type(name: str, scale: int = 1) -> Any:
    if scale != 1:
        name = f"{name[0]}{int(name[1:]) * scale}"
    return getattr(types, name)


def _operand(op: OperandSpec, slots: dict[str, str]) -> object:
    """A value for one table operand: a register of its type, a pair, a vector or an int."""
    ty = slots[op.type_group] if op.type_group is not None else (op.type or "b32")
    if op.kinds == OperandKind.PRED_PAIR:
        return (reg.scalar(_reg_type(ty)), reg.scalar(types.pred))
    if op.kinds & OperandKind.VECTOR and isinstance(op.count, int):
        return tuple(reg.scalar(_reg_type(ty)) for _ in range(op.count))
    if op.kinds & OperandKind.PREDICATE and not op.kinds & OperandKind.REGISTER:
        return reg.scalar(types.pred)
    if not op.kinds & OperandKind.REGISTER:
        return 0xF0  # an immediate-only operand: lop3's lookup table
    return reg.scalar(_reg_type(ty, op.scale))


def _active(form: Form, slots: dict[str, str]) -> list[OperandSpec]:
    values = set(slots.values())
    return [op for op in form.operands if not op.when or values & set(op.when)]


_IMPLIED_APPROX = ("rsqrt", "sin", "cos", "lg2", "ex2", "tanh")
"""Wrappers that always spell ``.approx``."""
_TYPE_KW = {"type": "ty", "size": "ty", "dtype": "dtype", "atype": "atype", "btype": "btype",
            "stype": "stype", "ctype": "ctype"}  # fmt: skip


def _keyword(name: str, group: str, value: str, slots: dict[str, str]) -> dict[str, object]:
    """The keyword argument that spells slot ``group`` = ``value`` of spec ``name``."""
    if name == "cvt.pack":
        return {"dtype": value} if group == "ctype" else {}
    if group in _TYPE_KW:
        wide = group == "dtype" and name in ("add", "sub", "fma")  # mixed precision: ty=
        return {"ty" if wide else _TYPE_KW[group]: getattr(types, value)}
    if group in ("rnd", "cmp", "op", "space", "mode", "bool"):
        if group == "mode" and value in ("approx", "full"):
            return {} if name in _IMPLIED_APPROX else {value: True}
        return {"bool_op" if group == "bool" else group: value}
    if group == "abs" and "xorsign" in slots:
        return {}  # .xorsign.abs is one keyword
    return {_FLAGS.get(group, group): True}  # a one-value flag slot: ftz, sat, relu, ...


def _call(name: str, form: Form, slots: dict[str, str]) -> None:
    """Make the ``ptx.*`` call that should emit ``name`` with ``slots`` (inside a trace)."""
    fn: Any = ptx.cvt.pack if name == "cvt.pack" else getattr(ptx, _WRAPPER.get(name, name))
    kw: dict[str, object] = {"cc": True} if name in ("add.cc", "sub.cc") else {}
    for group, value in slots.items():
        if group in ("dir", "to"):
            fn = getattr(fn, value)
        else:
            kw.update(_keyword(name, group, value, slots))
    takes = inspect.signature(fn).parameters
    kw = {k: v for k, v in kw.items() if k in takes}  # fixed slots (lop3's .b32) are implied
    args = []
    for op in _active(form, slots):
        value = _operand(op, slots)
        param = takes.get(op.name)
        if param is not None and param.kind is inspect.Parameter.KEYWORD_ONLY:
            kw[op.name] = value  # setp's c, lop3's q, cvt's rbits
        else:
            args.append(value)
    fn(*args, **kw)


def _mnemonic(name: str, form: Form, slots: dict[str, str]) -> str:
    return ".".join([name, *(slots[g.name] for g in form.groups if g.name in slots)])


def _with_operands(mnemonic: str, n: int) -> Instruction:
    """``mnemonic`` with ``n`` register operands (the count picks the form)."""
    return insn(mnemonic, tuple(Register(f"%r{i}") for i in range(n)))


def _gates(mnemonic: str, n_operands: int) -> tuple[str, tuple[int, int]] | None:
    """A target and the lowest ``.version`` at which the table admits ``mnemonic``."""
    req = isa.requirements(_with_operands(mnemonic, n_operands))
    if req is None:
        return None
    for target in (*_TARGETS, req.suggest_target()):
        if req.allows(target):
            return target, max(req.min_ptx, TARGETS[target].min_ptx)
    return None


@pytest.mark.parametrize("name", SPEC_NAMES)
def test_every_form_the_table_allows_is_emitted_as_spelled(name: str) -> None:
    spec = isa.SPECS[name]
    checked, failures = 0, []
    for form in spec.forms:
        for slots in _combos(form):
            expected = _mnemonic(name, form, slots)
            where = _gates(expected, len(_active(form, slots)))
            if where is None:
                continue
            target, version = where

            @kernel(arch=target, version=version)
            def k() -> None:
                _call(name, form, slots)  # noqa: B023 - traced right below

            try:
                got = body(k.ptx())[0].split(" ")[0]
            except PtxDslError as e:
                failures.append(f"{expected} at {target}, PTX {version}: rejected: {e}")
                continue
            checked += 1
            if got != expected:
                failures.append(f"{expected} at {target}, PTX {version}: emitted {got}")
    assert not failures, "\n".join(failures[:20])
    assert checked >= len(spec.forms), f"{name}: only {checked} forms could be checked"


def test_the_enumeration_covers_every_slot_value() -> None:
    for name in SPEC_NAMES:
        for form in isa.SPECS[name].forms:
            seen = {(g, v) for slots in _combos(form) for g, v in slots.items()}
            assert seen == {(g.name, v) for g in form.groups for v in g.values}, name


def _u32() -> Any:
    return reg.scalar(types.u32)


def _f(ty: str = "f32") -> Any:
    return reg.scalar(getattr(types, ty))


def _p() -> Any:
    return reg.scalar(types.pred)


# (family, the call, the instruction it spells, target, version or None for the newest)
Bad = tuple[str, Callable[[], object], str, int, str, tuple[int, int] | None]
REJECTED: list[Bad] = [
    ("integer arithmetic", lambda: ptx.add(_u32(), _u32(), _u32(), sat=True), "add.sat.u32", 3,
     "sm_80", None),
    ("integer arithmetic", lambda: ptx.sub(_u32(), _u32(), _u32(), ty=types.s16x2), "sub.s16x2", 3,
     "sm_90a", None),
    ("integer arithmetic", lambda: ptx.max(*(_f("s16x2") for _ in range(3)), relu=True),
     "max.relu.s16x2", 3, "sm_80", None),
    ("extended-precision arithmetic",
     lambda: ptx.mad(*(_f("u16") for _ in range(4)), mode="lo", cc=True), "mad.lo.cc.u16", 4,
     "sm_80", None),
    ("extended-precision arithmetic", lambda: ptx.addc(_u32(), _u32(), _u32(), ty=types.u16),
     "addc.u16", 3, "sm_80", None),
    ("floating point", lambda: ptx.fma(*(_f("f32x2") for _ in range(4)), rnd="rn", sat=True),
     "fma.rn.sat.f32x2", 4, "sm_100a", None),
    ("floating point", lambda: ptx.min(_f(), _f(), _f(), abs=True), "min.abs.f32", 3, "sm_90a",
     None),
    ("floating point", lambda: ptx.tanh(_f("bf16"), _f("bf16")), "tanh.approx.bf16", 2, "sm_80",
     None),
    ("floating point", lambda: ptx.min(_f(), _f(), _f(), _f()), "min.f32", 4, "sm_100a", (8, 6)),
    ("comparison and selection", lambda: ptx.setp(_p(), _f("s32"), _f("s32"), cmp="lt", ftz=True),
     "setp.lt.ftz.s32", 3, "sm_80", None),
    ("comparison and selection", lambda: ptx.setp(_p(), _f(), _f(), cmp="hs"), "setp.hs.f32", 3,
     "sm_80", None),
    ("comparison and selection", lambda: ptx.set(_f(), _f("f16"), _f("f16"), cmp="lt"),
     "set.lt.f32.f16", 3, "sm_80", None),
    ("logic and shift", lambda: ptx.and_(_u32(), 1, 0, ty=types.u32), "and.u32", 3, "sm_80",
     None),
    ("logic and shift",
     lambda: ptx.lop3((_f("b32"), _p()), _u32(), _u32(), _u32(), 0xF0, bool_op="or", q=_p()),
     "lop3.or.b32", 6, "sm_80", (8, 1)),
    ("data movement and conversion",
     lambda: ptx.cvt(_f("f16"), _f(), rnd="rn", ftz=True, relu=True), "cvt.rn.ftz.relu.f16.f32",
     2, "sm_90a", None),
    ("data movement and conversion",
     lambda: ptx.cvt(_f("e2m3x2"), _f(), _f(), rnd="rn", satfinite=True),
     "cvt.rn.satfinite.e2m3x2.f32", 3, "sm_90a", None),
    ("data movement and conversion",
     lambda: ptx.cvt(_f("e4m3x4"), (_f(), _f(), _f(), _f()), rnd="rs", satfinite=True,
                     rbits=_u32()),
     "cvt.rs.satfinite.e4m3x4.f32", 3, "sm_100a", (8, 6)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("family", "call", "mnemonic", "n", "target", "version"),
    REJECTED,
    ids=[f"{bad[2]}@{bad[4]}" for bad in REJECTED],
)
def test_forms_the_table_refuses_are_rejected_with_its_reason(
    family: str,
    call: Callable[[], object],
    mnemonic: str,
    n: int,
    target: str,
    version: tuple[int, int] | None,
) -> None:
    bad = _with_operands(mnemonic, n)
    assert isa.lookup(bad.opcode, bad.modifiers) is not None
    reason = check_reason(bad, target, version)

    @kernel(arch=target, version=version)
    def k() -> None:
        call()

    rejects_at(k, reason, call)


def test_every_family_has_rejection_examples() -> None:
    families = {isa.SPECS[n].family for n in SPEC_NAMES}
    assert families == {bad[0] for bad in REJECTED}
