"""Acquisition: every upstream file, downloaded or copied from the mirror, then verified."""


rule fetch:
    """Fetch one registry or judge file to data/raw/<owner>/<repo>/<commit>/<path>."""
    # Fetches gate every other job: run them first (as the baseline chain, see rows.smk).
    priority: 10
    output:
        LAYOUT.raw / "{relpath}",
    wildcard_constraints:
        relpath=one_of(REMOTES),
    params:
        remote=lambda wildcards: REMOTES[wildcards.relpath],
    log:
        LAYOUT.logs / "fetch" / "{relpath}.log",
    localrule: True
    retries: 0
    run:
        from geval_repro.pipeline.downloads import fetch_file

        fetch_file(params.remote, LAYOUT.raw, MIRROR, SETTINGS)
