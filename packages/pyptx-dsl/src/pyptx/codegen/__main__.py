"""``python -m pyptx.codegen KERNEL.ptx [--sugar] [--name NAME] [-o OUT.py]``."""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
