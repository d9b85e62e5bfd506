"""The GPU launch core's bookkeeping, on the real shim and toolchains (no GPU needed):
compiling and registering a specialization, and releasing it with its kernel."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from pyptx import Tile, kernel, ptx
from pyptx.runtime import ArgumentError, kernel_registry, load_shim, specialize
from pyptx.runtime._gpu import compile_target
from pyptx.types import f32


@pytest.mark.parametrize(
    ("kernel_arch", "device", "target"),
    [("sm_90a", "sm_90a", "sm_90a"), ("sm_80", "sm_90a", "sm_90a"), ("sm_80", "sm_86", "sm_86")],
)
def test_compile_target(kernel_arch: str, device: str, target: str) -> None:
    assert compile_target(kernel_arch, device) == target


@pytest.mark.parametrize(("kernel_arch", "device"), [("sm_90a", "sm_100a"), ("sm_90a", "sm_80")])
def test_compile_target_refuses_what_cannot_run(kernel_arch: str, device: str) -> None:
    with pytest.raises(
        ArgumentError, match=rf"targets {kernel_arch}, which cannot run on this {device}"
    ):
        compile_target(kernel_arch, device)


def _fresh_kernel():  # type: ignore[no-untyped-def]
    @kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),), arch="sm_80")
    def copy(x, y):  # type: ignore[no-untyped-def]
        ptx.ret()

    return copy


def test_prepared_specializations_are_released_with_their_kernel() -> None:
    shim = load_shim()
    registry = kernel_registry()
    k = _fresh_kernel()
    spec = specialize(k, {}, {"N": 64})
    handle = registry.prepare(spec, "sm_80", owner=k)
    assert handle == spec.handle
    assert shim.is_registered(handle) and registry.get(handle) is spec
    # A second kernel object with the same PTX shares the entry until both are gone.
    other = _fresh_kernel()
    assert registry.prepare(specialize(other, {}, {"N": 64}), "sm_80", owner=other) == handle
    alive = weakref.ref(k)
    del k, spec
    gc.collect()
    assert alive() is None
    assert shim.is_registered(handle)
    del other
    gc.collect()
    assert not shim.is_registered(handle)
    assert handle not in registry.handles()


def test_an_assembler_error_names_the_ptx_line_and_the_python_line() -> None:
    from pyptx import reg
    from pyptx.runtime import CompileError
    from pyptx.types import u32

    @kernel(in_specs=(Tile("N", f32),), arch="sm_80")
    def bad(x):  # type: ignore[no-untyped-def]
        r = reg.scalar(u32)
        ptx.mov(r, 1)
        ptx.raw("mov.u32 %r0, %rd_not_declared;")  # the DSL does not check raw text

    spec = specialize(bad, {}, {"N": 4})
    with pytest.raises(CompileError) as caught:
        kernel_registry().prepare(spec, "sm_80", owner=bad)
    err = caught.value
    assert err.python_location is not None
    path, line = err.python_location
    assert path == __file__
    assert "ptx.raw(" in Path(path).read_text().splitlines()[line - 1]
    assert err.ptx_line is not None
    assert spec.ptx.splitlines()[err.ptx_line - 1].strip() == "mov.u32 %r0, %rd_not_declared;"
    assert f"{path}:{line}" in str(err) and "%rd_not_declared" in str(err)
