"""The digest of the code a job runs, for its rule's ``params:`` (:meth:`CodeDigests.digest`).

Snakemake reruns a job whose ``params:`` changed (its default ``params`` rerun trigger),
but not one whose called Python code changed: every rule's ``run:`` block is the same one
call into :mod:`geval_repro.pipeline`. So each rule's ``params:`` carries a job string,
``"<module>:<function>@sha256:<digest>"`` (:meth:`geval_repro.pipeline.jobs.Jobs.job`),
and the digest changes exactly when the code the job runs changes.

What the digest covers, found statically (:mod:`ast`, nothing is imported): SHA-256 over
the sorted list of the path (relative to the package's parent folder) and the SHA-256 of
the bytes of every file of

- the job's module ``<package>.pipeline.<module>`` and every module of the package it
  imports, transitively: ``import a.b``, ``from a import b`` (``b`` counted too when it is a
  submodule), relative imports, imports inside functions; the packages above an imported
  module (their ``__init__.py``, which Python runs first); a string constant that is the
  full name of a module of the package (``importlib.import_module("geval_repro.stats.binary")``);
  in a package's ``__init__.py``, a string constant that names one of its submodules (the
  submodules a PEP 562 ``__getattr__`` imports on first use, as ``geval_repro.stats``'s);
- for a notebook's job, the same for the modules of the package its code cells import
  (:func:`notebook_imports`: its kernel runs them);
- the same for :data:`EVERY_JOB`, the modules every job runs besides its own: the fork
  server it is forked from (its pandas string storage) and the provenance sidecars it
  writes (:mod:`geval_repro.report.provenance`);
- the package data files these modules read, named through the constants of
  :data:`DATA_FOLDERS` (how every module that reads one names it): a file joined as
  ``PACKAGE_DATA / "<name>"`` (:data:`geval_repro.registry.sources.PACKAGE_DATA`) is
  ``<package>/data/<name>``; a module that uses such a constant otherwise (``PROMPTS_DIR /
  folder / ...``, :data:`geval_repro.runner.prompts.PROMPTS_DIR`) reads every file under
  its folder (``<package>/prompts/``).

Not covered: code outside the package (installed libraries, a METEOR jar), an import the
source spells in no string (``import_module(f"{a}.{b}")`` outside a package's own
submodules), files a module reads through another name. After such a change,
``--forceall`` (docs/configuration.md).

A :class:`CodeDigests` reads each file once and parses it once: parsing the ~160 modules a
full run's jobs run takes ~0.3 s of CPU, so what a parse finds (the names, not the verdict
on them) is kept in ``cache`` (``data/cache/code_digests.json`` of a run), keyed by the
SHA-256 of this module's bytes and the module's name and bytes: a DAG build parses only the
modules edited since the last one. Make a new :class:`CodeDigests` to see files edited
since it read them.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from geval_repro.files.atomic import write_text

__all__ = ["EVERY_JOB", "CodeDigests", "notebook_imports"]

#: The modules every job runs besides its own (below the package name): the fork server
#: the job's process is forked from, and the writer of its provenance sidecars.
EVERY_JOB = ("pipeline.fork_server", "report.provenance")
#: The SHA-256 of this module: part of the key of each parse kept, so that parses made by
#: other rules than these are never used.
PARSER = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
#: The constants modules name the package's data folders by -> the folder in the package.
DATA_FOLDERS = {"PACKAGE_DATA": "data", "PROMPTS_DIR": "prompts"}


@dataclass(frozen=True)
class _Names:
    """What a module's source names: the module names it imports or spells (before they
    are checked against the package's files) and the paths in the package of the data
    files or folders it reads (:data:`DATA_FOLDERS`)."""

    modules: tuple[str, ...]
    data: tuple[str, ...]


@dataclass(frozen=True)
class _Module:
    """One module's file, the hex SHA-256 of its bytes, the package modules and data files
    it names, and its key in the cache (the SHA-256 of :data:`PARSER`, its name and
    bytes)."""

    path: Path
    digest: str
    imports: frozenset[str]
    data: frozenset[Path]
    key: str


@dataclass
class CodeDigests:
    """The code digests of the jobs of the package in the folder ``package`` (the
    installed ``geval_repro`` by default), each file read and parsed once; what the
    parses found kept in the JSON file ``cache`` when given (module docstring)."""

    package: Path = field(default_factory=lambda: Path(__file__).resolve().parents[1])
    cache: Path | None = None
    _names: dict[str, _Names] | None = field(default=None, repr=False)
    _parsed: bool = field(default=False, repr=False)
    _modules: dict[str, _Module | None] = field(default_factory=dict, repr=False)
    _paths: dict[str, Path] | None = field(default=None, repr=False)
    _data: dict[Path, str] = field(default_factory=dict, repr=False)
    _digests: dict[str, str] = field(default_factory=dict, repr=False)
    _notebooks: dict[Path, str] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return self.package.name

    def digest(self, module: str, imports: Sequence[str] = ()) -> str:
        """The hex SHA-256 of the code a job of ``<package>.pipeline.<module>`` runs (the
        module docstring says what it covers), with the modules ``imports`` (full names;
        a notebook's, :func:`notebook_imports`) and what they import. Raises
        ``ValueError`` when there is no such module."""
        job = f"{self.name}.pipeline.{module}"
        if self._module(job) is None:
            raise ValueError(f"{job}: no such module in {self.package}")
        key = "\0".join((job, *sorted(imports)))
        if key not in self._digests:
            every = (f"{self.name}.{extra}" for extra in EVERY_JOB)
            files = self.files(job, *imports, *every)
            listing = "".join(f"{path}\0{digest}\n" for path, digest in sorted(files.items()))
            self._digests[key] = hashlib.sha256(listing.encode()).hexdigest()
            self._save()
        return self._digests[key]

    def notebook_imports(self, notebook: str | Path) -> tuple[str, ...]:
        """:func:`notebook_imports` of ``notebook``, kept in :attr:`cache` as the parses of
        modules are (a notebook with its outputs is megabytes of JSON); read once."""
        path = Path(notebook).resolve()
        if path not in self._notebooks:
            source = path.read_bytes()
            key = hashlib.sha256(f"{PARSER}\0notebook\0".encode() + source).hexdigest()
            cached = self._cached()
            if key not in cached:
                cached[key] = _Names(_notebook_imports(source, str(notebook)), ())
                self._parsed = True
            self._notebooks[path] = key
            self._save()
        return self._cached()[self._notebooks[path]].modules

    def files(self, *modules: str) -> dict[str, str]:
        """Every file the ``modules`` (full names) run or read, transitively: its path
        relative to the package's parent folder -> the hex SHA-256 of its bytes. Modules
        that do not exist are left out."""
        seen: set[str] = set()
        pending = list(modules)
        files: dict[str, str] = {}
        root = self.package.parent
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            found = self._module(name)
            if found is None:
                continue
            files[found.path.relative_to(root).as_posix()] = found.digest
            for data in found.data:
                files[data.relative_to(root).as_posix()] = self._data_digest(data)
            pending.extend(found.imports - seen)
        return files

    def _data_digest(self, path: Path) -> str:
        if path not in self._data:
            self._data[path] = hashlib.sha256(path.read_bytes()).hexdigest()
        return self._data[path]

    def _module(self, name: str) -> _Module | None:
        """The module ``name`` of the package, parsed (``None`` when it is not one)."""
        if name not in self._modules:
            self._modules[name] = self._parse(name)
        return self._modules[name]

    def _path(self, name: str) -> Path | None:
        """The file of the package's module ``name``: ``a/b/__init__.py`` or ``a/b.py``."""
        if self._paths is None:  # one walk of the package: every module's name -> its file
            root = self.package.parent
            self._paths = {}
            for path in sorted(self.package.rglob("*.py"), key=lambda p: p.name == "__init__.py"):
                parts = path.relative_to(root).with_suffix("").parts
                if "__pycache__" not in parts and all(part.isidentifier() for part in parts[:-1]):
                    module = parts[:-1] if path.name == "__init__.py" else parts
                    self._paths[".".join(module)] = path  # a package's __init__ wins
        return self._paths.get(name)

    def _parse(self, name: str) -> _Module | None:
        path = self._path(name)
        if path is None:
            return None
        source = path.read_bytes()
        key = hashlib.sha256(f"{PARSER}\0{name}\0".encode() + source).hexdigest()
        cached = self._cached()
        if key not in cached:
            cached[key] = _names(name, path, source, self.name)
            self._parsed = True
        found = cached[key]
        data = (
            path
            for entry in found.data
            for path in (
                sorted(p for p in (self.package / entry).rglob("*") if p.is_file())
                if (self.package / entry).is_dir()
                else [self.package / entry]
            )
        )
        imports = {
            module
            for full in found.modules
            for module in _with_parents(full)
            if module != name and self._path(module) is not None
        }
        imports.update(_with_parents(name)[:-1])  # the packages above it run first
        digest = hashlib.sha256(source).hexdigest()
        existing = frozenset(p for p in data if p.is_file())
        return _Module(path, digest, frozenset(imports), existing, key)

    def _cached(self) -> dict[str, _Names]:
        """The parses kept in :attr:`cache` (none when it is missing or unreadable)."""
        if self._names is None:
            self._names = {}
            if self.cache is not None:
                with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
                    kept = json.loads(self.cache.read_text(encoding="utf-8"))
                    self._names = {
                        key: _Names(tuple(value["modules"]), tuple(value["data"]))
                        for key, value in kept.items()
                    }
        return self._names

    def _save(self) -> None:
        """Keep the parses of the modules read so far in :attr:`cache` when a file was
        parsed (a cache that cannot be written is left as it is)."""
        if self.cache is None or not self._parsed:
            return
        used = {module.key for module in self._modules.values() if module is not None}
        used |= set(self._notebooks.values())
        kept = {
            key: {"modules": list(names.modules), "data": list(names.data)}
            for key, names in self._cached().items()
            if key in used
        }
        with contextlib.suppress(OSError):
            write_text(self.cache, json.dumps(kept, sort_keys=True))
        self._parsed = False


def notebook_imports(notebook: str | Path) -> tuple[str, ...]:
    """The modules the code cells of the Jupyter notebook ``notebook`` import (``import``
    and ``from ... import`` with each imported name as a possible submodule; its IPython
    magics and shell lines, ``%...`` and ``!...``, left out), sorted."""
    return _notebook_imports(Path(notebook).read_bytes(), str(notebook))


def _notebook_imports(content: bytes, notebook: str) -> tuple[str, ...]:
    cells = json.loads(content)["cells"]
    modules: set[str] = set()
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
        for node in ast.walk(ast.parse("\n".join(lines), filename=notebook)):
            if isinstance(node, ast.Import):
                modules.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                modules.add(node.module)
                modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return tuple(sorted(modules))


def _names(name: str, path: Path, source: bytes, package: str) -> _Names:
    """What the module ``name`` of ``package`` (file ``path``, bytes ``source``) names:
    its imports (``import``, ``from ... import`` with each imported name as a possible
    submodule, relative ones made absolute, anywhere in the file), the string constants
    that start with the package's name, in a package's ``__init__.py`` the string
    constants that could name a submodule, and the data files (a literal joined to a
    constant of :data:`DATA_FOLDERS`) and data folders (such a constant used otherwise)
    it reads."""
    is_package = path.name == "__init__.py"
    here = name if is_package else name.rpartition(".")[0]  # the package it is in
    modules: set[str] = set()
    data: set[str] = set()
    joined: set[int] = set()  # the constants of DATA_FOLDERS with a literal file name
    for node in ast.walk(ast.parse(source, filename=str(path))):  # parents before children
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, here)
            modules.add(base)
            modules.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.startswith(f"{package}."):
                modules.add(node.value)
            elif is_package and node.value.isidentifier():
                modules.add(f"{name}.{node.value}")
        elif (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Div)
            and isinstance(node.left, ast.Name)
            and node.left.id in DATA_FOLDERS
            and isinstance(node.right, ast.Constant)
            and isinstance(node.right.value, str)
        ):
            data.add(f"{DATA_FOLDERS[node.left.id]}/{node.right.value}")
            joined.add(id(node.left))
        elif (
            isinstance(node, ast.Name)
            and node.id in DATA_FOLDERS
            and isinstance(node.ctx, ast.Load)
            and id(node) not in joined
        ):
            data.add(DATA_FOLDERS[node.id])
    return _Names(tuple(sorted(modules)), tuple(sorted(data)))


def _absolute(node: ast.ImportFrom, here: str) -> str:
    """The full name of the module a ``from ... import`` imports from, in package ``here``."""
    if not node.level:
        return node.module or ""
    parts = here.split(".")
    base = ".".join(parts[: len(parts) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base


def _with_parents(name: str) -> list[str]:
    """``a.b.c`` -> ``["a", "a.b", "a.b.c"]``."""
    parts = name.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]
