"""Files in and out: upstream files fetched and verified (:mod:`.fetch`), the offline mirror
(:mod:`.mirror`), atomic writes (:mod:`.atomic`: temporary file, verify, rename) and the
SHA-256 of a file (:mod:`.digest`).

May import :mod:`geval_repro.registry`.
"""
