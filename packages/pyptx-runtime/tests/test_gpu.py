"""pyptx.runtime end to end on a real GPU: every launch path, checked against exact references.

Paths covered: vector add (eager, the current stream, an explicit stream, a second device),
``mutates``, zero-filled outputs and uninitialized ones (``zero_outputs=False``), a TMA copy
with a bf16 upcast, a wgmma tile, a cluster launch (the warp-specialized GEMM), tcgen05
(sm_100a only), ``torch.compile``, CUDA graph capture and replay, autograd, ``jax.jit``,
``jax.shard_map`` over the local GPUs, and the on-disk cubin cache shared between processes.

Inputs are small integers (bf16-exact where bf16), so every sum and matrix product is exact and
results compare exactly (``assert_array_equal``, ``assert_close(rtol=0, atol=0)``).

Every test is marked ``gpu``. Without a usable GPU each one skips with the driver's reason
("no CUDA device: ..."); a test that needs an architecture skips with "needs sm_90a, found
sm_80". Run them on a GPU machine with ``scripts/gpu_suite.sh`` (or ``python -m pytest -m gpu
packages/pyptx-runtime/tests``); the whole module takes well under two minutes on an H100.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import runtime_kernels as rk
from examples_loader import example

from pyptx.dsl.kernel import Kernel
from pyptx.runtime import _driver

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(20240917)

# torch.cuda._sleep cycles that keep a stream busy for ~25 ms on an H100 (1.98 GHz boost):
# far longer than one launch from Python, so the ordering checks below cannot pass by luck.
SLEEP_CYCLES = 50_000_000

# Inductor and Dynamo themselves warn under newer torch releases (not specific to pyptx).
_COMPILE_NOISE = (
    "ignore:`torch.jit.script_method` is deprecated:DeprecationWarning",
    "ignore:.*should not be instantiated:DeprecationWarning",
)


def _compile_noise(fn: Callable[..., Any]) -> Callable[..., Any]:
    for spec in _COMPILE_NOISE:
        fn = pytest.mark.filterwarnings(spec)(fn)
    return fn


# --------------------------------------------------------------------------------------------
# Skips and fixtures
# --------------------------------------------------------------------------------------------


def _no_gpu_reason() -> str | None:
    """Why no kernel can run on a GPU here, in the driver's words; ``None`` when one can."""
    loaded = _driver._load()
    if isinstance(loaded, str):
        return f"no CUDA device: {loaded}"
    if _driver.gpu_count() == 0:
        return "no CUDA device: the driver is loaded but cuDeviceGetCount reports 0 devices"
    return None


@pytest.fixture(scope="module", autouse=True)
def _gpu() -> None:
    """Skips every test of the module, before any other fixture runs, without a GPU."""
    reason = _no_gpu_reason()
    if reason is not None:
        pytest.skip(reason)


def _arch(device: int = 0) -> str:
    arch = _driver.device_arch(device)
    assert arch is not None, f"device {device} disappeared"
    return arch


def _needs(*archs: str) -> None:
    found = _arch()
    if found not in archs:
        pytest.skip(f"needs {' or '.join(archs)}, found {found}")


@pytest.fixture(scope="module")
def torch() -> Any:
    """torch, with a usable CUDA device."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip(f"torch {torch.__version__} cannot use the GPU (built without CUDA?)")
    return torch


@pytest.fixture(scope="module")
def jax() -> Any:
    """jax, with a CUDA backend (its allocator told not to take most of the GPU)."""
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    jax = pytest.importorskip("jax")
    try:
        jax.devices("cuda")
    except RuntimeError as exc:
        pytest.skip(f"jax {jax.__version__} has no CUDA backend ({exc})")
    return jax


@functools.cache
def _example(name: str) -> Kernel:
    """The kernel of ``examples/dsl/<name>.py``, loaded once per session."""
    return example(name)


def _ints(shape: int | tuple[int, ...], lo: int = -4, hi: int = 5) -> np.ndarray:
    return RNG.integers(lo, hi, size=shape).astype(np.float32)


def _cuda(torch: Any, array: np.ndarray, device: str = "cuda") -> Any:
    return torch.from_numpy(array).to(device)


def _handle(kernel: Kernel, **dims: int) -> int:
    """The shim handle a launch of ``kernel`` with these dims registers on device 0."""
    from pyptx.runtime import specialize
    from pyptx.runtime._gpu import compile_target, handle_for

    spec = specialize(kernel, {}, dims)
    return handle_for(spec, compile_target(spec.arch, _arch()))


def _module_count(handle: int) -> int:
    from pyptx.runtime import load_shim

    return load_shim().module_count(handle)


# --------------------------------------------------------------------------------------------
# Eager launches: results, streams, devices, mutation, zero-filled outputs
# --------------------------------------------------------------------------------------------


def test_vector_add(torch: Any) -> None:
    vector_add = _example("vector_add")
    n = 1000  # not a multiple of the block: the bounds check matters
    x, y = _ints(n), _ints(n)
    out = vector_add(_cuda(torch, x), _cuda(torch, y), n)
    assert out.device.type == "cuda" and out.dtype == torch.float32 and out.shape == (n,)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), x + y)
    # One module, loaded once in the device's primary context, whatever the launch count.
    vector_add(_cuda(torch, x), _cuda(torch, y), n)
    assert _module_count(_handle(vector_add, N=n)) == 1


def test_a_repeated_call_takes_the_fast_path(torch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """After one full launch, calls with the same signature skip binding (``_run``); calls
    that differ take the full path again, and every call computes the right thing."""
    from pyptx.runtime import ArgumentError
    from pyptx.runtime import _torch as front
    from pyptx.runtime._gpu import kernel_registry

    vector_add = _example("vector_add")
    n = 777
    full: list[int] = []
    real_run = front._run

    def counting_run(*args: Any) -> Any:
        full.append(1)
        return real_run(*args)

    monkeypatch.setattr(front, "_run", counting_run)

    def check(*extra: Any, length: int = n, **kwargs: Any) -> None:
        x, y = _ints(length), _ints(length)
        out = vector_add(_cuda(torch, x), _cuda(torch, y), *extra, **kwargs)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(out.cpu().numpy(), x + y)

    check(n)  # records the plan (or finds one from an earlier test)
    full.clear()
    for _ in range(3):
        check(n)
    assert full == [], "a repeated call went through binding"
    check(n=n)  # a keyword
    check(np.uint32(n))  # not a plain int
    check(n - 1, length=n - 1)  # another shape
    assert len(full) == 3
    with pytest.raises(ArgumentError, match=r"scalar n \(.u32\) must be in"):
        vector_add(_cuda(torch, _ints(n)), _cuda(torch, _ints(n)), -1)  # out of range
    kernel_registry().release(_handle(vector_add, N=n))  # the plan's entry is gone
    full.clear()
    check(n)
    check(n)
    assert len(full) == 1, "a released entry was launched from a stale plan"


def _stream_case(torch: Any, n: int) -> tuple[Any, Any, Any, Any]:
    """(x, y, new_x, vector_add), warmed up for ``n`` so that a launch only launches."""
    vector_add = _example("vector_add")
    x = torch.zeros(n, device="cuda")
    y, new_x = _cuda(torch, _ints(n)), _cuda(torch, _ints(n))
    vector_add(x, y, n)  # compile, register and load outside the timed part
    torch.cuda.synchronize()
    return x, y, new_x, vector_add


def test_launch_runs_on_the_current_stream(torch: Any) -> None:
    n = 4096
    x, y, new_x, vector_add = _stream_case(torch, n)
    side = torch.cuda.Stream()  # a non-blocking stream: the legacy stream does not wait for it
    with torch.cuda.stream(side):
        torch.cuda._sleep(SLEEP_CYCLES)
        x.copy_(new_x)  # ordered after the sleep, on `side` only
        out = vector_add(x, y, n)  # reads the new x only if it runs on `side`
        assert not side.query(), "the sleep ended before the launch; raise SLEEP_CYCLES"
    side.synchronize()
    torch.testing.assert_close(out, new_x + y, rtol=0, atol=0)


@pytest.mark.parametrize("form", ["Stream", "int"])
def test_launch_on_an_explicit_stream(torch: Any, form: str) -> None:
    n = 4096
    x, y, new_x, vector_add = _stream_case(torch, n)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(SLEEP_CYCLES)
        x.copy_(new_x)
    stream = side if form == "Stream" else int(side.cuda_stream)
    out = vector_add(x, y, n, stream=stream)  # the current stream is the default one
    assert not side.query(), "the sleep ended before the launch; raise SLEEP_CYCLES"
    side.synchronize()
    torch.testing.assert_close(out, new_x + y, rtol=0, atol=0)


def test_second_device_loads_its_own_module(torch: Any) -> None:
    count = torch.cuda.device_count()
    if count < 2:
        pytest.skip(f"needs 2 GPUs to launch on cuda:1, found {count}")
    vector_add = _example("vector_add")
    n = 640
    for device in ("cuda:0", "cuda:1"):  # the current device stays cuda:0
        x, y = _ints(n), _ints(n)
        out = vector_add(_cuda(torch, x, device), _cuda(torch, y, device), n)
        assert str(out.device) == device
        torch.cuda.synchronize(device)
        np.testing.assert_array_equal(out.cpu().numpy(), x + y)
    assert _module_count(_handle(vector_add, N=n)) == 2
    with torch.cuda.device(1):  # a side stream of device 1 names device 1's context itself
        side = torch.cuda.Stream()
        x, y = _ints(n), _ints(n)
        with torch.cuda.stream(side):
            out = vector_add(_cuda(torch, x, "cuda:1"), _cuda(torch, y, "cuda:1"), n)
        side.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), x + y)
    assert _module_count(_handle(vector_add, N=n)) == 2


def test_mutated_input_is_updated_in_place(torch: Any) -> None:
    n = 1024  # a multiple of the kernel's block
    values = _ints(n)
    x = _cuda(torch, values)
    pointer = x.data_ptr()
    result = rk.scale_in_place(x, 3.0)
    assert result is x and x.data_ptr() == pointer
    torch.cuda.synchronize()
    np.testing.assert_array_equal(x.cpu().numpy(), 3 * values)


def test_outputs_start_zero_filled_on_reused_memory(torch: Any) -> None:
    n = 4096
    values = _ints(n)
    torch.cuda.empty_cache()  # no free blocks left over from earlier tests
    x = _cuda(torch, values)
    # Leave two freed blocks of the outputs' size full of garbage in torch's caching
    # allocator: the outputs are carved from them, so only the zero fill makes them zero.
    junk = [torch.full((n,), 12345.0, device="cuda") for _ in range(2)]
    junk_pointers = {t.data_ptr() for t in junk}
    del junk
    total, count = rk.accumulate_twice(x)
    assert {total.data_ptr(), count.data_ptr()} & junk_pointers, "no garbage block was reused"
    torch.cuda.synchronize()
    np.testing.assert_array_equal(total.cpu().numpy(), 2 * values)
    np.testing.assert_array_equal(count.cpu().numpy(), np.ones(n, np.float32))


def test_zero_outputs_false_skips_the_zero_fill(torch: Any) -> None:
    """``zero_outputs=False``: outputs come from ``torch.empty`` (full path and fast path), so
    an element the kernel does not write keeps what the reused memory held."""
    n = 4096
    values = _ints(n)
    x = _cuda(torch, values)
    expected = values * values
    for _ in range(3):  # the first call records the plan, the next ones launch from it
        out = rk.square_every(x)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(out.cpu().numpy(), expected)
    half = rk.square_first_half(zero_outputs=False)
    half(x)  # compile, register and load first: the next call allocates nothing else
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    junk = torch.full((n,), 12345.0, device="cuda")
    junk_pointer = junk.data_ptr()
    del junk
    out = half(x)
    assert out.data_ptr() == junk_pointer, "the garbage block was not reused"
    torch.cuda.synchronize()
    half_block = rk.BLOCK // 2
    rows = out.cpu().numpy().reshape(-1, rk.BLOCK)
    np.testing.assert_array_equal(
        rows[:, :half_block], expected.reshape(-1, rk.BLOCK)[:, :half_block]
    )
    np.testing.assert_array_equal(rows[:, half_block:], 12345.0)  # no zero fill ran


# --------------------------------------------------------------------------------------------
# Hopper and Blackwell paths: TMA, wgmma, clusters, tcgen05
# --------------------------------------------------------------------------------------------


def _bf16_ints(shape: tuple[int, ...], lo: int = -4, hi: int = 5, scale: float = 1.0) -> Any:
    """float32 values exactly representable in bf16 (|k| < 128 times a power of two)."""
    return _ints(shape, lo, hi) * np.float32(scale)


def test_tma_copy_upcasts_bf16(torch: Any) -> None:
    _needs("sm_90a")
    from pyptx.runtime import ArgumentError

    tma_upcast = _example("tma_load")
    rows, cols = 128, 192  # a 2 x 3 grid of 64 x 64 boxes
    first = _bf16_ints((rows, cols), -100, 100, 1 / 8)
    x = _cuda(torch, first).to(torch.bfloat16)
    y = tma_upcast(x)
    torch.cuda.synchronize()
    assert y.dtype == torch.float32
    np.testing.assert_array_equal(y.cpu().numpy(), first)
    # Another buffer (a view 64 rows into a larger one): the descriptor template is
    # re-pointed per launch, so the copy reads the new address.
    second = _bf16_ints((rows, cols), -100, 100, 1 / 4)
    big = torch.zeros((rows + 64, cols), dtype=torch.bfloat16, device="cuda")
    big[64:].copy_(_cuda(torch, second).to(torch.bfloat16))
    y = tma_upcast(big[64:])
    torch.cuda.synchronize()
    np.testing.assert_array_equal(y.cpu().numpy(), second)
    # A view at an odd offset is refused before the launch, naming the argument.
    odd = big.view(-1)[1 : 1 + rows * cols].view(rows, cols)
    with pytest.raises(ArgumentError, match=r"argument x is read by TMA.*16-byte aligned"):
        tma_upcast(odd)


def _gemm(torch: Any, name: str, m: int, n: int, k: int) -> None:
    kernel = _example(name)
    a, b = _ints((m, k)), _ints((n, k))
    ref = (a.astype(np.float64) @ b.astype(np.float64).T).astype(np.float32)
    c = kernel(_cuda(torch, a).to(torch.bfloat16), _cuda(torch, b).to(torch.bfloat16))
    assert c.shape == (m, n) and c.dtype == torch.float32
    torch.cuda.synchronize()
    np.testing.assert_array_equal(c.cpu().numpy(), ref)


def test_wgmma_gemm_tile(torch: Any) -> None:
    _needs("sm_90a")
    _gemm(torch, "wgmma_gemm", 128, 256, 256)  # 2 x 2 CTAs, 4 k-tiles through 2 stages


def test_cluster_launch_warp_specialized_gemm(torch: Any) -> None:
    _needs("sm_90a")
    from pyptx.runtime import specialize

    m, n, k = 256, 512, 512  # 4 x 2 CTAs = 4 clusters of 2; 8 k-tiles, twice round the ring
    spec = specialize(_example("warp_specialized_gemm"), {}, {"M": m, "N": n, "K": k})
    assert spec.cluster == (2, 1, 1) and spec.grid == (4, 2, 1)
    _gemm(torch, "warp_specialized_gemm", m, n, k)


def test_tcgen05_gemm(torch: Any) -> None:
    _needs("sm_100a")
    _gemm(torch, "tcgen05_gemm", 128, 256, 256)


def test_kernel_for_another_architecture_is_refused(torch: Any) -> None:
    found = _arch()
    if found == "sm_100a":
        pytest.skip("the GPU is sm_100a, where the tcgen05 example runs")
    from pyptx.runtime import ArgumentError

    a = torch.zeros((128, 128), dtype=torch.bfloat16, device="cuda")
    with pytest.raises(ArgumentError, match=rf"targets sm_100a, which cannot run on this {found}"):
        _example("tcgen05_gemm")(a, a)


# --------------------------------------------------------------------------------------------
# torch.compile, CUDA graphs, autograd
# --------------------------------------------------------------------------------------------


@_compile_noise
def test_torch_compile_fullgraph(torch: Any) -> None:
    vector_add = _example("vector_add")

    def f(a: Any, b: Any) -> Any:
        return vector_add(a * 2, b, a.shape[0]) + 1

    compiled = torch.compile(f, fullgraph=True)
    for _ in range(2):  # the second call reuses the compiled graph with new inputs
        a, b = _ints(1000), _ints(1000)
        out = compiled(_cuda(torch, a), _cuda(torch, b))
        assert out.device.type == "cuda"
        np.testing.assert_array_equal(out.cpu().numpy(), a * 2 + b + 1)


@_compile_noise
def test_torch_compile_with_uninitialized_outputs(torch: Any) -> None:
    def f(x: Any) -> Any:
        y, x2 = rk.square_then_double(x.clone())
        return rk.square_every(y) + x2

    compiled = torch.compile(f, fullgraph=True)
    for _ in range(2):
        values = _ints(1024)
        out = compiled(_cuda(torch, values))
        np.testing.assert_array_equal(out.cpu().numpy(), values**4 + 2 * values)


@_compile_noise
def test_torch_compile_mutating_kernel(torch: Any) -> None:
    def on_a_copy(x: Any) -> Any:
        y = x.clone()
        rk.scale_in_place(y, 3.0)
        return rk.square(y)

    def on_the_input(x: Any) -> Any:
        rk.scale_in_place(x, 2.0)
        return x + 1

    values = _ints(1024)
    out = torch.compile(on_a_copy, fullgraph=True)(_cuda(torch, values))
    np.testing.assert_array_equal(out.cpu().numpy(), (3 * values) ** 2)
    x = _cuda(torch, values)
    out = torch.compile(on_the_input, fullgraph=True)(x)
    np.testing.assert_array_equal(x.cpu().numpy(), 2 * values)  # the caller sees the update
    np.testing.assert_array_equal(out.cpu().numpy(), 2 * values + 1)


def _graph_case(torch: Any, case: str) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """(call, refresh): ``call()`` launches on static inputs, ``refresh()`` rewrites them in
    place and returns the result a launch must now produce."""
    if case == "vector_add":
        vector_add, n = _example("vector_add"), 2048
        x, y = _cuda(torch, _ints(n)), _cuda(torch, _ints(n))

        def refresh() -> Any:
            x.copy_(_cuda(torch, _ints(n)))
            y.copy_(_cuda(torch, _ints(n)))
            return x + y

        return lambda: vector_add(x, y, n), refresh
    if case == "square_every":  # zero_outputs=False: the capture holds no zero fill
        x = _cuda(torch, _ints(2048))

        def refresh_square() -> Any:
            x.copy_(_cuda(torch, _ints(2048)))
            return x * x

        return lambda: rk.square_every(x), refresh_square
    _needs("sm_90a")
    tma_upcast, shape = _example("tma_load"), (128, 128)
    xb = _cuda(torch, _bf16_ints(shape, -100, 100, 1 / 8)).to(torch.bfloat16)

    def refresh_tma() -> Any:
        xb.copy_(_cuda(torch, _bf16_ints(shape, -100, 100, 1 / 8)).to(torch.bfloat16))
        return xb.float()

    return lambda: tma_upcast(xb), refresh_tma


@pytest.mark.parametrize("case", ["vector_add", "square_every", "tma_load"])
def test_cuda_graph_replay_reads_the_new_inputs(torch: Any, case: str) -> None:
    call, refresh = _graph_case(torch, case)
    call()  # warm-up outside the capture: compile, register, load the module
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = call()  # allocated from the graph's pool; its zero fill is captured too
    for _ in range(2):
        expected = refresh()
        static_out.fill_(-7.0)  # a replay that skipped the kernel would leave this
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(static_out, expected, rtol=0, atol=0)


def test_first_launch_inside_a_graph_capture_loads_the_module(torch: Any) -> None:
    from pyptx.runtime import kernel_registry, specialize
    from pyptx.runtime._gpu import compile_target

    vector_add, n = _example("vector_add"), 1536  # dims no other test uses: a fresh handle
    spec = specialize(vector_add, {}, {"N": n})
    handle = kernel_registry().prepare(spec, compile_target(spec.arch, _arch()), owner=vector_add)
    assert _module_count(handle) == 0  # compiled and registered, not loaded anywhere
    x, y = _ints(n), _ints(n)
    xt, yt = _cuda(torch, x), _cuda(torch, y)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = vector_add(xt, yt, n)  # cuModuleLoadData runs mid-capture (relaxed mode)
    assert _module_count(handle) == 1
    graph.replay()
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), x + y)


def test_autograd(torch: Any) -> None:
    from pyptx.runtime import differentiable_kernel

    square = differentiable_kernel(rk.square, rk.square_grad)
    values, weights = _ints(1024), _ints(1024)
    x = _cuda(torch, values).requires_grad_()
    y = square(x)
    np.testing.assert_array_equal(y.detach().cpu().numpy(), values * values)
    (y * _cuda(torch, weights)).sum().backward()
    assert x.grad is not None and x.grad.device.type == "cuda"
    np.testing.assert_array_equal(x.grad.cpu().numpy(), 2 * values * weights)


@_compile_noise
def test_autograd_under_torch_compile(torch: Any) -> None:
    from pyptx.runtime import differentiable_kernel

    square = differentiable_kernel(rk.square, rk.square_grad)
    values, weights = _ints(1024), _ints(1024)
    w = _cuda(torch, weights)

    def loss(x: Any) -> Any:
        return (square(x) * w).sum()

    x = _cuda(torch, values).requires_grad_()
    torch.compile(loss, fullgraph=True)(x).backward()
    assert x.grad is not None
    np.testing.assert_array_equal(x.grad.cpu().numpy(), 2 * values * weights)


# --------------------------------------------------------------------------------------------
# JAX
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case",
    [
        "vector_add",
        "scale_in_place",
        "accumulate_twice",
        "square_every",
        "square_then_double",
        "tma_load",
    ],
)
def test_jax_jit(jax: Any, case: str) -> None:
    import jax.numpy as jnp

    device = jax.devices("cuda")[0]

    def put(array: np.ndarray, dtype: Any = None) -> Any:
        return jax.device_put(jnp.asarray(array, dtype=dtype), device)

    if case == "vector_add":
        vector_add, n = _example("vector_add"), 1000
        x, y = _ints(n), _ints(n)
        out = jax.jit(lambda a, b: vector_add(a, b, n))(put(x), put(y))
        assert out.devices() == {device}
        np.testing.assert_array_equal(np.asarray(out), x + y)
        eager = vector_add(put(x), put(y), n)  # outside jit: one dispatch of the same call
        np.testing.assert_array_equal(np.asarray(eager), x + y)
    elif case == "scale_in_place":
        values = _ints(1024)
        x = put(values)
        out = jax.jit(lambda a: rk.scale_in_place(a, 3.0))(x)
        np.testing.assert_array_equal(np.asarray(out), 3 * values)
        np.testing.assert_array_equal(np.asarray(x), values)  # JAX: the input is untouched
    elif case == "accumulate_twice":
        values = _ints(4096)
        total, count = jax.jit(lambda a: rk.accumulate_twice(a))(put(values))
        np.testing.assert_array_equal(np.asarray(total), 2 * values)
        np.testing.assert_array_equal(np.asarray(count), np.ones(4096, np.float32))
    elif case == "square_every":  # zero_outputs=False: the result is XLA's own buffer
        values = _ints(4096)
        out = jax.jit(rk.square_every)(put(values))
        np.testing.assert_array_equal(np.asarray(out), values * values)
    elif case == "square_then_double":  # an XLA result buffer beside an aliased input
        values = _ints(4096)
        y, x = jax.jit(rk.square_then_double)(put(values))
        np.testing.assert_array_equal(np.asarray(y), values * values)
        np.testing.assert_array_equal(np.asarray(x), 2 * values)
    else:
        _needs("sm_90a")
        tma_upcast = _example("tma_load")
        values = _bf16_ints((128, 192), -100, 100, 1 / 8)
        y = jax.jit(lambda a: tma_upcast(a))(put(values, jnp.bfloat16))
        assert y.dtype == jnp.float32
        np.testing.assert_array_equal(np.asarray(y), values)


def test_jax_shard_map_over_the_local_gpus(jax: Any) -> None:
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    shard_map: Any = getattr(jax, "shard_map", None)
    if shard_map is None:  # jax < 0.7
        from jax.experimental.shard_map import shard_map
    devices = jax.devices("cuda")
    mesh = Mesh(np.array(devices), ("i",))
    vector_add, per = _example("vector_add"), 768  # elements per device; no other test's N
    x, y = _ints(per * len(devices)), _ints(per * len(devices))
    sharding = NamedSharding(mesh, P("i"))
    xs, ys = jax.device_put(x, sharding), jax.device_put(y, sharding)
    f = jax.jit(
        shard_map(
            lambda a, b: vector_add(a, b, per),
            mesh=mesh,
            in_specs=(P("i"), P("i")),
            out_specs=P("i"),
        )
    )
    out = f(xs, ys)
    assert out.sharding.is_equivalent_to(sharding, 1)
    np.testing.assert_array_equal(np.asarray(out), x + y)
    # One module per device context: every shard launched on its own GPU.
    assert _module_count(_handle(vector_add, N=per)) == len(devices)


# --------------------------------------------------------------------------------------------
# Compiling: the cubin cache across processes, every toolchain's output loads
# --------------------------------------------------------------------------------------------

_CACHE_PROBE = """
import hashlib, json, sys
from pyptx.runtime import compile_ptx
result = compile_ptx(sys.stdin.read(), sys.argv[1], name="vector_add")
print(json.dumps({"from_cache": result.from_cache, "toolchain": result.toolchain,
                  "key": result.key, "sha256": hashlib.sha256(result.cubin).hexdigest()}))
"""


def test_a_second_process_reads_the_cubin_from_the_cache(tmp_path: Any) -> None:
    ptx, arch = _example("vector_add").ptx(), _arch()
    env = {
        **os.environ,
        "PYPTX_CACHE_DIR": str(tmp_path),
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
    }
    env.pop("PYPTX_CACHE_DISABLE", None)
    runs = []
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-c", _CACHE_PROBE, arch],
            input=ptx,
            capture_output=True,
            text=True,
            env=env,
            timeout=180,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr[-4000:]
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    first, second = runs
    assert (first["from_cache"], second["from_cache"]) == (False, True)
    assert second["sha256"] == first["sha256"] and second["key"] == first["key"]
    assert second["toolchain"] == first["toolchain"]
    assert len(list((tmp_path / "cubin").glob("*.cubin"))) == 1


@pytest.mark.parametrize("name", ["driver", "nvjitlink", "ptxas"])
def test_each_toolchain_makes_a_cubin_the_device_loads(name: str) -> None:
    from pyptx.runtime._compile import TOOLCHAINS

    arch = _arch()
    (toolchain,) = [t for t in TOOLCHAINS if t.name == name]
    reason = toolchain.unavailable(arch)
    if reason is not None:
        pytest.skip(f"{name} is not usable here: {reason}")
    cubin = toolchain.compile(_example("vector_add").ptx(), arch, "vector_add")
    assert cubin[:4] == b"\x7fELF"
    cu, check = _driver.driver(), _driver.check
    device = check(cu.cuDeviceGet(0), "cuDeviceGet")
    context = check(cu.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxPushCurrent(context), "cuCtxPushCurrent")
    try:
        module = check(cu.cuModuleLoadData(cubin), "cuModuleLoadData")
        function = check(cu.cuModuleGetFunction(module, b"vector_add"), "cuModuleGetFunction")
        assert int(function) != 0
        check(cu.cuModuleUnload(module), "cuModuleUnload")
    finally:
        check(cu.cuCtxPopCurrent(), "cuCtxPopCurrent")
        check(cu.cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease")
