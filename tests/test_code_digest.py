"""The code digest a rule's params carry (geval_repro.pipeline.code_digest, Jobs.job): on a
small package written here, which files a job's digest covers and that an edit of one of
them, and only of one of them, changes it; on the workflow, that every rule but the fetch
and the judge runner names its job through params.job."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from geval_repro.pipeline import jobs as jobs_module
from geval_repro.pipeline.code_digest import CodeDigests, notebook_imports
from geval_repro.pipeline.jobs import Jobs
from tests.conftest import REPO_ROOT

#: The fake package: its job module ``pipeline/job.py`` imports ``a`` (absolute, from a
#: package-level import), ``a`` imports ``b`` (relative), ``b`` imports ``c`` inside a
#: function (``from fake import c``: a submodule by from-import), ``c`` imports the job
#: module back (a cycle), names ``fake.dyn`` in a string (import_module) and reads the
#: files under ``prompts/`` (``PROMPTS_DIR / folder``); ``b`` reads ``data/table.csv``;
#: ``stats/__init__.py`` imports its submodule ``face`` on first use (PEP 562), ``a``
#: imports ``fake.stats.level``. Nothing imports ``unrelated`` or ``stats/other.py`` or
#: reads ``data/other.csv``.
FAKE = {
    "__init__.py": '"""A fake package."""\n',
    "pipeline/__init__.py": "",
    "pipeline/job.py": """
        from fake.a import f

        def run():
            return f()
    """,
    "a.py": """
        from .b import g
        from fake.stats.level import LEVEL

        def f():
            return g() + LEVEL
    """,
    "b.py": """
        from pathlib import Path

        PACKAGE_DATA = Path(__file__).parent / "data"
        TABLE = PACKAGE_DATA / "table.csv"

        def g():
            from fake import c

            return c.h()
    """,
    "c.py": """
        import importlib

        from pathlib import Path

        import fake.pipeline.job

        PROMPTS_DIR = Path(__file__).parent / "prompts"

        def h(folder="x"):
            prompt = (PROMPTS_DIR / folder / "p.txt").read_text()
            return importlib.import_module("fake.dyn").VALUE + len(prompt)
    """,
    "dyn.py": "VALUE = 1\n",
    "unrelated.py": "import fake.a\n",
    "stats/__init__.py": """
        import importlib

        _FACE = {"statistic": "face"}

        def __getattr__(name):
            return getattr(importlib.import_module(f"{__name__}.{_FACE[name]}"), name)
    """,
    "stats/level.py": "LEVEL = 2\n",
    "stats/face.py": "def statistic():\n    return 3\n",
    "stats/other.py": "OTHER = 4\n",
    "data/table.csv": "a,b\n1,2\n",
    "data/other.csv": "c\n3\n",
    "prompts/x/p.txt": "Rate it.\n",
    "prompts/y/q.txt": "Rate it again.\n",
}
#: Every file the job runs or reads (by hand, from the imports above).
COVERED = {
    "__init__.py",
    "pipeline/__init__.py",
    "pipeline/job.py",
    "a.py",
    "b.py",
    "c.py",
    "dyn.py",
    "stats/__init__.py",
    "stats/level.py",
    "stats/face.py",
    "data/table.csv",
    "prompts/x/p.txt",
    "prompts/y/q.txt",
}


@pytest.fixture
def fake(tmp_path: Path) -> Path:
    package = tmp_path / "fake"
    for name, text in FAKE.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return package


def _edit(path: Path) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write("# edited\n")


def test_the_digest_covers_what_the_job_imports_and_reads(fake: Path) -> None:
    files = CodeDigests(fake).files("fake.pipeline.job")
    assert set(files) == {f"fake/{name}" for name in COVERED}


@pytest.mark.parametrize("name", sorted(COVERED))
def test_editing_a_file_the_job_runs_or_reads_changes_its_digest(fake: Path, name: str) -> None:
    before = CodeDigests(fake).digest("job")
    _edit(fake / name)
    assert CodeDigests(fake).digest("job") != before


@pytest.mark.parametrize("name", sorted(set(FAKE) - COVERED))
def test_editing_a_file_the_job_does_not_run_leaves_its_digest(fake: Path, name: str) -> None:
    before = CodeDigests(fake).digest("job")
    _edit(fake / name)
    assert CodeDigests(fake).digest("job") == before


def test_the_digest_is_sha256_of_the_listed_files(fake: Path) -> None:
    """Independently of the traversal: the SHA-256 of the sorted lines ``path NUL sha256``."""
    import hashlib

    lines = sorted(
        f"fake/{name}\0{hashlib.sha256((fake / name).read_bytes()).hexdigest()}\n"
        for name in COVERED
    )
    expected = hashlib.sha256("".join(lines).encode()).hexdigest()
    assert CodeDigests(fake).digest("job") == expected


def test_kept_parses_give_the_same_digest_and_see_edits(fake: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "code_digests.json"
    first = CodeDigests(fake, cache=cache).digest("job")
    assert cache.is_file()
    assert CodeDigests(fake, cache=cache).digest("job") == first == CodeDigests(fake).digest("job")
    # an edit that adds an import: the kept parse of the old bytes is not used
    _edit(fake / "unrelated.py")
    with (fake / "dyn.py").open("a", encoding="utf-8") as handle:
        handle.write("import fake.unrelated\n")
    edited = CodeDigests(fake, cache=cache).digest("job")
    assert edited == CodeDigests(fake).digest("job") != first
    assert "fake/unrelated.py" in CodeDigests(fake, cache=cache).files("fake.pipeline.job")


def test_an_unreadable_cache_is_parsed_again(fake: Path, tmp_path: Path) -> None:
    cache = tmp_path / "code_digests.json"
    cache.write_text("{not json", encoding="utf-8")
    assert CodeDigests(fake, cache=cache).digest("job") == CodeDigests(fake).digest("job")


def test_a_job_module_that_does_not_exist_is_an_error(fake: Path) -> None:
    with pytest.raises(ValueError, match=r"fake\.pipeline\.nothing: no such module"):
        CodeDigests(fake).digest("nothing")


def test_a_rules_job_names_its_function_and_digest(
    fake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = Jobs(provenance=None, traced=(), code=CodeDigests(fake))  # type: ignore[arg-type]
    job = jobs.job("job:run")
    assert job == f"job:run@sha256:{CodeDigests(fake).digest('job')}"
    with pytest.raises(ValueError, match="<module>:<function>"):
        jobs.job("job")
    ran = []
    monkeypatch.setattr(jobs_module, "run_in_process", ran.append)
    jobs.run(job, ["a.log"])
    jobs.run("downloads:fetch_file", ["b.log"])
    assert [(j.call, str(j.log)) for j in ran] == [
        ("geval_repro.pipeline.job:run", "a.log"),
        ("geval_repro.pipeline.downloads:fetch_file", "b.log"),
    ]


def test_the_packages_jobs_cover_their_modules_and_the_sidecar_writer() -> None:
    digests = CodeDigests()
    tidy = digests.files("geval_repro.pipeline.tidy")
    assert "geval_repro/pipeline/tidy.py" in tidy
    assert "geval_repro/load/summeval.py" in tidy  # through load.benchmarks' registry
    assert "geval_repro/pipeline/judge_cards.py" not in tidy
    every = digests.files("geval_repro.pipeline.fork_server", "geval_repro.report.provenance")
    assert {"geval_repro/report/provenance.py", "geval_repro/data/sources.yaml"} <= set(every)


def test_every_rule_but_the_fetch_and_the_judge_runner_names_its_job_through_params() -> None:
    """Each rule with a run: block has ``job=JOBS.job("<module>:<function>")`` in its
    params and passes ``params.job`` to JOBS.run; the fetch (its outputs are verified
    upstream files) and the judge runner (a rerun may send paid requests) alone name their
    function: no rerun when their code changes."""
    bare, named = [], 0
    for smk in sorted((REPO_ROOT / "workflow" / "rules").glob("*.smk")):
        for block in re.split(r"\n(?=    rule|rule)", smk.read_text(encoding="utf-8")):
            if "JOBS.run(" not in block:
                continue
            run = re.search(r"JOBS\.run\(\s*([^,]+),", block).group(1)
            if run == "params.job":
                job = r'\n\s+params:\n\s+job=(lambda wildcards: )?JOBS\.job\(\s*"\w+:\w+"'
                assert re.search(job, block), block
                named += 1
            else:
                bare.append(run)
    assert sorted(bare) == ['"downloads:fetch_file"', '"judge_runner:ask_judge"']
    assert named > 30


def test_a_notebooks_job_covers_what_its_code_cells_import(fake: Path, tmp_path: Path) -> None:
    import json

    notebook = tmp_path / "n.ipynb"
    cells = [
        {"cell_type": "markdown", "source": ["import fake.stats.other\n"]},
        {"cell_type": "code", "source": ["%matplotlib inline\n", "from fake import unrelated\n"]},
        {"cell_type": "code", "source": ["def f():\n", "    import os\n", "!ls\n"]},
    ]
    notebook.write_text(json.dumps({"cells": cells}), encoding="utf-8")
    assert notebook_imports(notebook) == ("fake", "fake.unrelated", "os")
    jobs = Jobs(provenance=None, traced=(), code=CodeDigests(fake))  # type: ignore[arg-type]
    before = jobs.job("job:run", notebook=notebook)
    assert before != jobs.job("job:run")
    _edit(fake / "stats" / "other.py")  # in a markdown cell only
    assert Jobs(None, (), CodeDigests(fake)).job("job:run", notebook=notebook) == before  # type: ignore[arg-type]
    _edit(fake / "unrelated.py")
    assert Jobs(None, (), CodeDigests(fake)).job("job:run", notebook=notebook) != before  # type: ignore[arg-type]
