"""Per-family cases for the ISA table: valid instructions at their minimum, invalid ones.

The valid cases were assembled with ptxas 13.5 at exactly the target and PTX version listed
(the lowest the table claims), and ptxas rejected each invalid case for the reason the
expected diagnostic code names. Register names give declared types (see test_isa_helpers).

Left out on purpose: the few places where ptxas is stricter than one gate per modifier can
say (fp8 conversions on sm_89 need PTX 8.1 although sm_90 takes them from 7.8;
.tile::gather4 and .im2col::w into .shared::cluster are architecture-specific while into
.shared::cta they are not; cp.async's ignore-src needs PTX 7.5, which requirements() sees
only with reg_type or a negated predicate).
"""

from __future__ import annotations

import pytest
from test_isa_helpers import at_minimum, codes, insn, need, reg_type, run

from pyptx.ir import TARGETS
from pyptx.ir.isa import DiagnosticCode, check

VALID: tuple[tuple[str, str], ...] = (
    # integer arithmetic
    ("add.u16x2 %r1, %r2, %r3;", "sm_90 8.0"),
    ("add.sat.s32 %r1, %r2, %r3;", "sm_50 4.0"),
    ("add.rn.f32x2 %rd1, %rd2, %rd3;", "sm_100 8.6"),
    ("add.rn.bf16 %rs1, %rs2, %rs3;", "sm_90 7.8"),
    ("add.rn.bf16x2 %r1, %r2, %r3;", "sm_90 7.8"),
    ("add.ftz.f16 %rs1, %rs2, %rs3;", "sm_53 4.2"),
    ("add.rn.sat.f32.f16 %f1, %rs1, %f2;", "sm_100 8.6"),
    ("add.rn.f32.bf16 %f1, %rs1, %f2;", "sm_100 8.6"),
    ("sub.rn.sat.f32.bf16 %f1, %rs1, %f2;", "sm_100 8.6"),
    ("mul.hi.u64 %rd1, %rd2, %rd3;", "sm_50 4.0"),
    ("mul.wide.s16 %r1, %rs1, %rs2;", "sm_50 4.0"),
    ("mul.rn.bf16 %rs1, %rs2, %rs3;", "sm_90 7.8"),
    ("mul.ftz.f16x2 %r1, %r2, %r3;", "sm_53 4.2"),
    ("mad.hi.sat.s32 %r1, %r2, %r3, %r4;", "sm_50 4.0"),
    ("mad.lo.cc.u32 %r1, %r2, %r3, %r4;", "sm_20 3.0"),
    ("mad.rn.f64 %fd1, %fd2, %fd3, %fd4;", "sm_50 4.0"),
    ("mad.rn.ftz.sat.f32 %f1, %f2, %f3, %f4;", "sm_50 4.0"),
    ("mad24.hi.sat.s32 %r1, %r2, %r3, %r4;", "sm_50 4.0"),
    ("div.full.ftz.f32 %f1, %f2, %f3;", "sm_50 4.0"),
    ("div.approx.f32 %f1, %f2, %f3;", "sm_50 4.0"),
    ("div.rz.ftz.f32 %f1, %f2, %f3;", "sm_50 4.0"),
    ("abs.bf16 %rs1, %rs2;", "sm_80 7.0"),
    ("abs.ftz.f16x2 %r1, %r2;", "sm_53 6.5"),
    ("neg.bf16x2 %r1, %r2;", "sm_80 7.0"),
    ("min.u16x2 %r1, %r2, %r3;", "sm_90 8.0"),
    ("min.relu.s32 %r1, %r2, %r3;", "sm_90 8.0"),
    ("min.relu.s16x2 %r1, %r2, %r3;", "sm_90 8.0"),
    ("min.NaN.f32 %f1, %f2, %f3;", "sm_80 7.0"),
    ("min.xorsign.abs.f32 %f1, %f2, %f3;", "sm_86 7.2"),
    ("min.f32 %f1, %f2, %f3, %f4;", "sm_100 8.8"),
    ("min.ftz.NaN.f16x2 %r1, %r2, %r3;", "sm_80 7.0"),
    ("max.NaN.bf16 %rs1, %rs2, %rs3;", "sm_80 7.0"),
    ("max.xorsign.abs.bf16x2 %r1, %r2, %r3;", "sm_86 7.2"),
    ("popc.b32 %r1, %r2;", "sm_20 2.0"),
    ("clz.b64 %r1, %rd1;", "sm_20 2.0"),
    ("bfind.shiftamt.u64 %r1, %rd1;", "sm_20 2.0"),
    ("fns.b32 %r1, %r2, %r3, %r4;", "sm_30 6.0"),
    ("brev.b64 %rd1, %rd2;", "sm_20 2.0"),
    ("bfe.s64 %rd1, %rd2, %r1, %r2;", "sm_20 2.0"),
    ("bfi.b64 %rd1, %rd2, %rd3, %r1, %r2;", "sm_20 2.0"),
    ("szext.clamp.u32 %r1, %r2, %r3;", "sm_70 7.6"),
    ("bmsk.wrap.b32 %r1, %r2, %r3;", "sm_70 7.6"),
    ("dp4a.s32.u32 %r1, %r2, %r3, %r4;", "sm_61 5.0"),
    ("dp2a.hi.s32.s32 %r1, %r2, %r3, %r4;", "sm_61 5.0"),
    ("div.u64 %rd1, %rd2, %rd3;", "sm_50 4.0"),
    ("rem.s64 %rd1, %rd2, 7;", "sm_50 4.0"),
    ("mul.lo.u16 %rs1, %rs2, %rs3;", "sm_50 4.0"),
    ("mul.hi.s16 %rs1, %rs2, %rs3;", "sm_50 4.0"),
    ("mul24.hi.s32 %r1, %r2, %r3;", "sm_50 4.0"),
    ("mad.wide.u16 %r1, %rs1, %rs2, %r2;", "sm_50 4.0"),
    ("sad.s64 %rd1, %rd2, %rd3, %rd4;", "sm_50 4.0"),
    ("abs.s16 %rs1, %rs2;", "sm_50 4.0"),
    ("neg.s64 %rd1, %rd2;", "sm_50 4.0"),
    ("min.s16 %rs1, %rs2, %rs3;", "sm_50 4.0"),
    ("max.relu.s16x2 %r1, %r2, %r3;", "sm_90 8.0"),
    ("max.ftz.NaN.f32 %f1, %f2, %f3;", "sm_80 7.0"),
    ("max.NaN.abs.f32 %f1, %f2, %f3, %f4;", "sm_100 8.8"),
    ("bfind.s32 %r1, %r2;", "sm_20 2.0"),
    ("brev.b32 %r1, %r2;", "sm_20 2.0"),
    ("bfi.b32 %r1, %r2, %r3, %r4, %r5;", "sm_20 2.0"),
    ("sub.sat.s32 %r1, %r2, %r3;", "sm_50 4.0"),
    ("sub.rn.ftz.sat.f32 %f1, %f2, %f3;", "sm_50 4.0"),
    ("add.rz.ftz.f32 %f1, %f2, %f3;", "sm_50 4.0"),
    # extended-precision arithmetic
    ("add.cc.u64 %rd1, %rd2, %rd3;", "sm_20 4.3"),
    ("addc.cc.s64 %rd1, %rd2, %rd3;", "sm_20 4.3"),
    ("sub.cc.s32 %r1, %r2, %r3;", "sm_10 1.2"),
    ("subc.cc.u64 %rd1, %rd2, %rd3;", "sm_20 4.3"),
    ("madc.lo.cc.u64 %rd1, %rd2, %rd3, %rd4;", "sm_20 4.3"),
    ("add.cc.u32 %r1, %r2, 1;", "sm_10 1.2"),
    ("madc.hi.u32 %r1, %r2, %r3, %r4;", "sm_20 3.0"),
    # floating point
    ("fma.rn.ftz.sat.f32 %f1, %f2, %f3, %f4;", "sm_20 2.0"),
    ("fma.rz.f64 %fd1, %fd2, %fd3, %fd4;", "sm_20 2.0"),
    ("fma.rn.f32x2 %rd1, %rd2, %rd3, %rd4;", "sm_100 8.6"),
    ("fma.rn.ftz.relu.f16 %rs1, %rs2, %rs3, %rs4;", "sm_80 7.0"),
    ("fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4;", "sm_80 7.0"),
    ("fma.rn.bf16 %rs1, %rs2, %rs3, %rs4;", "sm_80 7.0"),
    ("fma.rn.oob.relu.bf16 %rs1, %rs2, %rs3, %rs4;", "sm_90 8.1"),
    ("fma.rn.oob.f16x2 %r1, %r2, %r3, %r4;", "sm_90 8.1"),
    ("fma.rn.sat.f32.f16 %f1, %rs1, %rs2, %f2;", "sm_100 8.6"),
    ("fma.rn.f32.bf16 %f1, %rs1, %rs2, %f2;", "sm_100 8.6"),
    ("rcp.approx.ftz.f32 %f1, %f2;", "sm_50 4.0"),
    ("rcp.rz.f64 %fd1, %fd2;", "sm_50 4.0"),
    ("sqrt.approx.ftz.f32 %f1, %f2;", "sm_50 4.0"),
    ("sqrt.rm.f64 %fd1, %fd2;", "sm_50 4.0"),
    ("rsqrt.approx.ftz.f64 %fd1, %fd2;", "sm_50 4.0"),
    ("rsqrt.approx.f64 %fd1, %fd2;", "sm_50 4.0"),
    ("ex2.approx.f16 %rs1, %rs2;", "sm_75 7.0"),
    ("ex2.approx.f16x2 %r1, %r2;", "sm_75 7.0"),
    ("ex2.approx.ftz.bf16 %rs1, %rs2;", "sm_90 7.8"),
    ("ex2.approx.ftz.bf16x2 %r1, %r2;", "sm_90 7.8"),
    ("tanh.approx.f16x2 %r1, %r2;", "sm_75 7.0"),
    ("tanh.approx.bf16 %rs1, %rs2;", "sm_90 7.8"),
    ("copysign.f64 %fd1, %fd2, %fd3;", "sm_20 2.0"),
    ("testp.subnormal.f64 %p1, %fd1;", "sm_20 2.0"),
    ("fma.rn.f16 %rs1, %rs2, %rs3, %rs4;", "sm_53 4.2"),
    ("fma.rm.ftz.f32 %f1, %f2, %f3, %f4;", "sm_20 2.0"),
    ("ex2.approx.f32 %f1, %f2;", "sm_50 4.0"),
    ("lg2.approx.ftz.f32 %f1, %f2;", "sm_50 4.0"),
    ("sin.approx.ftz.f32 %f1, %f2;", "sm_50 4.0"),
    ("rsqrt.approx.f32 %f1, %f2;", "sm_50 4.0"),
    ("testp.finite.f32 %p1, %f1;", "sm_20 2.0"),
    # comparison and selection
    ("setp.lt.ftz.f32 %p1, %f1, %f2;", "sm_50 4.0"),
    ("setp.ne.or.s64 %p1, %rd1, %rd2, %p2;", "sm_50 4.0"),
    ("setp.eq.f16x2 %p1|%p2, %r1, %r2;", "sm_53 4.2"),
    ("setp.lt.bf16 %p1, %rs1, %rs2;", "sm_90 7.8"),
    ("setp.gtu.bf16x2 %p1|%p2, %r1, %r2;", "sm_90 7.8"),
    ("set.eq.u32.f32 %r1, %f1, %f2;", "sm_50 4.0"),
    ("set.lt.and.f32.s32 %f1, %r1, %r2, %p1;", "sm_50 4.0"),
    ("set.lt.f16.f16 %rs1, %rs2, %rs3;", "sm_53 4.2"),
    ("set.lt.bf16x2.bf16x2 %r1, %r2, %r3;", "sm_90 7.8"),
    ("selp.f64 %fd1, %fd2, %fd3, %p1;", "sm_50 4.0"),
    ("slct.f32.s32 %f1, %f2, %f3, %r1;", "sm_50 4.0"),
    ("slct.ftz.u32.f32 %r1, %r2, %r3, %f1;", "sm_50 4.0"),
    ("setp.ne.and.b32 %p1|%p2, %r1, %r2, !%p3;", "sm_50 4.0"),
    ("setp.num.f64 %p1, %fd1, %fd2;", "sm_50 4.0"),
    ("setp.hs.u64 %p1, %rd1, 16;", "sm_50 4.0"),
    ("selp.s32 %r1, -1, 0, %p1;", "sm_50 4.0"),
    ("slct.s32.s32 %r1, %r2, %r3, %r4;", "sm_50 4.0"),
    ("setp.lt.f16 %p1, %rs1, %rs2;", "sm_53 4.2"),
    ("set.gt.ftz.f32.f32 %f1, %f2, %f3;", "sm_50 4.0"),
    # logic and shift
    ("and.b16 %rs1, %rs2, %rs3;", "sm_50 4.0"),
    ("not.b64 %rd1, %rd2;", "sm_50 4.0"),
    ("cnot.b16 %rs1, %rs2;", "sm_50 4.0"),
    ("lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0xfe, %p2;", "sm_70 8.2"),
    ("shf.r.clamp.b32 %r1, %r2, %r3, %r4;", "sm_32 4.0"),
    ("shl.b16 %rs1, %rs2, 3;", "sm_50 4.0"),
    ("shr.s64 %rd1, %rd2, 3;", "sm_50 4.0"),
    ("and.pred %p1, %p2, %p3;", "sm_50 4.0"),
    ("xor.pred %p1, %p2, %p3;", "sm_50 4.0"),
    ("not.pred %p1, %p2;", "sm_50 4.0"),
    ("or.b16 %rs1, %rs2, 255;", "sm_50 4.0"),
    ("shf.l.clamp.b32 %r1, %r2, %r3, %r4;", "sm_32 4.0"),
    ("lop3.b32 %r1, %r2, %r3, %r4, 0x80;", "sm_50 4.3"),
    # data movement and conversion
    ("mov.b128 %q1, %q2;", "sm_70 8.3"),
    ("mov.b64 {%r1, %r2}, %rd1;", "sm_50 4.0"),
    ("mov.b32 %r1, {%rs1, %rs2};", "sm_50 4.0"),
    ("mov.pred %p1, 1;", "sm_50 4.0"),
    ("mov.f64 %fd1, 0d3FF0000000000000;", "sm_50 4.0"),
    ("mov.u64 %rd1, gmem;", "sm_50 4.0"),
    ("shfl.sync.idx.b32 %r1, %r2, %r3, 31, %r4;", "sm_30 6.0"),
    ("shfl.sync.up.b32 %r1|%p1, %r2, 1, 0, -1;", "sm_30 6.0"),
    ("prmt.b32.f4e %r1, %r2, %r3, %r4;", "sm_20 2.0"),
    ("cvt.rn.f16.f32 %rs1, %f1;", "sm_50 4.0"),
    ("cvt.rzi.s32.f32 %r1, %f1;", "sm_50 4.0"),
    ("cvt.rni.f32.f32 %f1, %f1;", "sm_50 4.0"),
    ("cvt.sat.f32.f32 %f1, %f2;", "sm_50 4.0"),
    ("cvt.u8.u32 %rs1, %r1;", "sm_50 4.0"),
    ("cvt.s64.s8 %rd1, %rs1;", "sm_50 4.0"),
    ("cvt.rn.bf16.f32 %rs1, %f1;", "sm_80 7.0"),
    ("cvt.f32.bf16 %f1, %rs1;", "sm_80 7.1"),
    ("cvt.rn.relu.bf16.f32 %rs1, %f1;", "sm_80 7.0"),
    ("cvt.rn.satfinite.f16.f32 %rs1, %f1;", "sm_70 8.1"),
    ("cvt.rna.tf32.f32 %r1, %f1;", "sm_80 7.0"),
    ("cvt.rn.satfinite.tf32.f32 %r1, %f1;", "sm_100 8.6"),
    ("cvt.rz.relu.satfinite.tf32.f32 %r1, %f1;", "sm_100 8.6"),
    ("cvt.rz.bf16x2.f32 %r1, %f1, %f2;", "sm_80 7.0"),
    ("cvt.rn.relu.f16x2.f32 %r1, %f1, %f2;", "sm_80 7.0"),
    ("cvt.rn.satfinite.e2m1x2.f32 %rb1, %f1, %f2;", "sm_100a 8.6"),
    ("cvt.rn.satfinite.e3m2x2.f32 %rs1, %f1, %f2;", "sm_100a 8.6"),
    ("cvt.rn.f16x2.e2m1x2 %r1, %rb1;", "sm_100a 8.6"),
    ("cvt.rn.f16x2.e2m3x2 %r1, %rs1;", "sm_100a 8.6"),
    ("cvt.rz.satfinite.ue8m0x2.f32 %rs1, %f1, %f2;", "sm_100a 8.6"),
    ("cvt.rp.ue8m0x2.bf16x2 %rs1, %r1;", "sm_100a 8.6"),
    ("cvt.rn.bf16x2.ue8m0x2 %r1, %rs1;", "sm_100a 8.6"),
    ("cvt.rs.relu.satfinite.f16x2.f32 %r1, %f1, %f2, %r2;", "sm_100a 8.7"),
    ("cvt.rs.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f3, %f4}, %r2;", "sm_100a 8.7"),
    ("cvt.rn.satfinite.e4m3x2.bf16x2 %rs1, %r1;", "sm_100a 9.1"),
    ("cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r4;", "sm_72 6.5"),
    ("cvt.pack.sat.s16.s32 %r1, %r2, %r3;", "sm_72 6.5"),
    ("ld.global.nc.L1::no_allocate.f32 %f1, [%rd1];", "sm_70 7.4"),
    ("ld.global.L1::evict_last.u32 %r1, [%rd1];", "sm_70 7.4"),
    ("ld.global.L2::256B.b32 %r1, [%rd1];", "sm_80 7.4"),
    ("ld.global.L2::64B.b32 %r1, [%rd1];", "sm_75 7.4"),
    ("ld.global.L2::cache_hint.v2.f32 {%f1, %f2}, [%rd1], %rd2;", "sm_80 7.4"),
    ("ld.relaxed.gpu.global.u32 %r1, [%rd1];", "sm_70 6.0"),
    ("ld.acquire.cluster.global.u32 %r1, [%rd1];", "sm_90 7.8"),
    ("ld.shared::cluster.u32 %r1, [%r2];", "sm_90 7.8"),
    ("ld.shared::cta.u32 %r1, [%r2];", "sm_50 7.8"),
    ("ld.volatile.shared.u32 %r1, [%r2];", "sm_50 4.0"),
    ("ld.weak.global.u32 %r1, [%rd1];", "sm_50 6.0"),
    ("ld.mmio.relaxed.sys.global.u32 %r1, [%rd1];", "sm_70 8.2"),
    ("ld.global.b128 %q1, [%rd1];", "sm_70 8.3"),
    ("ld.global.v4.b64 {%rd1, %rd2, %rd3, %rd4}, [%rd5];", "sm_100 8.8"),
    ("ld.global.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1];", "sm_100 8.8"),
    ("ld.global.v2.f64 {%fd1, %fd2}, [%rd1];", "sm_50 4.0"),
    ("ld.global.cs.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];", "sm_50 4.0"),
    ("ld.param.u64 %rd1, [p0];", "sm_50 4.0"),
    ("ld.param::entry.u64 %rd1, [p0];", "sm_50 8.3"),
    ("ld.global.u8 %r1, [%rd1];", "sm_50 4.0"),
    ("st.global.wt.f32 [%rd1], %f1;", "sm_50 4.0"),
    ("st.release.gpu.global.u32 [%rd1], %r1;", "sm_70 6.0"),
    ("st.global.L1::no_allocate.u32 [%rd1], %r1;", "sm_70 7.4"),
    ("st.global.L2::cache_hint.u32 [%rd1], %r1, %rd2;", "sm_80 7.4"),
    ("st.global.b128 [%rd1], %q1;", "sm_70 8.3"),
    ("st.global.v4.u64 [%rd5], {%rd1, %rd2, %rd3, %rd4};", "sm_100 8.8"),
    ("st.shared::cluster.u32 [%r1], %r2;", "sm_90 7.8"),
    ("st.volatile.global.u32 [%rd1], 0;", "sm_50 4.0"),
    ("ldu.global.v2.f32 {%f1, %f2}, [%rd1];", "sm_20 2.0"),
    (
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.s32 [%r1], {%r2, %r3}, [%r4];",
        "sm_90 8.1",
    ),
    ("st.async.release.gpu.global.u32 [%rd1], %r2;", "sm_100 8.7"),
    ("st.bulk.weak.shared::cta [%r1], %rd1, 0;", "sm_100 8.6"),
    ("multimem.ld_reduce.relaxed.sys.global.add.f32 %f1, [%rd1];", "sm_90 8.1"),
    (
        "multimem.ld_reduce.relaxed.sys.global.add.acc::f32.v2.f16x2 {%r1, %r2}, [%rd1];",
        "sm_90 8.2",
    ),
    ("multimem.st.relaxed.sys.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};", "sm_90 8.1"),
    ("multimem.red.relaxed.sys.global.add.u64 [%rd1], %rd2;", "sm_90 8.1"),
    ("prefetch.local.L1 [%rd1];", "sm_20 2.0"),
    ("prefetch.global.L2::evict_normal [%rd1];", "sm_80 7.4"),
    ("prefetch.param.tensormap [tmap];", "sm_90 8.0"),
    ("prefetch.const.tensormap [%rd1];", "sm_90 8.0"),
    ("prefetchu.L1 [%rd1];", "sm_20 2.0"),
    ("applypriority.global.L2::evict_normal [%rd1], 128;", "sm_80 7.4"),
    ("discard.global.L2 [%rd1], 128;", "sm_80 7.4"),
    ("createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd1, 0.5;", "sm_80 7.4"),
    ("createpolicy.fractional.L2::evict_first.b64 %rd1;", "sm_80 7.4"),
    (
        "createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %rd1, [%rd2], %r1, %r2;",
        "sm_80 7.4",
    ),
    ("createpolicy.cvt.L2.b64 %rd1, %rd2;", "sm_80 7.4"),
    ("cvta.param.u64 %rd1, %rd2;", "sm_70 7.7"),
    ("cvta.shared::cluster.u64 %rd1, %rd2;", "sm_90 7.8"),
    ("cvta.to.shared::cta.u64 %rd1, %rd2;", "sm_20 7.8"),
    ("cvta.global.u64 %rd1, gmem;", "sm_20 2.0"),
    ("cvta.const.u64 %rd1, cmem;", "sm_20 2.0"),
    ("isspacep.shared::cluster %p1, %rd1;", "sm_90 7.8"),
    ("isspacep.param %p1, %rd1;", "sm_70 7.7"),
    ("mapa.u64 %rd1, %rd2, %r1;", "sm_90 7.8"),
    ("getctarank.u64 %r1, %rd1;", "sm_90 7.8"),
    ("cp.async.ca.shared.global [%r1], [%rd1], 4;", "sm_80 7.0"),
    ("cp.async.ca.shared.global [%r1], [%rd1], 8, %r2;", "sm_80 7.0"),
    ("cp.async.cg.shared.global.L2::128B [%r1], [%rd1], 16, %r2;", "sm_80 7.4"),
    ("cp.async.cg.shared.global.L2::cache_hint [%r1], [%rd1], 16, %rd2;", "sm_80 7.4"),
    ("cp.async.wait_all;", "sm_80 7.0"),
    (
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
        "[%r1], [%rd1], 256, [%r2], %rs1;",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%r1], "
        "[%rd1], 256, [%r2], %rd2;",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, [%r2];",
        "sm_90 8.6",
    ),
    (
        "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r1], [%r2], "
        "256, [%r3];",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [%r1], 256, %rd2;",
        "sm_90 8.0",
    ),
    ("cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [%r1], 256, %rs1;", "sm_100 8.6"),
    ("cp.async.bulk.prefetch.L2.global.L2::cache_hint [%rd1], 256, %rd2;", "sm_90 8.0"),
    (
        "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], "
        "[%rd1, {%r2}], [%r3];",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], "
        "[%rd1, {%r2, %r3, %r4, %r5, %r6}], [%r7];",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes "
        "[%r1], [%rd1, {%r2, %r3, %r4}], [%r5], {%rs1};",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes "
        "[%r1], [%rd1, {%r2, %r3, %r4, %r5}], [%r6], {%rs1, %rs2};",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".multicast::cluster "
        "[%r1], [%rd1, {%r2, %r3}], [%r4], %rs1;",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".L2::cache_hint "
        "[%r1], [%rd1, {%r2, %r3}], [%r4], %rd2;",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%r1], "
        "[%rd1, {%r2, %r3}], [%r4];",
        "sm_90 8.6",
    ),
    (
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".cta_group::2 "
        "[%r1], [%rd1, {%r2, %r3}], [%r4];",
        "sm_100a 8.6",
    ),
    (
        "cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {%r2, %r3, "
        "%r4}], [%r1];",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd1, {%r2, %r3, "
        "%r4, %r5, %r6}], [%r1];",
        "sm_100a 8.6",
    ),
    (
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [%rd1, {%r2, %r3}], "
        "[%r1], %rd2;",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col [%rd1, {%r1, %r2, %r3}], {%rs1};",
        "sm_90 8.0",
    ),
    (
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 "
        "[%r1], [%r2], 256, [%r3];",
        "sm_90 8.0",
    ),
    (
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16 [%rd1], [%r1], 256;",
        "sm_90 8.0",
    ),
    (
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.min.s64 [%rd1], [%r1], "
        "256, %rd2;",
        "sm_90 8.0",
    ),
    (
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group [%rd1, {%r1, "
        "%r2}], [%r3];",
        "sm_90 8.0",
    ),
    ("cp.async.bulk.wait_group 0;", "sm_90 8.0"),
    ("tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 1, %r1;", "sm_90a 8.3"),
    ("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%r1], 0, %rd1;", "sm_90a 8.3"),
    ("tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r1], %r2;", "sm_90a 8.3"),
    ("tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%r1], 3;", "sm_90a 8.3"),
    ("tensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [%r1], 1;", "sm_100a 8.6"),
    ("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1, {%r1}], [%r2];", "sm_90 8.0"),
    (
        "cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group.L2::cache_hint [%rd1, {%r1, "
        "%r2, %r3, %r4, %r5}], [%r6], %rd2;",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        ".multicast::cluster.L2::cache_hint "
        "[%r1], [%rd1, {%r2, %r3, %r4, %r5, %r6}], [%r7], {%rs1, %rs2, %rs3}, %rs4, %rd2;",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.tensor.3d.shared::cta.global.im2col::w::128.mbarrier::complete_tx::bytes"
        ".cta_group::1 "
        "[%r1], [%rd1, {%r2, %r3, %r4}], [%r5], {%rs1, %rs2};",
        "sm_100a 8.6",
    ),
    (
        "cp.async.bulk.prefetch.tensor.5d.L2.global.tile.L2::cache_hint [%rd1, {%r1, %r2, %r3, "
        "%r4, %r5}], %rd2;",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [%rd1, {%r1, %r2, %r3, %r4, "
        "%r5}];",
        "sm_100a 8.6",
    ),
    (
        "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col_no_offs.bulk_group [%rd1, "
        "{%r1, %r2, %r3}], [%r4];",
        "sm_90 8.0",
    ),
    (
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%rd1], [%r1], 256;",
        "sm_90 8.0",
    ),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.u64 [%rd1], [%r1], 256;", "sm_90 8.0"),
    (
        "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.inc.u32 "
        "[%r1], [%r2], 256, [%r3];",
        "sm_90 8.0",
    ),
    (
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob [%r1], [%rd1], "
        "256, 0, 0, [%r2];",
        "sm_90 9.2",
    ),
    ("tensormap.replace.tile.element_stride.global.b1024.b32 [%rd1], 2, 1;", "sm_90a 8.3"),
    ("tensormap.replace.tile.elemtype.global.b1024.b32 [%rd1], 4;", "sm_90a 8.3"),
    ("tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%r1], 0;", "sm_90a 8.3"),
    ("tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%r1], 1;", "sm_90a 8.3"),
    ("ld.param.v2.b32 {%r1, %r2}, [p0];", "sm_50 4.0"),
    ("ld.local.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+16];", "sm_50 4.0"),
    ("ld.const.u32 %r1, [cmem+4];", "sm_50 4.0"),
    ("ld.global.nc.v2.u64 {%rd1, %rd2}, [%rd3];", "sm_32 4.0"),
    ("ld.global.lu.v2.b32 {%r1, %r2}, [%rd3];", "sm_50 4.0"),
    ("ld.global.cv.u8 %rs1, [%rd1];", "sm_50 4.0"),
    ("ld.shared.v2.f64 {%fd1, %fd2}, [%r1];", "sm_50 4.0"),
    ("ld.acquire.sys.global.u64 %rd1, [%rd2];", "sm_70 6.0"),
    ("ld.relaxed.cta.shared.u32 %r1, [%r2];", "sm_70 6.0"),
    (
        "ld.global.nc.L1::evict_first.L2::cache_hint.L2::256B.v4.f32 {%f1, %f2, %f3, %f4}, "
        "[%rd1], %rd2;",
        "sm_80 7.4",
    ),
    ("ld.global.L1::evict_unchanged.b16 %rs1, [%rd1];", "sm_70 7.4"),
    ("ld.global.v4.u64 {%rd1, %rd2, %rd3, %rd4}, [%rd5];", "sm_100 8.8"),
    ("st.global.cs.v2.u64 [%rd1], {%rd2, %rd3};", "sm_50 4.0"),
    ("st.relaxed.sys.global.b64 [%rd1], %rd2;", "sm_70 6.0"),
    ("st.shared.b128 [%r1], %q1;", "sm_70 8.3"),
    (
        "st.global.L1::evict_last.v8.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};",
        "sm_100 8.8",
    ),
    ("st.local.v2.s16 [%rd1], {%rs1, %rs2};", "sm_50 4.0"),
    ("mov.b32 %r1, 0f3F800000;", "sm_50 4.0"),
    ("mov.u32 %r1, %laneid;", "sm_10 1.3"),
    ("mov.u64 %rd1, %clock64;", "sm_20 2.0"),
    ("mov.b64 {%r1, %r2}, %fd1;", "sm_50 4.0"),
    ("mov.b16 %rs1, 0x3C00;", "sm_50 4.0"),
    ("mov.u32 %r1, WARP_SZ;", "sm_50 4.0"),
    ("mov.f32 %f1, %f2;", "sm_50 4.0"),
    ("mov.b32 {%rs1, %rs2}, %r1;", "sm_50 4.0"),
    ("mov.b128 {%rd1, %rd2}, %q1;", "sm_70 8.3"),
    ("shfl.sync.down.b32 %r1|%p1, %r2, %r3, %r4, %r5;", "sm_30 6.0"),
    ("cvt.u32.u64 %r1, %rd1;", "sm_50 4.0"),
    ("cvt.s16.s8 %rs1, %rs2;", "sm_50 4.0"),
    ("cvt.rn.f64.s32 %fd1, %r1;", "sm_50 4.0"),
    ("cvt.rzi.s64.f64 %rd1, %fd1;", "sm_50 4.0"),
    ("cvt.rni.f64.f64 %fd1, %fd2;", "sm_50 4.0"),
    ("cvt.ftz.f32.f16 %f1, %rs1;", "sm_50 4.0"),
    ("cvt.rn.ftz.f16.f32 %rs1, %f1;", "sm_50 4.0"),
    ("cvt.rzi.ftz.s32.f32 %r1, %f1;", "sm_50 4.0"),
    ("cvt.rni.sat.u8.f32 %rs1, %f1;", "sm_50 4.0"),
    ("cvt.rn.bf16.f16 %rs1, %rs2;", "sm_90 7.8"),
    ("cvt.rni.s32.bf16 %r1, %rs1;", "sm_90 7.8"),
    ("cvt.f64.bf16 %fd1, %rs1;", "sm_90 7.8"),
    ("cvt.rn.f16x2.e3m2x2 %r1, %rs1;", "sm_100a 8.6"),
    ("prmt.b32.rc16 %r1, %r2, %r3, %r4;", "sm_20 2.0"),
    ("mapa.shared::cluster.u64 %rd1, %rd2, %r1;", "sm_90 7.8"),
    ("getctarank.shared::cluster.u64 %r1, %rd1;", "sm_90 7.8"),
    ("isspacep.global %p1, %rd1;", "sm_20 2.0"),
    ("cvta.to.global.u64 %rd1, %rd2;", "sm_20 2.0"),
    ("cvta.local.u64 %rd1, %rd2;", "sm_20 2.0"),
    ("prefetch.global.L1 [%rd1];", "sm_20 2.0"),
    ("prefetch.tensormap [%rd1];", "sm_90 8.0"),
    ("discard.L2 [%rd1], 128;", "sm_80 7.4"),
    ("createpolicy.fractional.L2::evict_normal.b64 %rd1, 0.25;", "sm_80 7.4"),
    ("ldu.global.u32 %r1, [%rd1];", "sm_20 2.0"),
    (
        "cp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes [%r1], "
        "[%rd1, {%r2, %r3, %r4}], [%r5], {%rs1, %rs2};",
        "sm_100 8.6",
    ),
    (
        "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w::128 [%rd1, {%r1, %r2, %r3}], "
        "{%rs1, %rs2};",
        "sm_100a 8.6",
    ),
    (
        "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w [%rd1, {%r1, %r2, %r3}], {%rs1, "
        "%rs2};",
        "sm_100a 8.6",
    ),
    (
        "ld.global.L2::evict_last.v8.f32 {%f0, _, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd1];",
        "sm_100 8.8",
    ),
    (
        "ld.global.L1::evict_last.L2::evict_first.v4.u64 {%rd1, %rd2, %rd3, %rd4}, [%rd5];",
        "sm_100 8.8",
    ),
    ("st.global.L2::evict_normal.v4.b64 [%rd5], {%rd1, %rd2, %rd3, %rd4};", "sm_100 8.8"),
    ("cvt.rs.relu.satfinite.e2m1x4.f32 %rs1, {%f1, %f2, %f3, %f4}, %r1;", "sm_100a 8.7"),
    ("cp.async.ca.shared.global [%r1], [%rd1], 4, !%p1;", "sm_80 7.5"),
    # parallel synchronization and communication
    (
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.s32 [%r1], "
        "%r2, [%r3];",
        "sm_90 8.1",
    ),
    ("atom.global.cas.b16 %rs1, [%rd1], %rs2, %rs3;", "sm_70 6.3"),
    ("atom.global.cas.b128 %q1, [%rd1], %q2, %q3;", "sm_90 8.3"),
    ("atom.global.exch.b128 %q1, [%rd1], %q2;", "sm_90 8.3"),
    ("atom.global.add.noftz.bf16 %rs1, [%rd1], %rs2;", "sm_90 7.8"),
    ("atom.global.add.noftz.f16 %rs1, [%rd1], %rs2;", "sm_70 6.3"),
    ("atom.global.add.noftz.f16x2 %r1, [%rd1], %r2;", "sm_60 6.0"),
    ("atom.global.v2.f32.add {%f1, %f2}, [%rd1], {%f3, %f4};", "sm_90 8.1"),
    ("atom.global.add.v2.f32 {%f1, %f2}, [%rd1], {%f3, %f4};", "sm_90 8.1"),
    (
        "atom.global.add.noftz.v4.f16x2 {%r1, %r2, %r3, %r4}, [%rd1], {%r5, %r6, %r7, %r8};",
        "sm_90 8.1",
    ),
    ("atom.global.add.L2::cache_hint.u32 %r1, [%rd1], %r2, %rd2;", "sm_80 7.4"),
    ("atom.acq_rel.cluster.shared::cluster.add.u32 %r1, [%r2], %r3;", "sm_90 7.8"),
    ("atom.global.add.f64 %fd1, [%rd1], %fd2;", "sm_60 5.0"),
    ("atom.sys.global.add.u32 %r1, [%rd1], 1;", "sm_60 5.0"),
    ("atom.global.inc.u32 %r1, [%rd1], 10;", "sm_11 1.1"),
    ("atom.global.min.s64 %rd1, [%rd2], %rd3;", "sm_11 1.1"),
    ("red.global.add.f64 [%rd1], %fd1;", "sm_60 5.0"),
    ("red.global.add.noftz.bf16x2 [%rd1], %r1;", "sm_90 7.8"),
    ("red.global.add.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};", "sm_90 8.1"),
    ("red.release.gpu.global.add.u64 [%rd1], %rd2;", "sm_70 6.0"),
    ("red.shared::cluster.or.b32 [%r1], %r2;", "sm_90 7.8"),
    ("mbarrier.init.shared.b64 [%r1], %r2;", "sm_80 7.0"),
    ("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r1];", "sm_90 8.0"),
    ("mbarrier.arrive.relaxed.cta.shared::cta.b64 %rd1, [%r1], 2;", "sm_90 8.6"),
    ("mbarrier.arrive.shared.b64 %rd1, [%r1], 2;", "sm_90 7.8"),
    ("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%r1], 128;", "sm_90 8.0"),
    ("mbarrier.arrive.noComplete.shared.b64 %rd1, [%r1], 1;", "sm_80 7.0"),
    ("mbarrier.arrive_drop.expect_tx.shared::cta.b64 %rd1, [%r1], 64;", "sm_90 8.0"),
    ("mbarrier.arrive_drop.noComplete.release.cta.shared.b64 %rd1, [%r1], 1;", "sm_80 8.0"),
    ("mbarrier.test_wait.shared.b64 %p1, [%r1], %rd1;", "sm_80 7.0"),
    ("mbarrier.test_wait.acquire.cluster.shared::cta.b64 %p1, [%r1], %rd1;", "sm_90 8.0"),
    ("mbarrier.test_wait.relaxed.cta.shared::cta.b64 %p1, [%r1], %rd1;", "sm_90 8.6"),
    ("mbarrier.try_wait.shared::cta.b64 %p1, [%r1], %rd1, 1000;", "sm_90 7.8"),
    ("mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p1, [%r1], %r2, %r3;", "sm_90 8.0"),
    ("mbarrier.complete_tx.shared::cluster.b64 [%r1], 16;", "sm_90 8.0"),
    ("cp.async.mbarrier.arrive.shared.b64 [%r1];", "sm_80 7.0"),
    ("bar.sync 1, 64;", "sm_50 4.0"),
    ("bar.cta.sync 0;", "sm_50 7.8"),
    ("bar.arrive 1, %r1;", "sm_50 4.0"),
    ("bar.red.and.pred %p1, 0, %p2;", "sm_50 4.0"),
    ("bar.red.or.pred %p1, 0, 32, !%p2;", "sm_50 4.0"),
    ("bar.red.popc.u32 %r1, 1, 64, %p1;", "sm_50 4.0"),
    ("barrier.sync 0;", "sm_70 6.0"),
    ("barrier.sync.aligned 1, 64;", "sm_70 6.0"),
    ("barrier.cta.sync.aligned 0;", "sm_70 7.8"),
    ("barrier.arrive.aligned 1, 32;", "sm_70 6.0"),
    ("barrier.red.popc.aligned.u32 %r1, 0, %p1;", "sm_70 6.0"),
    ("barrier.red.or.pred %p1, 0, %p2;", "sm_70 6.0"),
    ("barrier.cluster.arrive;", "sm_90 7.8"),
    ("barrier.cluster.arrive.relaxed.aligned;", "sm_90 8.0"),
    ("barrier.cluster.wait;", "sm_90 7.8"),
    ("membar.cta;", "sm_50 4.0"),
    ("membar.sys;", "sm_20 2.0"),
    ("membar.proxy.alias;", "sm_70 7.5"),
    ("fence.sc.cluster;", "sm_90 7.8"),
    ("fence.acquire.gpu;", "sm_90 8.6"),
    ("fence.release.sys;", "sm_90 8.6"),
    ("fence.acquire.sync_restrict::shared::cluster.cluster;", "sm_90 8.6"),
    ("fence.release.sync_restrict::shared::cta.cluster;", "sm_90 8.6"),
    ("fence.proxy.alias;", "sm_70 7.5"),
    ("fence.proxy.async;", "sm_90 8.0"),
    ("fence.proxy.async.global;", "sm_90 8.0"),
    ("fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;", "sm_90 8.6"),
    ("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;", "sm_90 8.6"),
    ("fence.proxy.tensormap::generic.release.cta;", "sm_90 8.3"),
    ("vote.sync.any.pred %p1, !%p2, %r1;", "sm_30 6.0"),
    ("vote.sync.uni.pred %p1, %p2, -1;", "sm_30 6.0"),
    ("match.all.sync.b64 %r1, %rd1, -1;", "sm_70 6.0"),
    ("match.any.sync.b64 %r1, %rd1, %r2;", "sm_70 6.0"),
    ("redux.sync.min.u32 %r1, %r2, -1;", "sm_80 7.0"),
    ("redux.sync.xor.b32 %r1, %r2, -1;", "sm_80 7.0"),
    ("redux.sync.max.abs.NaN.f32 %f1, %f2, -1;", "sm_100a 8.6"),
    ("redux.sync.min.f32 %f1, %f2, -1;", "sm_100a 8.6"),
    ("elect.sync %r1|%p1, %r2;", "sm_90 8.0"),
    ("griddepcontrol.launch_dependents;", "sm_90 7.8"),
    (
        "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes"
        ".multicast::cluster::all.b128 "
        "[%r1], [%r2];",
        "sm_100a 8.6",
    ),
    ("clusterlaunchcontrol.query_cancel.get_first_ctaid::y.b32.b128 %r1, %q1;", "sm_100 8.6"),
    (
        "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r1, %r2, %r3, %r4}, %q1;",
        "sm_100 8.6",
    ),
    ("activemask.b32 %r1;", "sm_30 6.2"),
    ("bar.warp.sync %r1;", "sm_30 6.0"),
    ("red.async.release.gpu.global.add.u32 [%rd1], %r2;", "sm_100 8.7"),
    ("fence.proxy.async.shared::cluster;", "sm_90 8.0"),
    ("fence.mbarrier_init.release.cluster;", "sm_90 8.0"),
    ("fence.proxy.tensormap::generic.acquire.sys [%rd1], 128;", "sm_90 8.3"),
    (
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.sys.sync.aligned "
        "[%rd1], [%r1], 128;",
        "sm_90 8.3",
    ),
    ("mbarrier.arrive_drop.release.cluster.shared::cluster.b64 _, [%r1];", "sm_90 8.0"),
    ("mbarrier.arrive.expect_tx.relaxed.cluster.shared::cta.b64 %rd1, [%r1], 32;", "sm_90 8.6"),
    ("mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 %p1, [%r1], %r2;", "sm_90 8.6"),
    ("mbarrier.expect_tx.shared::cluster.b64 [%r1], 16;", "sm_90 8.0"),
    ("mbarrier.inval.shared.b64 [%rd1];", "sm_80 7.0"),
    ("mbarrier.init.b64 [%rd1], 4;", "sm_80 7.0"),
    ("cp.async.mbarrier.arrive.noinc.b64 [%rd1];", "sm_80 7.0"),
    ("atom.shared.cas.b64 %rd1, [%r1], %rd2, %rd3;", "sm_11 1.1"),
    ("atom.global.exch.b64 %rd1, [%rd2], %rd3;", "sm_11 1.1"),
    ("atom.global.dec.u32 %r1, [%rd1], %r2;", "sm_11 1.1"),
    ("atom.global.and.b64 %rd1, [%rd2], %rd3;", "sm_11 1.1"),
    ("atom.global.max.u64 %rd1, [%rd2], %rd3;", "sm_11 1.1"),
    ("atom.relaxed.cta.shared.add.f32 %f1, [%r1], %f2;", "sm_70 6.0"),
    (
        "atom.global.v8.f16.max.noftz {%rs1, %rs2, %rs3, %rs4, %rs5, %rs6, %rs7, %rs8}, [%rd1], "
        "{%rs9, %rs10, %rs11, %rs12, %rs13, %rs14, %rs15, %rs16};",
        "sm_90 8.1",
    ),
    ("atom.global.min.noftz.v2.bf16x2 {%r1, %r2}, [%rd1], {%r3, %r4};", "sm_90 8.1"),
    ("red.global.add.noftz.f16 [%rd1], %rs1;", "sm_70 6.3"),
    ("red.shared.add.u64 [%r1], %rd1;", "sm_11 1.2"),
    ("red.global.v2.f16x2.add.noftz [%rd1], {%r1, %r2};", "sm_90 8.1"),
    ("red.relaxed.cluster.shared::cluster.add.u32 [%r1], %r2;", "sm_90 7.8"),
    ("vote.sync.all.pred %p1, %p2, %r1;", "sm_30 6.0"),
    ("bar.arrive 0, 64;", "sm_50 4.0"),
    ("barrier.sync.aligned %r1, %r2;", "sm_70 6.0"),
    ("barrier.red.and.aligned.pred %p1, 0, 64, %p2;", "sm_70 6.0"),
    ("barrier.cluster.wait.aligned;", "sm_90 7.8"),
    ("membar.gl;", "sm_50 4.0"),
    ("fence.sc.gpu;", "sm_70 6.0"),
    ("fence.acq_rel.cluster;", "sm_90 7.8"),
    ("griddepcontrol.wait;", "sm_90 7.8"),
    ("redux.sync.and.b32 %r1, %r2, %r3;", "sm_80 7.0"),
    ("match.all.sync.b32 %r1|%p1, %r2, %r3;", "sm_70 6.0"),
    ("redux.sync.max.NaN.f32 %f1, %f2, -1;", "sm_100a 8.6"),
    # miscellaneous
    ("setmaxnreg.dec.sync.aligned.u32 64;", "sm_90a 8.0"),
    ("trap;", "sm_50 4.0"),
    ("pmevent.mask 3;", "sm_20 3.0"),
    ("nanosleep.u32 %r1;", "sm_70 6.3"),
    ("brkpt;", "sm_11 1.0"),
    ("nanosleep.u32 1000;", "sm_70 6.3"),
    ("pmevent 3;", "sm_50 4.0"),
    # warp-level matrix multiply-accumulate
    (
        "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, "
        "%f8}, {%r1, %r2}, {%r3, %r4}, {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16};",
        "sm_70 6.4",
    ),
    (
        "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16 {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%r7, "
        "%r8}, {%r9, %r10, %r11, %r12};",
        "sm_70 6.4",
    ),
    (
        "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r3, %r4}, {%r5}, {%r6, "
        "%r7};",
        "sm_75 6.5",
    ),
    (
        "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r3, %r4, %r5, %r6}, "
        "{%r7, %r8}, {%r9, %r10};",
        "sm_80 7.0",
    ),
    (
        "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, "
        "{%r3}, {%f5, %f6, %f7, %f8};",
        "sm_80 7.0",
    ),
    (
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, "
        "%r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};",
        "sm_80 7.0",
    ),
    (
        "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, "
        "{%r3}, {%f5, %f6, %f7, %f8};",
        "sm_80 7.0",
    ),
    (
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, "
        "%r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};",
        "sm_80 7.0",
    ),
    (
        "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, "
        "%fd6};",
        "sm_80 7.0",
    ),
    (
        "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2, %fd3, %fd4}, {%fd5, %fd6}, "
        "{%fd7}, {%fd8, %fd9, %fd10, %fd11};",
        "sm_90 7.8",
    ),
    (
        "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%fd1, %fd2, %fd3, %fd4}, {%fd5, %fd6, "
        "%fd7, %fd8, %fd9, %fd10, %fd11, %fd12}, {%fd13, %fd14, %fd15, %fd16}, {%fd17, %fd18, "
        "%fd19, %fd20};",
        "sm_90 7.8",
    ),
    (
        "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};",
        "sm_75 6.5",
    ),
    (
        "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.u8.s8.s32 {%r1, %r2, %r3, %r4}, {%r5, "
        "%r6}, {%r7}, {%r8, %r9, %r10, %r11};",
        "sm_80 7.0",
    ),
    (
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, "
        "%r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};",
        "sm_80 7.0",
    ),
    (
        "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};",
        "sm_75 6.5",
    ),
    (
        "mma.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, "
        "%r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};",
        "sm_80 7.0",
    ),
    (
        "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%r1, %r2}, {%r3}, {%r4}, {%r5, "
        "%r6};",
        "sm_75 7.0",
    ),
    (
        "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%r1, %r2, %r3, %r4}, {%r5, "
        "%r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};",
        "sm_80 7.1",
    ),
    (
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, "
        "%r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};",
        "sm_89 8.4",
    ),
    (
        "mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e4m3.f16 {%r1, %r2}, {%r3, %r4}, {%r5}, {%r6, "
        "%r7};",
        "sm_89 8.7",
    ),
    (
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32 {%f1, %f2, %f3, %f4}, "
        "{%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};",
        "sm_120a 8.7",
    ),
    (
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3"
        ".f32.ue8m0 "
        "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}, %r7, {0, "
        "0}, %r8, {0, 0};",
        "sm_120a 8.7",
    ),
    (
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1"
        ".f32.ue4m3 "
        "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}, %r7, {0, "
        "0}, %r8, {0, 0};",
        "sm_120a 8.7",
    ),
    (
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 {%f1, "
        "%f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}, %r7, {0, 0}, "
        "%r8, {0, 0};",
        "sm_120a 8.7",
    ),
    (
        "mma.sp.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r3, %r4, %r5, %r6}, "
        "{%r7, %r8, %r9, %r10}, {%r11, %r12}, %r13, 0;",
        "sm_80 7.1",
    ),
    (
        "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, "
        "%f4}, {%r1, %r2}, {%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5, 0;",
        "sm_80 8.5",
    ),
    (
        "mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, "
        "{%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5, 0;",
        "sm_80 7.1",
    ),
    (
        "mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, "
        "%r8}, {%r9, %r10, %r11, %r12}, {%r13, %r14, %r15, %r16}, %r17, 0;",
        "sm_80 7.1",
    ),
    (
        "mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, "
        "%r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r9, 0;",
        "sm_89 8.4",
    ),
    ("ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16 {%r1}, [%r2];", "sm_75 7.8"),
    ("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r1, %r2}, [%r3];", "sm_75 6.5"),
    ("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%r3];", "sm_100a 8.6"),
    ("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 {%r1, %r2, %r3, %r4}, [%r5];", "sm_100a 8.6"),
    ("ldmatrix.sync.aligned.m8n16.x2.shared.b8x16.b6x16_p32 {%r1, %r2}, [%r3];", "sm_100a 8.6"),
    (
        "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b4x16_p64 {%r1, %r2}, [%r3];",
        "sm_100a 8.6",
    ),
    (
        "stmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 [%r1], {%r2, %r3, %r4, %r5};",
        "sm_90 7.8",
    ),
    ("stmatrix.sync.aligned.m16n8.x2.trans.shared.b8 [%r1], {%r2, %r3};", "sm_100a 8.6"),
    ("movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;", "sm_75 7.8"),
    (
        "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, "
        "%r8}, [%r9], 16;",
        "sm_70 6.0",
    ),
    (
        "wmma.load.c.sync.aligned.col.m16n16k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, "
        "%f8}, [%rd1], %r1;",
        "sm_70 6.0",
    ),
    (
        "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, "
        "%f8}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, "
        "%r15, %r16}, {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16};",
        "sm_70 6.0",
    ),
    (
        "wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, "
        "{%fd5, %fd6};",
        "sm_80 7.0",
    ),
    (
        "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, "
        "{%r5, %r6};",
        "sm_75 6.3",
    ),
    (
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 {%r1, %r2, %r3, %r4}, [%r5];",
        "sm_75 7.8",
    ),
    ("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r1], {%r2};", "sm_90 7.8"),
    (
        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%fd1, %fd2, %fd3, %fd4}, {%fd5, %fd6, "
        "%fd7, %fd8}, {%fd9, %fd10}, {%fd11, %fd12, %fd13, %fd14};",
        "sm_90 7.8",
    ),
    (
        "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc {%r1, %r2, %r3, %r4}, {%r5, "
        "%r6}, {%r7}, {%r8, %r9, %r10, %r11};",
        "sm_80 7.0",
    ),
    (
        "mma.sp.sync.aligned.m16n8k128.row.col.s32.u4.s4.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, "
        "%r7, %r8}, {%r9, %r10, %r11, %r12}, {%r13, %r14, %r15, %r16}, %r17, 0;",
        "sm_80 7.1",
    ),
    ("wmma.load.b.sync.aligned.col.m32n8k16.global.bf16 {%r1, %r2}, [%rd1], 16;", "sm_80 7.0"),
    ("wmma.store.d.sync.aligned.col.m8n32k16.f16 [%rd1], {%r1, %r2, %r3, %r4}, 32;", "sm_70 6.1"),
    (
        "wmma.mma.sync.aligned.row.row.m16n16k16.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4, %f5, %f6, "
        "%f7, %f8}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f9, %f10, %f11, %f12, %f13, "
        "%f14, %f15, %f16};",
        "sm_80 7.0",
    ),
    (
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32 "
        "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, "
        "%r9, 0;",
        "sm_120a 8.7",
    ),
    (
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale"
        ".scale_vec::1X.f32.e3m2.e2m1.f32.ue8m0 "
        "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, "
        "%r9, 0, %r10, {0, 0}, %r11, {0, 0};",
        "sm_120a 8.7",
    ),
    (
        "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale"
        ".scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 "
        "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, "
        "%r9, 0, %r10, {0, 0}, %r11, {0, 0};",
        "sm_120a 8.7",
    ),
    # asynchronous warpgroup-level matrix multiply-accumulate
    (
        "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 {%r1, %r2, %r3, %r4}, %rd1, %rd2, "
        "%p1, 1, 1, 0, 1;",
        "sm_90a 8.0",
    ),
    (
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, {%r1, %r2, "
        "%r3, %r4}, %rd2, 1, -1, -1, 1;",
        "sm_90a 8.0",
    ),
    (
        "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, "
        "1, 1;",
        "sm_90a 8.0",
    ),
    (
        "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e5m2 {%r1, %r2}, %rd1, %rd2, 1, 1, 1;",
        "sm_90a 8.0",
    ),
    (
        "wgmma.mma_async.sync.aligned.m64n24k32.s32.u8.s8.satfinite {%r1, %r2, %r3, %r4, %r5, "
        "%r6, %r7, %r8, %r9, %r10, %r11, %r12}, %rd1, %rd2, 1;",
        "sm_90a 8.4",
    ),
    (
        "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd1, "
        "%rd2, 1;",
        "sm_90a 8.0",
    ),
    (
        "wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {%f1, %f2, %f3, %f4}, %rd1, %rd2, "
        "%r1, 0, 1, 1, 1;",
        "sm_90a 8.2",
    ),
    (
        "wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, "
        "%r5, 0, 1;",
        "sm_90a 8.2",
    ),
    (
        "wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, "
        "%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22, "
        "%r23, %r24, %r25, %r26, %r27, %r28, %r29, %r30, %r31, %r32, %r33, %r34, %r35, %r36, "
        "%r37, %r38, %r39, %r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47, %r48, %r49, %r50, "
        "%r51, %r52, %r53, %r54, %r55, %r56, %r57, %r58, %r59, %r60, %r61, %r62, %r63, %r64}, "
        "%rd1, %rd2, %p1, 1, 1, 0, 0;",
        "sm_90a 8.0",
    ),
    (
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, "
        "%f8}, {%r1, %r2, %r3, %r4}, %rd2, %p1, 1, 1, 1;",
        "sm_90a 8.0",
    ),
    (
        "wgmma.mma_async.sp.sync.aligned.m64n8k32.f16.f16.f16 {%r1, %r2}, %rd1, %rd2, %r3, 0, 1, "
        "1, 1, 0, 0;",
        "sm_90a 8.2",
    ),
    (
        "wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e5m2.e4m3 {%f1, %f2, %f3, %f4}, {%r1, %r2, "
        "%r3, %r4}, %rd2, %r5, 0, 1, 1, 1;",
        "sm_90a 8.2",
    ),
    (
        "wgmma.mma_async.sync.aligned.m64n24k8.f32.tf32.tf32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, "
        "%f8, %f9, %f10, %f11, %f12}, {%r1, %r2, %r3, %r4}, %rd2, 1, -1, 1;",
        "sm_90a 8.0",
    ),
    ("wgmma.wait_group.sync.aligned 1;", "sm_90a 8.0"),
    # tensorcore 5th generation
    ("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r1], 64;", "sm_100a 8.6"),
    ("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;", "sm_100a 8.6"),
    (
        "tcgen05.mma.cta_group::1.kind::tf32 [%r1], %rd1, %rd2, %r2, {%r3, %r4, %r5, %r6}, %p1, 1;",
        "sm_100a 8.6",
    ),
    (
        "tcgen05.mma.cta_group::2.kind::f16 [%r1], [%r2], %rd2, %r3, {%r4, %r5, %r6, %r7, %r8, "
        "%r9, %r10, %r11}, %p1;",
        "sm_100a 8.6",
    ),
    (
        "tcgen05.mma.cta_group::1.kind::i8.collector::a::fill [%r1], %rd1, %rd2, %r2, %p1;",
        "sm_100a 8.6",
    ),
    (
        "tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::discard [%r1], [%r2], %rd2, %r3, "
        "%p1;",
        "sm_100a 8.6",
    ),
    (
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r1], %rd1, %rd2, "
        "%r2, [%r3], [%r4], %p1;",
        "sm_100a 8.6",
    ),
    (
        "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 [%r1], %rd1, %rd2, %r2, "
        "[%r3], [%r4], %p1;",
        "sm_100a 8.8",
    ),
    (
        "tcgen05.mma.cta_group::2.kind::mxf4.block_scale [%r1], %rd1, %rd2, %r2, [%r3], [%r4], "
        "%p1;",
        "sm_100a 8.6",
    ),
    ("tcgen05.mma.sp.cta_group::1.kind::f8f6f4 [%r1], %rd1, %rd2, [%r3], %r2, %p1;", "sm_100a 8.6"),
    (
        "tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b0::fill [%r1], %rd1, %rd2, %r2, %p1, "
        "%rd3;",
        "sm_100a 8.6",
    ),
    ("tcgen05.mma.ws.sp.cta_group::1.kind::i8 [%r1], %rd1, %rd2, [%r3], %r2, %p1;", "sm_100a 8.6"),
    ("tcgen05.ld.sync.aligned.16x128b.x1.b32 {%r1, %r2}, [%r3];", "sm_100a 8.6"),
    (
        "tcgen05.ld.sync.aligned.16x256b.x1.pack::16b.b32 {%r1, %r2, %r3, %r4}, [%r5];",
        "sm_100a 8.6",
    ),
    ("tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%r1, %r2}, [%r3], 8;", "sm_100a 8.6"),
    ("tcgen05.st.sync.aligned.16x64b.x1.unpack::16b.b32 [%r1], {%r2};", "sm_100a 8.6"),
    ("tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%r1], 4, {%r2};", "sm_100a 8.6"),
    ("tcgen05.cp.cta_group::2.64x128b.warpx2::02_13 [%r1], %rd1;", "sm_100a 8.6"),
    ("tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32 [%r1], %rd1;", "sm_100a 8.6"),
    ("tcgen05.cp.cta_group::1.4x256b [%r1], %rd1;", "sm_100a 8.6"),
    (
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 "
        "[%r1], %rs1;",
        "sm_100a 8.6",
    ),
    ("tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%rd1];", "sm_100a 8.6"),
    ("tcgen05.alloc.cta_group::1.sync.aligned.b32 [%rd1], 32;", "sm_100a 8.6"),
    ("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r1, 64;", "sm_100a 8.6"),
    (
        "tcgen05.mma.cta_group::2.kind::f8f6f4.collector::a::lastuse [%r1], [%r2], %rd2, %r3, %p1;",
        "sm_100a 8.6",
    ),
    (
        "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X [%r1], %rd1, %rd2, "
        "%r2, [%r3], [%r4], %p1;",
        "sm_100a 8.7",
    ),
    (
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32.collector::a::fill [%r1], "
        "[%r5], %rd2, %r2, [%r3], [%r4], %p1;",
        "sm_100a 8.8",
    ),
    (
        "tcgen05.mma.sp.cta_group::2.kind::tf32 [%r1], %rd1, %rd2, [%r3], %r2, {%r4, %r5, %r6, "
        "%r7, %r8, %r9, %r10, %r11}, %p1, 2;",
        "sm_100a 8.6",
    ),
    (
        "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b2::lastuse [%r1], [%r2], %rd2, %r3, "
        "%p1;",
        "sm_100a 8.6",
    ),
    (
        "tcgen05.ld.sync.aligned.32x32b.x128.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, "
        "%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23, "
        "%r24, %r25, %r26, %r27, %r28, %r29, %r30, %r31, %r32, %r33, %r34, %r35, %r36, %r37, "
        "%r38, %r39, %r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47, %r48, %r49, %r50, %r51, "
        "%r52, %r53, %r54, %r55, %r56, %r57, %r58, %r59, %r60, %r61, %r62, %r63, %r64, %r65, "
        "%r66, %r67, %r68, %r69, %r70, %r71, %r72, %r73, %r74, %r75, %r76, %r77, %r78, %r79, "
        "%r80, %r81, %r82, %r83, %r84, %r85, %r86, %r87, %r88, %r89, %r90, %r91, %r92, %r93, "
        "%r94, %r95, %r96, %r97, %r98, %r99, %r100, %r101, %r102, %r103, %r104, %r105, %r106, "
        "%r107, %r108, %r109, %r110, %r111, %r112, %r113, %r114, %r115, %r116, %r117, %r118, "
        "%r119, %r120, %r121, %r122, %r123, %r124, %r125, %r126, %r127, %r128}, [%r200];",
        "sm_100a 8.6",
    ),
    (
        "tcgen05.ld.sync.aligned.16x256b.x2.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%r9];",
        "sm_100a 8.6",
    ),
    (
        "tcgen05.st.sync.aligned.16x128b.x2.unpack::16b.b32 [%r1], {%r2, %r3, %r4, %r5};",
        "sm_100a 8.6",
    ),
    ("tcgen05.cp.cta_group::1.128x128b.b8x16.b4x16_p64 [%r1], %rd1;", "sm_100a 8.6"),
    ("tcgen05.cp.cta_group::2.64x128b.warpx2::01_23 [%r1], %rd1;", "sm_100a 8.6"),
    ("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r1];", "sm_100a 8.6"),
    ("tcgen05.shift.cta_group::2.down [%r1];", "sm_100a 8.6"),
    ("tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r2, %p1;", "sm_100a 8.6"),
    ("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1, 3;", "sm_100a 8.6"),
    # control flow
    ("brx.idx %r1, $Ltab;", "sm_30 6.0"),
    ("call callee2;", "sm_50 4.0"),
    ("ret.uni;", "sm_50 4.0"),
    ("exit;", "sm_50 4.0"),
    ("call.uni (%r1), callee, (%r2);", "sm_50 4.0"),
    ("call.uni callee2;", "sm_50 4.0"),
    # stack manipulation
    ("alloca.u64 %rd1, %rd2, 16;", "sm_52 7.3"),
    ("stacksave.u64 %rd1;", "sm_52 7.3"),
    ("stackrestore.u64 %rd1;", "sm_52 7.3"),
    # texture
    ("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}];", "sm_10 1.0"),
    ("tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}], %f7;", "sm_10 1.0"),
    ("tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}];", "sm_20 2.2"),
    ("txq.width.b32 %r1, [tex0];", "sm_10 1.5"),
    # surface
    ("suld.b.2d.v2.b32.trap {%r1, %r2}, [surf0, {%r3, %r4}];", "sm_20 2.0"),
    ("sust.b.1d.b32.clamp [surf0, {%r1}], {%r2};", "sm_20 2.0"),
    ("sured.b.add.1d.u32.trap [surf0, {%r1}], %r2;", "sm_20 2.0"),
    ("suq.width.b32 %r1, [surf0];", "sm_20 2.0"),
    # video
    ("vadd.u32.u32.u32.sat %r1, %r2, %r3;", "sm_20 2.0"),
    ("vadd.s32.s32.s32.add %r1, %r2, %r3, %r4;", "sm_20 2.0"),
    ("vshl.u32.u32.u32.clamp %r1, %r2, %r3;", "sm_20 2.0"),
    ("vmad.s32.s32.s32 %r1, %r2, %r3, %r4;", "sm_20 2.0"),
    ("vset.u32.u32.lt %r1, %r2, %r3;", "sm_20 2.0"),
    ("vadd2.u32.u32.u32 %r1, %r2, %r3, %r4;", "sm_30 3.0"),
    ("vavrg4.s32.s32.s32.add %r1, %r2, %r3, %r4;", "sm_30 3.0"),
    ("vset4.u32.u32.ne %r1, %r2, %r3, %r4;", "sm_30 3.0"),
    ("vmin.u32.u32.u32.max %r1, %r2, %r3, %r4;", "sm_20 2.0"),
    ("vsub4.s32.s32.s32.sat %r1, %r2, %r3, %r4;", "sm_30 3.0"),
    ("vabsdiff2.u32.u32.u32.add %r1, %r2, %r3, %r4;", "sm_30 3.0"),
)
"""(instruction, "lowest target and PTX version", as the table states them)."""


def _id(case: tuple[str, ...]) -> str:
    return case[0].split(" ")[0]


@pytest.mark.parametrize("case", VALID, ids=_id)
def test_valid_instruction_at_its_minimum(case: tuple[str, str]) -> None:
    text, minimum = case
    target, version = at_minimum(text)
    assert f"{target} {version[0]}.{version[1]}" == minimum
    assert check(insn(text), target=target, version=version, reg_type=reg_type) == ()


@pytest.mark.parametrize("case", VALID, ids=_id)
def test_valid_instruction_below_its_minimum(case: tuple[str, str]) -> None:
    """One PTX version lower, or a target without the feature, is reported as such."""
    text, _ = case
    req = need(text)
    target, version = at_minimum(text)
    if req.min_ptx > TARGETS[target].min_ptx:
        major, minor = req.min_ptx
        lower = (major, minor - 1) if minor else (major - 1, 8)
        diags = check(insn(text), target=target, version=lower)
        assert codes(diags) == {DiagnosticCode.PTX_VERSION}, [d.message for d in diags]
    for other in ("sm_80", "sm_90", "sm_90a", "sm_100a", "sm_120a"):
        if not req.allows(other) and TARGETS[other].sm <= 120:
            v = max(version, TARGETS[other].min_ptx)
            diags = check(insn(text), target=other, version=v)
            assert DiagnosticCode.TARGET in codes(diags), (other, [d.message for d in diags])
            assert all(d.code in (DiagnosticCode.TARGET, DiagnosticCode.PTX_VERSION) for d in diags)
            break


INVALID: tuple[tuple[str, ...], ...] = (
    ("add.s32 %r1, %r2;", "OPERAND_COUNT"),
    ("add.s33 %r1, %r2, %r3;", "UNKNOWN_MODIFIER"),
    ("add.u64 %rd1, %r2, %rd3;", "REGISTER_WIDTH"),
    ("add.f32 %f1, %fd2, %f3;", "REGISTER_WIDTH"),
    ("add.rn.u32 %r1, %r2, %r3;", "UNKNOWN_MODIFIER"),
    ("mul.s32 %r1, %r2, %r3;", "MISSING_MODIFIER"),
    ("mul.wide.u64 %rd1, %rd2, %rd3;", "UNKNOWN_MODIFIER"),
    ("mul.wide.s32 %r1, %r2, %r3;", "REGISTER_WIDTH"),
    ("mad.lo.s32 %r1, %r2, %r3;", "OPERAND_COUNT"),
    ("div.f32 %f1, %f2, %f3;", "MISSING_MODIFIER"),
    ("sqrt.f32 %f1, %f2;", "MISSING_MODIFIER"),
    ("fma.f32 %f1, %f2, %f3, %f4;", "MISSING_MODIFIER"),
    ("rcp.f64 %fd1, %fd2;", "MISSING_MODIFIER"),
    ("setp.lt.s32 %r1, %r2, %r3;", "REGISTER_WIDTH"),
    ("setp.lt.s32 %p1, %r2;", "OPERAND_COUNT"),
    ("setp.foo.s32 %p1, %r2, %r3;", "UNKNOWN_MODIFIER"),
    ("selp.b32 %r1, %r2, %r3, %r4;", "REGISTER_WIDTH"),
    ("and.b32 %r1, %rd2, %r3;", "REGISTER_WIDTH"),
    ("shl.b32 %r1, %r2;", "OPERAND_COUNT"),
    ("shfl.sync.bfly.b32 %r1, %r2, 1, 31;", "OPERAND_COUNT"),
    ("mov.u32 %r1, %rd1;", "REGISTER_WIDTH"),
    ("cvt.f32 %f1, %r1;", "MISSING_MODIFIER"),
    ("ld.global.v4.f32 {%f1, %f2}, [%rd1];", "VECTOR_SIZE"),
    ("ld.global.f32 %f1, %rd1;", "OPERAND_KIND"),
    ("ld.global.v4.f32 %f1, [%rd1];", "VECTOR_SIZE"),
    ("ld.global.L2::cache_hint.f32 %f1, [%rd1];", "OPERAND_COUNT"),
    ("st.global.f32 %f1, [%rd1];", "OPERAND_KIND"),
    ("st.global.v2.f32 [%rd1], {%f1, %f2, %f3};", "VECTOR_SIZE"),
    ("ld.global.foo.f32 %f1, [%rd1];", "UNKNOWN_MODIFIER"),
    ("atom.global.add.u32 [%rd1], %r1;", "OPERAND_COUNT"),
    ("atom.global.cas.b32 %r1, [%rd1], %r2;", "OPERAND_COUNT"),
    ("red.global.add.u32 %r1, [%rd1], %r2;", "OPERAND_COUNT"),
    ("bar.sync;", "OPERAND_COUNT"),
    ("bar.red.popc.u32 %r1, 0;", "OPERAND_COUNT"),
    ("membar.cluster;", "UNKNOWN_MODIFIER"),
    ("fence.gpu.acq_rel.x;", "UNKNOWN_MODIFIER"),
    ("vote.sync.ballot.b32 %r1, %p1;", "OPERAND_COUNT"),
    ("elect.sync %p1, -1;", "REGISTER_WIDTH"),
    ("mbarrier.init.shared.b64 [%r1];", "OPERAND_COUNT"),
    ("mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1];", "OPERAND_COUNT"),
    ("mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [%r1];", "OPERAND_COUNT"),
    ("cp.async.ca.shared.global [%r1], [%rd1];", "OPERAND_COUNT"),
    (
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
        "[%r1], [%rd1, {%r2}], [%r4];",
        "VECTOR_SIZE",
    ),
    (
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
        "[%r1], [%rd1, {%r2, %r3}];",
        "OPERAND_COUNT",
    ),
    (
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256;",
        "OPERAND_COUNT",
    ),
    (
        "cp.async.bulk.tensor.6d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
        "[%r1], [%rd1, {%r2, %r3}], [%r4];",
        "UNKNOWN_MODIFIER",
    ),
    (
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2}, %rd1, %rd2, 1, 1, 1, 0, 0;",
        "VECTOR_SIZE",
        "sm_90a",
    ),
    (
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, "
        "1, 1, 1;",
        "OPERAND_COUNT",
        "sm_90a",
    ),
    (
        "wgmma.mma_async.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, "
        "1, 1, 1, 0, 0;",
        "UNKNOWN_MODIFIER",
        "sm_90a",
    ),
    (
        "wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 {%f1, %f2, %f3, %f4, %f5, %f6}, "
        "%rd1, %rd2, 1, 1, 1, 0, 0;",
        "UNKNOWN_MODIFIER",
        "sm_90a",
    ),
    ("wgmma.fence.sync;", "MISSING_MODIFIER", "sm_90a"),
    (
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2}, {%r1, %r2, %r3, %r4}, "
        "{%r5, %r6}, {%f5, %f6, %f7, %f8};",
        "VECTOR_SIZE",
    ),
    (
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, "
        "{%r5, %r6}, {%f5, %f6, %f7, %f8};",
        "VECTOR_SIZE",
    ),
    (
        "mma.sync.aligned.m16n8k12.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, "
        "%r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};",
        "UNKNOWN_MODIFIER",
    ),
    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2}, [%r5];", "VECTOR_SIZE"),
    ("tcgen05.ld.sync.aligned.32x32b.x4.b32 {%r1, %r2}, [%r3];", "VECTOR_SIZE"),
    ("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2;", "OPERAND_COUNT"),
    ("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, {%r3, %r4}, %p1;", "VECTOR_SIZE"),
    ("tcgen05.mma.cta_group::3.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;", "UNKNOWN_MODIFIER"),
    ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 %r1, 32;", "OPERAND_KIND"),
    ("setmaxnreg.inc.sync.aligned.u32 %r1;", "OPERAND_KIND"),
    ("cp.async.wait_group %r1;", "OPERAND_KIND"),
    ("prmt.b32 %r1, %r2, %r3;", "OPERAND_COUNT"),
    ("bfe.u32 %r1, %r2, 8;", "OPERAND_COUNT"),
    ("tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r1];", "OPERAND_COUNT"),
    ("getctarank.shared::cluster.u32 %r1, %rd0;", "REGISTER_WIDTH"),
    ("redux.sync.add.f32 %f1, %f2, -1;", "UNKNOWN_MODIFIER"),
)
"""(instruction, expected diagnostic code[, target]); checked at sm_100a, PTX 9.2 by default."""


@pytest.mark.parametrize("case", INVALID, ids=_id)
def test_invalid_instruction_is_reported(case: tuple[str, ...]) -> None:
    text, code, *where = case
    target = where[0] if where else "sm_100a"
    version = TARGETS[target].min_ptx if where else (9, 2)
    version = max(version, (8, 7))
    diags = run(text, target, version)
    assert codes(diags) == {DiagnosticCode[code]}, [d.message for d in diags]


@pytest.mark.parametrize(
    ("text", "target", "version", "code"),
    [
        ("elect.sync %r1|%p1, -1;", "sm_80", (8, 0), "TARGET"),
        ("elect.sync %r1|%p1, -1;", "sm_90", (7, 8), "PTX_VERSION"),
        ("setmaxnreg.inc.sync.aligned.u32 240;", "sm_90", (8, 0), "TARGET"),
        ("wgmma.fence.sync.aligned;", "sm_100a", (8, 6), "TARGET"),
        ("tcgen05.fence::after_thread_sync;", "sm_90a", (8, 6), "TARGET"),
        ("tcgen05.fence::after_thread_sync;", "sm_120a", (8, 7), "TARGET"),
        ("tcgen05.fence::after_thread_sync;", "sm_100", (8, 6), "TARGET"),
        ("tcgen05.shift.cta_group::1.down [%r1];", "sm_100f", (8, 8), "TARGET"),
        ("cp.async.bulk.commit_group;", "sm_80", (8, 0), "TARGET"),
        ("cp.async.commit_group;", "sm_80", (6, 5), "PTX_VERSION"),
        ("redux.sync.min.f32 %f1, %f2, -1;", "sm_90a", (8, 6), "TARGET"),
        ("ld.global.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1];", "sm_90a",
         (8, 8), "TARGET"),
        ("mov.u32 %r1, %cluster_ctarank;", "sm_80", (7, 8), "TARGET"),
        ("mbarrier.arrive.shared.b64 %rd1, [%r1], 2;", "sm_80", (7, 8), "TARGET"),
        ("bar.cta.sync 0;", "sm_80", (7, 7), "PTX_VERSION"),
        ("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32 {%f1, %f2, %f3, %f4},"
         " {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};", "sm_100a", (8, 7), "TARGET"),
        ("cvt.rn.satfinite.e2m1x2.f32 %rb1, %f1, %f2;", "sm_90a", (8, 6), "TARGET"),
    ],
)  # fmt: skip
def test_gates(text: str, target: str, version: tuple[int, int], code: str) -> None:
    diags = run(text, target, version)
    assert codes(diags) == {DiagnosticCode[code]}, [d.message for d in diags]
