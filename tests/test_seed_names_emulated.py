"""Seed-system spellings (docs/guide/porting.md) run in the emulator: the seed's Hopper
softmax ported with porting.md's edits only, and a small kernel built from the seed names,
each through pyptx.runtime (numpy arrays, the race checker on) against numpy. The spellings'
PTX is tested in packages/pyptx-dsl/tests/test_seed_names.py; these runs need pyptx-emu and
pyptx-runtime, so they live with the cross-package tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pyptx import Tile, kernel, ptx, reg, smem
from pyptx.dsl.kernel import assemble
from pyptx.types import f32, pred, u32, u64

pytest.importorskip("pyptx.emu")
pytest.importorskip("pyptx.runtime")


def _assemble(text: str) -> None:
    """ptxas accepts ``text`` for its own .target (raises with ptxas's message otherwise)."""
    arch = next(ln.split()[1] for ln in text.splitlines() if ln.startswith(".target"))
    assemble(text, arch, "seed")


# --------------------------------------------------------------------------- emulator


@pytest.fixture
def emulate(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``emulate(k, *arrays)``: run ``k`` through pyptx.runtime in the emulator, with the
    shared-memory race checker on; numpy arrays in and out."""
    pytest.importorskip("pyptx.emu")
    pytest.importorskip("pyptx.runtime")
    monkeypatch.setenv("PYPTX_EMU_CHECK_RACES", "1")

    def run(k, *args):  # type: ignore[no-untyped-def]
        result = k(*args)
        return [np.asarray(r) for r in (result if isinstance(result, tuple) else (result,))]

    return run


WARP_SIZE = 32
BLOCK_CANDIDATES = (512, 256, 128, 64, 32)
LOG2E = 1.4426950408889634


def _pick_block(n: int) -> int:
    return next(b for b in BLOCK_CANDIDATES if n % b == 0)


def build_seed_softmax(B: int, N: int) -> Any:
    """The seed's ``examples/hopper/softmax.py`` kernel, ported with porting.md's edits only.

    The edits (each a row of porting.md): a 32-bit byte offset is widened before it is added
    to a 64-bit pointer (``ptx.inst.mul.wide.u32``), and the ``alloc[row, col]`` element
    reads and writes of shared memory are ``smem.load`` / ``smem.store`` at an address.
    Everything else is the seed's own spelling.
    """
    block = _pick_block(N)
    num_warps = block // WARP_SIZE
    items_per_thread = N // block
    use_v4 = items_per_thread >= 4 and items_per_thread % 4 == 0
    v4_iters = items_per_thread // 4 if use_v4 else 0

    @kernel(
        in_specs=(Tile(B, N, f32),),
        out_specs=(Tile(B, N, f32),),
        grid=(B, 1, 1),
        block=(block, 1, 1),
        arch="sm_90a",
    )
    def softmax(X, Y):  # type: ignore[no-untyped-def]
        partials = smem.alloc(f32, (num_warps, 1))
        stats = smem.alloc(f32, (1, 1))

        px, py = ptx.global_ptrs(X, Y)

        tid = reg.scalar(u32)
        ptx.inst.mov.u32(tid, ptx.special.tid.x())
        row = reg.scalar(u32)
        ptx.inst.mov.u32(row, ptx.special.ctaid.x())
        row_byte_off = reg.scalar(u64)  # edit: widened (seed: row * (N * 4))
        ptx.inst.mul.wide.u32(row_byte_off, row, N * 4)
        px += row_byte_off
        py += row_byte_off
        lane = tid & (WARP_SIZE - 1)
        warp_id = tid >> 5
        partial_addr = smem.base(partials) + (warp_id << 2)  # edit: partials[warp_id, 0]

        def byte_offset(idx):  # type: ignore[no-untyped-def]  # edit: seed's idx * 4
            off = reg.scalar(u64)
            ptx.inst.mul.wide.u32(off, idx, 4)
            return off

        x_vals = reg.array(f32, items_per_thread)
        row_max = reg.scalar(f32, init=-float("inf"))

        if use_v4:
            elem_base = tid << 2
            for j in range(v4_iters):
                idx = elem_base if j == 0 else elem_base + (j * block * 4)
                ptr = px + byte_offset(idx)
                ptx.inst.ld.global_.v4.f32(
                    [x_vals[j * 4], x_vals[j * 4 + 1], x_vals[j * 4 + 2], x_vals[j * 4 + 3]],
                    ptx.addr(ptr),
                )
                for sub in range(4):
                    ptx.inst.max.f32(row_max, row_max, x_vals[j * 4 + sub])
        else:
            for i in range(items_per_thread):
                idx = reg.scalar(u32)
                ptx.inst.add.u32(idx, tid, i * block)
                ptr = px + byte_offset(idx)
                ptx.inst.ld.global_.f32(x_vals[i], ptx.addr(ptr))
                ptx.inst.max.f32(row_max, row_max, x_vals[i])

        ptx.warp.reduce_max(row_max)

        with ptx.if_(lane == 0):
            smem.store(f32, ptx.addr(partial_addr), row_max)
        ptx.bar.sync(0)

        with ptx.if_(tid == 0):
            block_max = reg.scalar(f32, init=-float("inf"))
            for i in range(num_warps):
                ptx.inst.max.f32(block_max, block_max, smem.load(f32, partials.addr(4 * i)))
            smem.store(f32, stats.addr(), block_max)
        ptx.bar.sync(0)

        ptx.inst.mov.f32(row_max, smem.load(f32, stats.addr()))

        neg_log2e = reg.scalar(f32, init=-LOG2E)
        log2e = reg.scalar(f32, init=LOG2E)
        neg_max_l2 = reg.scalar(f32)
        ptx.inst.mul.f32(neg_max_l2, row_max, neg_log2e)

        row_sum = reg.scalar(f32, init=0.0)
        scaled = reg.scalar(f32)
        for i in range(items_per_thread):
            ptx.inst.fma.rn.f32(scaled, x_vals[i], log2e, neg_max_l2)
            ptx.inst.ex2.approx.f32(x_vals[i], scaled)
            ptx.inst.add.f32(row_sum, row_sum, x_vals[i])

        ptx.warp.reduce_sum(row_sum)

        with ptx.if_(lane == 0):
            smem.store(f32, ptx.addr(partial_addr), row_sum)
        ptx.bar.sync(0)

        with ptx.if_(tid == 0):
            block_sum = reg.scalar(f32, init=0.0)
            for i in range(num_warps):
                ptx.inst.add.f32(block_sum, block_sum, smem.load(f32, partials.addr(4 * i)))
            smem.store(f32, stats.addr(), block_sum)
        ptx.bar.sync(0)

        ptx.inst.mov.f32(row_sum, smem.load(f32, stats.addr()))

        inv_sum = reg.scalar(f32)
        ptx.inst.rcp.approx.f32(inv_sum, row_sum)

        if use_v4:
            elem_base = tid << 2
            for j in range(v4_iters):
                idx = elem_base if j == 0 else elem_base + (j * block * 4)
                out_ptr = py + byte_offset(idx)
                out_vals = []
                for sub in range(4):
                    out_val = reg.scalar(f32)
                    ptx.inst.mul.f32(out_val, x_vals[j * 4 + sub], inv_sum)
                    out_vals.append(out_val)
                ptx.inst.st.global_.v4.f32(ptx.addr(out_ptr), out_vals)
        else:
            for i in range(items_per_thread):
                out_val = reg.scalar(f32)
                ptx.inst.mul.f32(out_val, x_vals[i], inv_sum)
                idx = reg.scalar(u32)
                ptx.inst.add.u32(idx, tid, i * block)
                out_ptr = py + byte_offset(idx)
                ptx.inst.st.global_.f32(ptx.addr(out_ptr), out_val)

        ptx.ret()

    return softmax


@pytest.mark.parametrize(("rows", "cols"), [(3, 96), (2, 2048)], ids=["scalar", "v4"])
def test_ported_seed_softmax_in_the_emulator(rows: int, cols: int, emulate) -> None:  # type: ignore[no-untyped-def]
    k = build_seed_softmax(rows, cols)
    assert ("ld.global.v4.f32" in k.ptx()) == (cols == 2048)
    _assemble(k.ptx())
    x = np.random.default_rng(7).standard_normal((rows, cols)).astype(np.float32) * 3
    (y,) = emulate(k, x)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    # ex2.approx.f32 and rcp.approx.f32: relative errors near 2**-22 each (PTX ISA).
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-9)


N_MAX = 64


@kernel(
    in_specs=(Tile(N_MAX, u32),),
    out_specs=(Tile(1, u32),),
    grid=(1, 1, 1),
    block=(32, 1, 1),
    raw_params=[("u32", "n")],
    arch="sm_90a",
)
def _seed_names_kernel(X, out):  # type: ignore[no-untyped-def]
    """The maximum of ``X[:n]`` (32 < n <= 64) written with the seed names added here."""
    px, po = ptx.global_ptrs(X, out)
    n = ptx.param(u32, "n")
    tid = reg.scalar(u32)
    ptx.inst.mov.u32(tid, ptx.special.tid.x())
    bars = smem.mbarrier(2)
    done = ptx.mbarrier.array(bars, 8, 1)
    with ptx.if_(tid == 0):
        done.init_all(32)
    ptx.fence.proxy_async_shared_cta()
    ptx.bar.sync(0)

    i = reg.scalar(u32, init=tid)
    best = reg.scalar(u32, init=0)
    keep_going = reg.scalar(pred)
    # A do-while (i = tid < n on entry); the scope only shows ptx.scope in use.
    with ptx.loop("k_loop", pred=keep_going), ptx.scope():
        off = reg.scalar(u64)
        ptx.inst.mul.wide.u32(off, i, 4)
        v = reg.scalar(u32)
        ptx.inst.ld.global_.u32(v, ptx.addr(px + off))
        ptx.inst.mov.u32(best, best.max(v))
        ptx.inst.add.u32(i, i, 32)
        ptx.inst.setp.lt.u32(keep_going, i, n)
    done[0].arrive()
    done[0].wait(0)
    ptx.warp.reduce_max(best)
    with ptx.if_(tid == 0):
        ptx.inst.st.global_.u32(ptx.addr(po), best)


@pytest.mark.parametrize("n", [33, 40, 64])
def test_seed_names_kernel_in_the_emulator(n: int, emulate) -> None:  # type: ignore[no-untyped-def]
    _assemble(_seed_names_kernel.ptx())
    x = np.random.default_rng(n).integers(0, 1000, N_MAX).astype(np.uint32)
    x[n:] = 5000  # past n: never read
    (got,) = emulate(_seed_names_kernel, x, n)
    assert int(got[0]) == int(x[:n].max())
