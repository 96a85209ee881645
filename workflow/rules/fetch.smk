"""Acquisition: every upstream file, downloaded or copied from the mirror, then verified.

The fetch's JOBS.run names its function alone, without the digest of its code (no
params.job, as every other rule has): its outputs are the upstream files themselves,
verified against their SHA-256 in the sources registry, so a change of the fetch code cannot
change them and does not download them again (a changed source changes params.remote)."""


rule fetch:
    """Fetch one registry or judge file to data/raw/<owner>/<repo>/<commit>/<path>."""
    # Fetches gate every other job: run them first (as the baseline chain, see rows.smk).
    priority: 10
    output:
        LAYOUT.raw_copy("{relpath}"),
    wildcard_constraints:
        relpath=one_of(TARGETS.remotes),
    params:
        remote=lambda wildcards: TARGETS.remotes[wildcards.relpath],
    log:
        LAYOUT.log("fetch", "{relpath}"),
    localrule: True
    retries: 0
    run:
        JOBS.run(
            "downloads:fetch_file",
            log,
            remote=params.remote,
            raw_dir=LAYOUT.raw,
            mirror=TARGETS.mirror,
            settings=SETTINGS,
        )
