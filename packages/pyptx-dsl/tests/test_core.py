"""The DSL core: @kernel, registers, control flow, shared memory, raw PTX, the generic builder."""

from __future__ import annotations

import pytest
from dsl_testing import body

from pyptx import Layout, PtxDslError, Tile, intrinsic, kernel, ptx, reg, smem
from pyptx.dsl.generic import ptx_name, python_name
from pyptx.emitter import emit
from pyptx.parser import parse
from pyptx.types import b32, bf16, f32, pred, u32, u64


def test_kernel_without_arguments_and_default_arch(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel
    def k() -> None:
        tid = reg.from_(ptx.special.tid.x(), u32)
        ptx.inst.add.u32(tid, tid, 1)

    text = k.ptx()
    assert ".target sm_90a" in text and ".visible .entry k()" in text
    assert body(text) == ["mov.u32 %r0, %tid.x;", "add.u32 %r0, %r0, 1;", "ret;"]
    assemble(text)


def test_reference_quickstart_kernel(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def tiny() -> None:
        tid = reg.from_(ptx.special.tid.x(), u32)
        value = tid + 1
        ptx.inst.mov.u32(tid, value)
        ptx.ret()

    assert body(tiny.ptx()) == [
        "mov.u32 %r0, %tid.x;",
        "add.u32 %r1, %r0, 1;",
        "mov.u32 %r0, %r1;",
        "ret;",
    ]
    assemble(tiny.ptx())


def test_params_templates_and_dims(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),), arch="sm_80")
    def scale(x, y, *, factor=2.0):  # type: ignore[no-untyped-def]
        assert x.shape == (256,)
        tid = reg.from_(ptx.special.tid.x(), u32)
        off = reg.scalar(u64)
        ptx.inst.mul.wide.u32(off, tid, 4)
        src = x.ptr() + off
        dst = y.ptr() + off
        v = reg.scalar(f32)
        ptx.inst.ld.global_.f32(v, ptx.addr(src))
        ptx.inst.mul.f32(v, v, factor)
        ptx.inst.st.global_.f32(ptx.addr(dst), v)

    text = scale.ptx(N=256, factor=3.0)
    assert ".param .u64 .ptr .global .align 16 scale_param_0," in text
    assert "mul.f32 %f0, %f0, 0f40400000;" in body(text)
    assert "ld.param.u64 %rd1, [scale_param_0];" in body(text)
    assemble(text)
    with pytest.raises(PtxDslError, match="unexpected argument 'M'"):
        scale.ptx(M=3)


def test_tma_tile_becomes_a_descriptor_param(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(in_specs=(Tile.wgmma_a(64, 64, bf16),), arch="sm_90a")
    def k(a):  # type: ignore[no-untyped-def]
        assert a.tile.layout is Layout.TMA_128B
        a.tma_desc()

    text = k.ptx()
    assert ".param .align 64 .b8 k_param_0[128]" in text
    assert body(text)[:2] == ["mov.u64 %rd0, k_param_0;", "cvta.param.u64 %rd1, %rd0;"]
    assemble(text)


def test_register_has_no_truth_value() -> None:
    @kernel
    def k() -> None:
        r = reg.scalar(u32)
        if r == 0:
            pass

    with pytest.raises(PtxDslError, match=r"no Python truth value.*ptx\.if_"):
        k.ptx()


def test_operator_sugar_emits_one_instruction_each(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        a = reg.from_(ptx.special.tid.x(), u32)
        b = a * 4 + 1
        c = (b << 2) & 0xFF
        p = c >= 16
        q = p & (a != 3)
        with ptx.if_(~q):
            ptx.inst.add.u32(a, a, c)

    lines = body(k.ptx())
    assert lines[:8] == [
        "mov.u32 %r0, %tid.x;",
        "mul.lo.u32 %r1, %r0, 4;",
        "add.u32 %r2, %r1, 1;",
        "shl.b32 %r3, %r2, 2;",
        "and.b32 %r4, %r3, 255;",
        "setp.ge.u32 %p0, %r4, 16;",
        "setp.ne.u32 %p1, %r0, 3;",
        "and.pred %p2, %p0, %p1;",
    ]
    assert lines[8] == "@%p2 bra $L__endif_0;"
    assemble(k.ptx())


def test_nested_if_else_and_unique_labels(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        t = reg.from_(ptx.special.tid.x(), u32)
        with ptx.if_(t < 16):
            with ptx.if_(t < 8):
                ptx.inst.add.u32(t, t, 1)
            with ptx.else_():
                ptx.inst.add.u32(t, t, 2)
        with ptx.else_():
            ptx.inst.add.u32(t, t, 3)

    lines = body(k.ptx())
    labels = [ln for ln in lines if ln.endswith(":")]
    assert len(labels) == len(set(labels)) == 4
    assemble(k.ptx())


def test_else_without_if_is_an_error() -> None:
    @kernel
    def k() -> None:
        with ptx.else_():
            pass

    with pytest.raises(PtxDslError, match="must directly follow"):
        k.ptx()


def test_range_is_a_device_loop_not_unrolled(assemble) -> None:  # type: ignore[no-untyped-def]
    def make(n: int):  # type: ignore[no-untyped-def]
        @kernel(arch="sm_80")
        def k() -> None:
            acc = reg.scalar(u32, 0)
            for i in ptx.range_(0, n, 1):
                ptx.inst.add.u32(acc, acc, i)

        return k

    small, large = body(make(4).ptx()), body(make(4096).ptx())
    assert len(small) == len(large)
    assert "setp.lt.u32 %p0, %r1, 4096;" in large
    assemble(make(4096).ptx())


def test_range_with_register_bounds_is_guarded(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        n = reg.from_(ptx.special.ntid.x(), u32)
        for _ in ptx.range_(0, n, 2):
            pass

    lines = body(k.ptx())
    assert lines[2:4] == ["setp.ge.u32 %p0, %r1, %r0;", "@%p0 bra $L__range_end_0;"]
    assert lines[-2] == "$L__range_end_0:"
    assemble(k.ptx())


def test_labels_loop_and_branch(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        i = reg.scalar(u32, 0)
        with ptx.loop() as top:
            ptx.inst.add.u32(i, i, 1)
            p = i < 10
            ptx.bra(top, pred=p)

    assert body(k.ptx())[1] == "$L__loop_0:"
    assemble(k.ptx())


def test_unknown_and_duplicate_labels() -> None:
    @kernel
    def missing() -> None:
        ptx.bra("nowhere")

    with pytest.raises(PtxDslError, match="never placed") as info:
        missing.ptx()
    assert "test_core.py" in str(info.value)

    @kernel
    def twice() -> None:
        ptx.label("here")
        ptx.label("here")

    with pytest.raises(PtxDslError, match="placed twice") as again:
        twice.ptx()
    # A @kernel trace names where the label was first placed (co_firstlineno: the decorator).
    first = twice.fn.__code__.co_firstlineno + 2
    assert f"(first placed at {__file__}:{first})" in str(again.value)


def test_shared_memory_static_and_automatic_dynamic(assemble) -> None:  # type: ignore[no-untyped-def]
    def make(elems: int):  # type: ignore[no-untyped-def]
        @kernel(arch="sm_80")
        def k() -> None:
            buf = smem.alloc(f32, (2, elems))
            bars = smem.mbarrier(2)
            v = smem.load(f32, buf[1])
            smem.store(f32, buf[0], v)
            base = smem.base(bars)
            ptx.inst.add.u32(base, base, 8)

        return k

    small = make(64)
    text = small.ptx()
    assert ".shared .align 128 .b8 smem_0[512];" in text
    assert "ld.shared.f32 %f0, [smem_0+256];" in body(text)
    assert small.smem_bytes == 512 + 16
    assemble(text)
    big = make(8192)  # 64 KB > 48 KB: dynamic shared memory
    text = big.ptx()
    assert ".extern .shared .align 128 .b8 dyn_smem[];" in text
    assert ".shared .align 128 .b8 smem_0" not in text
    assert "ld.shared.f32 %f0, [dyn_smem+32768];" in body(text)
    assert "mov.u32 %r0, dyn_smem+65536;" in body(text)
    assert big.smem_bytes == 65536 + 16
    assemble(text)


def test_raw_is_parsed_and_errors_point_at_the_caller(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def ok() -> None:
        ptx.raw("{\n\t.reg .b32 t;\n\tmov.b32 t, 7;\n}")

    assert "mov.b32 t, 7;" in body(ok.ptx())
    assemble(ok.ptx())

    @kernel
    def bad() -> None:
        ptx.raw("mov.b32 %r1 7;")

    with pytest.raises(PtxDslError) as info:
        bad.ptx()
    msg = str(info.value)
    assert "test_core.py" in msg and "expected ',' or ';'" in msg
    assert "(line 1 of the raw text: 'mov.b32 %r1 7;')" in msg
    assert "pyptx/dsl" not in msg

    @kernel
    def bad_third_line() -> None:
        ptx.raw("mov.b32 %r1, 7;\nmov.b32 %r2, 8;\nmov.b32 %r3 9;")

    with pytest.raises(PtxDslError, match=r"\(line 3 of the raw text: 'mov\.b32 %r3 9;'\)"):
        bad_third_line.ptx()


@pytest.mark.parametrize(
    ("ptx_spelling", "python_spelling"),
    [
        ("and", "and_"),
        ("global", "global_"),
        ("async", "async_"),
        ("shared::cluster", "shared__cluster"),
        ("2d", "_2d"),
        ("L2::cache_hint", "L2__cache_hint"),
        ("u32", "u32"),
        ("mbarrier::complete_tx::bytes", "mbarrier__complete_tx__bytes"),
    ],
)
def test_generic_name_mapping_is_reversible(ptx_spelling: str, python_spelling: str) -> None:
    assert python_name(ptx_spelling) == python_spelling
    assert ptx_name(python_spelling) == ptx_spelling


def test_generic_builder_reaches_any_instruction(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        p = reg.scalar(pred)
        r = reg.scalar(u32)
        a = reg.scalar(u64)
        ptx.inst.ld.global_.nc.L1__no_allocate.u32(r, ptx.addr(a, 16))
        ptx.inst.membar.gl(pred=~p)

    lines = body(k.ptx())
    assert lines[0] == "ld.global.nc.L1::no_allocate.u32 %r0, [%rd0+16];"
    assert lines[1] == "@!%p0 membar.gl;"
    assemble(k.ptx())


def test_intrinsic_scopes_show_as_comments_and_nest() -> None:
    @intrinsic
    def inner(r):  # type: ignore[no-untyped-def]
        ptx.inst.add.u32(r, r, 1)

    @intrinsic
    def outer(r):  # type: ignore[no-untyped-def]
        inner(r)
        ptx.inst.add.u32(r, r, 2)
        return r

    @kernel(arch="sm_80")
    def k() -> None:
        r = reg.scalar(u32, 0)
        assert outer(r) is r

    text = k.ptx()
    assert "// begin test_intrinsic_scopes_show_as_comments_and_nest.<locals>.outer" in text
    assert "// end test_intrinsic_scopes_show_as_comments_and_nest.<locals>.outer" in text
    assert text.count("// begin") == 2
    assert parse(text) == parse(emit(parse(text), canonical=True))


def test_a_scope_ending_in_a_guarded_instruction_keeps_it_on_one_line() -> None:
    @intrinsic
    def fence_unless(r, p):  # type: ignore[no-untyped-def]
        ptx.inst.add.u32(r, r, 1)
        ptx.inst.membar.gl(pred=~p)

    @kernel(arch="sm_80")
    def k() -> None:
        fence_unless(reg.scalar(u32, 0), reg.scalar(pred))

    lines = body(k.ptx())
    name = "test_a_scope_ending_in_a_guarded_instruction_keeps_it_on_one_line.<locals>"
    assert f"// begin {name}.fence_unless" in lines
    assert f"@!%p0 membar.gl;  // end {name}.fence_unless" in lines


def test_calls_outside_a_trace_are_errors() -> None:
    with pytest.raises(PtxDslError, match="inside a @kernel"):
        ptx.inst.add.u32(1, 2, 3)


def test_arch_validation() -> None:
    with pytest.raises(PtxDslError, match="unknown arch 'sm_91'"):
        kernel(arch="sm_91")(lambda: None).ptx()


def test_auto_arch_without_runtime_is_a_clear_error(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import pyptx.dsl.kernel as kernel_module

    monkeypatch.delenv("PYPTX_ARCH", raising=False)
    monkeypatch.setattr(kernel_module, "runtime_attribute", lambda name: None)

    @kernel(arch="auto")
    def k() -> None:
        pass

    with pytest.raises(PtxDslError, match=r"arch='auto' .* needs pyptx-runtime"):
        k.ptx()
    monkeypatch.setenv("PYPTX_ARCH", "sm_80")
    assert ".target sm_80" in k.ptx()


def test_auto_arch_asks_the_runtime_hook(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import pyptx.dsl.kernel as kernel_module

    monkeypatch.delenv("PYPTX_ARCH", raising=False)
    asked: list[str] = []

    def hook(name: str):  # type: ignore[no-untyped-def]
        asked.append(name)
        return (lambda: "sm_100a") if name == "auto_arch" else None

    monkeypatch.setattr(kernel_module, "runtime_attribute", hook)

    @kernel(arch="auto")
    def k() -> None:
        pass

    assert ".target sm_100a" in k.ptx()
    assert asked == ["auto_arch"]


def test_reserved_launch_keywords_are_refused() -> None:
    def with_stream(x, *, stream=0):  # type: ignore[no-untyped-def]
        pass

    with pytest.raises(PtxDslError, match="'stream' is reserved for launches"):
        kernel(in_specs=(Tile("N", f32),))(with_stream)
    with pytest.raises(PtxDslError, match="'backend' is reserved for launches"):
        kernel(raw_params=[("u32", "backend")])(lambda: None)


def test_mutates_names_an_input() -> None:
    def fn(x, y):  # type: ignore[no-untyped-def]
        pass

    k = kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),), mutates=("x",))(fn)
    assert k.mutates == ("x",)
    with pytest.raises(PtxDslError, match="mutates names 'y', which is not one of its in_specs"):
        kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),), mutates=("y",))(fn)


def test_zero_outputs_is_a_launch_promise_that_leaves_the_ptx_alone() -> None:
    def copy(x, y):  # type: ignore[no-untyped-def]
        v = reg.scalar(f32)
        ptx.ld(v, ptx.addr(x.ptr()), space="global")
        ptx.st(ptx.addr(y.ptr()), v, space="global")

    specs = {"in_specs": (Tile(1, f32),), "out_specs": (Tile(1, f32),), "arch": "sm_80"}
    default = kernel(**specs)(copy)
    unzeroed = kernel(**specs, zero_outputs=False)(copy)
    assert default.zero_outputs is True and unzeroed.zero_outputs is False
    assert unzeroed.ptx() == default.ptx()
    with pytest.raises(PtxDslError, match="zero_outputs must be True or False, got 0"):
        kernel(**specs, zero_outputs=0)(copy)


def test_build_records_the_python_line_of_each_instruction() -> None:
    import inspect

    @kernel(arch="sm_80")
    def k() -> None:
        r = reg.scalar(u32)
        ptx.mov(r, 1)
        with ptx.if_(r == 1):
            ptx.mov(r, 2)

    traced = k.build()
    lines = traced.python_lines
    instructions = list(traced.module.instructions())
    assert len(lines) == len(instructions)
    first = inspect.getsourcelines(k.fn)[1]
    here = __file__
    by_opcode = {(i.opcode, loc) for i, loc in zip(instructions, lines, strict=True) if loc}
    assert ("mov", (here, first + 3)) in by_opcode
    assert ("setp", (here, first + 4)) in by_opcode
    assert ("mov", (here, first + 5)) in by_opcode
    assert lines[-1] is None and instructions[-1].opcode == "ret"


def test_directives_cluster_reqntid_raw(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(
        arch="sm_90a",
        cluster=(2, 1, 1),
        reqntid=(128,),
        raw_directives=[("maxnreg", (64,))],
        raw_params=[("u32", "n")],
    )
    def k() -> None:
        pass

    text = k.ptx()
    assert ".reqntid 128\n.reqnctapercluster 2, 1, 1\n.maxnreg 64" in text
    assert ".param .u32 n" in text
    assemble(text)


def test_sass_disassembles_the_kernel() -> None:
    from pyptx.dsl.tools import find_tool

    if find_tool("ptxas") is None or find_tool("nvdisasm") is None:
        pytest.skip("Kernel.sass needs ptxas and nvdisasm: pip install nvidia-cuda-nvdisasm")

    @kernel(in_specs=(Tile(32, u32),), arch="sm_80")
    def k(out):  # type: ignore[no-untyped-def]
        t = reg.from_(ptx.special.tid.x(), u32)
        ptx.inst.st.global_.u32(ptx.addr(out.ptr()), t)

    sass = k.sass()
    assert ".text.k" in sass
    assert "STG" in sass and "S2R" in sass


def test_param_loads_are_hoisted_out_of_branches(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(in_specs=(Tile(32, u32),), arch="sm_80", raw_params=[("u32", "n")])
    def k(x):  # type: ignore[no-untyped-def]
        p = reg.from_(ptx.special.tid.x(), u32) < 4
        with ptx.if_(p):
            ptx.inst.st.global_.u32(ptx.addr(x.ptr()), ptx.param("n"))
        ptx.inst.st.global_.u32(ptx.addr(x.ptr()), ptx.param("n"))

    lines = body(k.ptx())
    assert lines[:3] == [
        "ld.param.u64 %rd0, [k_param_0];",
        "cvta.to.global.u64 %rd1, %rd0;",
        "ld.param.u32 %r1, [n];",
    ]
    assert lines.count("ld.param.u32 %r1, [n];") == 1
    assemble(k.ptx())


def test_unknown_scalar_parameter() -> None:
    @kernel(raw_params=[("f32", "alpha")])
    def k() -> None:
        ptx.param("beta")

    with pytest.raises(PtxDslError, match=r"no scalar parameter named 'beta'.*alpha"):
        k.ptx()


def test_special_registers_are_read_with_mov_only() -> None:
    @kernel(arch="sm_80")
    def k() -> None:
        r = reg.scalar(u32)
        ptx.inst.add.u32(r, r, ptx.special.tid.x())

    with pytest.raises(PtxDslError, match=r"special register %tid\.x, which only mov can read"):
        k.ptx()


def test_extra_dynamic_shared_memory_follows_the_allocations(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80", smem=4096)
    def k() -> None:
        smem.alloc(f32, 256)  # 1 KB at offset 0
        extra = smem.base()
        ptx.inst.add.u32(extra, extra, 4)

    text = k.ptx()
    assert ".extern .shared .align 128 .b8 dyn_smem[];" in text
    assert body(text)[0] == "mov.u32 %r0, dyn_smem+1024;"
    assert k.smem_bytes == 1024 + 4096
    assemble(text)

    @kernel(arch="sm_80")
    def no_region() -> None:
        smem.base()

    with pytest.raises(PtxDslError, match="pass smem=<bytes>"):
        no_region.ptx()


def test_range_with_a_register_step(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80", raw_params=[("u32", "n")])
    def k() -> None:
        stride = reg.from_(ptx.special.nctaid.x(), u32)
        for i in ptx.range_(reg.from_(ptx.special.ctaid.x(), u32), ptx.param("n"), stride):
            ptx.inst.add.u32(i, i, 0)

    lines = body(k.ptx())
    assert lines[0] == "ld.param.u32 %r2, [n];"
    assert "add.u32 %r3, %r3, %r0;" in lines
    assert "setp.lt.u32 %p1, %r3, %r2;" in lines
    assemble(k.ptx())


def test_undeclared_registers_are_errors() -> None:
    from pyptx.reg import Reg

    @kernel(arch="sm_80")
    def k() -> None:
        r = reg.scalar(u32)
        ptx.inst.add.u32(r, r, Reg("%ghost", u32))

    with pytest.raises(PtxDslError, match="register %ghost is not declared") as info:
        k.ptx()
    assert "test_core.py" in str(info.value)

    @kernel(arch="sm_80")
    def guarded() -> None:  # every operand declared; the guard is not
        r = reg.scalar(u32)
        ptx.inst.add.u32(r, r, 1, pred=Reg("%pghost", pred))

    with pytest.raises(PtxDslError, match="register %pghost is not declared"):
        guarded.ptx()

    @kernel(arch="sm_80")
    def declared_in_raw() -> None:
        ptx.raw(".reg .b32 %mine<2>;")
        ptx.inst.add.u32(Reg("%mine1", u32), Reg("%mine0", u32), 1)

    assert "add.u32 %mine1, %mine0, 1;" in body(declared_in_raw.ptx())


def test_raw_statements_record_the_python_line_too() -> None:
    import inspect

    @kernel(arch="sm_80")
    def k() -> None:
        ptx.raw("mov.u32 %r9, 1;\nmov.u32 %r9, 2;")

    traced = k.build()
    line = inspect.getsourcelines(k.fn)[1] + 2
    assert traced.python_lines[:2] == ((__file__, line), (__file__, line))

    @kernel(arch="sm_80")
    def twice() -> None:
        ptx.raw("mov.u32 %r9, 1;")
        ptx.raw("mov.u32 %r9, 1;")  # the same text again: parsed once, its own line

    line = inspect.getsourcelines(twice.fn)[1] + 2
    assert twice.build().python_lines[:2] == ((__file__, line), (__file__, line + 1))


def test_raw_errors_point_at_each_caller() -> None:
    """A malformed raw text raises at every caller's line, not only the first's."""
    import inspect

    for _ in range(2):

        @kernel(arch="sm_80")
        def bad() -> None:
            ptx.raw("mov.b32 %r1 7;")

        with pytest.raises(PtxDslError) as info:
            bad.ptx()
        assert info.value.lineno == inspect.getsourcelines(bad.fn)[1] + 2


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_comparing_a_special_register_raises_instead_of_returning_a_bool(op: str) -> None:
    import operator

    fn = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le}
    fn |= {">": operator.gt, ">=": operator.ge}

    @kernel(arch="sm_80")
    def k() -> None:
        fn[op](ptx.special.tid.x(), 0)

    with pytest.raises(
        PtxDslError, match=rf"special register %tid.x cannot be compared with {op}"
    ) as caught:
        k.ptx()
    assert caught.value.filename == __file__


def test_a_special_register_has_no_truth_value() -> None:
    @kernel(arch="sm_80")
    def k() -> None:
        if ptx.special.tid.x():
            pass

    with pytest.raises(PtxDslError, match=r"special register %tid.x has no Python truth value"):
        k.ptx()


def test_tracing_assumes_the_newest_ptx_version_the_isa_table_knows() -> None:
    """Unpinned kernels are checked at LATEST_PTX, then lowered to what they need."""
    from pyptx.dsl.validate import LATEST_PTX
    from pyptx.ir import isa

    versions = set()
    for spec in isa.SPECS.values():
        gates = [spec.gate, *spec.alias_gates.values()]
        for form in spec.forms:
            gates.append(form.gate)
            gates += [g for group in form.groups for g in group.gates.values()]
            gates += [o.gate for o in form.operands if o.gate is not None]
        versions |= {g.ptx for g in gates}
    assert max(versions) == LATEST_PTX


def test_the_generic_builder_takes_a_register_array_as_a_vector() -> None:
    @kernel(arch="sm_90a")
    def k() -> None:
        d = reg.array(f32, 4)
        a, b = reg.array(b32, 4), reg.array(b32, 2)
        ptx.inst.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(d, a, b, d)

    (line,) = [ln for ln in body(k.ptx()) if ln.startswith("mma")]
    assert line == (
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0, %f1, %f2, %f3}, "
        "{%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f0, %f1, %f2, %f3};"
    )


def test_a_shared_memory_symbol_is_an_operand() -> None:
    @kernel(arch="sm_90a")
    def k() -> None:
        buf = smem.alloc(f32, 128)
        r = reg.scalar(u32)
        ptx.inst.mov.u32(r, buf)

    text = k.ptx()
    (name,) = [ln.split()[-1].split("[")[0] for ln in text.splitlines() if ".shared" in ln]
    assert f"mov.u32 %r0, {name};" in body(text)


def test_a_register_operand_follows_the_registers_name() -> None:
    from pyptx.ir import Register
    from pyptx.reg import Reg

    r = Reg("%r1", u32)
    node = r.ptx_operand()
    assert node == Register("%r1") and r.ptx_operand() is node  # made once
    r.name = "%r2"
    assert r.ptx_operand() == Register("%r2")
