"""What a judge run cost, per dimension, from the manifest ``geval-repro judge`` writes
(``manifest.json``: its ``counts``, ``usage``, ``started``/``finished`` and server per
dimension), per 1,000 items the run answered: requests sent, prompt and completion tokens,
wall seconds; and the server it ran on. A run without a manifest (per-item scores published
by others, the released replies) says so.

The cost in USD per 1,000 items needs the model's prices (a judge's ``prices:`` in the
config, :class:`~geval_repro.registry.judges.Prices`):
``usd_per_1000 = (P x p_prompt + C x p_completion) / 10^6``, with ``P`` and ``C`` the prompt
and completion tokens per 1,000 items and the prices in USD per million tokens. Without
prices the cell says so; for a run on a local server the toolkit started (the manifest's
``managed_server``) it adds that such a run pays no API fees: its cost is its wall time on
its hardware (no price is made up for it, and 0 is not printed as if it were a price).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from geval_repro.registry.judges import Prices

NO_MANIFEST = "n/a: no run manifest (a run this toolkit did not make)"
NO_PRICES = "n/a: no prices in the config"
NO_PRICES_LOCAL = (
    "n/a: no prices in the config (a local server: no API fees; its cost is its wall time)"
)
PER = 1000


def cost_fields(
    manifest: Mapping[str, object] | None, dimension: str, prices: Prices | None = None
) -> dict[str, object]:
    """The card's cost cells of ``dimension`` from a run's parsed ``manifest`` (None: the
    run has none) and the model's ``prices`` (None: the config gives none)."""
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
    managed = record.get("managed_server") or {}
    server = managed.get("identity") or record.get("base_url_host")
    scale = PER / items
    prompt = int(usage.get("prompt_tokens", 0)) * scale
    completion = int(usage.get("completion_tokens", 0)) * scale
    if prices is not None:
        usd: object = prices.usd(prompt, completion)
    else:
        usd = NO_PRICES_LOCAL if managed else NO_PRICES
    return {
        "requests_per_1000": int(counts.get("sent", 0)) * scale,
        "prompt_tokens_per_1000": prompt,
        "completion_tokens_per_1000": completion,
        "wall_seconds_per_1000": (finished - started).total_seconds() * scale,
        "cost_items": items,
        "server": server,
        "usd_per_1000": usd,
    }
