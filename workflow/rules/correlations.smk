"""The combined correlation table and the paper-layout Tables 1-3."""

from geval_repro.pipeline.correlations import combine, write_paper_layouts


rule correlations:
    input:
        ROWS / "unieval.csv",
        ROWS / "baselines.csv",
        ROWS / "human_ceiling.csv",
        [JUDGE_TABLES / judge / "correlations.csv" for judge in JUDGES],
    output:
        ROOT_TABLES / "correlations.csv",
        ROOT_TABLES / "correlations.md",
    log:
        LOGS / "correlations.log",
    localrule: True
    run:
        combine(input, ROOT_TABLES / "correlations")
        trace(output, input)


rule paper_layout:
    input:
        ROOT_TABLES / "correlations.csv",
    output:
        [ROOT_TABLES / f"{stem}.md" for stem in PAPER_LAYOUTS.values()],
    log:
        LOGS / "paper_layout.log",
    localrule: True
    run:
        write_paper_layouts(
            input[0], {n: ROOT_TABLES / stem for n, stem in PAPER_LAYOUTS.items()}
        )
        trace(output, input)


rule reproduction_figure:
    """Does it reproduce? Every recomputed cell against its printed value (Tables 1-3)."""
    input:
        ROOT_TABLES / "correlations.csv",
    output:
        png=ROOT_FIGURES / "reproduction.png",
        svg=ROOT_FIGURES / "reproduction.svg",
    log:
        LOGS / "reproduction_figure.log",
    localrule: True
    run:
        from geval_repro.figures import reproduction_figures

        reproduction_figures(input[0], output.png, output.svg)
        trace(output, input)
