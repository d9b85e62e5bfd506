"""Tracing DSL: ``@kernel`` functions whose ``ptx.*`` calls each emit one PTX instruction.

The public names are re-exported from the top-level :mod:`pyptx` package.
"""

__all__: list[str] = []
