"""Tracing + emission throughput of the pyptx DSL on a large, fully unrolled kernel.

Usage::

    python benchmarks/trace_throughput.py [--k-steps N] [--repeat R]

The kernel is an Ampere (sm_80) bf16 GEMM mainloop unrolled in Python: per K step, a
``cp.async`` prefetch of the next A/B tiles, ``ldmatrix.x4`` fragment loads and a 4x8 grid of
``mma.sync.m16n8k16`` per warp tile. With the default 512 K steps the PTX has 30k+ lines.
Prints PTX lines/s and MB/s for trace + emit (best of R).

Then a long function body, as transpiled code has one: a ``PtxModule`` kernel whose Python
function spells out ``--long-body`` instructions one line each (and a tenth of that), traced
without the ISA checks; it prints the trace time per instruction at both sizes, which stays
flat when tracing is linear in the body's length.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for pkg in ("pyptx-ir", "pyptx-parser", "pyptx-dsl"):
    sys.path.insert(0, str(REPO / "packages" / pkg / "src"))

from parse_throughput import machine_header  # noqa: E402

from pyptx import kernel, ptx, reg, smem  # noqa: E402
from pyptx.types import b32, bf16, f32, u32  # noqa: E402

MT, NT = 4, 8  # m16 x n8 mma tiles per warp: a 64 x 64 warp tile


def make_gemm(k_steps: int):  # type: ignore[no-untyped-def]
    """The unrolled mainloop kernel for ``k_steps`` K steps of 16."""

    @kernel(arch="sm_80")
    def gemm_mainloop() -> None:
        tid = reg.from_(ptx.special.tid.x(), u32)
        sa = smem.alloc(bf16, (2, 64, 32))
        sb = smem.alloc(bf16, (2, 32, 64))
        base_a = smem.base(sa)
        base_b = smem.base(sb)
        lane_off = tid * 16
        gptr = reg.scalar(b32)
        acc = [[reg.array(f32, 4) for _ in range(NT)] for _ in range(MT)]
        for i in range(MT):
            for j in range(NT):
                for r in acc[i][j]:
                    ptx.inst.mov.f32(r, 0.0)
        for k in range(k_steps):
            stage = k % 2
            src = gptr + k * 64
            for c in range(4):
                ptx.inst.cp.async_.cg.shared.global_(
                    ptx.addr(base_a, stage * 4096 + c * 1024), ptx.addr(src, c * 16), 16
                )
            ptx.inst.cp.async_.commit_group()
            ptx.inst.cp.async_.wait_group(1)
            ptx.inst.bar.sync(0)
            a_frag = [reg.array(b32, 4) for _ in range(MT)]
            b_frag = [reg.array(b32, 2) for _ in range(NT)]
            for i in range(MT):
                ptx.inst.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                    tuple(a_frag[i]), ptx.addr(lane_off + base_a, stage * 4096 + i * 512)
                )
            for j in range(NT):
                ptx.inst.ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16(
                    tuple(b_frag[j]), ptx.addr(lane_off + base_b, stage * 4096 + j * 256)
                )
            for i in range(MT):
                for j in range(NT):
                    ptx.inst.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(
                        tuple(acc[i][j]), tuple(a_frag[i]), tuple(b_frag[j]), tuple(acc[i][j])
                    )
        ptx.ret()

    return gemm_mainloop


def long_body_kernel(instructions: int):  # type: ignore[no-untyped-def]
    """A ``PtxModule`` whose kernel body is ``instructions`` lines of ``ptx.inst`` calls."""
    from pyptx import PtxModule

    lines = [
        f"    ptx.inst.add.s32(r[{i % 50 + 1}], r[{i % 40 + 2}], r[{i % 30 + 3}])"
        for i in range(instructions)
    ]
    source = "\n".join(
        [
            "def body():",
            '    r = ptx.declare(".reg .b32 %r<100>;")',
            *lines,
            "    ptx.inst.ret()",
        ]
    )
    namespace: dict[str, object] = {"ptx": ptx}
    exec(compile(source, "<long body>", "exec"), namespace)
    module = PtxModule(check=False)
    module.version(8, 0)
    module.target("sm_90a")
    module.address_size(64)
    module.entry(".visible .entry k()")(namespace["body"])
    return module


def long_body_us(instructions: int, repeat: int) -> float:
    """Best trace time per instruction (microseconds) of :func:`long_body_kernel`."""
    module = long_body_kernel(instructions)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        module.module(layout=False)
        best = min(best, time.perf_counter() - t0)
    return best / instructions * 1e6


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k-steps", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--long-body", type=int, default=20000)
    args = ap.parse_args(argv)
    k = make_gemm(args.k_steps)
    best = float("inf")
    text = ""
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        text = k.ptx()
        best = min(best, time.perf_counter() - t0)
    lines = text.count("\n")
    print(machine_header(sys.argv))
    print(f"best of {args.repeat} runs")
    print(
        f"unrolled sm_80 GEMM mainloop, {args.k_steps} K steps: {lines} PTX lines, "
        f"{len(text) / 1e6:.2f} MB in {best * 1e3:.0f} ms -> {lines / best:,.0f} lines/s, "
        f"{len(text) / 1e6 / best:.2f} MB/s (trace + emit)"
    )
    for n in (args.long_body // 10, args.long_body):
        print(
            f"one function body of {n} instructions: {long_body_us(n, args.repeat):.1f} us "
            "per instruction (trace)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
