"""Every kernel assembles at its example with the pinned ptxas, matching tests/ptxas_table.json.

The table holds each kernel's ``ptxas -v`` registers, spill bytes and shared memory (static +
dynamic); a change shows up here. ``PYPTX_UPDATE_KERNEL_TABLES=1`` rewrites the table (and the
PTX snapshots) from the current kernels. The parsing and judging behind the ``check`` command
are tested first, on canned reports and a small real kernel.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import kernels_testing as kt
import pytest

from pyptx.kernels import Implementation, _catalog, _registry
from pyptx.kernels._catalog import KernelCheck, check_kernel
from pyptx.kernels._ptxas import PtxasError, PtxasUsage, assemble_verbose, parse_usage

IMPLEMENTATIONS = _registry.implementations()
NAMES = [i.name for i in IMPLEMENTATIONS]

REPORT = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'other' for 'sm_80'
ptxas info    : Function properties for other
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers, 376 bytes cmem[0]
ptxas info    : Compiling entry function 'k' for 'sm_80'
ptxas info    : Function properties for k
    24 bytes stack frame, 16 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 32 bytes smem, 376 bytes cmem[0]
"""


# ------------------------------------------------------------------ ptxas -v


def test_parse_usage_reads_one_entry() -> None:
    assert parse_usage(REPORT, "k") == PtxasUsage(40, 16, 8, 24, 32)
    assert parse_usage(REPORT, "other") == PtxasUsage(8, 0, 0, 0, 0)


def test_parse_usage_without_the_entry() -> None:
    with pytest.raises(PtxasError, match="no resource usage for missing"):
        parse_usage(REPORT, "missing")


def test_a_rejected_module_is_an_error(ptxas: str) -> None:
    ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  bogus;\n}\n"
    with pytest.raises(PtxasError, match=r"ptxas rejected k: .*error"):
        assemble_verbose(ptx, "sm_80", "k", ptxas)


# ------------------------------------------------------------------ the check of one kernel


def test_a_small_kernel_passes(ptxas: str) -> None:
    check = check_kernel(kt.fake_swiglu(), ptxas)
    assert check.ok, check.problems
    assert check.usage is not None and 0 < check.usage.registers < 32
    assert check.ptx_lines is not None and check.ptx_lines > 20
    assert (check.usage.smem, check.smem_dynamic) == (0, 0)


def _spilling(monkeypatch: pytest.MonkeyPatch) -> None:
    usage = PtxasUsage(registers=255, spill_stores=16, spill_loads=8, stack=24, smem=0)
    monkeypatch.setattr(_catalog, "assemble_verbose", lambda *args: usage)


def test_an_undocumented_spill_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    _spilling(monkeypatch)
    check = check_kernel(kt.fake_swiglu(), "ptxas")
    assert check.problems == ("spills 24 bytes (stores + loads), none documented",)


def test_a_documented_spill_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    _spilling(monkeypatch)
    documented = dataclasses.replace(kt.fake_swiglu(), spills=24, notes="the epilogue spills")
    assert check_kernel(documented, "ptxas").ok
    fewer = dataclasses.replace(documented, spills=16)
    assert not check_kernel(fewer, "ptxas").ok


def test_a_kernel_that_does_not_trace_fails(ptxas: str) -> None:
    def build(hidden: int) -> None:
        raise RuntimeError(f"no tile fits {hidden}\nsecond line")

    broken = dataclasses.replace(kt.fake_swiglu(), build=build)
    check = check_kernel(broken, ptxas)
    assert check.problems == ("does not trace: RuntimeError: no tile fits 64",)
    assert check.usage is None and check.ptx_lines is None


def test_a_kernel_traced_for_another_arch_fails(ptxas: str) -> None:
    wrong = dataclasses.replace(kt.fake_swiglu("sm_80"), arch="sm_90a")
    (problem,) = check_kernel(wrong, ptxas).problems
    assert problem.endswith("the entry says sm_90a but build() traced for sm_80")


def test_a_ptxas_rejection_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def reject(*args: object) -> PtxasUsage:
        raise PtxasError("ptxas rejected fake_swiglu: line 9; error: bad")

    monkeypatch.setattr(_catalog, "assemble_verbose", reject)
    check = check_kernel(kt.fake_swiglu(), "ptxas")
    assert check.problems == ("ptxas rejected fake_swiglu: line 9; error: bad",)
    assert check.ptx_lines is not None


# ------------------------------------------------------------------ the table


def _row(ptxas: str) -> dict[str, int]:
    return kt.table_row(check_kernel(kt.fake_swiglu(), ptxas))


def test_compare_row_fails_without_a_row(
    tmp_path: Path, ptxas: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(kt.UPDATE_ENV, raising=False)
    path = tmp_path / "table.json"
    with pytest.raises(pytest.fail.Exception, match=r"(?s)fake\.swiglu_sm_80 has no row .*UPDATE"):
        kt.compare_row(path, "fake.swiglu_sm_80", _row(ptxas), "13.5.37")


def test_compare_row_writes_then_compares(
    tmp_path: Path, ptxas: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, row = tmp_path / "table.json", _row(ptxas)
    monkeypatch.setenv(kt.UPDATE_ENV, "1")
    kt.compare_row(path, "fake.k", row, "13.5.37")
    assert json.loads(path.read_text()) == {"ptxas": "13.5.37", "kernels": {"fake.k": row}}
    monkeypatch.delenv(kt.UPDATE_ENV)
    kt.compare_row(path, "fake.k", row, "13.5.37")
    more = {**row, "registers": row["registers"] + 1}
    with pytest.raises(pytest.fail.Exception, match=r"registers \d+ -> \d+\. If the change"):
        kt.compare_row(path, "fake.k", more, "13.5.37")
    with pytest.raises(pytest.fail.Exception, match=r"made with ptxas 13\.5\.37, this is ptxas 12"):
        kt.compare_row(path, "fake.k", row, "12.8.93")


# ------------------------------------------------------------------ every kernel of the table


@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=NAMES)
def test_kernel_passes_the_check(
    impl: Implementation, kernel_check: Callable[[Implementation], KernelCheck]
) -> None:
    check = kernel_check(impl)
    assert check.ok, f"{impl.name}: {'; '.join(check.problems)}"


@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=NAMES)
def test_kernel_matches_the_table(
    impl: Implementation,
    kernel_check: Callable[[Implementation], KernelCheck],
    ptxas_version: str,
) -> None:
    kt.compare_row(kt.TABLE, impl.name, kt.table_row(kernel_check(impl)), ptxas_version)


def test_the_table_lists_only_existing_kernels() -> None:
    table = kt.load_table(kt.TABLE)
    gone = kt.stale(list(table["kernels"]), NAMES)
    if gone and kt.updating():
        for name in gone:
            del table["kernels"][name]
        kt.write_table(kt.TABLE, table)
        return
    assert gone == [], f"rows for kernels that no longer exist; regenerate with {kt.REGENERATE}"
