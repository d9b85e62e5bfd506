"""The machine: launch configuration, memory checks, divergence, barriers, calls."""

from __future__ import annotations

import numpy as np
import pytest
from emu_testing import module, run

from pyptx.emu import (
    DataRace,
    Deadlock,
    LaunchError,
    Misaligned,
    NotEmulated,
    OutOfBounds,
    UninitializedRead,
    launch,
)

VADD = """
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<10>;
	ld.param.u64 %rd1, [px];
	ld.param.u64 %rd2, [py];
	ld.param.u64 %rd3, [pout];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.ge.s32 %p1, %r5, %r1;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd4, %rd1;
	cvta.to.global.u64 %rd5, %rd2;
	cvta.to.global.u64 %rd6, %rd3;
	mul.wide.s32 %rd7, %r5, 4;
	add.s64 %rd8, %rd4, %rd7;
	ld.global.f32 %f1, [%rd8];
	add.s64 %rd8, %rd5, %rd7;
	ld.global.f32 %f2, [%rd8];
	add.f32 %f3, %f1, %f2;
	add.s64 %rd9, %rd6, %rd7;
	st.global.f32 [%rd9], %f3;
DONE:
	ret;
"""
VADD_PARAMS = (".param .u64 px", ".param .u64 py", ".param .u64 pout", ".param .u32 n")


def _vadd(n: int, grid: int, launched_n: int | None = None) -> tuple[np.ndarray, ...]:
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 2.5, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    run(VADD, [x, y, out, launched_n or n], params=VADD_PARAMS, grid=grid, block=256)
    return x, y, out


def test_vector_add_matches_numpy_and_leaves_the_tail_alone() -> None:
    x, y, out = _vadd(1000, 4)
    np.testing.assert_array_equal(out, x + y)


def test_stats_count_warp_instructions_by_mnemonic() -> None:
    x = np.zeros(64, dtype=np.float32)
    stats = run(VADD, [x, x.copy(), x.copy(), 64], params=VADD_PARAMS, grid=1, block=64)
    # Two warps run every instruction of the body once.
    assert stats.by_mnemonic["ld.global.f32"] == 4
    assert stats.by_mnemonic["st.global.f32"] == 2
    assert stats.warp_instructions == sum(stats.by_mnemonic.values())
    assert stats.ctas == 1


def test_out_of_bounds_names_the_instruction_thread_and_address() -> None:
    with pytest.raises(OutOfBounds) as info:
        _vadd(1000, 5, launched_n=1100)
    err = info.value
    assert err.space == "global"
    assert err.instruction == "ld.global.f32 %f1, [%rd8];"
    assert err.cta == (3, 0, 0) and err.tid == (232, 0, 0)
    assert "right after the end of argument 0 (px)" in str(err)
    assert f"PTX line {err.line}" in str(err)


def test_misaligned_access() -> None:
    body = """
	.reg .b64 %rd<3>;
	.reg .b32 %r<2>;
	ld.param.u64 %rd1, [out];
	add.s64 %rd2, %rd1, 2;
	ld.global.u32 %r1, [%rd2];
	ret;
"""
    with pytest.raises(Misaligned) as info:
        run(body, [np.zeros(4, dtype=np.uint32)])
    assert info.value.space == "global"


def test_uninitialized_register_read() -> None:
    body = """
	.reg .b64 %rd<3>;
	.reg .b32 %r<3>;
	ld.param.u64 %rd1, [out];
	add.s32 %r2, %r1, 1;
	st.global.u32 [%rd1], %r2;
	ret;
"""
    with pytest.raises(UninitializedRead, match="register %r1"):
        run(body, [np.zeros(4, dtype=np.uint32)])


def test_divergent_branches_reconverge_and_write_every_lane() -> None:
    body = """
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 10;
	@%p1 bra SMALL;
	mov.u32 %r2, 200;
	bra JOIN;
SMALL:
	mov.u32 %r2, 100;
JOIN:
	add.s32 %r3, %r2, %r1;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
"""
    out = np.zeros(32, dtype=np.uint32)
    stats = run(body, [out])
    tid = np.arange(32)
    np.testing.assert_array_equal(out, np.where(tid < 10, 100, 200) + tid)
    # After the join one group runs the tail: one warp instruction each.
    assert stats.by_mnemonic["st.global.u32"] == 1


def test_loop_counts_and_exits() -> None:
    body = """
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, 0;
	mov.u32 %r3, 0;
LOOP:
	setp.ge.u32 %p1, %r3, %r1;
	@%p1 bra END;
	add.s32 %r2, %r2, %r3;
	add.s32 %r3, %r3, 1;
	bra LOOP;
END:
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
"""
    out = np.zeros(64, dtype=np.uint32)
    run(body, [out], block=64)
    t = np.arange(64)
    np.testing.assert_array_equal(out, t * (t - 1) // 2)


BARRIER = """
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b8 buf[512];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, buf;
	add.s32 %r4, %r3, %r2;
	st.shared.u32 [%r4], %r1;
	bar.sync 0;
	xor.b32 %r5, %r2, 4;
	add.s32 %r5, %r3, %r5;
	ld.shared.u32 %r5, [%r5];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r5;
	ret;
"""


@pytest.mark.parametrize("grid", [1, 3])
def test_shared_memory_and_barrier(grid: int) -> None:
    out = np.zeros(128 * grid, dtype=np.uint32)
    run(BARRIER, [out], block=128, grid=grid)
    # Every CTA writes only its own output slots: same pattern per CTA (neighbour swap).
    t = np.arange(128)
    np.testing.assert_array_equal(out[:128], t ^ 1)


def test_barrier_waits_for_a_warp_that_arrives_late() -> None:
    # Warp 0 spins through a loop before the barrier; warp 1 arrives first and must wait.
    body = BARRIER.replace(
        "	bar.sync 0;",
        """	setp.ge.u32 %p1, %r1, 32;
	@%p1 bra WAIT;
	mov.u32 %r5, 0;
SPIN:
	add.s32 %r5, %r5, 1;
	setp.lt.u32 %p1, %r5, 50;
	@%p1 bra SPIN;
WAIT:
	bar.sync 0;""",
    )
    out = np.zeros(64, dtype=np.uint32)
    run(body, [out], block=64)
    np.testing.assert_array_equal(out, np.arange(64) ^ 1)


def test_barrier_with_a_missing_warp_is_a_deadlock() -> None:
    body = BARRIER.replace(
        "	bar.sync 0;",
        """	setp.ge.u32 %p1, %r1, 32;
	@%p1 bra SKIP;
	bar.sync 0;
SKIP:""",
    ).replace("	ret;", "	bar.sync 1;\n	ret;")
    with pytest.raises(Deadlock) as info:
        run(body, [np.zeros(64, dtype=np.uint32)], block=64)
    assert any("barrier" in line for line in info.value.waiting)


def test_early_exit_does_not_hang_the_barrier() -> None:
    body = BARRIER.replace(
        "	bar.sync 0;",
        """	setp.ge.u32 %p1, %r1, 96;
	@%p1 exit;
	bar.sync 0;""",
    )
    out = np.zeros(128, dtype=np.uint32)
    run(body, [out], block=128)
    np.testing.assert_array_equal(out[:96], (np.arange(96) ^ 1))
    assert (out[96:] == 0).all()


def test_call_passes_parameters_and_returns_values() -> None:
    prelude = """.func (.param .b32 r) twice_plus(.param .b32 a, .param .b32 b)
{
	.reg .b32 %r<4>;
	ld.param.b32 %r1, [a];
	ld.param.b32 %r2, [b];
	add.s32 %r3, %r1, %r1;
	add.s32 %r3, %r3, %r2;
	st.param.b32 [r], %r3;
	ret;
}

"""
    body = """
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	{
	.param .b32 p0;
	.param .b32 p1;
	.param .b32 ret0;
	st.param.b32 [p0], %r1;
	st.param.b32 [p1], 7;
	call.uni (ret0), twice_plus, (p0, p1);
	ld.param.b32 %r2, [ret0];
	}
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
"""
    out = np.zeros(32, dtype=np.uint32)
    run(body, [out], prelude=prelude)
    np.testing.assert_array_equal(out, 2 * np.arange(32) + 7)


def test_special_registers_over_a_3d_grid() -> None:
    body = """
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ctaid.y;
	mov.u32 %r5, %ntid.x;
	mov.u32 %r6, %nctaid.x;
	mad.lo.s32 %r7, %r2, %r5, %r1;
	mad.lo.s32 %r8, %r4, %r6, %r3;
	mov.u32 %r9, %ntid.y;
	mul.lo.s32 %r10, %r5, %r9;
	mad.lo.s32 %r11, %r8, %r10, %r7;
	mul.wide.u32 %rd2, %r11, 4;
	add.s64 %rd3, %rd1, %rd2;
	mov.u32 %r1, %laneid;
	st.global.u32 [%rd3], %r11;
	ret;
"""
    out = np.zeros(2 * 3 * 8 * 4, dtype=np.uint32)
    run(body, [out], grid=(2, 3), block=(8, 4))
    np.testing.assert_array_equal(out, np.arange(out.size))


def test_launch_errors_are_clear() -> None:
    ptx = module(VADD, params=VADD_PARAMS)
    x = np.zeros(8, dtype=np.float32)
    with pytest.raises(LaunchError, match="takes 4 parameters"):
        launch(ptx, grid=1, block=32, args=[x, x])
    with pytest.raises(LaunchError, match="at most 1024 threads"):
        launch(ptx, grid=1, block=(64, 32), args=[x, x, x, 8])
    with pytest.raises(LaunchError, match=r"no \.entry named"):
        launch(ptx, "nope", grid=1, block=32, args=[x, x, x, 8])
    with pytest.raises(LaunchError, match="C-contiguous"):
        launch(ptx, grid=1, block=32, args=[x[::2], x, x, 8])
    with pytest.raises(LaunchError, match="does not fit"):
        launch(ptx, grid=1, block=32, args=[x, x, x, 1 << 40])
    with pytest.raises(LaunchError, match="cluster"):
        launch(ptx, grid=3, block=32, cluster=2, args=[x, x, x, 8])


def test_a_byte_array_parameter_can_hold_array_addresses() -> None:
    # CuTe DSL passes a tensor with a static layout as .b8 [8] holding its address; a tuple
    # of arrays fills such a parameter with their addresses, 8 bytes each.
    body = """
	.reg .b32 %r<2>;
	.reg .b64 %rd<4>;
	ld.param.b64 %rd1, [t];
	ld.param.b64 %rd2, [t+8];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd1, %rd1, %rd3;
	add.s64 %rd2, %rd2, %rd3;
	st.global.u32 [%rd1], %r1;
	st.global.u32 [%rd2], 7;
	ret;
"""
    a, b = np.zeros(32, np.uint32), np.zeros(32, np.uint32)
    params = (".param .align 8 .b8 t[16]",)
    run(body, [(a, b)], params=params)
    np.testing.assert_array_equal(a, np.arange(32))
    np.testing.assert_array_equal(b, 7)
    with pytest.raises(LaunchError, match="tuple of 1 arrays fill 8"):
        run(body, [(a,)], params=params)
    with pytest.raises(LaunchError, match="a tuple of numpy arrays"):
        run(body, [[a, b]], params=params)


def test_unknown_instruction_fails_only_when_it_runs() -> None:
    body = """
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	setp.gt.u32 %p1, %r1, 100;
	@%p1 bra NEVER;
	ret;
NEVER:
	frobnicate.b32 %r2, %r1;
	ret;
"""
    run(body, [np.zeros(1, dtype=np.uint32)])
    with pytest.raises(NotEmulated, match="frobnicate"):
        run(body.replace("100", "0"), [np.zeros(1, dtype=np.uint32)])


def test_race_checker_finds_a_missing_barrier() -> None:
    racy = BARRIER.replace("	bar.sync 0;", "")
    out = np.zeros(64, dtype=np.uint32)
    with pytest.raises(DataRace) as info:
        run(racy, [out], block=64, check_races=True)
    err = info.value
    assert err.space == "shared"
    assert "wrote it at PTX line" in str(err)
    # Without the checker the racy kernel runs (a GPU would not complain either).
    run(racy, [out], block=64)


def test_race_checker_accepts_the_barrier() -> None:
    out = np.zeros(128, dtype=np.uint32)
    run(BARRIER, [out], block=128, grid=2, check_races=True)
    np.testing.assert_array_equal(out[:128], np.arange(128) ^ 1)
