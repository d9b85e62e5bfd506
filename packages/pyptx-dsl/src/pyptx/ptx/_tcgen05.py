"""PTX instruction family: tcgen05, the Blackwell tensor cores and Tensor Memory (TMEM).

``ptx.tcgen05`` is a namespace object whose calls each emit exactly one instruction:

=============================================  ============================================
call                                           emits
=============================================  ============================================
``tcgen05.alloc(dst, ncols)``                  ``tcgen05.alloc.cta_group::1.sync.aligned
                                               .shared::cta.b32 [dst], ncols;``
``tcgen05.dealloc(taddr, ncols)``              ``tcgen05.dealloc.cta_group::1.sync.aligned
                                               .b32 taddr, ncols;``
``tcgen05.relinquish_alloc_permit()``          ``tcgen05.relinquish_alloc_permit.cta_group::1
                                               .sync.aligned;``
``tcgen05.mma(d, a, b, idesc, ...)``           ``tcgen05.mma.cta_group::1.kind::f16 ...;``
``tcgen05.mma.sp / .ws / .ws.sp``              ``tcgen05.mma.sp ...`` / ``.mma.ws ...``
``tcgen05.ld(regs, taddr, shape, num)``        ``tcgen05.ld.sync.aligned.32x32b.x8.b32 ...;``
``tcgen05.st(taddr, regs, shape, num)``        ``tcgen05.st.sync.aligned.32x32b.x8.b32 ...;``
``tcgen05.wait.ld()`` / ``.wait.st()``         ``tcgen05.wait::ld.sync.aligned;``
``tcgen05.cp(taddr, s_desc, shape=...)``       ``tcgen05.cp.cta_group::1.128x256b [t], d;``
``tcgen05.shift.down(taddr)``                  ``tcgen05.shift.cta_group::1.down [taddr];``
``tcgen05.fence.before_thread_sync()``         ``tcgen05.fence::before_thread_sync;``
``tcgen05.commit(mbar)``                       ``tcgen05.commit.cta_group::1.mbarrier::arrive
                                               ::one.shared::cluster.b64 [mbar];``
=============================================  ============================================

The tcgen05 instructions exist on sm_100a, sm_101a/sm_110a and sm_103a (some on the ``f``
family targets); the ISA table, not these wrappers, reports an instruction the kernel's
target lacks. Every tcgen05 instruction of one kernel must use the same ``cta_group``; the
first call fixes it and a later mismatch raises at the user's line.

Descriptors for ``mma`` and ``cp`` come from :mod:`pyptx.dsl.umma`; its multi-instruction
runtime helpers are listed in :data:`MULTI_INSTRUCTION`.
"""

from __future__ import annotations

from ..dsl import umma
from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ._tcgen05_common import (
    cta_group_mod,
    describe,
    descriptor,
    int_reg,
    is_int_reg,
    reg_vector,
    shared_or_generic,
    tmem,
    u32_or_imm,
)
from ._tcgen05_mma import Mma

__all__ = ["tcgen05"]

LD_ST_SHAPES: dict[str, int] = {
    "16x64b": 1,
    "16x128b": 2,
    "16x256b": 4,
    "32x32b": 1,
    "16x32bx2": 1,
}
"""``tcgen05.ld``/``st`` shape -> 32-bit registers per thread at ``.x1``; ``.xN`` multiplies it,
up to 128 registers (PTX ISA table "Various-combinations of .num and .shape")."""

NUMS = (1, 2, 4, 8, 16, 32, 64, 128)
"""The ``.num`` repeat factors ``.x1`` .. ``.x128``."""

CP_SHAPES: dict[str, tuple[str | None, ...]] = {
    "128x256b": (None,),
    "4x256b": (None,),
    "128x128b": (None,),
    "64x128b": ("warpx2::02_13", "warpx2::01_23"),
    "32x128b": ("warpx4",),
}
"""``tcgen05.cp`` shape -> the ``multicast=`` values it allows (``None``: no multicast)."""

CP_SRC_FMTS = ("b6x16_p32", "b4x16_p64")
"""Source formats of ``tcgen05.cp`` decompression (6-bit and 4-bit elements, padded)."""


def _num(num: object, op: str) -> int:
    value = num
    if isinstance(num, str) and num.startswith("x") and num[1:].isdigit():
        value = int(num[1:])
    if isinstance(value, bool) or value not in NUMS:
        raise PtxDslError(f"{op}: num must be one of {', '.join(map(str, NUMS))}, got {num!r}")
    assert isinstance(value, int)
    return value


def _ld_st(
    op: str, regs: object, shape: object, num: object, half_split_offset: object
) -> tuple[list[str], list[object], object]:
    """Shared checks of ``tcgen05.ld`` and ``tcgen05.st``: (modifiers, registers, split)."""
    if shape not in LD_ST_SHAPES:
        raise PtxDslError(f"{op}: shape must be one of {', '.join(LD_ST_SHAPES)}, got {shape!r}")
    n = _num(num, op)
    count = LD_ST_SHAPES[shape] * n
    if count > 128:
        raise PtxDslError(
            f"{op}: .{shape}.x{n} would need {count} registers per thread (at most 128); "
            f"the largest num for .{shape} is {128 // LD_ST_SHAPES[shape]}"
        )
    what = "destination" if op.endswith("ld") else "source"
    vec = reg_vector(regs, count, what, op, f".{shape}.x{n}")
    split: object = None
    if shape == "16x32bx2":
        if isinstance(half_split_offset, bool) or not isinstance(half_split_offset, int):
            raise PtxDslError(
                f"{op}: .16x32bx2 makes two accesses, the second at taddr+half_split_offset; "
                f"pass half_split_offset=<int>, got {half_split_offset!r}"
            )
        split = half_split_offset
    elif half_split_offset is not None:
        raise PtxDslError(f"{op}: half_split_offset is only an operand of shape 16x32bx2")
    return ["sync", "aligned", shape, f"x{n}"], list(vec), split


class Fence:
    """``ptx.tcgen05.fence``: order tcgen05 operations around thread synchronization."""

    def before_thread_sync(self, *, pred: object = None) -> None:
        """Emit ``[@pred] tcgen05.fence::before_thread_sync;`` (one instruction).

        Orders this thread's prior asynchronous tcgen05 operations before a following
        synchronization (barrier, mbarrier arrive). PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-special-sync-operations-fence
        """
        emit_inst("tcgen05", ("fence::before_thread_sync",), (), pred)

    def after_thread_sync(self, *, pred: object = None) -> None:
        """Emit ``[@pred] tcgen05.fence::after_thread_sync;`` (one instruction).

        Orders following asynchronous tcgen05 operations after a preceding synchronization.
        PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-special-sync-operations-fence
        """
        emit_inst("tcgen05", ("fence::after_thread_sync",), (), pred)


class Wait:
    """``ptx.tcgen05.wait``: wait for this thread's prior ``tcgen05.ld`` / ``tcgen05.st``."""

    def ld(self, *, pred: object = None) -> None:
        """Emit ``[@pred] tcgen05.wait::ld.sync.aligned;`` (one instruction).

        Blocks until every prior ``tcgen05.ld`` of the thread has completed, so the
        destination registers may be read. PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-wait
        """
        emit_inst("tcgen05", ("wait::ld", "sync", "aligned"), (), pred)

    def st(self, *, pred: object = None) -> None:
        """Emit ``[@pred] tcgen05.wait::st.sync.aligned;`` (one instruction).

        Blocks until every prior ``tcgen05.st`` of the thread has completed. PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-wait
        """
        emit_inst("tcgen05", ("wait::st", "sync", "aligned"), (), pred)


class Shift:
    """``ptx.tcgen05.shift``: shift Tensor Memory rows (``down`` is the only direction)."""

    def down(self, taddr: object, *, cta_group: int = 1, pred: object = None) -> None:
        """Emit ``[@pred] tcgen05.shift.cta_group::N.down [taddr];`` (one instruction).

        Asynchronously shifts the 32-byte elements of every row but the last down by one
        row. The lane of ``taddr`` must be a multiple of 32. PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-shift

        Args:
            taddr: 32-bit register (or ``ptx.addr``) with the matrix's TMEM address.
            cta_group: 1 (this CTA) or 2 (this CTA and its peer).
            pred: optional guard predicate.
        """
        op = "tcgen05.shift"
        mods = ("shift", cta_group_mod(cta_group, op), "down")
        emit_inst("tcgen05", mods, (tmem(taddr, "taddr", op),), pred)


class Tcgen05:
    """The ``ptx.tcgen05`` namespace (see the module docstring for the full table)."""

    mma = Mma()
    """``ptx.tcgen05.mma(...)``, ``.mma.sp(...)``, ``.mma.ws(...)``, ``.mma.ws.sp(...)``."""
    fence = Fence()
    """``ptx.tcgen05.fence.before_thread_sync()`` / ``.after_thread_sync()``."""
    wait = Wait()
    """``ptx.tcgen05.wait.ld()`` / ``ptx.tcgen05.wait.st()``."""
    shift = Shift()
    """``ptx.tcgen05.shift.down(taddr)``."""

    def alloc(self, dst: object, ncols: object, *, cta_group: int = 1, pred: object = None) -> None:
        """Allocate Tensor Memory columns; the address is written to shared memory.

        Emits ``[@pred] tcgen05.alloc.cta_group::N.sync.aligned.shared::cta.b32 [dst], ncols;``
        (one instruction; without ``.shared::cta`` when ``dst`` is a 64-bit generic address
        register). A whole warp executes it; the TMEM address lands at ``dst``. PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-alloc-dealloc-relinquish-alloc-permit

        Args:
            dst: where to store the 32-bit TMEM address: a shared allocation/slice, a 32-bit
                shared address register, ``ptx.addr(...)``, or a 64-bit generic address.
            ncols: number of columns, a power of two in 32..512 (or a 32-bit register).
            cta_group: 1, or 2 to allocate in this CTA and its peer.
            pred: optional guard predicate.
        """
        op = "tcgen05.alloc"
        target, shared = shared_or_generic(dst, "dst", op)
        cols = _ncols(ncols, op)
        mods = ["alloc", cta_group_mod(cta_group, op), "sync", "aligned"]
        mods += ["shared::cta", "b32"] if shared else ["b32"]
        emit_inst("tcgen05", tuple(mods), (target, cols), pred)

    def dealloc(
        self, taddr: object, ncols: object, *, cta_group: int = 1, pred: object = None
    ) -> None:
        """Free Tensor Memory columns allocated by :meth:`alloc`.

        Emits ``[@pred] tcgen05.dealloc.cta_group::N.sync.aligned.b32 taddr, ncols;`` (one
        instruction). All allocated TMEM must be freed before the kernel exits. PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-alloc-dealloc-relinquish-alloc-permit

        Args:
            taddr: 32-bit register with the TMEM address returned by ``alloc``.
            ncols: number of columns, a power of two in 32..512 (or a 32-bit register).
            cta_group: 1 or 2, as for the allocation.
            pred: optional guard predicate.
        """
        op = "tcgen05.dealloc"
        address = int_reg(taddr, 32, "taddr (the TMEM address)", op)
        cols = _ncols(ncols, op)
        mods = ("dealloc", cta_group_mod(cta_group, op), "sync", "aligned", "b32")
        emit_inst("tcgen05", mods, (address, cols), pred)

    def relinquish_alloc_permit(self, *, cta_group: int = 1, pred: object = None) -> None:
        """Give up this CTA's right to allocate Tensor Memory (lets other CTAs allocate).

        Emits ``[@pred] tcgen05.relinquish_alloc_permit.cta_group::N.sync.aligned;`` (one
        instruction). PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-alloc-dealloc-relinquish-alloc-permit
        """
        op = "tcgen05.relinquish_alloc_permit"
        mods = ("relinquish_alloc_permit", cta_group_mod(cta_group, op), "sync", "aligned")
        emit_inst("tcgen05", mods, (), pred)

    def ld(
        self,
        dst: object,
        taddr: object,
        *,
        shape: str,
        num: int | str,
        pack: bool = False,
        half_split_offset: int | None = None,
        pred: object = None,
    ) -> None:
        """Load from Tensor Memory into registers, collectively across the warp.

        Emits ``[@pred] tcgen05.ld.sync.aligned.<shape>.x<num>[.pack::16b].b32 {dst...},
        [taddr][, half_split_offset];`` (one instruction). The register count is fixed by
        shape and num: ``num`` x (1 for 16x64b/32x32b/16x32bx2, 2 for 16x128b, 4 for
        16x256b). Read the registers only after :meth:`Wait.ld`. PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-ld

        Args:
            dst: the 32-bit destination registers (``reg.array(f32, n)``, a list, a tuple).
            taddr: 32-bit register (or ``ptx.addr``) with the TMEM address (warp-uniform).
            shape: ``16x64b``, ``16x128b``, ``16x256b``, ``32x32b`` or ``16x32bx2``.
            num: repeat factor 1, 2, 4, ... 128 (or ``"x4"``).
            pack: ``.pack::16b``: pack two 16-bit columns into each 32-bit register.
            half_split_offset: immediate offset of the second access (16x32bx2 only).
            pred: optional guard predicate.

        Raises:
            PtxDslError: e.g. "tcgen05.ld .32x32b.x4 expects 4 destination registers, but
                got 2".
        """
        op = "tcgen05.ld"
        mods, regs, split = _ld_st(op, dst, shape, num, half_split_offset)
        if not isinstance(pack, bool):
            raise PtxDslError(f"{op}: pack must be True or False, got {pack!r}")
        mods = ["ld", *mods, *(["pack::16b"] if pack else []), "b32"]
        operands: list[object] = [regs, tmem(taddr, "taddr", op)]
        if split is not None:
            operands.append(split)
        emit_inst("tcgen05", tuple(mods), tuple(operands), pred)

    def st(
        self,
        taddr: object,
        src: object,
        *,
        shape: str,
        num: int | str,
        unpack: bool = False,
        half_split_offset: int | None = None,
        pred: object = None,
    ) -> None:
        """Store registers to Tensor Memory, collectively across the warp.

        Emits ``[@pred] tcgen05.st.sync.aligned.<shape>.x<num>[.unpack::16b].b32 [taddr]
        [, half_split_offset], {src...};`` (one instruction); register counts as for
        :meth:`ld`. Wait with :meth:`Wait.st` before the data is used. PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-st

        Args:
            taddr: 32-bit register (or ``ptx.addr``) with the TMEM address (warp-uniform).
            src: the 32-bit source registers.
            shape: ``16x64b``, ``16x128b``, ``16x256b``, ``32x32b`` or ``16x32bx2``.
            num: repeat factor 1, 2, 4, ... 128 (or ``"x4"``).
            unpack: ``.unpack::16b``: split each register into two 16-bit columns.
            half_split_offset: immediate offset of the second access (16x32bx2 only).
            pred: optional guard predicate.
        """
        op = "tcgen05.st"
        mods, regs, split = _ld_st(op, src, shape, num, half_split_offset)
        if not isinstance(unpack, bool):
            raise PtxDslError(f"{op}: unpack must be True or False, got {unpack!r}")
        mods = ["st", *mods, *(["unpack::16b"] if unpack else []), "b32"]
        operands: list[object] = [tmem(taddr, "taddr", op)]
        if split is not None:
            operands.append(split)
        operands.append(regs)
        emit_inst("tcgen05", tuple(mods), tuple(operands), pred)

    def cp(
        self,
        taddr: object,
        s_desc: object,
        *,
        shape: str,
        cta_group: int = 1,
        multicast: str | None = None,
        dst_fmt: str | None = None,
        src_fmt: str | None = None,
        pred: object = None,
    ) -> None:
        """Copy a matrix from shared memory to Tensor Memory, asynchronously.

        Emits ``[@pred] tcgen05.cp.cta_group::N.<shape>[.<multicast>][.<dst_fmt>.<src_fmt>]
        [taddr], s_desc;`` (one instruction), e.g. ``tcgen05.cp.cta_group::1.64x128b
        .warpx2::02_13 [%r1], %rd2;``. Track completion with :meth:`commit`. PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-cp

        Args:
            taddr: 32-bit register (or ``ptx.addr``) with the destination TMEM address.
            s_desc: 64-bit shared memory descriptor of the source (see
                :func:`pyptx.dsl.umma.smem_desc_reg`).
            shape: ``128x256b``, ``4x256b``, ``128x128b``, ``64x128b`` or ``32x128b``.
            cta_group: 1 (this CTA) or 2 (this CTA and its peer).
            multicast: ``warpx2::02_13`` or ``warpx2::01_23`` (required by 64x128b),
                ``warpx4`` (required by 32x128b).
            dst_fmt: decompression destination format, ``b8x16`` (implied by ``src_fmt``).
            src_fmt: decompression source format, ``b6x16_p32`` or ``b4x16_p64``.
            pred: optional guard predicate.
        """
        op = "tcgen05.cp"
        if shape not in CP_SHAPES:
            raise PtxDslError(f"{op}: shape must be one of {', '.join(CP_SHAPES)}, got {shape!r}")
        allowed = CP_SHAPES[shape]
        if multicast not in allowed:
            need = " or ".join(repr(m) for m in allowed)
            raise PtxDslError(
                f"{op}: shape {shape} takes multicast={need}, got multicast={multicast!r}"
            )
        mods = ["cp", cta_group_mod(cta_group, op), shape]
        if multicast is not None:
            mods.append(multicast)
        if src_fmt is not None or dst_fmt is not None:
            if src_fmt not in CP_SRC_FMTS:
                raise PtxDslError(
                    f"{op}: decompression needs src_fmt= one of {', '.join(CP_SRC_FMTS)}, got "
                    f"{src_fmt!r}"
                )
            if dst_fmt not in (None, "b8x16"):
                raise PtxDslError(f"{op}: dst_fmt must be 'b8x16', got {dst_fmt!r}")
            mods += ["b8x16", src_fmt]
        operands = (tmem(taddr, "taddr", op), descriptor(s_desc, "s_desc", op))
        emit_inst("tcgen05", tuple(mods), operands, pred)

    def commit(
        self,
        mbar: object,
        *,
        cta_group: int = 1,
        multicast_mask: object = None,
        pred: object = None,
    ) -> None:
        """Make an mbarrier track completion of this thread's prior async tcgen05 operations.

        Emits ``[@pred] tcgen05.commit.cta_group::N.mbarrier::arrive::one.shared::cluster
        [.multicast::cluster].b64 [mbar][, multicast_mask];`` (one instruction). The
        ``.shared::cluster`` space is used for a shared-memory mbarrier (allocation, slice,
        mbarrier ref, 32-bit register); a 64-bit register is a generic address and gets no
        space qualifier. PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen-async-sync-operations-commit

        Args:
            mbar: the mbarrier (``smem.mbarrier(n)[i]``, an address register, ``ptx.addr``).
            cta_group: 1 or 2 (the same as the kernel's other tcgen05 instructions).
            multicast_mask: 16-bit CTA mask (int or 16-bit register): signal the mbarrier at
                the same offset in each CTA of the cluster whose bit is set.
            pred: optional guard predicate.
        """
        op = "tcgen05.commit"
        target, shared = shared_or_generic(mbar, "mbar", op)
        mods = ["commit", cta_group_mod(cta_group, op), "mbarrier::arrive::one"]
        if shared:
            mods.append("shared::cluster")
        operands: list[object] = [target]
        if multicast_mask is not None:
            mods.append("multicast::cluster")
            operands.append(_cta_mask(multicast_mask, op))
        mods.append("b64")
        emit_inst("tcgen05", tuple(mods), tuple(operands), pred)


def _ncols(ncols: object, op: str) -> object:
    if isinstance(ncols, int) and not isinstance(ncols, bool):
        if ncols not in (32, 64, 128, 256, 512):
            raise PtxDslError(
                f"{op}: ncols must be a power of two in 32..512 (32, 64, 128, 256, 512), got "
                f"{ncols}"
            )
        return ncols
    return u32_or_imm(ncols, "ncols", op)


def _cta_mask(mask: object, op: str) -> object:
    if isinstance(mask, int) and not isinstance(mask, bool) and 0 <= mask <= 0xFFFF:
        return mask
    if is_int_reg(mask, 16):
        return mask
    raise PtxDslError(
        f"{op}: multicast_mask must be a 16-bit register (u16/b16) or an int in 0..0xFFFF, "
        f"got {describe(mask)}"
    )


tcgen05 = Tcgen05()
"""``ptx.tcgen05``: the Blackwell tensor-core / Tensor Memory namespace."""

MULTI_INSTRUCTION: dict[str, str] = dict(umma.MULTI_INSTRUCTION)
"""Helpers of this family that emit more than one instruction: the register-built UMMA
descriptors of :mod:`pyptx.dsl.umma` (every ``ptx.tcgen05.*`` call emits exactly one)."""
