"""Speed of the CPU emulator (pyptx.emu): warp-instructions per second on a few kernels.

Usage::

    python benchmarks/emu_throughput.py [--repeat N] [--only NAME]

A warp-instruction is one instruction issued by one warp (what ``LaunchStats`` counts, and
what a GPU profiler calls an instruction executed). Each kernel is launched ``N`` times and
the best time is reported, with the launch configuration and the warp-instruction count, so
rows can be compared across commits on the same machine. Kernels:

* ``alu-loop``: 200 iterations of integer arithmetic per thread, 64 CTAs of 256 threads;
* ``divergent``: per-thread trip counts (every lane of a warp leaves the loop at a different
  iteration), 8 CTAs of 256 threads;
* ``smem-barrier``: shared-memory exchange between threads with ``bar.sync`` per step;
* ``vector-add``: one element per thread over 1M floats (4,096 CTAs: many waves);
* ``gemm-mma-nvcc``: nvcc's bf16 ``mma.sync`` + ``ldmatrix`` GEMM of the emulator's test
  kernels (``packages/pyptx-emu/tests/kernels/cuda/mma_bf16_ldmatrix.cu``) at M=128, N=256,
  K=80, 32 CTAs of 128 threads;
* ``gemm-wgmma-nvcc``: nvcc's ``wgmma.mma_async`` m64n64k16 kernel, 64 x 64 x 64;
* ``gemm-dsl-ampere``: the 4-stage ``cp.async`` + ``mma.sync`` GEMM of
  ``examples/dsl/gemm_ampere.py`` traced at M=128, N=256, K=256 (needs pyptx-dsl).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
for src in (
    "packages/pyptx-ir/src",
    "packages/pyptx-parser/src",
    "packages/pyptx-emu/src",
    "packages/pyptx-dsl/src",
):
    sys.path.insert(0, str(REPO / src))
sys.path.insert(0, str(REPO / "benchmarks"))

from parse_throughput import machine_header  # noqa: E402

from pyptx.emu import LaunchStats, launch  # noqa: E402

HEADER = ".version 8.7\n.target sm_90a\n.address_size 64\n\n"

ALU_LOOP = """
.visible .entry alu_loop(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r4, %ctaid.x;
	mov.u32 %r2, 0;
	mov.u32 %r3, 0;
LOOP:
	mad.lo.s32 %r2, %r3, %r1, %r2;
	xor.b32 %r2, %r2, %r1;
	shr.u32 %r6, %r2, 3;
	add.s32 %r2, %r2, %r6;
	add.s32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, 200;
	@%p1 bra LOOP;
	mad.lo.s32 %r5, %r4, 256, %r1;
	mul.wide.u32 %rd2, %r5, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}
"""

DIVERGENT = ALU_LOOP.replace("alu_loop", "divergent").replace(
    "setp.lt.u32 %p1, %r3, 200;", "setp.lt.u32 %p1, %r3, %r1;"
)

SMEM_BARRIER = """
.visible .entry smem_barrier(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b8 buf[1024];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, buf;
	add.s32 %r4, %r3, %r2;
	xor.b32 %r5, %r2, 4;
	add.s32 %r5, %r3, %r5;
	mov.u32 %r6, %r1;
	mov.u32 %r7, 0;
STEP:
	st.shared.u32 [%r4], %r6;
	bar.sync 0;
	ld.shared.u32 %r8, [%r5];
	bar.sync 0;
	add.s32 %r6, %r6, %r8;
	add.s32 %r7, %r7, 1;
	setp.lt.u32 %p1, %r7, 50;
	@%p1 bra STEP;
	mov.u32 %r9, %ctaid.x;
	mad.lo.s32 %r9, %r9, 256, %r1;
	mul.wide.u32 %rd2, %r9, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r6;
	ret;
}
"""

VECTOR_ADD = """
.visible .entry vadd(.param .u64 px, .param .u64 py, .param .u64 pout)
{
	.reg .b32 %r<5>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [px];
	ld.param.u64 %rd2, [py];
	ld.param.u64 %rd3, [pout];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %tid.x;
	mad.lo.s32 %r3, %r1, 256, %r2;
	mul.wide.u32 %rd4, %r3, 4;
	add.s64 %rd5, %rd1, %rd4;
	add.s64 %rd6, %rd2, %rd4;
	add.s64 %rd7, %rd3, %rd4;
	ld.global.f32 %f1, [%rd5];
	ld.global.f32 %f2, [%rd6];
	add.f32 %f3, %f1, %f2;
	st.global.f32 [%rd7], %f3;
	ret;
}
"""


def _plain(
    text: str, grid: int, block: int, args: Callable[[], list[object]]
) -> Callable[[], LaunchStats]:
    ptx = HEADER + text
    return lambda: launch(ptx, grid=grid, block=block, args=args())


def _gemm() -> Callable[[], LaunchStats]:
    path = REPO / "examples" / "dsl" / "gemm_ampere.py"
    spec = importlib.util.spec_from_file_location("bench_gemm_ampere", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    m, n, k = 128, 256, 256
    traced = module.gemm_ampere.module(M=m, N=n, K=k)
    a = np.zeros((m, k), dtype=np.uint16)
    b = np.zeros((n, k), dtype=np.uint16)
    c = np.zeros((m, n), dtype=np.float32)
    grid = (n // module.BN, m // module.BM, 1)
    return lambda: launch(traced, grid=grid, block=module.THREADS, args=[a, b, c])


KERNELS = REPO / "packages" / "pyptx-emu" / "tests" / "kernels" / "ptx"


def _compiled(
    name: str, grid: tuple[int, ...], block: int, args: list[object]
) -> Callable[[], LaunchStats]:
    ptx = (KERNELS / f"{name}.ptx").read_text()
    return lambda: launch(ptx, grid=grid, block=block, args=args)


def _mma_nvcc() -> Callable[[], LaunchStats]:
    m, n, k = 128, 256, 80
    a, b = np.zeros((m, k), np.uint16), np.zeros((k, n), np.uint16)
    return _compiled(
        "mma_bf16_ldmatrix", (n // 32, m // 32), 128, [a, b, np.zeros((m, n), np.float32), m, n, k]
    )


def _wgmma_nvcc() -> Callable[[], LaunchStats]:
    a, b = np.zeros((64, 64), np.uint16), np.zeros((64, 64), np.uint16)
    return _compiled("wgmma_bf16_m64n64k16", (1,), 128, [a, b, np.zeros((64, 64), np.float32)])


def kernels() -> dict[str, Callable[[], Callable[[], LaunchStats]]]:
    """Benchmark name -> a factory of a zero-argument launch."""
    out16k = lambda: [np.zeros(64 * 256, dtype=np.uint32)]  # noqa: E731
    n = 1 << 20
    return {
        "alu-loop": lambda: _plain(ALU_LOOP, 64, 256, out16k),
        "divergent": lambda: _plain(DIVERGENT, 8, 256, out16k),
        "smem-barrier": lambda: _plain(SMEM_BARRIER, 64, 256, out16k),
        "vector-add": lambda: _plain(
            VECTOR_ADD,
            n // 256,
            256,
            lambda: [np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)],
        ),
        "gemm-mma-nvcc": _mma_nvcc,
        "gemm-wgmma-nvcc": _wgmma_nvcc,
        "gemm-dsl-ampere": _gemm,
    }


def main(argv: list[str]) -> int:
    """Run the benchmarks and print one line each."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", action="append", help="run only this benchmark (repeatable)")
    opts = ap.parse_args(argv[1:])
    print(machine_header(argv))
    for name, factory in kernels().items():
        if opts.only and name not in opts.only:
            continue
        run = factory()
        best = float("inf")
        stats = run()  # first launch also compiles the program
        for _ in range(opts.repeat):
            gc.collect()
            t0 = time.perf_counter()
            stats = run()
            best = min(best, time.perf_counter() - t0)
        rate = stats.warp_instructions / best
        print(
            f"{name:<14} {stats.ctas:>5} CTAs {stats.waves:>3} waves "
            f"{stats.warp_instructions:>10,} warp-insn  {best:7.3f} s  {rate:>12,.0f} warp-insn/s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
