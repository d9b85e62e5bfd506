"""The demangler and the renaming passes (DemangleNames, ShortenLabels, NameParams)."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from functools import cache, lru_cache
from pathlib import Path

import pytest
from codegen_testing import (
    CORPUS,
    corpus_files,
    corpus_id,
    find_ptxas,
    ptxas_rejects,
    text_sections,
)
from codegen_testing import assemble_cubin as assemble
from codegen_testing import read_exact as read

from pyptx.codegen.alpha import alpha_equivalent
from pyptx.codegen.demangle import demangle, readable_name, sanitize_identifier
from pyptx.codegen.renames import DemangleNames, NameParams, ShortenLabels
from pyptx.emitter import emit
from pyptx.ir import Function, Module, Section
from pyptx.parser import parse

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
PASSES = (DemangleNames(), ShortenLabels(), NameParams())

# ---------------------------------------------------------------------------- demangler

# Expected spellings are c++filt's (binutils), for names taken from the corpus and a few
# constructs device code rarely uses.
DEMANGLED = [
    ("_Z10vector_addPKfS0_Pfi", "vector_add(float const*, float const*, float*, int)"),
    ("_ZN3M124smemE", "M12::smem"),
    ("_Z14k_sort_networkIiLi32EEvPKT_PS0_", "void k_sort_network<int, 32>(int const*, int*)"),
    ("_ZZ8k_tma_2d14CUtensorMap_stS_iE3bar", "k_tma_2d(CUtensorMap_st, CUtensorMap_st, int)::bar"),
    ("_ZN4RectC1Eff", "Rect::Rect(float, float)"),
    (
        "_ZNK4cuda3std3__44plusIiEclERKiS5_",
        "cuda::std::__4::plus<int>::operator()(int const&, int const&) const",
    ),
    ("_ZNK15__nv_fp8x4_e5m2cv6float4Ev", "__nv_fp8x4_e5m2::operator float4() const"),
    (
        "_ZSt4moveIRKjEONSt16remove_referenceIT_E4typeEOS3_",
        "std::remove_reference<unsigned int const&>::type&& "
        "std::move<unsigned int const&>(unsigned int const&)",
    ),
    (
        "_Z11apply_chainfPFffES0_S0_",
        "apply_chain(float, float (*)(float), float (*)(float), float (*)(float))",
    ),
    (
        "_ZN3M1214matmulKernel12ILi128ELi256ELi64ELi384ELi3ELi128ELi2ELi1EEEviii14CUtensorMap_stS1_S1_Pi",
        "void M12::matmulKernel12<128, 256, 64, 384, 3, 128, 2, 1>"
        "(int, int, int, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, int*)",
    ),
    (
        "_ZN37_INTERNAL_643c621c_7_warp_cu_829cb1414cuda3std3__4"
        "39_GLOBAL__N__643c621c_7_warp_cu_829cb1416ignoreE",
        "_INTERNAL_643c621c_7_warp_cu_829cb141::cuda::std::__4::(anonymous namespace)::ignore",
    ),
    (
        "_ZN4cuda3std3__47forwardIRiEEOT_RNS1_16remove_referenceIS4_E4typeE",
        "int& cuda::std::__4::forward<int&>(cuda::std::__4::remove_reference<int&>::type&)",
    ),
    (
        "_ZN18cooperative_groups4__v117thread_block_tileILj32ENS0_12thread_blockEEC2ERKS2_",
        "cooperative_groups::__v1::thread_block_tile<32u, cooperative_groups::__v1::thread_block>"
        "::thread_block_tile(cooperative_groups::__v1::thread_block const&)",
    ),
    (
        "_ZN45_INTERNAL_b69cf611_14_tensor_core_cu_e6af67346nvcuda4wmma13fill_fragmentIfLi8ELi8EEE"
        "vRNS1_11__frag_baseIT_XT0_EXT1_EEERKNS1_13helper_traitsIS4_E18fill_argument_typeE",
        "void _INTERNAL_b69cf611_14_tensor_core_cu_e6af6734::nvcuda::wmma::fill_fragment"
        "<float, 8, 8>(_INTERNAL_b69cf611_14_tensor_core_cu_e6af6734::nvcuda::wmma::__frag_base"
        "<float, 8, 8>&, _INTERNAL_b69cf611_14_tensor_core_cu_e6af6734::nvcuda::wmma::"
        "helper_traits<float>::fill_argument_type const&)",
    ),
    ("_ZN5AccumIiE7combineEii", "Accum<int>::combine(int, int)"),
    (
        "_ZN41_INTERNAL_a12372d0_10_texsurf_cu_a0b128685tex2DI6uchar4EEN15__nv_itex_traitIT_E4"
        "typeEPS3_yff",
        "__nv_itex_trait<uchar4>::type _INTERNAL_a12372d0_10_texsurf_cu_a0b12868::tex2D<uchar4>"
        "(uchar4*, unsigned long long, float, float)",
    ),
    ("_Z1fPA4_i", "f(int (*) [4])"),
    ("_ZTV1A", "vtable for A"),
    ("_ZGVZ1fvE1x", "guard variable for f()::x"),
    ("_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const"),
    ("_Z3fooB5cxx11v", "foo[abi:cxx11]()"),
    ("_Z3fooILb1ELc97EEvv", "void foo<true, (char)97>()"),
    ("_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo()"),
    ("_Z3foov.cold", "foo() [clone .cold]"),
    ("_ZNKR1A1fEv", "A::f() const &"),
]


@pytest.mark.parametrize(("mangled", "expected"), DEMANGLED, ids=[m for m, _ in DEMANGLED])
def test_demangle(mangled: str, expected: str) -> None:
    assert demangle(mangled) == expected


READABLE = [
    ("_ZN3M124smemE", "smem"),
    ("_Z10vector_addPKfS0_Pfi", "vector_add"),
    ("_Z10vector_addPKfS0_Pfi_param_2", "vector_add_param_2"),
    ("_Z14k_sort_networkIiLi32EEvPKT_PS0_", "k_sort_network"),
    ("_ZZ8k_sharedPKfPfiE4tile", "tile"),
    ("_ZN4RectC1Eff", "Rect_ctor"),
    ("_ZN4RectC1Eff_param_1", "Rect_ctor_param_1"),
    ("_ZNK4cuda3std3__44plusIiEclERKiS5_", "plus_call"),
    ("_ZNK15__nv_fp8x4_e5m2cv6float4Ev", "__nv_fp8x4_e5m2_to_float4"),
    ("_ZN37_INTERNAL_643c621c_7_warp_cu_829cb14111__nanosleepEj", "__nanosleep"),
    ("_ZTV1A", "vtable_A"),
    ("__cudart_i2opi_f", "__cudart_i2opi_f"),
    ("func_retval0", "func_retval0"),
    ("$L__tmp3", "_L__tmp3"),
    ("my.var", "my_var"),
    ("9lives", "_9lives"),
    ("class", "class_"),
    ("_", "__"),
    ("", "_anon"),
    ("_Z", "_Z"),
    ("_ZN3fooE_garbage", "foo"),
    ("_Z3foo" + "P" * 2000 + "i", "foo"),  # too deep to demangle; the name still parses
]


@pytest.mark.parametrize(("symbol", "expected"), READABLE, ids=[s[:40] for s, _ in READABLE])
def test_readable_name(symbol: str, expected: str) -> None:
    assert readable_name(symbol) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("a-b.c", "a_b_c"), ("%r1", "_r1"), ("0x", "_0x"), ("lambda", "lambda_"), ("$", "__")],
)
def test_sanitize_identifier(text: str, expected: str) -> None:
    assert sanitize_identifier(text) == expected


@pytest.mark.parametrize("bad", ["", "foo", "_Z", "_ZN", "_ZN3fooE4", "_Z1fS5_", "_Z1fT_", "_ZX"])
def test_demangle_rejects_ill_formed(bad: str) -> None:
    assert demangle(bad) is None


def test_garbage_never_raises() -> None:
    rng = random.Random(1234)
    alphabet = "_ZNEIKPRSLTVXJDCUtlv0123456789abcdefijmxy$."
    for _ in range(3000):
        s = "_Z" + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        out = demangle(s)
        assert out is None or isinstance(out, str)
        assert IDENT.match(readable_name(s)), s


def test_exponential_substitutions_are_bounded() -> None:
    # Each template argument list doubles the text; the demangler gives up instead.
    s = "_Z1fIiE" + "".join(f"I{'S_' * 2}E" for _ in range(40)) + "v"
    assert demangle(s) is None or len(demangle(s) or "") < 100000
    assert IDENT.match(readable_name(s))


@lru_cache(maxsize=1)
def corpus_symbols() -> list[str]:
    found: set[str] = set()
    for p in corpus_files():
        found.update(re.findall(r"_Z[A-Za-z0-9_]*", read(p)))
    return sorted(found)


def test_readable_names_of_all_corpus_symbols() -> None:
    symbols = corpus_symbols()
    assert len(symbols) > 1000
    for s in symbols:
        name = readable_name(s)
        assert IDENT.match(name), s
        assert not name.startswith("_Z") or demangle(s) is None, (s, name)
    with_params = [s for s in symbols if re.search(r"_param_\d+\Z", s)]
    assert all(
        readable_name(s).rsplit("_param_", 1)[1] == s.rsplit("_param_", 1)[1] for s in with_params
    )


def test_demangler_agrees_with_cxxfilt_on_the_corpus() -> None:
    cxxfilt = shutil.which("c++filt")
    if cxxfilt is None:
        pytest.skip("no c++filt on PATH to compare against")
    version = subprocess.run([cxxfilt, "--version"], capture_output=True, text=True).stdout
    if "GNU" not in version:
        pytest.skip(f"c++filt is not GNU binutils' (spellings differ): {version[:60]!r}")
    names = [s for s in corpus_symbols() if not re.search(r"_param_\d+\Z", s)]
    proc = subprocess.run([cxxfilt], input="\n".join(names), capture_output=True, text=True)
    expected = proc.stdout.split("\n")[: len(names)]
    wrong = [(n, demangle(n), e) for n, e in zip(names, expected, strict=True) if demangle(n) != e]
    assert len(names) > 500
    assert wrong == []


# ---------------------------------------------------------------------------- passes: units

UNIT = """\
.version 8.5
.target sm_90a
.address_size 64

.extern .func  (.param .b32 func_retval0) _Z6externi
(
	.param .b32 _Z6externi_param_0
)
;
.global .align 4 .u32 _ZN2M14smemE;
.shared .align 4 .b8 _ZN2M24smemE[16];
.visible .global .align 4 .u32 _ZN2M34smemE;
.global .align 4 .u32 _ZN2M44smemE;
.global .align 8 .u64 _ZN2M14ptrsE[1] = {generic(_ZN2M14smemE)};
.global .align 4 .u32 smem;
.global .align 4 .u32 BB3;
.global .align 4 .u32 in0;
.func  (.param .b32 func_retval0) _Z6helperi
(
	.param .b32 _Z6helperi_param_0
)
;

.func  (.param .b32 func_retval0) _Z6helperi(
	.param .b32 _Z6helperi_param_0
)
{
	.reg .b32 	%r<4>;
	.local .align 4 .u32 _ZN2M44smemE;
$L__func_begin0:
	ld.param.u32 	%r1, [_Z6helperi_param_0];
	ld.global.u32 	%r2, [_ZN2M14smemE];
	add.s32 	%r3, %r1, %r2;
$L__BB0_2:
	st.param.b32 	[func_retval0+0], %r3;
	ret;
$L__func_end0:
}

.visible .entry _Z4kernPfPKfifS_(
	.param .u64 _Z4kernPfPKfifS__param_0,
	.param .u64 _Z4kernPfPKfifS__param_1,
	.param .u32 _Z4kernPfPKfifS__param_2,
	.param .align 64 .b8 _Z4kernPfPKfifS__param_3[128],
	.param .f32 _Z4kernPfPKfifS__param_4
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<8>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<10>;
	.shared .align 4 .b8 _ZZ4kernPfPKfifS_E4tile[64];
$L__func_begin1:
	ld.param.u64 	%rd1, [_Z4kernPfPKfifS__param_0];
	ld.param.u64 	%rd2, [_Z4kernPfPKfifS__param_1];
	ld.param.u32 	%r1, [_Z4kernPfPKfifS__param_2];
	mov.u64 	%rd9, _Z4kernPfPKfifS__param_3;
	ld.param.f32 	%f3, [_Z4kernPfPKfifS__param_4];
	mov.u32 	%r2, %tid.x;
	setp.ge.s32 	%p1, %r2, %r1;
	@%p1 bra 	$L__BB1_3;
	cvta.to.global.u64 	%rd3, %rd2;
	mul.wide.s32 	%rd4, %r2, 4;
	add.s64 	%rd5, %rd3, %rd4;
	ld.global.f32 	%f1, [%rd5];
	mul.f32 	%f2, %f1, %f3;
	mov.u32 	%r5, _ZZ4kernPfPKfifS_E4tile;
	st.shared.f32 	[%r5], %f2;
	cvta.to.global.u64 	%rd6, %rd1;
	add.s64 	%rd7, %rd6, %rd4;
	st.global.f32 	[%rd7], %f2;
	ld.global.u32 	%r6, [_ZN2M24smemE];
	ld.global.u32 	%r6, [_ZN2M34smemE];
	ld.global.u32 	%r6, [smem];
	{
	.reg .pred 	q;
	setp.eq.u32 	q, %r6, 0;
	@q bra 	$L__BB1_9;
	add.u32 	%r6, %r6, 1;
$L__BB1_9:
	}
	{ // callseq 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0+0], %r6;
	.param .b32 retval0;
	call.uni (retval0), _Z6helperi, (param0);
	ld.param.b32 	%r7, [retval0+0];
	}
$L__BB1_2:
	@%p1 bra 	$L__BB1_2;
$L__BB1_3:
	ret;
$L__func_end1:
}
	.section	.debug_info
	{
.b32 .debug_abbrev
.b64 $L__func_begin0
.b64 $L__func_end0
.b64 _ZN2M14smemE
.b64 $L__func_begin1
.b64 _Z4kernPfPKfifS__param_1
.b64 _ZZ4kernPfPKfifS_E4tile
	}
"""


@pytest.fixture(scope="module")
def unit() -> Module:
    return parse(UNIT, "unit.ptx")


def names_in(m: Module) -> str:
    return emit(m)


def check_pass(before: Module, after: Module) -> None:
    result = alpha_equivalent(before, after)
    assert result, result.reason
    assert parse(emit(after)) == after
    assert parse(emit(after, canonical=True)) == after


def test_demangle_names_renames_internal_symbols(unit: Module) -> None:
    out = DemangleNames()(unit)
    check_pass(unit, out)
    text = emit(out)
    # M1::smem collides with the existing `smem`; M2::smem then takes the next free name.
    assert ".global .align 4 .u32 smem_1;" in text
    assert ".shared .align 4 .b8 smem_2[16];" in text
    assert "{generic(smem_1)}" in text  # initializer reference
    assert "ld.global.u32 \t%r2, [smem_1];" in text
    assert ".b64 smem_1\n" in text  # .section data
    assert "call.uni (retval0), helper, (param0);" in text  # call target
    assert ".func  (.param .b32 func_retval0) helper(" in text  # definition
    assert ".func  (.param .b32 func_retval0) helper\n" in text  # and its prototype
    assert "[helper_param_0]" in text
    assert ".shared .align 4 .b8 tile[64];" in text  # demoted function-scope variable
    assert ".b64 tile\n" in text and ".b64 kern_param_1\n" in text  # DWARF references
    assert "ptrs[1]" in text


def test_demangle_names_keeps_abi_names(unit: Module) -> None:
    text = emit(DemangleNames()(unit))
    assert ".visible .entry _Z4kernPfPKfifS_(" in text  # kernel
    assert ".visible .global .align 4 .u32 _ZN2M34smemE;" in text  # .visible
    assert ".extern .func  (.param .b32 func_retval0) _Z6externi" in text  # .extern
    # ... but parameters are positional, so even an entry's are renamed.
    assert ".param .u64 kern_param_0," in text
    assert ".param .b32 extern_param_0" in text


def test_demangle_names_leaves_shadowed_names(unit: Module) -> None:
    # _ZN2M44smemE is also declared inside helper: unsure which a reference means, keep it.
    text = emit(DemangleNames()(unit))
    assert text.count("_ZN2M44smemE") == 2


def test_demangle_names_can_keep_debug_functions(unit: Module) -> None:
    out = DemangleNames(debug_functions=False)(unit)
    check_pass(unit, out)
    text = emit(out)
    assert "call.uni (retval0), _Z6helperi, (param0);" in text
    assert "smem_1" in text and "helper_param_0" in text


def test_demangle_names_alias() -> None:
    src = (
        ".version 8.5\n.target sm_90a\n.address_size 64\n"
        ".func _Z3foov()\n{\n\tret;\n}\n"
        ".func _Z3barv();\n"
        ".alias _Z3barv, _Z3foov;\n"
    )
    m = parse(src)
    out = DemangleNames()(m)
    check_pass(m, out)
    # `bar` is a PTX opcode (the barrier), so the readable name gets a trailing underscore.
    assert ".alias bar_, foo;" in emit(out)


def test_shorten_labels(unit: Module) -> None:
    out = ShortenLabels()(unit)
    check_pass(unit, out)
    text = emit(out)
    helper, kern = text.split(".visible .entry")
    assert "\nBB2:" in helper  # per function: both functions may have a BB2
    assert "\nBB2:" in kern and "bra \tBB2;" in kern
    assert "\nBB3_1:" in kern and "bra \tBB3_1;" in kern  # a global is already called BB3
    assert "$L__BB1_9" in kern  # inside a nested block: left alone
    # Labels referenced from DWARF data get module-unique names, the data updated too.
    assert "\nfunc_begin0:" in helper and ".b64 func_begin0\n" in text
    assert "\nfunc_end1:" in kern and "$L__func" not in text


def test_shorten_labels_without_debug_labels(unit: Module) -> None:
    out = ShortenLabels(debug_labels=False)(unit)
    check_pass(unit, out)
    text = emit(out)
    assert "$L__func_begin1:" in text and ".b64 $L__func_begin1" in text
    assert "\nBB2:" in text


def test_name_params_from_usage(unit: Module) -> None:
    out = NameParams()(unit)
    check_pass(unit, out)
    text = emit(out)
    kern = text.split(".visible .entry")[1]
    assert "ld.param.u64 \t%rd1, [out0];" in kern  # stored through
    assert "ld.param.u64 \t%rd2, [in0_1];" in kern  # only loaded through; in0 is taken
    assert "ld.param.u32 \t%r1, [n0];" in kern  # compared by setp
    assert "mov.u64 \t%rd9, tma_desc0;" in kern  # .align 64 .b8 [128]
    assert "ld.param.f32 \t%f3, [arg4];" in kern  # fallback: position
    assert "[arg0]" in text.split(".visible .entry")[0]  # helper's u32 is never compared
    assert "param0" in kern and "retval0" in kern  # call-sequence params are not params
    assert ".b64 in0_1\n" in text  # referenced from DWARF data: renamed there too


def test_name_params_is_idempotent(unit: Module) -> None:
    once = NameParams()(unit)
    assert emit(NameParams()(once)) == emit(once)


def test_passes_keep_untouched_nodes_shared(unit: Module) -> None:
    out = ShortenLabels()(unit)
    for a, b in zip(unit.statements[:4], out.statements[:4], strict=True):
        assert a is b
    helper_before = [s for s in unit.statements if isinstance(s, Function)][2]
    helper_after = [s for s in out.statements if isinstance(s, Function)][2]
    assert helper_before.params is helper_after.params


def test_passes_return_the_module_when_nothing_changes() -> None:
    m = parse(".version 8.5\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n")
    for p in PASSES:
        assert p(m) is m


def test_passes_are_deterministic(unit: Module) -> None:
    for p in PASSES:
        assert emit(p(parse(UNIT))) == emit(p(unit))


def test_pass_metadata() -> None:
    assert [p.name for p in PASSES] == ["demangle-names", "shorten-labels", "name-params"]
    for p in PASSES:
        assert type(p).__doc__
        with pytest.raises(AttributeError):
            p.x = 1  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- passes: corpus

FILES = corpus_files()
SHAPE = re.compile(r"[A-Za-z_$%][\w$]*")


@cache
def corpus_module(path: Path) -> Module:
    return parse(read(path), str(path))


@cache
def corpus_output(pass_index: int, path: Path) -> Module:
    return PASSES[pass_index](corpus_module(path))


def test_corpus_is_complete() -> None:
    assert len(FILES) == 358


@pytest.mark.parametrize("path", FILES, ids=corpus_id)
def test_corpus_passes(path: Path) -> None:
    """Each pass, on its own: alpha-equivalent, re-parses equal, changes only names."""
    module = corpus_module(path)
    source = read(path)
    for i, p in enumerate(PASSES):
        repro = f"{p.name} on tests/corpus/{corpus_id(path)}"
        out = corpus_output(i, path)
        if out is module:
            continue
        result = alpha_equivalent(module, out)
        assert result, f"{repro}: {result.reason}"
        text = emit(out)
        assert parse(text) == out, f"{repro}: the output does not re-parse to the same tree"
        old_lines, new_lines = source.split("\n"), text.split("\n")
        assert len(old_lines) == len(new_lines), repro
        for a, b in zip(old_lines, new_lines, strict=True):
            if a != b:
                assert SHAPE.sub("#", a) == SHAPE.sub("#", b), f"{repro}: {a!r} -> {b!r}"


@pytest.mark.parametrize("path", FILES[::25], ids=corpus_id)
def test_corpus_passes_are_idempotent(path: Path) -> None:
    for i, p in enumerate(PASSES):
        once = corpus_output(i, path)
        assert p(once) is once, f"{p.name} renames again on tests/corpus/{corpus_id(path)}"


def test_corpus_rename_counts() -> None:
    """The passes do rename things across the corpus (guards against silent no-ops)."""
    counts = {p.name: 0 for p in PASSES}
    for path in FILES:
        for i, p in enumerate(PASSES):
            counts[p.name] += corpus_output(i, path) is not corpus_module(path)
    assert all(n > 50 for n in counts.values()), counts


# ---------------------------------------------------------------------------- ptxas


def ptxas_sample() -> list[Path]:
    rejects = ptxas_rejects()
    ok = [p for p in FILES if corpus_id(p) not in rejects and p.stat().st_size < 150_000]
    pinned = [
        CORPUS / "generated" / name
        for name in ("inline_asm_sm_90a_G.ptx", "calls_sm_90a_G.ptx", "globals_sm_90a_O3.ptx")
    ]
    return sorted(set(ok[::12]) | {p for p in pinned if p in ok})


def sugared(module: Module, debug_functions: bool) -> Module:
    out = DemangleNames(debug_functions=debug_functions)(module)
    return NameParams()(ShortenLabels()(out))


@pytest.mark.parametrize("path", ptxas_sample(), ids=corpus_id)
def test_ptxas_accepts_renamed(path: Path) -> None:
    """ptxas accepts the renamed module and emits the same machine code.

    With DWARF present, functions keep their names here: DWARF names them by their mangled
    linkage name in data bytes, and renaming them changes ptxas's -G code layout (the code
    then only has to assemble, checked separately below).
    """
    if find_ptxas() is None:
        pytest.skip("no ptxas: pip install nvidia-cuda-nvcc (or put ptxas on PATH)")
    module = corpus_module(path)
    arch = module.targets[0]
    ok, before, err = assemble(read(path), arch)
    assert ok, err
    ok, after, err = assemble(emit(sugared(module, debug_functions=False)), arch)
    assert ok, f"ptxas rejects the renamed tests/corpus/{corpus_id(path)}:\n{err}"
    assert sorted(text_sections(before).values()) == sorted(text_sections(after).values())
    if any(isinstance(s, Section) for s in module.statements):
        ok, _, err = assemble(emit(sugared(module, debug_functions=True)), arch)
        assert ok, f"ptxas rejects the demangled tests/corpus/{corpus_id(path)}:\n{err}"


# ---------------------------------------------------------------------------- shared index


def _index_fields(index: object) -> tuple[object, ...]:
    """Every field of a name index, in iteration order (declaration nodes by identity)."""
    return (
        index.names,  # type: ignore[attr-defined]
        index.pinned,  # type: ignore[attr-defined]
        [(k, [id(n) for n in v]) for k, v in index.module_decls.items()],  # type: ignore[attr-defined]
        list(index.inner_decls.items()),  # type: ignore[attr-defined]
        index.refs,  # type: ignore[attr-defined]
    )


@pytest.mark.parametrize("path", corpus_files(), ids=corpus_id)
def test_handed_over_index_is_the_index_of_the_result(path: Path) -> None:
    # Each renaming pass hands the next the index of its result, derived from its own
    # index; it must be exactly what indexing the result afresh gives.
    from pyptx.codegen._naming import NameIndex, sharing_index
    from pyptx.codegen.pipeline import SUGAR_PASSES

    for passes in (PASSES, SUGAR_PASSES[:3]):
        module = parse(read(path))
        with sharing_index():
            for p in passes:
                before = module
                module = p(module)
                handed = NameIndex.for_pass(module)
                assert handed is NameIndex.for_pass(module)  # the hand-off, not a new index
                assert _index_fields(handed) == _index_fields(NameIndex.of(module)), p.name
                if module is not before:
                    assert NameIndex.for_pass(before) is not handed


def test_index_is_handed_over_only_inside_the_block() -> None:
    from pyptx.codegen._naming import NameIndex, sharing_index

    module = parse(read(CORPUS / "public" / "minimal.ptx"))
    out = ShortenLabels()(module)
    assert NameIndex.for_pass(out) is not NameIndex.for_pass(out)  # indexed afresh each time
    with sharing_index():
        out = ShortenLabels()(module)
        assert NameIndex.for_pass(out) is NameIndex.for_pass(out)
    assert NameIndex.for_pass(out) is not NameIndex.for_pass(out)
