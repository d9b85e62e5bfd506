"""PtxModule and the verbatim ptx.* vocabulary, written by hand."""

from __future__ import annotations

import sys

import pytest
from dsl_testing import body

from pyptx import PtxDslError, PtxModule, ptx
from pyptx.types import u32


def build() -> tuple[PtxModule, object]:
    module = PtxModule()
    module.version(8, 0)
    module.target("sm_90a")
    module.address_size(64)
    counter = module.declare(".global .align 4 .u32 counter = 0;")

    @module.func(".func (.param .b32 ret) twice(.param .b32 x)")
    def twice(ret, x):  # type: ignore[no-untyped-def]
        r = ptx.declare(".reg .b32 %r<3>;")
        ptx.inst.ld.param.b32(r[1], ptx.addr(x))
        ptx.inst.add.s32(r[2], r[1], r[1])
        ptx.inst.st.param.b32(ptx.addr(ret), r[2])
        ptx.inst.ret()

    @module.entry(".visible .entry bump(.param .u64 bump_param_0) .maxntid 32")
    def bump(out):  # type: ignore[no-untyped-def]
        rd = ptx.declare(".reg .b64 %rd<3>;")
        r = ptx.declare(".reg .b32 %r<4>;")
        ptx.inst.ld.param.u64(rd[1], ptx.addr(out))
        ptx.inst.ld.global_.u32(r[1], ptx.addr(counter))
        with ptx.block():
            ptx.declare(".param .b32 p0;")
            ptx.declare(".param .b32 p1;")
            ptx.raw("call.uni (p0), twice, (p1);")
        tid = r[2]
        ptx.inst.mov.u32(tid, ptx.special.tid.x())
        doubled = tid + tid  # DSL sugar: a fresh register, declared separately
        ptx.inst.st.global_.u32(ptx.addr(rd[1], 4), doubled)
        ptx.inst.ret()

    return module, bump


def test_hand_written_module_emits_in_order_and_assembles(assemble) -> None:  # type: ignore[no-untyped-def]
    module, bump = build()
    text = module.ptx()
    assert text == bump.ptx()  # type: ignore[attr-defined]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    assert lines[:4] == [
        ".version 8.0",
        ".target sm_90a",
        ".address_size 64",
        ".global .align 4 .u32 counter = 0;",
    ]
    assert text.index(".func (.param .b32 ret) twice") < text.index(".visible .entry bump")
    assert "ld.global.u32 %r1, [counter];" in text
    assert "st.global.u32 [%rd1+4], %pyptx_r0;" in text
    assert ".reg .b32 %pyptx_r<1>;" in text
    assemble(text)


def test_labels_are_scoped_per_block() -> None:
    module = PtxModule()
    module.target("sm_90a")

    @module.entry(".entry k()")
    def k() -> None:
        for _ in range(2):
            with ptx.block():
                ptx.label("spin")
                ptx.bra("spin")
        ptx.inst.ret()

    assert module.ptx().count("spin:") == 2

    @module.entry(".entry twice_in_one_block()")
    def bad() -> None:
        ptx.label("spin")
        ptx.label("spin")

    with pytest.raises(PtxDslError, match="placed twice in the same block"):
        module.ptx()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda m: m.declare(".reg .b32 %r;\n.reg .b32 %q;"), "one declaration"),
        (lambda m: m.entry(".func f()"), "expected one .entry signature"),
        (lambda m: m.func(".entry k()"), "expected one .func signature"),
        (lambda m: m.layout("{not json"), "module.layout"),
        (lambda m: m.raw(".version 8.0 garbage"), "malformed PTX"),
        (lambda m: m.address_size(48), "32 or 64"),
    ],
)
def test_mistakes_are_clear_errors(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(PtxDslError, match=message):
        call(PtxModule())


def test_checked_module_needs_a_target() -> None:
    module = PtxModule()

    @module.entry(".entry k()")
    def k() -> None:
        ptx.inst.ret()

    with pytest.raises(PtxDslError, match=r"no known \.target"):
        module.ptx()
    unchecked = PtxModule(check=False)
    unchecked.entry(".entry k()")(lambda: ptx.inst.ret())
    assert "ret;" in unchecked.ptx()


def test_checks_catch_a_bad_edit() -> None:
    module = PtxModule()
    module.target("sm_80")

    @module.entry(".entry k()")
    def k() -> None:
        r = ptx.declare(".reg .b32 %r<2>;")
        ptx.inst.add.f64(r[0], r[1], r[1])  # a 64-bit float add on 32-bit registers

    with pytest.raises(PtxDslError, match=r"add\.f64"):
        module.ptx()


def test_errors_point_at_the_users_line() -> None:
    # A verbatim trace keeps no per-instruction line map; each error finds its line itself.
    module = PtxModule()
    module.target("sm_80")
    here = sys._getframe().f_lineno

    @module.entry(".entry k()")
    def k() -> None:
        r = ptx.declare(".reg .b32 %r<2>;")
        ptx.inst.add.f64(r[0], r[1], r[1])  # here + 5

    with pytest.raises(PtxDslError) as bad_edit:
        module.ptx()
    assert (bad_edit.value.filename, bad_edit.value.lineno) == (__file__, here + 5)

    unplaced = PtxModule()
    unplaced.target("sm_80")

    @unplaced.entry(".entry k()")
    def k2() -> None:
        ptx.inst.bra(ptx.label_ref("nowhere"))  # here + 16
        ptx.inst.ret()

    with pytest.raises(PtxDslError, match="never placed") as branch:
        unplaced.ptx()
    assert (branch.value.filename, branch.value.lineno) == (__file__, here + 16)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("0f3F800000", "0f3F800000"), ("0x1F", "0x1F"), ("-8", "-8")],
)
def test_operands_keep_their_spelling(text: str, expected: str) -> None:
    module = PtxModule(check=False)

    @module.entry(".entry k()")
    def k() -> None:
        r = ptx.declare(".reg .b32 %r<2>;")
        ptx.inst.mov.b32(r[0], ptx.imm(text))
        ptx.inst.ld.shared.b32(r[1], ptx.operand("[%r0+-4]"))

    assert body(module.ptx()) == [f"mov.b32 %r0, {expected};", "ld.shared.b32 %r1, [%r0+-4];"]


def test_register_handles() -> None:
    module = PtxModule()
    module.target("sm_90a")
    seen = {}

    @module.entry(".entry k()")
    def k() -> None:
        r = ptx.declare(".reg .b32 %r<4>;")
        a, b = ptx.declare(".reg .u32 a, b;")
        seen.update(r=r, a=a, b=b, n=len(r), names=[x.name for x in r])
        with pytest.raises(PtxDslError, match="outside the declaration"):
            r[4]
        ptx.inst.ret()

    module.ptx()
    assert seen["n"] == 4 and seen["names"] == ["%r0", "%r1", "%r2", "%r3"]
    assert seen["a"].name == "a" and seen["a"].type is u32
