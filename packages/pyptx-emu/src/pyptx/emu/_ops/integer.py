"""Integer arithmetic: add, subtract, multiply, divide, the carry chain and dot products.

``add``/``sub`` (``.sat.s32``, packed ``.u16x2``/``.s16x2``), ``add.cc``/``sub.cc``,
``addc``/``subc``, ``mul``/``mad`` (``.lo``/``.hi``/``.wide``, ``.cc``, ``mad.hi.sat.s32``),
``madc``, ``mul24``/``mad24``, ``sad``, ``div``, ``rem``, ``abs``, ``neg``, ``min``/``max``
(packed, ``.relu``), ``dp4a`` and ``dp2a``.

Every operand is read as the unsigned integer of its width, whose numpy arithmetic wraps modulo
2^n exactly as PTX integer arithmetic does; signed comparisons and products look at the same
bits as signed. ``.hi`` products of 64-bit operands are assembled from 32-bit partial products
(vectorized, exact).

Where the ISA leaves a result open, the emulator does what ptxas compiles for sm_90 (read off
its SASS):

* Division or remainder by zero gives all ones (``-1`` for signed types) for every width:
  ptxas's division sequences end by replacing the result with ``~b`` (or ``0xffffffff``)
  when ``b == 0``.
* ``MIN / -1`` wraps to ``MIN`` and ``MIN % -1`` is ``0`` (division on magnitudes, then the
  sign).
* The condition code ``CC.CF`` is one bit per thread that holds a *carry*: ``add.cc`` and
  ``mad.cc`` store the carry out of the addition, ``sub.cc`` the carry out of
  ``a + ~b + 1`` (set when no borrow occurs), ``addc``/``madc`` add ``CF`` and ``subc``
  computes ``a + ~b + CF``, the way ptxas lowers them (``IADD3``/``IADD3.X``). For chains of
  ``add.cc``/``addc``/``madc`` and of ``sub.cc``/``subc`` this is exactly the ISA's
  carry-in/borrow-in arithmetic; reading ``CF`` in a thread before any ``.cc`` instruction
  wrote it raises :class:`~pyptx.emu.UninitializedRead`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyptx.ir import PtxType, TypeKind

from .._errors import Fault, UninitializedRead
from .._lanes import Lanes
from .._machine import Executor
from .._site import Reader, Site

__all__ = [
    "SEMANTICS",
    "abs",
    "add",
    "div",
    "mad",
    "max",
    "min",
    "mul",
    "neg",
    "rem",
    "sub",
]

_M32 = np.uint64(0xFFFF_FFFF)
_S32 = np.uint64(32)


# --------------------------------------------------------------------------------- helpers


def _unsigned(bits: int) -> PtxType:
    """The unsigned PTX type of a width."""
    ty = PtxType.from_name(f"u{bits}")
    assert ty is not None
    return ty


def _udtype(bits: int) -> np.dtype:
    return np.dtype(f"u{bits // 8}")


def _sdtype(bits: int) -> np.dtype:
    return np.dtype(f"i{bits // 8}")


def _is_signed(ty: PtxType) -> bool:
    return ty.kind is TypeKind.SIGNED


def _mode(site: Site) -> str:
    return site.slot("mode") or "lo"


def _sources(site: Site, names: str, bits: int) -> list[Reader]:
    """Readers of the named operands as unsigned integers of ``bits``."""
    uty = _unsigned(bits)
    return [site.src(name, uty) for name in names]


def _to_signed(x: np.ndarray) -> np.ndarray:
    """The signed values of unsigned bit patterns, as ``int64`` (widths up to 32)."""
    return x.view(_sdtype(x.dtype.itemsize * 8)).astype(np.int64)


def _clamp_s32(v: np.ndarray) -> np.ndarray:
    """``int64`` values saturated to the ``.s32`` range, as ``uint32`` bits."""
    return np.clip(v, -(2**31), 2**31 - 1).astype(np.int32).view(np.uint32)


def _wide_product(x: np.ndarray, y: np.ndarray, signed: bool) -> np.ndarray:
    """The exact product of two ``<= 32``-bit operands, as ``uint64`` bits."""
    if signed:
        return (_to_signed(x) * _to_signed(y)).view(np.uint64)
    return x.astype(np.uint64) * y.astype(np.uint64)


def _mul_hi64(x: np.ndarray, y: np.ndarray, signed: bool) -> np.ndarray:
    """The upper 64 bits of the 128-bit product of ``uint64`` bit patterns."""
    x0, x1 = x & _M32, x >> _S32
    y0, y1 = y & _M32, y >> _S32
    p00, p01, p10, p11 = x0 * y0, x0 * y1, x1 * y0, x1 * y1
    mid = (p00 >> _S32) + (p01 & _M32) + (p10 & _M32)
    hi = p11 + (p01 >> _S32) + (p10 >> _S32) + (mid >> _S32)
    if signed:
        # (x - 2^64 [x < 0]) * (y - 2^64 [y < 0]) = x*y - 2^64 (y [x < 0] + x [y < 0]) mod 2^128.
        zero = np.zeros_like(hi)
        hi = hi - np.where(x >> np.uint64(63) != 0, y, zero)
        hi = hi - np.where(y >> np.uint64(63) != 0, x, zero)
    return hi


def _mul_hi(x: np.ndarray, y: np.ndarray, bits: int, signed: bool) -> np.ndarray:
    """The upper ``bits`` bits of the ``2 * bits`` product, as unsigned ``bits``."""
    if bits == 64:
        return _mul_hi64(x, y, signed)
    return (_wide_product(x, y, signed) >> np.uint64(bits)).astype(_udtype(bits))


def _add_carry(
    x: np.ndarray, y: np.ndarray, cin: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """``x + y + cin`` on unsigned arrays of one width: the wrapped sum and the carry out."""
    s = x + y
    carry = s < x
    if cin is not None:
        s2 = s + cin.astype(s.dtype)
        carry |= s2 < s
        s = s2
    return s, carry


# --------------------------------------------------------------------------------- CC.CF

_CARRY = "integer.carry"


class _CarryFlag:
    """``CC.CF`` of every thread of a wave, and which threads have written it."""

    __slots__ = ("flag", "written")

    def __init__(self, n: int) -> None:
        self.flag = np.zeros(n, dtype=bool)
        self.written = np.zeros(n, dtype=bool)


def _carry_state(m: Any) -> _CarryFlag:
    state: _CarryFlag | None = m.ext.get(_CARRY)
    if state is None:
        state = m.ext[_CARRY] = _CarryFlag(m.n)
    return state


def _carry_in(m: Any, lanes: Lanes, mnemonic: str) -> np.ndarray:
    state = _carry_state(m)
    written = state.written[lanes.sel]
    if not written.all():
        first = int(np.argmin(written))
        raise Fault(
            UninitializedRead,
            f"{mnemonic} reads the carry flag CC.CF, but no .cc instruction wrote it in this "
            "thread before; start the chain with add.cc, sub.cc or mad.cc",
            lane=int(lanes.idx[first]),
        )
    return state.flag[lanes.sel]


def _carry_out(m: Any, lanes: Lanes, carry: np.ndarray) -> None:
    state = _carry_state(m)
    state.flag[lanes.sel] = carry
    state.written[lanes.sel] = True


# ------------------------------------------------------------------------------- add / sub


def _packed16(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Any:
    """Apply ``fn`` to the two 16-bit halves of ``uint32`` operands (wrapping per half)."""

    def both(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        low = fn(x & np.uint32(0xFFFF), y & np.uint32(0xFFFF)) & np.uint32(0xFFFF)
        high = fn(x >> np.uint32(16), y >> np.uint32(16)) << np.uint32(16)
        return low | high

    return both


def _add_sub(site: Site, negate_b: bool) -> Executor:
    ty = site.type()
    bits = ty.bits
    a, b = _sources(site, "ab", bits)
    d = site.dst("d", ty)
    op: Callable[[np.ndarray, np.ndarray], np.ndarray] = np.subtract if negate_b else np.add
    if site.has("sat"):

        def saturated(m: Any, lanes: Lanes) -> Any:
            d(m, lanes, _clamp_s32(op(_to_signed(a(m, lanes)), _to_signed(b(m, lanes)))))

        return saturated
    if ty.info.lanes == 2:
        op = _packed16(op)

    def run(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, op(a(m, lanes), b(m, lanes)))

    return run


def add(site: Site) -> Executor:
    """``add.type d, a, b`` on integers (``.sat.s32``; ``.u16x2``/``.s16x2`` per half)."""
    return _add_sub(site, False)


def sub(site: Site) -> Executor:
    """``sub.type d, a, b`` on integers (``.sat.s32``; ``.u16x2``/``.s16x2`` per half)."""
    return _add_sub(site, True)


def _carry_chain(negate_b: bool, carry_in: bool) -> Callable[[Site], Executor]:
    """``add.cc``, ``sub.cc``, ``addc`` and ``subc`` (see the module docstring on ``CF``)."""

    def factory(site: Site) -> Executor:
        ty = site.type()
        a, b = _sources(site, "ab", ty.bits)
        d = site.dst("d", ty)
        writes = not carry_in or site.has("cc")
        mnemonic = site.mnemonic

        def run(m: Any, lanes: Lanes) -> Any:
            y = b(m, lanes)
            cin: np.ndarray | None = None
            if carry_in:
                cin = _carry_in(m, lanes, mnemonic)
            elif negate_b:
                cin = np.ones(lanes.n, dtype=bool)  # a - b = a + ~b + 1
            s, carry = _add_carry(a(m, lanes), ~y if negate_b else y, cin)
            d(m, lanes, s)
            if writes:
                _carry_out(m, lanes, carry)

        return run

    factory.__doc__ = "Integer addition/subtraction in a carry chain."
    return factory


# ------------------------------------------------------------------------------- mul / mad


def _wide_type(ty: PtxType) -> PtxType:
    wide = PtxType.from_name(f"{'s' if _is_signed(ty) else 'u'}{2 * ty.bits}")
    assert wide is not None
    return wide


def mul(site: Site) -> Executor:
    """``mul.{lo,hi,wide}.type d, a, b`` on integers."""
    ty = site.type()
    mode = _mode(site)
    bits, signed = ty.bits, _is_signed(ty)
    a, b = _sources(site, "ab", bits)
    if mode == "wide":
        d = site.dst("d", _wide_type(ty))

        def wide(m: Any, lanes: Lanes) -> Any:
            p = _wide_product(a(m, lanes), b(m, lanes), signed)
            d(m, lanes, p.astype(_udtype(2 * bits)))

        return wide
    d = site.dst("d", ty)
    if mode == "lo":

        def low(m: Any, lanes: Lanes) -> Any:
            d(m, lanes, a(m, lanes) * b(m, lanes))

        return low

    def high(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, _mul_hi(a(m, lanes), b(m, lanes), bits, signed))

    return high


def _mad(site: Site, carry_in: bool) -> Executor:
    """``mad`` and ``madc``: a product's half (or all of it) plus ``c`` (plus ``CF``)."""
    ty = site.type()
    mode = _mode(site)
    bits, signed = ty.bits, _is_signed(ty)
    a, b = _sources(site, "ab", bits)
    if mode == "wide":
        wide_ty = _wide_type(ty)
        c = site.src("c", _unsigned(2 * bits))
        d = site.dst("d", wide_ty)

        def wide(m: Any, lanes: Lanes) -> Any:
            p = _wide_product(a(m, lanes), b(m, lanes), signed).astype(_udtype(2 * bits))
            d(m, lanes, p + c(m, lanes))

        return wide
    (c,) = _sources(site, "c", bits)
    d = site.dst("d", ty)

    def product(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return x * y if mode == "lo" else _mul_hi(x, y, bits, signed)

    if site.has("sat"):  # mad.hi.sat.s32: the high half plus c, saturated.

        def saturated(m: Any, lanes: Lanes) -> Any:
            t = product(a(m, lanes), b(m, lanes))
            d(m, lanes, _clamp_s32(_to_signed(t) + _to_signed(c(m, lanes))))

        return saturated
    writes = site.has("cc")
    mnemonic = site.mnemonic
    if not (writes or carry_in):

        def plain(m: Any, lanes: Lanes) -> Any:
            d(m, lanes, product(a(m, lanes), b(m, lanes)) + c(m, lanes))

        return plain

    def chained(m: Any, lanes: Lanes) -> Any:
        cin = _carry_in(m, lanes, mnemonic) if carry_in else None
        s, carry = _add_carry(product(a(m, lanes), b(m, lanes)), c(m, lanes), cin)
        d(m, lanes, s)
        if writes:
            _carry_out(m, lanes, carry)

    return chained


def mad(site: Site) -> Executor:
    """``mad.{lo,hi,wide}{.cc}.type d, a, b, c`` and ``mad.hi.sat.s32`` on integers."""
    return _mad(site, False)


def madc(site: Site) -> Executor:
    """``madc.{lo,hi}{.cc}.type d, a, b, c``: ``mad`` plus the carry flag."""
    return _mad(site, True)


def _low24(x: np.ndarray, signed: bool) -> np.ndarray:
    """The low 24 bits of ``uint32`` operands, sign- or zero-extended to ``int64``."""
    v = (x & np.uint32(0xFF_FFFF)).astype(np.int64)
    return (v ^ 0x80_0000) - 0x80_0000 if signed else v


def _mul24(x: np.ndarray, y: np.ndarray, hi: bool, signed: bool) -> np.ndarray:
    """Bits 31..0 (``.lo``) or 47..16 (``.hi``) of the 48-bit product of 24-bit operands."""
    p = (_low24(x, signed) * _low24(y, signed)).view(np.uint64)
    return ((p >> np.uint64(16)) if hi else p).astype(np.uint32)


def mul24(site: Site) -> Executor:
    """``mul24.{lo,hi}.type d, a, b``: the operands' low 24 bits multiplied (48 bits)."""
    ty = site.type()
    hi, signed = _mode(site) == "hi", _is_signed(ty)
    a, b = _sources(site, "ab", 32)
    d = site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, _mul24(a(m, lanes), b(m, lanes), hi, signed))

    return run


def mad24(site: Site) -> Executor:
    """``mad24.{lo,hi}.type d, a, b, c`` and ``mad24.hi.sat.s32``."""
    ty = site.type()
    hi, signed, sat = _mode(site) == "hi", _is_signed(ty), site.has("sat")
    a, b, c = _sources(site, "abc", 32)
    d = site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        t = _mul24(a(m, lanes), b(m, lanes), hi, signed)
        if sat:
            d(m, lanes, _clamp_s32(_to_signed(t) + _to_signed(c(m, lanes))))
        else:
            d(m, lanes, t + c(m, lanes))

    return run


# ------------------------------------------------------------------- sad, div, rem, abs, neg


def _less(x: np.ndarray, y: np.ndarray, signed: bool) -> np.ndarray:
    if signed:
        sdt = _sdtype(x.dtype.itemsize * 8)
        return np.less(x.view(sdt), y.view(sdt))
    return np.less(x, y)


def sad(site: Site) -> Executor:
    """``sad.type d, a, b, c``: ``c + |a - b|`` (the difference taken in the type's order)."""
    ty = site.type()
    signed = _is_signed(ty)
    a, b, c = _sources(site, "abc", ty.bits)
    d = site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        x, y = a(m, lanes), b(m, lanes)
        d(m, lanes, c(m, lanes) + np.where(_less(x, y, signed), y - x, x - y))

    return run


def _negate(x: np.ndarray) -> np.ndarray:
    """Two's complement negation of unsigned bit patterns (wrapping)."""
    return ~x + x.dtype.type(1)


def _sign(x: np.ndarray) -> np.ndarray:
    return (x >> x.dtype.type(x.dtype.itemsize * 8 - 1)).astype(bool)


def _divide(x: np.ndarray, y: np.ndarray, signed: bool, remainder: bool) -> np.ndarray:
    """Truncating division (or its remainder) of bit patterns; all ones where ``y == 0``."""
    zero = y == 0
    one = x.dtype.type(1)
    if signed:
        nx, ny = _sign(x), _sign(y)
        mx = np.where(nx, _negate(x), x)
        my = np.where(ny, _negate(y), y)
        my = np.where(zero, one, my)
        r = mx % my if remainder else mx // my
        r = np.where(nx if remainder else nx ^ ny, _negate(r), r)
    else:
        safe = np.where(zero, one, y)
        r = x % safe if remainder else x // safe
    return np.where(zero, ~np.zeros_like(r), r)


def _division(remainder: bool) -> Callable[[Site], Executor]:
    def factory(site: Site) -> Executor:
        ty = site.type()
        signed = _is_signed(ty)
        a, b = _sources(site, "ab", ty.bits)
        d = site.dst("d", ty)

        def run(m: Any, lanes: Lanes) -> Any:
            d(m, lanes, _divide(a(m, lanes), b(m, lanes), signed, remainder))

        return run

    return factory


def div(site: Site) -> Executor:
    """``div.type d, a, b`` on integers: truncating; all ones when ``b == 0``."""
    return _division(False)(site)


def rem(site: Site) -> Executor:
    """``rem.type d, a, b`` on integers: the sign of ``a``; all ones when ``b == 0``."""
    return _division(True)(site)


def _unary(site: Site, fn: Callable[[np.ndarray], np.ndarray]) -> Executor:
    ty = site.type()
    (a,) = _sources(site, "a", ty.bits)
    d = site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, fn(a(m, lanes)))

    return run


def abs(site: Site) -> Executor:
    """``abs.type d, a`` on signed integers (``abs`` of the minimum wraps to itself)."""
    return _unary(site, lambda x: np.where(_sign(x), _negate(x), x))


def neg(site: Site) -> Executor:
    """``neg.type d, a`` on signed integers (wrapping)."""
    return _unary(site, _negate)


# ------------------------------------------------------------------------------- min / max


def _halves(x: np.ndarray, signed: bool) -> np.ndarray:
    """The two 16-bit halves of ``uint32`` values as an ``(n, 2)`` ``int64`` array."""
    h = np.stack([x & np.uint32(0xFFFF), x >> np.uint32(16)], axis=1).astype(np.int64)
    return (h ^ 0x8000) - 0x8000 if signed else h


def _join_halves(h: np.ndarray) -> np.ndarray:
    u = (h & 0xFFFF).astype(np.uint32)
    return u[:, 0] | (u[:, 1] << np.uint32(16))


def _min_max(site: Site, pick: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Executor:
    ty = site.type()
    bits, signed, relu = ty.bits, _is_signed(ty), site.has("relu")
    a, b = _sources(site, "ab", bits)
    d = site.dst("d", ty)
    if ty.info.lanes == 2:

        def packed(m: Any, lanes: Lanes) -> Any:
            r = pick(_halves(a(m, lanes), signed), _halves(b(m, lanes), signed))
            d(m, lanes, _join_halves(np.maximum(r, 0) if relu else r))

        return packed
    sdt = _sdtype(bits)

    def run(m: Any, lanes: Lanes) -> Any:
        x, y = a(m, lanes), b(m, lanes)
        if not signed:
            d(m, lanes, pick(x, y))
            return
        r = pick(x.view(sdt), y.view(sdt))
        d(m, lanes, np.maximum(r, sdt.type(0)) if relu else r)

    return run


def min(site: Site) -> Executor:
    """``min{.relu}.type d, a, b`` on integers (packed ``x2`` types per half)."""
    return _min_max(site, np.minimum)


def max(site: Site) -> Executor:
    """``max{.relu}.type d, a, b`` on integers (packed ``x2`` types per half)."""
    return _min_max(site, np.maximum)


# ----------------------------------------------------------------------------- dp4a / dp2a


def _bytes(x: np.ndarray, signed: bool) -> np.ndarray:
    """The four bytes of ``uint32`` values as an ``(n, 4)`` ``int64`` array."""
    shifts = np.arange(0, 32, 8, dtype=np.uint32)
    v = ((x[:, None] >> shifts) & np.uint32(0xFF)).astype(np.int64)
    return (v ^ 0x80) - 0x80 if signed else v


def _dot(site: Site, products: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Executor:
    """``c`` plus the sum of ``products(a, b)`` (an ``(n, k)`` array), modulo 2^32."""
    a, b, c = _sources(site, "abc", 32)
    d = site.dst("d", PtxType.U32)

    def run(m: Any, lanes: Lanes) -> Any:
        total = products(a(m, lanes), b(m, lanes)).sum(axis=1) + c(m, lanes).astype(np.int64)
        d(m, lanes, total.view(np.uint64).astype(np.uint32))

    return run


def dp4a(site: Site) -> Executor:
    """``dp4a.atype.btype d, a, b, c``: ``c`` plus the dot product of the four byte pairs."""
    a_signed = site.slot("atype") == "s32"
    b_signed = site.slot("btype") == "s32"

    def products(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return _bytes(x, a_signed) * _bytes(y, b_signed)

    return _dot(site, products)


def dp2a(site: Site) -> Executor:
    """``dp2a.{lo,hi}.atype.btype d, a, b, c``: ``a``'s halves times two bytes of ``b``."""
    a_signed = site.slot("atype") == "s32"
    b_signed = site.slot("btype") == "s32"
    first = 0 if _mode(site) == "lo" else 2

    def products(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return _halves(x, a_signed) * _bytes(y, b_signed)[:, first : first + 2]

    return _dot(site, products)


SEMANTICS: dict[str, Any] = {
    "add.cc": _carry_chain(negate_b=False, carry_in=False),
    "sub.cc": _carry_chain(negate_b=True, carry_in=False),
    "addc": _carry_chain(negate_b=False, carry_in=True),
    "subc": _carry_chain(negate_b=True, carry_in=True),
    "madc": madc,
    "mul24": mul24,
    "mad24": mad24,
    "sad": sad,
    "dp4a": dp4a,
    "dp2a": dp2a,
}
"""Integer-only instructions; the shared names (``add``, ``mul``, ...) go through
:mod:`.arith`, which calls this module's functions for integer types."""
