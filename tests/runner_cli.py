"""What the judge runner's command-line tests share (tests/test_runner_*.py): SummEval's
tidy table built from the mirror, the ``judge`` command's arguments, the console's one error
line, a JSONL's records, and the check that a key is written nowhere, as sent or decoded."""

from __future__ import annotations

import json
import re
from pathlib import Path

from geval_repro.runner.keys import MIN_FRAGMENT


def summeval_processed(tmp_path_factory, mirror_dir: Path) -> Path:
    """A processed folder with summeval.parquet built from the mirror (for a module-scoped
    ``processed`` fixture)."""
    from geval_repro.registry.benchmarks import get_benchmark
    from geval_repro.runner.run import load_items_table

    folder = tmp_path_factory.mktemp("processed")
    table = load_items_table(
        get_benchmark("summeval"), tmp_path_factory.mktemp("raw"), None, mirror_dir
    )
    table.to_parquet(folder / "summeval.parquet", index=False)
    return folder


def judge_argv(server_url: str, out: Path, processed: Path, *extra: str) -> list[str]:
    """``geval-repro judge`` on SummEval coherence's first 3 items, one reply each, one
    request at a time; ``extra`` flags come last (a flag given again wins)."""
    return [
        "judge", "--benchmark", "summeval", "--dimension", "coherence", "--model", "fake-model",
        "--base-url", server_url, "--mode", "sample", "--n", "1", "--limit", "3",
        "--out", str(out), "--processed", str(processed), "--concurrency", "1",
        "--raw-dir", str(out.parent / "raw"), *extra,
    ]  # fmt: skip


def one_line(err: str) -> str:
    """The console's only ``geval-repro:`` line that is not a warning; no traceback."""
    assert "Traceback" not in err, err
    lines = [
        line
        for line in err.splitlines()
        if line.startswith("geval-repro: ") and not line.startswith("geval-repro: warning")
    ]
    assert len(lines) == 1, err
    return lines[0]


def rows(path: Path) -> list[dict]:
    """The records of a JSONL file."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def fragments(secret: str) -> list[str]:
    """Every stretch of MIN_FRAGMENT characters of ``secret`` (what must never be written)."""
    return [secret[i : i + MIN_FRAGMENT] for i in range(len(secret) - MIN_FRAGMENT + 1)]


def unescaped(text: str) -> str:
    """``text`` with JSON's escapes of a character (``\\uXXXX``) and of a backslash decoded,
    three times over (an escape of an escape): written apart from the runner's code."""
    pattern = re.compile(r"\\u([0-9a-fA-F]{4})|\\(\\)")
    for _ in range(3):
        text = pattern.sub(lambda m: m.group(2) or chr(int(m.group(1), 16)), text)
    return text


def assert_key_nowhere(key: str, folder: Path | None, *texts: str) -> None:
    """No file under ``folder`` (outputs, manifest, the cache and its WAL) and none of
    ``texts`` holds a MIN_FRAGMENT-character stretch of ``key``, as written or with its
    escapes decoded."""
    written = [p for p in folder.rglob("*") if p.is_file()] if folder is not None else []
    assert written or folder is None
    seen = {str(p): p.read_bytes().decode("utf-8", errors="replace") for p in written}
    seen.update({f"text {i}": text for i, text in enumerate(texts)})
    for name, text in seen.items():
        for form in (text, unescaped(text)):
            for part in fragments(key):
                assert part not in form, (part, name)
