"""The transpiler's own proof that sugar kept the program.

Before :func:`pyptx.codegen.transpile` returns sugared Python it runs it (the code is its own
output: a module of ``ptx.*`` calls), takes the program that code traces, and checks with
:func:`~pyptx.codegen.alpha.alpha_equivalent` that it is the input program up to a
consistent, scope-aware renaming. When the check fails, the passes are applied one at a time
and a pass is kept only if the output still checks, so a pass whose rewrite cannot be shown
to keep the program is left out (its regions stay plain code) and the others still apply.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence

from pyptx.emitter import emit
from pyptx.ir import Module
from pyptx.parser import parse, with_spans

from .alpha import AlphaResult, alpha_equivalent
from .pipeline import Pass, run_passes

__all__ = ["checked_passes", "emitted_equivalent"]


def emitted_equivalent(code: str, module: Module) -> AlphaResult:
    """Whether running ``code`` emits ``module``'s program (up to a consistent renaming).

    ``code`` is generated Python (see :func:`pyptx.codegen.module_to_python`); it is executed
    as a fresh module and the program it traces compared with ``module``: the traced tree
    when it corresponds node for node (its PTX text then does too), else the PTX it emits
    (in the canonical formatting: trivia is not compared), parsed back. An exception while
    running or tracing it is a failed check whose reason names the exception.
    """
    namespace = types.ModuleType("pyptx_codegen_check")
    try:
        exec(compile(code, "<generated>", "exec"), namespace.__dict__)  # our own output
        built = namespace.__dict__["module"]
        # The ISA checks only repeat a verdict already known: the code keeps them on only
        # when the input passes them (see passes_checks), and they judge nothing a
        # consistent renaming changes, so a program that compares equal below passes them
        # too. Formatting is trivia, which the comparison ignores: trace without the layout.
        built.check = False
        traced = built.module(layout=False)
        # The traced tree itself usually matches node for node; then its text does too, as
        # emitted text parses back to the tree it came from. Where it does not (the DSL
        # may build a different node for the same text: a symbol for a register named
        # without %), the text decides.
        direct = alpha_equivalent(module, traced)
        return direct if direct else alpha_equivalent(module, parse(emit(traced), "<generated>"))
    except Exception as exc:  # any failure means the sugar is not proven
        return AlphaResult(False, f"the generated code fails: {type(exc).__name__}: {exc}")


def checked_passes(
    module: Module,
    passes: Sequence[Pass],
    generate: Callable[[Module], str],
    dropped: list[str] | None = None,
    filename: str = "<ptx>",
) -> str | None:
    """``generate(passes applied to module)``, proven equivalent to ``module``.

    Args:
        module: the parsed input.
        passes: the passes, in order.
        generate: renders a (sugared) module as Python.
        dropped: when given, each pass left out is appended as ``"name: reason"``, the
            reason's first line, located in the input (``file:line:col``) where it can be.
        filename: the input's name in those locations.

    Returns:
        The Python of all passes when it checks; else of the passes that check when added
        one at a time in order; ``None`` when not even ``generate(module)`` checks (the
        caller then writes plain code, which re-emits the input byte for byte).
    """
    code = generate(run_passes(module, passes))
    if emitted_equivalent(code, module):
        return code
    # The failure path only: the input with spans, so that reasons say where.
    located = with_spans(module, filename)
    kept = module
    best = generate(module)
    found = bool(emitted_equivalent(best, module))
    for p in passes:
        trial = p(kept)
        trial_code = generate(trial)
        verdict = emitted_equivalent(trial_code, located)
        if verdict:
            kept, best, found = trial, trial_code, True
        elif dropped is not None:
            dropped.append(f"{getattr(p, 'name', p)}: {verdict.reason.splitlines()[0]}")
    return best if found else None
