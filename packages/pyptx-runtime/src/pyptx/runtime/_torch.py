"""PyTorch front end: eager calls, ``torch.compile`` and CUDA graphs.

Eager calls bind the arguments, allocate the outputs with ``torch.zeros`` on the inputs'
device (``torch.empty`` for a ``zero_outputs=False`` kernel, which writes every element; the
emulator then fills them with all-ones bytes first, see :mod:`._emulate`) and launch
directly (GPU: the shim on the current stream; CPU: the emulator). Under
``torch.compile`` the launch goes through one custom op, ``torch.ops.pyptx.launch``, so the
compiler sees an opaque call with known effects and no graph break:

``pyptx::launch(str call, Tensor[] inputs, Tensor(a2!)[] written, SymInt[] ints,
float[] floats, SymInt stream) -> ()``

``call`` names the kernel and its non-tensor keywords (registered when the call is traced);
``inputs`` are the ``in_specs`` arrays the kernel only reads, ``written`` the outputs
(allocated in the graph, zero-filled, or uninitialized for ``zero_outputs=False``) followed
by the ``mutates`` inputs; the scalars travel split by type so 64-bit integers stay exact.
Because the outputs are allocated outside the op and the op returns nothing, its fake
implementation has nothing to compute and shapes flow through the compiler from the
``torch.zeros`` (``torch.empty``) calls. CUDA graph capture takes the eager full path, so a
captured launch captures the same allocation.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import torch

from pyptx.dsl.kernel import Kernel, kernel_by_key
from pyptx.dsl.tile import Layout
from pyptx.ir import TypeKind

from ._binding import Bound, bind, dtype_names
from ._driver import gpu_count
from ._eager import allocate_output, current_raw_stream, is_capturing
from ._errors import ArgumentError
from ._launch import no_gpu, pack_result
from ._specialize import ParamSource, Specialization, specialize_bound

__all__ = ["call_torch", "register_torch_op"]

_CALLS: dict[str, tuple[Kernel, tuple[tuple[str, Any], ...], str | None]] = {}
_LOCK = threading.Lock()
_OP: Any = None


def _register_call_now(
    kernel_key: str, keywords: tuple[tuple[str, Any], ...], backend: str | None
) -> str:
    """A string naming (kernel, keywords, backend) for the custom op; registers both.

    The kernel comes as its :attr:`~pyptx.dsl.kernel.Kernel.key`: Dynamo passes only
    constants to the function below (torch 2.11 refuses the kernel object itself).
    """
    kernel = kernel_by_key(kernel_key)
    if kernel is None:  # the caller holds the kernel, so it cannot have been collected
        raise ArgumentError(f"no live kernel has the key {kernel_key!r}")
    register_torch_op()
    key = f"{kernel_key}:{keywords!r}:{backend}"
    with _LOCK:
        _CALLS.setdefault(key, (kernel, keywords, backend))
    return key


# Dynamo runs this for real while it traces (its result becomes a constant of the graph), so
# the registration happens before the compiled graph first calls the op.
_register_call = torch.compiler.assume_constant_result(_register_call_now)


def _torch_dtype(torch: Any, ty: Any) -> Any:
    return getattr(torch, dtype_names(ty)[0])


def _device_of(bound: Bound, backend: str | None, kernel: Kernel) -> str:
    """Where the call runs, ``"cuda"`` or ``"cpu"``, after checking ``backend``."""
    device = bound.infos[0].device if bound.infos else ("cuda" if backend == "gpu" else "cpu")
    if device not in ("cuda", "cpu"):
        raise ArgumentError(
            f"{kernel.name}: tensors on {device} cannot be launched; use CUDA or CPU tensors"
        )
    if backend == "gpu" and not bound.infos and gpu_count() == 0:
        raise no_gpu(kernel)
    if backend == "gpu" and device == "cpu":
        if gpu_count() == 0:
            raise no_gpu(kernel)
        raise ArgumentError(
            f"{kernel.name}: backend='gpu' with CPU tensors; move them to the GPU (.cuda())"
        )
    if backend == "emu" and device == "cuda":
        raise ArgumentError(
            f"{kernel.name}: backend='emu' runs in host memory, but the tensors are on the GPU; "
            "move them to the CPU (.cpu())"
        )
    return device


def _on_stream(stream: Any, device_index: int, buffers: Sequence[Any]) -> int:
    """The ``CUstream`` to launch on, ordered after the work that produced ``buffers``.

    The current stream by default. An explicit ``stream`` (a ``torch.cuda.Stream`` or a raw
    ``CUstream`` int) other than the current one first waits for the current stream, which
    allocated the outputs (and zero-filled them, unless ``zero_outputs=False``), and every
    buffer is recorded on it so the caching allocator does not reuse its memory early.
    """
    current = current_raw_stream(device_index)
    if stream is None:
        return current
    target: Any
    if isinstance(stream, int) and not isinstance(stream, bool):
        if stream == current:
            return stream
        target = _external_stream(stream, device_index)
    elif isinstance(stream, torch.cuda.Stream):
        target = stream
    else:
        raise ArgumentError(f"stream must be a torch.cuda.Stream or a CUstream int, got {stream!r}")
    if target.device.index != device_index:
        raise ArgumentError(
            f"stream is on cuda:{target.device.index}, but the tensors are on cuda:{device_index}"
        )
    if target.cuda_stream != current:
        target.wait_stream(torch.cuda.current_stream(device_index))
        for t in buffers:
            t.record_stream(target)
    return int(target.cuda_stream)


@functools.lru_cache(maxsize=64)
def _external_stream(stream: int, device_index: int) -> Any:
    """A ``torch.cuda.ExternalStream`` for a raw ``CUstream`` (building one costs ~15 us)."""
    return torch.cuda.ExternalStream(stream, device=device_index)


def _numpy_view(torch: Any, t: Any) -> Any:
    """A numpy array sharing ``t``'s memory (bf16/fp8 as same-width integers)."""
    t = t.detach()
    if t.dtype in (torch.bfloat16, torch.float16) or "float8" in str(t.dtype):
        t = t.view(torch.int16 if t.element_size() == 2 else torch.uint8)
    return t.numpy()


def _run(
    kernel: Kernel, bound: Bound, outputs: Sequence[Any], device: str, stream: Any
) -> tuple[Specialization, int, int] | None:
    """Launch a bound call whose outputs are allocated (eagerly, or inside the custom op).

    Returns:
        On a GPU, outside CUDA graph capture: the specialization, the shim handle and the
        device index (what an eager launch plan needs); else ``None``.
    """
    spec = specialize_bound(kernel, bound.template, bound.dims)
    buffers = [*bound.inputs, *outputs]
    if device == "cpu":
        from ._emulate import poison, run_emulated

        arrays = [_numpy_view(torch, t) for t in buffers]
        if not kernel.zero_outputs:  # torch.empty: make unwritten elements show
            for array in arrays[len(bound.inputs) :]:
                poison(array)
        run_emulated(spec, arrays, bound.scalars)
        return None
    from ._gpu import launch_on_gpu

    names = kernel.positional
    for plan in spec.params:
        if plan.kind is ParamSource.SCALAR:
            continue
        t = buffers[plan.index]
        if plan.kind is ParamSource.TENSOR_MAP and t.data_ptr() % 16:
            raise ArgumentError(
                f"{kernel.name}: argument {names[plan.index]} is read by TMA, which needs a "
                f"16-byte aligned address; got {t.data_ptr():#x} (a view at an odd offset?)"
            )
    index = buffers[0].device.index if buffers else torch.cuda.current_device()
    capturing = is_capturing()
    handle = launch_on_gpu(
        spec,
        device=index,
        stream=_on_stream(stream, index, buffers),
        pointers=[int(t.data_ptr()) for t in buffers],
        scalars=bound.scalars,
        owner=None if capturing else kernel,  # a captured graph keeps the module: pin it
    )
    return None if capturing else (spec, handle, index)


def _split_scalars(kernel: Kernel, scalars: Sequence[int | float]) -> tuple[list[int], list[float]]:
    from pyptx.ir import PtxType

    ints: list[int] = []
    floats: list[float] = []
    for (ty_name, _), value in zip(kernel.raw_params, scalars, strict=True):
        ty = PtxType.from_name(ty_name)
        if ty is not None and ty.kind is TypeKind.FLOAT:
            floats.append(float(value))
        else:
            ints.append(int(value))
    return ints, floats


def _join_scalars(kernel: Kernel, ints: Sequence[int], floats: Sequence[float]) -> list[Any]:
    from pyptx.ir import PtxType

    out: list[Any] = []
    i = f = 0
    for ty_name, _ in kernel.raw_params:
        ty = PtxType.from_name(ty_name)
        if ty is not None and ty.kind is TypeKind.FLOAT:
            out.append(floats[f])
            f += 1
        else:
            out.append(ints[i])
            i += 1
    return out


def _op_launch(
    call: str,
    inputs: Sequence[Any],
    written: Sequence[Any],
    ints: Sequence[int],
    floats: Sequence[float],
    stream: int,
) -> None:
    """The custom op's implementation: rebuild the call and launch it."""
    kernel, keywords, backend = _CALLS[call]
    n_out = len(kernel.out_specs)
    outputs, mutated = list(written[:n_out]), list(written[n_out:])
    reading = iter(inputs)
    changing = dict(zip(kernel.mutates, mutated, strict=True))
    names = kernel.positional[: len(kernel.in_specs)]
    arrays = [changing[n] if n in changing else next(reading) for n in names]
    args = [*arrays, *_join_scalars(kernel, ints, floats)]
    bound = bind(kernel, args, dict(keywords))
    device = _device_of(bound, backend, kernel)
    _run(kernel, bound, outputs, device, None if stream < 0 else stream)


def register_torch_op() -> Any:
    """Define ``torch.ops.pyptx.launch`` (once per process) and return it.

    Calls under ``torch.compile`` use it automatically; call this to run
    ``torch.library.opcheck`` on it or to look at its schema.
    """
    global _OP
    with _LOCK:
        if _OP is not None:
            return _OP

        def launch_op(call, inputs, written, ints, floats, stream):  # type: ignore[no-untyped-def,unused-ignore]
            _op_launch(call, inputs, written, ints, floats, stream)

        # The schema comes from these hints (real objects: this module's hints are strings).
        launch_op.__annotations__ = {
            "call": str,
            "inputs": list[torch.Tensor],
            "written": list[torch.Tensor],
            "ints": list[int],
            "floats": list[float],
            "stream": int,
            "return": None,
        }
        op = torch.library.custom_op("pyptx::launch", mutates_args=("written",))(launch_op)

        @op.register_fake  # type: ignore[untyped-decorator,unused-ignore]
        def _(
            call: str,
            inputs: Sequence[Any],
            written: Sequence[Any],
            ints: Sequence[int],
            floats: Sequence[float],
            stream: int,
        ) -> None:
            return None

        _OP = op
        return op


def call_torch(
    kernel: Kernel,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    backend: str | None,
    stream: Any,
) -> Any:
    """Launch ``kernel`` on torch tensors; see :func:`pyptx.runtime.launch`."""
    bound = bind(kernel, args, kwargs)
    device = _device_of(bound, backend, kernel)
    where = bound.inputs[0].device if bound.inputs else torch.device(device)
    outputs = [
        allocate_output(
            shape, _torch_dtype(torch, ty), where, tile.layout is Layout.COL, kernel.zero_outputs
        )
        for (shape, ty), tile in zip(bound.outputs, kernel.out_specs, strict=True)
    ]
    if not torch.compiler.is_compiling():
        ran = _run(kernel, bound, outputs, device, stream)
        if ran is not None and not kwargs and backend is None:
            _record(kernel, args, ran, outputs)
        return pack_result(kernel, outputs, bound.inputs)
    keywords = tuple(sorted((k, v) for k, v in kwargs.items() if k not in _scalar_names(kernel)))
    call = _register_call(kernel.key, keywords, backend)
    names = kernel.positional[: len(kernel.in_specs)]
    reading = [a for n, a in zip(names, bound.inputs, strict=True) if n not in kernel.mutates]
    mutated = [bound.inputs[names.index(n)] for n in kernel.mutates]
    ints, floats = _split_scalars(kernel, bound.scalars)
    if stream is not None and not isinstance(stream, int):
        raise ArgumentError("under torch.compile, pass stream= as a CUstream int (or omit it)")
    if not outputs and not mutated:
        raise ArgumentError(
            f"{kernel.name} has no out_specs and no mutates, so under torch.compile its launch "
            "has no visible effect and would be dropped; declare what it writes (mutates=)"
        )
    launch_op = torch.ops.pyptx.launch
    launch_op(call, reading, [*outputs, *mutated], ints, floats, -1 if stream is None else stream)
    return pack_result(kernel, outputs, bound.inputs)


def _record(
    kernel: Kernel, args: Sequence[Any], ran: tuple[Specialization, int, int], outputs: Any
) -> None:
    """Leave an eager launch plan for the next call with this signature (see :mod:`._eager`)."""
    from ._eager import fast_call, record_plan
    from ._gpu import kernel_registry
    from ._launch import set_fast_path
    from ._shim import load_shim

    spec, handle, index = ran
    record_plan(kernel, args, spec, handle, index, outputs, kernel_registry(), load_shim().launch)
    set_fast_path(fast_call)


def _scalar_names(kernel: Kernel) -> set[str]:
    return {name for _, name in kernel.raw_params}
