"""Source spans: where each parsed instruction starts, used by diagnostics and the emulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyptx.emitter import emit
from pyptx.ir import Instruction, Span
from pyptx.ir.isa import DiagnosticCode, check_module
from pyptx.parser import parse

SOURCE = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry k()
{
\t.reg .b32 %r<4>;
\t.reg .pred %p<2>;
\tadd.s32 %r1, %r2, 1;
\tadd.s32 %r1, %r2, 1;
\t{
\t  @%p1 add.s33 %r3, %r1, %r2;
\t}
    ret;
}
"""


def test_every_instruction_gets_its_position() -> None:
    module = parse(SOURCE, "k.ptx", spans=True)
    spans = [i.span for i in module.instructions()]
    assert spans == [
        Span("k.ptx", 8, 2),
        Span("k.ptx", 9, 2),  # an identical line: its own node, its own span
        Span("k.ptx", 11, 4),  # a guarded instruction starts at its '@'
        Span("k.ptx", 13, 5),
    ]
    assert str(spans[2]) == "k.ptx:11:4"


def test_spans_change_nothing_else() -> None:
    plain, spanned = parse(SOURCE), parse(SOURCE, "k.ptx", spans=True)
    assert plain == spanned  # spans are not compared
    assert emit(spanned) == SOURCE
    assert all(i.span is None for i in plain.instructions())
    first = next(spanned.instructions())
    assert hash(first) == hash(Instruction(first.opcode, first.modifiers, first.operands))


def test_diagnostics_say_where() -> None:
    found = list(check_module(parse(SOURCE, "k.ptx", spans=True)))
    assert len(found) == 1
    _, diag = found[0]
    assert diag.code is DiagnosticCode.UNKNOWN_MODIFIER or diag.code.value.startswith("unknown")
    assert diag.span == Span("k.ptx", 11, 4)
    assert str(diag).startswith("k.ptx:11:4: ")


def test_check_module_needs_a_target() -> None:
    with pytest.raises(ValueError, match=r"no \.target"):
        list(check_module(parse(".version 8.0\n")))


def test_the_emulator_names_the_span() -> None:
    from pyptx import emu

    text = SOURCE.replace("\t{\n\t  @%p1 add.s33 %r3, %r1, %r2;\n\t}\n", "")
    module = parse(text, "k.ptx", spans=True)
    # %r2 is read before anything is written to it: the fault names the file, line and column.
    with pytest.raises(emu.EmuError, match=r"in 'add\.s32 %r1, %r2, 1;' \(k\.ptx:8:2\)"):
        emu.launch(module, "k", grid=(1, 1, 1), block=(1, 1, 1), args=[])
    with pytest.raises(emu.EmuError, match=r"\(PTX line 8\)"):
        emu.launch(parse(text), "k", grid=(1, 1, 1), block=(1, 1, 1), args=[])


def test_pyptx_check(tmp_path: Path) -> None:
    import subprocess
    import sys

    bad = tmp_path / "k.ptx"
    bad.write_text(SOURCE)
    proc = subprocess.run(
        [sys.executable, "-m", "pyptx", "check", str(bad)], capture_output=True, text=True
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith(f"{bad}:11:4: ")
    assert "1 problem(s) in 4 instructions" in proc.stderr
    bad.write_text(SOURCE.replace("add.s33", "add.s32"))
    proc = subprocess.run(
        [sys.executable, "-m", "pyptx", "check", str(bad)], capture_output=True, text=True
    )
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "pyptx", "check", str(tmp_path / "nope.ptx")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "nope.ptx: no such file" in proc.stderr
