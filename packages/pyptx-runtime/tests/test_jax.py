"""JAX: jax.jit on the CPU platform (the emulator), lowering for CUDA (the typed FFI custom
call), jax.shard_map over a multi-device CPU mesh."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import runtime_kernels as rk
from examples_loader import example

from pyptx.runtime import ArgumentError, GpuUnavailable, gpu_count, specialize

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

X = jnp.arange(256, dtype=jnp.float32) / 8
NO_SAFETY_CHECK = [jax.export.DisabledSafetyCheck.custom_call("pyptx_launch")]


def test_jit_on_cpu_runs_in_the_emulator() -> None:
    out = jax.jit(rk.square)(X)
    assert isinstance(out, jax.Array)
    np.testing.assert_array_equal(out, X * X)


def test_eager_call_and_several_outputs() -> None:
    total, count = rk.accumulate_twice(X)
    np.testing.assert_array_equal(total, 2 * X)
    np.testing.assert_array_equal(count, np.ones(256, np.float32))


def test_a_mutated_input_comes_back_as_a_new_array() -> None:
    out = jax.jit(lambda x: rk.scale_in_place(x, 4.0))(X)
    np.testing.assert_array_equal(out, 4 * X)
    np.testing.assert_array_equal(X, jnp.arange(256, dtype=jnp.float32) / 8)  # unchanged


def test_scalars_must_be_static() -> None:
    vector_add = example("vector_add")
    with pytest.raises(ArgumentError, match=r"scalar n \(\.u32\) is a traced JAX value"):
        jax.jit(vector_add)(X, X, 256)
    out = jax.jit(vector_add, static_argnums=2)(X, X, 256)
    np.testing.assert_array_equal(out, 2 * X)


def _cuda_text(f, *args) -> str:  # type: ignore[no-untyped-def]
    exported = jax.export.export(jax.jit(f), platforms=["cuda"], disabled_checks=NO_SAFETY_CHECK)
    return str(exported(*args).mlir_module())


def test_lowering_for_cuda_is_the_ffi_custom_call() -> None:
    vector_add = example("vector_add")
    text = _cuda_text(lambda a, b: vector_add(a, b, 256), X, X)
    (line,) = [ln for ln in text.splitlines() if "stablehlo.custom_call" in ln]
    spec = specialize(vector_add, {}, {"N": 256})
    handle = spec.handle - (1 << 64) if spec.handle >= 1 << 63 else spec.handle
    assert "@pyptx_launch(" in line
    assert f"handle = {handle} : i64" in line
    assert "scalars = dense<[0, 1, 0, 0]> : tensor<4xui8>" in line  # 256, little-endian u32
    # Typed FFI (custom-call API 4): the attributes travel as a dictionary, not a string.
    assert "mhlo.backend_config = {handle = " in line
    # The output enters as a zero-filled operand aliased to the result.
    assert "output_operand_alias<output_tuple_indices = [], operand_index = 2" in line
    assert "callback" not in text  # the CPU branch is not lowered for CUDA


def test_lowering_for_cuda_aliases_mutated_inputs() -> None:
    text = _cuda_text(lambda x: rk.scale_in_place(x, 2.0), X)
    (line,) = [ln for ln in text.splitlines() if "stablehlo.custom_call" in ln]
    assert "operand_index = 0" in line
    assert "scalars = dense<[0, 0, 0, 64]> : tensor<4xui8>" in line  # 2.0f


def test_backend_gpu_without_a_gpu_is_a_clear_error() -> None:
    if gpu_count():
        pytest.skip("this machine has a GPU")
    with pytest.raises(GpuUnavailable, match=r"backend='gpu' needs an NVIDIA GPU"):
        jax.jit(lambda x: rk.square(x, backend="gpu"))(X)


def test_backend_emu_lowers_only_the_callback() -> None:
    text = jax.jit(lambda x: rk.square(x, backend="emu")).lower(X).as_text()
    assert "pyptx_launch" not in text and "callback" in text


MESH_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import jax, jax.numpy as jnp
    from jax.sharding import Mesh, PartitionSpec as P
    sys.path.insert(0, {tests!r})
    import runtime_kernels as rk

    devices = jax.devices("cpu")
    assert len(devices) == 4, devices
    mesh = Mesh(np.array(devices), ("x",))
    f = jax.shard_map(rk.square, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    x = jnp.arange(4 * 128, dtype=jnp.float32)
    np.testing.assert_array_equal(jax.jit(f)(x), x * x)
    exported = jax.export.export(
        jax.jit(f),
        platforms=["cuda"],
        disabled_checks=[jax.export.DisabledSafetyCheck.custom_call("pyptx_launch")],
    )(x)
    text = str(exported.mlir_module())
    assert exported.nr_devices == 4, exported.nr_devices
    calls = [ln for ln in text.splitlines() if "custom_call @pyptx_launch" in ln]
    assert len(calls) == 1, calls
    assert "tensor<128xf32>" in calls[0], calls[0]  # each device launches on its shard
    print("mesh ok")
    """
)


def test_shard_map_over_a_multi_device_cpu_mesh() -> None:
    tests = str(Path(__file__).resolve().parent)
    env = {"XLA_FLAGS": "--xla_force_host_platform_device_count=4", "JAX_PLATFORMS": "cpu"}
    result = subprocess.run(
        [sys.executable, "-c", MESH_SCRIPT.format(tests=tests)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("mesh ok")


def test_column_major_tiles_are_refused_for_jax() -> None:
    with pytest.raises(ArgumentError, match=r"Layout.COL tile, but JAX arrays are row-major"):
        rk.copy_column_major(jnp.zeros((4, 3), jnp.float32))


def test_a_call_without_results_is_kept_as_a_side_effect() -> None:
    from pyptx import Tile, kernel, ptx
    from pyptx.types import f32

    @kernel(in_specs=(Tile("N", f32),), arch="sm_80")
    def reads_only(x):  # type: ignore[no-untyped-def]
        ptx.ret()

    text = _cuda_text(lambda x: (reads_only(x), x + 1)[1], X)
    (line,) = [ln for ln in text.splitlines() if "custom_call @pyptx_launch" in ln]
    assert "has_side_effect = true" in line


# zero_outputs=False: no zero-filled operand on CUDA (XLA allocates the results); the CPU
# callback poisons the outputs.


def test_zero_outputs_false_on_the_cpu_platform() -> None:
    np.testing.assert_array_equal(jax.jit(rk.square_every)(X), X * X)
    y, x = jax.jit(rk.square_then_double)(X)
    np.testing.assert_array_equal(y, X * X)
    np.testing.assert_array_equal(x, 2 * X)
    out = np.asarray(jax.jit(rk.square_first_half(zero_outputs=False))(X))
    unwritten = out.reshape(-1, rk.BLOCK)[:, rk.BLOCK // 2 :]
    assert (unwritten.view(np.uint32) == 0xFFFFFFFF).all()
    zeroed = np.asarray(rk.square_first_half(zero_outputs=True)(X))
    np.testing.assert_array_equal(zeroed.reshape(-1, rk.BLOCK)[:, rk.BLOCK // 2 :], 0)


def test_lowering_for_cuda_without_zero_filled_outputs() -> None:
    (line,) = [ln for ln in _cuda_text(rk.square_every, X).splitlines() if "custom_call" in ln]
    # The only operand is the input; the result is XLA's own buffer: no alias, no zeros.
    assert "@pyptx_launch(%arg0) " in line
    assert "output_operand_alias" not in line
    assert "(tensor<256xf32>) -> tensor<256xf32>" in line
    text = _cuda_text(rk.square_then_double, X)
    (line,) = [ln for ln in text.splitlines() if "custom_call" in ln]
    # The mutated input is still aliased, to the second result (after the output).
    assert "@pyptx_launch(%arg0) " in line
    assert "output_operand_alias<output_tuple_indices = [1], operand_index = 0" in line
    assert "(tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>)" in line
