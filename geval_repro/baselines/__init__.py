"""Model-free baseline metrics (ROUGE, BLEU-4, METEOR) and the references each benchmark uses.

Score functions take lists of hypothesis and reference strings and return numpy arrays, one
score per hypothesis; which reference and which variant reproduces each published row is
documented in docs/baselines.md.
"""
