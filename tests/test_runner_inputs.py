"""What the judge runner is given (issue 44): a port out of range and a credential in a
URL are refused in one line naming the URL (its credential masked). Every reply is the fake
server's (tests/fake_openai_server.py): test data, never a judge's answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from geval_repro.cli import main
from tests.fake_openai_server import FakeOpenAIServer
from tests.runner_cli import judge_argv, one_line, summeval_processed

pytestmark = pytest.mark.usefixtures("prompts_from_the_mirror")


@pytest.fixture(scope="module")
def processed(tmp_path_factory, mirror_dir) -> Path:
    """A processed folder with summeval.parquet built from the mirror."""
    return summeval_processed(tmp_path_factory, mirror_dir)


# --- messages that name what is wrong --------------------------------------------------------


@pytest.mark.parametrize("command", ["judge", "probe"])
def test_a_port_out_of_range_is_refused_naming_the_url(tmp_path, processed, capsys, command):
    url = "http://127.0.0.1:99999/v1"
    argv = {
        "judge": judge_argv(url, tmp_path / "run", processed),
        "probe": ["probe", "--base-url", url, "--model", "m"],
    }[command]
    assert main(argv) == 2
    line = one_line(capsys.readouterr().err)
    assert url in line and "99999" in line and "1-65535" in line


def test_a_credential_in_a_url_is_refused_without_showing_it(tmp_path, processed, capsys):
    with FakeOpenAIServer() as server:
        url = server.base_url.replace("http://", "http://judge:hunter2secret@")
        assert main(judge_argv(url, tmp_path / "run", processed)) == 2
        assert main(["probe", "--base-url", url, "--model", "m"]) == 2
        assert server.paths == []
    err = capsys.readouterr().err
    assert "hunter2secret" not in err and "judge:" not in err
    assert err.count("user name or password") == 2 and "--api-key-env" in err
    assert not (tmp_path / "run").exists()
