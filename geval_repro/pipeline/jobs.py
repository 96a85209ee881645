"""What every rule's ``run:`` block calls, and what the Snakefile's ``onstart`` does.

A rule's ``run:`` block is one call, ``JOBS.run(params.job, log, input, output, ...)``,
where the rule's ``params:`` hold ``job=JOBS.job("<module>:<function>")`` (:meth:`Jobs.job`:
the function and the digest of the code it runs, so that Snakemake reruns the rule's jobs
when that code changes, :mod:`geval_repro.pipeline.code_digest`). :meth:`Jobs.run` runs that
function of :mod:`geval_repro.pipeline` with the keyword
arguments given (typed specs and settings as they are, paths, strings, numbers, mappings)
in a process of its own (:mod:`geval_repro.pipeline.processes`), which writes the job's
``log:`` file itself: a first line naming the job, its log records (INFO of the package,
warnings), its stderr and its subprocesses', and a last line with its wall and CPU time, or
its error. After the function returns, the process writes the provenance sidecar
(:mod:`geval_repro.report.provenance`) of every output under the processed tables, the row
files and the result tables and figures (:class:`Trace`), naming the judges the rule gives
(``judges=``, from ``params.judges``). A failed job raises :class:`ProcessJobError` in its
thread: Snakemake prints it as the rule's error, one line, with the log's path (the
traceback is in the log).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geval_repro.pipeline.code_digest import CodeDigests
from geval_repro.pipeline.layout import Layout
from geval_repro.pipeline.processes import (
    PACKAGE,
    Job,
    ProcessJobError,
    run_in_process,
    running_children,
)
from geval_repro.report.provenance import Provenance

__all__ = ["CODE", "Jobs", "ProcessJobError", "Trace", "forward_stop_signals", "start_workflow"]

#: Between a job's ``"<module>:<function>"`` and the digest of its code (:meth:`Jobs.job`).
CODE = "@sha256:"


@dataclass(frozen=True)
class Trace:
    """The provenance sidecars a job writes after its function: one per file of
    ``outputs``, resting on ``inputs`` and on the judges ``judges``."""

    outputs: tuple[str, ...]
    inputs: tuple[str, ...]
    judges: tuple[str, ...]
    provenance: Provenance

    def prepare(self) -> None:
        """In the fork server: read the package versions every sidecar records (``java
        -version`` among them) and the sources registry its inputs are looked up in, once
        for all the jobs it forks."""
        from geval_repro.registry.sources import load_registry
        from geval_repro.report.provenance import package_versions

        package_versions()
        load_registry()

    def write(self) -> None:
        from geval_repro.report.provenance import write_provenance

        write_provenance(self.outputs, self.inputs, self.provenance, judges=self.judges)


def _plain(value: Any) -> Any:
    """``value`` with Snakemake's file names (``str`` subclasses) and lists of them (its
    ``input`` and ``output``) as plain strings, lists and dicts; anything else as it is."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, Mapping):
        return {_plain(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


@dataclass(frozen=True)
class Jobs:
    """How the workflow runs its jobs (built once in the Snakefile, :meth:`from_config`):
    the run's :class:`~geval_repro.report.provenance.Provenance`, the folders whose files
    get a sidecar (``traced``) and the digests of the code the jobs run (``code``)."""

    provenance: Provenance
    traced: tuple[Path, ...]
    code: CodeDigests = field(default_factory=CodeDigests)

    @classmethod
    def from_config(cls, config: Mapping[str, Any], layout: Layout) -> Jobs:
        """The jobs of a checked config: the processed tables, the row files and the result
        tables and figures of ``layout`` are traced; the parses of the code digests are
        kept in ``layout.code_digests``."""
        traced = (layout.processed, layout.rows, layout.tables, layout.figures)
        return cls(
            Provenance.from_config(config, layout.raw),
            tuple(folder.resolve() for folder in traced),
            CodeDigests(cache=layout.code_digests),
        )

    def job(self, call: str, notebook: str | os.PathLike[str] | None = None) -> str:
        """A rule's ``params.job`` for ``call`` (``"<module>:<function>"``):
        ``"<call>@sha256:<hex>"``, the hex SHA-256 of the code the job runs: the module
        ``geval_repro.pipeline.<module>``, every module of the package it imports
        (transitively, function-local and relative imports too), the fork server and
        provenance sidecar writer every job runs, and the package data files these read;
        with ``notebook`` (a job that executes it), the modules its code cells import too
        (:mod:`geval_repro.pipeline.code_digest` says exactly what). A param of the rule,
        it makes Snakemake rerun the rule's jobs when that code changes, and only then.
        Raises ``ValueError`` when there is no such module."""
        module, _, function = call.partition(":")
        if not function:
            raise ValueError(f"{call!r}: a job is '<module>:<function>'")
        imports = self.code.notebook_imports(notebook) if notebook is not None else ()
        return f"{call}{CODE}{self.code.digest(module, imports)}"

    def run(
        self,
        job: str,
        log: Sequence[str | os.PathLike[str]],
        input: Iterable[str | os.PathLike[str]] = (),
        output: Iterable[str | os.PathLike[str]] = (),
        /,
        *,
        judges: Iterable[str] = (),
        **kwargs: Any,
    ) -> None:
        """Run the function ``job`` names (``params.job``, from :meth:`job`; or a bare
        ``"<module>:<function>"`` in a rule whose jobs must not rerun when their code
        changes: the fetch, whose outputs are upstream files verified by their SHA-256, and
        the judge runner, whose rerun could send paid requests) with
        ``kwargs`` in a process of its own, logged to ``log[0]`` (the module docstring); the
        outputs under :attr:`traced` get their sidecars. Raises :class:`ProcessJobError`
        when the job fails or is stopped."""
        call = job.partition(CODE)[0]
        traced = tuple(str(path) for path in output if self._traced(Path(path)))
        trace = None
        if traced:
            inputs = tuple(str(path) for path in input)
            trace = Trace(traced, inputs, tuple(judges), self.provenance)
        try:
            run_in_process(Job(PACKAGE + call, _plain(kwargs), Path(log[0]), trace))
        except ProcessJobError as failed:
            # Snakemake prints the frames of an exception a run: block raises: only this
            # one and the rule's, under the one line that says what failed (its log has more).
            raise failed.with_traceback(None) from None

    def _traced(self, path: Path) -> bool:
        resolved = path.resolve()
        return any(resolved.is_relative_to(folder) for folder in self.traced)


def forward_stop_signals() -> None:
    """Pass Ctrl-C (SIGINT) and SIGTERM on to the jobs' processes
    (:mod:`geval_repro.pipeline.processes`), then call the handler that was there before
    (Python's for SIGINT, Snakemake's for SIGTERM: cancel, or finish the running jobs and
    exit). A job's thread, which waits for its process, then returns within the seconds the
    process takes to stop, so Snakemake exits and releases its lock. Called in the main
    thread from the Snakefile's ``onstart``."""
    for number in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(number)

        def forward(signum: int, frame: object, previous: object = previous) -> None:
            for process in running_children():
                try:
                    os.kill(process.pid, signum)  # the child stops what it started itself
                except ProcessLookupError:
                    pass
            if callable(previous):
                previous(signum, frame)
            elif previous == signal.SIG_DFL:
                signal.signal(signum, signal.SIG_DFL)
                os.kill(os.getpid(), signum)

        signal.signal(number, forward)


@contextlib.contextmanager
def stop_on_config_error() -> Iterator[None]:
    """Around the Snakefile's reading of its config: an invalid config or a mirror folder
    that does not exist stops the workflow with the message alone (``geval-repro: ...``,
    exit status 1), not Snakemake's report of an exception with its frames."""
    from geval_repro.config import ConfigError
    from geval_repro.files.fetch import FetchError

    try:
        yield
    except (ConfigError, FetchError) as error:
        print(f"geval-repro: {error}", file=sys.stderr)
        raise SystemExit(1) from None


def start_workflow(config: Mapping[str, Any], layout: Layout, mirror: Path | None) -> None:
    """The Snakefile's ``onstart`` (in the main thread, when there are jobs to run): a run
    into results made with another configuration refused in one line, before anything is
    written (:mod:`geval_repro.pipeline.results_guard`); then the run's manifest
    (:func:`geval_repro.report.provenance.write_run_manifest`, with the ``mirror`` it
    reads), the start the closing summary counts from
    (:func:`geval_repro.pipeline.summary.start_run`) and the stop signals passed on to the
    jobs (:func:`forward_stop_signals`)."""
    from geval_repro.pipeline.results_guard import OtherConfiguration, check_results_configuration
    from geval_repro.pipeline.summary import start_run
    from geval_repro.report.provenance import write_run_manifest

    try:
        check_results_configuration(config, layout.results, sys.argv)
    except OtherConfiguration as refused:
        print(refused, file=sys.stderr)
        raise SystemExit(1) from None
    manifest = write_run_manifest(layout.results / "run_manifest.json", config, mirror)
    start_run(layout, manifest)
    forward_stop_signals()
