"""Every kernel of the GPU's arch through its public function with JAX arrays on the GPU.

The torch GPU tests are in each family's test file and in test_api.py; this file covers the
JAX path on a GPU (the runtime's typed XLA FFI call), eager and under ``jax.jit``, with the
problems, inputs and float64 references of ``kernels_testing.CASES`` (the first shape the
kernel takes, its first dtype) and the same tolerances as the emulator runs. Marked ``gpu``:
skipped without a CUDA device of the kernel's arch, or without a JAX CUDA backend.
"""

from __future__ import annotations

import os
from typing import Any

import kernels_testing as kt
import numpy as np
import pytest

import pyptx.runtime
from pyptx.kernels import Implementation, KernelUnavailable, _registry

IMPLEMENTATIONS = _registry.implementations()
JAX_DTYPES = {
    "f32": "float32",
    "f16": "float16",
    "bf16": "bfloat16",
    "e4m3": "float8_e4m3fn",
    "e5m2": "float8_e5m2",
}


@pytest.fixture(scope="module")
def jax_gpu() -> tuple[Any, Any]:
    """``(jax, its first CUDA device)``; skips without a JAX CUDA backend."""
    # Torch and JAX share the GPU in one pytest process: XLA must not take 75 % of it up
    # front (this only matters when JAX has not started its backends yet).
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    jax = pytest.importorskip("jax")
    try:
        devices = jax.devices("cuda")
    except RuntimeError as exc:
        pytest.skip(f"jax {jax.__version__} has no CUDA backend ({exc})")
    return jax, devices[0]


def to_jax(jax: Any, values: np.ndarray, dtype: str, device: Any) -> Any:
    """``values`` rounded to the pyptx dtype ``dtype``, as a JAX array on ``device``."""
    import jax.numpy as jnp

    rounded = jnp.asarray(values.astype(np.float32)).astype(getattr(jnp, JAX_DTYPES[dtype]))
    return jax.device_put(rounded, device)


def as_float64(x: Any) -> np.ndarray:
    """A JAX array of any float dtype as float64 numpy (copied to the host)."""
    return np.asarray(x.astype("float32"), dtype=np.float64)


def check_jax_call(jax: Any, device: Any, impl: Implementation, jit: bool) -> None:
    """``kernels_testing.check_public_call`` for JAX arrays on ``device``."""
    case = kt.CASES[impl.family]
    dtype = impl.dtypes[0]
    out_dtype = kt.OUTPUT_DTYPE.get(dtype, dtype)
    rtol, atol = kt.TOLERANCES[out_dtype]
    rng = np.random.default_rng(0)
    refusals = []

    def run(arrays: list[Any]) -> Any:
        return case.run(arrays, impl.arch)

    with kt.only([impl]):
        for shape in case.shapes:
            arrays = [to_jax(jax, v, dtype, device) for v in case.inputs(shape, rng)]
            try:
                result = jax.jit(run)(arrays) if jit else run(arrays)
            except KernelUnavailable as exc:
                refusals.append(f"{shape}: {exc}")
                continue
            expected = case.reference([as_float64(a) for a in arrays])
            results = result if isinstance(result, list) else [result]
            wants = expected if isinstance(expected, list) else [expected]
            assert len(results) == len(wants), f"{impl.name}: {len(results)} results"
            for got, want in zip(results, wants, strict=True):
                assert str(got.dtype) == JAX_DTYPES[out_dtype], f"{impl.name}: {got.dtype}"
                assert tuple(got.shape) == want.shape, f"{impl.name}: {got.shape}"
                assert next(iter(got.devices())).platform in ("gpu", "cuda")
                np.testing.assert_allclose(
                    as_float64(got), want, rtol=rtol, atol=atol, err_msg=impl.name
                )
            return
    raise AssertionError(f"{impl.name} took none of the shapes:\n" + "\n".join(refusals))


@pytest.mark.gpu
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=[i.name for i in IMPLEMENTATIONS])
def test_every_kernel_from_jax_on_the_gpu(
    impl: Implementation, jit: bool, jax_gpu: tuple[Any, Any]
) -> None:
    arch = pyptx.runtime.device_arch(0)
    if arch is None:
        pytest.skip("no CUDA device")
    if arch != impl.arch:
        pytest.skip(f"needs {impl.arch}, found {arch}")
    check_jax_call(*jax_gpu, impl, jit)
