"""Files in and out: upstream files fetched and verified (:mod:`.fetch`), the offline mirror
(:mod:`.mirror`), atomic writes (:mod:`.atomic`: temporary file, verify, rename), the
SHA-256 of a file (:mod:`.digest`), the type of a path argument (:mod:`.paths`), and the
git state of the checkout a run is made from (:mod:`.checkout`).

May import :mod:`geval_repro.registry`.
"""
