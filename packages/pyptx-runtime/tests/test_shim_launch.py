"""The launch shim's driver path on CPU: the real shim driving a fake libcuda.

``fake_cuda/fake_cuda.c`` is a stand-in for ``libcuda.so.1``. It is built once per session
with the shim's compiler. The shim loads it through ``PYPTX_LIBCUDA``. It records every
driver call it receives: entry-point lookups, contexts, module loads and unloads, function
attributes, and each launch with its configuration and a byte copy of every kernel parameter.
It also flags uses of the driver that a real driver would refuse ("violations").

Each test loads its own copy of the shim library. A distinct file is a distinct ``dlopen``,
with its own kernel table and its own driver, loaded at that copy's first launch from the
``PYPTX_LIBCUDA`` the test set. So no test sees another's state, and the process-wide
:func:`~pyptx.runtime._shim.load_shim` is left alone (the end-to-end test swaps it out for
the test's duration).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from pyptx import Tile, kernel, ptx, reg
from pyptx.runtime import _gpu, _shim, _shim_build
from pyptx.runtime._compile import compile_ptx
from pyptx.runtime._errors import ArgumentError, GpuUnavailable, RuntimeLaunchError
from pyptx.runtime._shim import ParamSlot, Shim
from pyptx.runtime._specialize import specialize
from pyptx.types import f32

FAKE_SOURCE = Path(__file__).with_name("fake_cuda") / "fake_cuda.c"

# Values from cuda.h.
CUDA_ERROR_INVALID_VALUE = 1
CUDA_ERROR_NO_DEVICE = 100
CUDA_ERROR_INVALID_IMAGE = 200
CUDA_ERROR_INVALID_CONTEXT = 201
CUDA_ERROR_INVALID_HANDLE = 400
CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701
CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
CU_STREAM_CAPTURE_MODE_GLOBAL = 0
CU_STREAM_CAPTURE_MODE_RELAXED = 2
CU_STREAM_LEGACY = 1
CU_STREAM_PER_THREAD = 2
CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1

# Every entry point the shim resolves. The fake itself refuses a lookup at a CUDA version
# whose signature differs from the PFN type it implements.
ENTRY_POINTS = {
    "cuGetErrorName", "cuGetErrorString", "cuInit", "cuDeviceGet", "cuDevicePrimaryCtxRetain",
    "cuCtxGetCurrent", "cuCtxPushCurrent", "cuCtxPopCurrent", "cuCtxGetDevice", "cuCtxGetId",
    "cuStreamGetCtx", "cuThreadExchangeStreamCaptureMode", "cuModuleLoadData",
    "cuModuleGetFunction", "cuModuleUnload", "cuFuncSetAttribute", "cuLaunchKernelEx",
    "cuTensorMapReplaceAddress",
}  # fmt: skip

IMAGE = b"\x7fFAKE cubin of kernel k"
TEMPLATE = bytes(range(128, 256))  # a tensor map whose address field the fake rewrites
BUF = 0x7F00_0000_1000  # device addresses the tests pass (16-byte aligned)


def _fnv1a(data: bytes) -> int:
    """The image hash the fake records (FNV-1a, 64-bit)."""
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def _tensor_map(address: int) -> bytes:
    """TEMPLATE re-pointed at ``address`` as the fake does it (little-endian, bytes 0..8)."""
    return struct.pack("<Q", address) + TEMPLATE[8:]


# --------------------------------------------------------------------------------------------
# The fake driver
# --------------------------------------------------------------------------------------------


def _build_fake(directory: Path, name: str, *defines: str) -> Path:
    """Compiles fake_cuda.c as C with the compiler the shim is built with."""
    compiler, _ = _shim_build._compiler()
    output = directory / name
    command = [
        *compiler, "-x", "c", "-std=gnu11", "-O1", "-fPIC", "-shared", "-fvisibility=hidden",
        "-Wall", "-Wextra", "-Werror", *defines, "-isystem", str(_shim_build.cuda_include_dir()),
        str(FAKE_SOURCE), "-o", str(output),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 0, f"$ {' '.join(command)}\n{result.stderr}"
    return output


@pytest.fixture(scope="session")
def fake_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fake-cuda")


@pytest.fixture(scope="session")
def fake_path(fake_dir: Path) -> Path:
    return _build_fake(fake_dir, "libfake_cuda.so")


@pytest.fixture(scope="session")
def shim_library() -> Path:
    """The library load_shim() loads: with the XLA handler where jaxlib is installed."""
    return _shim_build.build_shim()


class FakeDriver:
    """The fake's controls and record (ctypes over fake_cuda.c's ``fake_cuda_*`` functions)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lib = ctypes.CDLL(str(path))  # the same instance the shim will dlopen
        self.lib.fake_cuda_record.restype = ctypes.c_char_p
        for name in ("fake_cuda_context", "fake_cuda_primary", "fake_cuda_stream"):
            getattr(self.lib, name).restype = ctypes.c_uint64
        self.lib.fake_cuda_stream.argtypes = (ctypes.c_uint64,)
        self.lib.fake_cuda_set_current.argtypes = (ctypes.c_uint64,)

    def reset(self, devices: int = 2) -> None:
        self.lib.fake_cuda_reset(devices)

    def kernel(self, name: str, sizes: Sequence[int]) -> None:
        """Declares an entry point the loaded images contain, with its parameter sizes."""
        self.lib.fake_cuda_kernel(name.encode(), (ctypes.c_uint32 * len(sizes))(*sizes), len(sizes))

    def fail(self, entry_point: str, result: int) -> None:
        """Makes ``entry_point`` return ``result`` (0: work again)."""
        self.lib.fake_cuda_fail(entry_point.encode(), result)

    def hide(self, entry_point: str) -> None:
        self.lib.fake_cuda_hide(entry_point.encode())

    def context(self, device: int) -> int:
        return int(self.lib.fake_cuda_context(device))

    def primary(self, device: int) -> int:
        return int(self.lib.fake_cuda_primary(device))

    def stream(self, context: int) -> int:
        return int(self.lib.fake_cuda_stream(context))

    def set_current(self, context: int) -> None:
        self.lib.fake_cuda_set_current(context)

    def record(self) -> dict[str, Any]:
        """What the fake saw; fails the test if the shim misused the driver."""
        record: dict[str, Any] = json.loads(self.lib.fake_cuda_record())
        assert record["violations"] == []
        return record


@pytest.fixture
def fake(fake_path: Path) -> Iterator[FakeDriver]:
    driver = FakeDriver(fake_path)
    driver.reset()
    yield driver
    driver.record()  # no violations, also in tests that read no record


def _fresh_shim(library: Path, directory: Path) -> Shim:
    """A copy of the shim: its own dlopen, so its own kernels and a driver not yet loaded."""
    directory.mkdir(parents=True, exist_ok=True)
    copy = directory / library.name
    shutil.copyfile(library, copy)
    return Shim(copy)


@pytest.fixture
def shim(
    fake: FakeDriver, shim_library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Shim:
    """A fresh shim whose first launch loads the fake driver."""
    monkeypatch.setenv("PYPTX_LIBCUDA", str(fake.path))
    return _fresh_shim(shim_library, tmp_path / "shim")


def _register(
    shim: Shim,
    slots: Sequence[ParamSlot] = (),
    *,
    handle: int = 1,
    name: str = "k",
    grid: tuple[int, int, int] = (4, 1, 1),
    block: tuple[int, int, int] = (128, 1, 1),
    cluster: tuple[int, int, int] = (1, 1, 1),
    smem: int = 0,
) -> None:
    shim.register(handle, name, IMAGE, grid, block, cluster, smem, list(slots))


def _launch_error(shim: Shim, stream: int = 0, buffers: Sequence[int] = (), device: int = 0) -> str:
    """The message of the RuntimeLaunchError (exactly that class: a driver call failed)."""
    with pytest.raises(RuntimeLaunchError) as info:
        shim.launch(1, stream, buffers, b"", device)
    assert type(info.value) is RuntimeLaunchError
    return str(info.value)


# --------------------------------------------------------------------------------------------
# Loading the driver
# --------------------------------------------------------------------------------------------


def test_driver_resolved_once(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim)
    shim.launch(1, 0, [], b"", 0)
    shim.launch(1, 0, [], b"", 0)
    record = fake.record()
    queried = [q["symbol"] for q in record["queries"]]
    assert sorted(queried) == sorted(ENTRY_POINTS)  # each looked up once
    assert {(q["api"], q["flags"]) for q in record["queries"]} == {
        (2, CU_GET_PROC_ADDRESS_LEGACY_STREAM)
    }
    assert record["calls"].count("cuInit") == 1
    assert len(record["launches"]) == 2


def test_driver_with_only_the_cuda_11_cuGetProcAddress(
    fake_dir: Path, shim_library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = FakeDriver(_build_fake(fake_dir, "libfake_cuda_v1.so", "-DFAKE_CUDA_NO_PROC_ADDRESS_V2"))
    old.reset()
    old.kernel("k", [])
    monkeypatch.setenv("PYPTX_LIBCUDA", str(old.path))
    shim = _fresh_shim(shim_library, tmp_path / "shim")
    _register(shim)
    shim.launch(1, 0, [], b"", 0)
    record = old.record()
    assert {q["api"] for q in record["queries"]} == {1}
    assert len(record["launches"]) == 1


def test_process_wide_shim_loads_the_driver_the_variable_names(
    fake_path: Path, shim_library: Path
) -> None:
    # The production path in a fresh interpreter: load_shim(), then a first launch.
    code = textwrap.dedent(
        """
        import ctypes, sys
        from pyptx.runtime import _shim
        fake = ctypes.CDLL(sys.argv[1])
        fake.fake_cuda_record.restype = ctypes.c_char_p
        fake.fake_cuda_reset(1)
        fake.fake_cuda_kernel(b"k", None, 0)
        shim = _shim.load_shim()
        shim.register(1, "k", b"image", (2, 1, 1), (32, 1, 1), (1, 1, 1), 0, [])
        shim.launch(1, 0, [], b"", 0)
        print(shim.path)
        print(fake.fake_cuda_record().decode())
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(fake_path)],
        env={**os.environ, "PYPTX_LIBCUDA": str(fake_path)},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    path, text = result.stdout.splitlines()
    assert Path(path) == shim_library  # built by this session, not rebuilt
    record = json.loads(text)
    assert record["violations"] == []
    (launch,) = record["launches"]
    assert (launch["kernel"], launch["grid"]) == ("k", [2, 1, 1])


def test_missing_driver_library_is_gpu_unavailable(
    fake: FakeDriver, shim_library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shim = _fresh_shim(shim_library, tmp_path / "shim")
    _register(shim)
    missing = tmp_path / "nonexistent" / "libcuda.so.1"
    monkeypatch.setenv("PYPTX_LIBCUDA", str(missing))  # read at the first launch, not before
    with pytest.raises(GpuUnavailable) as info:
        shim.launch(1, 0, [], b"", 0)
    message = str(info.value)
    assert message.startswith(
        f"cannot launch kernel 'k': the CUDA driver library {missing} (from PYPTX_LIBCUDA) "
        "could not be loaded ("
    )
    assert message.endswith("); a launch needs an NVIDIA driver and GPU")
    # Read once: the failure is remembered, whatever the variable says now.
    monkeypatch.setenv("PYPTX_LIBCUDA", str(fake.path))
    with pytest.raises(GpuUnavailable) as again:
        shim.launch(1, 0, [], b"", 0)
    assert str(again.value) == message
    assert fake.record()["calls"] == []


def test_empty_variable_means_the_default_library(
    shim_library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        pass
    else:
        pytest.skip("a real libcuda.so.1 is installed; this checks the message without one")
    monkeypatch.setenv("PYPTX_LIBCUDA", "")
    shim = _fresh_shim(shim_library, tmp_path / "shim")
    _register(shim)
    with pytest.raises(GpuUnavailable, match=r"driver library libcuda\.so\.1 could not be loaded"):
        shim.launch(1, 0, [], b"", 0)


def test_library_without_cuGetProcAddress(
    shim_library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    libm = ctypes.util.find_library("m")
    if libm is None:
        pytest.skip("no libm to stand in for a library that is not a CUDA driver")
    monkeypatch.setenv("PYPTX_LIBCUDA", libm)
    shim = _fresh_shim(shim_library, tmp_path / "shim")
    _register(shim)
    with pytest.raises(
        GpuUnavailable, match=re.escape(f"{libm} (from PYPTX_LIBCUDA) has no cuGetProcAddress")
    ):
        shim.launch(1, 0, [], b"", 0)


def test_missing_required_entry_point(fake: FakeDriver, shim: Shim) -> None:
    fake.hide("cuTensorMapReplaceAddress")
    _register(shim)
    with pytest.raises(
        GpuUnavailable,
        match=r"does not provide cuTensorMapReplaceAddress \(ABI of CUDA 12\.0\); pyptx needs a "
        r"CUDA 12 or newer driver",
    ):
        shim.launch(1, 0, [], b"", 0)
    assert "cuInit" not in fake.record()["calls"]


def test_cuInit_failure_is_gpu_unavailable_and_remembered(fake: FakeDriver, shim: Shim) -> None:
    fake.fail("cuInit", CUDA_ERROR_NO_DEVICE)
    _register(shim)
    for _ in range(2):
        with pytest.raises(GpuUnavailable) as info:
            shim.launch(1, 0, [], b"", 0)
        assert str(info.value) == (
            "cannot launch kernel 'k': cuInit failed with CUDA_ERROR_NO_DEVICE (no CUDA-capable "
            "device is detected): no usable NVIDIA driver or GPU"
        )
    record = fake.record()
    assert record["calls"].count("cuInit") == 1
    assert record["modules"] == []


def test_without_cuCtxGetId_modules_are_keyed_by_context(fake: FakeDriver, shim: Shim) -> None:
    fake.hide("cuCtxGetId")  # optional: older drivers lack it
    fake.kernel("k", [])
    _register(shim)
    a, b = fake.context(0), fake.context(0)
    for ctx in (a, a, b):
        shim.launch(1, fake.stream(ctx), [], b"", 0)
    record = fake.record()
    assert [m["context"] for m in record["modules"]] == [a, b]
    assert "cuCtxGetId" not in record["calls"]


# --------------------------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------------------------


def _params(launch: dict[str, Any]) -> list[tuple[int, bytes]]:
    """(offset from the first parameter, bytes) of each parameter of a recorded launch."""
    base = launch["params"][0]["address"]
    return [(p["address"] - base, bytes.fromhex(p["bytes"])) for p in launch["params"]]


def test_parameters_packed_in_order_with_natural_alignment(fake: FakeDriver, shim: Shim) -> None:
    slots = [
        ParamSlot.pointer(0),
        ParamSlot.scalar(0, 1),  # u8
        ParamSlot.scalar(4, 4),  # f32
        ParamSlot.scalar(8, 8),  # u64
        ParamSlot.tensor_map(1, TEMPLATE),
        ParamSlot.scalar(16, 2),  # u16
        ParamSlot.pointer(2),
        ParamSlot.scalar(18, 12, 4),  # a 12-byte struct aligned to 4
    ]
    fake.kernel("k", [s.size for s in slots])
    _register(shim, slots)
    scalars = struct.pack("<B3xfQH12s", 0xAB, 1.5, 2**63 + 5, 0xBEEF, b"twelve bytes")
    assert len(scalars) == 30
    buffers = [BUF, BUF + 0x100, BUF + 0x200]
    shim.launch(1, 0, buffers, scalars, 0)
    shim.launch(1, 0, [BUF + 0x300, BUF + 0x400, BUF + 0x500], scalars, 0)
    first, second = fake.record()["launches"]
    assert _params(first) == [
        (0, struct.pack("<Q", BUF)),
        (8, b"\xab"),
        (12, struct.pack("<f", 1.5)),
        (16, struct.pack("<Q", 2**63 + 5)),
        (64, _tensor_map(BUF + 0x100)),  # a CUtensorMap is 64-byte aligned
        (192, struct.pack("<H", 0xBEEF)),
        (200, struct.pack("<Q", BUF + 0x200)),
        (208, b"twelve bytes"),
    ]
    for param, slot in zip(first["params"], slots, strict=True):
        assert param["address"] % slot.align == 0
    # The template is re-pointed at each launch's buffer and otherwise kept.
    assert _params(second)[4] == (64, _tensor_map(BUF + 0x400))
    assert _params(second)[0] == (0, struct.pack("<Q", BUF + 0x300))


def test_more_than_the_inline_arena(fake: FakeDriver, shim: Shim) -> None:
    # 40 pointers, 30 128-byte scalars and a tensor map: more than 64 parameters and more than
    # the 4 KiB packed on the stack.
    slots = [ParamSlot.pointer(i) for i in range(40)]
    slots += [ParamSlot.scalar(128 * i, 128, 64) for i in range(30)]
    slots.append(ParamSlot.tensor_map(40, TEMPLATE))
    fake.kernel("k", [s.size for s in slots])
    _register(shim, slots)
    buffers = [BUF + 0x100 * i for i in range(41)]
    scalars = b"".join(bytes([i]) * 128 for i in range(30))
    shim.launch(1, 0, buffers, scalars, 0)
    (launch,) = fake.record()["launches"]
    params = _params(launch)
    assert params[:40] == [(8 * i, struct.pack("<Q", BUF + 0x100 * i)) for i in range(40)]
    assert params[40:70] == [(320 + 128 * i, bytes([i]) * 128) for i in range(30)]
    assert params[70] == (320 + 128 * 30, _tensor_map(BUF + 0x100 * 40))
    for param, slot in zip(launch["params"], slots, strict=True):
        assert param["address"] % slot.align == 0


def test_kernel_without_parameters(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim)
    shim.launch(1, 0, [], b"", 0)
    assert fake.record()["launches"][0]["params"] == []


# --------------------------------------------------------------------------------------------
# Launch configuration
# --------------------------------------------------------------------------------------------


def test_grid_block_smem_and_stream_are_passed(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [8])
    ctx = fake.primary(0)
    fake.set_current(ctx)
    stream = fake.stream(ctx)
    _register(shim, [ParamSlot.pointer(0)], grid=(6, 5, 4), block=(32, 4, 2), smem=1000)
    shim.launch(1, stream, [BUF], b"", 0)
    record = fake.record()
    (launch,) = record["launches"]
    assert launch["grid"] == [6, 5, 4]
    assert launch["block"] == [32, 4, 2]
    assert launch["smem"] == 1000
    assert launch["stream"] == stream
    assert launch["context"] == ctx
    assert launch["attrs"] == []  # no cluster attribute for cluster (1, 1, 1)
    assert record["attributes"] == []  # 1000 bytes need no opt-in
    (module,) = record["modules"]
    assert (module["size"], module["hash"]) == (len(IMAGE), _fnv1a(IMAGE))


@pytest.mark.parametrize(
    ("grid", "cluster", "non_portable"),
    [((8, 1, 1), (2, 1, 1), False), ((4, 6, 2), (2, 3, 1), False), ((16, 2, 1), (16, 1, 1), True)],
)
def test_cluster_attribute(
    fake: FakeDriver,
    shim: Shim,
    grid: tuple[int, int, int],
    cluster: tuple[int, int, int],
    non_portable: bool,
) -> None:
    fake.kernel("k", [])
    _register(shim, grid=grid, cluster=cluster)
    shim.launch(1, 0, [], b"", 0)
    record = fake.record()
    (launch,) = record["launches"]
    assert launch["grid"] == list(grid)
    assert launch["attrs"] == [
        {"id": CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, "cluster": list(cluster)}
    ]
    expected = [(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)] if non_portable else []
    assert [(a["attribute"], a["value"]) for a in record["attributes"]] == expected


@pytest.mark.parametrize("smem", [0, 48 * 1024, 48 * 1024 + 1, 200 * 1024])
def test_dynamic_smem_attribute_only_above_48k(fake: FakeDriver, shim: Shim, smem: int) -> None:
    fake.kernel("k", [])
    _register(shim, smem=smem)
    shim.launch(1, 0, [], b"", 0)
    shim.launch(1, 0, [], b"", 0)
    record = fake.record()
    assert [launch["smem"] for launch in record["launches"]] == [smem, smem]
    expected = [(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem)] if smem > 48 * 1024 else []
    # Set once, when the module is loaded.
    assert [(a["attribute"], a["value"]) for a in record["attributes"]] == expected


def test_smem_beyond_the_device_limit(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim, smem=300 * 1024)
    assert _launch_error(shim) == (
        "cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) failed with "
        "CUDA_ERROR_INVALID_VALUE (invalid argument) for kernel 'k'"
    )
    (module,) = fake.record()["modules"]
    assert not module["loaded"]  # unloaded again, not leaked
    assert shim.module_count(1) == 0


# --------------------------------------------------------------------------------------------
# Contexts, streams and modules
# --------------------------------------------------------------------------------------------


def test_module_loaded_once_per_context_and_unloaded_in_each(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim)
    a, b = fake.context(0), fake.context(1)
    fake.set_current(a)
    shim.launch(1, 0, [], b"", 0)
    shim.launch(1, 0, [], b"", 0)
    assert shim.module_count(1) == 1
    shim.launch(1, fake.stream(b), [], b"", 1)
    shim.launch(1, fake.stream(b), [], b"", 1)
    assert shim.module_count(1) == 2
    record = fake.record()
    assert [m["context"] for m in record["modules"]] == [a, b]
    assert [launch["module"] for launch in record["launches"]] == [0, 0, 1, 1]
    assert record["current"] == [a]  # the shim's pushes were popped
    assert shim.unregister(1)
    record = fake.record()
    # The fake checks each unload runs in its module's context.
    assert [(m["loaded"], m["unloaded_in"]) for m in record["modules"]] == [(False, a), (False, b)]
    assert record["current"] == [a]
    with pytest.raises(ArgumentError, match="kernel handle 1 is not registered"):
        shim.launch(1, 0, [], b"", 0)


def test_unregister_with_no_context_current(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim)
    shim.launch(1, 0, [], b"", 0)
    shim.launch(1, 0, [], b"", 1)
    assert shim.unregister(1)
    record = fake.record()
    assert [(m["context"], m["unloaded_in"]) for m in record["modules"]] == [
        (fake.primary(0), fake.primary(0)),
        (fake.primary(1), fake.primary(1)),
    ]
    assert record["current"] == []


def test_unregister_before_any_launch_leaves_the_driver_alone(fake: FakeDriver, shim: Shim) -> None:
    _register(shim)
    assert shim.unregister(1)
    record = fake.record()
    assert record["calls"] == []
    assert not record["initialized"]


def test_default_stream_without_a_current_context_uses_the_primary(
    fake: FakeDriver, shim: Shim
) -> None:
    fake.kernel("k", [])
    _register(shim)
    for _ in range(2):
        shim.launch(1, 0, [], b"", 1)
    record = fake.record()
    assert record["primary_retains"] == [0, 1]  # retained once, kept
    assert [launch["context"] for launch in record["launches"]] == [fake.primary(1)] * 2
    assert record["current"] == []


def test_default_stream_with_a_context_of_another_device(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim)
    other = fake.context(1)
    fake.set_current(other)
    shim.launch(1, 0, [], b"", 0)
    record = fake.record()
    assert record["launches"][0]["context"] == fake.primary(0)
    assert record["current"] == [other]


def test_default_stream_with_a_context_of_the_device(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim)
    mine = fake.context(0)
    fake.set_current(mine)
    shim.launch(1, 0, [], b"", 0)
    shim.launch(1, 0, [], b"", -1)  # no device: the current context
    record = fake.record()
    assert [launch["context"] for launch in record["launches"]] == [mine, mine]
    assert "cuCtxPushCurrent" not in record["calls"]
    assert record["primary_retains"] == [0, 0]


def test_no_context_and_no_device(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim)
    with pytest.raises(ArgumentError, match="no CUDA context is current and no device was given"):
        shim.launch(1, 0, [], b"", -1)


def test_stream_context_wins_over_current_and_device(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim)
    fake.set_current(fake.primary(0))
    ctx = fake.context(1)
    stream = fake.stream(ctx)
    shim.launch(1, stream, [], b"", 0)
    record = fake.record()
    (launch,) = record["launches"]
    assert (launch["context"], launch["stream"]) == (ctx, stream)
    assert record["current"] == [fake.primary(0)]


@pytest.mark.parametrize("stream", [CU_STREAM_LEGACY, CU_STREAM_PER_THREAD])
def test_special_streams_pass_through(fake: FakeDriver, shim: Shim, stream: int) -> None:
    fake.kernel("k", [])
    _register(shim)
    shim.launch(1, stream, [], b"", 0)
    record = fake.record()
    (launch,) = record["launches"]
    assert (launch["stream"], launch["context"]) == (stream, fake.primary(0))
    assert "cuStreamGetCtx" not in record["calls"]


def test_module_load_relaxes_the_capture_mode(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim)
    shim.launch(1, 0, [], b"", 0)
    record = fake.record()
    assert record["modules"][0]["capture_mode"] == CU_STREAM_CAPTURE_MODE_RELAXED
    assert record["launches"][0]["capture_mode"] == CU_STREAM_CAPTURE_MODE_GLOBAL
    assert record["capture_mode"] == CU_STREAM_CAPTURE_MODE_GLOBAL


# --------------------------------------------------------------------------------------------
# Driver errors
# --------------------------------------------------------------------------------------------


def test_launch_failure_names_the_call_kernel_and_error(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim)
    other = fake.context(1)
    fake.set_current(other)  # the launch pushes device 0's primary context, and pops it
    fake.fail("cuLaunchKernelEx", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    assert _launch_error(shim) == (
        "cuLaunchKernelEx failed with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (too many resources "
        "requested for launch) for kernel 'k'"
    )
    assert fake.record()["current"] == [other]
    fake.fail("cuLaunchKernelEx", 0)
    shim.launch(1, 0, [], b"", 0)
    record = fake.record()
    assert len(record["modules"]) == 1  # the module loaded by the failed launch is reused
    assert len(record["launches"]) == 1


def test_module_load_failure(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim)
    fake.fail("cuModuleLoadData", CUDA_ERROR_INVALID_IMAGE)
    assert _launch_error(shim) == (
        "cuModuleLoadData failed with CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid) "
        "for kernel 'k'"
    )
    record = fake.record()
    assert record["capture_mode"] == CU_STREAM_CAPTURE_MODE_GLOBAL  # restored
    assert record["current"] == []
    assert shim.module_count(1) == 0
    fake.fail("cuModuleLoadData", 0)
    shim.launch(1, 0, [], b"", 0)  # retried, and loaded this time
    assert shim.module_count(1) == 1


def test_missing_function_unloads_the_module(fake: FakeDriver, shim: Shim) -> None:
    _register(shim, name="not_in_the_image")
    assert _launch_error(shim) == (
        "cuModuleGetFunction failed with CUDA_ERROR_NOT_FOUND (named symbol not found) for "
        "kernel 'not_in_the_image'"
    )
    (module,) = fake.record()["modules"]
    assert not module["loaded"]
    assert shim.module_count(1) == 0


def test_unknown_result_code_is_reported_by_number(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim)
    fake.fail("cuLaunchKernelEx", 12345)  # cuGetErrorName knows no name for it
    assert _launch_error(shim) == "cuLaunchKernelEx failed with CUresult 12345 for kernel 'k'"


def test_tensor_map_address_rejected(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [8, 128])
    _register(shim, [ParamSlot.pointer(0), ParamSlot.tensor_map(1, TEMPLATE)])
    # The driver wants a 16-byte aligned global address.
    assert _launch_error(shim, buffers=[BUF, BUF + 8]) == (
        "cuTensorMapReplaceAddress (parameter 1) failed with CUDA_ERROR_INVALID_VALUE (invalid "
        "argument) for kernel 'k'"
    )
    assert fake.record()["launches"] == []


@pytest.mark.parametrize(
    ("entry_point", "result", "described", "setup"),
    [
        ("cuCtxPushCurrent", CUDA_ERROR_INVALID_CONTEXT, "INVALID_CONTEXT (invalid device context)",
         "other device current"),
        ("cuStreamGetCtx", CUDA_ERROR_INVALID_HANDLE, "INVALID_HANDLE (invalid resource handle)",
         "stream"),
        ("cuDevicePrimaryCtxRetain", CUDA_ERROR_INVALID_VALUE, "INVALID_VALUE (invalid argument)",
         "nothing current"),
        ("cuCtxGetCurrent", CUDA_ERROR_INVALID_VALUE, "INVALID_VALUE (invalid argument)",
         "nothing current"),
    ],
)  # fmt: skip
def test_context_errors_name_the_call(
    fake: FakeDriver, shim: Shim, entry_point: str, result: int, described: str, setup: str
) -> None:
    fake.kernel("k", [])
    _register(shim)
    stream = 0
    if setup == "other device current":  # the launch pushes device 0's primary context
        fake.set_current(fake.context(1))
    elif setup == "stream":
        stream = fake.stream(fake.context(0))
    fake.fail(entry_point, result)
    message = _launch_error(shim, stream)
    assert message == f"{entry_point} failed with CUDA_ERROR_{described} for kernel 'k'"
    record = fake.record()
    assert record["launches"] == []
    assert len(record["current"]) == (1 if setup == "other device current" else 0)


def test_invalid_device(fake: FakeDriver, shim: Shim) -> None:
    fake.kernel("k", [])
    _register(shim)
    assert _launch_error(shim, device=5) == (
        "cuDeviceGet failed with CUDA_ERROR_INVALID_DEVICE (invalid device ordinal) for kernel 'k'"
    )


# --------------------------------------------------------------------------------------------
# End to end: a DSL kernel through KernelRegistry and launch_on_gpu
# --------------------------------------------------------------------------------------------


@kernel(
    in_specs=(Tile("N", f32),),
    out_specs=(Tile("N", f32),),
    raw_params=[("u8", "flag"), ("f32", "scale"), ("u64", "stride")],
    grid=lambda N: (N // 32, 1, 1),
    block=(32, 1, 1),
    cluster=(2, 1, 1),
    arch="sm_90a",
)
def mixed(x, y):  # type: ignore[no-untyped-def]
    """y[0] = x[0] * scale (flag and stride only shape the parameter list)."""
    v = reg.scalar(f32)
    ptx.ld(v, ptx.addr(x.ptr()), space="global")
    ptx.st(ptx.addr(y.ptr()), v * ptx.param("scale"), space="global")


class _Owner:
    """Stands in for the kernel object whose collection releases the registration."""


def test_launch_on_gpu_end_to_end(
    fake: FakeDriver, shim: Shim, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = _shim._ProcessState()
    state.shim = shim
    monkeypatch.setattr(_shim, "_PROCESS", state)  # load_shim() returns this test's shim
    monkeypatch.setattr(_gpu, "_REGISTRY", _gpu.KernelRegistry())
    monkeypatch.setattr(_gpu, "device_arch", lambda device=0: "sm_90a")  # an H100, says the fake
    spec = specialize(mixed, {}, {"N": 256})
    fake.kernel(spec.kernel_name, [8, 8, 1, 4, 8])
    ctx = fake.primary(0)
    fake.set_current(ctx)
    stream = fake.stream(ctx)
    owner = _Owner()
    for scale in (2.5, -1.0):
        _gpu.launch_on_gpu(
            spec, device=0, stream=stream, pointers=[BUF, BUF + 0x400], scalars=[1, scale, 7],
            owner=owner,
        )  # fmt: skip
    record = fake.record()
    compiled = compile_ptx(spec.ptx, "sm_90a", name=spec.kernel_name)
    assert compiled.from_cache  # the cubin the registry compiled and registered
    cubin = compiled.cubin
    (module,) = record["modules"]
    assert (module["size"], module["hash"]) == (len(cubin), _fnv1a(cubin))
    first, second = record["launches"]
    assert (first["kernel"], first["grid"], first["block"]) == ("mixed", [8, 1, 1], [32, 1, 1])
    assert first["attrs"] == [{"id": CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, "cluster": [2, 1, 1]}]
    assert first["stream"] == stream
    assert _params(first) == [
        (0, struct.pack("<Q", BUF)),
        (8, struct.pack("<Q", BUF + 0x400)),
        (16, b"\x01"),
        (20, struct.pack("<f", 2.5)),
        (24, struct.pack("<Q", 7)),
    ]
    assert _params(second)[3] == (20, struct.pack("<f", -1.0))
    handle = _gpu.handle_for(spec, "sm_90a")
    assert shim.module_count(handle) == 1
    del owner
    gc.collect()
    # The owner's collection released the registration and unloaded the module.
    assert not shim.is_registered(handle)
    (module,) = fake.record()["modules"]
    assert (module["loaded"], module["unloaded_in"]) == (False, ctx)
