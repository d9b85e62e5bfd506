"""The seed system's names (upstream pyptx 0.1.1) offered by this DSL (docs/guide/porting.md).

Each seed spelling is traced next to the existing call it stands for: the two kernels must
emit the very same PTX (so the ISA table checks the seed spelling exactly as it checks ours),
and that PTX assembles with ptxas. The emulator runs (a seed example kernel ported with
porting.md's edits only, and a kernel built from the seed names) need pyptx-emu and
pyptx-runtime, so they are in tests/test_seed_names_emulated.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from dsl_testing import body, here, raises_at

from pyptx import Layout, PtxDslError, Tile, kernel, ptx, reg, smem
from pyptx.dsl import umma
from pyptx.types import b32, bf16, f16, f32, pred, s32, tf32, u32, u64

TMA = Tile(64, 64, bf16, layout=Layout.TMA_128B)


def _namespace(a: Any) -> SimpleNamespace:
    """The operands every case draws on, allocated in the same order in both kernels."""
    return SimpleNamespace(
        a=a,
        r=reg.scalar(u32),
        s=reg.scalar(s32),
        b=reg.scalar(b32),
        f=reg.scalar(f32),
        g=reg.scalar(u64),
        h=reg.scalar(u64),
        p=reg.scalar(pred),
        bars=smem.mbarrier(4),
        buf=smem.alloc(bf16, (64, 64)),
        acc=reg.array(f32, 4),
        afr=reg.array(b32, 4),
        bfr=reg.array(b32, 2),
    )


def _trace(make: Callable[[SimpleNamespace], object], arch: str, options: dict[str, Any]) -> str:
    @kernel(arch=arch, in_specs=(TMA,), **options)
    def k(a) -> None:  # type: ignore[no-untyped-def]
        make(_namespace(a))

    return k.ptx()


@dataclass(frozen=True)
class Spelling:
    """A seed spelling, our existing spelling of the same thing, and a line both emit."""

    name: str
    seed: Callable[[SimpleNamespace], object]
    ours: Callable[[SimpleNamespace], object]
    emits: str
    arch: str = "sm_100a"
    options: dict[str, Any] = field(default_factory=dict)


def _loop_seed(ns: SimpleNamespace) -> None:
    with ptx.loop("k_loop", pred=ns.p):
        ptx.add(ns.r, ns.r, 1)


def _loop_ours(ns: SimpleNamespace) -> None:
    with ptx.loop("k_loop") as top:
        ptx.add(ns.r, ns.r, 1)
    ptx.bra(top, pred=ns.p)


def _loop_not_seed(ns: SimpleNamespace) -> None:
    with ptx.loop("kv_loop", pred=~ns.p):
        ptx.setp(ns.p, ns.r, 10, cmp="lt")


def _loop_not_ours(ns: SimpleNamespace) -> None:
    with ptx.loop("kv_loop") as top:
        ptx.setp(ns.p, ns.r, 10, cmp="lt")
    ptx.bra(top, pred=~ns.p)


def _scope_seed(ns: SimpleNamespace) -> None:
    with ptx.scope():
        ptx.label("again")
        ptx.add(ns.r, ns.r, 1)
        ptx.bra("again", pred=ns.p)


def _scope_ours(ns: SimpleNamespace) -> None:
    with ptx.block():
        ptx.label("again")
        ptx.add(ns.r, ns.r, 1)
        ptx.bra("again", pred=ns.p)


def _ring_seed(ns: SimpleNamespace) -> None:
    ring = ptx.mbarrier.array(ns.bars, 8, 3)
    ring.init_all(1)
    ring.at(ns.r).wait(ns.r)
    ring[2].arrive_expect_tx(64)


def _ring_ours(ns: SimpleNamespace) -> None:
    ring = ptx.mbarrier_array(ns.bars, 8, 3)
    ring.init_all(1)
    ring.at(ns.r).wait(ns.r)
    ring[2].arrive_expect_tx(64)


SPELLINGS = [
    Spelling(
        "mbarrier.array of smem.mbarrier",
        _ring_seed,
        _ring_ours,
        "mbarrier.init.shared.b64 [mbar_0+24], 1;",
    ),
    Spelling(
        "mbarrier.array of a register",
        lambda ns: ptx.mbarrier.array(ns.r, 16, 2)[1].init(2),
        lambda ns: ptx.mbarrier_array(ns.r, 16, 2)[1].init(2),
        "mbarrier.init.shared.b64 [%r0+24], 2;",
    ),
    Spelling(
        "cvta.to_global",
        lambda ns: ptx.cvta.to_global(ns.g),
        lambda ns: ptx.cvta.to(reg.scalar(u64), ns.g, space="global"),
        "cvta.to.global.u64 %rd2, %rd0;",
    ),
    Spelling(
        "cvta.to_global into dst",
        lambda ns: ptx.cvta.to_global(ns.g, ns.h),
        lambda ns: ptx.cvta.to(ns.h, ns.g, space="global"),
        "cvta.to.global.u64 %rd1, %rd0;",
    ),
    Spelling(
        "cvta.param",
        lambda ns: ptx.cvta.param(ns.g),
        lambda ns: ptx.cvta(reg.scalar(u64), ns.g, space="param"),
        "cvta.param.u64 %rd2, %rd0;",
    ),
    Spelling(
        "fence.proxy_async",
        lambda ns: ptx.fence.proxy_async(),
        lambda ns: ptx.fence.proxy.async_(),
        "fence.proxy.async;",
    ),
    Spelling(
        "fence.proxy_async_shared_cta",
        lambda ns: ptx.fence.proxy_async_shared_cta(pred=ns.p),
        lambda ns: ptx.fence.proxy.async_("shared::cta", pred=ns.p),
        "@%p0 fence.proxy.async.shared::cta;",
    ),
    Spelling(
        "fence.proxy_async_generic_acquire_shared_cluster",
        lambda ns: ptx.fence.proxy_async_generic_acquire_shared_cluster(),
        lambda ns: ptx.fence.proxy.async_generic.acquire(),
        "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;",
    ),
    Spelling(
        "tcgen05.fence_before_thread_sync",
        lambda ns: ptx.tcgen05.fence_before_thread_sync(),
        lambda ns: ptx.tcgen05.fence.before_thread_sync(),
        "tcgen05.fence::before_thread_sync;",
    ),
    Spelling(
        "tcgen05.fence_after_thread_sync",
        lambda ns: ptx.tcgen05.fence_after_thread_sync(pred=ns.p),
        lambda ns: ptx.tcgen05.fence.after_thread_sync(pred=ns.p),
        "@%p0 tcgen05.fence::after_thread_sync;",
    ),
    Spelling(
        "tcgen05.wait_ld",
        lambda ns: ptx.tcgen05.wait_ld(),
        lambda ns: ptx.tcgen05.wait.ld(),
        "tcgen05.wait::ld.sync.aligned;",
    ),
    Spelling(
        "tcgen05.wait_st",
        lambda ns: ptx.tcgen05.wait_st(),
        lambda ns: ptx.tcgen05.wait.st(),
        "tcgen05.wait::st.sync.aligned;",
    ),
    Spelling(
        "tcgen05.shift",
        lambda ns: ptx.tcgen05.shift(ns.r),
        lambda ns: ptx.tcgen05.shift.down(ns.r),
        "tcgen05.shift.cta_group::1.down [%r0];",
    ),
    Spelling(
        "tcgen05.descriptor",
        lambda ns: ptx.tcgen05.descriptor(
            ns.r, byte_offset=1024, stride_bytes=1024, leading_bytes=16, swizzle="128B"
        ),
        lambda ns: umma.smem_desc_reg(ns.r, lbo=16, sbo=1024, swizzle="128B", offset=1024),
        "add.u32 %r9, %r0, 1024;",
    ),
    Spelling(
        "tcgen05.descriptor of an allocation, no swizzle",
        lambda ns: ptx.tcgen05.descriptor(ns.buf, stride_bytes=128, swizzle="NONE"),
        lambda ns: umma.smem_desc_reg(ns.buf, lbo=16, sbo=128, swizzle=None),
        "bfi.b64 %rd3, %rd2, 0x0000400800010000, 0, 14;",
    ),
    Spelling(
        "tcgen05.masked_descriptor (default constant)",
        lambda ns: ptx.tcgen05.masked_descriptor(ns.r, byte_offset=2048),
        lambda ns: umma.smem_desc_reg(ns.r, lbo=16, sbo=1024, swizzle="128B", offset=2048),
        "bfi.b64 %rd3, %rd2, 0x4000404000010000, 0, 14;",
    ),
    Spelling(
        "tcgen05.masked_descriptor (64B swizzle constant)",
        lambda ns: ptx.tcgen05.masked_descriptor(ns.r, const_bits=0x8000402000010000),
        lambda ns: umma.smem_desc_reg(ns.r, lbo=16, sbo=512, swizzle="64B"),
        "bfi.b64 %rd3, %rd2, 0x8000402000010000, 0, 14;",
    ),
    Spelling("loop pred=", _loop_seed, _loop_ours, "@%p0 bra $L__k_loop_0;"),
    Spelling("loop pred=~p", _loop_not_seed, _loop_not_ours, "@!%p0 bra $L__kv_loop_0;"),
    Spelling("scope", _scope_seed, _scope_ours, "again:"),
    Spelling(
        "Reg.max u32",
        lambda ns: ns.r.max(2),
        lambda ns: ptx.max(reg.scalar(u32), ns.r, 2),
        "max.u32 %r9, %r0, 2;",
    ),
    Spelling(
        "Reg.max s32 register",
        lambda ns: ns.s.max(ns.s),
        lambda ns: ptx.max(reg.scalar(s32), ns.s, ns.s),
        "max.s32 %r9, %r1, %r1;",
    ),
    Spelling(
        "Reg.max b32 (as u32)",
        lambda ns: ns.b.max(ns.r),
        lambda ns: ptx.max(reg.scalar(b32), ns.b, ns.r, ty=u32),
        "max.u32 %r9, %r2, %r0;",
    ),
    Spelling(
        "Reg.max f32",
        lambda ns: ns.f.max(0.5),
        lambda ns: ptx.max(reg.scalar(f32), ns.f, 0.5),
        "max.f32 %f5, %f0, 0f3F000000;",
    ),
    Spelling(
        "cluster.map_shared_u32 of a register",
        lambda ns: ptx.cluster.map_shared_u32(ns.r, 1),
        lambda ns: ptx.mapa(ns.r, 1, ty=u32),
        "mapa.shared::cluster.u32 %r9, %r0, 1;",
        options={"cluster": (2, 1, 1)},
    ),
    Spelling(
        "cluster.map_shared_u32 of an mbarrier",
        lambda ns: ptx.cluster.map_shared_u32(ns.bars[1], ns.r, pred=ns.p),
        lambda ns: ptx.mapa(ns.bars[1], ns.r, ty=u32, pred=ns.p),
        "@%p0 mapa.shared::cluster.u32 %r9, mbar_0+8, %r0;",
        options={"cluster": (2, 1, 1)},
    ),
    Spelling(
        "param(type, name)",
        lambda ns: ptx.add(ns.r, ptx.param(u32, "K"), 1),
        lambda ns: ptx.add(ns.r, ptx.param("K"), 1),
        "ld.param.u32 %r9, [K];",
        options={"raw_params": [("u32", "K")]},
    ),
    Spelling(
        "tensor_2d.shared_cta_global_tile",
        lambda ns: ptx.cp.async_.bulk.tensor_2d.shared_cta_global_tile(
            dst=ns.buf, src=ns.a.tma_desc(), coord=(0, ns.r), mbar=ns.bars[0]
        ),
        lambda ns: ptx.cp.async_.bulk.tensor_2d(
            dst=ns.buf,
            src=ns.a.tma_desc(),
            coord=(0, ns.r),
            mbar=ns.bars[0],
            dst_space="shared::cta",
            mode="tile",
        ),
        "cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes "
        "[smem_0], [%rd3, {0, %r0}], [mbar_0];",
    ),
    Spelling(
        "tensor_2d.shared_cta_global_tile cta_group=2",
        lambda ns: ptx.cp.async_.bulk.tensor_2d.shared_cta_global_tile(
            dst=ns.buf, src=ns.a.tma_desc(), coord=(ns.r, 0), mbar=ns.bars[1], cta_group=2
        ),
        lambda ns: ptx.cp.async_.bulk.tensor_2d(
            dst=ns.buf,
            src=ns.a.tma_desc(),
            coord=(ns.r, 0),
            mbar=ns.bars[1],
            dst_space="shared::cta",
            mode="tile",
            cta_group=2,
        ),
        ".tile.mbarrier::complete_tx::bytes.cta_group::2 [smem_0], [%rd3, {%r0, 0}], [mbar_0+8];",
    ),
    Spelling(
        "mma.sync",
        lambda ns: ptx.mma.sync(
            shape=(16, 8, 16),
            dtype_d=f32,
            dtype_a=bf16,
            dtype_b=bf16,
            dtype_c=f32,
            d=ns.acc,
            a=ns.afr,
            b=ns.bfr,
            c=ns.acc,
        ),
        lambda ns: ptx.mma(
            ns.acc,
            ns.afr,
            ns.bfr,
            ns.acc,
            shape="m16n8k16",
            dtype_a=bf16,
            dtype_b=bf16,
            dtype_c=f32,
            dtype_d=f32,
        ),
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, "
        "{%r3, %r4, %r5, %r6}, {%r7, %r8}, {%f1, %f2, %f3, %f4};",
    ),
    Spelling(
        "mma.sync with layouts",
        lambda ns: ptx.mma.sync(
            shape=(16, 8, 16),
            dtype_d=f32,
            dtype_a=bf16,
            dtype_b=bf16,
            dtype_c=f32,
            d=list(ns.acc),
            a=list(ns.afr),
            b=list(ns.bfr),
            c=list(ns.acc),
            a_layout="row",
            b_layout="col",
            pred=ns.p,
        ),
        lambda ns: ptx.mma(
            ns.acc,
            ns.afr,
            ns.bfr,
            ns.acc,
            shape=(16, 8, 16),
            dtype_a=bf16,
            dtype_b=bf16,
            dtype_c=f32,
            dtype_d=f32,
            layout_a="row",
            layout_b="col",
            pred=ns.p,
        ),
        "@%p0 mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    ),
]


@pytest.mark.parametrize("case", SPELLINGS, ids=[c.name for c in SPELLINGS])
def test_seed_spelling_emits_what_ours_does(case: Spelling, assemble) -> None:  # type: ignore[no-untyped-def]
    seed = _trace(case.seed, case.arch, case.options)
    ours = _trace(case.ours, case.arch, case.options)
    assert seed == ours, f"{case.name}:\nseed spelling:\n{seed}\nours:\n{ours}"
    assert any(case.emits in line for line in body(seed)), f"{case.emits!r} not in\n{seed}"
    assemble(seed)


def test_loop_pred_runs_the_body_first_and_closes_the_loop() -> None:
    @kernel(arch="sm_80")
    def k() -> None:
        i = reg.scalar(u32, 0)
        keep_going = reg.scalar(pred)
        with ptx.loop("k_loop", pred=keep_going) as top:
            ptx.add(i, i, 1)
            ptx.setp(keep_going, i, 4, cmp="lt")
        assert top.name == "$L__k_loop_0"

    assert body(k.ptx()) == [
        "mov.u32 %r0, 0;",
        "$L__k_loop_0:",
        "add.u32 %r0, %r0, 1;",
        "setp.lt.u32 %p0, %r0, 4;",
        "@%p0 bra $L__k_loop_0;",
        "ret;",
    ]


def test_scoped_labels_reach_nested_blocks_and_repeat_per_scope(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        p = reg.scalar(pred)
        for _ in range(2):  # the same label name in two scopes, as the seed's kernels write
            with ptx.scope():
                ptx.label("cw")
                with ptx.scope():
                    ptx.bra("cw", pred=p)  # an enclosing block's label is in reach

    assert body(k.ptx()).count("cw:") == 2
    assemble(k.ptx())


def test_register_array_orders_and_names() -> None:
    seen: dict[str, object] = {}

    @kernel(arch="sm_90a")
    def k() -> None:
        acc = reg.array(f32, 8)
        seen.update(
            regs=acc.regs(),
            list=list(acc),
            hw=acc.hw_order(),
            hw_rev=acc.hw_order(reverse=True),
            rev=list(reversed(acc)),
        )

    assert body(k.ptx()) == ["ret;"]  # none of them emits an instruction
    names = {key: [r.name for r in regs] for key, regs in seen.items()}  # type: ignore[attr-defined]
    assert names["regs"] == names["list"] == names["hw"] == [f"%f{i}" for i in range(8)]
    assert names["hw_rev"] == names["rev"] == names["hw"][::-1]


def test_specs_module_is_the_tile_module() -> None:
    import pyptx
    from pyptx import specs

    assert specs.Tile is pyptx.Tile and specs.Layout is pyptx.Layout
    assert specs.__all__ == ["Layout", "Tile"]


# --------------------------------------------------------------------------- UMMA descriptors


@pytest.mark.parametrize(
    ("seed", "ours"),
    [
        ({}, dict(kind="f16", m=128, n=256, a_type=bf16, b_type=bf16)),
        (
            dict(m=64, n=64, ab_dtype="f16", b_major="MN", scale_a=-1),
            dict(kind="f16", m=64, n=64, a_type=f16, b_type=f16, transpose_b=True, negate_a=True),
        ),
        (
            dict(m=256, n=128, ab_dtype="tf32", max_shift=3),
            dict(kind="tf32", m=256, n=128, a_type=tf32, b_type=tf32, max_shift=32),
        ),
        (dict(sparse=True), dict(kind="f16", m=128, n=256, a_type=bf16, b_type=bf16, sparse=True)),
    ],
)
def test_make_instr_desc_is_umma_instr_desc(seed: dict[str, Any], ours: dict[str, Any]) -> None:
    kind = ours.pop("kind")
    want = umma.instr_desc(kind, d_type=f32, **ours)
    assert ptx.tcgen05.make_instr_desc_f16bf16_f32(**seed) == want


def test_make_instr_desc_bits() -> None:
    """Fields by hand from the PTX ISA's instruction-descriptor table (kind::f16)."""
    assert ptx.tcgen05.make_instr_desc_f16bf16_f32() == 0x08400490
    # M=64 (4 << 24), N=128 (16 << 17), transpose A (bit 15), negate B (bit 14), f32 D
    # (1 << 4), f16 A and B (format 0), max shift code 1 (bit 30).
    got = ptx.tcgen05.make_instr_desc_f16bf16_f32(
        m=64, n=128, ab_dtype="f16", a_major="MN", scale_b=-1, max_shift=1
    )
    assert got == (1 << 30) | (4 << 24) | (16 << 17) | (1 << 15) | (1 << 14) | (1 << 4)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(ab_dtype="e4m3"), r"ab_dtype must be one of 'f16', 'bf16', 'tf32', got 'e4m3'"),
        (dict(a_major="M"), r"a_major must be one of 'K', 'MN', got 'M'"),
        (dict(scale_b=2), r"scale_b must be one of 1, -1, got 2"),
        (dict(max_shift=8), r"max_shift must be one of 0, 1, 2, 3, got 8"),
        (dict(saturate=True), r"saturate is only defined for \.kind::i8"),
        (dict(m=48), r"M for \.kind::f16 must be one of 32, 64, 128, 256, got 48"),
    ],
)
def test_make_instr_desc_rejects(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(PtxDslError, match=match):
        ptx.tcgen05.make_instr_desc_f16bf16_f32(**kwargs)


# --------------------------------------------------------------------------- errors


def test_seed_spellings_report_errors_at_the_callers_line() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def not_a_predicate() -> None:
        r = reg.scalar(u32)
        where.append(here() + 1)
        with ptx.loop("k_loop", pred=r):
            pass

    raises_at(not_a_predicate, where, r"ptx.loop pred= needs a predicate register")

    @kernel(arch="sm_80")
    def if_not_a_predicate() -> None:  # a with-helper's error, not at contextlib's line
        r = reg.scalar(u32)
        where.append(here() + 1)
        with ptx.if_(r):
            pass

    raises_at(if_not_a_predicate, where, r"ptx.if_ needs a predicate register")

    @kernel(arch="sm_80")
    def into_a_scope() -> None:  # PTX labels are local to their { } block
        p = reg.scalar(pred)
        with ptx.scope():
            ptx.label("inner")
        where.append(here() + 1)
        ptx.bra("inner", pred=p)

    raises_at(into_a_scope, where, r"label 'inner', which is placed inside a \{ \} block")

    @kernel(arch="sm_80", raw_params=[("u32", "K")])
    def wrong_type() -> None:
        where.append(here() + 1)
        ptx.param(s32, "K")

    raises_at(wrong_type, where, r"parameter 'K' is declared u32 in raw_params, but ptx.param")

    @kernel(arch="sm_100a")
    def old_version() -> None:
        where.append(here() + 1)
        ptx.tcgen05.descriptor(reg.scalar(u32), stride_bytes=1024, version=2)

    raises_at(old_version, where, r"tcgen05.descriptor takes version=1")

    @kernel(arch="sm_100a")
    def other_mask() -> None:
        where.append(here() + 1)
        ptx.tcgen05.masked_descriptor(reg.scalar(u32), mask=0x3FF80)

    raises_at(other_mask, where, r"keeps the 14-bit start field \(mask=0x3FFF0\)")

    @kernel(arch="sm_100a")
    def bad_constant() -> None:
        where.append(here() + 1)
        ptx.tcgen05.masked_descriptor(reg.scalar(u32), const_bits=0x4000404000010001)

    raises_at(bad_constant, where, r"is not a shared memory descriptor without a start address")

    @kernel(arch="sm_80")
    def predicate_max() -> None:
        p = reg.scalar(pred)
        where.append(here() + 1)
        p.max(p)

    raises_at(predicate_max, where, r"max of predicate %p0")

    @kernel(arch="sm_80")
    def wide_address() -> None:
        where.append(here() + 1)
        ptx.cluster.map_shared_u32(reg.scalar(u64), 1)

    raises_at(wide_address, where, r"mapa")


def test_the_multi_instruction_table_lists_the_seed_helpers() -> None:
    table = ptx.MULTI_INSTRUCTION_HELPERS
    assert "@p bra $L__<stem>_N" in table["ptx.loop(pred=p)"]
    assert "umma.smem_desc_reg" in table["ptx.tcgen05.descriptor / masked_descriptor"]
    assert "ptx.mbarrier.wait" in table and "MbarrierRing.init_all" in table
