"""The SLURM profile (profiles/slurm) run for real, on a one-node cluster of this machine.

`python -m pytest -m slurm` (CI runs it; needs the `slurm` extra and root) starts munge,
MariaDB, slurmdbd, slurmctld and slurmd with .ci/slurm-cluster.sh, runs the profile's
documented command (COMMAND, the one docs/cluster.md and the profile print; with POLL, a
shorter first status check) on the offline mirror from a fresh copy of the checkout without
its results/, and checks that

- every job of a rule that is not local went through sbatch: sacct lists it under the run's
  job name, COMPLETED, with that job's rule in its comment, and the jobs that ran without
  sbatch are exactly the jobs of the workflow's local rules;
- each SLURM job stayed within the memory and time it asked for (sacct: MaxRSS of its
  steps against ReqMem, Elapsed against Timelimit; the cluster also kills a job above its
  memory, as cgroups would);
- the regenerated tables and figures are the committed ones, byte for byte (the comparison
  of tests/test_regenerate.py);
- stopping the cluster leaves none of its daemons running.

A cluster that cannot start fails the test (never a skip) with the daemons' log lines that
say why. GEVAL_REPRO_SLURM_DIR names the cluster's folder (CI's, so that .ci/run can stop it
whatever happens); else it is a temporary one.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.test_regenerate import unlike_committed

COMMAND = (
    "snakemake --profile profiles/slurm --configfile workflow/configs/mirrored_data.yaml "
    "--config mirror=DIR"
)
# The one option the tests add to COMMAND: the executor plugin's first status check 5 s after
# a submission instead of its default 40 s (then 10 s longer each time nothing finished).
# squeue (the profile's status command) answers in milliseconds on this one-node cluster; a
# real cluster keeps the default.
POLL = ("--slurm-init-seconds-before-status-checks", "5")
#: sacct's states of a job that has not ended. The profile reads states from squeue
#: (slurmctld), and slurmdbd records a job's end a moment later: a run can end first.
UNFINISHED = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "RESIZING"}
SCRIPT = REPO_ROOT / ".ci" / "slurm-cluster.sh"
SYSTEM_CONF = Path("/etc/slurm/slurm.conf")
# The workflow's local rules, as Snakemake decides them (Workflow.is_local, less its "no
# executor plugin: every rule is local" clause): `localrule: True`, or no run: block.
LOCAL_RULES = """
import json, sys
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

config = ConfigSettings(configfiles=[Path(sys.argv[1])], config={"mirror": sys.argv[2]})
with SnakemakeApi(OutputSettings()) as api:
    workflow = api.workflow(ResourceSettings(), config, snakefile=Path("Snakefile"))._workflow
    local = [r.name for r in workflow.rules if r.norun or r.name in workflow._localrules]
    print(json.dumps(sorted(local)))
"""


@dataclass(frozen=True)
class Cluster:
    """A running one-node cluster: its folder and the environment its clients need."""

    folder: Path
    env: dict[str, str]


@dataclass(frozen=True)
class ProfileRun:
    """A finished run of COMMAND in ``checkout``: its console output and SLURM run ID."""

    checkout: Path
    output: str
    run_id: str


def _script(action: str, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT), action, str(folder)], capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """The cluster, started for this module and stopped after it (also on failure)."""
    folder = Path(
        os.environ.get("GEVAL_REPRO_SLURM_DIR") or tmp_path_factory.mktemp("slurm") / "cluster"
    )
    started = _script("start", folder)
    if started.returncode != 0:
        pytest.fail(
            f"the one-node SLURM cluster did not start (bash .ci/slurm-cluster.sh start "
            f"{folder}; logs in {folder}/log):\n{started.stderr[-8000:]}",
            pytrace=False,
        )
    try:
        yield Cluster(folder, {**os.environ, "SLURM_CONF": str(folder / "etc" / "slurm.conf")})
    finally:
        _script("stop", folder)


def _comm(path: Path) -> str:
    """A process's name from its /proc/PID/comm ('' once it has gone)."""
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def fresh_copy(checkout: Path, into: Path) -> None:
    """The files of ``checkout`` that git tracks or would add (not those it ignores), without
    results/, copied into ``into``: a run there regenerates every result and touches nothing
    committed."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=checkout,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = checkout / name
        if name.startswith("results/") or not source.is_file():  # results/ or deleted
            continue
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, into / name)


@pytest.fixture(scope="module")
def profile_run(
    cluster: Cluster, mirror_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> ProfileRun:
    """COMMAND on the mirror, in a fresh copy of the checkout, through the cluster."""
    checkout = tmp_path_factory.mktemp("checkout")
    fresh_copy(REPO_ROOT, checkout)
    command = [*shlex.split(COMMAND.replace("DIR", str(mirror_dir))), *POLL]
    command[0] = str(Path(sys.executable).with_name("snakemake"))  # this environment's
    env = {**cluster.env, "PYTHONPATH": str(checkout)}  # the jobs import the copy's package
    done = subprocess.run(
        command, cwd=checkout, env=env, capture_output=True, text=True, check=False
    )
    output = done.stdout + done.stderr
    if done.returncode != 0:
        pytest.fail(f"{COMMAND} failed in {checkout}:\n{output[-8000:]}", pytrace=False)
    run_id = re.search(r"SLURM run ID: (\S+)", output)
    assert run_id, f"no SLURM run ID in the output of {COMMAND}:\n{output[-3000:]}"
    sacct_ended(cluster, "--allocations", "--name", run_id.group(1), "--format", "JobID,State")
    return ProfileRun(checkout, output, run_id.group(1))


def sacct(cluster: Cluster, *options: str) -> list[dict[str, str]]:
    """Rows of ``sacct --parsable2`` of every user, as dicts by field."""
    fields = options[options.index("--format") + 1].split(",")
    done = subprocess.run(
        ["sacct", "--allusers", "--starttime", "now-2days", "--parsable2", "--noheader", *options],
        env=cluster.env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [dict(zip(fields, line.split("|"), strict=True)) for line in done.stdout.splitlines()]


def sacct_ended(cluster: Cluster, *options: str, timeout: float = 60) -> list[dict[str, str]]:
    """:func:`sacct`'s rows (its ``--format`` with State) once none of them is UNFINISHED:
    slurmdbd has recorded their ends (within ``timeout`` seconds, else the last rows)."""
    deadline = time.monotonic() + timeout
    while True:
        rows = sacct(cluster, *options)
        if not any(row["State"].partition(" ")[0] in UNFINISHED for row in rows):
            return rows
        if time.monotonic() > deadline:
            return rows  # the test's own assertions say what is wrong
        time.sleep(1)


def megabytes(value: str) -> float:
    """A sacct memory value (``1547612K``, ``176.50M``, ``4000M``, ``2G``) in MB of 2^20 bytes."""
    number, unit = re.fullmatch(r"([\d.]+)([KMGT]?)", value).groups()
    return float(number) * {"K": 2**-10, "": 2**-20, "M": 1, "G": 2**10, "T": 2**20}[unit]


def seconds(value: str) -> int:
    """A sacct duration (``[D-]HH:MM:SS``, ``MM:SS``) in seconds."""
    days, _, clock = value.rpartition("-")
    parts = [int(p) for p in clock.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    return int(days or 0) * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]


def test_the_documented_command_is_the_tested_one() -> None:
    """docs/cluster.md and the profile's own comment name exactly COMMAND."""
    for path in (REPO_ROOT / "docs" / "cluster.md", REPO_ROOT / "profiles/slurm/config.yaml"):
        assert COMMAND in " ".join(path.read_text().split()), f"{path} does not show {COMMAND}"


@pytest.mark.slurm
@pytest.mark.slow
def test_every_job_but_the_local_ones_went_through_sbatch(
    cluster: Cluster, profile_run: ProfileRun, mirror_dir: Path
) -> None:
    output = profile_run.output
    rule_of = dict(re.findall(r"Finished jobid: (\d+) \(Rule: (\w+)\)", output))
    submitted = re.findall(r"Job (\d+) has been submitted with SLURM jobid (\d+)", output)
    assert submitted, "no job was submitted with sbatch"
    fields = "JobID,State,Comment"
    rows = sacct(cluster, "--allocations", "--name", profile_run.run_id, "--format", fields)
    jobs = {row["JobID"]: row for row in rows}
    assert sorted(jobs, key=int) == sorted((slurm for _, slurm in submitted), key=int), (
        "sacct's jobs of this run are not the jobs Snakemake says it submitted"
    )
    last_attempt = dict(submitted)  # a resubmitted job: its last SLURM job counts
    for job, slurm in last_attempt.items():
        rule, row = rule_of[job], jobs[slurm]
        assert row["State"] == "COMPLETED", f"SLURM job {slurm} ({rule}): {row['State']}"
        assert row["Comment"] == f"rule_{rule}" or row["Comment"].startswith(
            f"rule_{rule}_wildcards_"
        ), f"SLURM job {slurm} is {row['Comment']}, Snakemake's job {job} is {rule}"

    local = subprocess.run(
        [sys.executable, "-c", LOCAL_RULES, "workflow/configs/mirrored_data.yaml", mirror_dir],
        cwd=profile_run.checkout,
        env={**os.environ, "PYTHONPATH": str(profile_run.checkout)},
        capture_output=True,
        text=True,
        check=True,
    )
    local_rules = set(json.loads(local.stdout.splitlines()[-1]))
    assert "fetch" in local_rules and "baseline_rows" not in local_rules  # the probe works
    unsubmitted = {rule_of[job] for job in rule_of.keys() - last_attempt.keys()}
    assert sorted(unsubmitted - local_rules) == [], "jobs of non-local rules ran without sbatch"
    assert sorted({rule_of[job] for job in last_attempt} & local_rules) == [], (
        "jobs of local rules went through sbatch"
    )


@pytest.mark.slurm
@pytest.mark.slow
def test_every_job_stayed_within_what_it_asked_for(
    cluster: Cluster, profile_run: ProfileRun
) -> None:
    fields = "JobID,Comment,ReqMem,Timelimit,Elapsed,MaxRSS"
    jobs = sacct(cluster, "--allocations", "--name", profile_run.run_id, "--format", fields)
    ids = ",".join(job["JobID"] for job in jobs)
    peak: dict[str, float] = {}  # a job's largest step (its batch script, its srun)
    for step in sacct(cluster, "--jobs", ids, "--format", fields):
        job, _, name = step["JobID"].partition(".")
        if name and step["MaxRSS"]:
            peak[job] = max(peak.get(job, 0.0), megabytes(step["MaxRSS"]))
    assert peak, "sacct recorded no step's MaxRSS"
    over = [
        f"{job['Comment']}: {peak.get(job['JobID'], 0.0):.0f} MB of {job['ReqMem']}, "
        f"{job['Elapsed']} of {job['Timelimit']}"
        for job in jobs
        if peak.get(job["JobID"], 0.0) > megabytes(job["ReqMem"])
        or seconds(job["Elapsed"]) > seconds(job["Timelimit"])
    ]
    assert over == [], f"jobs above their memory or time request: {over}"


@pytest.mark.slurm
@pytest.mark.slow
def test_the_profile_run_regenerates_the_committed_results(profile_run: ProfileRun) -> None:
    unlike = unlike_committed(profile_run.checkout / "results")
    assert unlike == {key: [] for key in unlike}, unlike


@pytest.mark.slurm
@pytest.mark.slow
def test_stopping_the_cluster_leaves_no_daemon(cluster: Cluster) -> None:
    """Runs last (file order): stops the cluster, then looks for its daemons in /proc."""
    stopped = _script("stop", cluster.folder)
    assert stopped.returncode == 0, stopped.stderr
    pids = {path.stem: int(path.read_text()) for path in (cluster.folder / "pids").glob("*.pid")}
    assert set(pids) == {"munged", "mariadbd", "slurmdbd", "slurmctld", "slurmd"}
    running = []
    for name, pid in pids.items():
        proc = Path(f"/proc/{pid}")
        try:
            state = (proc / "stat").read_text().rpartition(")")[2].split()[0]
            command = (proc / "cmdline").read_bytes().decode(errors="replace")
        except FileNotFoundError:
            continue  # gone
        if state != "Z" and name in command:  # a zombie has exited (init reaps it)
            running.append(f"{name} (pid {pid}, state {state})")
    steps = [p.parent.name for p in Path("/proc").glob("[0-9]*/comm") if _comm(p) == "slurmstepd"]
    assert running == [] and steps == [], f"still running after stop: {running}, {steps=}"
    assert SYSTEM_CONF.resolve() != cluster.folder / "etc" / "slurm.conf", (
        f"{SYSTEM_CONF} still points into {cluster.folder}"
    )
