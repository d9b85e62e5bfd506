"""Compiling PTX: the toolchain table, fall-through, error locations and the cubin cache."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pyptx.runtime import _compile, _driver
from pyptx.runtime._cache import CubinCache
from pyptx.runtime._compile import (
    TOOLCHAINS,
    Compiled,
    Rejected,
    Toolchain,
    compile_ptx,
    toolchain_fingerprint,
)
from pyptx.runtime._errors import CompileError

ELF = b"\x7fELF"

PTX_TEMPLATE = """\
.version 8.0
.target {arch}
.address_size 64

.visible .entry k(
\t.param .u64 p
)
{{
\t.reg .b64 %rd<2>;
\t.reg .b32 %r<3>;
\tld.param.u64 %rd1, [p];
\tmov.u32 %r1, 7;
\t{add}
\tst.global.u32 [%rd1], %r2;
\tret;
}}
"""
GOOD_ADD = "add.u32 %r2, %r1, 1;"
BAD_ADD = "add.u32 %r2, %r1, %r9;"  # %r9 is not declared: ptxas names line 13
BAD_LINE = 13


def make_ptx(arch: str = "sm_80", add: str = GOOD_ADD, version: str = "8.0") -> str:
    return PTX_TEMPLATE.format(arch=arch, add=add).replace(".version 8.0", f".version {version}")


def instruction_lines(ptx: str) -> list[int]:
    """1-based lines of the body's instructions (what the tracer reports)."""
    lines = ptx.splitlines()
    body = lines.index("{") + 1
    return [
        n + 1
        for n in range(body, len(lines))
        if lines[n].strip() and lines[n].strip()[0] not in ".}"
    ]


def _traced_kernel_body() -> None:  # stands in for the user's kernel: one line per instruction
    ld_param = 0
    mov = 1
    add_with_undeclared_register = 2
    st_global = 3
    ret = 4
    del ld_param, mov, add_with_undeclared_register, st_global, ret


BODY_FIRST_LINE = _traced_kernel_body.__code__.co_firstlineno + 1
PYTHON_LINES = [(__file__, BODY_FIRST_LINE + i) for i in range(5)]


def toolchain(name: str) -> Toolchain:
    return next(t for t in TOOLCHAINS if t.name == name)


def usable(name: str, arch: str = "sm_80") -> Toolchain:
    row = toolchain(name)
    reason = row.unavailable(arch)
    if reason is not None:
        pytest.skip(f"{name} is not usable here: {reason}")
    return row


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The default cache of every test lives in its tmp_path, never in ~/.cache."""
    monkeypatch.setenv("PYPTX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("PYPTX_CACHE_DISABLE", raising=False)
    monkeypatch.delenv("PYPTX_CACHE_MAX_BYTES", raising=False)


@pytest.fixture
def offline_toolchain() -> None:
    """Skip unless nvJitLink or ptxas can compile here."""
    if all(toolchain(n).unavailable("sm_80") is not None for n in ("nvjitlink", "ptxas")):
        pytest.skip("neither nvJitLink nor ptxas is installed (pip install nvidia-cuda-nvcc)")


# ---------------------------------------------------------------------------- toolchains


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", ["nvjitlink", "ptxas"])
def test_offline_toolchains_produce_an_elf_cubin(name: str, arch: str) -> None:
    cubin = usable(name, arch).compile(make_ptx(arch), arch, "k")
    assert cubin[:4] == ELF


def test_cubins_differ_by_arch() -> None:
    row = usable("ptxas")
    assert row.compile(make_ptx("sm_80"), "sm_80", "k") != row.compile(
        make_ptx("sm_90a"), "sm_90a", "k"
    )


@pytest.mark.parametrize("name", ["nvjitlink", "ptxas"])
def test_too_new_ptx_version_is_recognised_as_unsupported(name: str) -> None:
    with pytest.raises(Rejected) as info:
        usable(name).compile(make_ptx(version="9.9"), "sm_80", "k")
    assert info.value.unsupported
    assert "Unsupported .version 9.9" in info.value.log


@pytest.mark.parametrize("name", ["nvjitlink", "ptxas"])
def test_unknown_target_is_recognised_as_unsupported(name: str) -> None:
    with pytest.raises(Rejected) as info:
        usable(name).compile(make_ptx(), "sm_999", "k")
    assert info.value.unsupported


@pytest.mark.parametrize("name", ["nvjitlink", "ptxas"])
def test_a_wrong_instruction_is_not_unsupported(name: str) -> None:
    with pytest.raises(Rejected) as info:
        usable(name).compile(make_ptx(add=BAD_ADD), "sm_80", "k")
    assert not info.value.unsupported
    assert f"line {BAD_LINE};" in info.value.log


def test_driver_jit_needs_a_gpu_of_the_target() -> None:
    if _driver.gpu_count() > 0:
        pytest.skip("a GPU is present; this checks the no-GPU answer")
    assert toolchain("driver").unavailable("sm_90a") == "the CUDA driver sees no GPU"


@pytest.mark.gpu
def test_driver_jit_compiles_for_the_device() -> None:
    arch = _driver.device_arch(0)
    if arch is None:
        pytest.skip("needs an NVIDIA GPU; the CUDA driver sees none")
    row = toolchain("driver")
    assert row.unavailable(arch) is None
    assert row.compile(make_ptx(arch), arch, "k")[:4] == ELF
    with pytest.raises(Rejected) as info:
        row.compile(make_ptx(arch, add=BAD_ADD), arch, "k")
    assert not info.value.unsupported
    assert f"line {BAD_LINE}" in info.value.log
    result = compile_ptx(make_ptx(arch), arch, name="k", cache=None)
    assert result.toolchain.startswith("driver ")


def test_toolchain_order_is_driver_nvjitlink_ptxas() -> None:
    assert [t.name for t in TOOLCHAINS] == ["driver", "nvjitlink", "ptxas"]


def test_fingerprint_names_versions_and_driver() -> None:
    fingerprint = toolchain_fingerprint("sm_80")
    assert fingerprint.startswith("pyptx-compile ")
    version = toolchain("ptxas").version()
    if toolchain("ptxas").unavailable("sm_80") is None:
        assert f"ptxas {version}" in fingerprint
    driver = _driver.driver_version()
    assert f"cuda-driver {'absent' if driver is None else driver}" in fingerprint


# ------------------------------------------------------------------------- compile_ptx


@pytest.mark.usefixtures("offline_toolchain")
def test_compile_then_hit(tmp_path: Path) -> None:
    cache = CubinCache(tmp_path / "c", 1 << 20)
    first = compile_ptx(make_ptx(), "sm_80", name="k", cache=cache)
    assert isinstance(first, Compiled)
    assert first.cubin[:4] == ELF and not first.from_cache
    assert first.toolchain.split()[0] in ("driver", "nvjitlink", "ptxas")
    assert cache.keys() == [first.key]
    second = compile_ptx(make_ptx(), "sm_80", name="k", cache=cache)
    assert second.from_cache
    assert (second.cubin, second.toolchain, second.key) == (first.cubin, first.toolchain, first.key)


@pytest.mark.usefixtures("offline_toolchain")
def test_default_cache_follows_the_environment(tmp_path: Path) -> None:
    result = compile_ptx(make_ptx(), "sm_80")
    assert (tmp_path / "cache" / "cubin" / f"{result.key}.cubin").is_file()
    assert compile_ptx(make_ptx(), "sm_80").from_cache


@pytest.mark.usefixtures("offline_toolchain")
def test_disabled_cache_always_compiles(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PYPTX_CACHE_DISABLE", "1")
    assert not compile_ptx(make_ptx(), "sm_80").from_cache
    assert not compile_ptx(make_ptx(), "sm_80").from_cache
    assert not (tmp_path / "cache").exists()


@pytest.mark.usefixtures("offline_toolchain")
def test_second_process_does_not_recompile() -> None:
    ptx = make_ptx()
    first = compile_ptx(ptx, "sm_80", name="k")
    assert not first.from_cache
    code = (
        "import sys\n"
        "from pyptx.runtime._compile import compile_ptx\n"
        "r = compile_ptx(sys.stdin.read(), 'sm_80', name='k')\n"
        "print(r.from_cache, r.key, r.cubin.hex())\n"
    )
    # os.environ carries this test's PYPTX_CACHE_DIR to the child.
    out = subprocess.run(
        [sys.executable, "-c", code], input=ptx, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", first.key, first.cubin.hex()]


@pytest.mark.usefixtures("offline_toolchain")
def test_corrupt_entry_recompiles_and_rewrites(tmp_path: Path) -> None:
    cache = CubinCache(tmp_path / "c", 1 << 20)
    first = compile_ptx(make_ptx(), "sm_80", cache=cache)
    entry = cache.directory / f"{first.key}.cubin"
    blob = bytearray(entry.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    entry.write_bytes(bytes(blob))
    again = compile_ptx(make_ptx(), "sm_80", cache=cache)
    assert not again.from_cache and again.cubin == first.cubin
    assert compile_ptx(make_ptx(), "sm_80", cache=cache).from_cache  # rewritten, valid again


@pytest.mark.usefixtures("offline_toolchain")
def test_foreign_payload_recompiles(tmp_path: Path) -> None:
    cache = CubinCache(tmp_path / "c", 1 << 20)
    first = compile_ptx(make_ptx(), "sm_80", cache=cache)
    cache.put(first.key, b"a sound entry whose payload is no cubin")
    again = compile_ptx(make_ptx(), "sm_80", cache=cache)
    assert not again.from_cache and again.cubin == first.cubin


@pytest.mark.usefixtures("offline_toolchain")
def test_new_toolchain_version_misses(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cache = CubinCache(tmp_path / "c", 1 << 20)
    compile_ptx(make_ptx(), "sm_80", cache=cache)
    ptxas = usable("ptxas")
    upgraded = Toolchain("ptxas", ptxas.unavailable, lambda: "99.0.0", ptxas.compile)
    monkeypatch.setattr(_compile, "TOOLCHAINS", (upgraded,))
    result = compile_ptx(make_ptx(), "sm_80", cache=cache)
    assert not result.from_cache
    assert result.toolchain == "ptxas 99.0.0"


@pytest.mark.usefixtures("offline_toolchain")
def test_unusable_cache_warns_and_compiles(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    cache = CubinCache(blocker / "cubin", 1 << 20)
    with pytest.warns(RuntimeWarning, match="cubin cache .* not usable"):
        result = compile_ptx(make_ptx(), "sm_80", cache=cache)
    assert result.cubin[:4] == ELF and not result.from_cache


def test_arch_must_be_a_target() -> None:
    with pytest.raises(ValueError, match="'sm90'"):
        compile_ptx(make_ptx(), "sm90", cache=None)


# ------------------------------------------------------------------------- fall-through


def _fake(name: str, calls: list[str], rejection: Rejected | None = None) -> Toolchain:
    def compile_(ptx: str, arch: str, kernel: str) -> bytes:
        calls.append(name)
        if rejection is not None:
            raise rejection
        return ELF + b" fake"

    return Toolchain(name, lambda arch: None, lambda: "1.0", compile_)


def test_version_rejection_falls_through_to_the_next_toolchain(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The rejection a real nvJitLink gives for a PTX .version it does not know.
    with pytest.raises(Rejected) as real:
        usable("nvjitlink").compile(make_ptx(version="9.9"), "sm_80", "k")
    calls: list[str] = []
    old = _fake("old", calls, real.value)
    monkeypatch.setattr(_compile, "TOOLCHAINS", (old, usable("ptxas")))
    result = compile_ptx(make_ptx(), "sm_80", name="k", cache=None)
    assert calls == ["old"]
    assert result.toolchain.startswith("ptxas ") and result.cubin[:4] == ELF


def test_other_rejection_stops_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    log = "ptxas k.ptx, line 12; error   : Unknown symbol '%r9'"
    strict = _fake("strict", calls, Rejected(log, unsupported=False))
    monkeypatch.setattr(_compile, "TOOLCHAINS", (strict, _fake("next", calls)))
    with pytest.raises(CompileError) as info:
        compile_ptx(make_ptx(), "sm_80", name="k", cache=None)
    assert calls == ["strict"]
    assert info.value.ptx_line == 12
    assert str(info.value).startswith("strict 1.0 rejected kernel 'k' for sm_80:")


def test_unavailable_toolchains_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    missing = Toolchain(
        "missing", lambda arch: "not installed", lambda: None, _fake("m", calls).compile
    )
    monkeypatch.setattr(_compile, "TOOLCHAINS", (missing, _fake("present", calls)))
    result = compile_ptx(make_ptx(), "sm_80", cache=None)
    assert calls == ["present"] and result.toolchain == "present 1.0"


def test_no_toolchain_says_what_was_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    too_old = Rejected(
        "ptxas k.ptx, line 1; fatal   : Unsupported .version 9.9; current version is '9.5'",
        unsupported=True,
    )
    rows = (
        Toolchain("missing", lambda arch: "not installed", lambda: None, _fake("m", calls).compile),
        _fake("old", calls, too_old),
    )
    monkeypatch.setattr(_compile, "TOOLCHAINS", rows)
    with pytest.raises(CompileError) as info:
        compile_ptx(make_ptx(version="9.9"), "sm_80", name="k", cache=None)
    message = str(info.value)
    assert "no toolchain can compile kernel 'k' for sm_80" in message
    assert "missing: not installed" in message
    assert "old 1.0: does not support this PTX" in message
    assert "PTX line 1: .version 9.9" in message
    assert "upgrade the toolchain" in message
    assert info.value.ptx_line == 1 and "Unsupported .version" in info.value.log


@pytest.mark.usefixtures("offline_toolchain")
def test_real_toolchains_all_reject_a_future_version() -> None:
    with pytest.raises(CompileError) as info:
        compile_ptx(make_ptx(version="9.9"), "sm_80", name="k", cache=None)
    assert "no toolchain can compile kernel 'k'" in str(info.value)
    assert info.value.ptx_line == 1


# ---------------------------------------------------------------------- error locations


@pytest.mark.usefixtures("offline_toolchain")
def test_error_names_the_ptx_line_and_the_python_line() -> None:
    ptx = make_ptx(add=BAD_ADD)
    with pytest.raises(CompileError) as info:
        compile_ptx(
            ptx,
            "sm_80",
            name="k",
            python_lines=PYTHON_LINES,
            instruction_lines=instruction_lines(ptx),
            cache=None,
        )
    error = info.value
    assert error.ptx_line == BAD_LINE
    assert error.python_location == (__file__, BODY_FIRST_LINE + 2)
    message = str(error)
    assert "rejected kernel 'k' for sm_80" in message
    assert "Unknown symbol '%r9'" in message and "Unknown symbol '%r9'" in error.log
    assert f"PTX line {BAD_LINE}: {BAD_ADD}" in message
    assert f"emitted at {__file__}:{BODY_FIRST_LINE + 2}: add_with_undeclared_register" in message


@pytest.mark.usefixtures("offline_toolchain")
def test_error_without_trace_has_no_python_location() -> None:
    with pytest.raises(CompileError) as info:
        compile_ptx(make_ptx(add=BAD_ADD), "sm_80", name="k", cache=None)
    assert info.value.ptx_line == BAD_LINE
    assert info.value.python_location is None
    assert "emitted at" not in str(info.value)


@pytest.mark.parametrize(
    ("ptx_line", "expected"),
    [(10, None), (11, 0), (12, 1), (13, 2), (14, None), (15, 4), (16, 4)],
)
def test_ptx_line_maps_to_the_instruction_at_or_before_it(
    ptx_line: int, expected: int | None
) -> None:
    located = [("f.py", 100), ("f.py", 101), ("f.py", 102), None, ("f.py", 104)]
    result = _compile._python_location(ptx_line, located, [11, 12, 13, 14, 15])
    assert result == (None if expected is None else located[expected])
