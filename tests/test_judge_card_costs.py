"""The judge card's cost in USD (issue 48 item 4): a judge's ``prices:`` in the config
(schema-checked, USD per million prompt and completion tokens) price its tokens per 1,000
items; without prices the cell says the config gives none, and a run on a local server the
toolkit started says it pays no API fees (no price is made up). Expected values computed by
hand."""

from __future__ import annotations

import pytest

from geval_repro.config import ConfigError, check_config, judge_spec, load_config
from geval_repro.registry.judges import Prices
from geval_repro.tables.costs import NO_PRICES, NO_PRICES_LOCAL, cost_fields


def _manifest(**record: object) -> dict:
    return {
        "dimensions": {
            "coherence": {
                "counts": {"items": 40, "sent": 80},
                "usage": {"prompt_tokens": 20000, "completion_tokens": 1000},
                "started": "2026-12-01T16:00:00+00:00",
                "finished": "2026-12-01T16:02:00+00:00",
                "base_url_host": "api.example.org",
                **record,
            }
        }
    }


def test_the_cost_per_1000_items_in_usd_from_the_prices():
    # per 1,000 items: 500,000 prompt and 25,000 completion tokens; at 2.5 and 10 USD per
    # million: 1.25 + 0.25 = 1.50 USD
    cells = cost_fields(_manifest(), "coherence", Prices(2.5, 10.0))
    assert cells["prompt_tokens_per_1000"] == pytest.approx(500_000)
    assert cells["completion_tokens_per_1000"] == pytest.approx(25_000)
    assert cells["usd_per_1000"] == pytest.approx(1.50)
    assert cells["requests_per_1000"] == pytest.approx(2000)


def test_without_prices_the_cell_says_so_and_a_local_server_pays_no_api_fees():
    assert cost_fields(_manifest(), "coherence")["usd_per_1000"] == NO_PRICES
    local = _manifest(managed_server={"identity": "llama_cpp.server/smollm2-135m@b179"})
    cells = cost_fields(local, "coherence")
    assert cells["usd_per_1000"] == NO_PRICES_LOCAL and "no API fees" in NO_PRICES_LOCAL
    assert cells["server"] == "llama_cpp.server/smollm2-135m@b179"


def _config(prices: object) -> dict:
    config = load_config()
    config["judges"]["priced"] = {
        "benchmark": "summeval",
        "format": "geval-jsonl",
        "label": "a priced run",
        "dir": "runs/priced",
        "run": {"model": "m", "mode": "logprobs"},
        "prices": prices,
    }
    config["judges_to_run"] = ["priced"]
    return config


def test_prices_in_the_config_reach_the_judge_spec():
    config = _config({"prompt_usd_per_million": 2.5, "completion_usd_per_million": 10})
    check_config(config)
    spec = judge_spec("priced", config["judges"]["priced"])
    assert spec.prices == Prices(2.5, 10.0)
    assert (
        judge_spec("gpt4-metriceval-run1", config["judges"]["gpt4-metriceval-run1"]).prices is None
    )


@pytest.mark.parametrize(
    "prices",
    [
        {"prompt_usd_per_million": -1, "completion_usd_per_million": 10},
        {"prompt_usd_per_million": 2.5},
        {"prompt_usd_per_million": 2.5, "completion_usd_per_million": 10, "cached": 1},
    ],
)
def test_bad_prices_are_refused_by_the_schema(prices):
    with pytest.raises(ConfigError, match="prices"):
        check_config(_config(prices))
