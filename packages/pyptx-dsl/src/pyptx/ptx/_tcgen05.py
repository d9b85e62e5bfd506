"""PTX instruction family: tcgen05, the Blackwell tensor cores and Tensor Memory (TMEM).

``ptx.tcgen05`` is a namespace object whose instruction calls each emit exactly one
instruction:

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
family targets). The wrappers only translate keywords: the ISA table (:mod:`pyptx.ir.isa`)
reports a shape, kind, operand or target it does not allow, at the user's line. Every tcgen05
instruction of one kernel must use the same ``cta_group``; the first call fixes it.

Descriptors for ``mma`` and ``cp`` come from :mod:`pyptx.dsl.umma`; its multi-instruction
runtime helpers are listed in :data:`MULTI_INSTRUCTION`.

The seed system's spellings are offered too, each one of the calls above or an ``umma``
helper under the seed's name: ``fence_before_thread_sync`` / ``fence_after_thread_sync``,
``wait_ld`` / ``wait_st``, ``shift(taddr)``, and the descriptor builders
``make_instr_desc_f16bf16_f32`` (an int, no instruction), ``descriptor`` and
``masked_descriptor`` (``umma.smem_desc_reg``, listed in :data:`MULTI_INSTRUCTION`).
"""

from __future__ import annotations

from typing import Any

from pyptx.ir import PtxType

from ..dsl import umma
from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg
from ._tcgen05_common import const, cta_group_mod, flag, present, shared_or_generic, tmem, vector
from ._tcgen05_mma import Mma

__all__ = ["tcgen05"]


def _ld_st_mods(op: str, shape: str, num: object, pack: str, packed: object) -> tuple[str, ...]:
    """``ld|st.sync.aligned.<shape>.x<num>[.(un)pack::16b].b32`` (``num`` an int or ``"x4"``)."""
    nums = num if isinstance(num, str) else f"x{num}"
    packs = (pack,) if flag(packed, pack.partition(":")[0], f"tcgen05.{op}") else ()
    return (op, "sync", "aligned", str(shape), nums, *packs, "b32")


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
        mods = ("shift", cta_group_mod(cta_group, "tcgen05.shift"), "down")
        emit_inst("tcgen05", mods, (tmem(taddr),), pred)

    def __call__(self, taddr: object, *, cta_group: int = 1, pred: object = None) -> None:
        """``ptx.tcgen05.shift(taddr)``: the seed system's spelling of :meth:`down`.

        Emits ``[@pred] tcgen05.shift.cta_group::N.down [taddr];`` (one instruction; ``down``
        is the only direction). PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-shift
        """
        self.down(taddr, cta_group=cta_group, pred=pred)


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
        space = ("shared::cta",) if shared else ()
        mods = ("alloc", cta_group_mod(cta_group, op), "sync", "aligned", *space, "b32")
        emit_inst("tcgen05", mods, (target, ncols), pred)

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
        mods = ("dealloc", cta_group_mod(cta_group, "tcgen05.dealloc"), "sync", "aligned", "b32")
        emit_inst("tcgen05", mods, (taddr, ncols), pred)

    def relinquish_alloc_permit(self, *, cta_group: int = 1, pred: object = None) -> None:
        """Give up this CTA's right to allocate Tensor Memory (lets other CTAs allocate).

        Emits ``[@pred] tcgen05.relinquish_alloc_permit.cta_group::N.sync.aligned;`` (one
        instruction). PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-alloc-dealloc-relinquish-alloc-permit
        """
        group = cta_group_mod(cta_group, "tcgen05.relinquish_alloc_permit")
        mods = ("relinquish_alloc_permit", group, "sync", "aligned")
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
            PtxDslError: the ISA table's reason, e.g. "tcgen05.ld.sync.aligned.32x32b.x4.b32
                operand 0 (r) expects a vector of 4 elements, but got 2".
        """
        mods = _ld_st_mods("ld", shape, num, "pack::16b", pack)
        operands = present((vector(dst), tmem(taddr), half_split_offset))
        emit_inst("tcgen05", mods, operands, pred)

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
        mods = _ld_st_mods("st", shape, num, "unpack::16b", unpack)
        operands = present((tmem(taddr), half_split_offset, vector(src)))
        emit_inst("tcgen05", mods, operands, pred)

    def cp(
        self, taddr: object, s_desc: object, *,
        shape: str, cta_group: int = 1, multicast: str | None = None, dst_fmt: str | None = None,
        src_fmt: str | None = None, pred: object = None,
    ) -> None:  # fmt: skip
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
        fmts = () if dst_fmt is None and src_fmt is None else (dst_fmt or "b8x16", src_fmt)
        mods = present(("cp", cta_group_mod(cta_group, op), shape, multicast, *fmts))
        operands = (tmem(taddr), const(s_desc, 64, "s_desc", op, 16))
        emit_inst("tcgen05", mods, operands, pred)

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
        mods += ["shared::cluster"] if shared else []
        mods += ["multicast::cluster"] if multicast_mask is not None else []
        operands = present((target, const(multicast_mask, 16, "multicast_mask", op)))
        emit_inst("tcgen05", (*mods, "b64"), operands, pred)

    # ------------------------------------------------------------------ the seed's spellings
    # The seed system (upstream pyptx 0.1.1) spells the fences and waits with underscores and
    # builds descriptors on this namespace; each below is one of ours under that name.

    def fence_before_thread_sync(self, *, pred: object = None) -> None:
        """``tcgen05.fence::before_thread_sync;``: ``ptx.tcgen05.fence.before_thread_sync()``.

        The seed system's name (one instruction). PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-special-sync-operations-fence
        """
        self.fence.before_thread_sync(pred=pred)

    def fence_after_thread_sync(self, *, pred: object = None) -> None:
        """``tcgen05.fence::after_thread_sync;``: ``ptx.tcgen05.fence.after_thread_sync()``.

        The seed system's name (one instruction). PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-special-sync-operations-fence
        """
        self.fence.after_thread_sync(pred=pred)

    def wait_ld(self, *, pred: object = None) -> None:
        """``tcgen05.wait::ld.sync.aligned;``: the seed system's name for ``wait.ld()``.

        One instruction. PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-wait
        """
        self.wait.ld(pred=pred)

    def wait_st(self, *, pred: object = None) -> None:
        """``tcgen05.wait::st.sync.aligned;``: the seed system's name for ``wait.st()``.

        One instruction. PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-wait
        """
        self.wait.st(pred=pred)

    def make_instr_desc_f16bf16_f32(
        self, *, m: int = 128, n: int = 256, ab_dtype: str = "bf16", a_major: str = "K",
        b_major: str = "K", scale_a: int = 1, scale_b: int = 1, saturate: bool = False,
        sparse: bool = False, max_shift: int = 0,
    ) -> int:  # fmt: skip
        """The seed system's instruction descriptor of a dense MMA into ``f32`` (emits nothing).

        The same int as :func:`pyptx.dsl.umma.instr_desc` with ``kind="f16"`` (``"tf32"`` for
        ``ab_dtype="tf32"``), ``a_type = b_type = ab_dtype``, ``d_type=f32``,
        ``transpose_a = a_major == "MN"``, ``negate_a = scale_a == -1`` (and the same for B).
        ``max_shift`` is the raw 2-bit field (0..3, for shifts of 0, 8, 16, 32), as the seed
        takes it; ``umma.instr_desc`` takes the shift itself. PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instruction-descriptor

        Returns:
            The 32-bit descriptor (put it in a register with ``reg.scalar(b32, init=...)``).

        Raises:
            PtxDslError: a value outside the choices above, or one the descriptor table
                refuses for the kind (``saturate`` is an ``.kind::i8`` field).
        """
        types = {"f16": PtxType.F16, "bf16": PtxType.BF16, "tf32": PtxType.TF32}
        for name, value, allowed in (
            ("ab_dtype", ab_dtype, tuple(types)), ("a_major", a_major, ("K", "MN")),
            ("b_major", b_major, ("K", "MN")), ("scale_a", scale_a, (1, -1)),
            ("scale_b", scale_b, (1, -1)), ("max_shift", max_shift, (0, 1, 2, 3)),
        ):  # fmt: skip
            if isinstance(value, bool) or value not in allowed:
                raise PtxDslError(
                    f"tcgen05.make_instr_desc_f16bf16_f32 {name} must be one of "
                    f"{', '.join(map(repr, allowed))}, got {value!r}"
                )
        ty = types[ab_dtype]
        return umma.instr_desc(
            "tf32" if ab_dtype == "tf32" else "f16", m=m, n=n, a_type=ty, b_type=ty,
            d_type=PtxType.F32, transpose_a=a_major == "MN", transpose_b=b_major == "MN",
            negate_a=scale_a == -1, negate_b=scale_b == -1, saturate=saturate, sparse=sparse,
            max_shift=(0, 8, 16, 32)[max_shift],
        )  # fmt: skip

    def descriptor(
        self, smem_addr: object, *, byte_offset: int = 0, stride_bytes: int,
        leading_bytes: int = 16, swizzle: str | None = "128B", version: int = 1,
        base_offset: int = 0, lbo_mode: int = 0,
    ) -> Reg:  # fmt: skip
        """The seed system's shared memory descriptor in a register: ``umma.smem_desc_reg``.

        ``umma.smem_desc_reg(smem_addr, lbo=leading_bytes, sbo=stride_bytes, swizzle=swizzle,
        base_offset=base_offset, lbo_mode=("relative", "absolute")[lbo_mode],
        offset=byte_offset)``: the same descriptor, built with the instructions that helper
        lists in ``ptx.MULTI_INSTRUCTION_HELPERS`` (``shr``, ``cvt``, ``bfi``, after a ``mov``
        or ``add`` of the address). ``version`` must be 1 (the descriptor's fixed bits 46-48).
        PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-shared-memory-descriptor

        Returns:
            The ``b64`` descriptor register.

        Raises:
            PtxDslError: another ``version`` or ``lbo_mode``, or a field ``smem_desc_reg``
                refuses.
        """
        if version != 1 or isinstance(lbo_mode, bool) or lbo_mode not in (0, 1):
            raise PtxDslError(
                "tcgen05.descriptor takes version=1 (the fixed bits 46-48) and lbo_mode 0 or 1, "
                f"got version={version!r}, lbo_mode={lbo_mode!r}"
            )
        return umma.smem_desc_reg(
            smem_addr, lbo=leading_bytes, sbo=stride_bytes, swizzle=swizzle,
            base_offset=base_offset, lbo_mode=("relative", "absolute")[lbo_mode],
            offset=byte_offset,
        )  # fmt: skip

    def masked_descriptor(
        self, smem_addr: object, *, byte_offset: int = 0, mask: int = 0x3FFF0,
        const_bits: int = 0x4000404000010000,
    ) -> Reg:  # fmt: skip
        """The seed system's descriptor from an address and the constant fields ``const_bits``.

        The start address ``(smem_addr + byte_offset) & 0x3FFF0 >> 4`` with every other field
        from ``const_bits`` (default: LBO 16, SBO 1024, 128-byte swizzle): the same as
        :meth:`descriptor` with the fields ``const_bits`` holds, built by ``umma.smem_desc_reg``.
        PTX ISA:
        https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-shared-memory-descriptor

        Returns:
            The ``b64`` descriptor register.

        Raises:
            PtxDslError: a ``mask`` other than the start field's ``0x3FFF0``, or
                ``const_bits`` that are not a start-address-free descriptor.
        """
        if mask != 0x3FFF0:
            raise PtxDslError(
                f"tcgen05.masked_descriptor keeps the 14-bit start field (mask=0x3FFF0), got "
                f"mask={mask!r}; for another mask use ptx.wgmma.masked_descriptor"
            )
        f = umma.decode_smem_desc(const_bits)
        swizzle = {v: k for k, v in umma.SWIZZLE_MODES.items()}.get(f["swizzle"], "?")
        kw: dict[str, Any] = dict(lbo=f["lbo"] << 4, sbo=f["sbo"] << 4, swizzle=swizzle)
        kw.update(base_offset=f["base_offset"], lbo_mode=("relative", "absolute")[f["lbo_mode"]])
        if swizzle == "?" or umma.smem_desc(0, **kw) != const_bits:
            raise PtxDslError(
                f"tcgen05.masked_descriptor const_bits=0x{const_bits:016X} is not a shared "
                "memory descriptor without a start address (see umma.smem_desc)"
            )
        return umma.smem_desc_reg(smem_addr, offset=byte_offset, **kw)


tcgen05 = Tcgen05()
"""``ptx.tcgen05``: the Blackwell tensor-core / Tensor Memory namespace."""

MULTI_INSTRUCTION: dict[str, str] = {
    **umma.MULTI_INSTRUCTION,
    "ptx.tcgen05.descriptor / masked_descriptor": "what umma.smem_desc_reg emits",
}
"""Helpers of this family that emit more than one instruction: the register-built UMMA
descriptors of :mod:`pyptx.dsl.umma` and the seed system's spellings of them (every other
``ptx.tcgen05.*`` call emits exactly one instruction, the descriptor ints none)."""
