"""Floating-point arithmetic on ``.f32``, ``.f64``, ``.f16``/``.bf16`` (and ``x2``), ``.f32x2``.

The shared specs (``add``, ``sub``, ``mul``, ``mad``, ``div``, ``abs``, ``neg``, ``min``,
``max``) reach the module-level functions of the same names through :mod:`.arith`; the
float-only specs (``fma``, ``rcp``, ``sqrt``, ``rsqrt``, ``sin``, ``cos``, ``lg2``, ``ex2``,
``tanh``, ``copysign``, ``testp``) are in :data:`SEMANTICS`.

Operands are decoded to exact ``float64`` values, the exact result is formed without
rounding (see :mod:`pyptx.emu._numeric`) and rounded once with the instruction's rounding
modifier, so every IEEE-compliant form (``.rn``/``.rz``/``.rm``/``.rp`` add, sub, mul,
fma/mad, div, rcp, sqrt on ``f32``/``f64``; the half-precision ``.rn`` forms; the mixed
``f32.f16``/``f32.bf16`` forms) is bit-exact. ``.ftz`` flushes subnormal inputs and (rounded)
results to zeros of the same sign; ``.sat`` clamps to ``[+0.0, 1.0]`` with NaN giving
``+0.0``; ``.relu`` clamps negative results (``-0.0`` included) to ``+0.0`` and makes NaN
canonical. The ``.approx`` instructions return the correctly rounded value of the exact
function (computed in ``float64``, then rounded to nearest), which lies within every error
bound the PTX ISA documents; each function's docstring says what it returns.

NaNs: ``f32``/``f16``/``bf16`` results are the canonical NaN; ``f64`` results keep the first
NaN operand (``a``, then ``b``, then ``c``) made quiet, or are the canonical NaN when the
operation itself is invalid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .._lanes import Lanes
from .._machine import Executor
from .._numeric import (
    BF16,
    F16,
    F32,
    F64,
    Binary,
    Rounding,
    decode_binary,
    encode_binary,
    exact_fma,
    exact_product,
    exact_quotient,
    exact_rational,
    exact_sqrt,
    exact_sum,
    flush_subnormal,
    round_exact,
)
from .._site import Reader, Site, Writer

__all__ = [
    "SEMANTICS",
    "Elements",
    "abs",
    "add",
    "div",
    "elements",
    "mad",
    "max",
    "min",
    "mul",
    "neg",
    "rem",
    "sub",
]

_UINT: dict[int, np.dtype[Any]] = {
    16: np.dtype(np.uint16),
    32: np.dtype(np.uint32),
    64: np.dtype(np.uint64),
}
_QUIET64 = np.uint64(1 << 51)
_SIGN = {16: 0x8000, 32: 0x8000_0000, 64: 0x8000_0000_0000_0000}


@dataclass(frozen=True)
class Elements:
    """How an instruction type holds floats: one or two elements of one binary format.

    Attributes:
        fmt: the element format.
        count: elements per operand (2 for ``.f16x2``, ``.bf16x2``, ``.f32x2``).
        ty: the instruction type.
    """

    fmt: Binary
    count: int
    ty: PtxType

    def read(self, site: Site, name: str, ty: PtxType | None = None) -> Reader:
        """A reader of operand ``name`` as element bits, shape ``(n, count)``, unsigned."""
        src = site.src(name, ty or self.ty)
        return self.split(src)

    def split(self, src: Reader) -> Reader:
        """Wrap a reader of whole operands into one of element bits ``(n, count)``."""
        width = self.fmt.width
        count = self.count

        def read(m: Any, lanes: Lanes) -> np.ndarray:
            raw = np.ascontiguousarray(src(m, lanes))
            raw = raw.view(_UINT[raw.dtype.itemsize * 8])
            return raw.view(_UINT[width]).reshape(lanes.n, count)

        return read

    def values(self, site: Site, name: str, ty: PtxType | None = None) -> Reader:
        """A reader of operand ``name`` as exact ``float64`` values, shape ``(n, count)``."""
        bits = self.read(site, name, ty)
        fmt = self.fmt

        def read(m: Any, lanes: Lanes) -> np.ndarray:
            return decode_binary(bits(m, lanes), fmt)

        return read

    def write(self, site: Site, name: str = "d") -> Writer:
        """A writer taking element bits ``(n, count)`` and packing them into operand ``name``."""
        dst = site.dst(name, self.ty)
        total = _UINT[self.fmt.width * self.count]

        def write(m: Any, lanes: Lanes, bits: np.ndarray) -> None:
            dst(m, lanes, np.ascontiguousarray(bits).view(total).reshape(lanes.n))

        return write


_ELEMENTS = {
    PtxType.F16: (F16, 1),
    PtxType.F16X2: (F16, 2),
    PtxType.BF16: (BF16, 1),
    PtxType.BF16X2: (BF16, 2),
    PtxType.F32: (F32, 1),
    PtxType.F32X2: (F32, 2),
    PtxType.F64: (F64, 1),
}


def elements(ty: PtxType) -> Elements | None:
    """The element layout of a floating-point instruction type, or ``None``."""
    found = _ELEMENTS.get(ty)
    return None if found is None else Elements(found[0], found[1], ty)


def _layout(site: Site, slot: str = "type") -> Elements:
    ty = site.type(slot)
    found = elements(ty)
    if found is None:
        raise site.not_emulated(f"{site.mnemonic} on .{ty.value}")
    return found


# ----------------------------------------------------------------------------- NaN and zeros


def _nan_bits(fmt: Binary, operands: list[np.ndarray]) -> np.ndarray | None:
    """For ``f64``, the bits of the first NaN operand made quiet (canonical if none)."""
    if fmt is not F64:
        return None
    out = np.full(operands[0].shape, np.uint64(fmt.nan), dtype=np.uint64)
    for x in reversed(operands):
        out = np.where(np.isnan(x), x.view(np.uint64) | _QUIET64, out)
    return out


def _zero_sum_sign(
    result: np.ndarray,
    exact_zero: np.ndarray,
    x_zero: np.ndarray,
    x_negative: np.ndarray,
    y: np.ndarray,
    mode: Rounding,
) -> np.ndarray:
    """The sign IEEE 754 gives an exactly-zero sum ``x + y`` (``-0`` only under ``.rm``).

    Two zeros of the same sign keep it; any other exact zero is ``+0``, or ``-0`` when
    rounding toward negative infinity.
    """
    if not exact_zero.any():
        return result
    y_negative = np.signbit(y)
    both = x_zero & (y == 0)
    toward_minus = mode is Rounding.RM
    negative = np.where(
        both,
        (x_negative & y_negative) | (toward_minus & (x_negative | y_negative)),
        toward_minus,
    )
    return np.where(exact_zero, np.where(negative, -0.0, 0.0), result)


def _finish(
    values: np.ndarray,
    fmt: Binary,
    *,
    sat: bool = False,
    relu: bool = False,
    nan: np.ndarray | None = None,
) -> np.ndarray:
    """Saturate, clamp and encode rounded values to element bits."""
    with np.errstate(invalid="ignore"):
        if sat:
            values = np.where(np.isnan(values) | (values <= 0), 0.0, np.minimum(values, 1.0))
        if relu:
            values = np.where(np.signbit(values) & ~np.isnan(values), 0.0, values)
    return encode_binary(values, fmt, nan=nan)


def _ftz_inputs(values: list[np.ndarray], fmt: Binary, ftz: bool) -> list[np.ndarray]:
    return [flush_subnormal(v, fmt) for v in values] if ftz else values


# ----------------------------------------------------------------------------- exact results


def _fallback(
    hi: np.ndarray,
    tail: np.ndarray,
    ok: np.ndarray,
    exact: Callable[..., Fraction],
    operands: list[np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Replace the lanes the fast path could not do exactly with rational arithmetic.

    Only ``f64`` operands near the ends of the exponent range get here (a loop over those
    few lanes).
    """
    if ok.all():
        return hi, tail
    where = np.flatnonzero(~ok.reshape(-1))
    flat = [x.reshape(-1) for x in operands]
    values = [exact(*(Fraction(float(x[i])) for x in flat)) for i in where]
    h, t = exact_rational(values)
    hi = hi.copy().reshape(-1)
    tail = tail.copy().reshape(-1)
    hi[where] = h
    tail[where] = t
    return hi.reshape(ok.shape), tail.reshape(ok.shape)


def _signed_zero(hi: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A zero product or quotient takes the exclusive-or of the operands' signs."""
    negative = np.signbit(a) ^ np.signbit(b)
    return np.where(hi == 0, np.where(negative, -0.0, 0.0), hi)


def _product(
    a: np.ndarray, b: np.ndarray, fmt: Binary, mode: Rounding
) -> tuple[np.ndarray, np.ndarray | None]:
    if fmt is not F64 or mode is Rounding.RN:
        return a * b, None  # exact below f64; numpy rounds f64 to nearest correctly
    hi, tail, ok = exact_product(a, b)
    hi, tail = _fallback(hi, tail, ok, lambda x, y: x * y, [a, b])
    return _signed_zero(hi, a, b), tail


def _fused(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    hi, tail, ok = exact_fma(a, b, c)
    return _fallback(hi, tail, ok, lambda x, y, z: x * y + z, [a, b, c])


def _quotient(
    a: np.ndarray, b: np.ndarray, fmt: Binary, mode: Rounding
) -> tuple[np.ndarray, np.ndarray | None]:
    if fmt is F64 and mode is Rounding.RN:
        return a / b, None  # numpy's f64 division rounds to nearest correctly
    hi, tail, ok = exact_quotient(a, b)
    hi, tail = _fallback(hi, tail, ok, lambda x, y: x / y, [a, b])
    return _signed_zero(hi, a, b), tail


def _rounded_sum(
    x: np.ndarray,
    x_zero: np.ndarray,
    x_negative: np.ndarray,
    y: np.ndarray,
    hi: np.ndarray,
    tail: np.ndarray,
    fmt: Binary,
    mode: Rounding,
    ftz: bool,
) -> np.ndarray:
    out = round_exact(hi, tail, fmt, mode, ftz=ftz)
    with np.errstate(invalid="ignore"):
        exact_zero = (hi == 0) & (tail == 0) & np.isfinite(x) & np.isfinite(y)
    return _zero_sum_sign(out, exact_zero, x_zero, x_negative, y, mode)


# ----------------------------------------------------------------------------- add, sub, mul, fma


def _binary_form(site: Site, name: str) -> Executor:
    """``add``/``sub``/``mul`` on every float type, including ``.f32.{f16,bf16}`` (mixed)."""
    mixed = site.slot("atype") is not None
    out = _layout(site, "dtype" if mixed else "type")
    ins = _layout(site, "atype") if mixed else out
    fmt = out.fmt
    mode = Rounding.of(site.slot("rnd"), Rounding.RN)
    ftz, sat = site.has("ftz"), site.has("sat")
    second = "c" if mixed else "b"
    read_a = ins.values(site, "a")
    read_b = out.values(site, second)
    write = out.write(site)

    def run(m: Any, lanes: Lanes) -> Any:
        a, b = _ftz_inputs([read_a(m, lanes), read_b(m, lanes)], fmt, ftz)
        nan = _nan_bits(fmt, [a, b])
        if name == "sub":
            b = -b
        if name == "mul":
            hi, tail = _product(a, b, fmt, mode)
            rounded = round_exact(hi, tail, fmt, mode, ftz=ftz)
        else:
            hi, tail = exact_sum(a, b)
            rounded = _rounded_sum(a, a == 0, np.signbit(a), b, hi, tail, fmt, mode, ftz)
        write(m, lanes, _finish(rounded, fmt, sat=sat, nan=nan))

    return _quiet(run)


def _quiet(run: Executor) -> Executor:
    """Run with numpy's floating-point warnings off (NaN and infinity are results here)."""

    def quiet(m: Any, lanes: Lanes) -> Any:
        with np.errstate(all="ignore"):
            return run(m, lanes)

    quiet.__doc__ = run.__doc__
    return quiet


def add(site: Site) -> Executor:
    """``add{.rnd}{.ftz}{.sat}`` on ``f32``/``f64``/``f16``/``bf16``/``x2``; mixed ``f32.f16``.

    Correctly rounded with the rounding modifier (default ``.rn``).
    """
    return _binary_form(site, "add")


def sub(site: Site) -> Executor:
    """``sub{.rnd}{.ftz}{.sat}``: ``a - b`` correctly rounded (types as :func:`add`)."""
    return _binary_form(site, "sub")


def mul(site: Site) -> Executor:
    """``mul{.rnd}{.ftz}{.sat}``: ``a * b`` correctly rounded (types as :func:`add`)."""
    return _binary_form(site, "mul")


def fma(site: Site) -> Executor:
    """``fma.rnd{.ftz}{.sat}{.relu}``: ``a * b + c`` rounded once, on every float type.

    Also the mixed ``fma.rnd{.sat}.f32.{f16,bf16}``. ``.oob`` raises :class:`NotEmulated`:
    the PTX ISA does not give the bits of the "OOB NaN" it tests for.
    """
    if site.has("oob"):
        raise site.not_emulated(f"{site.mnemonic} (the OOB-NaN encoding is not specified)")
    mixed = site.slot("atype") is not None
    out = _layout(site, "dtype" if mixed else "type")
    ins = _layout(site, "atype") if mixed else out
    fmt = out.fmt
    mode = Rounding.of(site.slot("rnd"), Rounding.RN)
    ftz, sat, relu = site.has("ftz"), site.has("sat"), site.has("relu")
    read_a, read_b = ins.values(site, "a"), ins.values(site, "b")
    read_c = out.values(site, "c")
    write = out.write(site)

    def run(m: Any, lanes: Lanes) -> Any:
        a, b, c = _ftz_inputs([read_a(m, lanes), read_b(m, lanes), read_c(m, lanes)], fmt, ftz)
        if fmt is F64:
            hi, tail = _fused(a, b, c)
            product = a * b
        else:
            product = a * b  # exact: at most 48 significant bits
            hi, tail = exact_sum(product, c)
        x_zero = (a == 0) | (b == 0)
        x_negative = np.signbit(a) ^ np.signbit(b)
        rounded = _rounded_sum(product, x_zero, x_negative, c, hi, tail, fmt, mode, ftz)
        nan = _nan_bits(fmt, [a, b, c])
        write(m, lanes, _finish(rounded, fmt, sat=sat, relu=relu, nan=nan))

    return _quiet(run)


def mad(site: Site) -> Executor:
    """``mad.rnd{.ftz}{.sat}.f32`` / ``mad.rnd.f64``: the same as ``fma``."""
    return fma(site)


# ----------------------------------------------------------------------------- div, rcp, sqrt


def div(site: Site) -> Executor:
    """``div`` on ``f32``/``f64``.

    ``.rn``/``.rz``/``.rm``/``.rp``: the correctly rounded quotient. ``div.full.f32``: the
    quotient rounded to nearest (within its documented 2 ulp). ``div.approx.f32``: computed
    as the ISA describes it, ``a * (1/b)`` with the reciprocal rounded to nearest and
    flushed to zero when subnormal (so ``|b| >= 2**126`` gives a signed zero, or NaN for an
    infinite ``a``), then the product rounded to nearest.
    """
    layout = _layout(site)
    fmt = layout.fmt
    mode_name = site.slot("mode")
    mode = Rounding.of(site.slot("rnd"), Rounding.RN)
    ftz = site.has("ftz")
    read_a, read_b = layout.values(site, "a"), layout.values(site, "b")
    write = layout.write(site)

    def run(m: Any, lanes: Lanes) -> Any:
        a, b = _ftz_inputs([read_a(m, lanes), read_b(m, lanes)], fmt, ftz)
        if mode_name == "approx":
            hi, tail = _quotient(np.ones_like(b), b, fmt, Rounding.RN)
            inverse = round_exact(hi, tail, fmt, Rounding.RN, ftz=True)
            rounded = round_exact(a * inverse, None, fmt, Rounding.RN, ftz=ftz)
        else:
            hi, tail = _quotient(a, b, fmt, mode)
            rounded = round_exact(hi, tail, fmt, mode, ftz=ftz)
        write(m, lanes, _finish(rounded, fmt, nan=_nan_bits(fmt, [a, b])))

    return _quiet(run)


def rem(site: Site) -> Executor:
    """``rem`` has no floating-point form in the PTX ISA."""
    raise site.not_emulated(f"{site.mnemonic} (rem is an integer instruction)")


def _unary(site: Site, fn: Callable[[np.ndarray, Binary, Rounding, bool], np.ndarray]) -> Executor:
    layout = _layout(site)
    fmt = layout.fmt
    mode = Rounding.of(site.slot("rnd"), Rounding.RN)
    ftz = site.has("ftz")
    read = layout.values(site, "a")
    write = layout.write(site)

    def run(m: Any, lanes: Lanes) -> Any:
        (a,) = _ftz_inputs([read(m, lanes)], fmt, ftz)
        write(m, lanes, _finish(fn(a, fmt, mode, ftz), fmt, nan=_nan_bits(fmt, [a])))

    return _quiet(run)


def rcp(site: Site) -> Executor:
    """``rcp``: ``1/a``.

    ``.rn``/``.rz``/``.rm``/``.rp``: correctly rounded. ``rcp.approx.f32``: rounded to
    nearest (the ISA allows 1 ulp). ``rcp.approx.ftz.f64``: the ISA's gross approximation,
    computed from the upper 32 bits of ``a`` (1.11.20 format) and rounded to nearest to 20
    mantissa bits, the low 32 bits of the result zero; subnormal inputs and results flush,
    NaN gives ``0x7FFFFFFF00000000``.
    """
    if site.slot("mode") == "approx" and site.type() is PtxType.F64:
        return _gross_f64(site, lambda x: 1.0 / x)

    def reciprocal(a: np.ndarray, fmt: Binary, mode: Rounding, ftz: bool) -> np.ndarray:
        hi, tail = _quotient(np.ones_like(a), a, fmt, mode)
        return round_exact(hi, tail, fmt, mode, ftz=ftz)

    return _unary(site, reciprocal)


def sqrt(site: Site) -> Executor:
    """``sqrt``: correctly rounded for ``.rnd``; ``.approx.f32`` rounds to nearest.

    ``sqrt(-0.0)`` is ``-0.0``, negative inputs give NaN.
    """

    def root(a: np.ndarray, fmt: Binary, mode: Rounding, ftz: bool) -> np.ndarray:
        hi, tail = exact_sqrt(a)
        return round_exact(hi, tail, fmt, mode, ftz=ftz)

    return _unary(site, root)


def rsqrt(site: Site) -> Executor:
    """``rsqrt.approx``: ``1/sqrt(a)`` rounded to nearest from a ``float64`` evaluation.

    Within the documented ``2**-22.9`` relative error for ``f32``. ``rsqrt.approx.ftz.f64``
    is the ISA's gross approximation on the upper 32 bits (see :func:`rcp`).
    """
    if site.type() is PtxType.F64 and site.has("ftz"):
        return _gross_f64(site, lambda x: 1.0 / np.sqrt(x))
    return _approx(site, lambda x: 1.0 / np.sqrt(x))


_GROSS = Binary("f64 upper word", 11, 20, 64)
_GROSS_NAN = np.uint64(0x7FFF_FFFF_0000_0000)


def _gross_f64(site: Site, fn: Callable[[np.ndarray], np.ndarray]) -> Executor:
    read = site.src("a", PtxType.B64)
    write = site.dst("d", PtxType.B64)

    def run(m: Any, lanes: Lanes) -> Any:
        upper = read(m, lanes) & np.uint64(0xFFFF_FFFF_0000_0000)
        x = flush_subnormal(upper.view(np.float64), F64)
        value = round_exact(fn(x), None, _GROSS, Rounding.RN, ftz=True)
        bits = value.view(np.uint64) & np.uint64(0xFFFF_FFFF_0000_0000)
        write(m, lanes, np.where(np.isnan(value), _GROSS_NAN, bits))

    return _quiet(run)


# ----------------------------------------------------------------------------- approximations


def _approx(site: Site, fn: Callable[[np.ndarray], np.ndarray]) -> Executor:
    """An ``.approx`` function: ``fn`` in ``float64``, rounded to nearest, ``.ftz`` honoured."""

    def apply(a: np.ndarray, fmt: Binary, mode: Rounding, ftz: bool) -> np.ndarray:
        return round_exact(fn(a), None, fmt, Rounding.RN, ftz=ftz)

    return _unary(site, apply)


def sin(site: Site) -> Executor:
    """``sin.approx{.ftz}.f32``: ``sin(a)`` correctly rounded (``±inf`` gives NaN).

    The ISA bounds the absolute error by ``2**-20.5`` on ``[-2pi, 2pi]``.
    """
    return _approx(site, np.sin)


def cos(site: Site) -> Executor:
    """``cos.approx{.ftz}.f32``: ``cos(a)`` correctly rounded (``±inf`` gives NaN)."""
    return _approx(site, np.cos)


def lg2(site: Site) -> Executor:
    """``lg2.approx{.ftz}.f32``: ``log2(a)`` correctly rounded (``±0`` gives ``-inf``)."""
    return _approx(site, np.log2)


def ex2(site: Site) -> Executor:
    """``ex2.approx``: ``2**a`` rounded to nearest, on ``f32``, ``f16(x2)``, ``bf16(x2)``.

    Within the documented 2 ulp (``f32``), ``2**-9.9`` (``f16``) and ``2**-7`` (``bf16``)
    relative errors; ``ex2.approx.ftz.bf16`` flushes subnormal inputs (giving 1.0) and
    results.
    """
    return _approx(site, np.exp2)


def tanh(site: Site) -> Executor:
    """``tanh.approx``: ``tanh(a)`` rounded to nearest on ``f32``, ``f16(x2)``, ``bf16(x2)``."""
    return _approx(site, np.tanh)


# ----------------------------------------------------------------------------- sign, min, max


def _sign_op(site: Site, op: str) -> Executor:
    layout = _layout(site)
    fmt = layout.fmt
    ftz = site.has("ftz")
    read = layout.read(site, "a")
    write = layout.write(site)
    width = fmt.width
    uint = _UINT[width].type
    sign = uint(_SIGN[width])
    exponent = uint(((1 << fmt.exponent) - 1) << fmt.mantissa)
    mantissa = uint((1 << fmt.mantissa) - 1)

    def run(m: Any, lanes: Lanes) -> Any:
        bits = read(m, lanes)
        if ftz:
            subnormal = ((bits & exponent) == 0) & ((bits & mantissa) != 0)
            bits = np.where(subnormal, bits & sign, bits)
        out = bits & ~sign if op == "abs" else bits ^ sign
        if op == "abs" and fmt is F64:
            out = np.where(np.isnan(bits.view(np.float64)), bits, out)
        write(m, lanes, out.astype(_UINT[width]))

    return run


def abs(site: Site) -> Executor:
    """``abs{.ftz}``: clears the sign bit (an ``f64`` NaN passes through unchanged)."""
    return _sign_op(site, "abs")


def neg(site: Site) -> Executor:
    """``neg{.ftz}``: flips the sign bit (NaN keeps its payload, as IEEE 754 negation)."""
    return _sign_op(site, "neg")


def _minmax(site: Site, smallest: bool) -> Executor:
    layout = _layout(site)
    fmt = layout.fmt
    ftz, nan_mode = site.has("ftz"), site.has("NaN")
    xorsign, take_abs = site.has("xorsign"), site.has("abs")
    names = ["a", "b"] + (["c"] if site.operand("c") is not None else [])
    readers = [layout.values(site, n) for n in names]
    write = layout.write(site)
    canonical = np.float64("nan")

    def pick(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        x_nan, y_nan = np.isnan(x), np.isnan(y)
        # -0.0 orders below +0.0.
        x_first = (x < y) | ((x == y) & np.signbit(x) & ~np.signbit(y))
        if not smallest:
            x_first = (x > y) | ((x == y) & ~np.signbit(x) & np.signbit(y))
        out = np.where(x_first, x, y)
        if nan_mode:
            return np.where(x_nan | y_nan, canonical, out)
        out = np.where(x_nan, y, np.where(y_nan, x, out))
        return np.where(x_nan & y_nan, canonical, out)

    def run(m: Any, lanes: Lanes) -> Any:
        values = _ftz_inputs([r(m, lanes) for r in readers], fmt, ftz)
        negative = np.signbit(values[0]) ^ np.signbit(values[1])
        if take_abs:
            values = [np.abs(v) for v in values]
        out = pick(values[0], values[1])
        if len(values) == 3:
            out = pick(out, values[2])
        if xorsign:
            out = np.where(np.isnan(out), out, np.where(negative, -np.abs(out), np.abs(out)))
        write(m, lanes, encode_binary(out, fmt))

    return _quiet(run)


def min(site: Site) -> Executor:
    """``min{.ftz}{.NaN}{.xorsign.abs}`` (two or three inputs): ``-0.0`` below ``+0.0``.

    One NaN input gives the other input; two (or any, with ``.NaN``) give the canonical NaN.
    """
    return _minmax(site, smallest=True)


def max(site: Site) -> Executor:
    """``max{.ftz}{.NaN}{.xorsign.abs}`` (two or three inputs): ``+0.0`` above ``-0.0``."""
    return _minmax(site, smallest=False)


# ----------------------------------------------------------------------------- copysign, testp


def copysign(site: Site) -> Executor:
    """``copysign.type d, a, b``: ``b`` with the sign bit of ``a`` (bits copied exactly)."""
    layout = _layout(site)
    width = layout.fmt.width
    sign = _UINT[width].type(_SIGN[width])
    read_a, read_b = layout.read(site, "a"), layout.read(site, "b")
    write = layout.write(site)

    def run(m: Any, lanes: Lanes) -> Any:
        write(m, lanes, (read_b(m, lanes) & ~sign) | (read_a(m, lanes) & sign))

    return run


_TESTS: dict[str, Callable[[np.ndarray, Binary], np.ndarray]] = {
    "finite": lambda x, f: np.isfinite(x),
    "infinite": lambda x, f: np.isinf(x),
    "number": lambda x, f: ~np.isnan(x),
    "notanumber": lambda x, f: np.isnan(x),
    "normal": lambda x, f: np.isfinite(x) & ((np.abs(x) >= f.min_normal) | (x == 0)),
    "subnormal": lambda x, f: (np.abs(x) < f.min_normal) & (x != 0),
}


def testp(site: Site) -> Executor:
    """``testp.op.type p, a``; zeros count as normal, as the ISA says."""
    layout = _layout(site)
    test = _TESTS[site.slot("op") or "finite"]
    read = layout.values(site, "a")
    p, _ = site.predicate_pair("p")

    def run(m: Any, lanes: Lanes) -> Any:
        with np.errstate(invalid="ignore"):
            p(m, lanes, test(read(m, lanes)[:, 0], layout.fmt))

    return run


SEMANTICS: dict[str, Any] = {
    "fma": fma,
    "rcp": rcp,
    "sqrt": sqrt,
    "rsqrt": rsqrt,
    "sin": sin,
    "cos": cos,
    "lg2": lg2,
    "ex2": ex2,
    "tanh": tanh,
    "copysign": copysign,
    "testp": testp,
}
"""The float-only specs (``add``, ``min``, ... arrive through :mod:`.arith`)."""
