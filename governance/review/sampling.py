"""The sample of a queue, its double-rated share, who rates what, and each rater's own order.

Why seeded and shaped so: a queue must be reproducible (the same seed draws the same items, in the same
orders) and blinded: every rater gets the items in an order of their own, drawn from the queue's seed
and their name, so two raters never move through the queue together and a sentinel's place says
nothing. The sample is stratified by subgroup tags with proportional allocation (largest remainder),
so a small subgroup is neither lost nor over-represented; without tags it is a simple random sample.
The double-rated items are spread over pairs of raters in turn; the other items go round the raters;
every rater sees every sentinel.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence


def stratified_sample(
    tags: dict[str, dict[str, str]], n: int, strata: Sequence[str] = (), seed: int = 0
) -> list[str]:
    """``n`` instance ids drawn at random, proportionally from each stratum of the ``strata`` tags.

    A stratum is one combination of the tags' values (a missing tag counts as its own value).

    Example:
        >>> tags = {f"e{i}": {"lang": "en"} for i in range(6)} | {f"s{i}": {"lang": "es"} for i in range(3)}
        >>> picked = stratified_sample(tags, 3, ["lang"], seed=1)
        >>> sum(p.startswith("e") for p in picked), sum(p.startswith("s") for p in picked)
        (2, 1)
    """
    ids = sorted(tags)
    if n >= len(ids):
        return ids
    rng = random.Random(seed)
    if not strata:
        return sorted(rng.sample(ids, n))
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for i in ids:
        groups[tuple(tags[i].get(t, "") for t in strata)].append(i)
    keys = sorted(groups)
    quotas = {k: n * len(groups[k]) / len(ids) for k in keys}
    take = {k: math.floor(q) for k, q in quotas.items()}
    left = n - sum(take.values())
    for k in sorted(keys, key=lambda k: (-(quotas[k] - take[k]), k))[:left]:
        take[k] += 1
    picked: list[str] = []
    for k in keys:
        picked += rng.sample(groups[k], take[k])
    return sorted(picked)


def double_count(n: int, share: float, n_raters: int) -> int:
    """How many of ``n`` items two raters rate: ``round(n × share)``, none with a single rater.

    Example:
        >>> double_count(10, 0.2, 2), double_count(10, 0.2, 1), double_count(3, 0.5, 2)
        (2, 0, 2)
    """
    if n_raters < 2:
        return 0
    return min(n, math.floor(n * share + 0.5))


def assign(
    items: Sequence[str],
    double: Sequence[str],
    sentinels: Sequence[str],
    raters: Sequence[str],
    seed: int = 0,
) -> dict[str, list[str]]:
    """Which items each rater rates (before ordering).

    Double-rated items go to pairs of raters in turn (A-B, B-C, C-A, ...); the other items go round the
    raters, starting where the pairs stopped, so the load stays even; every rater gets every sentinel.

    Example:
        >>> got = assign(["a", "b", "c", "d"], ["a"], ["s"], ["x", "y"])
        >>> sorted(got["x"]), sorted(got["y"])
        (['a', 'c', 's'], ['a', 'b', 'd', 's'])
    """
    out: dict[str, list[str]] = {r: [] for r in raters}
    k = len(raters)
    turn = 0
    for item in double:
        out[raters[turn % k]].append(item)
        out[raters[(turn + 1) % k]].append(item)
        turn += 1
    load = {r: len(v) for r, v in out.items()}
    for item in (i for i in items if i not in set(double)):
        r = min(raters, key=lambda name: (load[name], (raters.index(name) - turn) % k))
        out[r].append(item)
        load[r] += 1
    for r in raters:
        out[r] += list(sentinels)
    return out


def rater_order(item_ids: Sequence[str], rater: str, seed: int) -> list[str]:
    """The rater's own order of their items, from the queue's seed and their name.

    Example:
        >>> rater_order(["a", "b", "c", "d"], "x", 7) == rater_order(["d", "c", "b", "a"], "x", 7)
        True
    """
    order = sorted(item_ids)
    random.Random(f"{seed}:{rater}").shuffle(order)
    return order


def item_ids(count: int, seed: int) -> list[str]:
    """``count`` distinct opaque item ids (``it-`` and 8 hex digits) from the seed.

    Example:
        >>> ids = item_ids(3, 1)
        >>> len(set(ids)), ids[0].startswith("it-")
        (3, True)
    """
    rng = random.Random(f"items:{seed}")
    out: list[str] = []
    while len(out) < count:
        candidate = f"it-{rng.getrandbits(32):08x}"
        if candidate not in out:
            out.append(candidate)
    return out
