"""``python -m pyptx``: the pyptx command line (see :mod:`pyptx.cli`)."""

from __future__ import annotations

from .cli import main

raise SystemExit(main())
