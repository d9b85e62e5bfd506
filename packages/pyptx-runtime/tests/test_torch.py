"""PyTorch: eager calls, torch.compile (fullgraph), the custom op, autograd; CPU tensors run
in the emulator."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import runtime_kernels as rk
from examples_loader import example

from pyptx import Tile, kernel, ptx
from pyptx.runtime import ArgumentError, GpuUnavailable, differentiable_kernel, gpu_count
from pyptx.types import f32

torch = pytest.importorskip("torch")

from pyptx.runtime import register_torch_op  # noqa: E402  (imports torch: after the skip)

X = torch.arange(256, dtype=torch.float32) / 8


def test_eager_cpu_tensors_run_in_the_emulator() -> None:
    out = rk.square(X)
    assert isinstance(out, torch.Tensor) and out.device.type == "cpu"
    torch.testing.assert_close(out, X * X, rtol=0, atol=0)


def test_mutated_tensor_is_updated_in_place() -> None:
    x = X.clone()
    assert rk.scale_in_place(x, 2.0) is x
    torch.testing.assert_close(x, X * 2, rtol=0, atol=0)


def test_outputs_are_zero_filled_tensors_of_the_spec_dtype() -> None:
    total, count = rk.accumulate_twice(X)
    torch.testing.assert_close(total, 2 * X, rtol=0, atol=0)
    torch.testing.assert_close(count, torch.ones_like(X), rtol=0, atol=0)


def test_bf16_tensors() -> None:
    swiglu = example("swiglu")
    g = torch.linspace(-2, 2, 4096).to(torch.bfloat16)
    out = swiglu(g, g, 4096)
    assert out.dtype == torch.bfloat16
    ref = torch.nn.functional.silu(g.double()) * g.double()
    torch.testing.assert_close(out.double(), ref, rtol=2**-7, atol=1e-3)


# Inductor itself still touches torch.jit APIs that torch 2.13 deprecates.
@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")
def test_compile_fullgraph_traces_through_the_kernel() -> None:
    vector_add = example("vector_add")

    def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return vector_add(a * 2, b, a.shape[0]) + 1

    compiled = torch.compile(f, fullgraph=True)  # inductor, the default backend
    a, b = torch.randn(1000), torch.randn(1000)
    torch.testing.assert_close(compiled(a, b), (a * 2 + b) + 1, rtol=0, atol=0)


def test_compile_with_dynamic_shapes_and_a_mutating_kernel() -> None:
    def f(x: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        rk.scale_in_place(y, 3.0)
        return rk.square(y)

    compiled = torch.compile(f, fullgraph=True, dynamic=True, backend="aot_eager")
    for n in (128, 384):
        x = torch.randn(n)
        torch.testing.assert_close(compiled(x), (3 * x) ** 2, rtol=1e-6, atol=0)


def test_compile_registers_the_call_with_constants_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dynamo runs the registration for real, with only plain constants as arguments.

    torch 2.11's Dynamo refuses anything else ("UserDefinedObjectVariable(Kernel) is not a
    constant"); newer releases accept the kernel object, so this checks the types directly.
    """
    from pyptx.runtime import _torch

    seen: list[tuple[object, ...]] = []

    def spy(kernel_key: object, keywords: object, backend: object) -> str:
        seen.append((kernel_key, keywords, backend))
        return _torch._register_call_now(kernel_key, keywords, backend)  # type: ignore[arg-type]

    monkeypatch.setattr(_torch, "_register_call", torch.compiler.assume_constant_result(spy))
    torch._dynamo.reset()
    vector_add = example("vector_add")
    compiled = torch.compile(lambda a, b: vector_add(a, b, a.shape[0]), fullgraph=True,
                             backend="aot_eager")  # fmt: skip
    a, b = torch.randn(256), torch.randn(256)
    torch.testing.assert_close(compiled(a, b), a + b, rtol=0, atol=0)
    assert seen == [(vector_add.key, (), None)]
    torch._dynamo.reset()


def test_the_custom_op_passes_opcheck() -> None:
    from pyptx.runtime._torch import _register_call

    op = register_torch_op()
    vector_add = example("vector_add")
    call = _register_call(vector_add.key, (), None)
    a, b = torch.randn(512), torch.randn(512)
    result = torch.library.opcheck(op, (call, [a, b], [torch.zeros(512)], [512], [], -1))
    assert set(result.values()) == {"SUCCESS"}, result
    scale = _register_call(rk.scale_in_place.key, (), None)
    result = torch.library.opcheck(op, (scale, [], [torch.randn(128)], [], [2.0], -1))
    assert set(result.values()) == {"SUCCESS"}, result


def test_differentiable_kernel_gives_gradients() -> None:
    f = differentiable_kernel(rk.square, rk.square_grad)
    x = torch.randn(256, requires_grad=True)
    y = f(x)
    torch.testing.assert_close(y, x.detach() ** 2, rtol=0, atol=0)
    (y * torch.arange(256.0)).sum().backward()
    assert x.grad is not None
    torch.testing.assert_close(x.grad, 2 * x.detach() * torch.arange(256.0))


# torch 2.13's Dynamo instantiates every autograd.Function it traces, which torch itself
# deprecates (any Function under torch.compile warns; not specific to pyptx).
@pytest.mark.filterwarnings("ignore:.*should not be instantiated:DeprecationWarning")
def test_differentiable_kernel_under_compile() -> None:
    f = differentiable_kernel(rk.square, rk.square_grad)

    def loss(x: torch.Tensor) -> torch.Tensor:
        return f(x).sum()

    x = torch.randn(128, requires_grad=True)
    torch.compile(loss, fullgraph=True, backend="aot_eager")(x).backward()
    assert x.grad is not None
    torch.testing.assert_close(x.grad, 2 * x.detach())


def test_differentiable_kernel_checks_the_gradient_count() -> None:
    @kernel(
        in_specs=(Tile("N", f32), Tile("N", f32)),
        out_specs=(Tile("N", f32), Tile("N", f32)),
        arch="sm_80",
    )
    def two_grads(gy, x, gx, extra):  # type: ignore[no-untyped-def]
        pass

    f = differentiable_kernel(rk.square, two_grads)  # returns two arrays, not one
    x = torch.randn(128, requires_grad=True)
    with pytest.raises(ArgumentError, match=r"returned 2 gradients for the 1 inputs of square"):
        f(x).sum().backward()


def test_backend_gpu_with_cpu_tensors() -> None:
    if gpu_count():
        with pytest.raises(ArgumentError, match=r"backend='gpu' with CPU tensors"):
            rk.square(X, backend="gpu")
    else:
        with pytest.raises(GpuUnavailable, match=r"backend='gpu' needs an NVIDIA GPU"):
            rk.square(X, backend="gpu")


def test_tensors_on_the_meta_device_are_refused() -> None:
    with pytest.raises(ArgumentError, match=r"tensors on meta cannot be launched"):
        rk.square(torch.empty(128, device="meta"))


def test_non_contiguous_tensor_is_named() -> None:
    with pytest.raises(
        ArgumentError, match=r"argument 0 \(x\) must be contiguous .*\.contiguous\(\)"
    ):
        rk.square(torch.arange(512, dtype=torch.float32)[::2])


def test_numpy_and_torch_agree() -> None:
    rms_norm = example("rms_norm")
    hidden = rms_norm.in_specs[1].dims[0]
    x = torch.randn(3, hidden)
    w = torch.randn(hidden)
    np.testing.assert_array_equal(rms_norm(x, w).numpy(), rms_norm(x.numpy(), w.numpy()))


def test_column_major_tiles() -> None:
    t = torch.arange(12.0).reshape(3, 4).t()  # a 4x3 column-major view
    out = rk.copy_column_major(t)
    assert out.shape == (4, 3) and out.t().is_contiguous()
    torch.testing.assert_close(out, t, rtol=0, atol=0)


def test_a_kernel_that_writes_nothing_visible_is_refused_under_compile() -> None:
    @kernel(in_specs=(Tile("N", f32),), arch="sm_80")
    def reads_only(x):  # type: ignore[no-untyped-def]
        ptx.ret()

    reads_only(X)  # eager: fine (nothing to return)

    def f(x: torch.Tensor) -> torch.Tensor:
        reads_only(x)
        return x + 1

    with pytest.raises(Exception, match=r"has no out_specs and no mutates"):
        torch.compile(f, fullgraph=True, backend="aot_eager")(X)


# zero_outputs=False: torch.empty instead of torch.zeros; the emulator poisons the outputs.


def _unwritten(out: torch.Tensor) -> torch.Tensor:
    """The elements ``square_first_half`` leaves alone (the second half of each block)."""
    return out.reshape(-1, rk.BLOCK)[:, rk.BLOCK // 2 :]


def test_zero_outputs_false_on_cpu_tensors() -> None:
    torch.testing.assert_close(rk.square_every(X), X * X, rtol=0, atol=0)
    x = X.clone()
    y, same = rk.square_then_double(x)
    assert same is x
    torch.testing.assert_close(y, X * X, rtol=0, atol=0)
    torch.testing.assert_close(x, 2 * X, rtol=0, atol=0)
    poisoned = rk.square_first_half(zero_outputs=False)(X)
    assert _unwritten(poisoned).isnan().all()
    assert (_unwritten(poisoned).view(torch.int32) == -1).all()
    zeroed = rk.square_first_half(zero_outputs=True)(X)
    assert (_unwritten(zeroed) == 0).all()


def test_the_full_path_allocates_as_the_kernel_says(monkeypatch: pytest.MonkeyPatch) -> None:
    from pyptx.runtime import _torch

    seen: list[bool] = []
    real = _torch.allocate_output

    def spy(shape: Any, dtype: Any, device: Any, col: bool, zero: bool) -> Any:
        seen.append(zero)
        return real(shape, dtype, device, col, zero)

    monkeypatch.setattr(_torch, "allocate_output", spy)
    rk.square(X)
    rk.square_every(X)
    rk.accumulate_twice(X)
    assert seen == [True, False, True, True]


@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")
def test_compile_allocates_uninitialized_outputs_in_the_graph() -> None:
    graphs: list[Any] = []

    def capture(gm: Any, example_inputs: Any) -> Any:
        graphs.append(gm)
        return gm.forward

    def allocations(gm: Any) -> set[Any]:
        wanted = {torch.zeros, torch.empty}
        return {n.target for n in gm.graph.nodes if n.op == "call_function"} & wanted

    torch._dynamo.reset()
    unzeroed = rk.square_first_half(zero_outputs=False)
    for kern, allocation in ((rk.square_every, torch.empty), (rk.square, torch.zeros)):
        compiled = torch.compile(lambda x, k=kern: k(x) + 1, backend=capture, fullgraph=True)
        torch.testing.assert_close(compiled(X), X * X + 1, rtol=0, atol=0)
        assert allocations(graphs[-1]) == {allocation}
    out = torch.compile(lambda x: unzeroed(x), backend=capture, fullgraph=True)(X)
    assert _unwritten(out).isnan().all()  # the op's implementation poisons, as eagerly
    torch._dynamo.reset()


def test_the_custom_op_passes_opcheck_with_uninitialized_outputs() -> None:
    from pyptx.runtime._torch import _register_call

    op = register_torch_op()
    call = _register_call(rk.square_every.key, (), None)
    result = torch.library.opcheck(op, (call, [X], [torch.empty(256)], [], [], -1))
    assert set(result.values()) == {"SUCCESS"}, result
