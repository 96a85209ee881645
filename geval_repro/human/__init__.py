"""Human-data analyses: QAGS consistency from the MTurk originals, annotator agreement
(SummEval's experts, DialSummEval's annotators), the leave-one-annotator-out human ceiling,
each system's mean expert rating against a printed
table of them (:mod:`.system_means`), and score distributions and tie rates.

May import :mod:`geval_repro.stats`.
"""
