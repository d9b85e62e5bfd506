"""What the generated Python looks like and how it behaves when edited or run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from codegen_testing import REPO, read_exact, run_generated

from pyptx import PtxDslError
from pyptx.codegen import module_to_python, ptx_to_python
from pyptx.parser import parse

VECTOR_ADD = REPO / "examples" / "ptx" / "vector_add.ptx"


def test_single_kernel_file_reads_like_the_dsl() -> None:
    code = ptx_to_python(read_exact(VECTOR_ADD), kernel_name="vadd")
    assert "def vadd(" in code
    assert "ptx.inst.ld.param.u64(rd[1], ptx.addr(vector_add_param_a))" in code
    assert 'ptx.bra("$L__done", pred=p[1])' in code
    assert "ptx.inst.mov.u32(r[2], ptx.special.ctaid.x())" in code
    assert "module = PtxModule()" in code  # the input passes the ISA checks: keep them on


def test_kernel_object_returns_the_input(tmp_path: Path) -> None:
    source = read_exact(VECTOR_ADD)
    (tmp_path / "out.py").write_text(ptx_to_python(source, kernel_name="my_kernel"))
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from out import my_kernel; "
         "sys.stdout.write(my_kernel.ptx())"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert proc.stdout == source


def test_running_the_file_writes_the_module_bytes(tmp_path: Path) -> None:
    path = REPO / "tests" / "corpus" / "generated" / "linkage_sm_90a_O3.ptx"
    source = path.read_bytes()
    out = tmp_path / "linkage.py"
    out.write_text(ptx_to_python(source.decode()))
    proc = subprocess.run([sys.executable, str(out)], capture_output=True, check=True)
    assert proc.stdout == source


def test_edited_statement_changes_only_its_line() -> None:
    source = read_exact(VECTOR_ADD)
    code = ptx_to_python(source)
    edited = code.replace(
        "ptx.inst.add.rn.f32(f[3], f[1], f[2])", "ptx.inst.mul.rn.f32(f[3], f[1], f[2])"
    )
    assert edited != code
    out = run_generated(edited).module.ptx()
    before, after = source.splitlines(), out.splitlines()
    assert len(before) == len(after)
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed) == 1
    assert "add.rn.f32" in changed[0][0] and "mul.rn.f32" in changed[0][1]


def test_inserted_statement_keeps_every_other_line() -> None:
    source = read_exact(VECTOR_ADD)
    code = ptx_to_python(source)
    anchor = "    ptx.inst.add.rn.f32(f[3], f[1], f[2])\n"
    edited = code.replace(anchor, anchor + "    ptx.inst.neg.f32(f[3], f[3])\n")
    out = run_generated(edited).module.ptx().splitlines()
    before = source.splitlines()
    assert len(out) == len(before) + 1
    i = next(k for k, line in enumerate(out) if "neg.f32" in line)
    assert out[:i] + out[i + 1 :] == before


def test_multi_function_file_keeps_globals_and_device_functions() -> None:
    path = REPO / "tests" / "corpus" / "generated" / "linkage_sm_90a_O3.ptx"
    module = parse(read_exact(path))
    code = module_to_python(module)
    assert "@module.func(" in code
    assert "= module.declare(" in code
    assert code.count("@module.entry(") == len(module.kernels)


def test_generated_code_reports_mistakes_at_the_users_line() -> None:
    code = ptx_to_python(read_exact(VECTOR_ADD))
    broken = code.replace(
        "ptx.inst.add.rn.f32(f[3], f[1], f[2])", "ptx.inst.add.rn.f32(f[3], f[1], f[9])"
    )
    line = broken.splitlines().index("    ptx.inst.add.rn.f32(f[3], f[1], f[9])") + 1
    module = run_generated(broken, "edited")
    with pytest.raises(PtxDslError, match=rf"edited\.py:{line}.*outside the declaration"):
        module.module.ptx()


def test_kernel_name_must_fit_the_module() -> None:
    path = REPO / "tests" / "corpus" / "generated" / "linkage_sm_90a_O3.ptx"
    with pytest.raises(ValueError, match="single-kernel"):
        ptx_to_python(read_exact(path), kernel_name="k")
    with pytest.raises(ValueError, match="no kernel named nope"):
        ptx_to_python(read_exact(path), kernel_name={"nope": "k"})
