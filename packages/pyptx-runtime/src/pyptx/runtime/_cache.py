"""The on-disk cubin cache: one file per compiled kernel, shared by every process of a user.

Where it lives, and whether it is used, comes from the environment, read at each call:

- ``PYPTX_CACHE_DIR``: the cache root. Unset or empty: ``$XDG_CACHE_HOME/pyptx`` when
  ``XDG_CACHE_HOME`` is an absolute path, else ``~/.cache/pyptx``. Cubins go under
  ``<root>/cubin``; the C++ launch shim is built under ``<root>/shim``.
- ``PYPTX_CACHE_DISABLE``: ``1``, ``true``, ``yes`` or ``on`` (any case) turn the cache off;
  unset, empty, ``0``, ``false``, ``no`` or ``off`` leave it on. Any other value is an error.
- ``PYPTX_CACHE_MAX_BYTES``: the size bound of ``<root>/cubin``, a byte count with an optional
  binary suffix ``K``, ``M``, ``G`` or ``T`` (``500M``); default ``1G``.

An entry is the file ``<key>.cubin``: a 52-byte little-endian header (the magic ``PYPTXCB``
plus a NUL byte, the format version as 4 bytes, the payload length as 8 bytes and the payload's
SHA-256) followed by the payload. A reader checks all four; an entry that fails any check (a
garbled byte, a truncated file, another format) is deleted and reported as a miss, so the caller
recompiles and rewrites it.

Writers never expose a partial entry: each writes a uniquely named temporary file in the same
directory and renames it over the entry (``os.replace``, atomic on POSIX), so concurrent
processes writing the same key leave one complete entry, and a reader sees either the old entry,
the new one, or none. After a write, entries are evicted least recently used first (by
modification time, which a hit refreshes) until the directory fits the size bound.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import struct
import time
from pathlib import Path

__all__ = [
    "CubinCache",
    "cache_disabled",
    "cache_key",
    "cache_max_bytes",
    "cache_root",
    "cubin_cache",
]

DEFAULT_MAX_BYTES = 1 << 30
"""The size bound of the cubin cache when ``PYPTX_CACHE_MAX_BYTES`` is not set (1 GiB)."""

_MAGIC = b"PYPTXCB\0"
_FORMAT_VERSION = 1
# magic, format version, payload length, SHA-256 of the payload; little-endian, no padding.
_HEADER = struct.Struct("<8sIQ32s")
_ENTRY_SUFFIX = ".cubin"
_TEMP_SUFFIX = ".tmp"
# A temporary file this old belongs to a writer that died; the next eviction removes it.
_STALE_TEMP_SECONDS = 3600
_KEY = re.compile(r"[0-9a-f]{1,128}")

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})
_SIZE = re.compile(r"(\d+)\s*([KMGT]?)", re.IGNORECASE)
_SIZE_SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def cache_root() -> Path:
    """The root directory of pyptx's on-disk caches (it is not created here).

    Returns:
        ``PYPTX_CACHE_DIR`` (made absolute) when set and not empty; otherwise
        ``$XDG_CACHE_HOME/pyptx`` when ``XDG_CACHE_HOME`` is an absolute path; otherwise
        ``~/.cache/pyptx``. Cubins live under ``cache_root() / "cubin"``, the C++ shim builds
        under ``cache_root() / "shim"``.
    """
    explicit = os.environ.get("PYPTX_CACHE_DIR", "")
    if explicit:
        return Path(explicit).expanduser().absolute()
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "pyptx"


def cache_disabled() -> bool:
    """Whether ``PYPTX_CACHE_DISABLE`` turns the on-disk cache off.

    Returns:
        True for ``1``, ``true``, ``yes``, ``on``; False for unset, empty, ``0``, ``false``,
        ``no``, ``off`` (case and surrounding spaces ignored).

    Raises:
        ValueError: the variable has any other value.
    """
    value = os.environ.get("PYPTX_CACHE_DISABLE", "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(
        f"PYPTX_CACHE_DISABLE must be one of 1/true/yes/on or 0/false/no/off, got {value!r}"
    )


def cache_max_bytes() -> int:
    """The cubin cache's size bound from ``PYPTX_CACHE_MAX_BYTES`` (default 1 GiB).

    Returns:
        The bound in bytes: a plain count (``1048576``) or one with a binary suffix
        ``K``/``M``/``G``/``T`` (``500M`` is 500 MiB).

    Raises:
        ValueError: the variable is set to something else.
    """
    raw = os.environ.get("PYPTX_CACHE_MAX_BYTES", "").strip()
    if not raw:
        return DEFAULT_MAX_BYTES
    match = _SIZE.fullmatch(raw)
    if match is None:
        raise ValueError(
            f"PYPTX_CACHE_MAX_BYTES must be a byte count such as 1073741824, 512M or 2G, "
            f"got {raw!r}"
        )
    return int(match.group(1)) * _SIZE_SUFFIX[match.group(2).upper()]


def cache_key(ptx: str, arch: str, toolchain: str) -> str:
    """The cache key of compiling ``ptx`` for ``arch`` with ``toolchain``.

    Each part is hashed with its length in front, so no two different triples share a key
    (``("ab", "c")`` and ``("a", "bc")`` differ).

    Args:
        ptx: the PTX text.
        arch: the target (``"sm_90a"``).
        toolchain: the toolchain fingerprint (versions of the compilers and of the driver).

    Returns:
        The lowercase hex SHA-256 (64 characters).
    """
    digest = hashlib.sha256(b"pyptx-cubin-key\0")
    for part in (ptx, arch, toolchain):
        data = part.encode("utf-8")
        digest.update(struct.pack("<Q", len(data)))
        digest.update(data)
    return digest.hexdigest()


def _encode(payload: bytes) -> bytes:
    """An entry: header then payload."""
    header = _HEADER.pack(_MAGIC, _FORMAT_VERSION, len(payload), hashlib.sha256(payload).digest())
    return header + payload


def _decode(blob: bytes) -> bytes | None:
    """The payload of an entry, or ``None`` when the entry is corrupt, truncated or foreign."""
    if len(blob) < _HEADER.size:
        return None
    magic, version, length, digest = _HEADER.unpack_from(blob)
    payload = blob[_HEADER.size :]
    if magic != _MAGIC or version != _FORMAT_VERSION or length != len(payload):
        return None
    if hashlib.sha256(payload).digest() != digest:
        return None
    return payload


class CubinCache:
    """A size-bounded directory of cache entries, safe to share between processes.

    One file per key, ``<directory>/<key>.cubin`` (see the module docstring for its format).
    Nothing touches the disk until the first call; the directory is created by the first
    :meth:`put`.

    Args:
        directory: where the entries live.
        max_bytes: the bound on the total size of the entries (headers included). An entry
            larger than the bound on its own is not stored.
    """

    def __init__(self, directory: Path, max_bytes: int) -> None:
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
        self.directory = Path(directory)
        self.max_bytes = max_bytes

    def __repr__(self) -> str:
        return f"CubinCache({str(self.directory)!r}, max_bytes={self.max_bytes})"

    def _path(self, key: str) -> Path:
        if _KEY.fullmatch(key) is None:
            raise ValueError(f"a cache key is 1 to 128 lowercase hex digits, got {key!r}")
        return self.directory / f"{key}{_ENTRY_SUFFIX}"

    def get(self, key: str) -> bytes | None:
        """The payload stored under ``key``, refreshing its last use.

        Args:
            key: a key from :func:`cache_key`.

        Returns:
            The payload, or ``None`` on a miss. A corrupt, truncated or foreign entry is
            deleted and reported as a miss.

        Raises:
            ValueError: ``key`` is not lowercase hex.
            OSError: the entry exists but cannot be read (permissions, I/O error).
        """
        path = self._path(key)
        try:
            with open(path, "rb") as f:
                blob = f.read()
                inode = os.fstat(f.fileno()).st_ino
        except FileNotFoundError:
            return None
        payload = _decode(blob)
        if payload is None:
            self._unlink_if_same(path, inode)
            return None
        now = time.time_ns()
        with contextlib.suppress(FileNotFoundError):  # evicted by another process meanwhile
            os.utime(path, ns=(now, now))
        return payload

    def put(self, key: str, data: bytes) -> None:
        """Store ``data`` under ``key`` atomically, then evict down to the size bound.

        The entry is written to a temporary file in the cache directory and renamed over
        ``<key>.cubin``; the least recently used other entries are then deleted until the
        directory holds at most ``max_bytes``. An entry larger than ``max_bytes`` is not
        stored.

        Args:
            key: a key from :func:`cache_key`.
            data: the payload.

        Raises:
            ValueError: ``key`` is not lowercase hex.
            OSError: the directory cannot be created or written.
        """
        path = self._path(key)
        blob = _encode(bytes(data))
        if len(blob) > self.max_bytes:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        temp = self.directory / f".{key}.{os.getpid()}.{secrets.token_hex(6)}{_TEMP_SUFFIX}"
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(temp, path)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        self._evict(keep=path)

    def discard(self, key: str) -> None:
        """Delete the entry of ``key`` if there is one.

        Args:
            key: a key from :func:`cache_key`.
        """
        self._path(key).unlink(missing_ok=True)

    def clear(self) -> None:
        """Delete every entry (and any leftover temporary file); keep the directory."""
        for path, _, _ in self._scan(temps=True):
            path.unlink(missing_ok=True)

    def keys(self) -> list[str]:
        """The keys stored now, sorted."""
        return sorted(path.name[: -len(_ENTRY_SUFFIX)] for path, _, _ in self._scan())

    @property
    def entries(self) -> int:
        """How many entries the cache holds now."""
        return len(self._scan())

    @property
    def size_bytes(self) -> int:
        """The total size of the entries now, in bytes (headers included)."""
        return sum(size for _, size, _ in self._scan())

    def _scan(self, *, temps: bool = False) -> list[tuple[Path, int, int]]:
        """``(path, size, mtime_ns)`` of every entry (and temporary file, with ``temps``)."""
        found: list[tuple[Path, int, int]] = []
        try:
            listing = list(os.scandir(self.directory))
        except FileNotFoundError:
            return found
        for item in listing:
            name = item.name
            is_entry = name.endswith(_ENTRY_SUFFIX) and _KEY.fullmatch(name[: -len(_ENTRY_SUFFIX)])
            is_temp = temps and name.startswith(".") and name.endswith(_TEMP_SUFFIX)
            if not (is_entry or is_temp):
                continue
            try:
                st = item.stat(follow_symlinks=False)
            except FileNotFoundError:  # removed by another process meanwhile
                continue
            found.append((Path(item.path), st.st_size, st.st_mtime_ns))
        return found

    def _evict(self, *, keep: Path) -> None:
        """Delete stale temporary files, then the least recently used entries over the bound."""
        stale_before = time.time_ns() - _STALE_TEMP_SECONDS * 1_000_000_000
        entries: list[tuple[Path, int, int]] = []
        for path, size, mtime in self._scan(temps=True):
            if path.name.endswith(_TEMP_SUFFIX):
                if mtime < stale_before:
                    path.unlink(missing_ok=True)
            else:
                entries.append((path, size, mtime))
        total = sum(size for _, size, _ in entries)
        for path, size, _ in sorted(entries, key=lambda e: (e[2], e[0].name)):
            if total <= self.max_bytes:
                break
            if path == keep:
                continue
            path.unlink(missing_ok=True)
            total -= size

    @staticmethod
    def _unlink_if_same(path: Path, inode: int) -> None:
        """Delete ``path`` unless another writer has replaced it since it was read."""
        with contextlib.suppress(FileNotFoundError):
            if os.stat(path).st_ino == inode:
                path.unlink()


def cubin_cache() -> CubinCache | None:
    """The process's cubin cache as the environment configures it.

    Returns:
        ``CubinCache(cache_root() / "cubin", cache_max_bytes())``, or ``None`` when
        ``PYPTX_CACHE_DISABLE`` turns the cache off.

    Raises:
        ValueError: ``PYPTX_CACHE_DISABLE`` or ``PYPTX_CACHE_MAX_BYTES`` has an invalid value.
    """
    if cache_disabled():
        return None
    return CubinCache(cache_root() / "cubin", cache_max_bytes())
