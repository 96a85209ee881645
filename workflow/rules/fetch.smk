"""Acquisition: every upstream file, downloaded or copied from the mirror, then verified."""

from geval_repro.fetch import fetch


rule fetch:
    """Fetch one registry or judge file to data/raw/<owner>/<repo>/<commit>/<path>."""
    # Fetches gate every other job: run them first (as the baseline chain, see rows.smk).
    priority: 10
    output:
        RAW / "{relpath}",
    wildcard_constraints:
        relpath="|".join(re.escape(r) for r in REMOTES),
    params:
        remote=lambda wildcards: REMOTES[wildcards.relpath],
    log:
        LOGS / "fetch" / "{relpath}.log",
    localrule: True
    retries: 0
    run:
        fetch(
            params.remote,
            RAW,
            mirror=MIRROR,
            timeout=config["download"]["timeout"],
            retries=config["download"]["retries"],
        )
