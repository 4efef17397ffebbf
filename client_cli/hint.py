"""``hint`` at the play prompt: the strongest AI's move for you, from your own view only.

The suggestion is computed in this process from the view the server sent
(the same information you have: your hand, the public cards, counts), by the
game's strongest policy with a fixed number of search iterations and a seed
taken from the view itself, so the same view always gets the same hint and
nothing hidden can change it.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from typing import Any

from client_cli.lang import Language, language

HINT_ITERATIONS = 200
"""Search iterations for a hint (a fixed budget: reproducible, well under a second)."""


def hint(
    game_id: str,
    view: Mapping[str, Any],
    lang: Language | None = None,
    peers: tuple[str | None, ...] = (),
) -> tuple[int, str]:
    """The index into ``view["legal"]`` the strongest policy picks, and why (in words of
    ``lang``, English by default).  ``peers``: who the table shows at each seat
    (client_cli.client.table_peers), as the server tells its own AI."""
    lang = lang or language()
    from engine.codec import from_plain, to_plain
    from engine.game import Budget
    from engine.registry import get_game, get_policy, policy_names

    game = get_game(game_id)
    level = policy_names(game_id)[-1]
    policy = get_policy(game_id, level, peers)
    digest = hashlib.sha256(json.dumps(view, sort_keys=True, default=str).encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    typed = from_plain(game.view_type, dict(view), "view")
    legal = list(typed.legal)
    choice = policy.choose(typed, legal, rng, Budget(iterations=HINT_ITERATIONS))
    plain = to_plain(choice)
    index = next(i for i, a in enumerate(view["legal"]) if a == plain)
    reason = lang.t("hint.pick", level=lang.level(level))
    if len(legal) == 1:
        reason = lang.t("hint.only_move")
    elif isinstance(plain, Mapping) and plain.get("capture"):
        reason += lang.t("hint.takes", n=len(plain["capture"]))
    return index, reason
