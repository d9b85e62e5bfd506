"""Tracing is deterministic (any process, any order) and thread-safe."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pyptx import kernel, ptx, reg, smem
from pyptx.types import f32, u32

SOURCE = textwrap.dedent(
    """
    from pyptx import kernel, ptx, reg, smem
    from pyptx.types import f32, u32

    def make(n):
        @kernel(arch="sm_80")
        def k():
            t = reg.from_(ptx.special.tid.x(), u32)
            buf = smem.alloc(f32, (n,))
            with ptx.if_(t < n):
                v = smem.load(f32, buf)
                smem.store(f32, buf, v)
            for i in ptx.range_(0, n, 1):
                ptx.inst.add.u32(t, t, i)
        return k
    """
)


def _make(n: int):  # type: ignore[no-untyped-def]
    namespace: dict[str, object] = {}
    exec(compile(SOURCE, "<kernels>", "exec"), namespace)
    return namespace["make"](n)  # type: ignore[operator]


def test_same_kernel_same_bytes_in_other_processes() -> None:
    here = _make(7).ptx()
    src_dirs = [str(p) for p in Path(__file__).resolve().parents[2].glob("pyptx-*/src")]
    script = SOURCE + "\nimport sys\nsys.stdout.write(make(7).ptx())\n"
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        env["PYTHONPATH"] = os.pathsep.join([*src_dirs, env.get("PYTHONPATH", "")])
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
        )
        assert out.stdout == here


def test_order_of_tracing_does_not_matter() -> None:
    a, b = _make(3), _make(5)
    first = (a.ptx(), b.ptx())
    second = (b.ptx(), a.ptx())[::-1]
    assert first == second
    assert a.ptx() == a.ptx()


def test_threads_trace_independently() -> None:
    kernels = [_make(n) for n in range(1, 17)]
    serial = [k.ptx() for k in kernels]
    with ThreadPoolExecutor(max_workers=8) as pool:
        parallel = list(pool.map(lambda k: k.ptx(), kernels * 4))
    assert parallel == serial * 4


def test_nested_trace_inside_a_trace_is_isolated() -> None:
    @kernel(arch="sm_80")
    def inner() -> None:
        reg.scalar(u32, 1)

    @kernel(arch="sm_80")
    def outer() -> None:
        reg.scalar(f32)
        text = inner.ptx()
        assert "%f" not in text
        smem.alloc(u32, 4)
        ptx.ret()

    assert "mov.u32 %r0, 1;" in inner.ptx()
    assert ".reg .f32 %f<1>;" in outer.ptx()
