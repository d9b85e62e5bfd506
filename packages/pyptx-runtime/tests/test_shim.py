"""The C++ launch shim: build, reproducibility, cache, ABI check, registry, XLA FFI, launches."""

from __future__ import annotations

import ctypes
import ctypes.util
import re
import struct
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pyptx.ir import PtxType
from pyptx.runtime import _driver, _shim, _shim_build, _tma, _tma_encode
from pyptx.runtime._errors import ArgumentError, GpuUnavailable, ShimError
from pyptx.runtime._shim import ParamKind, ParamSlot, Shim

HAVE_GPU = _driver.gpu_count() > 0
HAVE_JAXLIB = _shim_build._xla_include_dir() is not None
needs_no_gpu = pytest.mark.skipif(HAVE_GPU, reason="checks the error raised without a GPU")
needs_jax = pytest.mark.skipif(not HAVE_JAXLIB, reason="needs jax/jaxlib with its FFI headers")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shim-cache")


@pytest.fixture(scope="module")
def plain_path(cache_dir: Path) -> Path:
    return _shim_build.build_shim(False, cache_dir=cache_dir)


@pytest.fixture(scope="module")
def plain(plain_path: Path) -> Shim:
    return Shim(plain_path)


@pytest.fixture(scope="module")
def xla_path(cache_dir: Path) -> Path:
    if not HAVE_JAXLIB:
        pytest.skip("needs jax/jaxlib with its FFI headers")
    return _shim_build.build_shim(True, cache_dir=cache_dir)


@pytest.fixture(scope="module")
def xla(xla_path: Path) -> Shim:
    return Shim(xla_path)


@pytest.fixture
def fresh_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> _shim._ProcessState:
    """A fresh process-wide shim state with the cache under ``tmp_path``."""
    state = _shim._ProcessState()
    monkeypatch.setattr(_shim, "_PROCESS", state)
    monkeypatch.setenv("PYPTX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("PYPTX_CACHE_DISABLE", raising=False)
    return state


def _slots() -> list[ParamSlot]:
    return [ParamSlot.pointer(0), ParamSlot.pointer(1), ParamSlot.scalar(0, 4)]


# ------------------------------------------------------------------------------------------
# Building
# ------------------------------------------------------------------------------------------


def test_source_and_python_agree_on_the_abi_version() -> None:
    source = _shim_build._SOURCE.read_text()
    match = re.search(r"#define PYPTX_SHIM_ABI_VERSION (\d+)", source)
    assert match is not None
    assert int(match.group(1)) == _shim.SHIM_ABI_VERSION


def test_builds_without_gpu_and_without_xla(plain_path: Path, plain: Shim) -> None:
    assert plain_path.name == "libpyptx_shim.so"
    assert plain_path.parent.parent.name == "shim"
    assert not plain.has_xla
    assert plain.xla_error
    for symbol in ("pyptx_shim_abi_version", "pyptx_register", "pyptx_launch", "pyptx_unregister"):
        assert hasattr(plain.library, symbol)
    assert not hasattr(plain.library, "PyptxXlaLaunch")


@needs_jax
def test_builds_with_xla(xla: Shim, plain_path: Path) -> None:
    assert xla.has_xla
    assert xla.xla_error is None
    assert hasattr(xla.library, "PyptxXlaLaunch")
    assert xla.path.parent != plain_path.parent  # the key covers the XLA headers


def test_exports_only_the_c_abi(plain_path: Path) -> None:
    nm = subprocess.run(
        ["nm", "-D", "--defined-only", str(plain_path)], capture_output=True, text=True, check=False
    )
    if nm.returncode != 0:
        pytest.skip(f"nm is not usable here: {nm.stderr.strip()}")
    exported = {line.split()[-1] for line in nm.stdout.splitlines() if line.strip()}
    assert exported == {
        "pyptx_shim_abi_version",
        "pyptx_register",
        "pyptx_launch",
        "pyptx_unregister",
        "pyptx_query",
    }


@needs_jax
def test_build_is_byte_reproducible(xla_path: Path, tmp_path: Path) -> None:
    again = _shim_build.build_shim(True, cache_dir=tmp_path / "elsewhere")
    assert again != xla_path
    assert again.parent.name == xla_path.parent.name
    blob = again.read_bytes()
    assert blob == xla_path.read_bytes()
    # No machine-specific path leaks into the library.
    include = _shim_build._xla_include_dir()
    assert include is not None
    for path in (tmp_path, str(include[0]), str(_shim_build.cuda_include_dir()), Path.home()):
        assert str(path).encode() not in blob


def test_build_reuses_the_cache(
    plain_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = plain_path.stat().st_mtime_ns

    def no_compile(*args: object) -> None:
        raise AssertionError("the cached shim was rebuilt")

    monkeypatch.setattr(_shim_build, "_compile", no_compile)
    assert _shim_build.build_shim(False, cache_dir=cache_dir) == plain_path
    assert plain_path.stat().st_mtime_ns == before


def test_key_covers_the_flags(plain_path: Path, cache_dir: Path) -> None:
    other, _ = _shim_build._build(False, cache_dir, extra_flags=("-DPYPTX_UNUSED=1",))
    assert other.parent != plain_path.parent
    assert other.is_file()


def test_concurrent_builds_are_safe(tmp_path: Path) -> None:
    code = textwrap.dedent(
        f"""
        from pathlib import Path
        from pyptx.runtime import _shim_build
        print(_shim_build.build_shim(False, cache_dir=Path({str(tmp_path)!r})))
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert outputs[0] == outputs[1]
    built = Path(outputs[0])
    assert Shim(built).has_xla is False
    leftovers = [p.name for p in built.parent.iterdir() if p.name != built.name]
    assert leftovers == []


def test_compile_failure_reports_command_and_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ShimError, match=r"(?s)building the pyptx launch shim failed.*\$ .*#error"):
        _shim_build._build(False, tmp_path, extra_flags=("-include", "/nonexistent/#error.h"))


def test_missing_compiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CXX", "/nonexistent/bin/c++")
    with pytest.raises(ShimError, match=r"compiler '/nonexistent/bin/c\+\+' was not found"):
        _shim_build.build_shim(False, cache_dir=tmp_path)


def test_cuda_headers_from_the_wheel() -> None:
    include = _shim_build.cuda_include_dir()
    assert (include / "cuda.h").is_file()
    assert (include / "cudaTypedefs.h").is_file()
    assert _shim_build._cuda_version(include) >= 12000


def test_cuda_headers_from_cuda_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_shim_build, "_nvidia_roots", list)
    monkeypatch.setattr(_shim_build, "_SYSTEM_CUDA_INCLUDE", tmp_path / "no-system-cuda")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    with pytest.raises(ShimError, match=rf"found in none of: .*{re.escape(str(tmp_path))}"):
        _shim_build.cuda_include_dir()
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "cuda.h").write_text("#define CUDA_VERSION 12080\n")
    (tmp_path / "include" / "cudaTypedefs.h").write_text("")
    assert _shim_build.cuda_include_dir() == tmp_path / "include"
    assert _shim_build._cuda_version(tmp_path / "include") == 12080


def test_auto_xla_falls_back_and_remembers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not HAVE_JAXLIB:
        pytest.skip("needs jax/jaxlib with its FFI headers")
    real_compile = _shim_build._compile

    def fail_with_xla(recipe: Any, output: Path) -> None:
        if recipe.xla_include is not None:
            raise ShimError("simulated XLA build failure")
        real_compile(recipe, output)

    monkeypatch.setattr(_shim_build, "_compile", fail_with_xla)
    path, reason = _shim_build._build(None, tmp_path)
    assert reason is not None and "simulated XLA build failure" in reason
    assert not Shim(path, xla_error=reason).has_xla

    def no_compile(*args: object) -> None:
        raise AssertionError("retried a remembered failure")

    monkeypatch.setattr(_shim_build, "_compile", no_compile)
    again, reason_again = _shim_build._build(None, tmp_path)
    assert again == path
    assert reason_again == reason


# ------------------------------------------------------------------------------------------
# Loading and the ABI check
# ------------------------------------------------------------------------------------------


def test_abi_mismatch_is_a_shim_error(tmp_path: Path) -> None:
    path, _ = _shim_build._build(False, tmp_path, extra_flags=("-DPYPTX_SHIM_ABI_VERSION=999",))
    with pytest.raises(ShimError) as info:
        Shim(path)
    message = str(info.value)
    assert "ABI version 999" in message
    assert f"needs ABI version {_shim.SHIM_ABI_VERSION}" in message
    assert str(path) in message


def test_not_a_shim(tmp_path: Path) -> None:
    libm = ctypes.util.find_library("m")
    if libm is None:
        pytest.skip("no libm to load")
    with pytest.raises(ShimError, match="is not a pyptx launch shim"):
        Shim(Path(libm))
    with pytest.raises(ShimError, match="cannot load the pyptx launch shim"):
        Shim(tmp_path / "missing.so")


def test_load_shim_is_process_wide_and_cached(
    fresh_process: _shim._ProcessState, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shim = _shim.load_shim()
    assert shim.path.is_relative_to(tmp_path / "cache" / "shim")
    assert shim.has_xla is HAVE_JAXLIB
    monkeypatch.setattr(_shim_build, "_build", lambda *a, **k: pytest.fail("rebuilt"))
    assert _shim.load_shim() is shim
    assert _shim.shim_available()
    assert _shim.shim_load_error() is None


def test_load_shim_failure_is_remembered(
    fresh_process: _shim._ProcessState, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CXX", "/nonexistent/bin/c++")
    with pytest.raises(ShimError, match="was not found"):
        _shim.load_shim()
    monkeypatch.delenv("CXX")
    assert not _shim.shim_available()
    error = _shim.shim_load_error()
    assert error is not None and "/nonexistent/bin/c++" in error
    with pytest.raises(ShimError, match="was not found"):
        _shim.load_shim()


def test_cache_disabled_builds_in_a_private_directory(
    fresh_process: _shim._ProcessState, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYPTX_CACHE_DISABLE", "1")
    path = _shim_build.build_shim(False)
    assert not path.is_relative_to(tmp_path / "cache")
    assert path.is_relative_to(_shim_build.scratch_dir())
    assert Shim(path).has_xla is False


def test_import_builds_and_loads_nothing() -> None:
    code = (
        "import sys, pyptx.runtime._shim, pyptx.runtime._tma\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('torch', 'jax', 'jaxlib', 'cuda')]\n"
        "assert not bad, bad\n"
        "assert pyptx.runtime._shim._PROCESS.shim is None\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# ------------------------------------------------------------------------------------------
# Registry (no driver needed)
# ------------------------------------------------------------------------------------------


def test_register_without_driver(plain: Shim) -> None:
    plain.register(101, "k", b"\x7fELF...", (4, 1, 1), (128, 1, 1), (1, 1, 1), 0, _slots())
    assert plain.is_registered(101)
    assert plain.module_count(101) == 0
    # The identical kernel again: a no-op.
    plain.register(101, "k", b"\x7fELF...", (4, 1, 1), (128, 1, 1), (1, 1, 1), 0, _slots())
    with pytest.raises(ArgumentError, match="handle 101 is already registered for kernel 'k'"):
        plain.register(101, "k", b"\x7fELF..!", (4, 1, 1), (128, 1, 1), (1, 1, 1), 0, _slots())
    assert plain.unregister(101)
    assert not plain.unregister(101)
    assert not plain.is_registered(101)


def test_handles_use_all_64_bits(plain: Shim) -> None:
    handle = (1 << 64) - 3
    plain.register(handle, "k", b"x", (1, 1, 1), (1, 1, 1), (1, 1, 1), 0, [])
    assert plain.is_registered(handle)
    assert not plain.is_registered(handle - (1 << 63))
    assert plain.unregister(handle)


@pytest.mark.parametrize(
    ("grid", "block", "cluster", "message"),
    [
        ((3, 1, 1), (128, 1, 1), (2, 1, 1), r"grid \(3, 1, 1\) is not a multiple of cluster"),
        ((1, 1, 1), (0, 1, 1), (1, 1, 1), "must all be positive"),
        ((1, 1, 1), (64, 32, 1), (1, 1, 1), "has 2048 threads, more than 1024"),
    ],
)
def test_register_rejects_bad_launch_config(
    plain: Shim,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    cluster: tuple[int, int, int],
    message: str,
) -> None:
    with pytest.raises(ArgumentError, match=message):
        plain.register(102, "k", b"x", grid, block, cluster, 0, [])
    assert not plain.is_registered(102)


def test_register_rejects_empty_name_and_image(plain: Shim) -> None:
    with pytest.raises(ArgumentError, match="kernel name is empty"):
        plain.register(103, "", b"x", (1, 1, 1), (1, 1, 1), (1, 1, 1), 0, [])
    with pytest.raises(ArgumentError, match="has an empty image"):
        plain.register(103, "k", b"", (1, 1, 1), (1, 1, 1), (1, 1, 1), 0, [])
    with pytest.raises(ArgumentError, match="3 ints in"):
        plain.register(103, "k", b"x", (1, 1), (1, 1, 1), (1, 1, 1), 0, [])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ParamSlot(ParamKind.POINTER, 4, 4, 0), "pointer parameter has size 8"),
        (lambda: ParamSlot(ParamKind.SCALAR, 0, 1, 0), r"size in \[1, 65536\)"),
        (lambda: ParamSlot(ParamKind.SCALAR, 4, 3, 0), "power-of-two alignment"),
        (lambda: ParamSlot(ParamKind.TENSOR_MAP, 128, 64, 0), "needs a 128-byte template"),
        (lambda: ParamSlot.tensor_map(0, bytes(64)), "got 64 bytes"),
        (lambda: ParamSlot(ParamKind.SCALAR, 4, 4, 0, bytes(128)), "only tensor-map parameters"),
        (lambda: ParamSlot(0, 8, 8, 0), "must be a ParamKind"),  # type: ignore[arg-type]
        (lambda: ParamSlot.pointer(-1), r"index must be in \[0, 2\*\*32\)"),
    ],
)
def test_param_slot_validation(make: Any, message: str) -> None:
    with pytest.raises(ArgumentError, match=message):
        make()


def test_param_slot_constructors() -> None:
    assert ParamSlot.pointer(2) == ParamSlot(ParamKind.POINTER, 8, 8, 2)
    assert ParamSlot.scalar(8, 4) == ParamSlot(ParamKind.SCALAR, 4, 4, 8)
    assert ParamSlot.scalar(8, 12, 4).align == 4
    assert ParamSlot.tensor_map(1, bytes(128)).align == 64


def test_launch_argument_errors(plain: Shim) -> None:
    plain.register(104, "k", b"x", (1, 1, 1), (32, 1, 1), (1, 1, 1), 0, _slots())
    try:
        with pytest.raises(ArgumentError, match="kernel handle 105 is not registered"):
            plain.launch(105, 0, [16, 32], b"\0" * 4, 0)
        with pytest.raises(ArgumentError, match="parameter 1 of kernel 'k' uses buffer 1, but"):
            plain.launch(104, 0, [16], b"\0" * 4, 0)
        with pytest.raises(ArgumentError, match=r"reads scalar bytes \[0, 4\), but only 2"):
            plain.launch(104, 0, [16, 32], b"\0" * 2, 0)
        with pytest.raises(ArgumentError, match="buffers must be device addresses"):
            plain.launch(104, 0, [16, -1], b"\0" * 4, 0)
    finally:
        plain.unregister(104)


@needs_no_gpu
def test_launch_without_driver_is_gpu_unavailable(plain: Shim) -> None:
    plain.register(106, "k", b"x", (1, 1, 1), (32, 1, 1), (1, 1, 1), 0, _slots())
    try:
        for _ in range(2):  # the failed driver load is remembered, and still reported
            with pytest.raises(GpuUnavailable, match=r"kernel 'k': .*libcuda\.so\.1"):
                plain.launch(106, 0, [16, 32], b"\0" * 4, 0)
    finally:
        assert plain.unregister(106)


def test_many_buffers_and_params_are_checked(plain: Shim) -> None:
    slots = [ParamSlot.pointer(i) for i in range(40)] + [ParamSlot.scalar(0, 4)] * 30
    plain.register(107, "k", b"x", (1, 1, 1), (1, 1, 1), (1, 1, 1), 0, slots)
    try:
        with pytest.raises(ArgumentError, match="uses buffer 39, but only 39 buffers"):
            plain.launch(107, 0, list(range(16, 16 * 40, 16)), b"\0" * 4, 0)
    finally:
        plain.unregister(107)


# ------------------------------------------------------------------------------------------
# XLA FFI
# ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def probe(xla: Shim) -> Any:
    """A CPU FFI target binding exactly what PyptxXlaLaunch binds, echoing it back."""
    jax = pytest.importorskip("jax")
    jax.ffi.register_ffi_target(
        "pyptx_probe_test", jax.ffi.pycapsule(xla.library.PyptxXlaProbe), platform="cpu"
    )

    def call(operands: tuple[Any, ...], handle: int, scalars: bytes) -> bytes:
        import numpy as np

        out = jax.ShapeDtypeStruct((64,), np.uint8)
        result = jax.jit(
            lambda *ops: jax.ffi.ffi_call("pyptx_probe_test", (out, out))(
                *ops, **_shim.xla_attributes(handle, scalars)
            )
        )(*operands)
        return bytes(np.asarray(result[0]))

    return call


def _decode_probe(record: bytes) -> tuple[int, int, int, bytes, bytes]:
    handle, nargs, nrets, nscalars = struct.unpack_from("<QIII", record)
    scalars = record[20 : 20 + nscalars]
    heads = record[20 + nscalars : 20 + nscalars + 4 * nargs]
    return handle, nargs, nrets, scalars, heads


@needs_jax
def test_xla_attributes_reach_the_handler(probe: Any) -> None:
    import numpy as np

    a = np.array([7, 8], dtype=np.int32)
    b = np.array([1.0, 2.0], dtype=np.float32)
    handle, nargs, nrets, scalars, heads = _decode_probe(probe((a, b), 123456789, b"\x01\x02\x03"))
    assert (handle, nargs, nrets, scalars) == (123456789, 2, 2, b"\x01\x02\x03")
    assert heads == a[:1].tobytes() + b[:1].tobytes()  # operands arrive in order


@needs_jax
def test_xla_attributes_high_handle_and_no_scalars(probe: Any) -> None:
    import numpy as np

    handle = (1 << 64) - 5
    decoded = _decode_probe(probe((np.zeros(4, np.int32),), handle, b""))
    assert decoded[:4] == (handle, 1, 2, b"")


def test_xla_attributes_encoding() -> None:
    import numpy as np

    attrs = _shim.xla_attributes((1 << 64) - 1, b"\x05")
    assert attrs["handle"].dtype == np.int64 and int(attrs["handle"]) == -1
    assert attrs["scalars"].dtype == np.uint8 and attrs["scalars"].tolist() == [5]
    with pytest.raises(ArgumentError, match=r"\[0, 2\*\*64\)"):
        _shim.xla_attributes(1 << 64, b"")


@needs_jax
def test_register_ffi_target_on_cpu_jaxlib(
    xla: Shim, fresh_process: _shim._ProcessState, tmp_path: Path
) -> None:
    # A CPU-only jaxlib accepts (queues) a CUDA registration; calling it on CPU finds no handler.
    status = xla.register_ffi_target()
    assert status and status.reason is None
    assert xla.register_ffi_target()  # idempotent
    other = Shim(_shim_build.build_shim(True, cache_dir=tmp_path))
    if other.path != xla.path:
        refused = other.register_ffi_target()
        assert not refused
        assert refused.reason is not None and "already registered" in refused.reason


@needs_jax
def test_pyptx_launch_target_is_cuda_only(xla: Shim, fresh_process: _shim._ProcessState) -> None:
    jax = pytest.importorskip("jax")
    import numpy as np

    if jax.default_backend() != "cpu":
        pytest.skip("checks the CPU backend")
    xla.register_ffi_target()
    call = jax.ffi.ffi_call(_shim.FFI_TARGET_NAME, jax.ShapeDtypeStruct((4,), np.float32))
    with pytest.raises(Exception, match="No FFI handler registered for pyptx_launch"):
        jax.jit(lambda x: call(x, **_shim.xla_attributes(1, b"")))(np.zeros(4, np.float32))


def test_no_xla_handler_without_xla(plain: Shim) -> None:
    status = plain.register_ffi_target()
    assert not status
    assert status.reason is not None and "no XLA handler" in status.reason
    with pytest.raises(ShimError, match="no XLA handler"):
        plain.xla_handler()


# ------------------------------------------------------------------------------------------
# GPU launches
# ------------------------------------------------------------------------------------------

KERNELS = r"""
.version 8.0
.target sm_90a
.address_size 64

.visible .entry add_scalar(.param .u64 out, .param .u64 inp, .param .u32 n, .param .f32 s)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [inp];
    ld.param.u32 %r1, [n];
    ld.param.f32 %f1, [s];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd2, %rd3;
    add.s64 %rd5, %rd1, %rd3;
    ld.global.f32 %f2, [%rd4];
    add.f32 %f3, %f2, %f1;
    st.global.f32 [%rd5], %f3;
DONE:
    ret;
}

.visible .entry cluster_rank(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %cluster_ctarank;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}

.extern .shared .align 16 .b8 dsmem[];

.visible .entry big_smem(.param .u64 out, .param .u32 offset)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [offset];
    mov.u32 %r2, dsmem;
    add.u32 %r3, %r2, %r1;
    mov.u32 %r4, 12345;
    st.shared.u32 [%r3], %r4;
    bar.sync 0;
    ld.shared.u32 %r5, [%r3];
    st.global.u32 [%rd1], %r5;
    ret;
}

.visible .entry tma_copy(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 x0,
                         .param .u32 y0)
{
    .reg .pred %p<3>;
    .reg .b32 %r<7>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<6>;
    .shared .align 128 .b8 tile[1024];
    .shared .align 8 .b64 bar;

    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra SYNC;
    mbarrier.init.shared::cta.b64 [bar], 1;
    fence.proxy.async.shared::cta;
    mov.b64 %rd1, tmap;
    cvta.param.u64 %rd1, %rd1;
    ld.param.u32 %r2, [x0];
    ld.param.u32 %r3, [y0];
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [bar], 1024;
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
        [tile], [%rd1, {%r2, %r3}], [bar];
SYNC:
    bar.sync 0;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
    @!%p2 bra WAIT;
    mov.u32 %r4, tile;
    shl.b32 %r5, %r1, 2;
    add.u32 %r6, %r4, %r5;
    ld.shared.f32 %f1, [%r6];
    ld.param.u64 %rd3, [out];
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd3, %rd4;
    st.global.f32 [%rd5], %f1;
    ret;
}
"""


class _Gpu:
    """Device memory helpers over cuda.bindings (test-only)."""

    def __init__(self) -> None:
        self.cu = _driver.driver()
        dev = _driver.check(self.cu.cuDeviceGet(0), "cuDeviceGet")
        self.ctx = _driver.check(self.cu.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
        _driver.check(self.cu.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")
        self.allocations: list[int] = []

    def alloc(self, data: bytes) -> int:
        ptr = int(_driver.check(self.cu.cuMemAlloc(len(data)), "cuMemAlloc"))
        self.allocations.append(ptr)
        _driver.check(self.cu.cuMemcpyHtoD(ptr, data, len(data)), "cuMemcpyHtoD")
        return ptr

    def read(self, ptr: int, size: int) -> bytes:
        _driver.check(self.cu.cuCtxSynchronize(), "cuCtxSynchronize")
        out = bytearray(size)
        _driver.check(self.cu.cuMemcpyDtoH(out, ptr, size), "cuMemcpyDtoH")
        return bytes(out)

    def close(self) -> None:
        for ptr in self.allocations:
            self.cu.cuMemFree(ptr)


@pytest.fixture
def gpu(plain: Shim) -> Iterator[_Gpu]:
    arch = _driver.device_arch(0)
    if arch is None:
        pytest.skip("needs an NVIDIA GPU; none found (no driver or no device)")
    if int(arch[3:].rstrip("a")) < 90:
        pytest.skip(f"needs sm_90 or newer (the test kernels target sm_90a), found {arch}")
    helper = _Gpu()
    yield helper
    helper.close()


PTX = KERNELS.encode()


@pytest.mark.gpu
def test_gpu_launch_with_scalars_on_streams(plain: Shim, gpu: _Gpu) -> None:
    n = 1000
    values = struct.pack(f"<{n}f", *range(n))
    src, dst = gpu.alloc(values), gpu.alloc(bytes(4 * n))
    slots = [ParamSlot.pointer(0), ParamSlot.pointer(1), ParamSlot.scalar(0, 4),
             ParamSlot.scalar(4, 4)]  # fmt: skip
    plain.register(201, "add_scalar", PTX, (8, 1, 1), (128, 1, 1), (1, 1, 1), 0, slots)
    try:
        plain.launch(201, 0, [dst, src], struct.pack("<If", n, 0.5), 0)
        assert struct.unpack(f"<{n}f", gpu.read(dst, 4 * n)) == tuple(i + 0.5 for i in range(n))
        stream = _driver.check(gpu.cu.cuStreamCreate(0), "cuStreamCreate")
        plain.launch(201, int(stream), [dst, src], struct.pack("<If", n, 2.0), 0)
        _driver.check(gpu.cu.cuStreamSynchronize(stream), "cuStreamSynchronize")
        assert struct.unpack(f"<{n}f", gpu.read(dst, 4 * n))[-1] == n - 1 + 2.0
        gpu.cu.cuStreamDestroy(stream)
        assert plain.module_count(201) == 1
    finally:
        assert plain.unregister(201)


@pytest.mark.gpu
def test_gpu_cluster_launch(plain: Shim, gpu: _Gpu) -> None:
    out = gpu.alloc(bytes(4 * 8))
    plain.register(202, "cluster_rank", PTX, (8, 1, 1), (32, 1, 1), (2, 1, 1), 0,
                   [ParamSlot.pointer(0)])  # fmt: skip
    try:
        plain.launch(202, 0, [out], b"", 0)
        assert struct.unpack("<8I", gpu.read(out, 32)) == (0, 1) * 4
    finally:
        plain.unregister(202)


@pytest.mark.gpu
def test_gpu_dynamic_smem_above_48k(plain: Shim, gpu: _Gpu) -> None:
    out = gpu.alloc(bytes(4))
    slots = [ParamSlot.pointer(0), ParamSlot.scalar(0, 4)]
    plain.register(203, "big_smem", PTX, (1, 1, 1), (32, 1, 1), (1, 1, 1), 100 * 1024, slots)
    try:
        plain.launch(203, 0, [out], struct.pack("<I", 99 * 1024), 0)
        assert struct.unpack("<I", gpu.read(out, 4)) == (12345,)
    finally:
        plain.unregister(203)


def _matrix() -> tuple[bytes, list[list[float]]]:
    rows = [[float(r * 64 + c) for c in range(64)] for r in range(64)]
    return struct.pack("<4096f", *(v for row in rows for v in row)), rows


@pytest.mark.gpu
def test_gpu_tma_template_is_repointed_per_launch(plain: Shim, gpu: _Gpu) -> None:
    blob, rows = _matrix()
    a, out = gpu.alloc(blob), gpu.alloc(bytes(1024))
    spec = _tma.plain_spec((64, 64), PtxType.F32, (16, 16))
    slots = [ParamSlot.tensor_map(0, _tma_encode.tensor_map_template(spec)), ParamSlot.pointer(1),
             ParamSlot.scalar(0, 4), ParamSlot.scalar(4, 4)]  # fmt: skip
    plain.register(204, "tma_copy", PTX, (1, 1, 1), (256, 1, 1), (1, 1, 1), 0, slots)
    try:
        plain.launch(204, 0, [a, out], struct.pack("<II", 16, 32), 0)  # x = col 16, y = row 32
        got = struct.unpack("<256f", gpu.read(out, 1024))
        assert list(got) == [rows[32 + i // 16][16 + i % 16] for i in range(256)]
    finally:
        plain.unregister(204)


@pytest.mark.gpu
def test_gpu_tma_encoded_map_as_scalar(plain: Shim, gpu: _Gpu) -> None:
    blob, rows = _matrix()
    a, out = gpu.alloc(blob), gpu.alloc(bytes(1024))
    tmap = _tma_encode.tensor_map_2d(a, (64, 64), PtxType.F32, (16, 16))
    slots = [ParamSlot.scalar(0, 128, 64), ParamSlot.pointer(0), ParamSlot.scalar(128, 4),
             ParamSlot.scalar(132, 4)]  # fmt: skip
    plain.register(205, "tma_copy", PTX, (1, 1, 1), (256, 1, 1), (1, 1, 1), 0, slots)
    try:
        plain.launch(205, 0, [out], tmap + struct.pack("<II", 0, 48), 0)
        got = struct.unpack("<256f", gpu.read(out, 1024))
        assert list(got) == [rows[48 + i // 16][i % 16] for i in range(256)]
    finally:
        plain.unregister(205)


@pytest.mark.gpu
def test_gpu_launch_errors_name_the_driver_call(plain: Shim, gpu: _Gpu) -> None:
    plain.register(206, "no_such_kernel", PTX, (1, 1, 1), (32, 1, 1), (1, 1, 1), 0, [])
    try:
        with pytest.raises(Exception, match="cuModuleGetFunction failed with CUDA_ERROR_NOT_FOUND"):
            plain.launch(206, 0, [], b"", 0)
        assert plain.module_count(206) == 0
    finally:
        plain.unregister(206)


@pytest.mark.gpu
def test_gpu_launch_without_a_current_context(plain: Shim, gpu: _Gpu) -> None:
    out = gpu.alloc(bytes(4 * 2))
    _driver.check(gpu.cu.cuCtxSetCurrent(None), "cuCtxSetCurrent")
    plain.register(207, "cluster_rank", PTX, (2, 1, 1), (32, 1, 1), (1, 1, 1), 0,
                   [ParamSlot.pointer(0)])  # fmt: skip
    try:
        plain.launch(207, 0, [out], b"", 0)  # the shim pushes device 0's primary context
        _driver.check(gpu.cu.cuCtxSetCurrent(gpu.ctx), "cuCtxSetCurrent")
        assert struct.unpack("<2I", gpu.read(out, 8)) == (0, 0)
    finally:
        plain.unregister(207)
