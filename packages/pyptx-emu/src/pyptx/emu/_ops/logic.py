"""Logic, shifts, byte permutes and bit fields.

``and``, ``or``, ``xor``, ``not``, ``cnot``, ``lop3`` (any ``immLut``, and the form with a
predicate output), ``shf``, ``shl``, ``shr``, ``prmt`` (every mode), and the bit-field
instructions ``popc``, ``clz``, ``bfind``, ``fns``, ``brev``, ``bfe``, ``bfi``, ``szext`` and
``bmsk``, each following the pseudocode of the PTX ISA bit for bit (shift amounts at or above
the width clamp, as the ISA says).

All work is on unsigned bit patterns; numpy's shifts are only ever given amounts below the
width, so their result never depends on the platform.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyptx.ir import PredPair, PtxType, TypeKind

from .._errors import EmuError, Fault, NotEmulated
from .._lanes import Lanes
from .._machine import Executor
from .._site import Reader, Site

__all__ = ["SEMANTICS"]


def _udtype(bits: int) -> np.dtype:
    return np.dtype(f"u{bits // 8}")


def _unsigned(bits: int) -> PtxType:
    ty = PtxType.from_name(f"u{bits}")
    assert ty is not None
    return ty


def _shl(x: np.ndarray, n: np.ndarray, bits: int) -> np.ndarray:
    """``x << n`` for any ``n >= 0`` (0 from ``bits`` on)."""
    big = n >= bits
    s = np.where(big, 0, n).astype(x.dtype)
    return np.where(big, x.dtype.type(0), x << s)


def _shr(x: np.ndarray, n: np.ndarray, bits: int) -> np.ndarray:
    """Logical ``x >> n`` for any ``n >= 0`` (0 from ``bits`` on)."""
    big = n >= bits
    s = np.where(big, 0, n).astype(x.dtype)
    return np.where(big, x.dtype.type(0), x >> s)


def _low_mask(n: np.ndarray, bits: int, dtype: np.dtype) -> np.ndarray:
    """Masks of the ``n`` low bits (all ``bits`` bits from ``n >= bits`` on)."""
    ones = ~np.zeros(n.shape, dtype=dtype)
    return ~_shl(ones, n, bits)


# --------------------------------------------------------------------------- bitwise logic


def _bitwise(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[[Site], Executor]:
    def factory(site: Site) -> Executor:
        ty = site.type()
        a, b, d = site.src("a", ty), site.src("b", ty), site.dst("d", ty)

        def run(m: Any, lanes: Lanes) -> Any:
            d(m, lanes, fn(a(m, lanes), b(m, lanes)))

        return run

    factory.__doc__ = f"``{fn.__name__}`` of bits or predicates."
    return factory


def not_(site: Site) -> Executor:
    """``not.type d, a``: bitwise (or logical, for ``.pred``) complement."""
    ty = site.type()
    a, d = site.src("a", ty), site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, ~a(m, lanes))

    return run


def cnot(site: Site) -> Executor:
    """``cnot.type d, a``: 1 where ``a == 0``, else 0."""
    ty = site.type()
    a, d = site.src("a", ty), site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        x = a(m, lanes)
        d(m, lanes, (x == 0).astype(x.dtype))

    return run


def _lut(imm: int) -> Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """The function of three bit vectors whose truth table is ``imm`` (``a`` = 0xF0 ...)."""
    terms = [k for k in range(8) if imm >> k & 1]

    def apply(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        out = np.zeros_like(a)
        for k in terms:
            out |= (a if k & 4 else ~a) & (b if k & 2 else ~b) & (c if k & 1 else ~c)
        return out

    return apply


def lop3(site: Site) -> Executor:
    """``lop3.b32 d, a, b, c, immLut`` and ``lop3.{or,and}.b32 d|p, a, b, c, immLut, q``."""
    imm = site.imm("immLut")
    if isinstance(imm, float) or not 0 <= imm <= 255:
        raise NotEmulated(f"{site.mnemonic}: immLut must be an integer 0..255, got {imm}")
    fn = _lut(int(imm))
    a, b, c = (site.src(name, PtxType.B32) for name in "abc")
    dest = site.require("d")
    boolop = site.slot("bool")
    if boolop is None:
        d = site.dst("d", PtxType.B32)

        def run(m: Any, lanes: Lanes) -> Any:
            d(m, lanes, fn(a(m, lanes), b(m, lanes), c(m, lanes)))

        return run
    if not isinstance(dest, PredPair):
        raise NotEmulated(f"{site.mnemonic}: expected a 'd|p' destination")
    d = site.writer(dest.first, PtxType.B32)
    p = site.writer(dest.second, PtxType.PRED)
    q = site.src("q", PtxType.PRED)
    combine = np.logical_or if boolop == "or" else np.logical_and

    def with_predicate(m: Any, lanes: Lanes) -> Any:
        v = fn(a(m, lanes), b(m, lanes), c(m, lanes))
        d(m, lanes, v)
        p(m, lanes, combine(v != 0, q(m, lanes)))

    return with_predicate


# --------------------------------------------------------------------------------- shifts


def _shift(left: bool) -> Callable[[Site], Executor]:
    def factory(site: Site) -> Executor:
        ty = site.type()
        bits = ty.bits
        signed = ty.kind is TypeKind.SIGNED
        a, d = site.src("a", _unsigned(bits)), site.dst("d", ty)
        b = site.src("b", PtxType.U32)

        def run(m: Any, lanes: Lanes) -> Any:
            x, n = a(m, lanes), b(m, lanes)
            if left:
                d(m, lanes, _shl(x, n, bits))
                return
            out = _shr(x, n, bits)
            if signed:
                # Arithmetic shift: the vacated (top min(n, bits)) bits copy the sign.
                fill = ~_shr(~np.zeros_like(x), n, bits)
                out = np.where(x >> x.dtype.type(bits - 1) != 0, out | fill, out)
            d(m, lanes, out)

        return run

    factory.__doc__ = f"``{'shl' if left else 'shr'}.type d, a, b`` (amounts clamp to the width)."
    return factory


def shf(site: Site) -> Executor:
    """``shf.{l,r}.{clamp,wrap}.b32 d, a, b, c``: funnel shift of ``b:a``."""
    left = site.slot("dir") == "l"
    clamp = site.slot("mode") == "clamp"
    a, b = site.src("a", PtxType.U32), site.src("b", PtxType.U32)
    c, d = site.src("c", PtxType.U32), site.dst("d", PtxType.B32)

    def run(m: Any, lanes: Lanes) -> Any:
        n = c(m, lanes)
        n = np.minimum(n, np.uint32(32)) if clamp else n & np.uint32(31)
        pair = (b(m, lanes).astype(np.uint64) << np.uint64(32)) | a(m, lanes)
        shift = n.astype(np.uint64)
        out = (pair << shift) >> np.uint64(32) if left else pair >> shift
        d(m, lanes, out.astype(np.uint32))

    return run


# ---------------------------------------------------------------------------------- prmt

_PRMT_MODES: dict[str, tuple[tuple[int, int, int, int], ...]] = {
    # For c[1:0] = 0..3, the source byte of d.b0, d.b1, d.b2, d.b3 (bytes 0-3: a, 4-7: b).
    "f4e": ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)),
    "b4e": ((0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)),
    "rc8": ((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)),
    "ecl": ((0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)),
    "ecr": ((0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)),
    "rc16": ((0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)),
}
"""The PTX ISA's table of the special ``prmt`` modes."""

_BYTE_SHIFTS = np.arange(0, 64, 8, dtype=np.uint64)


def prmt(site: Site) -> Executor:
    """``prmt.b32{.mode} d, a, b, c``: pick four bytes of ``b:a`` (sign-replicating ones)."""
    mode = site.slot("mode")
    a, b = site.src("a", PtxType.U32), site.src("b", PtxType.U32)
    c, d = site.src("c", PtxType.U32), site.dst("d", PtxType.B32)
    table = None if mode is None else np.array(_PRMT_MODES[mode], dtype=np.int64)
    nibbles = np.arange(0, 16, 4, dtype=np.uint32)
    places = np.arange(0, 32, 8, dtype=np.uint32)

    def run(m: Any, lanes: Lanes) -> Any:
        pair = (b(m, lanes).astype(np.uint64) << np.uint64(32)) | a(m, lanes)
        source = ((pair[:, None] >> _BYTE_SHIFTS) & np.uint64(0xFF)).astype(np.uint32)
        ctl = c(m, lanes)
        if table is None:
            sel = (ctl[:, None] >> nibbles) & np.uint32(0xF)
            picked = np.take_along_axis(source, (sel & np.uint32(7)).astype(np.int64), axis=1)
            negative = (picked >> np.uint32(7)) != 0
            picked = np.where((sel >> np.uint32(3)) != 0, np.where(negative, 0xFF, 0), picked)
        else:
            index = table[(ctl & np.uint32(3)).astype(np.int64)]
            picked = np.take_along_axis(source, index, axis=1)
        d(m, lanes, np.bitwise_or.reduce(picked.astype(np.uint32) << places, axis=1))

    return run


# ------------------------------------------------------------------------------ bit counts


def _popcount(x: np.ndarray) -> np.ndarray:
    """Set bits of unsigned values (SWAR), as ``uint32``."""
    bits = x.dtype.itemsize * 8
    t = x.dtype.type
    m1, m2, m4 = (t(int(pattern * (bits // 8), 16)) for pattern in ("55", "33", "0f"))
    v = x - ((x >> t(1)) & m1)
    v = (v & m2) + ((v >> t(2)) & m2)
    v = (v + (v >> t(4))) & m4
    ones = t(int("01" * (bits // 8), 16))
    return ((v * ones) >> t(bits - 8)).astype(np.uint32)


def _msb(x: np.ndarray) -> np.ndarray:
    """The position of the highest set bit of unsigned values (``-1`` for 0), as ``int64``."""
    bits = x.dtype.itemsize * 8
    pos = np.zeros(x.shape, dtype=np.int64)
    v = x
    step = bits // 2
    while step:
        high = v >> x.dtype.type(step)
        found = high != 0
        v = np.where(found, high, v)
        pos += np.where(found, step, 0)
        step //= 2
    return np.where(x == 0, -1, pos)


def popc(site: Site) -> Executor:
    """``popc.type d, a``: the number of set bits (``.u32``)."""
    a, d = site.src("a", _unsigned(site.type().bits)), site.dst("d", PtxType.U32)

    def run(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, _popcount(a(m, lanes)))

    return run


def clz(site: Site) -> Executor:
    """``clz.type d, a``: leading zeros (the width for 0)."""
    bits = site.type().bits
    a, d = site.src("a", _unsigned(bits)), site.dst("d", PtxType.U32)

    def run(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, (bits - 1 - _msb(a(m, lanes))).astype(np.uint32))

    return run


def bfind(site: Site) -> Executor:
    """``bfind{.shiftamt}.type d, a``: the highest non-sign bit; 0xffffffff when none."""
    ty = site.type()
    bits = ty.bits
    signed = ty.kind is TypeKind.SIGNED
    shiftamt = site.has("shiftamt")
    a, d = site.src("a", _unsigned(bits)), site.dst("d", PtxType.U32)

    def run(m: Any, lanes: Lanes) -> Any:
        x = a(m, lanes)
        if signed:
            x = np.where(x >> x.dtype.type(bits - 1) != 0, ~x, x)
        pos = _msb(x)
        if shiftamt:
            pos = np.where(pos < 0, pos, bits - 1 - pos)
        d(m, lanes, pos.astype(np.uint32))

    return run


_BIT_INDEX = np.arange(32, dtype=np.int64)
_BIT_SHIFTS = _BIT_INDEX.astype(np.uint32)


def fns(site: Site) -> Executor:
    """``fns.b32 d, mask, base, offset``: the offset-th set bit counted from ``base``."""
    mask = site.src("mask", PtxType.U32)
    base = site.src("base", PtxType.U32)
    offset = site.src("offset", PtxType.S32)
    d = site.dst("d", PtxType.B32)

    def run(m: Any, lanes: Lanes) -> Any:
        start = base(m, lanes).astype(np.int64)
        if (start > 31).any():
            first = int(np.argmax(start > 31))
            raise Fault(
                EmuError,
                f"fns: base is {int(start[first])}, but it must be 0..31 (the PTX ISA leaves "
                "the result undefined otherwise)",
                lane=int(lanes.idx[first]),
            )
        off = offset(m, lanes).astype(np.int64)[:, None]
        set_bits = ((mask(m, lanes)[:, None] >> _BIT_SHIFTS) & np.uint32(1)) != 0
        at, bit = start[:, None], _BIT_INDEX
        # Offset 0 looks at base only; > 0 counts set bits upward from base, < 0 downward.
        window = np.where(off > 0, bit >= at, bit <= at)
        eligible = set_bits & np.where(off == 0, bit == at, window)
        rank = np.where(
            off > 0,
            np.cumsum(eligible, axis=1),
            np.cumsum(eligible[:, ::-1], axis=1)[:, ::-1],
        )
        hit = eligible & (rank == np.maximum(np.abs(off), 1))
        found = hit.any(axis=1)
        out = np.where(found, np.argmax(hit, axis=1), -1)
        d(m, lanes, out.astype(np.uint32))

    return run


def brev(site: Site) -> Executor:
    """``brev.type d, a``: the bits in reverse order."""
    bits = site.type().bits
    a, d = site.src("a", _unsigned(bits)), site.dst("d", site.type())
    t = _udtype(bits).type
    steps = []
    width = 1
    while width < bits:
        pattern = sum(1 << i for i in range(bits) if not i // width % 2)  # 0x5555.., 0x3333..
        steps.append((t(width), t(pattern)))
        width *= 2

    def run(m: Any, lanes: Lanes) -> Any:
        v = a(m, lanes)
        for shift, low in steps:
            v = ((v >> shift) & low) | ((v & low) << shift)
        d(m, lanes, v)

    return run


# ------------------------------------------------------------------------------ bit fields


def _byte_operand(reader: Reader) -> Callable[[Any, Lanes], np.ndarray]:
    """A ``.u32`` position or length operand restricted to 0..255, as ``int64``."""

    def read(m: Any, lanes: Lanes) -> np.ndarray:
        return (reader(m, lanes) & np.uint32(0xFF)).astype(np.int64)

    return read


def bfe(site: Site) -> Executor:
    """``bfe.type d, a, b, c``: ``c`` bits of ``a`` from bit ``b``, zero- or sign-extended."""
    ty = site.type()
    bits = ty.bits
    signed = ty.kind is TypeKind.SIGNED
    a, d = site.src("a", _unsigned(bits)), site.dst("d", ty)
    pos = _byte_operand(site.src("b", PtxType.U32))
    length = _byte_operand(site.src("c", PtxType.U32))
    dtype = _udtype(bits)

    def run(m: Any, lanes: Lanes) -> Any:
        x, p, n = a(m, lanes), pos(m, lanes), length(m, lanes)
        width = np.minimum(n, np.maximum(bits - p, 0))  # field bits inside the operand
        keep = _low_mask(width, bits, dtype)
        out = _shr(x, p, bits) & keep
        if signed:
            top = np.clip(p + n - 1, 0, bits - 1)
            sign = (n > 0) & ((_shr(x, top, bits) & dtype.type(1)) != 0)
            out = np.where(sign, out | ~keep, out)
        d(m, lanes, out)

    return run


def bfi(site: Site) -> Executor:
    """``bfi.type f, a, b, c, d``: ``b`` with ``d`` low bits of ``a`` inserted at bit ``c``."""
    bits = site.type().bits
    uty = _unsigned(bits)
    a, b, f = site.src("a", uty), site.src("b", uty), site.dst("f", site.type())
    pos = _byte_operand(site.src("c", PtxType.U32))
    length = _byte_operand(site.src("d", PtxType.U32))
    dtype = _udtype(bits)

    def run(m: Any, lanes: Lanes) -> Any:
        p, n = pos(m, lanes), length(m, lanes)
        width = np.minimum(n, np.maximum(bits - p, 0))
        field = _shl(_low_mask(width, bits, dtype), p, bits)
        f(m, lanes, (b(m, lanes) & ~field) | (_shl(a(m, lanes), p, bits) & field))

    return run


def szext(site: Site) -> Executor:
    """``szext.{clamp,wrap}.type d, a, b``: sign- or zero-extend the low ``b`` bits of ``a``."""
    ty = site.type()
    signed = ty.kind is TypeKind.SIGNED
    clamp = site.slot("mode") == "clamp"
    a, b, d = site.src("a", PtxType.U32), site.src("b", PtxType.U32), site.dst("d", ty)

    def run(m: Any, lanes: Lanes) -> Any:
        x, n = a(m, lanes), b(m, lanes)
        n1 = n & np.uint32(31)
        too_large = (n >= 32) & clamp
        mask = np.where(too_large, np.uint32(0), np.uint32(0xFFFF_FFFF) << n1)
        out = x & ~mask
        if signed:
            top = (n1 - np.uint32(1)) & np.uint32(31)
            sign = ~too_large & (n1 != 0) & (((x >> top) & np.uint32(1)) != 0)
            out = np.where(sign, out | mask, out)
        d(m, lanes, out)

    return run


def bmsk(site: Site) -> Executor:
    """``bmsk.{clamp,wrap}.b32 d, a, b``: ``b`` set bits starting at bit ``a``."""
    clamp = site.slot("mode") == "clamp"
    a, b, d = site.src("a", PtxType.U32), site.src("b", PtxType.U32), site.dst("d", PtxType.B32)
    ones = np.uint32(0xFFFF_FFFF)

    def run(m: Any, lanes: Lanes) -> Any:
        pos, width = a(m, lanes), b(m, lanes)
        p1, w1 = pos & np.uint32(31), width & np.uint32(31)
        total = p1 + w1
        low = ones << p1
        high = ones << (total & np.uint32(31))
        overflow = total >= 32
        if clamp:
            low = np.where(pos >= 32, np.uint32(0), low)
            overflow |= (pos >= 32) | (width >= 32)
        high = np.where(overflow, np.uint32(0), np.where(w1 == 0, ones, high))
        d(m, lanes, low & ~high)

    return run


SEMANTICS: dict[str, Any] = {
    "and": _bitwise(np.bitwise_and),
    "or": _bitwise(np.bitwise_or),
    "xor": _bitwise(np.bitwise_xor),
    "not": not_,
    "cnot": cnot,
    "lop3": lop3,
    "shl": _shift(True),
    "shr": _shift(False),
    "shf": shf,
    "prmt": prmt,
    "popc": popc,
    "clz": clz,
    "bfind": bfind,
    "fns": fns,
    "brev": brev,
    "bfe": bfe,
    "bfi": bfi,
    "szext": szext,
    "bmsk": bmsk,
}
"""Logic, shift, permute and bit-field semantics by spec name."""
