#!/usr/bin/env bash
# The lowest Snakemake pyproject.toml allows (its `snakemake>=X`), in a virtual environment
# of its own beside the lock's (outside the checkout): the project and its test extra with
# every other package at the lock's version, except Snakemake and the packages that only
# Snakemake needs, which pip resolves for that release (their locked versions are its
# later releases'). Then the regeneration test (tests/test_regenerate.py): the mirrored
# pipeline, run by that Snakemake, must remake every committed table and figure byte for
# byte (sidecars: apart from the package versions they record).
set -euo pipefail
cd "$(dirname "$0")/.."
floor=$(python3 -c 'import re,tomllib; deps=tomllib.load(open("pyproject.toml","rb"))["project"]["dependencies"]; print(next(re.fullmatch(r"snakemake>=([\d.]+)", d).group(1) for d in deps if d.startswith("snakemake>=")))')
echo "CI: Snakemake $floor, the lowest pyproject.toml allows, beside the lock's"
constraints="$(mktemp)"
grep -viE '^(snakemake[a-z-]*|pulp|smart-open|yte|dpath|conda-inject|immutables|throttler|reretry|connection-pool|toposort|datrie|appdirs|wrapt)==' \
    requirements.lock > "$constraints"
venv="${TMPDIR:-/tmp}/venv-snakemake-floor"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv"/bin/pip install -q -c "$constraints" -e ".[test]" "snakemake==$floor"
"$venv"/bin/snakemake --version
# Its own processes, its own shared run: the test finds the mirror at ../shared/mirror.
"$venv"/bin/python -m pytest -p no:cacheprovider tests/test_regenerate.py
