"""Bad input (issue 12): every case gets a clear error naming the file or key, and loses nothing.

One case per line: how the bad input is built (from mirror copies, the FIXTURE judge or the
default config), the error expected (type and a fragment of its message), and, for every
case, that the folder the case works in holds exactly the same files with the same bytes
after the failure as before it: no output written, none lost or changed. Steps that write
(fetch, the tidy steps, provenance sidecars) are given an old output to keep.
"""

from __future__ import annotations

import copy
import io
import json
import os
import pickle
import shutil
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest

from geval_repro.cli import main
from geval_repro.config import ConfigError, check_config, judge_spec, load_config
from geval_repro.files.fetch import FetchError, RemoteFile, fetch, resolve_mirror
from geval_repro.load import load_released_replies, load_summeval
from geval_repro.pipeline import tidy
from geval_repro.registry.sources import get_source
from geval_repro.report.provenance import Provenance, ProvenanceError, write_provenance

FIXTURE = Path(__file__).parent / "fixtures" / "judge_fixture" / "gpt4_coh_fixture.json"
OLD = b"an earlier, good output\n"
MIRROR: Path = Path()  # set per test by the autouse fixture below
SHARED: Path = Path()  # a session folder outside the checked one (SummEval for the CLI)

Setup = Callable[[Path], Callable[[], object]]


class CliFailed(RuntimeError):
    """``main`` returned a non-zero status; the message is the status and its stderr."""


# Building blocks ------------------------------------------------------------------------


def mirrored(source_id: str) -> Path:
    """The mirror's copy of a registry source."""
    return MIRROR / get_source(source_id).relpath


def copy_of(source_id: str, tmp: Path, change: Callable[[bytes], bytes] = bytes) -> Path:
    """A copy of a mirrored source in ``tmp/in``, its bytes passed through ``change``."""
    path = tmp / "in" / Path(get_source(source_id).path).name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(change(mirrored(source_id).read_bytes()))
    return path


def flip(data: bytes, at: int | None = None) -> bytes:
    """``data`` with the bits of one byte flipped (the middle byte unless ``at``)."""
    at = len(data) // 2 if at is None else at
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]


def half(data: bytes) -> bytes:
    return data[: len(data) // 2]


def output(tmp: Path, name: str) -> Path:
    """An output path that already holds an earlier file (which must survive a failure)."""
    path = tmp / "out" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(OLD)
    return path


def replies(tmp: Path, change: Callable[[list], object]) -> Path:
    """The FIXTURE coherence replies, changed by ``change`` (in place or by returning)."""
    items = json.loads(FIXTURE.read_text(encoding="utf-8"))
    changed = change(items)
    path = tmp / "in" / "gpt4_coh_broken.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(items if changed is None else changed), encoding="utf-8")
    return path


def cli(*argv: str) -> None:
    """Run ``geval-repro`` (SummEval fetched to a session folder); raise if it fails."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main([*argv, "--raw-dir", str(SHARED / "raw")])
    if status != 0:
        raise CliFailed(f"exit {status}: {err.getvalue()}")


def recount(path: Path, *options: str) -> Callable[[], object]:
    """``geval-repro recount PATH OPTIONS`` as an action."""
    return lambda: cli("recount", str(path), *options)


def config_with(change: Callable[[dict], object]) -> Callable[[], object]:
    """``check_config`` of the default config changed by ``change``."""
    config = copy.deepcopy(load_config())
    change(config)
    return lambda: check_config(config, origin="my_config.yaml")


def judge(config: dict) -> dict:
    return config["judges"]["gpt4-released"]


def fetch_from(tmp: Path, mirror_bytes: bytes | None, relpath: str = "o/r/c/f.json") -> object:
    """Fetch a file pinned to the SummEval hash from a mirror copy holding ``mirror_bytes``
    (none: absent, and the URL is unreachable) into ``tmp/raw``, where an old file waits."""
    source = get_source("summeval")
    remote = RemoteFile("http://127.0.0.1:9/f.json", source.sha256, relpath, source.bytes, "sv")
    if mirror_bytes is not None:
        (tmp / "mirror" / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp / "mirror" / relpath).write_bytes(mirror_bytes)
    (tmp / "mirror").mkdir(exist_ok=True)
    (tmp / "raw").mkdir()
    (tmp / "raw" / "kept.json").write_bytes(OLD)
    return lambda: fetch(remote, tmp / "raw", mirror=tmp / "mirror", retries=0, progressbar=False)


def raw_read(tmp: Path, change: Callable[[bytes], bytes]) -> Callable[[], object]:
    """Write the provenance of an output whose raw input (Topical-Chat, in ``tmp/raw``) was
    changed after its fetch; an earlier sidecar is in place."""
    raw = tmp / "raw" / get_source("topical_chat").relpath
    raw.parent.mkdir(parents=True)
    raw.write_bytes(change(mirrored("topical_chat").read_bytes()))
    table = output(tmp, "topical_chat.parquet")
    output(tmp, "topical_chat.parquet.provenance.json")
    config = load_config()
    return lambda: write_provenance([table], [raw], Provenance.from_config(config, tmp / "raw"))


def summeval_parquet() -> Path:
    """The tidy SummEval table (made once per session, outside the checked folder)."""
    path = SHARED / "summeval.parquet"
    if not path.exists():
        tidy.benchmark("summeval", [mirrored("summeval")], path)
    return path


def judge_step(tmp: Path, change: Callable[[list], object]) -> Callable[[], object]:
    """The tidy step of a geval-released judge whose coherence file is the changed FIXTURE."""
    files = {"coherence": replies(tmp, change)}
    spec = judge_spec(
        "j",
        {
            "benchmark": "summeval",
            "format": "geval-released",
            "label": "broken replies",
            "files": {"coherence": {"path": str(files["coherence"])}},
        },
    )
    outs = {"replies": output(tmp, "replies.parquet")}
    return lambda: tidy.judge_files(spec, files, summeval_parquet(), outs)


def scores_step(tmp: Path, data: bytes) -> Callable[[], object]:
    """The tidy step of a scores-format judge whose CSV holds ``data``."""
    (tmp / "in").mkdir()
    (tmp / "in" / "scores.csv").write_bytes(data)
    files = {"*": tmp / "in" / "scores.csv"}
    spec = judge_spec(
        "j",
        {
            "benchmark": "summeval",
            "format": "scores",
            "label": "broken scores",
            "file": {"path": str(files["*"])},
            "columns": {"doc_id": "d", "system_id": "s", "coherence": "c"},
        },
    )
    outs = {"scores": output(tmp, "scores.parquet")}
    return lambda: tidy.judge_files(spec, files, summeval_parquet(), outs)


def pickle_step(tmp: Path, data: bytes) -> Callable[[], object]:
    """The tidy step of the multi-reference pickle, given the pickle ``data``."""
    (tmp / "in").mkdir()
    (tmp / "in" / "data.pkl").write_bytes(data)
    target = output(tmp, "summeval_references.parquet")
    return lambda: tidy.other_table("summeval_references", tmp / "in" / "data.pkl", target)


class RunsShell:
    """Unpickling this object would call os.system (the classic malicious pickle)."""

    def __reduce__(self):
        return (os.system, ("touch executed-by-pickle",))


def _set(mapping: dict, key: str, value: object) -> None:
    mapping[key] = value


def _dup(items: list) -> None:
    items[1] = items[0]


def _unknown(items: list) -> None:
    items[3]["doc_id"] = "dm-test-not-in-summeval"


def _no_replies(items: list) -> None:
    items[2]["all_responses"] = []


def _unreadable(items: list) -> list:
    return [{**item, "all_responses": ["n/a"]} for item in items]


SV = "summeval"
MR = "summeval_multiref"
MT = "qags_mturk_xsum"
ME = "metriceval_scores"

# The cases ------------------------------------------------------------------------------

# fmt: off
CASES: list = [
    # Fetch: verification, the mirror, the network, paths (#5), all leave raw/ as it was.
    pytest.param(lambda t: fetch_from(t, flip(mirrored(SV).read_bytes())), FetchError, r"sv failed verification .*mirror file", id="fetch-flipped-byte"),  # noqa: E501
    pytest.param(lambda t: fetch_from(t, half(mirrored(SV).read_bytes())), FetchError, r"gave \d+ bytes, expected \d+ \(truncated", id="fetch-truncated"),  # noqa: E501
    pytest.param(lambda t: fetch_from(t, None), FetchError, r"sv: could not download .*place the file at <mirror>/o/r/c/f\.json", id="fetch-missing-file"),  # noqa: E501
    pytest.param(lambda t: lambda: resolve_mirror(t / "no-mirror"), FetchError, r"mirror directory .*no-mirror does not exist \(given by the config key 'mirror'\)\. Fix: ", id="missing-mirror"),  # noqa: E501
    pytest.param(lambda t: fetch_from(t, b"{}", relpath="../evil.json"), FetchError, r"refusing '\.\./evil\.json': .*outside the raw folder", id="fetch-relpath-escapes-raw"),  # noqa: E501
    pytest.param(lambda t: lambda: RemoteFile.from_url("https://../evil.json", "0" * 64), FetchError, r"host '\.\.' is not a host name", id="url-host-dotdot"),  # noqa: E501
    pytest.param(lambda t: lambda: RemoteFile.from_url("https:///evil.json", "0" * 64), FetchError, r"expected an http\(s\) URL", id="url-host-empty"),  # noqa: E501
    pytest.param(lambda t: lambda: RemoteFile.from_url("https://a\\b/x.json", "0" * 64), FetchError, r"host 'a\\\\b' is not a host name", id="url-host-backslash"),  # noqa: E501
    pytest.param(lambda t: lambda: RemoteFile.from_url("https://x.org/a/../../x", "0" * 64), FetchError, r"path segment '\.\.' is not allowed", id="url-path-dotdot"),  # noqa: E501
    # Raw files re-verified when read (#4): the sidecar is refused, the old one kept.
    pytest.param(lambda t: raw_read(t, flip), ProvenanceError, r"topical_chat\.json: SHA-256 \w+ differs from the pinned f6361daa.*Fix: delete it and rerun", id="raw-edited-after-fetch"),  # noqa: E501
    pytest.param(lambda t: raw_read(t, half), ProvenanceError, r"topical_chat\.json: SHA-256 .*differs from the pinned", id="raw-truncated-after-fetch"),  # noqa: E501
    # Loaders, through the tidy steps that write their tables (the old table is kept).
    pytest.param(lambda t: (lambda p, o: lambda: tidy.benchmark("summeval", [p], o))(copy_of(SV, t, half), output(t, "s.parquet")), ValueError, r"summeval\.json: not valid UTF-8 JSON .*Fix: the file differs", id="truncated-json"),  # noqa: E501
    pytest.param(lambda t: (lambda p, o: lambda: tidy.benchmark("summeval", [p], o))(copy_of(SV, t, lambda b: b.replace(b'"doc_id"', b'"doc_id\xff"', 1)), output(t, "s.parquet")), ValueError, r"summeval\.json: not valid UTF-8 JSON \('utf-8' codec", id="non-utf8-json"),  # noqa: E501
    pytest.param(lambda t: (lambda p, o: lambda: tidy.benchmark("summeval", [p], o))(copy_of(SV, t, lambda b: b"[" * 200_000), output(t, "s.parquet")), ValueError, r"summeval\.json: JSON nested too deeply", id="json-nested-too-deep"),  # noqa: E501
    pytest.param(lambda t: (lambda p, o: lambda: tidy.other_table("qags_mturk_xsum", p, o))(copy_of(MT, t, lambda b: b"\xff" + b), output(t, "m.parquet")), ValueError, r"mturk_xsum\.jsonl: line 1 is not valid JSON \('utf-8' codec", id="non-utf8-jsonl"),  # noqa: E501
    pytest.param(lambda t: (lambda p, o: lambda: tidy.other_table("summeval_experts", p, o))(copy_of(ME, t, lambda b: b"\xff\xfe" + b), output(t, "e.parquet")), ValueError, r"metric_scores_long\.csv: not a readable UTF-8 CSV table", id="non-utf8-csv"),  # noqa: E501
    pytest.param(lambda t: pickle_step(t, pickle.dumps({"d": {"src": RunsShell()}})), ValueError, r"data\.pkl: refused to load the global \w+\.system", id="malicious-pickle"),  # noqa: E501
    pytest.param(lambda t: pickle_step(t, half(mirrored(MR).read_bytes())), ValueError, r"data\.pkl: .*truncated.*Fix: do not use this file", id="truncated-pickle"),  # noqa: E501
    # Corrupt pickles (#9): a damaged string, a damaged opcode stream.
    pytest.param(lambda t: pickle_step(t, flip(mirrored(MR).read_bytes(), 2000)), ValueError, r"data\.pkl: corrupt pickle \(UnicodeDecodeError: .*Fix: do not use this file", id="pickle-flipped-byte"),  # noqa: E501
    pytest.param(lambda t: pickle_step(t, b"\x80\x04}K\x01a."), ValueError, r"data\.pkl: corrupt pickle \(AttributeError: ", id="pickle-attribute-error"),  # noqa: E501
    pytest.param(lambda t: pickle_step(t, b"\x80\x04]X\x01\x00\x00\x00aK\x01s."), ValueError, r"data\.pkl: corrupt pickle \(TypeError: ", id="pickle-type-error"),  # noqa: E501
    # Judge files.
    pytest.param(lambda t: judge_step(t, _unknown), ValueError, r"gpt4_coh_broken\.json: item 3 \(doc_id='dm-test-not-in-summeval'.*is not a SummEval item.*Fix: remove it", id="unknown-item"),  # noqa: E501
    pytest.param(lambda t: judge_step(t, _dup), ValueError, r"gpt4_coh_broken\.json: item 1 .*repeats item 0 .*Fix: keep one entry", id="duplicate-item"),  # noqa: E501
    pytest.param(lambda t: judge_step(t, _no_replies), ValueError, r"gpt4_coh_broken\.json: item 2 .*has 'all_responses' \[\], not a non-empty list", id="zero-replies"),  # noqa: E501
    pytest.param(lambda t: judge_step(t, lambda items: {"items": items}), ValueError, r"gpt4_coh_broken\.json: expected a non-empty JSON list of items, found dict", id="wrong-format-replies"),  # noqa: E501
    pytest.param(lambda t: scores_step(t, b"\x89PNG\r\n\x1a\n\x00\x00"), ValueError, r"scores\.csv: not a readable UTF-8 CSV table .*Fix: give the judge's scores", id="wrong-format-scores"),  # noqa: E501
    pytest.param(lambda t: scores_step(t, b"d,s,c\ndm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2,M11,high\n"), ValueError, r"scores\.csv: judge 'j' has a missing, non-numeric or non-finite coherence score for doc_id='dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2', system_id='M11'\. Fix: score every item", id="text-score"),  # noqa: E501
    pytest.param(lambda t: scores_step(t, b""), ValueError, r"scores\.csv: not a readable UTF-8 CSV table \(No columns", id="empty-scores"),  # noqa: E501
    # The CLI (#3 and the usual): the message on stderr names the file.
    pytest.param(lambda t: recount(t / "missing.json", "--dimension", "fluency"), CliFailed, r"exit 2: geval-repro: cannot read .*missing\.json: No such file or directory\. Fix: check the path", id="cli-missing-file"),  # noqa: E501
    pytest.param(lambda t: recount(copy_of(ME, t), "--dimension", "fluency"), CliFailed, r"exit 2: .*metric_scores_long\.csv: not valid UTF-8 JSON", id="cli-wrong-format"),  # noqa: E501
    pytest.param(lambda t: recount(replies(t, _unreadable), "--dimension", "coherence", "--parser", "tolerant"), CliFailed, r"(?s)exit 1: .*gpt4_coh_broken\.json: no document could be scored .*Fix:", id="cli-nothing-scored"),  # noqa: E501
    # The config (#6 and the usual): the message names the config and the key.
    pytest.param(lambda t: config_with(lambda c: c["bootstrap"].update(n_resamples=100.0)), ConfigError, r"(?s)my_config\.yaml is invalid.*bootstrap/n_resamples: 100\.0 is not of type 'integer' \(write a whole number", id="config-whole-float"),  # noqa: E501
    pytest.param(lambda t: config_with(lambda c: c["sweep"].update(draws=50.0)), ConfigError, r"sweep/draws: 50\.0 is not of type 'integer'", id="config-whole-float-draws"),  # noqa: E501
    pytest.param(lambda t: config_with(lambda c: c.update(seed=True)), ConfigError, r"seed: True is not of type 'integer'", id="config-bool-seed"),  # noqa: E501
    pytest.param(lambda t: config_with(lambda c: c["permutation"].update(n_resamples=-5)), ConfigError, r"permutation/n_resamples: -5 is less than the minimum of 10", id="config-negative-count"),  # noqa: E501
    pytest.param(lambda t: config_with(lambda c: c["download"].update(retries=-1)), ConfigError, r"download/retries: -1 is less than the minimum of 0", id="config-negative-retries"),  # noqa: E501
    pytest.param(lambda t: config_with(lambda c: _set(c, "bootsrap", c["bootstrap"])), ConfigError, r"<top>: unknown key\(s\) 'bootsrap' \(did you mean 'bootstrap'\?\)", id="config-typo-top-level"),  # noqa: E501
    pytest.param(lambda t: config_with(lambda c: c.update(judges_to_run=["nobody"])), ConfigError, r"judges_to_run names 'nobody', which is not defined under judges \(defined: ", id="config-undefined-judge"),  # noqa: E501
    pytest.param(lambda t: config_with(lambda c: judge(c).update(format="csv")), ConfigError, r"judges/gpt4-released/format: 'csv' is not one of", id="config-wrong-format"),  # noqa: E501
    pytest.param(lambda t: config_with(lambda c: judge(c)["files"].update(coherence={"path": ""})), ConfigError, r"judges/gpt4-released/files/coherence: .*should be non-empty", id="config-missing-path"),  # noqa: E501
    pytest.param(lambda t: config_with(lambda c: judge(c)["files"]["coherence"].update(url="https://../evil.json")), ConfigError, r"judges/gpt4-released/files/coherence: .*'https://\.\./evil\.json' does not match", id="config-url-host-dotdot"),  # noqa: E501
    pytest.param(lambda t: config_with(lambda c: judge(c)["files"]["coherence"].update(url="https://x.org/a/./b.json")), ConfigError, r"my_config\.yaml: judge 'gpt4-released': .*path segment '\.' is not allowed", id="config-url-dot-segment"),  # noqa: E501
]
# fmt: on


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative path -> bytes)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture(autouse=True)
def _folders(mirror_dir: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch) -> None:
    global MIRROR, SHARED
    MIRROR = mirror_dir
    if SHARED == Path():
        SHARED = tmp_path_factory.mktemp("bad_input_shared")
    monkeypatch.setenv("GEVAL_REPRO_MIRROR", str(mirror_dir))


@pytest.mark.parametrize(("setup", "error", "fragment"), CASES)
def test_bad_input_is_named_and_nothing_is_written_or_lost(
    setup: Setup, error: type[Exception], fragment: str, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a pickle that ran code would leave its file here
    action = setup(tmp_path)
    before = snapshot(tmp_path)
    with pytest.raises(error, match=fragment):
        action()
    assert snapshot(tmp_path) == before
    assert not (tmp_path / "executed-by-pickle").exists()


def test_recount_json_is_strict_and_warns_about_partial_coverage(tmp_path: Path, capsys) -> None:
    path = replies(tmp_path, _unreadable)
    status = main(["recount", str(path), "--dimension", "coherence", "--parser", "tolerant",
                   "--json", "--raw-dir", str(SHARED / "raw")])  # fmt: skip
    captured = capsys.readouterr()

    def refuse(constant: str) -> None:
        raise AssertionError(f"bare {constant} in the JSON output")

    result = json.loads(captured.out, parse_constant=refuse)
    assert status == 1
    assert result["pearson"] is None and result["spearman"] is None and result["kendall"] is None
    assert (result["n_docs"], result["n_docs_in_file"], result["n_items_in_file"]) == (0, 4, 64)
    assert "covers 4 of 100 SummEval documents (64 of 1600 summaries)" in captured.err


def test_recount_of_a_full_file_does_not_warn(tmp_path: Path, capsys) -> None:
    summeval = load_summeval(mirrored("summeval"))
    items = [
        {"doc_id": d, "system_id": s, "scores": {"coherence": c, "consistency": n, "fluency": f,
         "relevance": r}, "all_responses": [str(round(c))]}
        for d, s, c, n, f, r in summeval[
            ["doc_id", "system_id", "coherence", "consistency", "fluency", "relevance"]
        ].itertuples(index=False)
    ]  # fmt: skip
    path = tmp_path / "full.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    assert (
        len(load_released_replies(path, "j", "coherence", summeval, benchmark="summeval")) == 1600
    )
    status = main(["recount", str(path), "--dimension", "coherence", "--json",
                   "--raw-dir", str(SHARED / "raw")])  # fmt: skip
    captured = capsys.readouterr()
    assert status == 0
    assert json.loads(captured.out)["n_docs_in_file"] == 100
    assert "warning" not in captured.err


def test_fetched_files_get_the_usual_mode(tmp_path: Path) -> None:
    umask = os.umask(0)
    os.umask(umask)
    path = fetch(RemoteFile.from_source(get_source("summeval")), tmp_path / "raw", mirror=MIRROR)
    assert 0o666 & ~umask != 0o600  # else this test could not tell the usual mode from 0600
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_an_unchanged_raw_file_records_the_hash_read(tmp_path: Path) -> None:
    raw = tmp_path / "raw" / get_source("topical_chat").relpath
    raw.parent.mkdir(parents=True)
    shutil.copyfile(mirrored("topical_chat"), raw)
    table = tmp_path / "t.parquet"
    pd.DataFrame({"a": [1]}).to_parquet(table)
    (sidecar,) = write_provenance(
        [table], [raw], Provenance.from_config(load_config(), tmp_path / "raw")
    )
    (entry,) = json.loads(sidecar.read_text())["inputs"]
    # Topical-Chat's SHA-256 as listed in the mirror's MANIFEST.tsv.
    assert entry["sha256"] == "f6361daa6fe162f636d2071a60322a784acd770be0bf3a6920ac949d751b978a"
