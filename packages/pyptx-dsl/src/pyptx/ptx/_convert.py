"""PTX instruction family: conversions (``cvt``, ``cvt.pack``, ``cvta``).

``ptx.cvt(d, a, ...)`` covers every ``cvt`` form, from plain ``cvt.rn.f32.s32`` to the packed
low-precision ones (``cvt.rn.satfinite.e4m3x2.f32 d, a, b``, ``cvt.rs.relu.satfinite.e2m1x4.f32
d, {a, b, e, f}, rbits``, ``cvt.rz.ue8m0x2.f32``). ``dtype=`` / ``atype=`` default to the types
of ``d`` and ``a`` (``reg.scalar(e4m3x2)`` is a 16-bit register whose type says what it
holds). Mandatory modifiers of a form are still spelled by the caller (``rnd="rn",
satfinite=True``), so the call reads like the instruction it emits; a missing one is an error
that names it.
"""

from __future__ import annotations

from ..dsl.errors import PtxDslError
from ..dsl.operands import emit_inst
from ..dsl.regs import Reg
from ..dsl.shared import SharedSlice
from ._arith_common import (
    T,
    TypeArg,
    check_takes,
    choice,
    dest,
    flag,
    fmt_types,
    imm,
    required,
    resolve_type,
)

__all__ = ["cvt", "cvta"]

_STD = (T.U8, T.U16, T.U32, T.U64, T.S8, T.S16, T.S32, T.S64, T.BF16, T.F16, T.F32, T.F64)
_IRND = ("rni", "rzi", "rmi", "rpi")
_FRND = ("rn", "rz", "rm", "rp")
_F8X2 = (T.E4M3X2, T.E5M2X2)
_F6X2 = (T.E2M3X2, T.E3M2X2)
_F4X2 = (T.E2M1X2,)
_X4 = (T.E4M3X4, T.E5M2X4, T.E2M3X4, T.E3M2X4, T.E2M1X4)
_PACKED_SRC = (*_F8X2, *_F6X2, *_F4X2)
_DTYPES = (*_STD, T.F16X2, T.BF16X2, T.TF32, *_F8X2, *_F6X2, *_F4X2, *_X4, T.UE8M0X2)
_ATYPES = (*_STD, T.F16X2, T.BF16X2, *_PACKED_SRC, T.UE8M0X2)


def _float(t: T) -> bool:
    return t in (T.F16, T.BF16, T.F32, T.F64)


class _Form:
    """One special ``cvt`` form: its roundings, its flags in PTX order, its operand count."""

    __slots__ = ("fixed", "flags", "nsrc", "rbits", "rnd")

    def __init__(
        self,
        rnd: tuple[str, ...],
        flags: tuple[str, ...],
        nsrc: int,
        fixed: tuple[str, ...] = (),
        rbits: bool = False,
    ) -> None:
        self.rnd = rnd
        self.flags = flags
        self.nsrc = nsrc
        self.fixed = fixed
        self.rbits = rbits


def _special(dt: T, at: T, rnd: str | None) -> _Form | None:
    """The special (packed / low-precision) form for ``dt`` <- ``at``, if it is one."""
    if at is T.F32:
        if dt in (T.F16X2, T.BF16X2):
            if rnd == "rs":
                return _Form(("rs",), ("relu", "satfinite"), 2, rbits=True)
            return _Form(("rn", "rz"), ("relu", "satfinite"), 2)
        if dt is T.TF32:
            if rnd == "rna":
                return _Form(("rna",), ("satfinite",), 1)
            return _Form(("rn", "rz"), ("satfinite", "relu"), 1)
        if dt in (*_F8X2, *_F6X2, *_F4X2):
            return _Form(("rn",), ("satfinite", "relu"), 2, fixed=("satfinite",))
        if dt in _X4:
            return _Form(("rs",), ("relu", "satfinite"), 4, fixed=("satfinite",), rbits=True)
        if dt is T.UE8M0X2:
            return _Form(("rz", "rp"), ("satfinite",), 2)
    if dt in _F8X2 and at is T.F16X2:
        return _Form(("rn",), ("satfinite", "relu"), 1, fixed=("satfinite",))
    if dt is T.F16X2 and at in _PACKED_SRC:
        return _Form(("rn",), ("relu",), 1)
    if dt is T.UE8M0X2 and at is T.BF16X2:
        return _Form(("rz", "rp"), ("satfinite",), 1)
    if dt is T.BF16X2 and at is T.UE8M0X2:
        return _Form(("rn",), (), 1)
    return None


def _std_rounding(dt: T, at: T, rnd: str | None) -> None:
    """Check the rounding of a standard ``cvt.dtype.atype`` against the PTX rules."""
    name = f"cvt.{dt.value}.{at.value}"
    if _float(at) and not _float(dt):
        if rnd not in _IRND:
            raise PtxDslError(
                f"{name} (float to integer) needs rnd= one of 'rni', 'rzi', 'rmi', 'rpi', "
                f"got {rnd!r}"
            )
    elif _float(dt) and (not _float(at) or dt.bits < at.bits):
        if rnd not in _FRND:
            what = "integer to float" if not _float(at) else "a narrowing float conversion"
            raise PtxDslError(
                f"{name} ({what}) needs rnd= one of 'rn', 'rz', 'rm', 'rp', got {rnd!r}"
            )
    elif _float(dt) and dt is at:
        choice(name, "rnd", rnd, _IRND)
    elif rnd is not None:
        raise PtxDslError(f"{name} takes no rounding modifier, but got rnd={rnd!r}")


class _Cvt:
    """``ptx.cvt(...)`` and ``ptx.cvt.pack(...)``."""

    def __call__(
        self,
        d: Reg,
        a: object,
        b: object = None,
        *,
        dtype: TypeArg = None,
        atype: TypeArg = None,
        rnd: str | None = None,
        ftz: bool = False,
        sat: bool = False,
        relu: bool = False,
        satfinite: bool = False,
        rbits: object = None,
        pred: object = None,
    ) -> Reg:
        """Convert ``a`` (and ``b``) to ``dtype`` (one instruction).

        Emits, depending on the types:

        * ``cvt{.rnd}{.ftz}{.sat}.dtype.atype d, a`` between u8..s64, f16, bf16, f32, f64
          (``rnd=`` ``"rni"/"rzi"/"rmi"/"rpi"`` float->int, ``"rn"/"rz"/"rm"/"rp"``
          int->float and narrowing float->float; ``relu``/``satfinite`` on
          ``.f16.f32``/``.bf16.f32`` with ``rnd`` ``"rn"``/``"rz"``);
        * ``cvt.<rn|rz>{.relu}{.satfinite}.<f16x2|bf16x2>.f32 d, a, b`` and
          ``cvt.rs{.relu}{.satfinite}.<f16x2|bf16x2>.f32 d, a, b, rbits`` (sm_100a);
        * ``cvt.rna{.satfinite}.tf32.f32`` and ``cvt.<rn|rz>{.satfinite}{.relu}.tf32.f32``;
        * ``cvt.rn.satfinite{.relu}.<e4m3x2|e5m2x2|e2m3x2|e3m2x2|e2m1x2>.f32 d, a, b``
          (sm_89 for e4m3/e5m2, sm_100a for the others) and ``...e4m3x2.f16x2 d, a``;
        * ``cvt.rn{.relu}.f16x2.<e4m3x2|e5m2x2|e2m3x2|e3m2x2|e2m1x2> d, a``;
        * ``cvt.rs{.relu}.satfinite.<e4m3x4|e5m2x4|e2m3x4|e3m2x4|e2m1x4>.f32 d, {a, b, e, f},
          rbits`` (``a`` a 4-tuple);
        * ``cvt.<rz|rp>{.satfinite}.ue8m0x2.<f32|bf16x2>`` and ``cvt.rn.bf16x2.ue8m0x2``.

        For the two-source packed forms ``a`` goes to the upper half of ``d`` and ``b`` to
        the lower half.

        Args:
            d: destination register.
            a: source (a 4-tuple of ``f32`` for the ``x4`` forms).
            b: second source of the two-source packed forms.
            dtype: destination type; default: the type of ``d``.
            atype: source type; default: the type of ``a``.
            rnd: rounding modifier (see above; ``"rs"`` is stochastic rounding).
            ftz: flush subnormal inputs/results to zero (``.ftz``).
            sat: saturate (``.sat``).
            relu: clamp negative results to 0 (``.relu``).
            satfinite: saturate to the largest finite value (``.satfinite``).
            rbits: the random bits operand of the ``rs`` forms.
            pred: optional guard predicate.

        Returns:
            ``d``.

        Example:
            ``ptx.cvt(q, hi, lo, dtype=e4m3x2, rnd="rn", satfinite=True)`` emits
            ``cvt.rn.satfinite.e4m3x2.f32 %rs0, %f0, %f1;``.

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt
        """
        dst = dest("cvt", d)
        dt = resolve_type("cvt", dtype, _DTYPES, dst, kw="dtype")
        first = a[0] if isinstance(a, (tuple, list)) and a else a
        at = resolve_type("cvt", atype, _ATYPES, first, kw="atype")
        r = choice("cvt", "rnd", rnd, (*_FRND, *_IRND, "rna", "rs"))
        flags = {
            k: flag("cvt", k, v)
            for k, v in (("ftz", ftz), ("sat", sat), ("relu", relu), ("satfinite", satfinite))
        }
        name = f"cvt.{dt.value}.{at.value}"
        form = _special(dt, at, r)
        if form is None and dt in (T.F16, T.BF16) and at is T.F32 and (relu or satfinite):
            form = _Form(("rn", "rz"), ("relu", "satfinite"), 1)
        if form is None:
            if dt not in _STD or at not in _STD:
                raise PtxDslError(
                    f"cvt has no form from {at.ptx} to {dt.ptx}; the packed conversions are "
                    f"f32 -> {fmt_types((T.F16X2, T.BF16X2, T.TF32, *_F8X2, *_F6X2, *_F4X2))}, "
                    f"x4 types and ue8m0x2, and back to f16x2/bf16x2"
                )
            check_takes(name, {"relu": relu, "satfinite": satfinite, "rbits": rbits}, ())
            if b is not None or isinstance(a, (tuple, list)):
                raise PtxDslError(f"{name} converts one scalar source, but got more")
            _std_rounding(dt, at, r)
            mods = [m for m in (r,) if m] + [k for k in ("ftz", "sat") if flags[k]]
            emit_inst("cvt", [*mods, dt.value, at.value], (dst, imm(a, at)), pred)
            return dst
        check_takes(name, {"ftz": ftz, "sat": sat}, ())
        check_takes(name, {k: flags[k] for k in ("relu", "satfinite")}, form.flags)
        rr = required(name, "rnd", r, form.rnd)
        for f in form.fixed:
            if not flags[f]:
                raise PtxDslError(f"{name} exists only with .{f}; pass {f}=True")
        srcs = self._sources(name, form, a, b)
        if form.rbits != (rbits is not None):
            need = "needs rbits= (the random bits register)" if form.rbits else "takes no rbits="
            raise PtxDslError(f"cvt.{rr}.{dt.value}.{at.value} {need}")
        mods = [rr, *(f for f in form.flags if flags[f]), dt.value, at.value]
        extra = (rbits,) if rbits is not None else ()
        emit_inst("cvt", mods, (dst, *srcs, *extra), pred)
        return dst

    @staticmethod
    def _sources(name: str, form: _Form, a: object, b: object) -> tuple[object, ...]:
        if form.nsrc == 4:
            if not isinstance(a, (tuple, list)) or len(a) != 4 or b is not None:
                raise PtxDslError(f"{name} expects a = a tuple of 4 f32 registers and no b")
            return (tuple(a),)
        if form.nsrc == 2:
            if b is None:
                raise PtxDslError(
                    f"{name} packs two sources: pass a (upper half) and b (lower half)"
                )
            return (a, b)
        if b is not None:
            raise PtxDslError(f"{name} converts one source; got a second one")
        return (a,)

    def pack(
        self,
        d: Reg,
        a: object,
        b: object,
        c: object = None,
        *,
        dtype: TypeArg = None,
        pred: object = None,
    ) -> Reg:
        """Saturate two ``s32`` values and pack them (one instruction).

        Emits ``cvt.pack.sat.<u16|s16>.s32 d, a, b`` or, with ``c``,
        ``cvt.pack.sat.<u2|s2|u4|s4|u8|s8>.s32.b32 d, a, b, c`` (``c``'s low bits shifted in;
        sm_72). ``.sat`` is part of the only spelling and always emitted.

        Args:
            d: destination register (``b32``).
            a: first source (``s32``), packed into the upper part.
            b: second source (``s32``).
            c: the ``b32`` whose bits fill the rest, for the narrow types.
            dtype: the packed element type: ``"u16"``, ``"s16"`` (no ``c``) or ``"u2"``,
                ``"s2"``, ``"u4"``, ``"s4"``, ``"u8"``, ``"s8"`` (with ``c``); a string or a
                ``PtxType``.
            pred: optional guard predicate.

        Returns:
            ``d``.

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt-pack
        """
        dst = dest("cvt.pack", d)
        name = dtype.value if isinstance(dtype, T) else dtype
        allowed = ("u16", "s16") if c is None else ("u2", "s2", "u4", "s4", "u8", "s8")
        ct = required("cvt.pack", "dtype", name, allowed)
        mods = ["pack", "sat", ct, "s32", *(["b32"] if c is not None else [])]
        emit_inst("cvt", mods, (dst, a, b, *((c,) if c is not None else ())), pred)
        return dst


cvt = _Cvt()
"""``ptx.cvt(d, a, ...)``: one ``cvt`` instruction; ``ptx.cvt.pack(...)``: ``cvt.pack``."""

_SPACES = (
    "const",
    "global",
    "local",
    "shared",
    "shared::cta",
    "shared::cluster",
    "param",
    "param::entry",
)


class _Cvta:
    """``ptx.cvta(...)`` (to generic) and ``ptx.cvta.to(...)`` (from generic)."""

    @staticmethod
    def _emit(to: bool, p: object, a: object, space: object, ty: TypeArg, pred: object) -> Reg:
        op = "cvta.to" if to else "cvta"
        dst = dest(op, p)
        sp = required(op, "space", space, _SPACES)
        if ty is None and dst.type.bits != 64:
            raise PtxDslError(
                f"{op} works on 64-bit addresses (pyptx kernels use .address_size 64), but "
                f"{dst.name} is {dst.type.ptx}; use a u64 register"
            )
        t = resolve_type(op, ty if ty is not None else T.U64, (T.U64,))
        src = a
        if isinstance(a, SharedSlice):
            from pyptx.ir import BinaryExpr, Immediate, Symbol

            src = (
                BinaryExpr("+", Symbol(a.name), Immediate(str(a.offset)))
                if a.offset
                else (Symbol(a.name))
            )
        emit_inst("cvta", [*(["to"] if to else []), sp, t.value], (dst, src), pred)
        return dst

    def __call__(
        self, p: Reg, a: object, *, space: str, ty: TypeArg = None, pred: object = None
    ) -> Reg:
        """Convert a ``space`` address to a generic one (one instruction).

        Emits ``cvta.space.u64 p, a``; ``a`` may be a register, or a variable such as a
        shared allocation or a stage slice of one (``cvta.shared.u64 p, smem_0+1024``).

        Args:
            p: destination 64-bit register.
            a: the ``space`` address (register or variable).
            space: ``"const"``, ``"global"``, ``"local"``, ``"shared"``, ``"shared::cta"``,
                ``"shared::cluster"``, ``"param"`` or ``"param::entry"``.
            ty: ``u64`` (the only size with 64-bit addressing).
            pred: optional guard predicate.

        Returns:
            ``p``.

        Example:
            ``ptx.cvta(g, sA, space="shared")`` emits ``cvta.shared.u64 %rd0, smem_0;``.

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvta
        """
        return self._emit(False, p, a, space, ty, pred)

    def to(self, p: Reg, a: object, *, space: str, ty: TypeArg = None, pred: object = None) -> Reg:
        """Convert a generic address to a ``space`` address (one instruction).

        Emits ``cvta.to.space.u64 p, a``.

        Args:
            p: destination register.
            a: the generic address.
            space: the state space, as for :meth:`__call__`.
            ty: ``u64`` (the only size with 64-bit addressing).
            pred: optional guard predicate.

        Returns:
            ``p``.

        Example:
            ``ptx.cvta.to(g, raw, space="global")`` emits ``cvta.to.global.u64 %rd1, %rd0;``.

        PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvta
        """
        return self._emit(True, p, a, space, ty, pred)


cvta = _Cvta()
"""``ptx.cvta(p, a, space=...)`` and ``ptx.cvta.to(p, a, space=...)``: one ``cvta`` each."""

MULTI_INSTRUCTION: dict[str, str] = {}
"""This family has no multi-instruction helpers."""
