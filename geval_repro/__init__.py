"""geval-repro: a reproduction toolkit for G-Eval (Liu et al., EMNLP 2023)."""

__version__ = "0.1.0"
