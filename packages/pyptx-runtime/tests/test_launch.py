"""Launching from numpy (the emulator backend), results, specializations and the DSL hook."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
import runtime_kernels as rk
from examples_loader import example

import pyptx
import pyptx.runtime as runtime
from pyptx import Tile, kernel, ptx
from pyptx.runtime import ArgumentError, GpuUnavailable, gpu_count
from pyptx.runtime._specialize import specializations
from pyptx.types import f32

X = np.arange(256, dtype=np.float32)


def test_one_output_is_returned_as_the_array() -> None:
    out = rk.square(X)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_array_equal(out, X * X)


def test_outputs_start_zero_filled_and_several_come_as_a_tuple() -> None:
    total, count = rk.accumulate_twice(X)
    np.testing.assert_array_equal(total, 2 * X)
    np.testing.assert_array_equal(count, np.ones_like(X))


def test_mutated_inputs_are_updated_in_place_and_returned() -> None:
    x = X.copy()
    result = rk.scale_in_place(x, 0.5)
    assert result is x
    np.testing.assert_array_equal(x, X * 0.5)


def test_a_kernel_with_no_results_returns_none() -> None:
    @kernel(arch="sm_80")
    def nothing() -> None:
        ptx.ret()

    assert nothing() is None


def test_bf16_outputs_are_ml_dtypes_arrays() -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    swiglu = example("swiglu")
    g = np.linspace(-2, 2, 4096, dtype=np.float32).astype(ml_dtypes.bfloat16)
    out = swiglu(g, g, 4096)
    assert out.dtype == ml_dtypes.bfloat16 and out.shape == (4096,)
    ref = g.astype(np.float64) ** 2 / (1 + np.exp(-g.astype(np.float64)))
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=2**-7, atol=1e-3)


def test_specializations_are_cached_by_shape_and_dropped_with_the_kernel() -> None:
    @kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),), arch="sm_80")
    def copy_first(x, y):  # type: ignore[no-untyped-def]
        pass

    copy_first(np.zeros(4, np.float32))
    copy_first(np.ones(4, np.float32))
    assert len(specializations(copy_first)) == 1
    copy_first(np.zeros(8, np.float32))
    assert len(specializations(copy_first)) == 2
    specs = specializations(copy_first)
    assert {s.dims for s in specs} == {(("N", 4),), (("N", 8),)}
    assert len({s.handle for s in specs}) == 2
    alive = weakref.ref(copy_first)
    del copy_first, specs
    gc.collect()
    assert alive() is None  # nothing in the runtime keeps the kernel (or its cache) alive


def test_a_specialization_knows_its_launch_and_python_lines() -> None:
    vector_add = example("vector_add")
    spec = runtime.specialize(vector_add, {}, {"N": 1000})
    assert spec.grid == (4, 1, 1) and spec.block == (256, 1, 1) and spec.cluster == (1, 1, 1)
    assert spec.ptx == vector_add.ptx(N=1000)
    kinds = [p.kind.value for p in spec.params]
    assert kinds == ["pointer", "pointer", "pointer", "scalar"]
    assert spec.pack_scalars([1000]) == (1000).to_bytes(4, "little")
    files = {loc[0] for loc in spec.traced.python_lines if loc}
    assert files == {vector_add.fn.__code__.co_filename}
    assert len(spec.instruction_lines) == len(spec.traced.python_lines)


def test_backend_gpu_without_a_gpu_is_a_clear_error() -> None:
    if gpu_count():
        pytest.skip("this machine has a GPU")
    with pytest.raises(
        GpuUnavailable, match=r"backend='gpu' needs an NVIDIA GPU, and none is usable"
    ):
        rk.square(X, backend="gpu")


def test_backend_emu_runs_numpy_in_the_emulator() -> None:
    np.testing.assert_array_equal(rk.square(X, backend="emu"), X * X)


def test_auto_arch_means_the_emulator_target_without_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    if gpu_count():
        pytest.skip("this machine has a GPU")
    monkeypatch.delenv("PYPTX_ARCH", raising=False)
    assert runtime.auto_arch() == runtime.EMULATOR_ARCH == "sm_90a"

    @kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),), arch="auto")
    def ident(x, y):  # type: ignore[no-untyped-def]
        pass

    assert ".target sm_90a" in ident.ptx(N=4)
    np.testing.assert_array_equal(ident(np.ones(4, np.float32)), np.zeros(4, np.float32))


def test_reserved_keywords_reach_the_runtime_not_the_kernel() -> None:
    with pytest.raises(ArgumentError, match="backend must be"):
        rk.square(X, backend="cpu")


def test_pyptx_differentiable_kernel_resolves_through_the_runtime_hook() -> None:
    assert pyptx.differentiable_kernel is runtime.differentiable_kernel


def test_every_public_name_has_a_docstring() -> None:
    for name in runtime.__all__:
        value = getattr(runtime, name)
        if callable(value) or isinstance(value, type):
            assert (value.__doc__ or "").strip(), f"pyptx.runtime.{name} has no docstring"


def test_column_major_tiles_take_and_give_fortran_arrays() -> None:
    a = np.asfortranarray(np.arange(12, dtype=np.float32).reshape(4, 3))
    out = rk.copy_column_major(a)
    assert out.flags.f_contiguous
    np.testing.assert_array_equal(out, a)
    with pytest.raises(ArgumentError, match=r"argument 0 \(x\) must be column-major"):
        rk.copy_column_major(np.ascontiguousarray(a))


def test_the_diagnostic_report(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYPTX_CACHE_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "pyptx.runtime", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    facts = json.loads(result.stdout)
    assert facts["gpus"] == [runtime.device_arch(d) for d in range(gpu_count())]
    assert facts["target"] == (facts["gpus"][0] if facts["gpus"] else "sm_90a")
    assert set(facts["toolchains"]) == {"driver", "nvjitlink", "ptxas"}
    assert facts["cubin_cache"] == str(tmp_path / "cubin")
    assert facts["shim"].startswith(str(tmp_path / "shim"))


# zero_outputs=False: the kernel writes every output element; the emulator poisons outputs.


def _halves(out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The written (first 64 of each 128) and unwritten elements of ``square_first_half``."""
    rows = out.reshape(-1, rk.BLOCK)
    return rows[:, : rk.BLOCK // 2], rows[:, rk.BLOCK // 2 :]


def test_a_kernel_that_writes_every_output_element_needs_no_zero_fill() -> None:
    assert rk.square_every.zero_outputs is False and rk.square.zero_outputs is True
    np.testing.assert_array_equal(rk.square_every(X), X * X)
    x = X.copy()
    y, same = rk.square_then_double(x)  # an uninitialized output beside a mutated input
    assert same is x
    np.testing.assert_array_equal(y, X * X)
    np.testing.assert_array_equal(x, 2 * X)


def test_unwritten_elements_show_the_poison_in_the_emulator() -> None:
    out = rk.square_first_half(zero_outputs=False)(X)
    written, unwritten = _halves(out)
    np.testing.assert_array_equal(written, _halves(X * X)[0])
    assert (unwritten.view(np.uint32) == 0xFFFFFFFF).all() and np.isnan(unwritten).all()
    with pytest.raises(AssertionError, match="nan location mismatch"):
        np.testing.assert_allclose(out, X * X)  # a reference comparison catches it


def test_default_kernels_still_get_zero_filled_outputs() -> None:
    out = rk.square_first_half(zero_outputs=True)(X)
    written, unwritten = _halves(out)
    np.testing.assert_array_equal(written, _halves(X * X)[0])
    np.testing.assert_array_equal(unwritten, 0)


def test_column_major_outputs_are_poisoned_too() -> None:
    a = np.asfortranarray(np.arange(12, dtype=np.float32).reshape(4, 3))
    out = rk.copy_column_major_first_columns(a)
    assert out.flags.f_contiguous
    np.testing.assert_array_equal(out[:, :2], a[:, :2])
    assert np.isnan(out[:, 2]).all()


@pytest.mark.parametrize(
    ("ty", "poisoned"),
    [
        ("f32", np.float32(np.nan)),
        ("f16", np.float16(np.nan)),
        ("f64", np.float64(np.nan)),
        ("s32", np.int32(-1)),
        ("s8", np.int8(-1)),
        ("u16", np.uint16(0xFFFF)),
        ("u64", np.uint64(2**64 - 1)),
    ],
)
def test_the_poison_pattern_per_dtype(ty: str, poisoned: object) -> None:
    from pyptx.ir import PtxType
    from pyptx.runtime._emulate import emulator_output

    ptx_type = PtxType.from_name(ty)
    out = emulator_output((3, 5), ptx_type, zero=False)
    assert out.shape == (3, 5) and out.flags.c_contiguous
    assert (out.view(np.uint8) == 0xFF).all()
    np.testing.assert_array_equal(out, np.full((3, 5), poisoned))
    np.testing.assert_array_equal(emulator_output((3, 5), ptx_type, zero=True), 0)


@pytest.mark.parametrize("ty", ["bf16", "e4m3", "e5m2"])
def test_the_poison_pattern_of_bf16_and_fp8_is_nan(ty: str) -> None:
    pytest.importorskip("ml_dtypes")
    from pyptx.ir import PtxType
    from pyptx.runtime._emulate import emulator_output

    out = emulator_output((2, 4), PtxType.from_name(ty), zero=False, column_major=True)
    assert out.flags.f_contiguous
    assert np.isnan(out.astype(np.float32)).all()
