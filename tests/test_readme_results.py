"""The README results section, generated from a small synthetic results folder."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from geval_repro.human.agreement import TWINS
from geval_repro.report.readme import (
    PAGE_HEAD,
    main,
    recomputed_lines,
    render_page,
    render_section,
    status_counts,
    write_page,
)

# SHA-256 of the four released reply files as printed in the reference notes (independent
# of geval_repro/data/sources.yaml, from which the section reads them).
REPLY_SHA256 = {
    "results/gpt4_coh_detailed.json": (
        "bec62a6a8408b7f0c7a55a665d8c9a44b97eecf671bf0b4319284b192d218508"
    ),
    "results/gpt4_con_detailed.json": (
        "e09609ab249fc6aa2e4f11b7c16d7531b7036b163c8251e54a04ce4c3efa76ed"
    ),
    "results/gpt4_flu_detailed.json": (
        "4f08454a9ac1c3c58f6e4d067a00ed37d83d4de2206b010d8a1ba6ef18ceae7d"
    ),
    "results/gpt4_rel_detailed.json": (
        "c222933ff5ba552bb9ec3d2b495022a89b8019cf246710988a4e49804d47585a"
    ),
}

STATUS_ROWS = [
    ("summeval", "recomputed", 2),
    ("summeval", "paper-only", 3),
    ("topical_chat", "recomputed", 4),
    ("topical_chat", "not-recomputable", 1),
    ("qags_cnndm", "recomputed", 1),
    ("qags_xsum", "not-released", 2),
]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _results(root: Path, *, fixture_judge: bool = False, released: bool = False) -> Path:
    rows = [
        {"benchmark": benchmark, "dimension": "x", "metric": "m", "status": status}
        for benchmark, status, n in STATUS_ROWS
        for _ in range(n)
    ]
    if fixture_judge:
        rows += [{"benchmark": "summeval", "dimension": "x", "metric": "fx", "status": "fixture"}]
        _write(root / "tables/judges/fixture-gpt4/correlations.csv", "metric,status\nfx,fixture\n")
    if released:
        _write(
            root / "tables/judges/gpt4-released/correlations.csv", "metric,status\ng4,recomputed\n"
        )
        _write(
            root / "tables/judges/gpt4-released/main.csv",
            "dimension,variant,coefficient,value,ci_low,ci_high,n_items,n_groups,paper_value,"
            "delta,status\n"
            "coherence,mean-of-20/original,pearson,0.6,0.5,0.7,1600,100,,,recomputed\n"
            "coherence,mean-of-20/original,spearman,0.5861,0.52,0.64,1600,100,0.582,0.0041,"
            "recomputed\n"
            "AVG,mean-of-20/original,kendall,0.41,,,,,0.418,-0.008,recomputed\n",
        )
    _write(root / "tables/correlations.csv", pd.DataFrame(rows).to_csv(index=False))
    _write(root / "tables/table1_summeval.md", "| T1 | SUMMEVAL-TABLE |\n|---|---|\n")
    _write(root / "tables/table2_topical_chat.md", "| T2 | TOPICAL-TABLE |\n|---|---|\n")
    _write(root / "tables/human/agreement.md", "| a |\n|---|\n")
    return root


def test_status_counts_by_benchmark_leave_fixtures_out(tmp_path):
    results = _results(tmp_path, fixture_judge=True)
    counts = status_counts(pd.read_csv(results / "tables/correlations.csv"))
    assert counts.to_dict("records") == [
        {"benchmark": "SummEval", "recomputed": 2, "paper-only": 3,
         "not-recomputable": 0, "not-released": 0},
        {"benchmark": "Topical-Chat", "recomputed": 4, "paper-only": 0,
         "not-recomputable": 1, "not-released": 0},
        {"benchmark": "QAGS-CNN/DM", "recomputed": 1, "paper-only": 0,
         "not-recomputable": 0, "not-released": 0},
        {"benchmark": "QAGS-XSum", "recomputed": 0, "paper-only": 0,
         "not-recomputable": 0, "not-released": 2},
    ]  # fmt: skip


def test_offline_section_says_where_the_recount_comes_from_and_its_checksums(tmp_path):
    section = render_section(_results(tmp_path))
    assert "| SummEval | 2 | 3 | 0 | 0 |" in section
    assert "Not in this results folder" in section
    assert "first command, `snakemake --cores 4`, on a machine that can reach GitHub" in section
    for path, sha256 in REPLY_SHA256.items():
        assert f"| `{path}` | `{sha256}` |" in section
    assert "SUMMEVAL-TABLE" in section and "TOPICAL-TABLE" in section
    assert "`results/tables/table3_qags.md` is missing" in section
    assert "[`results/tables/human/agreement.md`](results/tables/human/agreement.md)" in section
    assert "Fixture run" not in section


def test_released_recount_is_embedded_when_present(tmp_path):
    section = render_section(_results(tmp_path, released=True))
    assert "Not in this results folder" not in section
    assert (
        "| coherence | mean-of-20/original | spearman | 0.586 | 0.520 to 0.640 | 1600 in 100 docs "
        "| 0.582 | +0.004 |" in section
    )
    assert "| AVG | mean-of-20/original | kendall | 0.410 | – | – | 0.418 | -0.008 |" in section
    assert "pearson" not in section  # Table 1 prints Spearman and Kendall only
    assert REPLY_SHA256["results/gpt4_rel_detailed.json"] in section


def test_other_real_judge_runs_are_listed_with_their_labels(tmp_path):
    results = _results(tmp_path, fixture_judge=True)
    _write(results / "tables/judges/rerun-1/correlations.csv", "metric,status\nr,recomputed\n")
    section = render_section(results, labels={"rerun-1": "a re-run by someone"})
    assert (
        "- `rerun-1` (a re-run by someone): [`results/tables/judges/rerun-1/correlations.md`]"
        "(results/tables/judges/rerun-1/correlations.md)"
    ) in section
    assert "- `fixture-gpt4`" not in section


def test_fixture_rows_are_flagged_and_never_shown(tmp_path):
    section = render_section(_results(tmp_path, fixture_judge=True))
    assert "> **Fixture run.**" in section and "fixture-gpt4" in section
    assert "SUMMEVAL-TABLE" not in section  # Table 1 holds SummEval rows, some of them fixture
    assert "TOPICAL-TABLE" in section
    assert "| SummEval | 2 | 3 | 0 | 0 |" in section
    assert "Not in this results folder" in section  # the fixture is not the released recount


def test_section_is_deterministic(tmp_path):
    results = _results(tmp_path, fixture_judge=True)
    assert render_section(results) == render_section(results)


def test_command_line_check_and_update(tmp_path):
    results = _results(tmp_path / "results")
    page = results / "README.md"
    page.write_text("typed by hand\n", encoding="utf-8")
    args = ["--results", str(results)]
    assert main([*args, "--check"]) == 1
    assert main(args) == 0
    assert main([*args, "--check"]) == 0
    assert page.read_text(encoding="utf-8").startswith(PAGE_HEAD)


def test_the_page_links_its_own_folder(tmp_path):
    results = _results(tmp_path / "results")
    write_page(results, results / "README.md")
    text = (results / "README.md").read_text(encoding="utf-8")
    assert text == render_page(results, ".")
    assert "](./tables/correlations.csv)" in text


def test_the_readme_shows_the_recomputed_rows_of_a_paper_table() -> None:
    layout = "\n".join(
        [
            "Table 3: caption.",
            "",
            "| metric | variant | status | cnndm r |",
            "|---|---|---|---|",
            "| ROUGE-2 | vs source document | recomputed | 0.459 [0.339, 0.565] (0.459) |",
            "| BERTScore | as printed | not-recomputable | – (0.576) |",
            "| G-Eval-4 | as printed | not-released | – (0.631) |",
            "",
            "A note under the table.",
            "",
            "Significance against the best recomputed baseline (* above: p < 0.05): difference",
            "| metric | variant | status | cnndm r |",
        ]
    )
    lines = recomputed_lines(layout)
    assert [line for line in lines if line.startswith("| ROUGE-2")]
    assert not [line for line in lines if "BERTScore" in line or "G-Eval-4" in line]
    assert "A note under the table." in lines
    assert lines[-1] == (
        "Significance against the best recomputed baseline (* above: p < 0.05); every test "
        "is in the file."
    )


def test_every_relative_link_of_the_committed_results_page_resolves() -> None:
    """results/README.md linked docs/writer-vs-llm.md as if it stood at the top of the
    checkout (a dead link from results/)."""
    import re

    page = Path(__file__).resolve().parents[1] / "results" / "README.md"
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8"))
    relative = [t for t in targets if "://" not in t]
    assert relative
    dead = [t for t in relative if not (page.parent / t).exists()]
    assert dead == []


def test_a_benchmark_beyond_the_paper_gets_its_section(tmp_path):
    # DialSummEval rows: the protocol's ROUGE, a released metric, the yardstick's mean and one
    # annotator (left out), one row on fewer items than the benchmark's full 1,300.
    base = {"benchmark": "dialsummeval", "level": "summary", "coefficient": "kendall"}
    human = "Human: one annotator vs mean of the other two"
    rows = [
        {**base, "dimension": "coherence", "metric": "ROUGE-1",
         "variant": "recomputed, vs the reference", "value": 0.144, "ci_low": 0.09,
         "ci_high": 0.195, "n_items": 1300, "status": "recomputed"},
        {**base, "dimension": "fluency", "metric": "ROUGE-1",
         "variant": "recomputed, vs the reference", "value": 0.266, "ci_low": 0.217,
         "ci_high": 0.316, "n_items": 1287, "status": "recomputed"},
        {**base, "dimension": "coherence", "metric": "sms", "variant": "released by the authors",
         "value": 0.13, "ci_low": 0.1, "ci_high": 0.16, "n_items": 1300, "status": "recomputed"},
        {**base, "dimension": "coherence", "metric": human,
         "variant": "mean over the 3 annotators", "value": 0.701, "n_items": None,
         "status": "recomputed", "note": f"source; annotators 2 and 3 {TWINS} (as released)"},
        {**base, "dimension": "coherence", "metric": human,
         "variant": "annotator 1", "value": 0.388, "n_items": 1248, "status": "recomputed"},
        {**base, "coefficient": "pearson", "dimension": "coherence", "metric": "ROUGE-1",
         "variant": "recomputed, vs the reference", "value": 0.5, "n_items": 1300,
         "status": "recomputed"},
    ]  # fmt: skip
    root = tmp_path / "results"
    _results(root)
    table = pd.read_csv(root / "tables/correlations.csv")
    pd.concat([table, pd.DataFrame(rows)]).to_csv(root / "tables/correlations.csv", index=False)
    section = render_section(root)
    assert "### Beyond the paper: DialSummEval, summary level" in section
    assert "| ROUGE-1 (recomputed, vs the reference) | 0.144 [0.090, 0.195] | – | " in section
    assert "0.266 [0.217, 0.316] (n = 1287)" in section  # below the full 1,300: its n
    assert "sms (released by the authors) | 0.130 [0.100, 0.160]" in section
    assert "(mean over the 3 annotators) | 0.701 |" in section
    # the yardstick's note on two annotators who agree on every item, under the table
    assert f"The human yardstick's coherence: annotators 2 and 3 {TWINS} (as released)." in section
    assert "annotator 1" not in section and "0.500" not in section  # Kendall only


def test_a_benchmark_of_binary_labels_gets_its_section(tmp_path):
    # SummEdits rows of the binary-label table's shape: two domains shown of the registry's
    # 8 (the others absent: their cells read "–"), the means with their intervals.
    from geval_repro.tables.binary_labels import AVERAGE, COLUMNS

    def row(domain, statistic, value, low, high, n_documents=12):
        return {"benchmark": "summedits", "dimension": "consistency", "metric": "ROUGE-2",
                "variant": "vs source document", "domain": domain, "statistic": statistic,
                "value": value, "ci_low": low, "ci_high": high, "threshold": None,
                "n_items": 3695 if domain == AVERAGE else 318, "n_positive": 1279,
                "n_documents": 130 if domain == AVERAGE else n_documents,
                "n_threshold_items": 986 if statistic == "balanced_accuracy" else 0,
                "status": "recomputed", "note": ""}  # fmt: skip

    rows = [
        row("qmsumm", "roc_auc", 0.4676, 0.36, 0.54),
        row("news", "roc_auc", 0.5127, 0.45, 0.56, n_documents=21),
        row(AVERAGE, "roc_auc", 0.4699, 0.4383, 0.5019),
        row(AVERAGE, "balanced_accuracy", 0.4879, 0.4711, 0.5041),
    ]
    root = _results(tmp_path / "results")
    _write(
        root / "tables/binary_labels.csv", pd.DataFrame(rows, columns=COLUMNS).to_csv(index=False)
    )
    section = render_section(root)
    assert "### Beyond the paper: SummEdits, binary labels by domain" in section
    assert "3695 pairs of 130 documents in 8 domains" in section
    assert "(12-21 per domain: wide)" in section and "`evaluation` split (986 pairs)" in section
    assert (
        "| ROUGE-2 (vs source document) | 0.470 [0.438, 0.502] | 0.488 [0.471, 0.504] | 0.513 | – "
        "| 0.468 | – |" in section
    )


def test_a_partial_judge_run_on_binary_labels_names_its_n(tmp_path):
    # A fixture-shaped toolkit-run judge scoring 40 test pairs of 5 documents in one domain,
    # beside a reference row on every item: the header keeps the full counts, the judge's
    # row names its own, its domain's AUC its n (40 of the domain's 318 test pairs), and its
    # uncovered domains and missing mean read "–".
    from geval_repro.tables.binary_labels import AVERAGE, COLUMNS

    def row(metric, status, domain, statistic, value, n_items, n_documents):
        return {"benchmark": "summedits", "dimension": "consistency", "metric": metric,
                "variant": "mean-of-1/original", "domain": domain, "statistic": statistic,
                "value": value, "ci_low": value, "ci_high": value, "threshold": None,
                "n_items": n_items, "n_positive": 10, "n_documents": n_documents,
                "n_threshold_items": 986 if statistic == "balanced_accuracy" else 0,
                "status": status, "note": ""}  # fmt: skip

    rows = [
        row("constant (reference)", "reference", "news", "roc_auc", 0.5, 318, 21),
        row("constant (reference)", "reference", "qmsumm", "roc_auc", 0.5, 300, 12),
        row("constant (reference)", "reference", AVERAGE, "roc_auc", 0.5, 3695, 130),
        row("constant (reference)", "reference", AVERAGE, "balanced_accuracy", 0.5, 3695, 130),
        row("smollm2", "toolkit-run", "news", "roc_auc", 0.61, 40, 5),
        row("smollm2", "toolkit-run", "qmsumm", "roc_auc", float("nan"), 0, 0),
        row("smollm2", "toolkit-run", AVERAGE, "roc_auc", float("nan"), 40, 5),
        row("smollm2", "toolkit-run", AVERAGE, "balanced_accuracy", float("nan"), 40, 5),
    ]
    root = _results(tmp_path / "results")
    _write(
        root / "tables/binary_labels.csv", pd.DataFrame(rows, columns=COLUMNS).to_csv(index=False)
    )
    section = render_section(root)
    assert "3695 pairs of 130 documents in 8 domains" in section
    assert "(12-21 per domain: wide)" in section
    assert (
        "| smollm2 (mean-of-1/original; partial run: 40 pairs of 5 documents) | – [–, –] "
        "| – [–, –] | 0.610 (n 40) | – |" in section
    )


def test_the_page_shows_each_benchmark_layout_beside_the_paper_tables(tmp_path):
    results = _results(tmp_path / "results")
    _write(
        results / "tables/layout_sfres.md",
        "SFRES: caption.\n\n| metric | variant | status | overall r |\n|---|---|---|---|\n"
        "| BLEU-4 | v | recomputed | 0.047 [-0.008, 0.104] |\n",
    )
    _write(results / "tables/layout_sfres.csv", "metric,variant,status\nBLEU-4,v,recomputed\n")
    _write(
        results / "tables/layout_sfhot.md",
        "| metric | variant | status | overall r |\n|---|---|---|---|\n"
        "| fx | v | fixture | 0.9 |\n",
    )
    _write(results / "tables/layout_sfhot.csv", "metric,variant,status\nfx,v,fixture\n")
    section = render_section(results, link="./results")
    paper, beyond = section.split("### Beyond the paper, in its tables' layout")
    assert "SUMMEVAL-TABLE" in paper and "SUMMEVAL-TABLE" not in beyond
    sfres = beyond.split("#### SFRES, dataset level")[1].split("####")[0]
    assert "| BLEU-4 | v | recomputed | 0.047 [-0.008, 0.104] |" in sfres
    assert "significance" not in sfres  # it has none to leave out
    sfhot = beyond.split("#### SFHOT, dataset level")[1].split("####")[0]
    assert "fixture rows" in sfhot and "| fx |" not in sfhot
    summedits = beyond.split("#### SummEdits, binary labels by domain")[1].split("####")[0]
    assert "Not produced in this run" in summedits
