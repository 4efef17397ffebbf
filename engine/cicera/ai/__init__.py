"""Cicera's AI, beside its rules (docs/architecture.md, AI): ``greedy`` and ``easy``
(:mod:`.greedy`), ``normal`` (:mod:`.normal`), ``hard`` (:mod:`.search`).

The rules never import it; :mod:`engine.cicera.policies` names the levels.
"""
