"""Test helpers: locate ptxas, assemble PTX, and read the ``.text.*`` sections of a cubin."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest

from pyptx.ir.ptxas import too_old_reason

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / "tests" / "corpus"


@lru_cache(maxsize=1)
def find_ptxas() -> str | None:
    """Return the newest ptxas available: the nvidia-cuda-nvcc wheel's, else PATH's."""
    candidates: list[str] = []
    env = os.environ.get("PYPTX_PTXAS")
    if env:
        candidates.append(env)
    try:
        import nvidia  # type: ignore[import-not-found]

        for base in getattr(nvidia, "__path__", []):
            for sub in ("cu13", "cuda_nvcc"):
                p = Path(base) / sub / "bin" / "ptxas"
                if p.exists():
                    candidates.append(str(p))
    except ImportError:
        pass
    on_path = shutil.which("ptxas")
    if on_path:
        candidates.append(on_path)
    return candidates[0] if candidates else None


OLDEST_ASSEMBLED_SM = 75
"""ptxas 13 dropped targets before sm_75; older files are assembled for sm_75 (as in
tools/gen_corpus.py, which writes the rejects list with the same policy)."""


def assembly_arch(arch: str) -> str:
    """The ``-arch`` a file whose ``.target`` is ``arch`` is assembled with."""
    if arch.startswith("sm_") and arch[3:].isdigit() and int(arch[3:]) < OLDEST_ASSEMBLED_SM:
        return f"sm_{OLDEST_ASSEMBLED_SM}"
    return arch


def assemble(ptx: str, arch: str) -> tuple[bool, bytes, str]:
    """Assemble ``ptx`` as relocatable code (``-c``: extern symbols may stay unresolved).

    Returns:
        (ok, cubin bytes, ptxas stderr).
    """
    ptxas = find_ptxas()
    assert ptxas is not None
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "in.ptx"
        out = Path(d) / "out.cubin"
        src.write_text(ptx, encoding="utf-8", newline="")
        proc = subprocess.run(
            [ptxas, "-c", f"-arch={assembly_arch(arch)}", "-o", str(out), str(src)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        data = out.read_bytes() if proc.returncode == 0 and out.exists() else b""
    if proc.returncode != 0:
        skip_if_ptxas_too_old(proc.stderr, ptxas)
    return proc.returncode == 0, data, proc.stderr


PINNED_PTXAS = (13, 5)
"""The ptxas release nox installs (``nvidia-cuda-nvcc==13.5.*``)."""


def skip_if_ptxas_too_old(stderr: str, ptxas: str) -> None:
    """Skip (with the versions found and needed) when the rejection says nothing of the PTX."""
    reason = too_old_reason(stderr, ptxas, PINNED_PTXAS)
    if reason is not None:
        pytest.skip(reason)


def text_sections(cubin: bytes) -> dict[str, bytes]:
    """Return ``{name: bytes}`` of every ``.text.*`` section of a 64-bit ELF cubin."""
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        raise ValueError("not a 64-bit ELF file")
    (shoff,) = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)

    def header(i: int) -> tuple[int, int, int, int]:
        name, _type, _flags, _addr, offset, size = struct.unpack_from(
            "<IIQQQQ", cubin, shoff + i * shentsize
        )
        return name, _type, offset, size

    _, _, str_off, str_size = header(shstrndx)
    names = cubin[str_off : str_off + str_size]
    out: dict[str, bytes] = {}
    for i in range(shnum):
        name_off, sh_type, offset, size = header(i)
        name = names[name_off : names.index(b"\0", name_off)].decode()
        if name.startswith(".text."):
            out[name] = b"" if sh_type == 8 else cubin[offset : offset + size]
    return out


def corpus_files() -> list[Path]:
    """Every ``.ptx`` file of the test corpus, sorted."""
    return sorted(CORPUS.rglob("*.ptx"))


def corpus_id(path: Path) -> str:
    """The test id of a corpus file: its path relative to tests/corpus."""
    return path.relative_to(CORPUS).as_posix()


@lru_cache(maxsize=1)
def ptxas_rejects() -> dict[str, str]:
    """Corpus files ptxas rejects (tests/corpus/ptxas_rejects.txt), with the reason."""
    listing = CORPUS / "ptxas_rejects.txt"
    out: dict[str, str] = {}
    if listing.exists():
        for line in listing.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                name, _, why = line.partition(" # ")
                out[name.strip()] = why.strip()
    return out


def read(path: Path) -> str:
    """Read a corpus file exactly (no newline translation)."""
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()
