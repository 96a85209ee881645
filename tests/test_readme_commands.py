"""The install commands a newcomer copies are the ones CI runs: README.md's set-up, the local
extra's build (said once, the same in README.md, docs/local-model.md and .ci/run) and the
README's test command."""

from __future__ import annotations

import re

from tests.conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
LOCAL_MODEL = (REPO_ROOT / "docs" / "local-model.md").read_text(encoding="utf-8")
CI = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")


def _bash_blocks(markdown: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", markdown, flags=re.DOTALL)


def _block_with(markdown: str, text: str) -> str:
    (block,) = [b for b in _bash_blocks(markdown) if text in b]
    return block


def test_the_readmes_set_up_is_what_ci_runs_and_updates_apt_first() -> None:
    set_up = _block_with(README, "apt-get install").splitlines()
    assert set_up[0].startswith("apt-get update")  # a fresh machine has no package lists
    assert set_up[1].startswith("apt-get install")
    ci_lines = CI.splitlines()
    for line in set_up:
        assert line in ci_lines, line


def test_the_local_extras_build_is_one_command_in_readme_docs_and_ci() -> None:
    readme = _block_with(README, "CMAKE_ARGS")
    assert _block_with(LOCAL_MODEL, "CMAKE_ARGS") == readme
    assert readme in CI  # the same lines, in the same order
    assert "-DGGML_AVX512=$(has avx512f)" in readme  # decided from /proc/cpuinfo
    assert "-DGGML_AVX512=ON" not in README + LOCAL_MODEL


def test_ci_runs_the_readmes_test_command() -> None:
    (command,) = [b for b in _bash_blocks(README) if "pytest" in b]
    for part in command.strip().removeprefix(". .venv/bin/activate && ").split(" && "):
        assert part in CI.splitlines() or any(
            line.startswith(f"{part}  #") for line in CI.splitlines()
        ), part
