"""A judge job that brings its own server, run on a compute node of the one-node cluster.

`python -m pytest -m slurm` (CI runs it after tests/test_slurm_cluster.py; needs the `local`
and `slurm` extras and root) starts the cluster (.ci/slurm-cluster.sh, the fixture of
tests/test_slurm_cluster.py) and runs one small judge (QAGS-XSum consistency, the first
ITEMS items, mode logprobs: one request per item) whose ``run:`` block has a llama.cpp
``server:`` (SmolLM2-135M), so its job goes to a compute node (``on_cluster``, the default
with ``server:``). From a fresh copy of the checkout it checks, with counts taken outside the
runner (the cache's rows, the server's own access log, sacct, /proc):

1. a local run (no profile) of the same judge, into a folder of its own: the reference;
2. the job through ``--profile profiles/slurm``: sbatch runs it (sacct: its rule, the CPUs and
   memory its block asks for); its llama_cpp.server runs inside the SLURM job (the process's
   SLURM_JOB_ID); a plain ``scancel JOBID`` once some answers are cached (SIGTERM to every
   process of the job, as a time limit sends it) stops that server within seconds, the job
   ends CANCELLED, and the profile's retry (the plugin reads job states with squeue:
   profiles/slurm) resubmits it; the new job sends only the missing items (the server's log
   of that attempt: its POSTs less the probe's); the JSONL equals the local run's byte for
   byte and the manifest equals it but for where and when it ran and what this attempt sent;
3. a rerun through SLURM sends nothing and starts no server; a local rerun from that cache
   writes the same JSONL and manifest, byte for byte (a cached rerun keeps the answering
   run's manifest entry);
4. no llama_cpp.server process is left, and each SLURM job stayed within what it asked for.

A cluster that cannot start fails the test (never a skip).
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from geval_repro.config import judge_spec
from geval_repro.registry.judges import job_resources
from geval_repro.runner.cache import CACHE_FILE
from tests import test_slurm_cluster
from tests.conftest import FIXTURES, REPO_ROOT
from tests.test_slurm_cluster import (
    POLL,
    Cluster,
    fresh_copy,
    megabytes,
    sacct,
    sacct_ended,
    seconds,
)

pytestmark = [pytest.mark.slurm, pytest.mark.slow]
#: The module-scoped fixture of tests/test_slurm_cluster.py: this module starts and stops the
#: cluster again (that module's last test stops it).
cluster = test_slurm_cluster.cluster

JUDGE = "node-judge"
RULE = "ask_judge_node_judge"
ITEMS = 4
#: Answers cached before the job is cancelled (at least one, fewer than ITEMS).
CANCEL_AFTER = 2
#: The job's time limit (minutes), given: the estimate (6 minutes) rests on the time per item
#: of an idle machine, and a shared CI machine may be several times slower.
RUNTIME = 30
#: Manifest fields that record where and when a run ran, or what that attempt itself sent.
RUN_FIELDS = {
    "started",
    "finished",
    "answers_received",
    "cache",
    "managed_server",
    "counts",
    "usage_sent_this_run",
    "dispatch",
}


def judge_entry(folder: Path) -> dict:
    return {
        "benchmark": "qags_xsum",
        "format": "geval-jsonl",
        "label": f"SmolLM2-135M-Instruct (Q4_1), a cluster test's run ({ITEMS} items)",
        "dir": str(folder),
        "run": {
            "mode": "logprobs",
            "max_tokens": 5,
            "top_logprobs": 20,
            "seed": 11,
            "limit": ITEMS,
            "timeout": 600,  # a loaded machine: no request given up (and sent again)
            "dimensions": ["consistency"],
            "server": {"llama_cpp": {"model": "smollm2-135m", "n_ctx": 2048, "threads": 1}},
            "resources": {"runtime": RUNTIME},
        },
    }


def write_config(root: Path, mirror: Path) -> Path:
    """The fixture config with one judge to run, its run folder, data and results in ``root``."""
    config = yaml.safe_load((FIXTURES / "config_fixture.yaml").read_text())
    config["judges"][JUDGE] = judge_entry(root / "run")
    config["judges_to_run"] = [JUDGE]
    config.update(mirror=str(mirror), data_dir=str(root / "data"), results_dir=str(root / "out"))
    root.mkdir(parents=True)
    path = root / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def snakemake(config: Path, *extra: str) -> list[str]:
    """This environment's snakemake, on the judge's rule of ``config``."""
    snakemake = str(Path(sys.executable).with_name("snakemake"))
    return [snakemake, "--configfile", str(config), "--until", RULE, *extra]


def run_to_end(checkout: Path, env: dict[str, str], config: Path, *extra: str) -> str:
    """:func:`snakemake` in ``checkout`` to its end; its console output (the test fails
    with it when it fails)."""
    done = subprocess.run(
        snakemake(config, *extra), cwd=checkout, env=env, capture_output=True, text=True
    )
    output = done.stdout + done.stderr
    if done.returncode != 0:
        pytest.fail(f"snakemake {' '.join(extra)} failed:\n{output[-6000:]}", pytrace=False)
    return output


def cached_answers(root: Path) -> int:
    path = root / "data" / "cache" / "judge" / JUDGE / CACHE_FILE
    if not path.exists():
        return 0
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as db:
        try:
            return db.execute("SELECT count(*) FROM responses").fetchone()[0]
        except sqlite3.OperationalError:  # not made yet
            return 0


def llama_servers(checkout: Path) -> dict[int, dict[str, str]]:
    """Running llama_cpp.server processes started from ``checkout`` (their PYTHONPATH: other
    work on the machine may run servers of its own): pid -> their environment."""
    found = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            command = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().rpartition(")")[2].split()[0]
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"llama_cpp.server" in command and state != "Z":
            pairs = (e.decode(errors="replace").partition("=") for e in environ if e)
            variables = {k: v for k, _, v in pairs}
            if str(checkout) in variables.get("PYTHONPATH", "").split(":"):
                found[int(proc.name)] = variables
    return found


def submitted(output: str) -> list[str]:
    """The SLURM job IDs Snakemake's console gives the judge's jobs (sacct has no comment for
    a running job), in order."""
    return re.findall(rf"SLURM jobid (\d+) \(log: \S*/rule_{RULE}/", output)


def judge_jobs(cluster: Cluster, ids: list[str]) -> list[dict[str, str]]:
    """sacct's rows of the SLURM jobs ``ids``, in that order, once they ended."""
    fields = "JobID,State,ReqCPUS,ReqMem,Timelimit,Elapsed"
    rows = sacct_ended(cluster, "--allocations", "--jobs", ",".join(ids), "--format", fields)
    by_id = {row["JobID"]: row for row in rows}
    return [by_id[i] for i in ids]


def wait_for(condition, timeout: float, what: str, process: subprocess.Popen | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        if process is not None and process.poll() is not None:
            pytest.fail(f"snakemake ended ({process.returncode}) before {what}", pytrace=False)
        time.sleep(0.5)
    pytest.fail(f"not within {timeout:.0f} s: {what}", pytrace=False)


def posts(server_log: Path) -> int:
    """Chat completions the server answered, from its own access log (uvicorn's lines)."""
    text = server_log.read_text(errors="replace")
    return len(re.findall(r'"POST /v1/chat/completions HTTP/1\.1" 200', text))


def test_a_judge_job_with_its_server_on_a_compute_node(
    cluster: Cluster, mirror_dir: Path, tmp_path: Path
) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    fresh_copy(REPO_ROOT, checkout)
    env = {**cluster.env, "PYTHONPATH": str(checkout)}
    local_root, node_root = tmp_path / "local", tmp_path / "node"
    local_config = write_config(local_root, mirror_dir)
    node_config = write_config(node_root, mirror_dir)
    server_log = node_root / "out" / "logs" / "judges" / f"{JUDGE}_server.log"
    run_log = node_root / "out" / "logs" / "judges" / f"{JUDGE}_run.log"

    # 1. the local run: the reference, and the probe's requests (POSTs beyond one per item)
    run_to_end(checkout, env, local_config, "--cores", "2")
    assert cached_answers(local_root) == ITEMS
    local_log = local_root / "out" / "logs" / "judges" / f"{JUDGE}_server.log"
    probe_posts = posts(local_log) - ITEMS
    assert probe_posts >= 0
    assert llama_servers(checkout) == {}, "the local run left its server running"

    # 2. through SLURM, cancelled once CANCEL_AFTER answers are cached, then resumed
    console = tmp_path / "slurm-run.txt"
    with console.open("w") as sink:
        process = subprocess.Popen(
            snakemake(node_config, "--profile", "profiles/slurm", *POLL),
            cwd=checkout,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        first = wait_for(lambda: submitted(console.read_text()), 600,
                         "sbatch ran the judge's job", process)[0]  # fmt: skip
        servers = wait_for(
            lambda: llama_servers(checkout), 300, "the job started its server", process
        )
        assert {e.get("SLURM_JOB_ID") for e in servers.values()} == {first}, (
            "the server does not run inside the judge's SLURM job"
        )
        wait_for(
            lambda: cached_answers(node_root) >= CANCEL_AFTER,
            600,
            f"{CANCEL_AFTER} answers cached",
            process,
        )
        # A plain scancel: SIGTERM to every process of the job (SIGKILL KillWait s later). sacct
        # then says "CANCELLED by 0", which the executor plugin 2.8.0 would not match (it
        # would wait for ever); squeue, the profile's status command, says "CANCELLED".
        subprocess.run(["scancel", first], env=cluster.env, check=True)
        cancelled = time.monotonic()
        wait_for(
            lambda: not set(servers) & set(llama_servers(checkout)),
            60,
            "scancel stopped the job's server",
        )
        stopped_after = time.monotonic() - cancelled
        kept = cached_answers(node_root)  # what the cancelled attempt received
        assert CANCEL_AFTER <= kept < ITEMS, f"{kept} answers cached when the job was cancelled"
        process.wait(timeout=1200)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    output = console.read_text()
    assert process.returncode == 0, f"the SLURM run failed:\n{output[-6000:]}"
    ids = submitted(output)
    jobs = judge_jobs(cluster, ids)
    # cancelled ("CANCELLED by 0"), resumed
    assert [j["State"].split()[0] for j in jobs] == ["CANCELLED", "COMPLETED"], jobs
    assert cached_answers(node_root) == ITEMS
    assert posts(server_log) - probe_posts == ITEMS - kept, "the resumed job sent more"
    assert f"sent {ITEMS - kept}, cached {kept}, failed 0" in run_log.read_text()
    assert llama_servers(checkout) == {}, "the resumed job left its server running"

    spec = judge_spec(JUDGE, judge_entry(node_root / "run"))
    asked = job_resources(spec.run, spec.benchmark)
    for job in jobs:
        assert job["ReqCPUS"] == "1" and megabytes(job["ReqMem"]) == asked["mem_mb"], job
        assert seconds(job["Timelimit"]) == 60 * RUNTIME == 60 * asked["runtime"], job

    local_jsonl = (local_root / "run" / "consistency.jsonl").read_bytes()
    node_jsonl = (node_root / "run" / "consistency.jsonl").read_bytes()
    assert node_jsonl == local_jsonl, "the SLURM job's JSONL is not the local run's"
    local_manifest = json.loads((local_root / "run" / "manifest.json").read_text())
    node_manifest_bytes = (node_root / "run" / "manifest.json").read_bytes()
    node_manifest = json.loads(node_manifest_bytes)
    for name in ("consistency",):
        ours, theirs = node_manifest["dimensions"][name], local_manifest["dimensions"][name]
        assert set(ours) == set(theirs)
        differ = sorted(k for k in ours if k not in RUN_FIELDS and ours[k] != theirs[k])
        assert differ == [], f"the manifests differ in {differ}"
        assert ours["counts"]["sent"] == ITEMS - kept and ours["counts"]["cached"] == kept

    # 3. reruns from the cache: through SLURM, then locally; nothing sent, same bytes
    rerun = run_to_end(
        checkout, env, node_config, "--profile", "profiles/slurm", *POLL, "--forcerun", RULE
    )
    ids += submitted(rerun)
    jobs = judge_jobs(cluster, ids)
    assert [j["State"].split()[0] for j in jobs][2:] == ["COMPLETED"], jobs
    log = run_log.read_text()
    assert "starting the local server" not in log and f"sent 0, cached {ITEMS}" in log, log
    assert (node_root / "run" / "consistency.jsonl").read_bytes() == node_jsonl
    assert (node_root / "run" / "manifest.json").read_bytes() == node_manifest_bytes
    run_to_end(checkout, env, node_config, "--cores", "2", "--forcerun", RULE)
    assert (node_root / "run" / "consistency.jsonl").read_bytes() == node_jsonl
    assert (node_root / "run" / "manifest.json").read_bytes() == node_manifest_bytes
    assert cached_answers(node_root) == ITEMS

    # 4. nothing left running; each job within its memory and time
    assert llama_servers(checkout) == {}
    peak: dict[str, float] = {}  # a job's largest step (its batch script, its srun)
    ids = ",".join(j["JobID"] for j in jobs)
    for step in sacct(cluster, "--jobs", ids, "--format", "JobID,MaxRSS"):
        job, _, name = step["JobID"].partition(".")
        if name and step["MaxRSS"]:
            peak[job] = max(peak.get(job, 0.0), megabytes(step["MaxRSS"]))
    for job in jobs:
        assert peak.get(job["JobID"], 0.0) <= megabytes(job["ReqMem"]), (job, peak)
        assert seconds(job["Elapsed"]) <= seconds(job["Timelimit"]), job
    print(f"peak memory of the judge's jobs (MB): {peak}; asked {asked['mem_mb']}")
    print(f"the judge's jobs in sacct: {[(j['JobID'], j['State']) for j in jobs]}")
    print(f"the cancelled job's server stopped {stopped_after:.1f} s after scancel")
