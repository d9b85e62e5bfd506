"""The on-disk cubin cache: keys, entry validation, eviction, environment, concurrent writers."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pyptx.runtime._cache import (
    DEFAULT_MAX_BYTES,
    CubinCache,
    cache_disabled,
    cache_key,
    cache_max_bytes,
    cache_root,
    cubin_cache,
)

HEADER_BYTES = 52
KEY_A = "a" * 64
KEY_B = "b" * 64
KEY_C = "c" * 64
KEY_D = "d" * 64


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's cache settings or writes under ~/.cache."""
    for name in ("PYPTX_CACHE_DIR", "PYPTX_CACHE_DISABLE", "PYPTX_CACHE_MAX_BYTES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))


def entry_path(cache: CubinCache, key: str) -> Path:
    return cache.directory / f"{key}.cubin"


# ------------------------------------------------------------------------------------ keys


def test_key_is_stable() -> None:
    # A snapshot: a change of the key scheme must be deliberate (it orphans every entry).
    assert cache_key(".version 8.0", "sm_90a", "ptxas 13.5.37") == (
        "b8c3d54289290d3492432359d756c69c4adaff523f5769356879ccdc6c512bd7"
    )
    assert cache_key("x", "sm_80", "t") == cache_key("x", "sm_80", "t")


def test_key_differs_by_each_input() -> None:
    base = cache_key("ptx", "sm_80", "tool")
    assert cache_key("ptx ", "sm_80", "tool") != base
    assert cache_key("ptx", "sm_90a", "tool") != base
    assert cache_key("ptx", "sm_80", "tool2") != base
    assert len(base) == 64 and int(base, 16) >= 0


def test_key_is_unambiguous_across_part_boundaries() -> None:
    assert cache_key("ab", "c", "d") != cache_key("a", "bc", "d")
    assert cache_key("a", "bc", "d") != cache_key("a", "b", "cd")


# ------------------------------------------------------------------------------ round trip


def test_put_get_round_trip(tmp_path: Path) -> None:
    cache = CubinCache(tmp_path / "c", max_bytes=1 << 20)
    assert cache.get(KEY_A) is None
    assert cache.entries == 0 and cache.size_bytes == 0  # no directory yet
    cache.put(KEY_A, b"\x7fELF payload")
    assert cache.get(KEY_A) == b"\x7fELF payload"
    assert cache.keys() == [KEY_A]
    assert cache.entries == 1
    assert cache.size_bytes == HEADER_BYTES + len(b"\x7fELF payload")
    assert [p.name for p in cache.directory.iterdir()] == [f"{KEY_A}.cubin"]


def test_put_replaces_an_entry(tmp_path: Path) -> None:
    cache = CubinCache(tmp_path, max_bytes=1 << 20)
    cache.put(KEY_A, b"one")
    cache.put(KEY_A, b"two")
    assert cache.get(KEY_A) == b"two"
    assert cache.entries == 1


def test_empty_payload_round_trips(tmp_path: Path) -> None:
    cache = CubinCache(tmp_path, max_bytes=1 << 20)
    cache.put(KEY_A, b"")
    assert cache.get(KEY_A) == b""


@pytest.mark.parametrize("key", ["", "ABC", "../x", "a/b", "g" * 64, "a" * 129])
def test_a_key_must_be_lowercase_hex(tmp_path: Path, key: str) -> None:
    cache = CubinCache(tmp_path, max_bytes=1 << 20)
    with pytest.raises(ValueError, match="lowercase hex"):
        cache.put(key, b"x")
    with pytest.raises(ValueError, match="lowercase hex"):
        cache.get(key)


def test_clear_and_discard(tmp_path: Path) -> None:
    cache = CubinCache(tmp_path, max_bytes=1 << 20)
    for key in (KEY_A, KEY_B, KEY_C):
        cache.put(key, b"data")
    (tmp_path / "unrelated.txt").write_text("kept")
    cache.discard(KEY_B)
    cache.discard(KEY_D)  # absent: no error
    assert cache.keys() == [KEY_A, KEY_C]
    cache.clear()
    assert cache.keys() == []
    assert [p.name for p in tmp_path.iterdir()] == ["unrelated.txt"]


# ------------------------------------------------------------------------------ corruption


def _garble_payload(blob: bytes) -> bytes:
    return blob[:-1] + bytes([blob[-1] ^ 0x01])


def _garble_length(blob: bytes) -> bytes:
    return blob[:12] + bytes([blob[12] ^ 0x01]) + blob[13:]


def _wrong_magic(blob: bytes) -> bytes:
    return b"NOTPYPTX" + blob[8:]


def _wrong_version(blob: bytes) -> bytes:
    return blob[:8] + (99).to_bytes(4, "little") + blob[12:]


CORRUPTIONS: dict[str, Callable[[bytes], bytes]] = {
    "garbled-payload-byte": _garble_payload,
    "garbled-length": _garble_length,
    "garbled-digest": lambda b: b[:20] + bytes([b[20] ^ 0xFF]) + b[21:],
    "truncated-payload": lambda b: b[:-3],
    "truncated-header": lambda b: b[:30],
    "empty-file": lambda b: b"",
    "wrong-magic": _wrong_magic,
    "wrong-format-version": _wrong_version,
    "trailing-bytes": lambda b: b + b"\0",
}


@pytest.mark.parametrize("corrupt", CORRUPTIONS.values(), ids=CORRUPTIONS.keys())
def test_corrupt_entry_is_a_miss_and_is_deleted(
    tmp_path: Path, corrupt: Callable[[bytes], bytes]
) -> None:
    cache = CubinCache(tmp_path, max_bytes=1 << 20)
    cache.put(KEY_A, b"\x7fELF" + bytes(range(200)))
    path = entry_path(cache, KEY_A)
    path.write_bytes(corrupt(path.read_bytes()))
    assert cache.get(KEY_A) is None
    assert not path.exists()
    cache.put(KEY_A, b"fresh")  # the caller recompiles and rewrites it
    assert cache.get(KEY_A) == b"fresh"


# -------------------------------------------------------------------------------- eviction


def _set_mtime(cache: CubinCache, key: str, seconds: int) -> None:
    os.utime(entry_path(cache, key), ns=(seconds * 10**9, seconds * 10**9))


def test_eviction_removes_least_recently_used_first(tmp_path: Path) -> None:
    payload = bytes(100)
    size = HEADER_BYTES + len(payload)
    cache = CubinCache(tmp_path, max_bytes=3 * size)
    for when, key in enumerate((KEY_A, KEY_B, KEY_C), start=1):
        cache.put(key, payload)
        _set_mtime(cache, key, 1000 * when)  # A oldest, then B, then C
    assert cache.get(KEY_A) == payload  # a hit makes A the most recently used
    cache.put(KEY_D, payload)
    assert cache.keys() == [KEY_A, KEY_C, KEY_D]  # B was the least recently used
    assert cache.size_bytes <= cache.max_bytes


def test_eviction_removes_as_many_as_needed(tmp_path: Path) -> None:
    cache = CubinCache(tmp_path, max_bytes=HEADER_BYTES * 3 + 300)
    for when, key in enumerate((KEY_A, KEY_B, KEY_C), start=1):
        cache.put(key, bytes(100))
        _set_mtime(cache, key, 1000 * when)
    cache.put(KEY_D, bytes(250))  # needs the room of A and B
    assert cache.keys() == [KEY_C, KEY_D]


def test_entry_larger_than_the_bound_is_not_stored(tmp_path: Path) -> None:
    cache = CubinCache(tmp_path, max_bytes=HEADER_BYTES + 10)
    cache.put(KEY_A, bytes(10))
    cache.put(KEY_B, bytes(11))
    assert cache.keys() == [KEY_A]


def test_stale_temporary_files_are_removed_fresh_ones_kept(tmp_path: Path) -> None:
    cache = CubinCache(tmp_path, max_bytes=1 << 20)
    stale = tmp_path / f".{KEY_A}.1.dead.tmp"
    fresh = tmp_path / f".{KEY_B}.2.live.tmp"
    stale.write_bytes(b"partial")
    fresh.write_bytes(b"partial")
    two_hours_ago = time.time_ns() - 7200 * 10**9
    os.utime(stale, ns=(two_hours_ago, two_hours_ago))
    cache.put(KEY_C, b"x")
    assert not stale.exists()
    assert fresh.exists()  # another writer may be about to rename it


# ----------------------------------------------------------------------------- environment


def test_cache_root_default_is_xdg_then_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert cache_root() == tmp_path / "xdg" / "pyptx"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # not absolute: ignored (XDG spec)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_root() == tmp_path / "home" / ".cache" / "pyptx"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_root() == tmp_path / "home" / ".cache" / "pyptx"


def test_cache_dir_relocates_the_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PYPTX_CACHE_DIR", str(tmp_path / "moved"))
    assert cache_root() == tmp_path / "moved"
    cache = cubin_cache()
    assert cache is not None
    assert cache.directory == tmp_path / "moved" / "cubin"
    assert cache.max_bytes == DEFAULT_MAX_BYTES
    cache.put(KEY_A, b"x")
    assert (tmp_path / "moved" / "cubin" / f"{KEY_A}.cubin").is_file()
    assert not (tmp_path / "xdg").exists()


def test_relative_cache_dir_is_made_absolute(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYPTX_CACHE_DIR", "here")
    assert cache_root() == tmp_path / "here"


@pytest.mark.parametrize("value", ["1", "true", "YES", " on "])
def test_cache_disable_values_that_disable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("PYPTX_CACHE_DISABLE", value)
    assert cache_disabled()
    assert cubin_cache() is None


@pytest.mark.parametrize("value", ["", "0", "false", "No", "off"])
def test_cache_disable_values_that_enable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("PYPTX_CACHE_DISABLE", value)
    assert not cache_disabled()
    assert cubin_cache() is not None


def test_cache_disable_rejects_other_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYPTX_CACHE_DISABLE", "maybe")
    with pytest.raises(ValueError, match=r"PYPTX_CACHE_DISABLE.*'maybe'"):
        cache_disabled()


@pytest.mark.parametrize(
    ("value", "expected"),
    [("", 1 << 30), ("4096", 4096), ("512k", 512 << 10), ("500M", 500 << 20), ("2G", 2 << 30)],
)
def test_max_bytes_from_env(monkeypatch: pytest.MonkeyPatch, value: str, expected: int) -> None:
    monkeypatch.setenv("PYPTX_CACHE_MAX_BYTES", value)
    assert cache_max_bytes() == expected
    cache = cubin_cache()
    assert cache is not None and cache.max_bytes == expected


@pytest.mark.parametrize("value", ["-1", "1.5G", "lots", "10 MB"])
def test_max_bytes_rejects_garbage(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("PYPTX_CACHE_MAX_BYTES", value)
    with pytest.raises(ValueError, match="PYPTX_CACHE_MAX_BYTES"):
        cache_max_bytes()


# ---------------------------------------------------------------------- concurrent writers

WORKER = textwrap.dedent(
    """
    import hashlib, sys, time
    from pathlib import Path
    from pyptx.runtime._cache import CubinCache

    directory, go, seed, rounds, max_bytes = sys.argv[1:6]
    keys = [hashlib.sha256(f"key{i}".encode()).hexdigest() for i in range(8)]

    def payload(key):
        # Deterministic per key, of varying size, so a torn or mixed write shows.
        return hashlib.sha256(key.encode()).digest() * (50 + int(key[:2], 16))

    cache = CubinCache(Path(directory), int(max_bytes))
    while not Path(go).exists():
        time.sleep(0.001)
    for i in range(int(rounds)):
        key = keys[(i * 7 + int(seed)) % len(keys)]
        cache.put(key, payload(key))
        other = keys[(i * 3 + int(seed)) % len(keys)]
        got = cache.get(other)
        if got is not None and got != payload(other):
            sys.exit(f"process {seed} read a wrong payload for {other}")
    """
)


def _payload(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest() * (50 + int(key[:2], 16))


def test_concurrent_writers_leave_only_valid_entries(tmp_path: Path) -> None:
    directory, go = tmp_path / "cubin", tmp_path / "go"
    # Room for about half of the eight keys, so the writers also evict each other's entries.
    max_bytes = 4 * (HEADER_BYTES + 32 * 180)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER,
                str(directory),
                str(go),
                str(seed),
                "400",
                str(max_bytes),
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in range(3)
    ]
    go.touch()
    errors = [p.communicate(timeout=60)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], errors
    cache = CubinCache(directory, max_bytes)
    stored = cache.keys()
    assert stored, "the writers left no entry"
    for key in stored:
        assert cache.get(key) == _payload(key)
    assert cache.size_bytes <= max_bytes
    leftovers = [p.name for p in directory.iterdir() if not p.name.endswith(".cubin")]
    assert leftovers == []
