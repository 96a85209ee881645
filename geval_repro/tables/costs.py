"""What a judge run cost, per dimension, from the manifest ``geval-repro judge`` writes
(``manifest.json``: its ``counts``, ``usage``, ``started``/``finished`` and server per
dimension), per 1,000 items the run answered: requests sent, prompt and completion tokens,
wall seconds; and the server it ran on. A run without a manifest (per-item scores published
by others, the released replies) says so; the cost in USD needs the model's prices, which
the config does not give yet (said in the cell)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

NO_MANIFEST = "n/a: no run manifest (a run this toolkit did not make)"
NO_PRICES = "n/a: the config gives no prices for this model"
PER = 1000


def cost_fields(manifest: Mapping[str, object] | None, dimension: str) -> dict[str, object]:
    """The card's cost cells of ``dimension`` from a run's parsed ``manifest`` (None: the
    run has none)."""
    dimensions = (manifest or {}).get("dimensions", {})
    if not isinstance(dimensions, Mapping) or dimension not in dimensions:
        return {"requests_per_1000": NO_MANIFEST}
    record = dimensions[dimension]
    counts, usage = record.get("counts", {}), record.get("usage", {})
    items = int(counts.get("items") or 0)
    if items == 0:
        return {"requests_per_1000": "n/a: the manifest records no answered item"}
    started = datetime.fromisoformat(str(record["started"]))
    finished = datetime.fromisoformat(str(record["finished"]))
    server = (record.get("managed_server") or {}).get("identity") or record.get("base_url_host")
    scale = PER / items
    return {
        "requests_per_1000": int(counts.get("sent", 0)) * scale,
        "prompt_tokens_per_1000": int(usage.get("prompt_tokens", 0)) * scale,
        "completion_tokens_per_1000": int(usage.get("completion_tokens", 0)) * scale,
        "wall_seconds_per_1000": (finished - started).total_seconds() * scale,
        "cost_items": items,
        "server": server,
        "usd_per_1000": NO_PRICES,
    }
