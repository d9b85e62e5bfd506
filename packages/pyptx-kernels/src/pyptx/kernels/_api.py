"""The public functions: check the arguments, pick the kernel, run it, shape the result.

Every function works the same way:

1. read each argument (:func:`._arrays.facts`) and check ranks, matching dims, one dtype, one
   library and one device, naming the offending argument (``ValueError``/``TypeError``);
2. find the target: the GPU's own arch for arrays on a GPU (``arch=`` may only repeat it),
   ``arch`` or :data:`DEFAULT_ARCH` for host arrays, which run in the emulator;
3. list the kernels of the family for that arch and dtype, in table order
   (:func:`._registry.implementations`), or raise :class:`KernelUnavailable` saying what
   exists;
4. call the first kernel that takes the shape; a kernel refuses a shape with
   ``KernelUnavailable`` before it launches, and the next one in the table is asked. When all
   refuse, their reasons make up the error. No other arch and no other dtype is ever tried.

Rows families (``rms_norm``, ``layer_norm``, ``swiglu``, ``softmax``) flatten the leading dims
into rows, so the kernels see 2-D arrays, and the result takes the input's shape again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyptx.runtime

from . import _registry
from ._arrays import ArrayFacts, facts, reshape, zeros_like_library
from ._registry import ARCHES, Implementation, KernelUnavailable

__all__ = [
    "DEFAULT_ARCH",
    "flash_attention",
    "gemm",
    "grouped_gemm",
    "layer_norm",
    "rms_norm",
    "select",
    "softmax",
    "swiglu",
]

DEFAULT_ARCH = "sm_90a"
"""The arch whose kernels run in the emulator when host arrays come without ``arch=``."""

# Families whose output dtype differs from the input's: FP8 GEMMs return bf16.
_GEMM_OUT = {"e4m3": "bf16", "e5m2": "bf16"}


def gemm(a: Any, b: Any, *, arch: str | None = None) -> Any:
    """``a @ b`` for a 2-D ``a`` (M, K) and ``b`` (K, N), like ``torch.matmul``.

    Accumulates in fp32 and returns the input dtype (bf16, f16); FP8 inputs (e4m3, e5m2)
    return bf16. Both operands are row-major (contiguous) and share one dtype.

    Args:
        a: (M, K) torch tensor, JAX array or numpy array.
        b: (K, N) array of the same library, device and dtype.
        arch: for host arrays, whose kernel runs in the emulator ("sm_80", "sm_90a",
            "sm_100a"; default "sm_90a"); for GPU arrays it defaults to the device's, and
            any other value is an error.

    Returns:
        The (M, N) product in ``a``'s library.

    Raises:
        KernelUnavailable: no kernel for this arch and dtype, or none takes the shape.
        ValueError: the shapes do not multiply, or the operands differ in dtype, library or
            device, or are not contiguous, or ``arch`` is unknown or not the GPU's.
        TypeError: an operand is not an array.
    """
    fa, fb = facts(a, "a"), facts(b, "b")
    _rank(fa, 2, "(M, K)")
    _rank(fb, 2, "(K, N)")
    (m, k), (k2, n) = fa.shape, fb.shape
    if k != k2:
        raise ValueError(
            f"gemm: a is (M, K) = {fa.shape} and b is (K, N) = {fb.shape}, so K is {k} in a "
            f"but {k2} in b"
        )
    target, dtype = _common("gemm", arch, [fa, fb])
    impls = select("gemm", target, dtype)
    if m == 0 or n == 0 or k == 0:
        return zeros_like_library(a, (m, n), _GEMM_OUT.get(dtype, dtype))
    return _first_taker(impls, f"gemm of {fa.shape} by {fb.shape} {dtype}", a, b)


def grouped_gemm(a_list: Sequence[Any], b_list: Sequence[Any], *, arch: str | None = None) -> Any:
    """``[a @ b for a, b in zip(a_list, b_list)]`` in one launch (mixture-of-experts GEMMs).

    Each group is a GEMM as in :func:`gemm`: ``a_list[i]`` is (M_i, K_i) and ``b_list[i]``
    (K_i, N_i); every array shares one dtype, library and device. Which per-group shapes a
    kernel takes (e.g. one K and N for all groups, any M_i) is the kernel's to say; see the
    grouped GEMM page of the guide.

    Args:
        a_list: the left operands, one per group (at least one).
        b_list: the right operands, as many as ``a_list``.
        arch: as for :func:`gemm`.

    Returns:
        The list of (M_i, N_i) products in the operands' library.

    Raises:
        KernelUnavailable: no kernel for this arch and dtype, or none takes the groups.
        ValueError: the lists differ in length or are empty, a group's shapes do not
            multiply, or the arrays differ in dtype, library or device, or ``arch`` is
            unknown or not the GPU's.
        TypeError: an argument is not a list of arrays.
    """
    for name, value in (("a_list", a_list), ("b_list", b_list)):
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"{name} must be a list of arrays, got {type(value).__name__}")
    if len(a_list) != len(b_list):
        raise ValueError(
            f"grouped_gemm: a_list has {len(a_list)} groups but b_list has {len(b_list)}"
        )
    if not a_list:
        raise ValueError("grouped_gemm: a_list and b_list are empty; pass at least one group")
    fas = [facts(a, f"a_list[{i}]") for i, a in enumerate(a_list)]
    fbs = [facts(b, f"b_list[{i}]") for i, b in enumerate(b_list)]
    for i, (fa, fb) in enumerate(zip(fas, fbs, strict=True)):
        _rank(fa, 2, "(M, K)")
        _rank(fb, 2, "(K, N)")
        if fa.shape[1] != fb.shape[0]:
            raise ValueError(
                f"grouped_gemm: group {i}: {fa.name} is (M, K) = {fa.shape} and {fb.name} is "
                f"(K, N) = {fb.shape}, so K is {fa.shape[1]} in one but {fb.shape[0]} in the "
                "other"
            )
    target, dtype = _common("grouped_gemm", arch, [*fas, *fbs])
    impls = select("grouped_gemm", target, dtype)
    shapes = ", ".join(f"{fa.shape}x{fb.shape}" for fa, fb in zip(fas, fbs, strict=True))
    return _first_taker(impls, f"grouped_gemm of {shapes} {dtype}", list(a_list), list(b_list))


def rms_norm(x: Any, w: Any, eps: float = 1e-6, *, arch: str | None = None) -> Any:
    """``x / sqrt(mean(x**2, -1) + eps) * w`` over the last dim of ``x``.

    Args:
        x: (..., H) array; any number of leading dims (they become rows).
        w: (H,) weight, same dtype, library and device as ``x``.
        eps: added to the mean square (a non-negative number).
        arch: as for :func:`gemm`.

    Returns:
        An array shaped and typed like ``x``.

    Raises:
        KernelUnavailable: no kernel for this arch and dtype, or none takes the shape.
        ValueError: ``w`` is not (H,), the arrays differ in dtype, library or device, ``eps``
            is negative, or ``arch`` is unknown or not the GPU's.
        TypeError: an argument is not an array, or ``eps`` not a number.
    """
    fx, fw = facts(x, "x"), facts(w, "w")
    _vector("rms_norm", fx, fw)
    return _rows("rms_norm", arch, x, fx, [fw], (w, _eps(eps)))


def layer_norm(x: Any, w: Any, b: Any, eps: float = 1e-5, *, arch: str | None = None) -> Any:
    """``(x - mean) / sqrt(var + eps) * w + b`` over the last dim of ``x`` (biased variance).

    Args:
        x: (..., H) array; any number of leading dims (they become rows).
        w: (H,) weight, same dtype, library and device as ``x``.
        b: (H,) bias, likewise.
        eps: added to the variance (a non-negative number).
        arch: as for :func:`gemm`.

    Returns:
        An array shaped and typed like ``x``.

    Raises:
        KernelUnavailable: no kernel for this arch and dtype, or none takes the shape.
        ValueError: ``w`` or ``b`` is not (H,), the arrays differ in dtype, library or
            device, ``eps`` is negative, or ``arch`` is unknown or not the GPU's.
        TypeError: an argument is not an array, or ``eps`` not a number.
    """
    fx, fw, fb = facts(x, "x"), facts(w, "w"), facts(b, "b")
    _vector("layer_norm", fx, fw)
    _vector("layer_norm", fx, fb)
    return _rows("layer_norm", arch, x, fx, [fw, fb], (w, b, _eps(eps)))


def swiglu(g: Any, u: Any, *, arch: str | None = None) -> Any:
    """``silu(g) * u`` elementwise, where ``silu(g) = g / (1 + exp(-g))``.

    Args:
        g: (..., H) gate array; any number of leading dims.
        u: the up projection, same shape, dtype, library and device as ``g``.
        arch: as for :func:`gemm`.

    Returns:
        An array shaped and typed like ``g``.

    Raises:
        KernelUnavailable: no kernel for this arch and dtype, or none takes the shape.
        ValueError: the shapes differ, the arrays differ in dtype, library or device, or
            ``arch`` is unknown or not the GPU's.
        TypeError: an argument is not an array.
    """
    fg, fu = facts(g, "g"), facts(u, "u")
    if fu.shape != fg.shape:
        raise ValueError(f"swiglu: g is {fg.shape} but u is {fu.shape}; they must match")
    return _rows("swiglu", arch, g, fg, [fu], (u,), flatten=1)


def softmax(x: Any, *, arch: str | None = None) -> Any:
    """``exp(x - max) / sum(exp(x - max))`` over the last dim of ``x``.

    Args:
        x: (..., H) array; any number of leading dims.
        arch: as for :func:`gemm`.

    Returns:
        An array shaped and typed like ``x``.

    Raises:
        KernelUnavailable: no kernel for this arch and dtype, or none takes the shape.
        ValueError: ``arch`` is unknown or not the GPU's.
        TypeError: ``x`` is not an array.
    """
    return _rows("softmax", arch, x, facts(x, "x"), [], ())


def flash_attention(
    q: Any, k: Any, v: Any, causal: bool = False, *, arch: str | None = None
) -> Any:
    """``softmax(q @ k^T / sqrt(head_dim)) @ v``, the forward pass of attention.

    The layout and meaning of ``torch.nn.functional.scaled_dot_product_attention``: arrays
    are (batch, heads, seq, head_dim); with ``causal=True`` query ``i`` sees keys ``j <= i``
    (the mask is aligned at the top left, as torch's ``is_causal``).

    Args:
        q: (B, H, S_q, D) queries.
        k: (B, H, S_k, D) keys, same dtype, library and device.
        v: (B, H, S_k, D) values, likewise.
        causal: whether to mask future keys.
        arch: as for :func:`gemm`.

    Returns:
        The (B, H, S_q, D) output in ``q``'s library and dtype.

    Raises:
        KernelUnavailable: no kernel for this arch and dtype, or none takes the shape (head
            dims, sequence lengths).
        ValueError: the shapes do not fit together, the arrays differ in dtype, library or
            device, or ``arch`` is unknown or not the GPU's.
        TypeError: an argument is not an array, or ``causal`` not a bool.
    """
    fq, fk, fv = facts(q, "q"), facts(k, "k"), facts(v, "v")
    for f in (fq, fk, fv):
        _rank(f, 4, "(batch, heads, seq, head_dim)")
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be a bool, got {type(causal).__name__}")
    batch, heads, seq_q, dim = fq.shape
    if fk.shape[:2] != (batch, heads) or fk.shape[3] != dim:
        raise ValueError(
            f"flash_attention: q is {fq.shape} and k is {fk.shape}; k must be "
            f"({batch}, {heads}, S_k, {dim}) (same batch, heads and head_dim as q)"
        )
    if fv.shape != fk.shape:
        raise ValueError(f"flash_attention: k is {fk.shape} but v is {fv.shape}; they must match")
    if dim == 0 or (fk.shape[2] == 0 and batch * heads * seq_q):
        raise ValueError(
            f"flash_attention: q is {fq.shape} and k is {fk.shape}; head_dim and the key "
            "count must not be 0"
        )
    target, dtype = _common("flash_attention", arch, [fq, fk, fv])
    impls = select("flash_attention", target, dtype)
    if batch * heads * seq_q == 0:
        return zeros_like_library(q, fq.shape, dtype)
    what = f"flash_attention of q {fq.shape}, k {fk.shape} {dtype} (causal={causal})"
    return _first_taker(impls, what, q, k, v, causal)


def select(family: str, arch: str, dtype: str) -> list[Implementation]:
    """The kernels of ``family`` for ``arch`` that take ``dtype``, in table order.

    Args:
        family: one of :data:`~pyptx.kernels.FAMILIES`.
        arch: the target ("sm_90a").
        dtype: the pyptx type name of the inputs ("bf16").

    Returns:
        At least one :class:`Implementation`.

    Raises:
        KernelUnavailable: the family has no kernel for ``arch``, or none for ``dtype``
            there; the message lists what the library has.
    """
    family_impls = [i for i in _registry.implementations() if i.family == family]
    if not family_impls:
        raise KernelUnavailable(f"the library has no {family} kernel yet")
    on_arch = [i for i in family_impls if i.arch == arch]
    if not on_arch:
        have = [a for a in ARCHES if any(i.arch == a for i in family_impls)]
        raise KernelUnavailable(
            f"no {family} kernel for {arch}; {family} has kernels for {', '.join(have)}"
        )
    fits = [i for i in on_arch if dtype in i.dtypes]
    if not fits:
        takes = list(dict.fromkeys(d for i in on_arch for d in i.dtypes))
        raise KernelUnavailable(f"{family} on {arch} takes {', '.join(takes)}; got {dtype}")
    return fits


# ---------------------------------------------------------------------------- helpers


def _rows(
    family: str,
    arch: str | None,
    x: Any,
    fx: ArrayFacts,
    others: list[ArrayFacts],
    rest: tuple[Any, ...],
    flatten: int = 0,
) -> Any:
    """A rows family: ``call(x as (rows, H), *rest)``; ``others`` are the other arrays.

    The first ``flatten`` of ``rest`` are shaped like ``x`` and are flattened the same way.
    The callers have checked the shapes of ``others`` against ``x``'s.
    """
    if not fx.shape:
        raise ValueError(f"{family}: {fx.name} is a scalar; it needs at least one dim (..., H)")
    hidden = fx.shape[-1]
    target, dtype = _common(family, arch, [fx, *others])
    impls = select(family, target, dtype)
    rows = _prod(fx.shape[:-1])
    if rows == 0 or hidden == 0:
        return zeros_like_library(x, fx.shape, dtype)
    what = f"{family} of {fx.shape} {dtype}"
    flat = [_flat(a, fx) for a in rest[:flatten]]
    out = _first_taker(impls, what, _flat(x, fx), *flat, *rest[flatten:])
    return reshape(out, fx.shape)


def _vector(family: str, fx: ArrayFacts, f: ArrayFacts) -> None:
    """Checks that ``f`` is an (H,) vector for the (..., H) ``fx``."""
    hidden = fx.shape[-1] if fx.shape else None
    if hidden is not None and f.shape != (hidden,):
        raise ValueError(
            f"{family}: {fx.name} is {fx.shape}, so {f.name} must be ({hidden},); got {f.shape}"
        )


def _flat(x: Any, fx: ArrayFacts) -> Any:
    """``x`` as (rows, H)."""
    if len(fx.shape) == 2:
        return x
    return reshape(x, (_prod(fx.shape[:-1]), fx.shape[-1]))


def _prod(dims: Sequence[int]) -> int:
    out = 1
    for d in dims:
        out *= d
    return out


def _rank(f: ArrayFacts, rank: int, layout: str) -> None:
    if len(f.shape) != rank:
        raise ValueError(f"{f.name} must be {rank}-D {layout}, got shape {f.shape}")


def _eps(eps: Any) -> float:
    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        raise TypeError(f"eps must be a number, got {type(eps).__name__}")
    if not eps >= 0:  # also refuses NaN
        raise ValueError(f"eps must be >= 0, got {eps}")
    return float(eps)


def _common(family: str, arch: str | None, arrays: list[ArrayFacts]) -> tuple[str, str]:
    """The target arch and the one dtype of ``arrays`` (one library, one device)."""
    first = arrays[0]
    for f in arrays[1:]:
        if f.library != first.library:
            raise ValueError(
                f"{family}: {first.name} is {first.kind} but {f.name} is {f.kind}; pass arrays "
                "of one library"
            )
        if f.gpu != first.gpu:
            raise ValueError(
                f"{family}: {first.name} is on {first.where} but {f.name} is on {f.where}; "
                "pass arrays on one device"
            )
        if f.dtype != first.dtype:
            raise ValueError(
                f"{family}: {first.name} is {first.dtype} but {f.name} is {f.dtype}; pass "
                "arrays of one dtype"
            )
    for f in arrays:
        if not f.contiguous:
            raise ValueError(
                f"{family}: {f.name} is not contiguous (row-major); pass {f.name}.contiguous() "
                "or a copy"
            )
    return _target(arch, first), first.dtype


def _target(arch: str | None, first: ArrayFacts) -> str:
    """The arch whose kernel runs: see the module docstring."""
    if arch is not None and arch not in ARCHES:
        raise ValueError(f"arch must be one of {', '.join(ARCHES)}, got {arch!r}")
    if first.gpu is None:
        return arch or DEFAULT_ARCH
    found = pyptx.runtime.device_arch(first.gpu)
    if found is None:
        raise ValueError(
            f"{first.name} is on {first.where}, but the CUDA driver sees no such device"
        )
    if arch is not None and arch != found:
        raise ValueError(
            f"arch={arch!r} was asked for, but {first.name} is on {first.where}, an {found} "
            f"GPU; leave arch unset (it follows the device), or pass host arrays to run the "
            f"{arch} kernel in the emulator"
        )
    return found


def _first_taker(impls: list[Implementation], what: str, *args: Any) -> Any:
    """``impl.call(*args)`` for the first of ``impls`` that takes the arguments."""
    reasons = []
    for impl in impls:
        try:
            return impl.call(*args)
        except KernelUnavailable as exc:
            reasons.append(f"{impl.name}: {exc}")
    arch = impls[0].arch
    raise KernelUnavailable(f"no kernel on {arch} takes {what}; " + "; ".join(reasons))
