"""Pipeline steps: what each Snakemake rule calls (rules stay one call long)."""
