"""Stage 8 — persistence (notebook 08): the store's key, kept outside the database.

Notebook 08 (persistence) teaches it. Audit rows keep keyed ids of erased notes and profile values,
never the text; a note id is a plain hash of scope, date and text, so a key inside the database
would let whoever holds the file confirm a guessed erased text. `helpers.store` keeps the key in a
file beside the SQLite file (owner-only) or takes it from the application; `helpers.store_postgres`
takes it from the application. The database holds `key_check(key)` only.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path
from typing import Any

# The store's key: it keys the ledger's digests and the ids audit rows keep, and lives OUTSIDE the
# database (a key file beside a SQLite file, or a key the application passes in), so the database
# alone confirms no guessed text. The database keeps only a check value, HMAC(key, label): it
# tells the right key from a wrong one and says nothing about the key.
KEY_BYTES = 32
_KEY_CHECK = b"agent-memory-notebooks/store-key-check"


def key_check(key: bytes) -> bytes:
    return hmac.new(key, _KEY_CHECK, hashlib.sha256).digest()


def checked_key(key: Any) -> bytes:
    if not isinstance(key, (bytes, bytearray)) or len(key) < KEY_BYTES:
        raise ValueError(f"a store key must be at least {KEY_BYTES} random bytes (secrets.token_bytes)")
    return bytes(key)


def read_key_file(path: Path) -> bytes:
    """A key file's key (hex text). Refused if others may read it: the key is what makes the
    database alone confirm nothing."""
    if os.name == "posix" and path.stat().st_mode & 0o077:
        raise PermissionError(f"{path} can be read by others (mode {path.stat().st_mode & 0o777:o}): "
                              f"chmod 600 {path}")
    try:
        return checked_key(bytes.fromhex(path.read_text(encoding="ascii").strip()))
    except ValueError as exc:
        raise ValueError(f"{path} does not hold a store key: {exc}") from None


def create_key_file(path: Path, key: bytes | None = None) -> bytes:
    """Write a new key file (owner-only, 0600) holding `key` or a random one; if another process
    created it first, read that one."""
    key = checked_key(key) if key is not None else secrets.token_bytes(KEY_BYTES)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return read_key_file(path)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(key.hex() + "\n")
        out.flush()
        os.fsync(out.fileno())
    return key


__all__ = ["KEY_BYTES", "checked_key", "create_key_file", "key_check", "read_key_file"]
