"""Binding a kernel call's arguments to the kernel's specs, and checking them.

A call ``kernel(*arrays, *scalars, **keywords)`` passes the ``in_specs`` arrays first (in
order), then the ``raw_params`` scalars (positionally or by name); keywords are template
parameters and symbolic dims that no input fixes. :func:`bind` checks every argument before
anything is traced or launched: rank, concrete and symbolic dims, dtype, device, layout,
scalar types and ranges; a mismatch raises :class:`ArgumentError` naming the argument.
"""

from __future__ import annotations

import inspect
import sys
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from pyptx.dsl.kernel import Kernel
from pyptx.dsl.tile import Layout, Tile
from pyptx.ir import PtxType, TypeKind

from ._arrays import ArrayInfo, Framework, describe
from ._errors import ArgumentError

__all__ = ["Bound", "bind", "dtype_names", "launch_dims"]

# The array dtype names (numpy / torch / JAX spelling, which agree) each PTX element type
# accepts. Bit types take any integer type of their width.
_DTYPES: dict[PtxType, tuple[str, ...]] = {
    PtxType.F64: ("float64",),
    PtxType.F32: ("float32",),
    PtxType.TF32: ("float32",),
    PtxType.F16: ("float16",),
    PtxType.BF16: ("bfloat16",),
    PtxType.E4M3: ("float8_e4m3fn",),
    PtxType.E5M2: ("float8_e5m2",),
    PtxType.S8: ("int8",),
    PtxType.S16: ("int16",),
    PtxType.S32: ("int32",),
    PtxType.S64: ("int64",),
    PtxType.U8: ("uint8",),
    PtxType.U16: ("uint16",),
    PtxType.U32: ("uint32",),
    PtxType.U64: ("uint64",),
    PtxType.B8: ("uint8", "int8"),
    PtxType.B16: ("uint16", "int16"),
    PtxType.B32: ("uint32", "int32"),
    PtxType.B64: ("uint64", "int64"),
    PtxType.PRED: ("bool",),
}


def dtype_names(ty: PtxType) -> tuple[str, ...]:
    """The array dtype names that a tile of element type ``ty`` accepts (first: the default).

    Raises:
        ArgumentError: no array dtype holds ``ty`` (sub-byte types).
    """
    names = _DTYPES.get(ty)
    if names is None:
        raise ArgumentError(
            f"tiles of .{ty.value} elements cannot be passed as arrays; use a byte-sized "
            "type (e.g. .b8 for packed fp4) in the Tile"
        )
    return names


class Bound(NamedTuple):
    """A call bound to its kernel: what to trace, what to allocate, what to pass.

    Attributes:
        kernel: the kernel called.
        template: the template parameters, sorted by name.
        dims: every symbolic dim's value, sorted by name.
        inputs: the ``in_specs`` arrays as given.
        infos: what the runtime knows about each input.
        scalars: the ``raw_params`` values, in declaration order.
        outputs: the shape and element type of each ``out_specs`` array (``Layout.COL``
            outputs are allocated column-major).
    """

    kernel: Kernel
    template: tuple[tuple[str, Any], ...]
    dims: tuple[tuple[str, Any], ...]
    inputs: tuple[Any, ...]
    infos: tuple[ArrayInfo, ...]
    scalars: tuple[int | float, ...]
    outputs: tuple[tuple[tuple[Any, ...], PtxType], ...]

    @property
    def env(self) -> dict[str, Any]:
        """The symbolic dims as a dict."""
        return dict(self.dims)


def _param_names(kernel: Kernel) -> list[str]:
    return list(kernel.positional)


def _check_input(
    kernel: Kernel, index: int, name: str, tile: Tile, info: ArrayInfo, env: dict[str, Any]
) -> None:
    what = f"{kernel.name}: argument {index} ({name})"
    spec = f"Tile({', '.join(repr(d) for d in tile.dims)}, {tile.dtype.value})"
    if len(info.shape) != tile.rank:
        raise ArgumentError(
            f"{what} should be a rank-{tile.rank} array ({spec}), got shape {info.shape}"
        )
    accepted = dtype_names(tile.dtype)
    if info.dtype not in accepted:
        raise ArgumentError(
            f"{what} should have dtype {' or '.join(accepted)} (.{tile.dtype.value} in {spec}), "
            f"got {info.dtype}"
        )
    for axis, (dim, size) in enumerate(zip(tile.dims, info.shape, strict=True)):
        if isinstance(dim, str):
            seen = env.setdefault(dim, size)
            if seen is not size and seen != size:
                raise ArgumentError(
                    f"{what} has {dim}={size} (axis {axis} of shape {info.shape}), but an "
                    f"earlier argument fixed {dim}={seen}"
                )
        elif dim != size:
            raise ArgumentError(
                f"{what} should have size {dim} on axis {axis} ({spec}), got shape {info.shape}"
            )
    if tile.layout is Layout.COL:
        if info.framework is Framework.JAX:
            raise ArgumentError(
                f"{what} is a Layout.COL tile, but JAX arrays are row-major; pass x.T to a "
                "row-major (Layout.ROW) tile of the transposed shape instead"
            )
        if not info.column_major:
            raise ArgumentError(
                f"{what} must be column-major (Layout.COL): pass a Fortran-ordered array "
                "(np.asfortranarray, or t.t().contiguous().t() in torch)"
            )
        return
    if not info.contiguous:
        raise ArgumentError(
            f"{what} must be contiguous (row-major, {tile.layout.name} layout); pass "
            "a contiguous copy (.contiguous() in torch, np.ascontiguousarray in numpy)"
        )


def _scalar_rule(ty: PtxType) -> tuple[bool, int, int]:
    """(is a float, lowest, highest) for a scalar parameter of PTX type ``ty``."""
    if ty.kind is TypeKind.FLOAT:
        return True, 0, 0
    bits = ty.bits
    if ty.kind is TypeKind.SIGNED:
        return False, -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if ty.kind is TypeKind.UNSIGNED:
        return False, 0, (1 << bits) - 1
    return False, -(1 << (bits - 1)), (1 << bits) - 1  # .bN: either reading fits


# Scalar parameter checks by PTX type name (raw_params spell types by name).
_SCALAR_RULES = {ty.value: _scalar_rule(ty) for ty in PtxType if ty.bits}


def _check_scalar(kernel: Kernel, ty_name: str, name: str, value: Any) -> int | float:
    is_float, lo, hi = _SCALAR_RULES.get(ty_name, (True, 0, 0))
    kind = type(value)
    if kind is int and not is_float and lo <= value <= hi:
        return value  # the common case, checked
    if kind is float and is_float:
        return value
    what = f"{kernel.name}: scalar {name} (.{ty_name})"
    if kind.__name__ in ("SymInt", "SymFloat"):  # torch.compile's symbolic sizes
        return value
    if "Tracer" in kind.__name__:
        raise ArgumentError(
            f"{what} is a traced JAX value; scalars are baked into the launch, so pass a "
            "Python number (mark it static: jax.jit(..., static_argnums=...))"
        )
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if hasattr(value, "__index__") or hasattr(value, "__float__"):
            value = value.item() if hasattr(value, "item") else value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ArgumentError(f"{what} must be a Python number, got {type(value).__name__}")
    if is_float:
        return float(value)
    if not isinstance(value, int):
        raise ArgumentError(f"{what} must be an int, got {value!r}")
    if not lo <= value <= hi:
        raise ArgumentError(f"{what} must be in [{lo}, {hi}], got {value}")
    return value


def _split_keywords(
    kernel: Kernel, kwargs: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    dims = {d for t in kernel.in_specs + kernel.out_specs for d in t.symbolic_dims}
    scalar_names = {name for _, name in kernel.raw_params}
    template: dict[str, Any] = {}
    explicit: dict[str, Any] = {}
    by_name: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key in kernel.template_params:
            template[key] = value
        elif key in scalar_names:
            by_name[key] = value
        elif key in dims:
            explicit[key] = value
        else:
            known = sorted(set(kernel.template_params) | scalar_names | dims)
            raise ArgumentError(
                f"{kernel.name}() got an unexpected keyword {key!r}; it takes template "
                f"parameters, scalars and dims: {', '.join(known) or 'none'} (and backend=, "
                "stream=)"
            )
    for key, default in kernel.template_params.items():
        if key not in template:
            if default is inspect.Parameter.empty:
                raise ArgumentError(f"{kernel.name}() needs the template parameter {key}=...")
            template[key] = default
    return template, explicit, by_name


def _scalars(
    kernel: Kernel, positional: Sequence[Any], by_name: dict[str, Any]
) -> tuple[int | float, ...]:
    params = kernel.raw_params
    if len(positional) > len(params):
        raise ArgumentError(
            f"{kernel.name}() takes {len(kernel.in_specs)} arrays and {len(params)} scalars "
            f"({', '.join(n for _, n in params) or 'none'}), got "
            f"{len(positional) - len(params)} extra positional argument(s)"
        )
    out: list[int | float] = []
    for i, (ty_name, name) in enumerate(params):
        if i < len(positional):
            if name in by_name:
                raise ArgumentError(f"{kernel.name}() got scalar {name} twice")
            value = positional[i]
        elif name in by_name:
            value = by_name[name]
        else:
            raise ArgumentError(f"{kernel.name}() is missing the scalar {name} (.{ty_name})")
        out.append(_check_scalar(kernel, ty_name, name, value))
    return tuple(out)


def _signature(value: Any) -> tuple[Any, ...] | None:
    """What binding reads from an array (type, shape, dtype, device, strides), hashable."""
    kind = type(value)
    module = kind.__module__
    if module == "numpy":
        return (kind, value.shape, value.dtype, value.strides)
    if module == "torch":
        return (kind, value.shape, value.dtype, value.device, value.stride())
    return None  # JAX arrays and anything else take the full path


# Checked bindings by kernel and call signature: a call whose arrays have the same type,
# shape, dtype, device and strides, with the same non-scalar keywords, reuses everything but
# the arrays themselves and the scalars (which are checked on every call).
class _Checked(NamedTuple):
    """What a checked call leaves for the next call with the same signature."""

    template: tuple[tuple[str, Any], ...]
    dims: tuple[tuple[str, Any], ...]
    infos: tuple[ArrayInfo, ...]
    outputs: tuple[tuple[tuple[Any, ...], PtxType], ...]


class _KernelRecord:
    """Per-kernel facts binding needs on every call, and its checked call signatures."""

    __slots__ = ("checked", "n_in", "scalar_names")

    def __init__(self, kernel: Kernel) -> None:
        self.n_in = len(kernel.in_specs)
        self.scalar_names = frozenset(name for _, name in kernel.raw_params)
        self.checked: dict[tuple[Any, ...], _Checked] = {}


# By id(kernel) (a plain dict is faster than a WeakKeyDictionary on this hot path); a
# finalizer drops the record with its kernel. Records hold neither the kernel nor arrays.
_RECORDS: dict[int, _KernelRecord] = {}


def _record(kernel: Kernel) -> _KernelRecord:
    record = _RECORDS.get(id(kernel))
    if record is None:
        record = _RECORDS[id(kernel)] = _KernelRecord(kernel)
        weakref.finalize(kernel, _RECORDS.pop, id(kernel), None)
    return record


def bind(kernel: Kernel, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Bound:
    """Bind ``kernel(*args, **kwargs)`` and check every argument against the specs.

    A call whose arrays have the same type, shape, dtype, device and strides as an earlier
    call's, with the same non-scalar keywords, reuses that call's checks; its scalars are
    checked every time.

    Raises:
        ArgumentError: an argument does not fit (the message names it).
    """
    torch = sys.modules.get("torch")
    if torch is not None and torch.compiler.is_compiling():
        return _bind(kernel, args, kwargs)  # symbolic shapes: the compiler traces every check
    record = _record(kernel)
    n_in = record.n_in
    if len(args) < n_in:
        return _bind(kernel, args, kwargs)
    signatures = tuple(map(_signature, args[:n_in]))
    if kwargs:
        names = record.scalar_names
        keywords = tuple((k, v) for k, v in kwargs.items() if k not in names)
        key: tuple[Any, ...] = (len(args), keywords, tuple(sorted(names & kwargs.keys())))
        key += signatures
        by_name = {k: v for k, v in kwargs.items() if k in names}
    else:
        key, by_name = (len(args), *signatures), {}
    try:
        cached = record.checked.get(key)
    except TypeError:  # an unhashable keyword value or array: the full path reports it
        return _bind(kernel, args, kwargs)
    if cached is None:
        bound = _bind(kernel, args, kwargs)
        if None not in signatures:
            record.checked[key] = _Checked(bound.template, bound.dims, bound.infos, bound.outputs)
        return bound
    scalars = _scalars(kernel, args[n_in:], by_name)
    return Bound(
        kernel, cached.template, cached.dims, tuple(args[:n_in]), cached.infos, scalars,
        cached.outputs,
    )  # fmt: skip


def _bind(kernel: Kernel, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Bound:
    """:func:`bind` without the cache."""
    if kernel.positional and not (kernel.in_specs or kernel.out_specs):
        raise ArgumentError(
            f"kernel {kernel.name} has tensor parameters but no in_specs/out_specs; a launch "
            "needs one Tile per tensor parameter"
        )
    names = _param_names(kernel)
    n_in = len(kernel.in_specs)
    if len(args) < n_in:
        missing = ", ".join(names[len(args) : n_in])
        raise ArgumentError(f"{kernel.name}() is missing the input arrays {missing}")
    template, explicit, by_name = _split_keywords(kernel, kwargs)
    env: dict[str, Any] = {}
    infos: list[ArrayInfo] = []
    for i, (tile, value) in enumerate(zip(kernel.in_specs, args[:n_in], strict=True)):
        info = describe(value)
        if info is None:
            raise ArgumentError(
                f"{kernel.name}: argument {i} ({names[i]}) should be an array (a torch tensor, "
                f"a JAX array or a numpy array), got {type(value).__name__}"
            )
        _check_input(kernel, i, names[i], tile, info, env)
        infos.append(info)
    _check_devices(kernel, names, infos)
    for key, value in explicit.items():
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ArgumentError(f"{kernel.name}: dimension {key} must be a positive int")
        if key in env and env[key] != value:
            raise ArgumentError(
                f"{kernel.name}: {key}={value} was passed, but the inputs fix {key}={env[key]}"
            )
        env[key] = value
    outputs = []
    for j, tile in enumerate(kernel.out_specs):
        shape = []
        for d in tile.dims:
            if isinstance(d, str) and d not in env:
                raise ArgumentError(
                    f"{kernel.name}: output {names[n_in + j]} has dimension {d}, which no "
                    f"input fixes; pass {d}=<int>"
                )
            shape.append(env[d] if isinstance(d, str) else d)
        outputs.append((tuple(shape), tile.dtype))
        if tile.layout is Layout.COL and any(i.framework is Framework.JAX for i in infos):
            raise ArgumentError(
                f"{kernel.name}: output {names[n_in + j]} is a Layout.COL tile, which JAX "
                "arrays cannot be; declare it row-major"
            )
    for tile in kernel.in_specs + kernel.out_specs:
        for d in tile.symbolic_dims:
            if d not in env:
                raise ArgumentError(f"{kernel.name}: the TMA box dimension {d} is not bound")
    scalars = _scalars(kernel, args[n_in:], by_name)
    for key, value in template.items():
        try:
            hash(value)
        except TypeError:
            raise ArgumentError(
                f"{kernel.name}: template parameter {key} must be hashable (it keys the "
                f"compiled kernel), got {type(value).__name__}"
            ) from None
    return Bound(
        kernel=kernel,
        template=tuple((k, template[k]) for k in sorted(template)),
        dims=tuple((k, env[k]) for k in sorted(env)),  # values may be SymInts: sort by name
        inputs=tuple(args[:n_in]),
        infos=tuple(infos),
        scalars=scalars,
        outputs=tuple(outputs),
    )


def _check_devices(kernel: Kernel, names: Sequence[str], infos: Sequence[ArrayInfo]) -> None:
    if not infos:
        return
    frameworks = {i.framework for i in infos}
    if len(frameworks) > 1:
        listed = ", ".join(f"{n} ({i.framework.value})" for n, i in zip(names, infos, strict=False))
        raise ArgumentError(f"{kernel.name}: the inputs mix array libraries: {listed}")
    first = infos[0]
    for name, info in zip(names[1:], infos[1:], strict=False):
        if (info.device, info.device_index) != (first.device, first.device_index):
            raise ArgumentError(
                f"{kernel.name}: argument {name} is on {info.where()}, but {names[0]} is on "
                f"{first.where()}; every array of a launch must be on the same device"
            )


def launch_dims(
    kernel: Kernel, spec: Any, what: str, dims: Mapping[str, Any], template: Mapping[str, Any]
) -> tuple[int, int, int]:
    """Evaluate a grid/block spec (a tuple, or a callable taking dims/template by name).

    Raises:
        ArgumentError: the callable names an unknown parameter, or the result is not 1-3
            positive ints.
    """
    if spec is None:
        return (1, 1, 1)
    if callable(spec):
        fn: Callable[..., Any] = spec
        values = {}
        for pname in inspect.signature(fn).parameters:
            if pname in dims:
                values[pname] = dims[pname]
            elif pname in template:
                values[pname] = template[pname]
            else:
                known = ", ".join(sorted({*dims, *template})) or "none"
                raise ArgumentError(
                    f"{kernel.name}: the {what} callable takes {pname!r}, which is not a "
                    f"symbolic dim or template parameter (known: {known})"
                )
        spec = fn(**values)
    if isinstance(spec, int):
        spec = (spec,)
    out = tuple(int(v) for v in spec)
    if not 1 <= len(out) <= 3 or any(v <= 0 for v in out):
        raise ArgumentError(f"{kernel.name}: {what} must be 1-3 positive ints, got {spec!r}")
    return (*out, *(1,) * (3 - len(out)))  # type: ignore[return-value]
