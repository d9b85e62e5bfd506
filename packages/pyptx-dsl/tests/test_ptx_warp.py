"""Typed warp wrappers (shfl.sync, vote.sync, match.sync, redux.sync, activemask) and the
warp-reduction helpers, whose exact instruction sequences are checked here."""

from __future__ import annotations

from dsl_testing import body, here, raises_at

from pyptx import kernel, ptx, reg
from pyptx.types import b32, b64, bf16x2, f16x2, f32, f64, pred, s32, u32, u64


def test_shfl_sync_modes_and_predicate_out(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        v, t = reg.scalar(f32), reg.scalar(f32)
        i = reg.scalar(u32)
        p = reg.scalar(pred)
        ptx.shfl.sync(t, v, 16, 31, -1, mode="bfly")
        ptx.shfl.sync(t, v, 1, 0, 0xFFFFFFFF, mode="up")
        ptx.shfl.sync((i, p), i, 2, 31, -1, mode="down")
        ptx.shfl.sync(i, i, i, 0x1F, i, mode="idx", pred=~p)

    assert body(k.ptx()) == [
        "shfl.sync.bfly.b32 %f1, %f0, 16, 31, -1;",
        "shfl.sync.up.b32 %f1, %f0, 1, 0, 4294967295;",
        "shfl.sync.down.b32 %r0|%p0, %r0, 2, 31, -1;",
        "@!%p0 shfl.sync.idx.b32 %r0, %r0, %r0, 31, %r0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_vote_match_activemask(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        p, q = reg.scalar(pred), reg.scalar(pred)
        bits = reg.scalar(u32)
        v = reg.scalar(u32)
        w = reg.scalar(u64)
        ptx.vote.sync(q, p, -1, mode="all")
        ptx.vote.sync(q, ~p, -1, mode="any")
        ptx.vote.sync(q, p, bits, mode="uni")
        ptx.vote.sync(bits, p, -1, mode="ballot")
        ptx.match.sync(bits, v, -1, mode="any")
        ptx.match.sync((bits, q), w, -1, mode="all")
        ptx.match.sync(bits, w, -1, mode="any", ty=b64)
        ptx.activemask(bits)

    assert body(k.ptx()) == [
        "vote.sync.all.pred %p1, %p0, -1;",
        "vote.sync.any.pred %p1, !%p0, -1;",
        "vote.sync.uni.pred %p1, %p0, %r0;",
        "vote.sync.ballot.b32 %r0, %p0, -1;",
        "match.any.sync.b32 %r0, %r1, -1;",
        "match.all.sync.b64 %r0|%p1, %rd0, -1;",
        "match.any.sync.b64 %r0, %rd0, -1;",
        "activemask.b32 %r0;",
        "ret;",
    ]
    assemble(k.ptx())


def test_redux_sync_integer_ops(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        u, s, b = reg.scalar(u32), reg.scalar(s32), reg.scalar(b32)
        ptx.redux.sync(u, u, -1, op="add")
        ptx.redux.sync(s, s, -1, op="min")
        ptx.redux.sync(s, s, -1, op="max")
        ptx.redux.sync(b, b, -1, op="and")
        ptx.redux.sync(u, u, -1, op="or")
        ptx.redux.sync(u, u, -1, op="xor")

    assert body(k.ptx()) == [
        "redux.sync.add.u32 %r0, %r0, -1;",
        "redux.sync.min.s32 %r1, %r1, -1;",
        "redux.sync.max.s32 %r1, %r1, -1;",
        "redux.sync.and.b32 %r2, %r2, -1;",
        "redux.sync.or.b32 %r0, %r0, -1;",
        "redux.sync.xor.b32 %r0, %r0, -1;",
        "ret;",
    ]
    assemble(k.ptx())


def test_redux_sync_f32_on_sm_100a(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_100a")
    def k() -> None:
        x = reg.scalar(f32)
        ptx.redux.sync(x, x, -1, op="max")
        ptx.redux.sync(x, x, -1, op="min", abs=True)
        ptx.redux.sync(x, x, -1, op="max", abs=True, nan=True)
        ptx.redux.sync(x, x, -1, op="min", nan=True)

    assert body(k.ptx()) == [
        "redux.sync.max.f32 %f0, %f0, -1;",
        "redux.sync.min.abs.f32 %f0, %f0, -1;",
        "redux.sync.max.abs.NaN.f32 %f0, %f0, -1;",
        "redux.sync.min.NaN.f32 %f0, %f0, -1;",
        "ret;",
    ]
    assemble(k.ptx())


def test_warp_reduce_sum_full_warp_f32(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_80")
    def k() -> None:
        x = reg.scalar(f32)
        total = ptx.warp_reduce_sum(x)
        assert total.name == "%f10" and total.type is f32

    assert body(k.ptx()) == [
        "shfl.sync.bfly.b32 %f1, %f0, 16, 31, -1;",
        "add.f32 %f2, %f0, %f1;",
        "shfl.sync.bfly.b32 %f3, %f2, 8, 31, -1;",
        "add.f32 %f4, %f2, %f3;",
        "shfl.sync.bfly.b32 %f5, %f4, 4, 31, -1;",
        "add.f32 %f6, %f4, %f5;",
        "shfl.sync.bfly.b32 %f7, %f6, 2, 31, -1;",
        "add.f32 %f8, %f6, %f7;",
        "shfl.sync.bfly.b32 %f9, %f8, 1, 31, -1;",
        "add.f32 %f10, %f8, %f9;",
        "ret;",
    ]
    assemble(k.ptx())


def test_warp_reduce_max_min_in_groups(assemble) -> None:  # type: ignore[no-untyped-def]
    @kernel(arch="sm_90a")
    def k() -> None:
        s = reg.scalar(s32)
        h = reg.scalar(f16x2)
        b = reg.scalar(bf16x2)
        ptx.warp_reduce_max(s, width=4)
        ptx.warp_reduce_min(h, width=2, membermask=0xFF)
        ptx.warp_reduce_sum(b, width=2)

    assert body(k.ptx()) == [
        "shfl.sync.bfly.b32 %r3, %r0, 2, 7199, -1;",
        "max.s32 %r4, %r0, %r3;",
        "shfl.sync.bfly.b32 %r5, %r4, 1, 7199, -1;",
        "max.s32 %r6, %r4, %r5;",
        "shfl.sync.bfly.b32 %r7, %r1, 1, 7711, 255;",
        "min.f16x2 %r8, %r1, %r7;",
        "shfl.sync.bfly.b32 %r9, %r2, 1, 7711, -1;",
        "add.bf16x2 %r10, %r2, %r9;",
        "ret;",
    ]
    assemble(k.ptx())


def test_multi_instruction_table_lists_the_reductions() -> None:
    from pyptx.ptx import _warp

    assert set(_warp.MULTI_INSTRUCTION) == {
        "ptx.warp_reduce_sum",
        "ptx.warp_reduce_max",
        "ptx.warp_reduce_min",
    }
    for name, text in _warp.MULTI_INSTRUCTION.items():
        op = name.rsplit("_", 1)[1].replace("sum", "add")
        assert text.startswith("shfl.sync.bfly.b32 t, v, off, ((32-width)<<8)|31, membermask; ")
        assert f"{op}.<type> v, v, t" in text
        assert ptx.MULTI_INSTRUCTION_HELPERS[name] == text


# ---------------------------------------------------------------------------- errors


def test_error_shfl_needs_32_bit_values() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        d = reg.scalar(f64)
        where.append(here() + 1)
        ptx.shfl.sync(d, d, 1, 31, -1, mode="down")

    raises_at(
        k,
        where,
        r"shfl\.sync\.down\.b32 operand 0 \(d\) expects a 32-bit register for \.b32, but %fd0 "
        r"is declared \.f64",
    )


def test_error_shfl_mode_lists_choices() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        v = reg.scalar(u32)
        where.append(here() + 1)
        ptx.shfl.sync(v, v, 1, 31, -1, mode="xor")

    raises_at(
        k,
        where,
        r"unknown modifier '\.xor' for shfl\.sync; expected one of \.up, \.down, \.bfly, \.idx",
    )


def test_error_vote_needs_predicate_input() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        v = reg.scalar(u32)
        where.append(here() + 1)
        ptx.vote.sync(reg.scalar(pred), v, -1, mode="any")

    raises_at(k, where, r"vote\.sync\.any\.pred operand 1 \(a\) expects a \.pred register, but %r0")


def test_error_redux_abs_only_on_f32() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        v = reg.scalar(u32)
        where.append(here() + 1)
        ptx.redux.sync(v, v, -1, op="max", abs=True)

    raises_at(k, where, r"modifier '\.abs' is not valid for redux\.sync with \.u32")


def test_error_match_any_has_no_predicate() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        v = reg.scalar(u32)
        where.append(here() + 1)
        ptx.match.sync((v, reg.scalar(pred)), v, -1, mode="any")

    raises_at(
        k, where, r"match\.any\.sync\.b32 operand 0 \(d\) expects a register, but got the pair"
    )


def test_error_warp_reduce_width_and_type() -> None:
    where: list[int] = []

    @kernel(arch="sm_80")
    def k() -> None:
        x = reg.scalar(f32)
        where.append(here() + 1)
        ptx.warp_reduce_sum(x, width=3)

    raises_at(k, where, r"ptx\.warp_reduce_sum needs width= a power of two from 2 to 32, got 3")

    @kernel(arch="sm_80")
    def k2() -> None:
        d = reg.scalar(f64)
        where.append(here() + 1)
        ptx.warp_reduce_max(d)

    raises_at(
        k2,
        where,
        r"shfl\.sync\.bfly\.b32 operand 0 \(d\) expects a 32-bit register for \.b32, but %fd1 "
        r"is declared \.f64",
    )


def test_family_exports() -> None:
    from pyptx.ptx import _warp

    fns = [ptx.shfl.sync, ptx.vote.sync, ptx.match.sync, ptx.redux.sync, ptx.activemask,
           ptx.warp_reduce_sum, ptx.warp_reduce_max, ptx.warp_reduce_min]  # fmt: skip
    for fn in fns:
        assert "https://docs.nvidia.com/cuda/parallel-thread-execution/#" in (fn.__doc__ or "")
    for name in _warp.__all__:
        assert getattr(ptx, name) is getattr(_warp, name)
