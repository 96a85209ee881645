"""Human-data analyses: QAGS consistency from the MTurk originals, SummEval expert agreement,
the leave-one-expert-out human ceiling, and score distributions and tie rates.

May import :mod:`geval_repro.stats`.
"""
