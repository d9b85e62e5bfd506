"""The torch eager fast path's decisions, on the CPU, with a recording launch.

``pyptx.runtime._eager`` only runs for CUDA tensors, so here the two CUDA queries it makes
(the current stream, graph capture) and its output allocation are replaced, the plans are
recorded for CPU tensors, and the shim launch is a recorder. What is checked: a call with
the recorded signature launches from the plan with the right handle, stream, pointers,
packed scalars and results; every other call returns MISS (the full path's job). The real
launches are checked on a GPU in test_gpu.py.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
import runtime_kernels as rk

torch = pytest.importorskip("torch")

from pyptx.runtime import _eager  # noqa: E402  (imports torch: after the skip)
from pyptx.runtime._gpu import KernelRegistry  # noqa: E402
from pyptx.runtime._specialize import specialize  # noqa: E402

STREAM = 0x5EED


class Recorder:
    """Stands in for ``Shim.launch``: remembers each launch."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, list[int], bytes, int]] = []

    def __call__(
        self, handle: int, stream: int, pointers: Sequence[int], scalars: bytes, device: int
    ) -> None:
        self.calls.append((handle, stream, list(pointers), scalars, device))


allocated: list[bool] = []
"""The ``zero`` flag of each output the fast path allocated (under ``cpu_plans``)."""


@pytest.fixture
def cpu_plans(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """CUDA queries answered for a CPU 'device 0'; outputs allocated on the CPU."""
    monkeypatch.setattr(_eager, "current_raw_stream", lambda device: STREAM)
    monkeypatch.setattr(_eager, "is_capturing", lambda: False)
    real_allocate = _eager.allocate_output

    def allocate_on_cpu(shape: Any, dtype: Any, device: int, col: bool, zero: bool) -> Any:
        allocated.append(zero)
        return real_allocate(shape, dtype, "cpu", col, zero)

    monkeypatch.setattr(_eager, "allocate_output", allocate_on_cpu)
    allocated.clear()
    yield
    _eager._PLANS.clear()


def _record(
    kernel: Any, args: Sequence[Any], outputs: Sequence[Any], **dims: int
) -> tuple[KernelRegistry, Recorder]:
    registry, recorder = KernelRegistry(), Recorder()
    spec = specialize(kernel, {}, dims)
    _eager.record_plan(kernel, args, spec, 1234, 0, outputs, registry, recorder)
    return registry, recorder


def test_a_recorded_signature_launches_from_the_plan(cpu_plans: None) -> None:
    x = torch.ones(64)
    _, recorder = _record(rk.scale_in_place, (x, 2.0), [], N=64)
    result = _eager.fast_call(rk.scale_in_place, (x, 3.5), None)
    assert result is x  # the mutated input comes back
    assert recorder.calls == [(1234, STREAM, [x.data_ptr()], struct.pack("<f", 3.5), 0)]
    assert _eager.fast_call(rk.scale_in_place, (x, 1.0), STREAM) is x  # the current stream


def test_outputs_are_allocated_and_returned_in_order(cpu_plans: None) -> None:
    x = torch.ones(32)
    total, count = torch.zeros(32), torch.zeros(32)
    _, recorder = _record(rk.accumulate_twice, (x,), [total, count], N=32)
    out = _eager.fast_call(rk.accumulate_twice, (torch.ones(32),), None)
    assert isinstance(out, tuple) and len(out) == 2
    assert all(t.shape == (32,) and t.dtype == torch.float32 for t in out)
    assert recorder.calls[0][2][1:] == [t.data_ptr() for t in out]


@pytest.mark.parametrize(
    ("args", "stream", "why"),
    [
        ((torch.ones(65), 1.0), None, "another shape"),
        ((torch.ones(64, dtype=torch.float64), 1.0), None, "another dtype"),
        ((torch.ones(128)[::2], 1.0), None, "other strides"),
        ((torch.ones(64), 1), None, "an int for an f32 scalar"),
        ((torch.ones(64), True), None, "a bool"),
        ((torch.ones(64),), None, "a missing scalar"),
        ((torch.ones(64), 1.0), STREAM + 1, "another stream"),
        ((torch.ones(64), 1.0), object(), "a stream that is not an int"),
    ],
)
def test_anything_else_takes_the_full_path(
    cpu_plans: None, args: tuple[Any, ...], stream: Any, why: str
) -> None:
    _, recorder = _record(rk.scale_in_place, (torch.ones(64), 2.0), [], N=64)
    assert _eager.fast_call(rk.scale_in_place, args, stream) is _eager.MISS, why
    assert recorder.calls == []


def test_integer_scalars_are_range_checked(cpu_plans: None) -> None:
    vector_add = rk.vector_add_u32()
    x = torch.ones(16)
    _, recorder = _record(vector_add, (x, x, 16), [torch.zeros(16)], N=16)
    assert _eager.fast_call(vector_add, (x, x, 2**32), None) is _eager.MISS
    assert _eager.fast_call(vector_add, (x, x, -1), None) is _eager.MISS
    assert _eager.fast_call(vector_add, (x, x, 2**32 - 1), None) is not _eager.MISS
    assert recorder.calls[0][3] == struct.pack("<I", 2**32 - 1)


def test_a_release_retires_every_plan(cpu_plans: None) -> None:
    x = torch.ones(64)
    registry, recorder = _record(rk.scale_in_place, (x, 2.0), [], N=64)
    assert registry.release(4321) is False  # any release, of any handle, counts
    assert _eager.fast_call(rk.scale_in_place, (x, 2.0), None) is _eager.MISS
    assert recorder.calls == []


def test_capture_and_compile_take_the_full_path(
    cpu_plans: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    x = torch.ones(64)
    _record(rk.scale_in_place, (x, 2.0), [], N=64)
    monkeypatch.setattr(_eager, "is_capturing", lambda: True)
    assert _eager.fast_call(rk.scale_in_place, (x, 2.0), None) is _eager.MISS
    monkeypatch.setattr(_eager, "is_capturing", lambda: False)
    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    assert _eager.fast_call(rk.scale_in_place, (x, 2.0), None) is _eager.MISS


def test_plans_die_with_their_kernel(cpu_plans: None) -> None:
    kernel = rk.vector_add_u32()
    x = torch.ones(16)
    _record(kernel, (x, x, 16), [torch.zeros(16)], N=16)
    key = id(kernel)
    assert key in _eager._PLANS
    del kernel
    import gc

    gc.collect()
    assert key not in _eager._PLANS


def test_kernels_without_inputs_get_no_plan(cpu_plans: None) -> None:
    kernel = rk.output_only()
    _record(kernel, (), [torch.zeros(8)], N=8)
    assert id(kernel) not in _eager._PLANS


def test_the_plan_allocates_outputs_as_the_kernel_says(cpu_plans: None) -> None:
    x = torch.ones(128)
    for kernel, zero in ((rk.square, True), (rk.square_every, False)):
        _record(kernel, (x,), [torch.zeros(128)], N=128)
        (plan,) = _eager._PLANS[id(kernel)].values()
        assert plan.outputs == (((128,), torch.float32, False, zero),)
        allocated.clear()
        out = _eager.fast_call(kernel, (x,), None)
        assert allocated == [zero]
        assert out.shape == (128,) and out.dtype == torch.float32


@pytest.mark.parametrize("column_major", [False, True])
@pytest.mark.parametrize("zero", [True, False])
def test_allocate_output_picks_zeros_or_empty(
    monkeypatch: pytest.MonkeyPatch, zero: bool, column_major: bool
) -> None:
    calls: list[tuple[str, tuple[int, ...]]] = []
    for name in ("zeros", "empty"):
        real = getattr(torch, name)

        def spy(shape: Any, *, _name: str = name, _real: Any = real, **kw: Any) -> Any:
            calls.append((_name, tuple(shape)))
            return _real(shape, **kw)

        monkeypatch.setattr(torch, name, spy)
    out = _eager.allocate_output((4, 3), torch.float32, "cpu", column_major, zero)
    assert calls == [("zeros" if zero else "empty", (3, 4) if column_major else (4, 3))]
    assert out.shape == (4, 3)
    assert out.is_contiguous() is not column_major
    if zero:
        assert not out.any()
