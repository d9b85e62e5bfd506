"""``python -m pyptx.runtime``: what the runtime sees on this machine, for diagnosing launches.

Prints, one fact per line: the driver and each GPU's target, the toolchains that can compile
PTX (and the cache fingerprint they make), the cubin cache, the launch shim (building it if
needed) and its XLA handler, and torch/JAX with their devices. Exits 0 whatever it finds;
``--json`` prints the same facts as one JSON object.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any

from . import _cache, _compile, _driver
from ._launch import EMULATOR_ARCH
from ._shim import load_shim, shim_load_error


def _driver_facts() -> dict[str, Any]:
    loaded = _driver._load()
    facts: dict[str, Any] = {"driver": "loaded" if not isinstance(loaded, str) else loaded}
    facts["driver_version"] = _driver.driver_version()
    facts["gpus"] = [_driver.device_arch(d) for d in range(_driver.gpu_count())]
    return facts


def _toolchain_facts(arch: str) -> dict[str, Any]:
    chains = {}
    for chain in _compile.TOOLCHAINS:
        reason = chain.unavailable(arch)
        chains[chain.name] = f"usable ({chain.version()})" if reason is None else reason
    return {
        "target": arch,
        "toolchains": chains,
        "fingerprint": _compile.toolchain_fingerprint(arch),
    }


def _cache_facts() -> dict[str, Any]:
    cache = _cache.cubin_cache()
    if cache is None:
        return {"cubin_cache": "disabled (PYPTX_CACHE_DISABLE)"}
    return {
        "cubin_cache": str(cache.directory),
        "cubin_entries": cache.entries,
        "cubin_bytes": cache.size_bytes,
        "cubin_max_bytes": cache.max_bytes,
    }


def _shim_facts() -> dict[str, Any]:
    try:
        shim = load_shim()
    except Exception:
        return {"shim": f"unavailable: {shim_load_error()}"}
    return {"shim": str(shim.path), "shim_xla": "yes" if shim.has_xla else shim.xla_error}


def _framework_facts() -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for name in ("torch", "jax"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            facts[name] = "not installed"
            continue
        version = getattr(module, "__version__", "?")
        if name == "torch":
            facts[name] = f"{version} (CUDA available: {module.cuda.is_available()})"
        else:
            facts[name] = f"{version} (default backend: {module.default_backend()})"
    return facts


def facts() -> dict[str, Any]:
    """Everything the report prints, as a dict."""
    out = _driver_facts()
    arch = next((a for a in out["gpus"] if a), None) or EMULATOR_ARCH
    out |= _toolchain_facts(arch)
    out |= _cache_facts()
    out |= _shim_facts()
    out |= _framework_facts()
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the report (``--json``: as JSON)."""
    parser = argparse.ArgumentParser(prog="python -m pyptx.runtime", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    found = facts()
    if args.json:
        print(json.dumps(found, indent=2))
        return 0
    for key, value in found.items():
        if isinstance(value, dict):
            for inner, text in value.items():
                print(f"{key}.{inner}: {text}")
        else:
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
