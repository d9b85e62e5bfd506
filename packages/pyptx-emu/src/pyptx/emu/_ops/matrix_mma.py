"""``mma.sync``: warp-wide matrix multiply-accumulate on register fragments.

Every dense form of the ISA table runs: ``.f16`` (``m8n8k4`` quad pairs, ``m16n8k8``,
``m16n8k16``), ``.bf16``, ``.tf32``, ``.f64`` (``m8n8k4`` and the sm_90 ``m16n8k4/k8/k16``),
``.s8/.u8``, ``.s4/.u4``, ``.b1`` (``.xor.popc``/``.and.popc``), ``.e4m3/.e5m2`` and the
sm_120a ``kind::f8f6f4`` and block-scaled (``kind::mxf8f6f4``, ``kind::mxf4``,
``kind::mxf4nvf4``) forms.

An executor gathers the fragments of all warps of the group into ``(warps, M, K)``,
``(warps, K, N)`` and ``(warps, M, N)`` arrays with index tables built once per instruction
from the ISA's fragment layouts (:mod:`.matrix_fragments`), multiplies with numpy and
scatters ``D`` back.

Numerics:

* Floating-point inputs other than ``.f64`` (``.f16``, ``.bf16``, ``.tf32``, fp8, fp6, fp4,
  and block scales) are decoded exactly; their products are exact in ``float64``. Each dot
  product is summed in ``float64``, ``C`` is added and the sum is rounded once (to nearest
  even) to the accumulator type. The hardware's internal accumulation order and precision
  are implementation-defined (the PTX ISA does not specify them; tensor cores are known to
  truncate or to keep fewer guard bits in places), so a GPU may differ from the emulator in
  the last bits of ``D`` when the exact sum is not representable, and in rare cases of
  catastrophic cancellation by more; results that are exactly representable agree.
  NaN results are written as the canonical NaN (``0x7fffffff``, ``0x7fff``).
* ``.tf32`` operands are ``.b32`` registers holding ``.f32`` bit patterns. The PTX ISA
  calls the internal layout of ``.tf32`` implementation-defined and expects the operands to
  come from ``cvt.rna.tf32.f32`` (low 13 mantissa bits zero); tensor cores read the top 19
  bits, so the emulator ignores (truncates) the low 13 mantissa bits of any other value.
* ``.f64`` computes each element of ``D`` as the chain of fused multiply-adds
  ``fma(a[i][K-1], b[K-1][j], ... fma(a[i][0], b[0][j], c[i][j]))``, each rounded in the
  ``.rnd`` mode (default ``.rn``), bit-exact under that model.
* Integer forms are exact: products and sums in ``int64``, then wrapped to 32 bits, or
  clamped to the ``.s32`` range with ``.satfinite``. ``.b1`` counts the set bits of the
  ``xor``/``and`` of a row of A with a column of B.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .._errors import EmuError, Fault, NotEmulated
from .._lanes import WARP, Lanes
from .._machine import YIELD, Executor
from .._numeric import FORMATS, decode
from .._site import Reader, Site
from .matrix_common import aligned, canonical_nan, pack, unpack
from .matrix_fma import fma
from .matrix_fragments import (
    Fragment,
    a_fragment,
    accumulator_fragment,
    b_fragment,
    quad_pair_a,
    quad_pair_accumulator,
    quad_pair_b,
)

__all__ = ["CODECS", "decode_accumulator", "encode_accumulator", "mma"]

Decoder = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class _Codec:
    """How one multiplicand type sits in registers and what its codes are worth.

    Attributes:
        bits: bits per element in a register.
        decode: codes (unsigned) to ``float64`` values or ``int64`` integers.
        integer: whether the values are integers.
    """

    bits: int
    decode: Decoder
    integer: bool = False


def _float(ty: PtxType) -> Decoder:
    def run(codes: np.ndarray) -> np.ndarray:
        return decode(codes, ty)

    return run


def _tf32(codes: np.ndarray) -> np.ndarray:
    return decode(codes.astype(np.uint32) & np.uint32(0xFFFF_E000), PtxType.F32)


def _f64(codes: np.ndarray) -> np.ndarray:
    return codes.astype(np.uint64).view(np.float64)


def _signed(bits: int) -> Decoder:
    def run(codes: np.ndarray) -> np.ndarray:
        v = codes.astype(np.int64)
        return np.where(v >= 1 << (bits - 1), v - (1 << bits), v)

    return run


def _unsigned(codes: np.ndarray) -> np.ndarray:
    return codes.astype(np.int64)


def _contained(ty: PtxType, shift: int) -> Decoder:
    """A 6- or 4-bit format in an 8-bit container (``kind::f8f6f4``) at bit ``shift``."""
    width = FORMATS[ty].bits

    def run(codes: np.ndarray) -> np.ndarray:
        return decode((codes.astype(np.int64) >> shift) & ((1 << width) - 1), ty)

    return run


CODECS: dict[str, _Codec] = {
    "f16": _Codec(16, _float(PtxType.F16)),
    "bf16": _Codec(16, _float(PtxType.BF16)),
    "tf32": _Codec(32, _tf32),
    "f64": _Codec(64, _f64),
    "s8": _Codec(8, _signed(8), True),
    "u8": _Codec(8, _unsigned, True),
    "s4": _Codec(4, _signed(4), True),
    "u4": _Codec(4, _unsigned, True),
    "b1": _Codec(1, _unsigned, True),
    "e4m3": _Codec(8, _float(PtxType.E4M3)),
    "e5m2": _Codec(8, _float(PtxType.E5M2)),
}
"""Multiplicand types outside ``kind::`` forms (and ``e4m3``/``e5m2`` in all of them)."""

_CONTAINED: dict[str, _Codec] = {
    "e3m2": _Codec(8, _contained(PtxType.E3M2, 0)),
    "e2m3": _Codec(8, _contained(PtxType.E2M3, 0)),
    "e2m1": _Codec(8, _contained(PtxType.E2M1, 2)),
}
"""fp6/fp4 in ``kind::f8f6f4``/``kind::mxf8f6f4``: an 8-bit container each, ``.e2m1`` in its
middle four bits, ``.e3m2``/``.e2m3`` in its low six bits (PTX ISA, mma)."""

_PACKED_E2M1 = _Codec(4, _float(PtxType.E2M1))
"""``.e2m1`` in ``kind::mxf4``/``kind::mxf4nvf4``: eight per register, no padding."""

# Accumulators: (register type to read/write, element bits, decode, encode to codes)
_ACC_READ = {"f16": PtxType.B32, "f32": PtxType.F32, "f64": PtxType.F64, "s32": PtxType.S32}
_ACC_BITS = {"f16": 16, "f32": 32, "f64": 64, "s32": 32}


def _shape(site: Site) -> tuple[int, int, int]:
    shape = site.slot("shape") or ""
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


def _codec(site: Site, slot: str, kind: str | None) -> _Codec:
    name = site.slot(slot) or ""
    if kind in ("kind::mxf4", "kind::mxf4nvf4"):
        return _PACKED_E2M1
    if kind is not None and name in _CONTAINED:
        return _CONTAINED[name]
    codec = CODECS.get(name)
    if codec is None:
        raise NotEmulated(f"{site.mnemonic}: .{name} multiplicands are not emulated")
    return codec


def decode_accumulator(codes: np.ndarray, ty: str) -> np.ndarray:
    """Accumulator codes of ``ty`` (``s32``, ``f64``, ``f32``, ``f16``) to ``int64``/``float64``."""
    if ty == "s32":
        return codes.astype(np.uint32).view(np.int32).astype(np.int64)
    if ty == "f64":
        return codes.astype(np.uint64).view(np.float64)
    if ty == "f32":
        return codes.astype(np.uint32).view(np.float32).astype(np.float64)
    return codes.astype(np.uint16).view(np.float16).astype(np.float64)


def encode_accumulator(values: np.ndarray, ty: str, satfinite: bool) -> np.ndarray:
    """Accumulator values to codes: ``uint32`` (``.f32``, ``.s32``), ``uint16`` or ``uint64``."""
    if ty == "s32":
        if satfinite:
            values = np.clip(values, -(1 << 31), (1 << 31) - 1)
        return (values & 0xFFFF_FFFF).astype(np.uint32)
    if ty == "f64":
        return values.view(np.uint64)
    with np.errstate(all="ignore"):
        if ty == "f32":
            return canonical_nan(values.astype(np.float32).view(np.uint32), values, 0x7FFF_FFFF)
        return canonical_nan(values.astype(np.float16).view(np.uint16), values, 0x7FFF)


class _Operands:
    """The four fragments of one ``mma`` form and how to read and write them."""

    def __init__(self, site: Site) -> None:
        self.m, self.n, self.k = _shape(site)
        kind = site.slot("kind")
        self.a = _codec(site, "atype", kind)
        self.b = _codec(site, "btype", kind)
        self.ctype = site.slot("ctype") or ""
        self.dtype = site.slot("dtype") or ""
        alayout, blayout = site.slot("alayout"), site.slot("blayout")
        quad = (self.m, self.n, self.k) == (8, 8, 4) and site.slot("atype") == "f16"
        if quad:
            self.fa = quad_pair_a(alayout or "row")
            self.fb = quad_pair_b(blayout or "row")
            self.fc = quad_pair_accumulator(_ACC_BITS[self.ctype])
            self.fd = quad_pair_accumulator(_ACC_BITS[self.dtype])
        else:
            if (alayout, blayout) != ("row", "col"):
                raise NotEmulated(
                    f"{site.mnemonic}: this shape takes .row.col only, got"
                    f" .{alayout}.{blayout} (ptxas rejects it too)"
                )
            self.fa = a_fragment(self.m, self.k, self.a.bits)
            self.fb = b_fragment(self.k, self.n, self.b.bits)
            self.fc = accumulator_fragment(self.m, self.n)
            self.fd = self.fc
        self.reg_a = PtxType.B64 if self.a.bits == 64 else PtxType.B32
        self.reg_b = PtxType.B64 if self.b.bits == 64 else PtxType.B32
        self._check_width(site, "a", self.fa, self.a.bits)
        self._check_width(site, "b", self.fb, self.b.bits)
        self._check_width(site, "c", self.fc, _ACC_BITS[self.ctype])
        self._check_width(site, "d", self.fd, _ACC_BITS[self.dtype])
        self.read_a = site.vec_src("a", self.reg_a)
        self.read_b = site.vec_src("b", self.reg_b)
        self.read_c = site.vec_src("c", _ACC_READ[self.ctype])
        self.write_d = site.vec_dst("d", PtxType.B64 if self.dtype == "f64" else PtxType.B32)
        self.index_a = self.fa.flat()
        self.index_b = self.fb.flat()
        self.index_c = self.fc.flat()
        self.index_d = self.fd.flat()

    @staticmethod
    def _check_width(site: Site, name: str, frag: Fragment, bits: int) -> None:
        per = max(1, (64 if bits == 64 else 32) // bits)
        want = frag.elements // per
        got = site.width(name)
        if got != want:
            raise NotEmulated(
                f"{site.mnemonic}: operand {name} needs {want} registers, got {got}"
                " (ptxas rejects it too)"
            )

    def gather(
        self, codes: np.ndarray, frag: Fragment, index: np.ndarray, dtype: Any
    ) -> np.ndarray:
        """``(warps, 32, e)`` element values into ``(warps, groups, rows, cols)`` matrices."""
        w = codes.shape[0]
        out = np.empty((w, frag.groups * frag.rows * frag.cols), dtype=dtype)
        out[:, index] = codes.reshape(w, -1)
        return out.reshape(w, frag.groups, frag.rows, frag.cols)

    def fragments(self, m: Any, lanes: Lanes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A, B (decoded) and C (decoded) of every warp of ``lanes``."""
        w = lanes.n // WARP
        a_codes = unpack(self.read_a(m, lanes), self.a.bits).reshape(w, WARP, -1)
        b_codes = unpack(self.read_b(m, lanes), self.b.bits).reshape(w, WARP, -1)
        c_raw = self.read_c(m, lanes)
        c_raw = c_raw.view(np.dtype(f"u{c_raw.dtype.itemsize}"))
        c_codes = unpack(c_raw, _ACC_BITS[self.ctype]).reshape(w, WARP, -1)
        kind = np.int64 if self.a.integer else np.float64
        a = self.gather(self.a.decode(a_codes), self.fa, self.index_a, kind)
        b = self.gather(self.b.decode(b_codes), self.fb, self.index_b, kind)
        c_kind = np.int64 if self.ctype == "s32" else np.float64
        c = self.gather(decode_accumulator(c_codes, self.ctype), self.fc, self.index_c, c_kind)
        return a, b, c

    def store(self, m: Any, lanes: Lanes, d: np.ndarray, satfinite: bool) -> None:
        """Scatter ``(warps, groups, M, N)`` results into the D registers."""
        w = d.shape[0]
        codes = encode_accumulator(d.reshape(w, -1)[:, self.index_d], self.dtype, satfinite)
        bits = _ACC_BITS[self.dtype]
        regs = pack(codes.reshape(w, WARP, -1), bits, 64 if bits == 64 else 32)
        self.write_d(m, lanes, regs.reshape(w * WARP, -1))


def mma(site: Site) -> Executor:
    """``mma.sync.aligned.shape.alayout.blayout...  d, a, b, c`` (see the module docstring)."""
    if site.has("block_scale"):
        return _block_scaled(site)
    ops = _Operands(site)
    satfinite = site.has("satfinite")
    if ops.a.bits == 64:
        mode = site.slot("rnd") or "rn"

        def product(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
            d = c
            for kk in range(a.shape[-1]):
                d = fma(a[..., :, kk : kk + 1], b[..., kk : kk + 1, :], d, mode)
            return d

    elif site.slot("atype") == "b1":
        op = site.slot("bitop")

        def product(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
            both = a @ b
            if op == "and":
                return both + c
            ones = a.sum(axis=-1)[..., :, None] + b.sum(axis=-2)[..., None, :]
            return ones - 2 * both + c

    elif ops.a.integer:

        def product(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
            return a @ b + c

    else:

        def product(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
            with np.errstate(all="ignore"):
                return (a @ b) + c

    def run(m: Any, lanes: Lanes) -> Any:
        if not aligned(m, site, lanes):
            return YIELD
        a, b, c = ops.fragments(m, lanes)
        ops.store(m, lanes, product(a, b, c), satfinite)
        return None

    return run


# ------------------------------------------------------------------ block scaling

_SCALE_VECTORS = {"scale_vec::1X": 1, "scale_vec::2X": 2, "scale_vec::4X": 4}
_DEFAULT_SCALE_VECTORS = {"kind::mxf8f6f4": 1, "kind::mxf4": 2}


def _block_scaled(site: Site) -> Executor:
    """``mma...block_scale``: A and B scaled per row/column block of K before the product.

    Each row ``i`` of A is scaled, per block of ``K / s`` columns (``s`` =
    ``.scale_vec::sX``), by the ``.stype`` factor in byte ``byte-id-a + block`` of the
    ``scale-a-data`` register of lane ``4 * (i % 8) + 2 * thread-id-a + i // 8``; each column
    ``j`` of B by byte ``byte-id-b + block`` of lane ``4 * j + thread-id-b``. The selectors
    must be the same in every lane of the warp.
    """
    ops = _Operands(site)
    kind = site.slot("kind") or ""
    vec = site.slot("scale_vec")
    if vec is None and kind not in _DEFAULT_SCALE_VECTORS:
        raise NotEmulated(f"{site.mnemonic}: {kind} needs a .scale_vec qualifier")
    blocks = _SCALE_VECTORS[vec] if vec is not None else _DEFAULT_SCALE_VECTORS[kind]
    stype = site.type("stype")
    scale_a = site.src("scale-a-data", PtxType.B32)
    scale_b = site.src("scale-b-data", PtxType.B32)
    ids_a = site.vec_src("a-ids", PtxType.U16)
    ids_b = site.vec_src("b-ids", PtxType.U16)
    m_rows, n_cols, k = ops.m, ops.n, ops.k
    rows = np.arange(m_rows)
    cols = np.arange(n_cols)
    per_block = k // blocks
    block_of_k = np.arange(k) // per_block
    limit_a, limit_b = 2, 4

    def selectors(m: Any, lanes: Lanes, ids: Reader, name: str, limit: int) -> np.ndarray:
        sel = ids(m, lanes).astype(np.int64).reshape(-1, WARP, 2)
        if not (sel == sel[:, :1, :]).all():
            raise Fault(
                EmuError,
                f"{site.mnemonic}: {name} differs between the lanes of a warp; it must be"
                " the same in all of them",
                lane=int(lanes.idx[0]),
            )
        first = sel[:, 0, :]
        if (
            (first[:, 0] % blocks != 0).any()
            or (first[:, 0] > 3).any()
            or (first[:, 1] >= limit).any()
        ):
            raise Fault(
                EmuError,
                f"{site.mnemonic}: {name} is {{{int(first[0, 0])}, {int(first[0, 1])}}}, but"
                f" with {blocks} scale(s) per row the byte must be a multiple of {blocks}"
                f" below 4 and the thread below {limit}",
                lane=int(lanes.idx[0]),
            )
        return first

    def scales(data: np.ndarray, lane: np.ndarray, byte: np.ndarray) -> np.ndarray:
        """``(w, x, blocks)`` decoded factors from lane ``lane[w, x]`` bytes ``byte[w] + b``."""
        w = data.shape[0]
        regs = data[np.arange(w)[:, None], lane]  # (w, x)
        shift = (byte[:, None, None] + np.arange(blocks)[None, None, :]) * 8
        codes = (regs[..., None].astype(np.int64) >> shift) & 0xFF
        return decode(codes & 0x7F if stype is PtxType.UE4M3 else codes, stype)

    def run(m: Any, lanes: Lanes) -> Any:
        if not aligned(m, site, lanes):
            return YIELD
        a, b, c = ops.fragments(m, lanes)
        w = a.shape[0]
        sel_a = selectors(m, lanes, ids_a, "{byte-id-a, thread-id-a}", limit_a)
        sel_b = selectors(m, lanes, ids_b, "{byte-id-b, thread-id-b}", limit_b)
        data_a = scale_a(m, lanes).reshape(w, WARP)
        data_b = scale_b(m, lanes).reshape(w, WARP)
        lane_a = 4 * (rows % 8)[None, :] + 2 * sel_a[:, 1:2] + (rows // 8)[None, :]
        lane_b = 4 * cols[None, :] + sel_b[:, 1:2]
        sa = scales(data_a, lane_a, sel_a[:, 0])[:, :, block_of_k]  # (w, M, K)
        sb = scales(data_b, lane_b, sel_b[:, 0])[:, :, block_of_k]  # (w, N, K)
        with np.errstate(all="ignore"):
            scaled_a = a * sa[:, None, :, :]
            scaled_b = b * np.swapaxes(sb, 1, 2)[:, None, :, :]
            d = (scaled_a @ scaled_b) + c
        ops.store(m, lanes, d, False)
        return None

    return run
