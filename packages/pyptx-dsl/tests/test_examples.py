"""The example kernels of ``examples/dsl``: PTX snapshots ("process replay") and invariants.

For every example module (parametrized by file name): its PTX assembles with ptxas for its
``.target``; it equals ``snapshots/<example>.ptx`` byte for byte, so a change in the DSL that
alters any kernel's PTX shows up here as a diff; it re-parses and re-emits byte-identically;
tracing twice (and in a fresh import) gives the same bytes; and running the file prints it.
Across the set, the examples cover every supported architecture and many instruction
families.

After an intended change of the emitted PTX, rewrite the snapshots and review the diff::

    PYPTX_UPDATE_SNAPSHOTS=1 python -m pytest packages/pyptx-dsl/tests/test_examples.py
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import importlib.util
import io
import os
import runpy
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from pyptx.dsl.kernel import Kernel
from pyptx.emitter import emit
from pyptx.ir import Instruction, walk
from pyptx.parser import parse

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "dsl"
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE_ENV = "PYPTX_UPDATE_SNAPSHOTS"
PATHS = sorted(EXAMPLES.glob("*.py"))
REQUIRED_ARCHES = {"sm_80", "sm_90a", "sm_100a", "sm_120a"}

if not PATHS:
    pytest.skip(f"no example kernels in {EXAMPLES}", allow_module_level=True)

# Opcode -> the pyptx.ptx family that emits it (the sections of docs/guide/dsl-families.md).
# ``cp`` is split by its first modifiers below; opcodes missing here count as "other".
FAMILY_OF = {
    **dict.fromkeys(("add", "sub", "mul", "mad", "fma", "div", "rcp", "rsqrt", "sqrt",
                     "ex2", "lg2", "max", "min", "neg", "abs", "rem"), "arithmetic"),
    **dict.fromkeys(("cvt", "cvta"), "conversion"),
    **dict.fromkeys(("setp", "selp", "set", "slct"), "comparison"),
    **dict.fromkeys(("and", "or", "xor", "not", "shl", "shr", "bfe", "bfi", "popc", "clz",
                     "brev", "prmt", "lop3", "shf"), "logic"),
    **dict.fromkeys(("ld", "st", "mov", "prefetch", "ldu"), "memory"),
    **dict.fromkeys(("shfl", "vote", "match", "redux", "activemask"), "warp"),
    **dict.fromkeys(("atom", "red"), "atomics"),
    **dict.fromkeys(("bar", "barrier", "fence", "membar", "nanosleep"), "barriers and fences"),
    **dict.fromkeys(("mbarrier",), "mbarrier"),
    **dict.fromkeys(("elect", "mapa", "getctarank", "setmaxnreg", "griddepcontrol"), "cluster"),
    **dict.fromkeys(("mma",), "mma.sync"),
    **dict.fromkeys(("ldmatrix", "stmatrix", "movmatrix"), "matrix load/store"),
    **dict.fromkeys(("wgmma",), "wgmma"),
    **dict.fromkeys(("tcgen05",), "tcgen05"),
    **dict.fromkeys(("bra", "ret", "exit"), "control flow"),
}  # fmt: skip


def _family(insn: Instruction) -> str:
    if insn.opcode == "cp":
        return "bulk copies (TMA)" if "bulk" in insn.modifiers else "cp.async"
    return FAMILY_OF.get(insn.opcode, "other")


def _import(path: Path) -> ModuleType:
    """Import an example file as a fresh module object (not registered in sys.modules)."""
    spec = importlib.util.spec_from_file_location(f"pyptx_example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _kernel(module: ModuleType, path: Path) -> Kernel:
    kernels = [v for v in vars(module).values() if isinstance(v, Kernel)]
    assert len(kernels) == 1, (
        f"{path.name} defines {len(kernels)} @kernel objects; an example defines exactly one"
    )
    return kernels[0]


@functools.cache
def _traced(path: Path) -> tuple[Kernel, str]:
    module = _import(path)
    kernel = _kernel(module, path)
    return kernel, kernel.ptx(**_shape(module))


def _shape(module: ModuleType) -> dict[str, int]:
    """The symbolic dims an example is traced at (its ``SHAPE``), if it has any."""
    return dict(getattr(module, "SHAPE", {}))


def _target(text: str) -> str:
    line = next(ln for ln in text.splitlines() if ln.startswith(".target"))
    return line.split()[1].rstrip(",")


def _update_command(path: Path) -> str:
    return (
        f"{UPDATE_ENV}=1 python -m pytest packages/pyptx-dsl/tests/test_examples.py -k {path.stem}"
    )


examples = pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])


@examples
def test_assembles_for_its_target(path: Path, assemble: Callable[[str], None]) -> None:
    assemble(_traced(path)[1])


@examples
def test_matches_snapshot(path: Path) -> None:
    text = _traced(path)[1]
    snapshot = SNAPSHOTS / f"{path.stem}.ptx"
    if os.environ.get(UPDATE_ENV):
        SNAPSHOTS.mkdir(exist_ok=True)
        if not snapshot.exists() or snapshot.read_bytes() != text.encode():
            snapshot.write_bytes(text.encode())
        return
    if not snapshot.exists():
        pytest.fail(
            f"{path.name} has no snapshot {snapshot.name}; create it with:\n  "
            f"{_update_command(path)}",
            pytrace=False,
        )
    expected = snapshot.read_bytes().decode()
    if text != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True),
            text.splitlines(keepends=True),
            fromfile=f"snapshots/{snapshot.name}",
            tofile=f"examples/dsl/{path.name} (traced now)",
            n=2,
        )
        lines = list(diff)
        excerpt = "".join(lines[:80])
        if len(lines) > 80:
            excerpt += f"... ({len(lines) - 80} more diff lines)\n"
        pytest.fail(
            f"{path.name}: the traced PTX differs from snapshots/{snapshot.name}:\n{excerpt}"
            f"If the change is intended, rewrite the snapshot and review it:\n  "
            f"{_update_command(path)}",
            pytrace=False,
        )


@examples
def test_reparses_and_reemits_byte_identically(path: Path) -> None:
    text = _traced(path)[1]
    module = parse(text, filename=f"{path.stem}.ptx")
    assert emit(module) == text
    assert any(isinstance(node, Instruction) for node in walk(module))


@examples
def test_traces_deterministically(path: Path) -> None:
    kernel, first = _traced(path)
    module = _import(path)
    assert kernel.ptx(**_shape(module)) == first
    assert _kernel(module, path).ptx(**_shape(module)) == first  # a fresh import and Kernel


@examples
def test_running_the_file_prints_its_ptx(path: Path) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(path), run_name="__main__")
    assert out.getvalue() == _traced(path)[1]


def test_examples_cover_every_architecture() -> None:
    targets = {_target(_traced(p)[1]) for p in PATHS}
    assert targets >= REQUIRED_ARCHES, f"no example targets {sorted(REQUIRED_ARCHES - targets)}"


def test_examples_use_many_instruction_families() -> None:
    opcodes: set[str] = set()
    families: set[str] = set()
    for path in PATHS:
        for node in walk(parse(_traced(path)[1])):
            if isinstance(node, Instruction):
                opcodes.add(node.opcode)
                families.add(_family(node))
    families.discard("other")
    assert len(opcodes) >= 40, sorted(opcodes)
    assert len(families) >= 12, sorted(families)
