"""The test workers' groups (tests/conftest.py): every module a group table names exists,
and the scheduler hands out the longest groups first (xdist's own scheduler class)."""

from __future__ import annotations

from tests.conftest import (
    GROUP_SECONDS,
    PIPELINE_MODULES,
    REPO_ROOT,
    SLURM_MODULES,
    SPREAD_MODULES,
    pytest_xdist_make_scheduler,
)


def test_every_module_named_in_the_group_tables_exists() -> None:
    named = {g.removeprefix("tests/") for g in GROUP_SECONDS if g != "pipeline"}
    named |= PIPELINE_MODULES | SLURM_MODULES | SPREAD_MODULES
    missing = sorted(n for n in named if not (REPO_ROOT / "tests" / n).is_file())
    assert missing == [], f"tests/conftest.py names test modules that do not exist: {missing}"


class _Config:
    """A stand-in for the controller's options: one worker (``--tx popen``)."""

    def getvalue(self, name: str) -> list[str]:
        assert name == "tx"
        return ["popen"]


class _Node:
    """A stand-in worker: records the tests it is sent."""

    def __init__(self) -> None:
        self.sent: list[list[int]] = []

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent.append(indexes)


def test_the_longest_groups_go_out_first_then_the_rest_in_the_queues_order() -> None:
    collection = [  # in pytest-xdist's queue order (most tests first), here made up
        "tests/test_cli.py::a",
        "tests/test_cli.py::b",
        "tests/test_job_stops.py::a",
        "tests/test_atomic.py::a",
        "tests/test_pipeline.py::a",
        "tests/test_judge_run_rule.py::a",
        "tests/test_regenerate.py::a",
    ]
    scheduler = pytest_xdist_make_scheduler(_Config(), None)
    node = _Node()
    scheduler.registered_collections[node] = collection
    for nodeid in collection:
        scheduler.workqueue.setdefault(scheduler._split_scope(nodeid), {})[nodeid] = False
    order = []
    while scheduler.workqueue:
        scheduler._assign_work_unit(node)
        order.append(sorted({collection[i].split("::")[0] for i in node.sent[-1]}))
    assert order == [
        ["tests/test_pipeline.py", "tests/test_regenerate.py"],  # the pipeline group
        ["tests/test_judge_run_rule.py"],  # the longest module groups next
        ["tests/test_job_stops.py"],
        ["tests/test_cli.py"],  # the rest in the queue's order
        ["tests/test_atomic.py"],
    ]
