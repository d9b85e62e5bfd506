"""PTX instruction family: conversions (``cvt``, ``cvt.pack``, ``cvta``).

``ptx.cvt(d, a, ...)`` covers every ``cvt`` form, from plain ``cvt.rn.f32.s32`` to the packed
low-precision ones (``cvt.rn.satfinite.e4m3x2.f32 d, a, b``, ``cvt.rs.relu.satfinite.e2m1x4.f32
d, {a, b, e, f}, rbits``, ``cvt.rz.ue8m0x2.f32``). ``dtype=`` / ``atype=`` default to the types
of ``d`` and ``a`` (``reg.scalar(e4m3x2)`` is a 16-bit register whose type says what it
holds). Mandatory modifiers of a form are still spelled by the caller (``rnd="rn",
satfinite=True``), so the call reads like the instruction it emits; the ISA table
(:mod:`pyptx.ir.isa`) names a missing one, and also gives the order the modifiers are written
in (``.relu.satfinite`` or ``.satfinite.relu``, by form).
"""

from __future__ import annotations

from collections.abc import Sequence

from pyptx.ir import BinaryExpr, Immediate, Instruction, Symbol, isa

from ..dsl.operands import emit_inst
from ..dsl.regs import Reg, _new
from ..dsl.shared import SharedSlice
from ._arith_common import T, TypeArg, as_type, documented, imm, infer_type, spell, table_types

__all__ = ["cvt", "cvta"]


def _table_order(opcode: str, mods: Sequence[str]) -> list[str]:
    """``mods`` in the slot order of the first ISA form they fit; as given if none fits."""
    m = isa.match(Instruction(opcode, tuple(mods), ()))
    if m is None:
        return list(mods)
    return [v for g in m.form.groups for v in m.slots.get(g.name, ())]


class _Cvt:
    """``ptx.cvt(...)`` and ``ptx.cvt.pack(...)``."""

    @documented(
        "a: source (a 4-tuple of ``f32`` for the ``x4`` forms).",
        "b: second source of the two-source packed forms.",
        "dtype: destination type; default: the type of ``d``.",
        "atype: source type; default: the type of ``a``.",
        'rnd: rounding modifier (see above; ``"rs"`` is stochastic rounding).',
        "ftz: flush subnormal inputs/results to zero (``.ftz``).",
        "sat: saturate (``.sat``).",
        "relu: clamp negative results to 0 (``.relu``).",
        "satfinite: saturate to the largest finite value (``.satfinite``).",
        "rbits: the random bits operand of the ``rs`` forms.",
        example=(
            '``ptx.cvt(q, hi, lo, dtype=e4m3x2, rnd="rn", satfinite=True)`` emits'
            "\n    ``cvt.rn.satfinite.e4m3x2.f32 %rs0, %f0, %f1;``."
        ),
        anchor="data-movement-and-conversion-instructions-cvt",
    )
    def __call__(
        self, d: Reg, a: object, b: object = None, *,
        dtype: TypeArg = None, atype: TypeArg = None, rnd: str | None = None, ftz: bool = False,
        sat: bool = False, relu: bool = False, satfinite: bool = False, rbits: object = None,
        pred: object = None,
    ) -> Reg:  # fmt: skip
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
        """
        dt = infer_type("cvt", dtype, table_types("cvt", "dtype"), d, kw="dtype")
        vec = tuple(a) if isinstance(a, (tuple, list)) else None
        at = infer_type("cvt", atype, table_types("cvt", "atype"), vec[0] if vec else a, kw="atype")
        mods = spell(rnd=rnd, ftz=ftz, sat=sat, relu=relu, satfinite=satfinite, d=dt, a=at)
        srcs = (imm(a, at) if vec is None else vec, *(x for x in (b, rbits) if x is not None))
        emit_inst("cvt", _table_order("cvt", mods), (d, *srcs), pred)
        return d

    @documented(
        "a: first source (``s32``), packed into the upper part.",
        "b: second source (``s32``).",
        "c: the ``b32`` whose bits fill the rest, for the narrow types.",
        'dtype: the packed element type: ``"u16"``, ``"s16"`` (no ``c``) or ``"u2"``,'
        '\n        ``"s2"``, ``"u4"``, ``"s4"``, ``"u8"``, ``"s8"`` (with ``c``); a string or a'
        "\n        ``PtxType``.",
        d="destination register (``b32``).",
        anchor="data-movement-and-conversion-instructions-cvt-pack",
    )
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
        """
        ctype = dtype.value if isinstance(dtype, T) else dtype
        btype = "b32" if c is not None else None
        mods = ["pack", *spell(sat=True, ctype=ctype, atype="s32", btype=btype)]
        emit_inst("cvt", mods, (d, a, b, *(() if c is None else (c,))), pred)
        return d


cvt = _Cvt()
"""``ptx.cvt(d, a, ...)``: one ``cvt`` instruction; ``ptx.cvt.pack(...)``: ``cvt.pack``."""


class _Cvta:
    """``ptx.cvta(...)`` (to generic) and ``ptx.cvta.to(...)`` (from generic)."""

    @staticmethod
    def _emit(to: bool, p: Reg, a: object, space: object, ty: TypeArg, pred: object) -> Reg:
        t = T.U64 if ty is None else as_type("cvta.to" if to else "cvta", "ty", ty)
        if isinstance(a, SharedSlice):
            off = Immediate(str(a.offset))
            a = BinaryExpr("+", Symbol(a.name), off) if a.offset else Symbol(a.name)
        emit_inst("cvta", [*spell(to=to, space=space), t.value], (p, a), pred)
        return p

    @documented(
        "a: the ``space`` address (register or variable).",
        'space: ``"const"``, ``"global"``, ``"local"``, ``"shared"``, ``"shared::cta"``,'
        '\n        ``"shared::cluster"``, ``"param"`` or ``"param::entry"``.',
        "ty: ``u64`` (the only size with 64-bit addressing).",
        d="destination 64-bit register.",
        example='``ptx.cvta(g, sA, space="shared")`` emits ``cvta.shared.u64 %rd0, smem_0;``.',
        dest="p",
        anchor="data-movement-and-conversion-instructions-cvta",
    )
    def __call__(
        self, p: Reg, a: object, *, space: str, ty: TypeArg = None, pred: object = None
    ) -> Reg:
        """Convert a ``space`` address to a generic one (one instruction).

        Emits ``cvta.space.u64 p, a``; ``a`` may be a register, or a variable such as a
        shared allocation or a stage slice of one (``cvta.shared.u64 p, smem_0+1024``).
        """
        return self._emit(False, p, a, space, ty, pred)

    @documented(
        "a: the generic address.",
        "space: the state space, as for :meth:`__call__`.",
        "ty: ``u64`` (the only size with 64-bit addressing).",
        example='``ptx.cvta.to(g, raw, space="global")`` emits ``cvta.to.global.u64 %rd1, %rd0;``.',
        dest="p",
        anchor="data-movement-and-conversion-instructions-cvta",
    )
    def to(self, p: Reg, a: object, *, space: str, ty: TypeArg = None, pred: object = None) -> Reg:
        """Convert a generic address to a ``space`` address (one instruction).

        Emits ``cvta.to.space.u64 p, a``.
        """
        return self._emit(True, p, a, space, ty, pred)

    def to_global(self, src: object, dst: Reg | None = None, *, pred: object = None) -> Reg:
        """A generic address as a global one (one instruction); the seed system's spelling.

        Emits ``cvta.to.global.u64 dst, src``: the same instruction as ``ptx.cvta.to(dst, src,
        space="global")``.

        Args:
            src: the generic 64-bit address.
            dst: the register to write (default: a fresh ``u64``).
            pred: optional guard predicate.

        Returns:
            ``dst``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvta
        """
        return self._emit(True, _new(T.U64) if dst is None else dst, src, "global", None, pred)

    def param(self, src: object, dst: Reg | None = None, *, pred: object = None) -> Reg:
        """A kernel-parameter address as a generic one (one instruction); the seed's spelling.

        Emits ``cvta.param.u64 dst, src``: the same instruction as ``ptx.cvta(dst, src,
        space="param")`` (``A.tma_desc()`` already does this for a TMA tile).

        Args:
            src: the parameter-space address.
            dst: the register to write (default: a fresh ``u64``).
            pred: optional guard predicate.

        Returns:
            ``dst``.

        See: https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvta
        """
        return self._emit(False, _new(T.U64) if dst is None else dst, src, "param", None, pred)


cvta = _Cvta()
"""``ptx.cvta(p, a, space=...)`` and ``ptx.cvta.to(p, a, space=...)``: one ``cvta`` each (also
``ptx.cvta.to_global(a)`` / ``ptx.cvta.param(a)``, the seed system's spellings)."""

MULTI_INSTRUCTION: dict[str, str] = {}
"""This family has no multi-instruction helpers."""
