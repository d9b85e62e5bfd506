"""The public functions of pyptx.kernels: argument checks, arch and dtype dispatch, results.

Dispatch is tested with fake table entries (``recording`` fakes that note what they were
called with, and ``fake_swiglu``, a real DSL kernel run in the emulator). Every real kernel of
the table runs once through its public function in the emulator against a float64 numpy
reference (``test_every_kernel_through_the_public_api``); GPU tests at the end.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import kernels_testing as kt
import numpy as np
import pytest
import torch

import pyptx.kernels as K
import pyptx.runtime
from pyptx.kernels import Implementation, KernelUnavailable, _api, _registry
from pyptx.kernels._arrays import ArrayFacts

Calls = list[tuple[str, list[Any]]]


def recording(
    calls: Calls, name: str, family: str, arch: str, dtypes: tuple[str, ...] = ("f32",)
) -> Implementation:
    """A fake entry whose ``call`` notes (name, argument shapes) and returns plain math."""

    def call(*args: Any) -> Any:
        calls.append((name, [_shape(a) for a in args]))
        if family == "gemm":
            return args[0] @ args[1]
        if family == "grouped_gemm":
            return [a @ b for a, b in zip(*args, strict=True)]
        return args[0] * 1

    return Implementation(name, family, arch, dtypes, {"hidden": 64}, _unused_build, call)


def refusing(calls: Calls, name: str, family: str, arch: str, why: str) -> Implementation:
    """A fake entry whose ``call`` refuses every shape with KernelUnavailable(``why``)."""

    def call(*args: Any) -> Any:
        calls.append((name, [_shape(a) for a in args]))
        raise KernelUnavailable(why)

    return Implementation(name, family, arch, ("f32",), {}, _unused_build, call)


def _unused_build(**config: Any) -> Any:
    raise AssertionError("the dispatch tests never build")


def _shape(a: Any) -> Any:
    if isinstance(a, list):
        return [tuple(x.shape) for x in a]
    return tuple(a.shape) if hasattr(a, "shape") else a


@pytest.fixture
def calls() -> Calls:
    return []


@pytest.fixture
def table(calls: Calls) -> Iterator[None]:
    """A table of recording fakes: every family on sm_90a, a few on sm_80 too."""
    impls = [recording(calls, f"hopper.{f}", f, "sm_90a") for f in K.FAMILIES]
    impls += [
        recording(calls, "ampere.gemm", "gemm", "sm_80", ("bf16", "f16")),
        recording(calls, "ampere.rms_norm", "rms_norm", "sm_80"),
    ]
    with kt.only(impls):
        yield


def f32(*shape: int) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) % 7 - 3


# ------------------------------------------------------------------ arch and dtype


@pytest.mark.usefixtures("table")
def test_host_arrays_run_the_default_arch(calls: Calls) -> None:
    K.rms_norm(f32(4, 8), f32(8))
    assert K.DEFAULT_ARCH == "sm_90a"
    assert calls[0][0] == "hopper.rms_norm"


@pytest.mark.usefixtures("table")
def test_arch_picks_the_kernel(calls: Calls) -> None:
    K.rms_norm(f32(4, 8), f32(8), arch="sm_80")
    assert calls[0][0] == "ampere.rms_norm"


@pytest.mark.usefixtures("table")
def test_no_kernel_for_the_arch_says_which_exist() -> None:
    with pytest.raises(
        KernelUnavailable, match=r"^no softmax kernel for sm_80; softmax has kernels for sm_90a$"
    ):
        K.softmax(f32(4, 8), arch="sm_80")


@pytest.mark.usefixtures("table")
def test_no_kernel_for_the_dtype_says_which_exist() -> None:
    with pytest.raises(KernelUnavailable, match=r"^gemm on sm_80 takes bf16, f16; got f32$"):
        K.gemm(f32(4, 8), f32(8, 2), arch="sm_80")
    a = np.zeros((4, 8))
    with pytest.raises(KernelUnavailable, match=r"gemm on sm_90a takes f32; got float64"):
        K.gemm(a, np.zeros((8, 2)))


def test_a_family_without_kernels() -> None:
    with kt.only([]), pytest.raises(KernelUnavailable, match="has no softmax kernel yet"):
        K.softmax(f32(4, 8))


@pytest.mark.usefixtures("table")
@pytest.mark.parametrize("arch", ["sm_75", "sm90a", "auto"])
def test_unknown_arch(arch: str) -> None:
    with pytest.raises(ValueError, match=r"arch must be one of sm_80, sm_90a, sm_100a, got"):
        K.softmax(f32(4, 8), arch=arch)


def test_the_next_kernel_takes_a_refused_shape(calls: Calls) -> None:
    first = refusing(calls, "blackwell.swiglu_wide", "swiglu", "sm_100a", "hidden 8 is under 64")
    second = recording(calls, "blackwell.swiglu", "swiglu", "sm_100a")
    x = f32(3, 8)
    with kt.only([first, second]):
        out = K.swiglu(x, x, arch="sm_100a")
    assert [c[0] for c in calls] == ["blackwell.swiglu_wide", "blackwell.swiglu"]
    np.testing.assert_array_equal(out, x)


def test_all_kernels_refusing_gives_every_reason(calls: Calls) -> None:
    impls = [
        refusing(calls, "hopper.a", "softmax", "sm_90a", "rows must be even"),
        refusing(calls, "hopper.b", "softmax", "sm_90a", "hidden 8 is under 64"),
    ]
    with kt.only(impls), pytest.raises(KernelUnavailable) as info:
        K.softmax(f32(3, 8))
    assert str(info.value) == (
        "no kernel on sm_90a takes softmax of (3, 8) f32; hopper.a: rows must be even; "
        "hopper.b: hidden 8 is under 64"
    )


# ------------------------------------------------------------------ GPU arrays (no GPU needed)


def gpu_facts(name: str = "a") -> ArrayFacts:
    return ArrayFacts(name, "torch", (4, 4), "bf16", 0, True)


def test_gpu_arrays_follow_the_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pyptx.runtime, "device_arch", lambda index: "sm_100a")
    assert _api._target(None, gpu_facts()) == "sm_100a"
    assert _api._target("sm_100a", gpu_facts()) == "sm_100a"


def test_gpu_arrays_refuse_another_arch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pyptx.runtime, "device_arch", lambda index: "sm_90a")
    with pytest.raises(
        ValueError, match=r"arch='sm_80' was asked for, but a is on cuda:0, an sm_90a GPU"
    ):
        _api._target("sm_80", gpu_facts())


def test_gpu_arrays_without_a_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pyptx.runtime, "device_arch", lambda index: None)
    with pytest.raises(ValueError, match="the CUDA driver sees no such device"):
        _api._target(None, gpu_facts())


def test_a_gpu_of_another_arch_has_no_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pyptx.runtime, "device_arch", lambda index: "sm_86")
    target = _api._target(None, gpu_facts())
    only = kt.only([recording([], "hopper.gemm", "gemm", "sm_90a")])
    with only, pytest.raises(KernelUnavailable, match="no gemm kernel for sm_86; gemm has kernels"):
        _api.select("gemm", target, "f32")


# ------------------------------------------------------------------ argument checks


BAD_ARGUMENTS = [
    pytest.param(
        lambda: K.gemm(f32(4), f32(4, 2)),
        ValueError,
        r"a must be 2-D \(M, K\), got shape \(4,\)",
        id="gemm-rank",
    ),
    pytest.param(
        lambda: K.gemm(f32(4, 3), f32(4, 2)), ValueError, "K is 3 in a but 4 in b", id="gemm-inner"
    ),
    pytest.param(
        lambda: K.gemm(f32(4, 4), f32(4, 2).astype(np.float16)),
        ValueError,
        "a is f32 but b is f16",
        id="gemm-dtypes",
    ),
    pytest.param(
        lambda: K.gemm(f32(4, 4), torch.zeros(4, 2)),
        ValueError,
        "a is a numpy array but b is a torch tensor",
        id="gemm-libraries",
    ),
    pytest.param(
        lambda: K.gemm(f32(4, 4), f32(2, 4).T),
        ValueError,
        r"b is not contiguous .* pass b.contiguous\(\)",
        id="gemm-contiguous",
    ),
    pytest.param(
        lambda: K.gemm([[1.0]], f32(1, 1)),
        TypeError,
        "a must be a torch tensor, a JAX array or a numpy array, got list",
        id="gemm-list",
    ),
    pytest.param(
        lambda: K.grouped_gemm([f32(4, 4)], []),
        ValueError,
        "a_list has 1 groups but b_list has 0",
        id="grouped-lengths",
    ),
    pytest.param(
        lambda: K.grouped_gemm([], []), ValueError, "pass at least one group", id="grouped-empty"
    ),
    pytest.param(
        lambda: K.grouped_gemm(f32(4, 4), [f32(4, 4)]),
        TypeError,
        "a_list must be a list of arrays",
        id="grouped-not-list",
    ),
    pytest.param(
        lambda: K.grouped_gemm([f32(4, 4), f32(2, 3)], [f32(4, 4), f32(4, 4)]),
        ValueError,
        r"group 1: a_list\[1\] is",
        id="grouped-inner",
    ),
    pytest.param(
        lambda: K.rms_norm(f32(2, 3, 8), f32(3)),
        ValueError,
        r"x is \(2, 3, 8\), so w must be \(8,\); got \(3,\)",
        id="rms-weight",
    ),
    pytest.param(
        lambda: K.rms_norm(np.float32(1.0), f32(1)), ValueError, "x is a scalar", id="rms-scalar"
    ),
    pytest.param(
        lambda: K.rms_norm(f32(2, 8), f32(8), eps=-1.0),
        ValueError,
        "eps must be >= 0",
        id="rms-eps",
    ),
    pytest.param(
        lambda: K.rms_norm(f32(2, 8), f32(8), eps="1"),
        TypeError,
        "eps must be a number",
        id="rms-eps-type",
    ),
    pytest.param(
        lambda: K.layer_norm(f32(2, 8), f32(8), f32(8, 1)),
        ValueError,
        r"so b must be \(8,\)",
        id="layer-bias",
    ),
    pytest.param(
        lambda: K.swiglu(f32(2, 8), f32(2, 4)),
        ValueError,
        r"g is \(2, 8\) but u is \(2, 4\)",
        id="swiglu-shapes",
    ),
    pytest.param(
        lambda: K.flash_attention(f32(1, 2, 4), f32(1, 2, 4), f32(1, 2, 4)),
        ValueError,
        "q must be 4-D",
        id="attention-rank",
    ),
    pytest.param(
        lambda: K.flash_attention(f32(1, 2, 4, 8), f32(1, 2, 4, 4), f32(1, 2, 4, 4)),
        ValueError,
        r"k must be \(1, 2, S_k, 8\)",
        id="attention-k",
    ),
    pytest.param(
        lambda: K.flash_attention(f32(1, 2, 4, 8), f32(1, 2, 4, 8), f32(1, 2, 5, 8)),
        ValueError,
        "but v is",
        id="attention-v",
    ),
    pytest.param(
        lambda: K.flash_attention(f32(1, 2, 4, 8), f32(1, 2, 4, 8), f32(1, 2, 4, 8), causal=1),
        TypeError,
        "causal must be a bool",
        id="attention-causal",
    ),
]


@pytest.mark.usefixtures("table")
@pytest.mark.parametrize(("call", "error", "message"), BAD_ARGUMENTS)
def test_bad_arguments_are_refused_before_any_kernel(
    call: Any, error: type[Exception], message: str, calls: Calls
) -> None:
    with pytest.raises(error, match=message):
        call()
    assert calls == []


def test_a_torch_meta_tensor_is_refused() -> None:
    with pytest.raises(ValueError, match="x is on meta"):
        K.softmax(torch.zeros(2, 2, device="meta"))


# ------------------------------------------------------------------ what the kernels see


@pytest.mark.usefixtures("table")
def test_rows_flatten_leading_dims_and_come_back(calls: Calls) -> None:
    x = f32(2, 3, 8)
    out = K.layer_norm(x, f32(8), f32(8), 0.5)
    assert calls == [("hopper.layer_norm", [(6, 8), (8,), (8,), 0.5])]
    assert out.shape == (2, 3, 8)
    np.testing.assert_array_equal(out, x)


@pytest.mark.usefixtures("table")
def test_a_vector_is_one_row(calls: Calls) -> None:
    out = K.softmax(torch.arange(8.0))
    assert calls == [("hopper.softmax", [(1, 8)])]
    assert tuple(out.shape) == (8,)


@pytest.mark.usefixtures("table")
def test_swiglu_flattens_both(calls: Calls) -> None:
    K.swiglu(f32(4, 2, 8), f32(4, 2, 8))
    assert calls == [("hopper.swiglu", [(8, 8), (8, 8)])]


@pytest.mark.usefixtures("table")
def test_rms_norm_passes_eps(calls: Calls) -> None:
    K.rms_norm(f32(2, 8), f32(8))
    assert calls == [("hopper.rms_norm", [(2, 8), (8,), 1e-6])]


@pytest.mark.usefixtures("table")
def test_gemm_and_grouped_gemm_pass_the_operands(calls: Calls) -> None:
    a, b = f32(4, 3), f32(3, 2)
    np.testing.assert_array_equal(K.gemm(a, b), a @ b)
    out = K.grouped_gemm([a, f32(5, 3)], (b, b))
    assert calls[1] == ("hopper.grouped_gemm", [[(4, 3), (5, 3)], [(3, 2), (3, 2)]])
    assert isinstance(out, list) and [o.shape for o in out] == [(4, 2), (5, 2)]


@pytest.mark.usefixtures("table")
def test_flash_attention_passes_causal(calls: Calls) -> None:
    q, kv = f32(1, 2, 4, 8), f32(1, 2, 6, 8)
    K.flash_attention(q, kv, kv, causal=True)
    assert calls == [("hopper.flash_attention", [(1, 2, 4, 8), (1, 2, 6, 8), (1, 2, 6, 8), True])]


@pytest.mark.usefixtures("table")
def test_empty_problems_launch_nothing(calls: Calls) -> None:
    out = K.gemm(torch.zeros(0, 4), torch.zeros(4, 3))
    assert isinstance(out, torch.Tensor) and tuple(out.shape) == (0, 3)
    out = K.gemm(np.zeros((2, 0), np.float32), np.zeros((0, 3), np.float32))
    np.testing.assert_array_equal(out, np.zeros((2, 3)))
    assert K.softmax(f32(0, 8)).shape == (0, 8)
    assert K.flash_attention(f32(1, 2, 0, 8), f32(1, 2, 4, 8), f32(1, 2, 4, 8)).shape == (
        1,
        2,
        0,
        8,
    )
    assert calls == []


def test_an_fp8_gemm_with_no_work_returns_bf16() -> None:
    fp8 = recording([], "hopper.gemm_fp8", "gemm", "sm_90a", ("e4m3",))
    with kt.only([fp8]):
        a = torch.zeros(0, 16, dtype=torch.float8_e4m3fn)
        out = K.gemm(a, torch.zeros(16, 8, dtype=torch.float8_e4m3fn))
    assert out.dtype == torch.bfloat16 and tuple(out.shape) == (0, 8)


# ------------------------------------------------------------------ a real kernel, emulated

SWIGLU_80, SWIGLU_90 = kt.fake_swiglu("sm_80"), kt.fake_swiglu("sm_90a")


@pytest.fixture(scope="module")
def swiglu_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    g = rng.standard_normal((2, 3, 64)).astype(np.float32) * 2
    u = rng.standard_normal((2, 3, 64)).astype(np.float32)
    return g, u, kt.ref_swiglu(g.astype(np.float64), u.astype(np.float64))


@pytest.mark.parametrize("library", ["torch", "numpy", "jax", "jax.jit"])
def test_a_real_kernel_from_each_library(
    library: str, swiglu_inputs: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> None:
    g, u, want = swiglu_inputs
    with kt.only([SWIGLU_80, SWIGLU_90]):
        if library == "torch":
            out = K.swiglu(torch.from_numpy(g), torch.from_numpy(u)).numpy()
        elif library == "numpy":
            out = K.swiglu(g, u, arch="sm_80")
        else:
            import jax
            import jax.numpy as jnp

            def fn(a: Any, b: Any) -> Any:
                return K.swiglu(a, b, arch="sm_80")

            run = jax.jit(fn) if library == "jax.jit" else fn
            out = np.asarray(run(jnp.asarray(g), jnp.asarray(u)))
    assert out.shape == (2, 3, 64)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)  # ex2/rcp.approx: ~2^-22


def test_the_generic_run_passes_a_right_kernel() -> None:
    shape, dtype = kt.check_public_call(kt.fake_swiglu("sm_80"))
    assert (shape, dtype) == ((2, 3, 256), "f32")


def test_the_generic_run_catches_a_wrong_kernel() -> None:
    wrong = kt.fake_swiglu("sm_80", name="fake.wrong", silu=False)
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        kt.check_public_call(wrong)


def test_the_generic_run_says_when_no_shape_fits() -> None:
    narrow = kt.fake_swiglu("sm_80", name="fake.narrow", max_hidden=32)
    with pytest.raises(AssertionError, match="took none of the swiglu shapes"):
        kt.check_public_call(narrow)


# ------------------------------------------------------------------ every kernel of the table

IMPLEMENTATIONS = _registry.implementations()


def test_every_family_has_a_reference() -> None:
    assert set(kt.CASES) == set(K.FAMILIES)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=[i.name for i in IMPLEMENTATIONS])
def test_every_kernel_through_the_public_api(impl: Implementation) -> None:
    kt.check_public_call(impl)


# ------------------------------------------------------------------ on a GPU


@pytest.mark.gpu
@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=[i.name for i in IMPLEMENTATIONS])
def test_every_kernel_on_the_gpu(impl: Implementation) -> None:
    arch = kt.cuda_arch()
    if arch != impl.arch:
        pytest.skip(f"needs {impl.arch}, found {arch}")
    kt.check_public_call(impl, device="cuda")


@pytest.mark.gpu
def test_the_gpu_arch_is_the_default_and_another_is_refused() -> None:
    arch = kt.cuda_arch()
    if arch not in K.ARCHES:
        pytest.skip(f"needs one of {', '.join(K.ARCHES)}, found {arch}")
    x = torch.ones(4, 64, device="cuda")
    with kt.only([kt.fake_swiglu(arch)]):
        torch.testing.assert_close(K.swiglu(x, x).cpu(), torch.nn.functional.silu(x).cpu())
        other = next(a for a in K.ARCHES if a != arch)
        with pytest.raises(ValueError, match=f"arch='{other}' was asked for"):
            K.swiglu(x, x, arch=other)
