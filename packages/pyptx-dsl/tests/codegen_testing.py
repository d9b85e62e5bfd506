"""Helpers for the transpiler tests: the corpus, and running generated Python."""

from __future__ import annotations

import subprocess
import types
from pathlib import Path

import pytest

from pyptx.ir.ptxas import too_old_reason

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / "tests" / "corpus"


def corpus_files() -> list[Path]:
    """Every ``.ptx`` file of the test corpus, sorted."""
    return sorted(CORPUS.rglob("*.ptx"))


def corpus_id(path: Path) -> str:
    """A corpus file's test id: its path below tests/corpus."""
    return path.relative_to(CORPUS).as_posix()


def read_exact(path: Path) -> str:
    """A file's text with its line endings untouched."""
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def ptxas_rejects() -> set[str]:
    """Corpus files (relative paths) that ptxas rejects, from tests/corpus/ptxas_rejects.txt."""
    lines = (CORPUS / "ptxas_rejects.txt").read_text().splitlines()
    return {ln.split()[0] for ln in lines if ln.strip() and not ln.startswith("#")}


def run_generated(source: str, name: str = "generated") -> types.ModuleType:
    """Execute generated Python as a fresh module and return it."""
    module = types.ModuleType(name)
    exec(compile(source, f"{name}.py", "exec"), module.__dict__)
    return module


OLDEST_ASSEMBLED_SM = 75
"""ptxas 13 dropped targets before sm_75; older corpus files are assembled for sm_75 (the
policy tools/gen_corpus.py uses for tests/corpus/ptxas_rejects.txt)."""


def find_ptxas() -> str | None:
    """ptxas (the nvidia-cuda-nvcc wheel's first), or ``None``."""
    from pyptx.dsl.tools import find_tool

    return find_tool("ptxas")


def assemble_cubin(text: str, arch: str) -> tuple[bool, bytes, str]:
    """Assemble ``text`` as relocatable code with the corpus policy; (ok, cubin, stderr)."""
    import tempfile

    ptxas = find_ptxas()
    assert ptxas is not None
    if arch.startswith("sm_") and arch[3:].isdigit() and int(arch[3:]) < OLDEST_ASSEMBLED_SM:
        arch = f"sm_{OLDEST_ASSEMBLED_SM}"
    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d) / "in.ptx", Path(d) / "out.cubin"
        src.write_text(text, encoding="utf-8", newline="")
        proc = subprocess.run(
            [ptxas, "-c", f"-arch={arch}", "-o", str(out), str(src)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        data = out.read_bytes() if proc.returncode == 0 and out.exists() else b""
    if proc.returncode != 0:
        skip_if_ptxas_too_old(proc.stderr, ptxas)
    return proc.returncode == 0, data, proc.stderr


def text_sections(cubin: bytes) -> dict[str, bytes]:
    """``{name: bytes}`` of every ``.text.*`` section of a 64-bit ELF cubin."""
    import struct

    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        raise ValueError("not a 64-bit ELF file")
    (shoff,) = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)

    def header(i: int) -> tuple[int, int, int, int]:
        name, sh_type, _flags, _addr, offset, size = struct.unpack_from(
            "<IIQQQQ", cubin, shoff + i * shentsize
        )
        return name, sh_type, offset, size

    _, _, str_off, str_size = header(shstrndx)
    names = cubin[str_off : str_off + str_size]
    out: dict[str, bytes] = {}
    for i in range(shnum):
        name_off, sh_type, offset, size = header(i)
        name = names[name_off : names.index(b"\0", name_off)].decode()
        if name.startswith(".text."):
            out[name] = b"" if sh_type == 8 else cubin[offset : offset + size]
    return out


PINNED_PTXAS = (13, 5)
"""The ptxas release nox installs (``nvidia-cuda-nvcc==13.5.*``)."""


def skip_if_ptxas_too_old(stderr: str, ptxas: str) -> None:
    """Skip (with the versions found and needed) when the rejection says nothing of the PTX."""
    reason = too_old_reason(stderr, ptxas, PINNED_PTXAS)
    if reason is not None:
        pytest.skip(reason)
