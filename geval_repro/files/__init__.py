"""Files in and out: upstream files fetched and verified (:mod:`.fetch`), the offline mirror
(:mod:`.mirror`) and atomic writes (:mod:`.atomic`: temporary file, verify, rename).

May import :mod:`geval_repro.registry`.
"""
