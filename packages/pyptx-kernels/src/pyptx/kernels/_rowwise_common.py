"""Building blocks of the row-wise kernels (RMSNorm, LayerNorm, SwiGLU, softmax) of every arch.

The arch modules (:mod:`pyptx.kernels.ampere.rowwise`, ``hopper``, ``blackwell``) differ in
how a row reaches shared memory (a :data:`Stager`: ``cp.async`` on Ampere, one
``cp.async.bulk`` with an mbarrier on Hopper and Blackwell); everything else is here:

* the data types (16-byte vectors of 4 ``f32`` or 8 ``bf16``/``f16``, widened to ``f32``);
* the CTA shape: one CTA per row, ``threads_for(vectors)`` threads, thread ``t`` owning the
  row's 16-byte vectors ``t, t + T, t + 2T, ...`` (a device loop, so the PTX does not grow
  with the hidden size);
* the block all-reduction (warp shuffles, one ``bar.sync``, every thread gets the total);
* the kernel bodies, written once over a :class:`RowSource` (the staged row in shared memory,
  or global memory again for rows too long to stage);
* the ``call`` helpers: dtype and shape checks that raise :class:`KernelUnavailable`.

See docs/guide/kernels/rowwise.md for the design.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pyptx import Kernel, Tile, kernel, ptx, reg, smem
from pyptx.reg import Reg
from pyptx.smem import SharedAlloc
from pyptx.types import b32, bf16, bf16x2, f16, f16x2, f32, u32, u64

from ._registry import Implementation, KernelUnavailable

__all__ = [
    "DTYPES",
    "VEC_BYTES",
    "RowKernelSpec",
    "RowSource",
    "Stager",
    "call_layer_norm",
    "call_rms_norm",
    "call_softmax",
    "call_swiglu",
    "layer_norm_kernel",
    "rms_norm_kernel",
    "rowwise_implementations",
    "softmax_kernel",
    "swiglu_kernel",
    "threads_for",
]

VEC_BYTES = 16
"""Bytes per vector access (``ld``/``st`` ``.v4.b32``, ``cp.async`` 16, bulk granule)."""

LOG2E = math.log2(math.e)
MAX_THREADS = 1024
VECTORS_PER_THREAD = 4
"""Vectors each thread aims to own: the CTA gets ``ceil(vectors / 4)`` threads (32..1024)."""

MAX_STAGED_BYTES = 64 * 1024
"""Rows up to this size are read once into shared memory; longer rows are streamed (each
pass reads global memory again, mostly from L2)."""

SWIGLU_THREADS = 256
SWIGLU_UNROLL = 2
"""SwiGLU: each thread handles 2 vectors of ``g`` and ``u`` (4 loads in flight)."""


@dataclass(frozen=True)
class DType:
    """An element type the row-wise kernels take: its PTX type, size and array dtype name."""

    name: str
    ty: Any
    pair: Any
    itemsize: int
    array_name: str

    @property
    def per_vec(self) -> int:
        """Elements per 16-byte vector."""
        return VEC_BYTES // self.itemsize


DTYPES = {
    "f32": DType("f32", f32, None, 4, "float32"),
    "bf16": DType("bf16", bf16, bf16x2, 2, "bfloat16"),
    "f16": DType("f16", f16, f16x2, 2, "float16"),
}
"""The dtypes of the row-wise kernels, by pyptx type name."""

_BY_ARRAY_NAME = {d.array_name: d.name for d in DTYPES.values()}


def threads_for(vectors: int) -> int:
    """Threads per CTA for a row of ``vectors`` 16-byte vectors: a power of two, 32..1024.

    The power of two at or above ``vectors / 4`` (so a thread owns 2 to 4 vectors below the
    1024-thread cap), since ``ptx.block_reduce_*`` takes a power-of-two warp count.
    """
    want = -(-vectors // VECTORS_PER_THREAD)
    return min(MAX_THREADS, max(32, 1 << (want - 1).bit_length()))


# --- 16-byte vectors -----------------------------------------------------------------------


def load_vector(dt: DType, addr: object, space: str) -> list[Reg]:
    """Load one 16-byte vector at ``addr`` and return its elements as ``f32`` registers.

    ``f32``: one ``ld.v4.f32``. ``bf16``: one ``ld.v4.b32`` of four pairs; a bf16 is the upper
    half of an f32, so ``shl.b32 16`` (low element) and ``and.b32 0xFFFF0000`` (high element)
    widen exactly (``cvt.f32.bf16`` needs sm_90). ``f16``: ``mov.b32 {lo, hi}`` and
    ``cvt.f32.f16``. Global loads use the read-only path (``.nc``): the kernels never write
    their inputs.
    """
    nc = space == "global"
    if dt.name == "f32":
        vals = reg.array(f32, 4)
        ptx.ld(tuple(vals), addr, space=space, nc=nc)
        return list(vals)
    words = reg.array(b32, 4)
    ptx.ld(tuple(words), addr, space=space, nc=nc)
    out: list[Reg] = []
    for w in words:
        lo, hi = reg.scalar(f32), reg.scalar(f32)
        if dt.name == "bf16":
            ptx.shl(lo, w, 16)
            ptx.and_(hi, w, 0xFFFF0000)
        else:
            halves = reg.scalar(f16), reg.scalar(f16)
            ptx.mov(halves, w)
            ptx.cvt(lo, halves[0])
            ptx.cvt(hi, halves[1])
        out += [lo, hi]
    return out


def store_vector(dt: DType, addr: object, vals: Sequence[Reg], pred: object = None) -> None:
    """Round ``vals`` (f32) to ``dt`` and store them as one 16-byte ``st.global.v4``.

    16-bit types pack two values per register with ``cvt.rn.{bf16x2,f16x2}.f32`` (round to
    nearest even, the same rounding as torch's casts).
    """
    if dt.name == "f32":
        ptx.st(addr, tuple(vals), space="global", pred=pred)
        return
    packed = reg.array(dt.pair, 4)
    for i, p in enumerate(packed):
        ptx.cvt(p, vals[2 * i + 1], vals[2 * i], rnd="rn")  # upper half from the odd element
    ptx.st(addr, tuple(packed), space="global", pred=pred)


# --- CTA shape, row sources, reductions ------------------------------------------------------


@dataclass(frozen=True)
class RowKernelSpec:
    """The shape of a one-CTA-per-row kernel for ``hidden`` elements of ``dtype``."""

    dt: DType
    hidden: int
    staged: bool

    @property
    def row_bytes(self) -> int:
        """Bytes per row."""
        return self.hidden * self.dt.itemsize

    @property
    def vectors(self) -> int:
        """16-byte vectors per row."""
        return self.row_bytes // VEC_BYTES

    @property
    def threads(self) -> int:
        """Threads per CTA."""
        return threads_for(self.vectors)


class RowSource:
    """Where the passes of a row kernel read the row's vector ``v`` from.

    Staged: the row was copied into the shared buffer ``row_smem`` (by the arch's
    :data:`Stager`), and every pass reads it there, so global memory is read once. Streamed:
    each pass reads ``x`` in global memory again.
    """

    def __init__(self, spec: RowKernelSpec, x_row: Reg, row_smem: SharedAlloc | None) -> None:
        self.spec, self.x_row = spec, x_row
        self.base = None if row_smem is None else smem.base(row_smem)

    def load(self, v: Reg) -> list[Reg]:
        """The elements (f32) of vector ``v`` (a ``u32`` vector index) of this row."""
        if self.base is None:
            return load_vector(self.spec.dt, vector_addr(self.x_row, v), "global")
        addr = reg.scalar(u32)
        ptx.mad(addr, v, VEC_BYTES, self.base, mode="lo")
        return load_vector(self.spec.dt, ptx.addr(addr), "shared")


def vector_addr(base: Reg, v: Reg) -> object:
    """``[base + 16 * v]`` for a 64-bit global ``base`` and a ``u32`` vector index ``v``."""
    addr = reg.scalar(u64)
    ptx.mad(addr, v, VEC_BYTES, base, mode="wide")
    return ptx.addr(addr)


Stager = Callable[[RowKernelSpec, Reg, Reg, object], None]
"""``stage(spec, tid, x_row, row_smem)``: copy the row at global ``x_row`` into ``row_smem``.

On return, every thread may read the vectors it owns (``tid + k * threads``); a stager that
lets a thread read vectors other threads copied must end with the CTA-wide wait for them.
"""


def owned_vectors(spec: RowKernelSpec, tid: Reg) -> Any:
    """The device loop over this thread's vectors: ``v = tid, tid + T, ...`` below ``vectors``.

    A guarded ``ptx.range_`` (a thread past the end of a short row runs it zero times); the
    same mapping in every pass means a thread only reads back what it staged itself.
    """
    return ptx.range_(tid, spec.vectors, spec.threads)


def block_allreduce(value: Reg, op: str, spec: RowKernelSpec, tid: Reg, name: str) -> Reg:
    """Reduce ``value`` (f32) over the CTA with ``op`` (``"sum"`` or ``"max"``); all get it.

    ``ptx.block_reduce_sum`` / ``block_reduce_max``: a butterfly in each warp, lane 0 of warp
    ``w`` stores the warp's result in ``name[w]``, ``bar.sync 0``, then every warp reads the
    ``W`` partials back and reduces them with a width-``W`` butterfly (a single warp: the
    butterfly alone). Each reduction has its own ``name`` buffer, so a later reduction never
    overwrites partials a slow warp may still be reading: one barrier per reduction suffices.
    """
    warps = spec.threads // 32
    reduce = ptx.block_reduce_sum if op == "sum" else ptx.block_reduce_max
    scratch = smem.alloc(f32, warps, name=name) if warps > 1 else None
    return reduce(value, scratch, warps=warps, tid=tid)


def _row_setup(spec: RowKernelSpec, x: Any, stage: Stager) -> tuple[Reg, Reg, RowSource]:
    """``tid``, this CTA's row byte offset and the :class:`RowSource` (row staged if asked)."""
    tid = reg.from_(ptx.special.tid.x(), u32)
    row = reg.from_(ptx.special.ctaid.x(), u32)
    row_off = reg.scalar(u64)
    ptx.mul(row_off, row, spec.row_bytes, mode="wide")
    x_row = x.ptr() + row_off
    row_smem = None
    if spec.staged:
        row_smem = smem.alloc(spec.dt.ty, spec.hidden, name="row")
        stage(spec, tid, x_row, row_smem)
    return tid, row_off, RowSource(spec, x_row, row_smem)


def _row_kernel(
    name: str, spec: RowKernelSpec, arch: str, inputs: int, body: Callable[..., None]
) -> Kernel:
    """A ``@kernel`` of one CTA per row: ``inputs`` tiles (x, then (H,) vectors), one output.

    ``zero_outputs=False``: CTA ``r`` stores every 16-byte vector of row ``r`` of ``y`` (its
    threads' :func:`owned_vectors` cover the row, and ``hidden`` is whole vectors), so the
    runtime need not zero-fill ``y`` first.
    """
    dt, h = spec.dt.ty, spec.hidden
    in_specs = (Tile("R", h, dt), *(Tile(h, dt) for _ in range(inputs - 1)))
    body.__name__ = body.__qualname__ = name
    return kernel(
        in_specs=in_specs,
        out_specs=(Tile("R", h, dt),),
        raw_params=[("f32", "eps")] if inputs > 1 else [],
        grid=lambda R: (R, 1, 1),
        block=(spec.threads, 1, 1),
        arch=arch,
        zero_outputs=False,
    )(body)


def _kernel_name(family: str, spec: RowKernelSpec) -> str:
    mode = "" if spec.staged else "_streamed"
    return f"{family}_{spec.dt.name}_h{spec.hidden}{mode}"


# --- kernel bodies -----------------------------------------------------------------------------


def rms_norm_kernel(spec: RowKernelSpec, arch: str, stage: Stager) -> Kernel:
    """RMSNorm ``y = x * rsqrt(mean(x^2) + eps) * w`` with the row staged by ``stage``.

    Pass 1 sums the squares of the thread's vectors, a block all-reduce gives the row's sum,
    ``rsqrt.approx.f32`` the scale; pass 2 reads each vector again (shared memory when
    staged) with the matching 16 bytes of ``w`` and stores ``y``.
    """

    def body(x: Any, w: Any, y: Any) -> None:
        eps = ptx.param("eps")
        tid, row_off, src = _row_setup(spec, x, stage)
        acc = reg.scalar(f32, 0.0)
        for v in owned_vectors(spec, tid):
            for e in src.load(v):
                ptx.fma(acc, e, e, acc, rnd="rn")
        total = block_allreduce(acc, "sum", spec, tid, "sum_sq")
        mean_sq = reg.scalar(f32)
        ptx.fma(mean_sq, total, 1.0 / spec.hidden, eps, rnd="rn")
        rstd = reg.scalar(f32)
        ptx.rsqrt(rstd, mean_sq)
        y_row = y.ptr() + row_off
        for v in owned_vectors(spec, tid):
            vals = src.load(v)
            weight = load_vector(spec.dt, vector_addr(w.ptr(), v), "global")
            for e, g in zip(vals, weight, strict=True):
                ptx.mul(e, e, rstd)
                ptx.mul(e, e, g)
            store_vector(spec.dt, vector_addr(y_row, v), vals)

    return _row_kernel(_kernel_name("rms_norm", spec), spec, arch, 2, body)


def layer_norm_kernel(spec: RowKernelSpec, arch: str, stage: Stager) -> Kernel:
    """LayerNorm ``y = (x - mean) * rsqrt(var + eps) * w + b`` (biased variance).

    Three passes over the (staged) row: the sum, then the sum of ``(x - mean)^2`` (two-pass
    variance: no cancellation when ``|mean| >> std``), then the output.
    """

    def body(x: Any, w: Any, b: Any, y: Any) -> None:
        eps = ptx.param("eps")
        tid, row_off, src = _row_setup(spec, x, stage)
        acc = reg.scalar(f32, 0.0)
        for v in owned_vectors(spec, tid):
            for e in src.load(v):
                ptx.add(acc, acc, e)
        mean = block_allreduce(acc, "sum", spec, tid, "sum_x")
        ptx.mul(mean, mean, 1.0 / spec.hidden)
        dev = reg.scalar(f32, 0.0)
        for v in owned_vectors(spec, tid):
            for e in src.load(v):
                ptx.sub(e, e, mean)
                ptx.fma(dev, e, e, dev, rnd="rn")
        var = block_allreduce(dev, "sum", spec, tid, "sum_dev")
        ptx.fma(var, var, 1.0 / spec.hidden, eps, rnd="rn")
        rstd = reg.scalar(f32)
        ptx.rsqrt(rstd, var)
        y_row = y.ptr() + row_off
        for v in owned_vectors(spec, tid):
            vals = src.load(v)
            weight = load_vector(spec.dt, vector_addr(w.ptr(), v), "global")
            bias = load_vector(spec.dt, vector_addr(b.ptr(), v), "global")
            for e, g, c in zip(vals, weight, bias, strict=True):
                ptx.sub(e, e, mean)
                ptx.mul(e, e, rstd)
                ptx.fma(e, e, g, c, rnd="rn")
            store_vector(spec.dt, vector_addr(y_row, v), vals)

    return _row_kernel(_kernel_name("layer_norm", spec), spec, arch, 3, body)


def softmax_kernel(spec: RowKernelSpec, arch: str, stage: Stager) -> Kernel:
    """Softmax over each row, numerically stable: ``exp(x - max) / sum(exp(x - max))``.

    Pass 1 finds the row maximum ``m``; pass 2 sums ``2^(x * log2(e) - m * log2(e))``
    (``fma`` + ``ex2.approx.ftz.f32``); pass 3 recomputes each exponential and multiplies it
    by ``rcp.approx`` of the sum. The shift ``m * log2(e)`` is rounded once and is the same for
    every element, so its rounding error cancels in the ratio.
    """

    def body(x: Any, y: Any) -> None:
        tid, row_off, src = _row_setup(spec, x, stage)
        peak = reg.scalar(f32, -math.inf)
        for v in owned_vectors(spec, tid):
            for e in src.load(v):
                ptx.max(peak, peak, e)
        row_max = block_allreduce(peak, "max", spec, tid, "row_max")
        shift = reg.scalar(f32)
        ptx.mul(shift, row_max, -LOG2E)

        def exps(v: Reg) -> list[Reg]:
            vals = src.load(v)
            for e in vals:
                ptx.fma(e, e, LOG2E, shift, rnd="rn")
                ptx.ex2(e, e, ftz=True)
            return vals

        acc = reg.scalar(f32, 0.0)
        for v in owned_vectors(spec, tid):
            for e in exps(v):
                ptx.add(acc, acc, e)
        total = block_allreduce(acc, "sum", spec, tid, "row_sum")
        inv = reg.scalar(f32)
        ptx.rcp(inv, total, approx=True, ftz=True)
        y_row = y.ptr() + row_off
        for v in owned_vectors(spec, tid):
            vals = exps(v)
            for e in vals:
                ptx.mul(e, e, inv)
            store_vector(spec.dt, vector_addr(y_row, v), vals)

    return _row_kernel(_kernel_name("softmax", spec), spec, arch, 1, body)


def swiglu_kernel(dt: DType, arch: str) -> Kernel:
    """SwiGLU ``out = silu(g) * u`` over flat arrays of ``n`` 16-byte vectors (a scalar param).

    Elementwise, so no row structure and no shared memory: CTA ``c`` of ``SWIGLU_THREADS``
    threads handles vectors ``c * T * U + k * T + tid`` for ``k < U`` (coalesced per ``k``).
    All ``2 U`` loads are issued before any math (an out-of-range thread loads vector
    ``n - 1`` instead, so its registers are defined), and only the stores are predicated.
    ``silu(g) = g * rcp(1 + 2^(-g * log2(e)))`` in f32, times ``u``, rounded once.

    ``zero_outputs=False``: the grid covers every vector below ``n`` and each is stored, so
    with ``n = N / (elements per vector)`` (what :func:`call_swiglu` passes) every element
    of ``out`` is written.
    """
    threads, unroll = SWIGLU_THREADS, SWIGLU_UNROLL

    def body(g: Any, u: Any, out: Any) -> None:
        n = ptx.param("n")
        tid = reg.from_(ptx.special.tid.x(), u32)
        cta = reg.from_(ptx.special.ctaid.x(), u32)
        first = reg.scalar(u32)
        ptx.mad(first, cta, threads * unroll, tid, mode="lo")
        last = n - 1
        idx, pairs = [], []
        for k in range(unroll):
            i = first + k * threads if k else first
            safe = reg.scalar(u32)
            ptx.min(safe, i, last)
            idx.append(i)
            gate = load_vector(dt, vector_addr(g.ptr(), safe), "global")
            up = load_vector(dt, vector_addr(u.ptr(), safe), "global")
            pairs.append((safe, gate, up))
        for i, (safe, gate, up) in zip(idx, pairs, strict=True):
            for a, c in zip(gate, up, strict=True):
                e = reg.scalar(f32)
                ptx.mul(e, a, -LOG2E)
                ptx.ex2(e, e, ftz=True)
                ptx.add(e, e, 1.0)
                ptx.rcp(e, e, approx=True, ftz=True)  # sigmoid(a)
                ptx.mul(a, a, e)
                ptx.mul(a, a, c)
            store_vector(dt, vector_addr(out.ptr(), safe), gate, pred=i < n)

    body.__name__ = body.__qualname__ = f"swiglu_{dt.name}"
    per = threads * unroll * dt.per_vec
    return kernel(
        in_specs=(Tile("N", dt.ty), Tile("N", dt.ty)),
        out_specs=(Tile("N", dt.ty),),
        raw_params=[("u32", "n")],
        grid=lambda N: (max(1, -(-N // per)), 1, 1),
        block=(threads, 1, 1),
        arch=arch,
        zero_outputs=False,
    )(body)


# --- call helpers ------------------------------------------------------------------------------


def dtype_of(array: Any) -> str:
    """The pyptx type name of a torch / JAX / numpy array's dtype (``"bf16"``...), or its name."""
    name = str(array.dtype).removeprefix("torch.")
    return _BY_ARRAY_NAME.get(name, name)


def check_hidden(family: str, dtype: str, hidden: int) -> None:
    """Refuse a hidden size that is not whole 16-byte vectors (or is 0)."""
    dt = DTYPES[dtype]
    if hidden <= 0 or hidden % dt.per_vec:
        raise KernelUnavailable(
            f"{family}: hidden size {hidden} is not a positive multiple of {dt.per_vec} "
            f"({dtype} rows are read as 16-byte vectors of {dt.per_vec} elements)"
        )


def _check_rows(family: str, x: Any, dtypes: Sequence[str]) -> tuple[str, int, int]:
    """``(dtype, rows, hidden)`` of a 2-D input, or :class:`KernelUnavailable`."""
    if len(x.shape) != 2:
        raise KernelUnavailable(f"{family}: expected a 2-D (rows, hidden) array, got {x.shape}")
    dtype = dtype_of(x)
    if dtype not in dtypes:
        raise KernelUnavailable(f"{family}: no kernel for dtype {dtype}; use one of {dtypes}")
    rows, hidden = (int(s) for s in x.shape)
    check_hidden(family, dtype, hidden)
    if rows == 0:
        raise KernelUnavailable(f"{family}: x has no rows (shape {tuple(x.shape)})")
    if rows >= 2**31:
        raise KernelUnavailable(f"{family}: {rows} rows exceed the grid's 2^31 - 1 CTAs")
    return dtype, rows, hidden


def _check_vector(family: str, what: str, v: Any, dtype: str, hidden: int) -> None:
    if tuple(int(s) for s in v.shape) != (hidden,) or dtype_of(v) != dtype:
        raise KernelUnavailable(
            f"{family}: {what} should be a ({hidden},) {dtype} array, got shape "
            f"{tuple(v.shape)} {dtype_of(v)}"
        )


BuildRow = Callable[..., Kernel]


def call_rms_norm(build: BuildRow, dtypes: Sequence[str], x: Any, w: Any, eps: float) -> Any:
    """Run RMSNorm over the rows of 2-D ``x`` with weight ``w`` (``(H,)``, same dtype)."""
    dtype, _, hidden = _check_rows("rms_norm", x, dtypes)
    _check_vector("rms_norm", "w", w, dtype, hidden)
    return build(dtype=dtype, hidden=hidden)(x, w, float(eps))


def call_layer_norm(
    build: BuildRow, dtypes: Sequence[str], x: Any, w: Any, b: Any, eps: float
) -> Any:
    """Run LayerNorm over the rows of 2-D ``x`` with weight ``w`` and bias ``b`` (``(H,)``)."""
    dtype, _, hidden = _check_rows("layer_norm", x, dtypes)
    _check_vector("layer_norm", "w", w, dtype, hidden)
    _check_vector("layer_norm", "b", b, dtype, hidden)
    return build(dtype=dtype, hidden=hidden)(x, w, b, float(eps))


def call_softmax(build: BuildRow, dtypes: Sequence[str], x: Any) -> Any:
    """Run softmax over the last dim of 2-D ``x``."""
    dtype, _, hidden = _check_rows("softmax", x, dtypes)
    return build(dtype=dtype, hidden=hidden)(x)


def call_swiglu(build: BuildRow, dtypes: Sequence[str], g: Any, u: Any) -> Any:
    """Run ``silu(g) * u`` on 2-D ``g`` and ``u`` of one shape and dtype."""
    dtype, rows, hidden = _check_rows("swiglu", g, dtypes)
    if tuple(u.shape) != tuple(g.shape) or dtype_of(u) != dtype:
        raise KernelUnavailable(
            f"swiglu: u should match g ({tuple(g.shape)} {dtype}), got {tuple(u.shape)} "
            f"{dtype_of(u)}"
        )
    vectors = rows * hidden // DTYPES[dtype].per_vec
    if vectors >= 2**32:
        raise KernelUnavailable(f"swiglu: {rows} x {hidden} is over 2^32 16-byte vectors")
    out = build(dtype=dtype)(g.reshape(-1), u.reshape(-1), vectors)
    return out.reshape(rows, hidden)


# --- the implementations of one arch --------------------------------------------------------


def row_spec(dtype: str, hidden: int, staged: bool | None) -> RowKernelSpec:
    """The :class:`RowKernelSpec` for a build: staged when the row fits ``MAX_STAGED_BYTES``."""
    if dtype not in DTYPES:
        raise KernelUnavailable(f"no row-wise kernel for dtype {dtype!r}; use one of {DTYPES}")
    check_hidden("row kernel", dtype, hidden)
    fits = hidden * DTYPES[dtype].itemsize <= MAX_STAGED_BYTES
    if staged and not fits:
        raise KernelUnavailable(
            f"a {hidden}-element {dtype} row is over the {MAX_STAGED_BYTES} bytes staged in "
            "shared memory"
        )
    return RowKernelSpec(DTYPES[dtype], hidden, fits if staged is None else staged)


_ROW_BODIES = {
    "rms_norm": rms_norm_kernel,
    "layer_norm": layer_norm_kernel,
    "softmax": softmax_kernel,
}
_CALLS: dict[str, Callable[..., Any]] = {
    "rms_norm": call_rms_norm,
    "layer_norm": call_layer_norm,
    "softmax": call_softmax,
    "swiglu": call_swiglu,
}
ALL_DTYPES = ("f32", "bf16", "f16")


def make_build(family: str, arch: str, stage: Stager) -> Callable[..., Kernel]:
    """The (uncached) ``build`` of one family on one arch.

    ``build(dtype=, hidden=, staged=None)`` for the row kernels (``staged=None``: staged when
    the row fits :data:`MAX_STAGED_BYTES`), ``build(dtype=)`` for SwiGLU.
    """
    if family == "swiglu":

        def build_swiglu(*, dtype: str) -> Kernel:
            if dtype not in DTYPES:
                raise KernelUnavailable(f"swiglu: no kernel for dtype {dtype!r}")
            return swiglu_kernel(DTYPES[dtype], arch)

        return build_swiglu
    body = _ROW_BODIES[family]

    def build_row(*, dtype: str, hidden: int, staged: bool | None = None) -> Kernel:
        return body(row_spec(dtype, hidden, staged), arch, stage)

    return build_row


def rowwise_implementations(
    prefix: str, arch: str, stage: Stager, families: Sequence[str], notes: str
) -> tuple[Implementation, ...]:
    """One :class:`Implementation` per family: ``<prefix>.<family>`` on ``arch``.

    Each one's ``build`` is :func:`make_build`'s for ``stage``, cached per configuration.
    """
    impls = []
    for family in families:
        build = functools.cache(make_build(family, arch, stage))
        example = {"dtype": "bf16"} if family == "swiglu" else {"dtype": "bf16", "hidden": 4096}

        def call(*args: Any, _f: str = family, _b: Any = build) -> Any:
            return _CALLS[_f](_b, ALL_DTYPES, *args)

        call.__doc__ = _CALLS[family].__doc__
        impls.append(
            Implementation(
                name=f"{prefix}.{family}",
                family=family,
                arch=arch,
                dtypes=ALL_DTYPES,
                example=example,
                build=build,
                call=call,
                notes=notes,
            )
        )
    return tuple(impls)
