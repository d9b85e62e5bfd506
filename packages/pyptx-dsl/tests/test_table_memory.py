"""The memory family's wrappers against the ISA table: every form it allows, and its reasons.

For every instruction spec the data-movement, atomic, cp.async, bulk-copy and tensor-map
wrappers emit, each form of the table is enumerated (every value of every modifier slot at
least once, plus all optional slots together), translated into the matching ``ptx.*`` call,
and traced at the lowest target and ``.version`` the table's gates admit (not below sm_80 and
its PTX 7.0, where kernels start); the wrapper must accept it and emit exactly those
modifiers. Then, per family, calls the table rejects (a combination of modifiers it lacks, or
a gate not met) must fail at the user's line with the table's own reason, computed here with
``isa.check`` on the instruction the wrapper emits. (``ptx.mov`` is left out: its spec belongs
to the conversion family's table.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pytest
from dsl_testing import table_verdicts

from pyptx import Layout, PtxDslError, Tile, kernel, ptx, reg, smem
from pyptx.ir import TARGETS, Instruction, PtxType, isa
from pyptx.ir.isa import Form, Gate, InstructionSpec, Requirements
from pyptx.types import b64, bf16, f32, pred, u32, u64

Slots = dict[str, tuple[str, ...]]
TMA = Tile(256, 256, bf16, layout=Layout.TMA_128B)
PLAIN = Tile(4096, f32)


class Operands:
    """What a call needs, made on first use inside the traced kernel."""

    def __init__(self, a: object, x: object) -> None:
        self._a, self._x = a, x

    @cached_property
    def p(self) -> object:
        return reg.scalar(u64)

    @cached_property
    def g(self) -> object:
        return self._x.ptr()  # type: ignore[attr-defined]

    @cached_property
    def desc(self) -> object:
        return self._a.tma_desc()  # type: ignore[attr-defined]

    @cached_property
    def s(self) -> object:
        return smem.alloc(b64, 256, align=128)

    @cached_property
    def bar(self) -> object:
        return smem.mbarrier(1)[0]

    @cached_property
    def r(self) -> object:
        return reg.scalar(u32)

    @cached_property
    def pol(self) -> object:
        return reg.scalar(b64)

    def hint(self, slots: Slots) -> object:
        return self.pol if "cache_hint" in slots else None


def _one(slots: Slots, name: str) -> str | None:
    return slots[name][0] if name in slots else None


def _regs(ty: str, slots: Slots) -> object:
    """A register of type ``ty`` (at least 16 bits), or a tuple of them for a ``.vN`` slot."""
    t = PtxType(ty)
    t = PtxType.U16 if t.bits == 8 else t
    n = int(slots["vec"][0][1:]) if "vec" in slots else 1
    return tuple(reg.scalar(t) for _ in range(n)) if n > 1 else reg.scalar(t)


def _evict(slots: Slots) -> tuple[str, ...] | None:
    values = (*slots.get("eviction", ()), *slots.get("l2_eviction", ()))
    return values or None


def _ld(s: Slots, o: Operands) -> None:
    sem = "mmio" if "mmio" in s else _one(s, "sem")
    ptx.ld(
        _regs(s["type"][0], s), o.p, ty=s["type"][0], space=_one(s, "ss"), sem=sem,
        scope=_one(s, "scope"), cache=_one(s, "cop"), nc="nc" in s, evict=_evict(s),
        prefetch_size=_one(s, "prefetch_size"), cache_policy=o.hint(s),
    )  # fmt: skip


def _st(s: Slots, o: Operands) -> None:
    sem = "mmio" if "mmio" in s else _one(s, "sem")
    ptx.st(
        o.p, _regs(s["type"][0], s), ty=s["type"][0], space=_one(s, "ss"), sem=sem,
        scope=_one(s, "scope"), cache=_one(s, "cop"), evict=_evict(s), cache_policy=o.hint(s),
    )  # fmt: skip


def _atom(s: Slots, o: Operands, *, red: bool = False) -> None:
    ty, op = s["type"][0], s["op"][0]
    kw = dict(op=op, ty=ty, space=_one(s, "space"), sem=_one(s, "sem"), scope=_one(s, "scope"))
    kw |= dict(noftz="noftz" in s, cache_policy=o.hint(s))
    if red:
        ptx.red(o.p, _regs(ty, s), **kw)  # type: ignore[arg-type]
    else:
        c = _regs(ty, s) if op == "cas" else None
        ptx.atom(_regs(ty, s), o.p, _regs(ty, s), c, **kw)  # type: ignore[arg-type]


def _prefetch(s: Slots, o: Operands) -> None:
    if "tensormap" in s:
        ptx.prefetch.tensormap(o.p, space=_one(s, "space"))
    else:
        ptx.prefetch(o.p, level=s["level"][0], space=_one(s, "space"))


def _cp_async(s: Slots, o: Operands, form: Form) -> None:
    copy = getattr(ptx.cp.async_, s["cop"][0])
    size = "ignore_src" if any(op.name == "ignore-src" for op in form.operands) else "src_size"
    extra = {size: reg.scalar(pred) if size == "ignore_src" else 8}
    pf = _one(s, "prefetch_size")
    copy(
        o.s, o.g, 16, space=s["dst"][0], prefetch=pf and pf.removeprefix("L2::"),
        cache_hint=o.hint(s), **extra,
    )  # fmt: skip


def _address(space: str, o: Operands) -> object:
    return {"global": o.g, "shared::cta": o.s, "shared::cluster": o.r}[space]


def _bulk(s: Slots, o: Operands) -> None:
    ds, ss = s["dst"][0], s["src"][0]
    dst = o.s if (ds, ss) == ("shared::cta", "global") else _address(ds, o)
    ptx.cp.async_.bulk(
        dst, _address(ss, o), 256, mbar=None if ds == "global" else o.bar, dst_space=ds,
        src_space=ss, multicast=3 if "multicast" in s else None, cache_hint=o.hint(s),
        byte_mask=0xFF if "cp_mask" in s else None,
    )  # fmt: skip


def _box(s: Slots) -> tuple[tuple[int, ...], tuple[int, ...] | None, str | None]:
    """(coordinates, im2col operand, mode) of a tensor form."""
    mode, dim = _one(s, "load_mode"), int(s["dim"][0][0])
    coords = (0,) * (5 if mode in ("tile::gather4", "tile::scatter4") else dim)
    im2col = {"im2col": (0,) * (dim - 2), "im2col::w": (1, 2), "im2col::w::128": (1, 2)}
    return coords, im2col.get(mode or ""), mode


def _tensor(s: Slots, o: Operands) -> None:
    coords, im2col, mode = _box(s)
    if s["src"][0] == "shared::cta":
        ptx.cp.async_.bulk.tensor.store(o.desc, coords, o.s, mode=mode, cache_hint=o.hint(s))
        return
    group = _one(s, "cta_group")
    ptx.cp.async_.bulk.tensor(
        o.s, o.desc, coords, o.bar, dst_space=s["dst"][0], mode=mode, im2col=im2col,
        multicast=3 if "multicast" in s else None, cta_group=group and int(group[-1]),
        cache_hint=o.hint(s),
    )  # fmt: skip


def _prefetch_tensor(s: Slots, o: Operands) -> None:
    coords, im2col, mode = _box(s)
    hint = o.hint(s)
    ptx.cp.async_.bulk.prefetch.tensor(o.desc, coords, mode=mode, im2col=im2col, cache_hint=hint)


def _reduce(s: Slots, o: Operands) -> None:
    ds = s["dst"][0]
    ptx.cp.reduce.async_.bulk(
        _address(ds, o), o.s, 256, op=s["op"][0], ty=PtxType(s["type"][0]),
        mbar=o.bar if ds == "shared::cluster" else None, dst_space=ds, cache_hint=o.hint(s),
    )  # fmt: skip


def _reduce_tensor(s: Slots, o: Operands) -> None:
    coords, _, mode = _box(s)
    ptx.cp.reduce.async_.bulk.tensor(
        o.desc, coords, o.s, op=s["op"][0], mode=mode, cache_hint=o.hint(s)
    )


def _replace(s: Slots, o: Operands, form: Form) -> None:
    field, space = s["field"][0], s["space"][0]
    value = reg.scalar(u64) if s["type"][0] == "b64" else 1
    ords = (0,) if any(op.name == "ord" for op in form.operands) else ()
    tmap = o.g if space == "global" else o.s
    getattr(ptx.tensormap.replace, field)(tmap, *ords, value, space=space)


Call = Callable[[Slots, Operands, Form], None]
CALLS: dict[str, Call] = {
    "ld": lambda s, o, f: _ld(s, o),
    "st": lambda s, o, f: _st(s, o),
    "ldu": lambda s, o, f: ptx.ldu(
        _regs(s["type"][0], s), o.p, ty=s["type"][0], space=_one(s, "ss")
    ),
    "prefetch": lambda s, o, f: _prefetch(s, o),
    "prefetchu": lambda s, o, f: ptx.prefetchu(o.p),
    "atom": lambda s, o, f: _atom(s, o),
    "red": lambda s, o, f: _atom(s, o, red=True),
    "cp.async": _cp_async,
    "cp.async.commit_group": lambda s, o, f: ptx.cp.async_.commit_group(),
    "cp.async.wait_group": lambda s, o, f: ptx.cp.async_.wait_group(1),
    "cp.async.wait_all": lambda s, o, f: ptx.cp.async_.wait_all(),
    "cp.async.mbarrier.arrive": lambda s, o, f: ptx.cp.async_.mbarrier.arrive(
        o.bar, noinc="noinc" in s, space=_one(s, "space")
    ),
    "cp.async.bulk": lambda s, o, f: _bulk(s, o),
    "cp.async.bulk.prefetch": lambda s, o, f: ptx.cp.async_.bulk.prefetch(
        o.g, 256, cache_hint=o.hint(s)
    ),
    "cp.async.bulk.tensor": lambda s, o, f: _tensor(s, o),
    "cp.async.bulk.prefetch.tensor": lambda s, o, f: _prefetch_tensor(s, o),
    "cp.reduce.async.bulk": lambda s, o, f: _reduce(s, o),
    "cp.reduce.async.bulk.tensor": lambda s, o, f: _reduce_tensor(s, o),
    "cp.async.bulk.commit_group": lambda s, o, f: ptx.cp.async_.bulk.commit_group(),
    "cp.async.bulk.wait_group": lambda s, o, f: ptx.cp.async_.bulk.wait_group(read="read" in s),
    "tensormap.replace": _replace,
    "tensormap.cp_fenceproxy": lambda s, o, f: ptx.tensormap.cp_fenceproxy(
        o.g, o.s, scope=s["scope"][0]
    ),
}
"""How each spec's forms are spelled as ``ptx.*`` calls."""

SPELLED: dict[str, Slots] = {"tensormap.replace": {"space": ("global",)}}
"""Optional slots a wrapper always spells (``space="global"`` is the default)."""

UNSUPPORTED = {("cp.async.bulk", "ignore_oob"): "no ptx.cp.async_.bulk keyword for .ignore_oob"}
"""Forms no wrapper spells: (spec, slot) -> why."""


@dataclass(frozen=True)
class Case:
    """One form of a spec with chosen slot values."""

    spec: InstructionSpec
    form: Form
    slots: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def id(self) -> str:
        return ".".join([self.spec.name, *(v for _, vs in self.slots for v in vs)])

    def target(self) -> tuple[str, tuple[int, int]]:
        """The lowest target (sm_80 at least) and version the gates admit."""
        gate = self.spec.gate.combine(self.form.gate)
        for g in self.form.groups:
            for v in dict(self.slots).get(g.name, ()):
                gate = gate.combine(g.gates.get(v, Gate()))
        for op in self.form.operands:
            if op.gate is not None and not op.optional and not op.when:
                gate = gate.combine(op.gate)
        req = Requirements.of(gate)
        name = req.suggest_target() if req.needs_arch_specific else f"sm_{max(req.min_sm, 80)}"
        return name, max(req.min_ptx, TARGETS[name].min_ptx)


def _cases(spec: InstructionSpec, form: Form) -> Iterator[Case]:
    """Every value of every slot at least once, then all optional slots together."""
    base = {g.name: (g.values[0],) for g in form.groups if g.required}
    seen: set[tuple[tuple[str, tuple[str, ...]], ...]] = set()
    choices = [base] + [{**base, g.name: (v,)} for g in form.groups for v in g.values]
    choices.append({**base, **{g.name: (g.values[-1],) for g in form.groups if not g.required}})
    for slots in choices:
        key = tuple((g.name, slots[g.name]) for g in form.groups if g.name in slots)
        if key not in seen and not any((spec.name, k) in UNSUPPORTED for k, _ in key):
            seen.add(key)
            yield Case(spec, form, key)


def _all_cases() -> list[Case]:
    return [c for name in CALLS for f in isa.SPECS[name].forms for c in _cases(isa.SPECS[name], f)]


def _trace(arch: str, version: tuple[int, int] | None, body: Callable[[Operands], object]) -> str:
    @kernel(arch=arch, version=version, in_specs=(TMA, PLAIN))
    def k(a, x) -> None:  # type: ignore[no-untyped-def]
        body(Operands(a, x))

    return k.ptx()


def _last_instruction(text: str) -> str:
    lines = [ln.strip() for ln in text.split("\n")]
    return lines[lines.index("ret;") - 1].split(" ")[0].rstrip(";")


@pytest.mark.parametrize("case", _all_cases(), ids=lambda c: c.id)
def test_every_form_of_the_table_is_spelled_by_its_wrapper(case: Case) -> None:
    arch, version = case.target()
    slots = {**SPELLED.get(case.spec.name, {}), **dict(case.slots)}
    text = _trace(arch, version, lambda o: CALLS[case.spec.name](slots, o, case.form))
    emitted = _last_instruction(text).split(".")
    assert sorted(emitted) == sorted([*case.spec.name.split("."), *sum(slots.values(), ())])


def test_every_spec_the_family_emits_has_forms_covered() -> None:
    covered = {c.spec.name for c in _all_cases()}
    assert covered == set(CALLS)
    assert len(_all_cases()) > 300


# ------------------------------------------------------------------------ rejected forms


@dataclass(frozen=True)
class Bad:
    """A call the table rejects: the mnemonic the wrapper emits for it, and where."""

    id: str
    arch: str
    version: tuple[int, int] | None
    mnemonic: str
    call: Callable[[Operands], object]


BAD = [
    Bad("ld-acquire-without-scope", "sm_90a", None, "ld.acquire.global.u32",
        lambda o: ptx.ld(o.r, o.p, sem="acquire", space="global")),
    Bad("ld-nc-with-eviction-and-cop", "sm_90a", None, "ld.global.cg.nc.L1::evict_last.u32",
        lambda o: ptx.ld(o.r, o.p, space="global", nc=True, cache="cg", evict="L1::evict_last")),
    Bad("st-volatile-with-cache-hint", "sm_90a", None, "st.volatile.global.L2::cache_hint.u32",
        lambda o: ptx.st(o.p, o.r, sem="volatile", space="global", cache_policy=o.pol)),
    Bad("ld-v8-below-sm_100", "sm_90a", None, "ld.global.v8.f32",
        lambda o: ptx.ld(tuple(reg.scalar(f32) for _ in range(8)), o.p, space="global")),
    Bad("ld-b128-below-ptx-8.3", "sm_90a", (8, 2), "ld.global.b128",
        lambda o: ptx.ld(reg.scalar(PtxType.B128), o.p, space="global")),
    Bad("atom-half-add-without-noftz", "sm_90a", None, "atom.global.add.f16",
        lambda o: ptx.atom(reg.scalar(PtxType.F16), o.p, reg.scalar(PtxType.F16), op="add",
                           space="global")),
    Bad("atom-vector-on-shared", "sm_90a", None, "atom.shared.add.v2.f32",
        lambda o: (x := (reg.scalar(f32), reg.scalar(f32)), ptx.atom(x, o.p, x, op="add",
                                                                      space="shared"))),
    Bad("atom-vector-of-an-immediate", "sm_90a", None, "atom.global.add.v2.f32",
        lambda o: ptx.atom((reg.scalar(f32), reg.scalar(f32)), o.p, 1.0, op="add",
                           space="global")),
    Bad("atom-cas-b128-below-sm_90", "sm_80", None, "atom.global.cas.b128",
        lambda o: (q := reg.scalar(PtxType.B128), ptx.atom(q, o.p, q, q, op="cas",
                                                           space="global"))),
    Bad("atom-cas-with-cache-hint", "sm_90a", None, "atom.global.cas.L2::cache_hint.b32",
        lambda o: ptx.atom(o.r, o.p, o.r, o.r, op="cas", space="global", cache_policy=o.pol)),
    Bad("red-v8-f32", "sm_90a", None, "red.global.add.v8.f32",
        lambda o: ptx.red(o.p, tuple(reg.scalar(f32) for _ in range(8)), op="add",
                          space="global")),
    Bad("cp-async-ignore-src-below-ptx-7.5", "sm_80", (7, 4), "cp.async.cg.shared.global",
        lambda o: ptx.cp.async_.cg(o.s, o.g, ignore_src=reg.scalar(pred))),
    Bad("bulk-multicast-into-shared-cta", "sm_100a", None,
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.multicast::cluster",
        lambda o: ptx.cp.async_.bulk(o.s, o.g, 256, mbar=o.bar, dst_space="shared::cta",
                                     multicast=1)),
    Bad("bulk-global-to-global", "sm_90a", None, "cp.async.bulk.global.global.bulk_group",
        lambda o: ptx.cp.async_.bulk(o.g, o.g, 256, dst_space="global")),
    Bad("tensor-im2col-2d", "sm_90a", None,
        "cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes",
        lambda o: ptx.cp.async_.bulk.tensor(o.s, o.desc, (0, 0), o.bar, mode="im2col")),
    Bad("tensor-cta-group-on-sm_90a", "sm_90a", None,
        "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".cta_group::1",
        lambda o: ptx.cp.async_.bulk.tensor(o.s, o.desc, (0,), o.bar, cta_group=1)),
    Bad("reduce-add-s64", "sm_90a", None, "cp.reduce.async.bulk.global.shared::cta.bulk_group"
        ".add.s64", lambda o: ptx.cp.reduce.async_.bulk(o.g, o.s, 64, op="add", ty="s64")),
    Bad("tensormap-swizzle-atomicity-on-sm_90a", "sm_90a", None,
        "tensormap.replace.tile.swizzle_atomicity.global.b1024.b32",
        lambda o: ptx.tensormap.replace.swizzle_atomicity(o.g, 1)),
    Bad("tensormap-replace-below-ptx-8.3", "sm_90a", (8, 2),
        "tensormap.replace.tile.rank.global.b1024.b32",
        lambda o: ptx.tensormap.replace.rank(o.g, 1)),
    Bad("cp-async-ca-copies-12-bytes", "sm_80", None, "cp.async.ca.shared.global",
        lambda o: ptx.cp.async_.ca(o.s, o.g, 12)),
    Bad("cp-async-cg-copies-8-bytes", "sm_80", None, "cp.async.cg.shared.global",
        lambda o: ptx.cp.async_.cg(o.s, o.g, 8)),
    Bad("cp-async-wait-group-64", "sm_80", None, "cp.async.wait_group",
        lambda o: ptx.cp.async_.wait_group(64)),
    Bad("bulk-size-not-a-multiple-of-16", "sm_90a", None,
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
        lambda o: ptx.cp.async_.bulk(o.s, o.g, 100, mbar=o.bar)),
    Bad("bulk-prefetch-of-8-bytes", "sm_90a", None, "cp.async.bulk.prefetch.L2.global",
        lambda o: ptx.cp.async_.bulk.prefetch(o.g, 8)),
    Bad("tensor-cta-mask-over-16-bits", "sm_90a", None,
        "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster",
        lambda o: ptx.cp.async_.bulk.tensor(o.s, o.desc, (0,), o.bar, multicast=1 << 16)),
    Bad("tensor-im2col-offset-over-16-bits", "sm_90a", None,
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes",
        lambda o: ptx.cp.async_.bulk.tensor(o.s, o.desc, (0,) * 3, o.bar, mode="im2col",
                                            im2col=(1 << 16,))),
    Bad("tensor-map-in-a-32-bit-register", "sm_90a", None,
        "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes",
        lambda o: ptx.cp.async_.bulk.tensor(o.s, o.r, (0,), o.bar)),
    Bad("bulk-wait-group-64", "sm_90a", None, "cp.async.bulk.wait_group",
        lambda o: ptx.cp.async_.bulk.wait_group(64)),
    Bad("tensormap-ord-5", "sm_90a", None, "tensormap.replace.tile.box_dim.global.b1024.b32",
        lambda o: ptx.tensormap.replace.box_dim(o.g, 5, 64)),
    Bad("tensormap-cp-fenceproxy-of-64-bytes", "sm_90a", None,
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned",
        lambda o: ptx.tensormap.cp_fenceproxy(o.g, o.s, 64)),
]  # fmt: skip
"""Rejected calls, at least one per family and one per kind of reason (a slot combination,
a target gate, a version gate, an operand gate, an immediate out of range, a register width)."""


def _emitted(bad: Bad) -> tuple[Instruction, str]:
    """Trace with the table's check recorded instead of enforced: the instruction the wrapper
    emits for ``bad`` and the table's reason for rejecting it."""
    seen = table_verdicts(lambda: _trace(bad.arch, bad.version, bad.call))
    found = [(i, why) for i, why in seen if i.mnemonic == bad.mnemonic]
    assert found, [i.mnemonic for i, _ in seen]
    return found[-1]


@pytest.mark.parametrize("bad", BAD, ids=lambda b: b.id)
def test_rejected_forms_fail_at_the_call_with_the_tables_reason(bad: Bad) -> None:
    _, reason = _emitted(bad)
    assert reason, f"the table accepts {bad.mnemonic}"
    with pytest.raises(PtxDslError) as info:
        _trace(bad.arch, bad.version, bad.call)
    message = str(info.value)
    assert f"{bad.mnemonic}: {reason}" in message
    assert f"{Path(__file__).name}:" in message
    assert "pyptx/ptx" not in message and "pyptx/dsl" not in message
