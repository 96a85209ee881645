"""Helpers shared by the rules: where each registry source lands under data/raw."""

from geval_repro.sources import get_source


def raw(source_id):
    """Local path of registry source ``source_id`` (fetched by rule fetch)."""
    return str(RAW / get_source(source_id).relpath)
