"""The SHA-256 of a file: what every pin, mirror check and provenance sidecar compares."""

from __future__ import annotations

import hashlib
import os


def sha256_of(path: str | os.PathLike[str]) -> str:
    """SHA-256 (hex) of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
