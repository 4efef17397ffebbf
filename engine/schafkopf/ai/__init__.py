"""Schafkopf's AI, beside its rules (docs/architecture.md, AI): the rule-based players
``greedy`` and ``easy`` (:mod:`.greedy`) and ``normal`` (:mod:`.normal`, bidding by
:mod:`.bidding`), and ``hard`` (:mod:`.search`, bidding by :mod:`.bid_search`).

The rules never import it; :mod:`engine.schafkopf.policies` names the levels.
"""
