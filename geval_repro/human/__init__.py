"""Human-data analyses: QAGS consistency from the MTurk originals, SummEval expert agreement,
the leave-one-expert-out human ceiling, each system's mean expert rating against a printed
table of them (:mod:`.system_means`), and score distributions and tie rates.

May import :mod:`geval_repro.stats`.
"""
