"""The vendored public PTX corpus (tests/corpus/public) on the emulator.

Two kinds of tests:

* kernels whose meaning is plain from the PTX (and, for learn-ptx, from its published
  launch code: square ``numBlocks * tile`` matrices, ``A @ B``) run on synthetic inputs and
  are checked against numpy (the corpus's Triton and CuTe DSL kernels are, all of them, in
  ``test_dsl_output.py``);
* every ``.entry`` of every public file is launched once with synthetic arguments (zeroed
  buffers, small scalars, tensor maps) and a small grid: it must either run, or raise a
  :class:`pyptx.emu.EmuError` that says what and where. A Python exception from inside the
  emulator (``TypeError``, ``IndexError``, ...) fails, and so does a launch that does not
  finish within its time budget.

Provenance and licenses of the files: ``tests/corpus/public/NOTICE.md``.
"""

from __future__ import annotations

import re
import signal
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pyptx.emu import (
    EmuError,
    LaunchError,
    Misaligned,
    NotEmulated,
    OutOfBounds,
    UninitializedRead,
    launch,
    tensor_map,
)
from pyptx.ir import Function, FunctionDirective, FunctionDirectiveKind, PtxType
from pyptx.parser import parse

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "corpus"
PUBLIC = CORPUS / "public"


def _text(rel: str) -> str:
    return (PUBLIC / rel).read_text(encoding="utf-8")


# ----------------------------------------------------------------------------------------
# Kernels checked against numpy
# ----------------------------------------------------------------------------------------


def _floats(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.standard_normal(n).astype(np.float32)


def test_vector_add() -> None:
    rng = np.random.default_rng(20)
    n = 1000
    x, y = _floats(rng, n), _floats(rng, n)
    out = np.full(n + 24, -1.0, np.float32)
    launch(_text("vector_add.ptx"), grid=4, block=256, args=[x, y, out, n])
    np.testing.assert_array_equal(out[:n], x + y)
    np.testing.assert_array_equal(out[n:], -1.0)  # threads past n do not store


@pytest.mark.parametrize(
    ("rel", "op"),
    [
        ("external/ptoxide_add.ptx", lambda a, b: a + b),
        ("external/ptoxide_fncall.ptx", lambda a, b: a + b),  # the add is a .func call
        ("external/ptoxide_copy.ptx", None),
        ("external/ptoxide_times_two.ptx", None),
    ],
    ids=["add", "fncall", "copy", "times_two"],
)
def test_ptoxide_elementwise(rel: str, op: Any) -> None:
    rng = np.random.default_rng(21)
    n = 300
    a, b = _floats(rng, n), _floats(rng, n)
    out = np.full(n, np.nan, np.float32)
    if op is None:
        launch(_text(rel), grid=3, block=128, args=[a, out, n])
        expected = a if "copy" in rel else a + a
    else:
        launch(_text(rel), grid=3, block=128, args=[a, b, out, n])
        expected = op(a, b)
    np.testing.assert_array_equal(out, expected)


def test_ptoxide_add_simple_one_block() -> None:
    rng = np.random.default_rng(22)
    a, b = _floats(rng, 64), _floats(rng, 64)
    out = np.zeros(64, np.float32)
    launch(_text("external/ptoxide_add_simple.ptx"), grid=1, block=64, args=[a, b, out])
    np.testing.assert_array_equal(out, a + b)


def test_ptoxide_transpose_through_shared_memory() -> None:
    n = 40  # not a multiple of the 16 x 16 block: the edge threads store zeros to shared
    a = np.arange(n * n, dtype=np.float32).reshape(n, n)
    out = np.full((n, n), -1.0, np.float32)
    launch(_text("external/ptoxide_transpose.ptx"), grid=(3, 3), block=(16, 16), args=[a, out, n])
    np.testing.assert_array_equal(out, a.T)


def test_ptoxide_gemm() -> None:
    rng = np.random.default_rng(23)
    m, k, n = 20, 13, 24  # k = 13: the unrolled-by-4 loop and its remainder loop both run
    # Small integers: every fma is exact, so any summation order gives numpy's result.
    a = rng.integers(-8, 9, (m, k)).astype(np.float32)
    b = rng.integers(-8, 9, (k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    launch(_text("external/ptoxide_gemm.ptx"), grid=(3, 3), block=(8, 8), args=[a, b, c, m, k, n])
    np.testing.assert_array_equal(c, a @ b)


def test_sort_bitonic_warp_sorts_each_warp() -> None:
    rng = np.random.default_rng(24)
    x = _floats(rng, 4 * 32)
    data = x.copy()
    launch(_text("external/sort_bitonic_warp.ptx"), grid=4, block=32, args=[data])
    np.testing.assert_array_equal(data, np.sort(x.reshape(4, 32), axis=1).reshape(-1))


# learn-ptx matmuls: (file, tile, block) as in the repository's launch code (learn_ptx/
# matmul.py): C = A @ B for square float32 matrices of numBlocks * tile, grid (nb, nb).
LEARN_PTX_MATMULS = [
    ("matmul_big_blocks_v2.ptx", 32, (32, 8)),
    ("matmul_big_blocks_v3.ptx", 64, (32, 8)),
    ("matmul_big_blocks_v4.ptx", 64, (32, 8)),
    ("matmul_big_blocks_v5.ptx", 64, (32, 8)),
    ("matmul_wmma_v1.ptx", 32, (32, 4)),
    ("matmul_wmma_v2.ptx", 32, (32, 4)),
    ("matmul_wmma_v3.ptx", 32, (32, 4)),
    ("matmul_wmma_v4.ptx", 32, (32, 4)),
    ("matmul_wmma_v5.ptx", 64, (32, 16)),
    ("matmul_wmma_v6.ptx", 64, (32, 16)),
    ("matmul_wmma_v7.ptx", 64, (32, 16)),
    ("matmul_wmma_v8.ptx", 64, (32, 16)),
]


@pytest.mark.parametrize(
    ("name", "tile", "block"), LEARN_PTX_MATMULS, ids=[m[0] for m in LEARN_PTX_MATMULS]
)
def test_learn_ptx_matmul(name: str, tile: int, block: tuple[int, int]) -> None:
    rng = np.random.default_rng(25)
    blocks = 2
    size = blocks * tile
    # Small integers: exact in tf32 (the wmma kernels) and every sum is exact in fp32, so the
    # order of the shared-memory atomic reductions (big_blocks) does not matter.
    a = rng.integers(-4, 5, (size, size)).astype(np.float32)
    b = rng.integers(-4, 5, (size, size)).astype(np.float32)
    out = np.full((size, size), np.nan, np.float32)
    launch(_text(f"external/{name}"), grid=(blocks, blocks), block=block, args=[a, b, out, blocks])
    np.testing.assert_array_equal(out, a @ b, err_msg=name)


# ----------------------------------------------------------------------------------------
# Every entry: runs, or fails with a clear emulator error
# ----------------------------------------------------------------------------------------

HANG_GUARD_S = 300.0
"""Seconds after which a launch counts as hung (the slowest takes about 3 s): a guard
against an endless loop on synthetic arguments, not a speed check."""

DYNAMIC_SMEM = {8: 160 * 1024, 9: 220 * 1024, 10: 220 * 1024, 12: 96 * 1024}
"""Dynamic shared memory given to kernels that declare an ``.extern .shared`` array, by
architecture generation: close to what the GPU allows (48 KiB for other generations), so
real kernels sized for the hardware (fast.cu, Triton) get as far as they would there."""


def _dynamic_smem(text: str, targets: tuple[str, ...]) -> int:
    if ".extern .shared" not in text:
        return 0
    digits = re.sub(r"\D", "", targets[0]) if targets else ""
    return DYNAMIC_SMEM.get(int(digits) // 10 if digits else 9, 48 * 1024)


def _entries(*roots: Path) -> Iterator[tuple[str, str]]:
    """(path relative to tests/corpus, kernel name) for every ``.entry`` below ``roots``."""
    for root in roots:
        for path in sorted(root.rglob("*.ptx")):
            rel = path.relative_to(CORPUS).as_posix()
            for kernel in parse(path.read_text(encoding="utf-8"), rel).kernels:
                yield rel, kernel.name


ENTRIES = list(_entries(PUBLIC))


def _directive(kernel: Function, kind: FunctionDirectiveKind) -> tuple[int, ...] | None:
    for d in kernel.directives:
        if isinstance(d, FunctionDirective) and d.kind is kind:
            return tuple(int(v.text) for v in d.values)  # type: ignore[attr-defined]
    return None


_PARAM_LOAD = re.compile(r"ld\.param\.[us]?[bu]?64\s+(%\w+),\s*\[(\w+)(?:\+0)?\]")


def _scalar_u64_params(text: str) -> set[str]:
    """64-bit parameters that hold a number, not a pointer (nvcc's ``size_t n``): the register
    loaded from them is compared by ``setp`` and never converted by ``cvta`` or dereferenced.
    Giving such a parameter a buffer's address would make ``for (i < n)`` loops endless."""
    scalars = set()
    for reg, param in _PARAM_LOAD.findall(text):
        r = re.escape(reg)
        compared = re.search(rf"setp\.\S+\s+[^;]*{r}\b", text)
        pointer = re.search(rf"cvta\S*\s+%\w+,\s*{r}\b|\[{r}\b", text)
        if compared and not pointer:
            scalars.add(param)
    return scalars


def _synthetic_args(kernel: Function, text: str) -> list[Any]:
    """One argument per parameter: 64 KiB zeroed buffers for 64-bit integer parameters that
    may be pointers, a tensor map for a 128-byte array, 16 for other integers, 1.0 for
    floats."""
    scalars = _scalar_u64_params(text)
    args: list[Any] = []
    for p in kernel.params or ():
        ty = p.type or PtxType.B8
        if p.declarator.dims:
            count = int(np.prod([d or 0 for d in p.declarator.dims]))
            nbytes = count * max(1, ty.bits // 8)
            if nbytes == 128:
                args.append(tensor_map(np.zeros((64, 64), np.float32), box=(16, 16)))
            else:
                args.append(bytes(nbytes))
        elif ty.kind.value == "float":
            args.append(1.0)
        elif ty.bits == 64 and p.name not in scalars:
            args.append(np.zeros(64 * 1024, np.uint8))
        else:
            args.append(16)
    return args


class _OverBudget(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _OverBudget


@pytest.mark.parametrize(("rel", "name"), ENTRIES, ids=[f"{r}::{n}" for r, n in ENTRIES])
def test_every_entry_runs_or_raises_a_clear_error(rel: str, name: str) -> None:
    text = (CORPUS / rel).read_text(encoding="utf-8")
    module = parse(text, rel)
    kernel = module.function(name)
    cluster = _directive(kernel, FunctionDirectiveKind.REQNCTAPERCLUSTER) or (1,)
    block = (
        _directive(kernel, FunctionDirectiveKind.REQNTID)
        or _directive(kernel, FunctionDirectiveKind.MAXNTID)
        or (128,)
    )
    launch_args = {
        "grid": cluster,
        "block": block,
        "cluster": cluster,
        "smem": _dynamic_smem(text, module.targets),
    }
    repro = (
        f"launch(<tests/corpus/{rel}>, {name!r}, "
        + ", ".join(f"{k}={v}" for k, v in launch_args.items())
        + ")"
    )
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, HANG_GUARD_S)
    try:
        launch(text, name, args=_synthetic_args(kernel, text), **launch_args)
    except _OverBudget:
        pytest.fail(f"{repro} did not finish within {HANG_GUARD_S} s (hung?)")
    except LaunchError as err:
        assert str(err), repro
    except EmuError as err:
        if isinstance(err, (OutOfBounds, Misaligned, UninitializedRead)):
            assert err.instruction is not None and err.line is not None, f"{repro}: {err}"
        if isinstance(err, NotEmulated):
            assert err.detail.strip(), repro
        assert str(err), repro
    except Exception as err:
        pytest.fail(
            f"{repro} raised {type(err).__name__} from inside the emulator, not an EmuError:"
            f"\n{''.join(traceback.format_exception(err)[-6:])}"
        )
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
