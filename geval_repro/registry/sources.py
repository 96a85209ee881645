"""The sources registry (``geval_repro/data/sources.yaml``): every upstream file, pinned and hashed.

Each entry names one raw file at a pinned commit. Its local path, in ``data/raw`` and in an
offline mirror alike, is ``<owner>/<repo>/<commit>/<path>``: the layout of the raw-file URL
``https://raw.githubusercontent.com/<owner>/<repo>/<commit>/<path>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
#: The checkout (only meaningful in a source checkout: git state, README, results/).
REPO_ROOT = PACKAGE_ROOT.parent
#: Data files shipped with the package (work from a non-editable install too).
PACKAGE_DATA = PACKAGE_ROOT / "data"
REGISTRY_PATH = PACKAGE_DATA / "sources.yaml"


@dataclass(frozen=True)
class Source:
    """One upstream file: where it lives, what it must hash to, and whose it is."""

    id: str
    owner: str
    repo: str
    commit: str
    path: str
    url: str
    sha256: str
    bytes: int | None
    license: str
    citation: str
    mirrored: bool
    description: str

    @property
    def relpath(self) -> str:
        """``<owner>/<repo>/<commit>/<path>``: the file's place under data/raw or a mirror."""
        return f"{self.owner}/{self.repo}/{self.commit}/{self.path}"


@cache
def load_registry(path: Path = REGISTRY_PATH) -> dict[str, Source]:
    """Read the registry into ``{id: Source}``; a malformed entry is an error naming it."""
    import yaml  # here: modules that only need the registry's paths do not load yaml

    with open(path, encoding="utf-8") as handle:
        entries = yaml.safe_load(handle)["sources"]
    registry: dict[str, Source] = {}
    for entry in entries:
        try:
            source = Source(**entry)
        except TypeError as error:
            raise ValueError(
                f"{path}: entry {entry.get('id', '?')!r} is malformed: {error}"
            ) from None
        if source.id in registry:
            raise ValueError(f"{path}: source id {source.id!r} is listed twice")
        registry[source.id] = source
    return registry


def get_source(source_id: str) -> Source:
    """The registry entry ``source_id``; an unknown id names the registry to look in."""
    registry = load_registry()
    if source_id not in registry:
        raise KeyError(f"unknown source {source_id!r}: see {REGISTRY_PATH} for the ids")
    return registry[source_id]
