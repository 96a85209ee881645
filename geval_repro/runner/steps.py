"""``geval-repro steps``: ask a model once for a template's evaluation steps and freeze them.

The request is the template's text up to ``{{Evaluation Steps}}`` (see
:func:`geval_repro.runner.prompts.steps_request_text`), one reply, at the given temperature.
The reply is stored beside the template as ``<stem>.steps.json``: ``model``, ``server``
(base URL host), ``date`` (UTC), ``request`` parameters, ``text`` and ``sha256`` of the text.
An existing steps file is kept unless ``force``. The key goes to the server as for a run
(:mod:`geval_repro.runner.keys`).
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from geval_repro.files.atomic import write_text
from geval_repro.runner.cache import server_name
from geval_repro.runner.probe import preflight
from geval_repro.runner.prompts import sha256_text, steps_path, steps_request_text, template_text


def freeze_steps(
    criteria: Path,
    model: str,
    base_url: str,
    *,
    api_key_env: str | None = None,
    temperature: float = 0.0,
    max_tokens: int = 512,
    timeout: float = 60.0,
    force: bool = False,
) -> Path:
    """Generate and store the steps of ``criteria``; return the steps file's path."""
    from geval_repro.runner.answers import read_completion
    from geval_repro.runner.client import CompletionClient

    target = steps_path(criteria)
    if target.exists() and not force:
        raise ValueError(f"{target} exists: the steps are frozen. Pass --force to replace them")
    template, _ = template_text(criteria)
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": steps_request_text(template)}],
        "n": 1,
        "temperature": temperature,
        "max_tokens": max_tokens,
    }
    key = preflight([base_url], api_key_env)[base_url].value  # refused: nothing is sent

    async def ask() -> Any:
        client = CompletionClient(base_url, key, concurrency=1, timeout=timeout)
        try:
            return await client.send(body)
        finally:
            await client.close()

    answer = asyncio.run(ask())
    if not answer.ok:
        raise ValueError(f"the steps request to {server_name(base_url)} failed: {answer.error}")
    text = (read_completion(answer.text)["choices"][0]["message"]["content"] or "").strip()
    if not text:
        raise ValueError(f"{model} returned empty steps; nothing was stored")
    record = {
        "model": model,
        "server": server_name(base_url),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "request": {k: v for k, v in body.items() if k != "messages"},
        "text": text,
        "sha256": sha256_text(text),
    }
    write_text(target, json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    return target
