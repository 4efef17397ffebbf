"""Scopa's AI, beside its rules (docs/architecture.md, AI): ``greedy`` and ``easy``
(:mod:`.greedy`), ``normal`` (:mod:`.normal`), ``hard`` (:mod:`.search` on the fast
simulator :mod:`.sim`, in worlds from :mod:`.worlds`), and the generic search's
baseline (:mod:`.determinized`).

The rules never import it; :mod:`engine.scopa.policies` names the levels.
"""
