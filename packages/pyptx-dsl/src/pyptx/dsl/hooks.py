"""The DSL's one reference up the layers: the runtime hook.

pyptx-dsl sits below pyptx-runtime and never imports it at module level. Three things need
the runtime at call time, and all go through :func:`runtime_attribute`:

- ``Kernel.__call__`` launches through ``pyptx.runtime.launch``;
- ``arch="auto"`` asks ``pyptx.runtime.auto_arch`` (the GPU's target, or the emulator's
  ``sm_90a`` where there is no GPU);
- ``pyptx.differentiable_kernel`` is ``pyptx.runtime.differentiable_kernel``.

The import below is the only upward import in the DSL; the import-linter contracts in the
top-level ``pyproject.toml`` allow it by name (``pyptx.dsl.hooks -> pyptx.runtime``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["runtime_attribute"]


def runtime_attribute(name: str) -> Any:
    """``pyptx.runtime.<name>``, or ``None`` when pyptx-runtime is not installed.

    Args:
        name: a public name of ``pyptx.runtime``.
    """
    try:
        from pyptx import runtime
    except ImportError:
        return None
    return getattr(runtime, name, None)
