"""The user's Python line that the DSL records for each call (errors, ``python_lines``)."""

from __future__ import annotations

import sys

from pyptx.dsl.errors import user_location


def _long_body(calls: int) -> list[tuple[object, int]]:
    """Run a function of ``calls`` statements, some spread over several lines, and return
    what :func:`user_location` said at each against the frame's own ``f_lineno``."""
    lines = ["def body(out, here, frame):"]
    for i in range(calls):
        if i % 7 == 3:  # a call written over three lines, as generated code does
            lines += ["    out.append(", "        (here(), frame().f_lineno)", "    )"]
        else:
            lines.append("    out.append((here(), frame().f_lineno))")
    namespace: dict[str, object] = {}
    exec(compile("\n".join(lines), "<long>", "exec"), namespace)
    out: list[tuple[object, int]] = []
    namespace["body"](out, user_location, sys._getframe)  # type: ignore[operator]
    return out


def test_every_call_of_a_long_function_gets_its_own_line() -> None:
    seen = _long_body(3000)
    assert len(seen) == 3000
    assert all(loc == ("<long>", line) for loc, line in seen)
    assert len({line for _, line in seen}) == 3000  # distinct lines, so the check has teeth


def test_under_a_tracer_the_frame_is_asked() -> None:
    calls: list[str] = []

    def tracer(frame, event, arg):  # type: ignore[no-untyped-def]
        calls.append(event)
        return None

    sys.settrace(tracer)
    try:
        seen = _long_body(20)
    finally:
        sys.settrace(None)
    assert calls  # the tracer was active
    assert all(loc == ("<long>", line) for loc, line in seen)


def test_the_line_cache_does_not_keep_code_alive() -> None:
    import gc
    import weakref

    from pyptx.dsl import errors

    namespace: dict[str, object] = {}
    exec(compile("def f(here):\n    return here()\n", "<short>", "exec"), namespace)
    f = namespace.pop("f")
    assert f(user_location) == ("<short>", 2)  # type: ignore[operator]
    code = weakref.ref(f.__code__)  # type: ignore[attr-defined]
    assert id(code()) in errors._LINE_TABLES
    key = id(code())
    del f
    gc.collect()
    assert code() is None
    assert key not in errors._LINE_TABLES
