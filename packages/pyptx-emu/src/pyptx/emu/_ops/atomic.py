"""Atomic memory operations: ``atom`` and ``red``.

Every op, type, vector width and state space of the ISA table: bitwise ``and``/``or``/
``xor``, ``exch`` and ``cas`` (up to ``.b128``), integer ``add``/``min``/``max`` and the
wrapping ``inc``/``dec``, floating-point ``add`` (``.f32``, ``.f64``, ``.f16``, ``.bf16``
and their ``x2`` pairs) and half-precision ``min``/``max``, scalar or ``.v2``/``.v4``/
``.v8``. ``.sem``, ``.scope`` and cache hints do not change results: the emulator performs
memory operations one instruction at a time.

When several lanes of one instruction update the same address, the result is the one of
applying them in lane order: each lane gets the value its own update saw, and memory ends
with the effect of all of them. This is computed without a Python loop per lane: addresses
are sorted (stable, so lane order survives) into runs of equal addresses; associative
operations (integer ``add``, ``min``/``max``, bitwise ops, half-precision ``min``/``max``)
take a segmented prefix scan, ``exch`` a shift, ``inc``/``dec`` with one bound per address a
closed form; floating-point ``add`` (whose rounding makes the order matter) accumulates each
hot address in order, and the rest (``cas``) proceed in rounds, one update per address per
round. Vector and packed (``x2``) operations are atomic per scalar element, as PTX specifies.

Numerics: floating-point ``add`` rounds to nearest even; ``.f32`` add on global memory
flushes subnormal inputs and results to sign-preserving zero (as PTX documents for the
current implementation), on shared memory it keeps them. A NaN result is the canonical NaN
(all fraction bits set, sign clear). ``min``/``max`` of halves order -0.0 below +0.0 and
return the other operand when one is NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyptx.ir import PtxType

from .._errors import EmuError, Fault, NotEmulated
from .._lanes import Lanes
from .._machine import Executor
from .._memory import Space
from .._numeric import bf16_to_f32, f32_to_bf16
from .._site import Reader, Site, Writer

__all__ = ["SEMANTICS"]

_UINT: dict[int, np.dtype] = {
    2: np.dtype(np.uint16),
    4: np.dtype(np.uint32),
    8: np.dtype(np.uint64),
}
_SINT: dict[int, np.dtype] = {4: np.dtype(np.int32), 8: np.dtype(np.int64)}
_FLOAT: dict[int, np.dtype] = {
    2: np.dtype(np.float16),
    4: np.dtype(np.float32),
    8: np.dtype(np.float64),
}

_VALID: dict[str, frozenset[str]] = {
    "and": frozenset({"b32", "b64"}),
    "or": frozenset({"b32", "b64"}),
    "xor": frozenset({"b32", "b64"}),
    "exch": frozenset({"b32", "b64", "b128"}),
    "cas": frozenset({"b16", "b32", "b64", "b128"}),
    "add": frozenset({"u32", "s32", "u64", "f32", "f64", "f16", "bf16", "f16x2", "bf16x2"}),
    "inc": frozenset({"u32"}),
    "dec": frozenset({"u32"}),
    "min": frozenset({"u32", "s32", "u64", "s64", "f16", "bf16", "f16x2", "bf16x2"}),
    "max": frozenset({"u32", "s32", "u64", "s64", "f16", "bf16", "f16x2", "bf16x2"}),
}
"""The types PTX defines each operation on (what ptxas accepts)."""

_VECTOR_TYPES = frozenset({"f32", "f16", "bf16", "f16x2", "bf16x2"})

# --------------------------------------------------------------------------- elements


class _Element:
    """How one atomic element is stored and interpreted.

    Attributes:
        kind: ``"bits"``, ``"unsigned"``, ``"signed"`` or a float format (``"f16"``,
            ``"bf16"``, ``"f32"``, ``"f64"``).
        size: bytes in memory (16 for ``.b128``, held as two ``uint64`` words).
    """

    def __init__(self, kind: str, size: int) -> None:
        self.kind = kind
        self.size = size
        self.float = kind in ("f16", "bf16", "f32", "f64")

    @property
    def shape(self) -> tuple[int, ...]:
        """Trailing shape of one element's bits (``(2,)`` words for 16 bytes)."""
        return (2,) if self.size == 16 else ()

    @property
    def dtype(self) -> np.dtype:
        """The unsigned dtype holding its bits."""
        return np.dtype(np.uint64) if self.size == 16 else _UINT[self.size]


def _element(ty: PtxType) -> tuple[_Element, int]:
    """The element of instruction type ``ty`` and how many one value of ``ty`` holds."""
    name = ty.value
    if name in ("f16x2", "bf16x2"):
        return _Element(name[:-2], 2), 2
    if name in ("f16", "bf16", "f32", "f64"):
        return _Element(name, ty.bits // 8), 1
    kind = {"b": "bits", "u": "unsigned", "s": "signed"}[name[0]]
    return _Element(kind, ty.bits // 8), 1


def _read(buffer: np.ndarray, flat: np.ndarray, elem: _Element) -> np.ndarray:
    raw = buffer[flat[:, None] + np.arange(elem.size)]
    return np.ascontiguousarray(raw).view(elem.dtype).reshape((flat.shape[0], *elem.shape))


def _write(buffer: np.ndarray, flat: np.ndarray, bits: np.ndarray, elem: _Element) -> None:
    raw = np.ascontiguousarray(bits).view(np.uint8).reshape(flat.shape[0], elem.size)
    buffer[flat[:, None] + np.arange(elem.size)] = raw


# --------------------------------------------------------------------------- float helpers

_FORMAT: dict[str, tuple[Any, int, int, int]] = {
    # kind: (bits dtype, sign bit, infinity = exponent all ones, canonical NaN = magnitude mask)
    "f16": (np.uint16, 0x8000, 0x7C00, 0x7FFF),
    "bf16": (np.uint16, 0x8000, 0x7F80, 0x7FFF),
    "f32": (np.uint32, 0x8000_0000, 0x7F80_0000, 0x7FFF_FFFF),
    "f64": (np.uint64, 1 << 63, 0x7FF0_0000_0000_0000, 0x7FFF_FFFF_FFFF_FFFF),
}


def _is_nan(bits: np.ndarray, kind: str) -> np.ndarray:
    dtype, _, inf, magnitude = _FORMAT[kind]
    return (bits & dtype(magnitude)) > dtype(inf)


def _canonical(bits: np.ndarray, kind: str) -> np.ndarray:
    """NaN codes replaced by the canonical NaN."""
    dtype, _, _, nan = _FORMAT[kind]
    return np.where(_is_nan(bits, kind), dtype(nan), bits)


def _flush_f32(bits: np.ndarray) -> np.ndarray:
    """Subnormal ``f32`` codes to zero of the same sign."""
    subnormal = ((bits & np.uint32(0x7F80_0000)) == 0) & ((bits & np.uint32(0x007F_FFFF)) != 0)
    return np.where(subnormal, bits & np.uint32(0x8000_0000), bits)


def _float_add(kind: str, flush: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Bits + bits -> bits, rounded to nearest even (``flush``: f32 flush-to-zero)."""

    def add(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            if kind == "bf16":
                out = f32_to_bf16(bf16_to_f32(x) + bf16_to_f32(y))
            elif kind == "f16":
                total = x.view(np.float16).astype(np.float32) + y.view(np.float16).astype(
                    np.float32
                )
                out = total.astype(np.float16).view(np.uint16)
            elif kind == "f32" and flush:
                total = _flush_f32(x).view(np.float32) + _flush_f32(y).view(np.float32)
                out = _flush_f32(total.view(np.uint32))
            else:
                fdt = _FLOAT[np.dtype(x.dtype).itemsize]
                out = (x.view(fdt) + y.view(fdt)).view(x.dtype)
        return _canonical(out, kind)

    return add


def _order_keys(bits: np.ndarray, kind: str, lowest: bool) -> np.ndarray:
    """Float codes to unsigned keys ordered like the values (-0.0 below +0.0).

    NaN maps past every number on the side the reduction ignores (so a NaN operand loses
    unless both are NaN).
    """
    dtype, sign, _, _ = _FORMAT[kind]
    negative = (bits & dtype(sign)) != 0
    keys = np.where(negative, ~bits, bits | dtype(sign))
    return np.where(_is_nan(bits, kind), dtype(np.iinfo(dtype).max if lowest else 0), keys)


def _from_order_keys(keys: np.ndarray, kind: str, lowest: bool) -> np.ndarray:
    dtype, sign, _, magnitude = _FORMAT[kind]
    empty = dtype(np.iinfo(dtype).max if lowest else 0)
    positive = (keys & dtype(sign)) != 0
    bits = np.where(positive, keys & dtype(magnitude), ~keys)
    return np.where(keys == empty, dtype(magnitude), bits)


# --------------------------------------------------------------------------- operations


class _Runs:
    """Updates sorted into runs of equal addresses (stable: lane order within a run).

    Attributes:
        order: position of each sorted update among the original ones.
        seg: each sorted update's run.
        rank: its place within its run (0 for the first, in lane order).
        first: where each run starts among the sorted updates.
        count: updates per run.
        flat: the address (flat buffer offset) of each run.
    """

    def __init__(self, flat: np.ndarray) -> None:
        self.order = np.argsort(flat, kind="stable")
        ordered = flat[self.order]
        start = np.ones(flat.shape[0], dtype=bool)
        start[1:] = ordered[1:] != ordered[:-1]
        self.first = np.flatnonzero(start)
        self.seg = np.cumsum(start) - 1
        self.rank = np.arange(flat.shape[0]) - self.first[self.seg]
        self.count = np.diff(np.append(self.first, flat.shape[0]))
        self.flat = ordered[self.first]
        self.deepest = int(self.count.max()) if self.count.size else 0


Step = Callable[[np.ndarray, np.ndarray, np.ndarray | None], np.ndarray]
"""``(current, b, c) -> new`` on element bits."""


class _Op:
    """An atomic operation on elements: its effect, and how to serialize many of them."""

    def __init__(self, step: Step) -> None:
        self.step = step

    def serialize(
        self,
        runs: _Runs,
        init: np.ndarray,
        b: np.ndarray,
        c: np.ndarray | None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The value each (sorted) update saw and each run's final value: in rounds."""
        return _rounds(self.step, runs, init, b, c)


def _rounds(
    step: Step, runs: _Runs, init: np.ndarray, b: np.ndarray, c: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    current = init.copy()
    seen = np.empty_like(b)
    by_rank = np.argsort(runs.rank, kind="stable")
    bounds = np.cumsum(np.bincount(runs.rank))
    start = 0
    for stop in bounds:
        idx = by_rank[start:stop]
        start = int(stop)
        seg = runs.seg[idx]
        seen[idx] = current[seg]
        current[seg] = step(current[seg], b[idx], None if c is None else c[idx])
    return seen, current


class _Scan(_Op):
    """An associative, commutative operation on order keys: a segmented prefix scan."""

    def __init__(
        self,
        combine: np.ufunc,
        to_key: Callable[[np.ndarray], np.ndarray],
        from_key: Callable[[np.ndarray], np.ndarray],
    ) -> None:
        self.combine = combine
        self.to_key = to_key
        self.from_key = from_key
        super().__init__(lambda x, y, _: from_key(combine(to_key(x), to_key(y))))

    def serialize(
        self, runs: _Runs, init: np.ndarray, b: np.ndarray, c: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        scan = self.to_key(b)
        shift = 1
        with np.errstate(over="ignore"):
            while shift < runs.deepest:
                later = np.flatnonzero(runs.rank >= shift)
                nxt = scan.copy()
                nxt[later] = self.combine(scan[later - shift], scan[later])
                scan = nxt
                shift *= 2
            base = self.to_key(init)
            seen = init[runs.seg].copy()
            later = np.flatnonzero(runs.rank > 0)
            seen[later] = self.from_key(self.combine(base[runs.seg[later]], scan[later - 1]))
            last = runs.first + runs.count - 1
            final = self.from_key(self.combine(base, scan[last]))
        return seen, final


class _Exchange(_Op):
    """``exch``: each update sees the previous one's value."""

    def __init__(self) -> None:
        super().__init__(lambda x, y, _: y)

    def serialize(
        self, runs: _Runs, init: np.ndarray, b: np.ndarray, c: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        seen = init[runs.seg].copy()
        later = np.flatnonzero(runs.rank > 0)
        seen[later] = b[later - 1]
        return seen, b[runs.first + runs.count - 1].copy()


class _Wrap(_Op):
    """``inc``/``dec`` on ``.u32``: a closed form when each address has one bound."""

    def __init__(self, decrement: bool) -> None:
        self.decrement = decrement
        super().__init__(_dec if decrement else _inc)

    def serialize(
        self, runs: _Runs, init: np.ndarray, b: np.ndarray, c: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        bound = b[runs.first][runs.seg]
        if not (bound == b).all():
            return super().serialize(runs, init, b, c)
        x0 = init.astype(np.int64)[runs.seg]
        s = bound.astype(np.int64)
        r = runs.rank.astype(np.int64)
        period = s + 1
        inside = x0 <= s
        if self.decrement:
            # From x0 <= s the values run x0, x0-1, .., 0, s, s-1, ...
            cycled = np.where(inside, (x0 - r) % period, (s - (r - 1)) % period)
        else:
            # From x0 <= s the values run x0, x0+1, .., s, 0, 1, ...
            cycled = np.where(inside, (x0 + r) % period, (r - 1) % period)
        seen = np.where(r == 0, x0, cycled).astype(np.uint32)
        last = runs.first + runs.count - 1
        return seen, self.step(seen[last], b[last], None)


def _inc(x: np.ndarray, y: np.ndarray, _: np.ndarray | None) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.where(x >= y, np.uint32(0), x + np.uint32(1))


def _dec(x: np.ndarray, y: np.ndarray, _: np.ndarray | None) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.where((x == 0) | (x > y), y, x - np.uint32(1))


def _compare_swap(x: np.ndarray, y: np.ndarray, z: np.ndarray | None) -> np.ndarray:
    assert z is not None
    equal = x == y
    if equal.ndim == 2:
        return np.where(equal.all(axis=1)[:, None], z, x)
    return np.where(equal, z, x)


class _FloatAdd(_Op):
    """Floating-point ``add``: in order, so every intermediate sum is rounded as it was."""

    def __init__(self, kind: str, flush: bool) -> None:
        self.kind = kind
        self.flush = flush
        super().__init__(lambda x, y, _: _float_add(kind, flush)(x, y))

    def serialize(
        self, runs: _Runs, init: np.ndarray, b: np.ndarray, c: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        hot = np.flatnonzero(runs.count > 1)
        if self.kind not in ("f32", "f64") or hot.size >= runs.deepest:
            return super().serialize(runs, init, b, c)
        # Few addresses take many updates: accumulate each in order (numpy's accumulate is
        # a sequential left fold, rounding every partial sum).
        seen = init[runs.seg].copy()
        final = self.step(init, b[runs.first], None)
        fdt = _FLOAT[init.dtype.itemsize]
        for s in hot:
            lo = int(runs.first[s])
            hi = lo + int(runs.count[s])
            start = init[s : s + 1]
            terms = b[lo:hi]
            if self.flush:
                start, terms = _flush_f32(start), _flush_f32(terms)
            with np.errstate(all="ignore"):
                sums = np.add.accumulate(np.concatenate([start, terms]).view(fdt)).view(b.dtype)
            if self.flush and (_flush_f32(sums) != sums).any():
                return super().serialize(runs, init, b, c)
            sums = _canonical(sums, self.kind)
            seen[lo + 1 : hi] = sums[1:-1]
            final[s] = sums[-1]
        return seen, final


def _operation(op: str, elem: _Element, flush: bool) -> _Op:
    """The operation ``op`` on elements ``elem`` (``flush``: f32 add flushes subnormals)."""
    if op == "exch":
        return _Exchange()
    if op == "cas":
        return _Op(_compare_swap)
    if op in ("inc", "dec"):
        return _Wrap(op == "dec")
    if op == "add" and elem.float:
        return _FloatAdd(elem.kind, flush)
    if op in ("min", "max") and elem.float:
        lowest = op == "min"
        kind = elem.kind
        return _Scan(
            np.minimum if lowest else np.maximum,
            lambda v: _order_keys(v, kind, lowest),
            lambda k: _from_order_keys(k, kind, lowest),
        )
    dtype = elem.dtype

    def same(v: np.ndarray) -> np.ndarray:
        return v

    if op == "add":
        return _Scan(np.add, lambda v: v.astype(np.uint64), lambda k: k.astype(dtype))
    if op in ("min", "max"):
        ufunc = np.minimum if op == "min" else np.maximum
        if elem.kind == "signed":
            signed = _SINT[elem.size]
            return _Scan(ufunc, lambda v: v.view(signed), lambda k: k.view(dtype))
        return _Scan(ufunc, same, same)
    bitwise = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    return _Scan(bitwise, same, same)


def _apply(
    op: _Op, buffer: np.ndarray, flat: np.ndarray, elem: _Element, b: np.ndarray, c: Any
) -> np.ndarray:
    """Perform the updates ``b`` (``c``) at ``buffer[flat]`` in order; the values they saw."""
    runs = _Runs(flat)
    init = _read(buffer, runs.flat, elem)
    sb = b[runs.order]
    sc = None if c is None else c[runs.order]
    if runs.deepest == 1:
        seen, final = init, op.step(init, sb, sc)
    else:
        seen, final = op.serialize(runs, init, sb, sc)
    _write(buffer, runs.flat, final, elem)
    out = np.empty_like(seen)
    out[runs.order] = seen
    return out


# --------------------------------------------------------------------------- instructions


def _to_elements(values: np.ndarray, elem: _Element, n: int) -> np.ndarray:
    """Operand values (``(n,)``, ``(n, k)`` or ``(n, 2)`` words) to ``(n, count, *shape)``."""
    raw = np.ascontiguousarray(values)
    if raw.dtype.kind != "u":
        raw = raw.view(_UINT[raw.dtype.itemsize])
    return raw.view(elem.dtype).reshape((n, -1, *elem.shape))


class _Plan:
    """Everything about an ``atom``/``red`` that depends only on the instruction."""

    def __init__(self, site: Site) -> None:
        self.op = site.slot("op") or ""
        ty = site.type()
        self.ty = ty
        if ty.value not in _VALID.get(self.op, frozenset()):
            allowed = ", ".join(f".{t}" for t in sorted(_VALID.get(self.op, ())))
            raise NotEmulated(
                f"{site.mnemonic}: PTX defines .{self.op} on {allowed}, not on .{ty.value}"
            )
        vec = site.slot("vec")
        self.vector = int(vec[1:]) if vec else 0
        if self.vector and (
            ty.value not in _VECTOR_TYPES or (ty.value == "f32" and self.op != "add")
        ):
            raise NotEmulated(f"{site.mnemonic}: PTX defines no vector .{self.op}.{ty.value}")
        self.elem, pack = _element(ty)
        self.count = max(self.vector, 1) * pack
        self.nbytes = self.count * self.elem.size
        self.space = site.space()
        # f32 add flushes subnormals on global memory only: one operation per case.
        flushes = self.op == "add" and ty is PtxType.F32
        self.ops = {s: _operation(self.op, self.elem, flushes and s is Space.GLOBAL) for s in Space}
        self.b = self._reader(site, "b")
        self.c = self._reader(site, "c") if self.op == "cas" else None

    def _reader(self, site: Site, name: str) -> Reader:
        if self.vector:
            return site.vec_src(name, self.ty)
        return site.src(name, self.ty)

    def writer(self, site: Site) -> Writer:
        """The writer of ``d`` taking ``(n, count, *shape)`` element bits."""
        b128 = self.ty is PtxType.B128
        dtype = np.dtype(np.uint64) if b128 else _UINT[self.ty.bits // 8]
        inner = site.vec_dst("d", self.ty) if self.vector else site.dst("d", self.ty)
        vector = self.vector

        def write(m: Any, lanes: Lanes, bits: np.ndarray) -> None:
            raw = np.ascontiguousarray(bits)
            if b128:
                inner(m, lanes, raw.reshape(lanes.n, 2))
                return
            values = raw.view(dtype).reshape(lanes.n, -1)
            inner(m, lanes, values if vector else values[:, 0])

        return write

    def perform(self, m: Any, lanes: Lanes, addr: np.ndarray) -> np.ndarray:
        """Run the updates of ``lanes``; the element bits each saw, ``(n, count, *shape)``."""
        elem = self.elem
        b = _to_elements(self.b(m, lanes), elem, lanes.n)
        c = None if self.c is None else _to_elements(self.c(m, lanes), elem, lanes.n)
        seen = np.empty_like(b)
        steps = np.arange(self.count, dtype=np.int64) * elem.size
        chunks = m.mem.resolve(
            self.space, addr, lanes.idx, self.nbytes, self.nbytes, True, atomic=True
        )
        for buffer, flat, sub, space in chunks:
            self._check_space(space, lanes, sub)
            op = self.ops[space]
            offsets = (flat[:, None] + steps).reshape(-1)
            bs = b[sub].reshape((-1, *elem.shape))
            cs = None if c is None else c[sub].reshape((-1, *elem.shape))
            got = _apply(op, buffer, offsets, elem, bs, cs)
            seen[sub] = got.reshape((-1, self.count, *elem.shape))
        m.touch()
        return seen

    def _check_space(self, space: Space, lanes: Lanes, sub: Any) -> None:
        allowed = (Space.GLOBAL,) if self.vector else (Space.GLOBAL, Space.SHARED)
        if space not in allowed:
            first = int(np.arange(lanes.n)[sub][0])
            names = " or ".join(s.value for s in allowed)
            raise Fault(
                EmuError,
                f"atomic operations need {names} memory, but the address points to"
                f" {space.value} memory",
                lane=int(lanes.idx[first]),
            )


def atom(site: Site) -> Executor:
    """``atom{.sem}{.scope}{.space}.op{.vec}.type d, [a], b{, c}``: update, return the old."""
    plan = _Plan(site)
    a = site.addr("a")
    d = plan.writer(site)

    def run(m: Any, lanes: Lanes) -> Any:
        d(m, lanes, plan.perform(m, lanes, a(m, lanes)))

    return run


def red(site: Site) -> Executor:
    """``red{.sem}{.scope}{.space}.op{.vec}.type [a], b``: update memory, return nothing."""
    plan = _Plan(site)
    a = site.addr("a")

    def run(m: Any, lanes: Lanes) -> Any:
        plan.perform(m, lanes, a(m, lanes))

    return run


def multimem(site: Site) -> Executor:
    """``multimem.*``: multicast memory of several GPUs, which one emulated device lacks."""
    raise NotEmulated(
        f"{site.mnemonic} is not emulated: multimem instructions access a multicast object"
        " spanning the memory of several GPUs, and the emulator runs one device"
    )


SEMANTICS: dict[str, Callable[[Site], Executor]] = {
    "atom": atom,
    "red": red,
    "multimem.ld_reduce": multimem,
    "multimem.st": multimem,
    "multimem.red": multimem,
}
