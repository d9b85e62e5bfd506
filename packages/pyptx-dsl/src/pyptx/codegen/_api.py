"""The transpiler entry points."""

from __future__ import annotations

import gc
import keyword
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from pyptx.ir import Module
from pyptx.parser import parse

from ._check import passes_checks
from ._literals import comment
from ._names import RESERVED
from ._render import RenderOptions, WaitNotSpelled, render_module
from .regions import lower
from .regions.mbarrier import unwrap_waits

__all__ = ["module_to_python", "ptx_to_python", "transpile"]

_T = TypeVar("_T")


def module_to_python(
    module: Module,
    *,
    python_names: Mapping[str, str] | None = None,
    source_name: str | None = None,
    compact: bool = False,
) -> str:
    """Python source that rebuilds ``module`` (plain IR, or the output of sugar passes).

    Args:
        module: the module; codegen regions (:class:`~pyptx.codegen.regions.Loop`) become
            Python blocks.
        python_names: Python identifiers for PTX function names.
        source_name: the input's name, for a comment in the output.
        compact: write runs of consecutive registers as comprehensions
            (``[f[i] for i in range(0, 64)]``), as ``sugar=True`` does.
    """
    plain_waits: set[int] = set()
    while True:
        if plain_waits:
            module = unwrap_waits(module, plain_waits)
        plain = lower(module)
        options = RenderOptions(
            python_names=dict(python_names or {}),
            check=passes_checks(plain),
            source_name=source_name,
            compact=compact,
        )
        try:
            return render_module(module, options, plain)
        except WaitNotSpelled as exc:  # that wait stays plain code; render the rest again
            plain_waits.add(id(exc.try_wait))


def _collector_paused(fn: Callable[..., _T], *args: object) -> _T:
    """``fn(*args)`` with the cyclic garbage collector paused (resumed even on error).

    Transpiling allocates many short-lived objects while the parsed tree is alive; the
    collector would rescan that tree again and again (about a fifth of the time) and finds
    nothing to free in it. A call rather than a ``with`` block: the trees ``fn`` builds are
    freed (by reference counting; they hold no cycles) when its frame ends, before the
    collector resumes, so resuming does not start a collection that scans them once more.
    What cycles the run leaves are collected later as usual.
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return fn(*args)
    finally:
        if paused:
            gc.enable()


def _kernel_names(module: Module, kernel_name: str | Mapping[str, str] | None) -> dict[str, str]:
    kernels = [f.name for f in module.functions if f.body is not None and f.is_kernel]
    if kernel_name is None:
        return {}
    if isinstance(kernel_name, str):
        if len(kernels) != 1:
            raise ValueError(
                f"kernel_name={kernel_name!r} needs a single-kernel module; this one has "
                f"{len(kernels)} ({', '.join(kernels) or 'none'}): pass a mapping "
                "{ptx_name: python_name}"
            )
        return _kernel_names(module, {kernels[0]: kernel_name})
    unknown = sorted(set(kernel_name) - set(kernels))
    if unknown:
        raise ValueError(f"kernel_name: no kernel named {', '.join(unknown)}")
    for python in kernel_name.values():
        if not python.isidentifier() or keyword.iskeyword(python) or python in RESERVED:
            raise ValueError(
                f"kernel_name: {python!r} cannot name a kernel in the generated module (not an "
                f"identifier, a keyword, or one of {', '.join(sorted(RESERVED))})"
            )
    return dict(kernel_name)


def ptx_to_python(
    source: str,
    *,
    sugar: bool = False,
    kernel_name: str | Mapping[str, str] | None = None,
    passes: Sequence[object] | None = None,
    source_name: str | None = None,
) -> str:
    """Transpile PTX text to pyptx Python source.

    Without sugar the generated module re-emits ``source`` byte for byte; with sugar it
    emits the same program up to a consistent renaming of registers, labels and symbols.

    Args:
        source: the PTX text.
        sugar: run :data:`~pyptx.codegen.pipeline.SUGAR_PASSES` and compact operand lists.
        kernel_name: the Python name of the kernel (single-kernel modules), or a mapping
            from PTX kernel names to Python names. The PTX names do not change.
        passes: run these passes instead of the default list (implies nothing else).
        source_name: the input's name (error messages and a comment in the output).

    Raises:
        pyptx.parser.PtxSyntaxError: the source is not well-formed PTX.
        ValueError: ``kernel_name`` does not fit the module.
    """
    return _collector_paused(_parse_and_transpile, source, sugar, kernel_name, passes, source_name)


def transpile(
    module: Module,
    *,
    sugar: bool = False,
    kernel_name: str | Mapping[str, str] | None = None,
    passes: Sequence[object] | None = None,
    source_name: str | None = None,
) -> str:
    """:func:`ptx_to_python` for a module that is already parsed (same arguments).

    With sugar (or ``passes``) the result is checked before it is returned: the generated
    Python is run and the PTX it emits must be alpha-equivalent to ``module``. A pass whose
    rewrite does not check is left out (its regions stay plain code); see
    :mod:`pyptx.codegen._verify`.

    Raises:
        ValueError: ``kernel_name`` does not fit the module.
    """
    return _collector_paused(_transpile, module, sugar, kernel_name, passes, source_name)


def _parse_and_transpile(
    source: str,
    sugar: bool,
    kernel_name: str | Mapping[str, str] | None,
    passes: Sequence[object] | None,
    source_name: str | None,
) -> str:
    module = parse(source, source_name or "<ptx>")
    return _transpile(module, sugar, kernel_name, passes, source_name)


def _transpile(
    module: Module,
    sugar: bool,
    kernel_name: str | Mapping[str, str] | None,
    passes: Sequence[object] | None,
    source_name: str | None,
) -> str:
    names = _kernel_names(module, kernel_name)
    if not (sugar or passes):
        return module_to_python(module, python_names=names, source_name=source_name)
    from ._verify import checked_passes
    from .pipeline import SUGAR_PASSES, check_passes

    chosen = check_passes(passes if passes is not None else SUGAR_PASSES)

    def generate(sugared: Module) -> str:
        python_names = _readable_function_names(module, sugared, names) if sugar else names
        return module_to_python(
            sugared, python_names=python_names, source_name=source_name, compact=sugar
        )

    dropped: list[str] = []
    code = checked_passes(module, chosen, generate, dropped, source_name or "<ptx>")
    if code is None:  # not even the compact rendering checks: plain code is exact
        return module_to_python(module, python_names=names, source_name=source_name)
    if dropped:  # say which sugar was left out, and where its output went wrong
        head, rest = code.split("\n", 2)[:2], code.split("\n", 2)[2]
        notes = [comment(f"sugar left out, its output did not check: {d}") for d in dropped]
        code = "\n".join([*head, *notes, rest])
    return code


def _readable_function_names(
    before: Module, after: Module, names: dict[str, str]
) -> dict[str, str]:
    """Python names for functions: demangled, unless the caller chose one."""
    from .demangle import readable_name

    out = {}
    for old, new in zip(before.functions, after.functions, strict=True):
        out[new.name] = names.get(old.name) or readable_name(new.name)
    return out
