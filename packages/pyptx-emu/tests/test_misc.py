"""setmaxnreg, griddepcontrol, clusterlaunchcontrol and the alloca stack."""

from __future__ import annotations

import numpy as np
import pytest
from emu_testing import find_ptxas, module, ptxas_accepts, run

from pyptx.emu import Deadlock, EmuError, NotEmulated, OutOfBounds

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")

# --------------------------------------------------------------------------- setmaxnreg

SETMAXNREG = """
	.reg .pred %p<3>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.ne.u32 %p1, %r2, 1;
	@%p1 bra ARRIVE;
	mov.u32 %r3, 0;
SPIN:
	add.s32 %r3, %r3, 1;
	setp.lt.u32 %p2, %r3, 30;
	@%p2 bra SPIN;
ARRIVE:
	setp.lt.u32 %p1, %r1, 128;
	@%p1 bra PRODUCER;
	setmaxnreg.inc.sync.aligned.u32 232;
	mov.u32 %r4, 2;
	bra STORE;
PRODUCER:
	setmaxnreg.dec.sync.aligned.u32 40;
	mov.u32 %r4, 1;
STORE:
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r4;
	ret;
"""


def test_setmaxnreg_waits_for_its_warpgroup_and_changes_nothing() -> None:
    out = np.zeros(256, dtype=np.uint32)
    stats = run(SETMAXNREG, [out], block=256)
    np.testing.assert_array_equal(out, np.where(np.arange(256) < 128, 1, 2))
    # Each warp executes each setmaxnreg once: the late warp 1 joined warps 0, 2 and 3.
    assert stats.by_mnemonic["setmaxnreg.dec.sync.aligned.u32"] == 4
    assert stats.by_mnemonic["setmaxnreg.inc.sync.aligned.u32"] == 4


def test_setmaxnreg_with_a_warp_elsewhere_is_a_deadlock() -> None:
    # Warp 3 runs the other setmaxnreg: warpgroup 0 never gathers at either.
    body = SETMAXNREG.replace("setp.lt.u32 %p1, %r1, 128;", "setp.lt.u32 %p1, %r1, 96;")
    with pytest.raises(Deadlock) as info:
        run(body, [np.zeros(256, dtype=np.uint32)], block=256)
    assert any("warpgroup" in line for line in info.value.waiting)


def test_setmaxnreg_needs_a_valid_register_count() -> None:
    body = SETMAXNREG.replace("u32 40;", "u32 20;")
    with pytest.raises(NotEmulated, match=r"multiple of 8 in 24\.\.256, got 20"):
        run(body, [np.zeros(256, dtype=np.uint32)], block=256)


def test_griddepcontrol_is_a_no_op() -> None:
    body = """
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	griddepcontrol.wait;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	griddepcontrol.launch_dependents;
	ret;
"""
    out = np.zeros(64, dtype=np.uint32)
    run(body, [out], block=64)
    np.testing.assert_array_equal(out, np.arange(64))


# --------------------------------------------------------------------------- clusterlaunchcontrol

CLC = """
	.reg .pred %p<4>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;
	.reg .b128 %q<2>;
	.shared .align 16 .b8 response[16];
	.shared .align 8 .b64 bar;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	@!%p1 bra {skip};
	mbarrier.init.shared::cta.b64 [bar], 1;
{gather}
	mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [bar], 16;
	{issue}
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
	@!%p2 bra WAIT;
	ld.shared.b128 %q1, [response];
	clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q1;
	selp.u32 %r2, 1, 0, %p3;
	clusterlaunchcontrol.query_cancel.get_first_ctaid::y.b32.b128 %r3, %q1;
	clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {{%r4, %r5, %r6, _}}, %q1;
	mov.u32 %r7, %ctaid.x;
	mov.u32 %r8, %ntid.x;
	mad.lo.s32 %r9, %r7, %r8, %r1;
	mul.wide.u32 %rd3, %r9, 16;
	add.s64 %rd4, %rd1, %rd3;
	st.global.v4.u32 [%rd4], {{%r2, %r3, %r4, %r5}};
	ret;
"""
LOCAL = "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128"
ISSUE_LOCAL = f"{LOCAL} [response], [bar];"
MULTICAST = LOCAL.replace(".b128", ".multicast::cluster::all.b128")


LOCAL_CLC = CLC.format(skip="WAIT", gather="", issue=ISSUE_LOCAL)
# Every CTA's thread 0 inits its mbarrier; after a cluster barrier, rank 0 issues the request
# for the whole cluster while each CTA arms its own mbarrier for the 16-byte response.
MULTICAST_CLC = CLC.format(
    skip="INIT",
    gather="INIT:\n\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n\t@!%p1 bra WAIT;",
    issue=(
        "mov.u32 %r10, %cluster_ctarank;\n\tsetp.eq.u32 %p3, %r10, 0;\n"
        f"\t@%p3 {MULTICAST} [response], [bar];"
    ),
)


def test_try_cancel_never_cancels() -> None:
    out = np.zeros((2 * 64, 4), dtype=np.uint32)
    run(LOCAL_CLC, [out], grid=2, block=64, target="sm_100a")
    np.testing.assert_array_equal(out[:, 0], 0)  # not cancelled
    np.testing.assert_array_equal(out[:, 1:], 0xFFFF_FFFF)  # no ctaid


def test_multicast_try_cancel_answers_every_cta_of_the_cluster() -> None:
    out = np.zeros((4 * 32, 4), dtype=np.uint32)
    run(MULTICAST_CLC, [out], grid=4, block=32, cluster=2, target="sm_100a")
    np.testing.assert_array_equal(out[:, 0], 0)
    np.testing.assert_array_equal(out[:, 1:], 0xFFFF_FFFF)


def test_querying_a_response_try_cancel_did_not_write_is_an_error() -> None:
    # No try_cancel: the mbarrier completes on the arrival alone, the response is zeros.
    body = (
        CLC.format(skip="WAIT", gather="", issue="")
        .replace(", [bar], 16;", ", [bar], 0;")
        .replace("arrive.expect_tx", "arrive")
        .replace("%rd2, [bar], 0;", "%rd2, [bar];")
    )
    with pytest.raises(EmuError, match=r"not written by clusterlaunchcontrol\.try_cancel"):
        run(body, [np.zeros((32, 4), dtype=np.uint32)], target="sm_100a")


@needs_ptxas
def test_clusterlaunchcontrol_kernels_assemble() -> None:
    for body in (LOCAL_CLC, MULTICAST_CLC):
        ok, err = ptxas_accepts(module(body, target="sm_100a"), "sm_100a")
        assert ok, err


@needs_ptxas
def test_setmaxnreg_and_griddepcontrol_assemble() -> None:
    ok, err = ptxas_accepts(module(SETMAXNREG), "sm_90a")
    assert ok, err


# --------------------------------------------------------------------------- alloca

ALLOCA = """
	.reg .b32 %r<8>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	stacksave.u64 %rd2;
	alloca.u64 %rd3, 24, 16;
	alloca.u64 %rd4, %rd9, 64;
	st.local.u32 [%rd3], %r1;
	add.s32 %r2, %r1, 1000;
	st.local.u32 [%rd4+4], %r2;
	ld.local.u32 %r3, [%rd3];
	ld.local.u32 %r4, [%rd4+4];
	stackrestore.u64 %rd2;
	alloca.u64 %rd5, 24, 16;
	stacksave.u64 %rd6;
	mul.wide.u32 %rd7, %r1, 48;
	add.s64 %rd8, %rd1, %rd7;
	st.global.v2.u32 [%rd8], {%r3, %r4};
	st.global.u64 [%rd8+8], %rd2;
	st.global.u64 [%rd8+16], %rd3;
	st.global.u64 [%rd8+24], %rd4;
	st.global.u64 [%rd8+32], %rd5;
	st.global.u64 [%rd8+40], %rd6;
	ret;
"""


def test_alloca_carves_aligned_blocks_off_a_downward_stack() -> None:
    out = np.zeros((64, 6), dtype=np.uint64)
    body = ALLOCA.replace("%rd9, 64;", "%rd9, 64;").replace(
        "stacksave.u64 %rd2;", "mov.u64 %rd9, 40;\n\tstacksave.u64 %rd2;"
    )
    run(body, [out], block=64)
    words = np.ascontiguousarray(out[:, 0]).view(np.uint32).reshape(64, 2)
    np.testing.assert_array_equal(words[:, 0], np.arange(64))
    np.testing.assert_array_equal(words[:, 1], np.arange(64) + 1000)
    top, first, second, again, saved = (out[:, k] for k in (1, 2, 3, 4, 5))
    assert (first == top - 32).all()  # 24 bytes at 16-byte alignment
    assert (first % 16 == 0).all() and (second % 64 == 0).all()
    assert (second + 40 <= first).all() and (second >= first - 40 - 63).all()
    np.testing.assert_array_equal(again, first)  # stackrestore freed both
    np.testing.assert_array_equal(saved, again)  # the stack pointer is the last block


def test_alloca_overflow_is_reported() -> None:
    body = ALLOCA.replace("stacksave.u64 %rd2;", "mov.u64 %rd9, 4096;\n\tstacksave.u64 %rd2;")
    with pytest.raises(OutOfBounds, match="overflows the 1024-byte stack"):
        run(body, [np.zeros((32, 6), dtype=np.uint64)])


def test_alloca_in_a_called_function_is_not_emulated() -> None:
    prelude = """.func grab()
{
	.reg .b64 %rd<2>;
	alloca.u64 %rd1, 16;
	ret;
}

"""
    body = "\tcall grab, ();\n\tret;\n"
    with pytest.raises(NotEmulated, match="alloca in a called function"):
        run(body, [np.zeros(1, dtype=np.uint64)], prelude=prelude)


@needs_ptxas
def test_alloca_kernel_assembles() -> None:
    body = ALLOCA.replace("stacksave.u64 %rd2;", "mov.u64 %rd9, 40;\n\tstacksave.u64 %rd2;")
    ok, err = ptxas_accepts(module(body), "sm_90a")
    assert ok, err
