"""Dou Dizhu's AI, beside its rules (docs/architecture.md, AI): ``greedy`` and ``easy``
(:mod:`.greedy`), ``normal`` (:mod:`.normal`, planning with :mod:`.hand`), ``hard``
(:mod:`.search`, bidding by :mod:`.bidding`, in worlds from :mod:`.worlds`).

The rules never import it; :mod:`engine.doudizhu.policies` names the levels.
"""
