"""Model prices in USD per 1M tokens, resolved once per model string.

Why three sources in this order: an endpoint's own override is what the hospital actually
pays (a negotiated Azure rate, zero for an on-prem server); ``data/prices.csv`` covers models
that litellm's bundled map has dropped or never had (retired Claude 3.5, Gemini 1.5, Groq's
Llama 3.3: STACK_NOTES §4a), each row with its source; litellm's bundled map (read offline,
never fetched) covers the rest. An unknown price is ``None``, never a silent zero.

Why snapshots: a model name such as ``GPT-4o (2024-05-13)`` names the exact snapshot that was
tested, and an undated alias (``gpt-4o``) may cost something else today (USD 2.50/10 per 1M tokens
against 5/15 for ``gpt-4o-2024-05-13``). ``snapshot_price`` prices the dated entry when a source
has one, and otherwise says that the undated price is an assumption and which entry it came from.
"""

from __future__ import annotations

import csv
import functools
import importlib.util
import json
import re
from pathlib import Path
from typing import NamedTuple

from evaluator.paths import DATA_DIR

PRICES_CSV = DATA_DIR / "prices.csv"


class Price(NamedTuple):
    """USD per 1M input and output tokens, and where the figure comes from."""

    input_per_mtok: float
    output_per_mtok: float
    source: str

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """USD for a call with these token counts.

        Example:
            >>> Price(2.5, 10.0, "x").cost(1000, 500)
            0.0075
        """
        return (prompt_tokens * self.input_per_mtok + completion_tokens * self.output_per_mtok) / 1e6


@functools.cache
def table_prices(path: Path = PRICES_CSV) -> dict[str, Price]:
    """Our shipped price table, keyed by litellm model string."""
    with path.open(encoding="utf-8") as fh:
        return {
            row["model"].strip(): Price(
                float(row["input_usd_per_mtok"]),
                float(row["output_usd_per_mtok"]),
                f"MedAssure's price list: {row['source']}",
            )
            for row in csv.DictReader(fh)
        }


@functools.cache
def _bundled_cost_map() -> dict:
    """litellm's bundled price map, read as the JSON file it ships, without importing litellm.

    Importing litellm costs 2.5 s on a quiet machine and 30-50 s on a loaded one; a price lookup
    (cost page, report, dry-run estimate) needs only this file, which is the same map litellm loads
    with ``LITELLM_LOCAL_MODEL_COST_MAP=True``. Nothing is fetched.
    """
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(next(iter(spec.submodule_search_locations))) / "model_prices_and_context_window_backup.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _map_price(model: str, suffix: str, label: str) -> Price | None:
    """``input_cost_per_token{suffix}`` and its output twin from litellm's map, for ``model`` or the model
    without its provider prefix; None when the map has no such entry."""
    cost_map = _bundled_cost_map()
    for name in [model, *([model.split("/", 1)[1]] if "/" in model else [])]:
        entry = cost_map.get(name)
        if isinstance(entry, dict) and entry.get(f"input_cost_per_token{suffix}") is not None:
            return Price(
                float(entry[f"input_cost_per_token{suffix}"]) * 1e6,
                float(entry.get(f"output_cost_per_token{suffix}") or 0.0) * 1e6,
                f"{label} ({name})",
            )
    return None


@functools.cache
def litellm_price(model: str) -> Price | None:
    """The price in litellm's bundled map for ``model`` (also tried without its provider prefix).

    Example:
        >>> litellm_price("gpt-4o").input_per_mtok > 0
        True
    """
    return _map_price(model, "", "litellm bundled cost map")


@functools.cache
def batch_price_of(model: str) -> Price | None:
    """The Batch API rate in litellm's bundled map (``*_cost_per_token_batches``); None when not published.

    Example:
        >>> round(batch_price_of("gpt-4o").input_per_mtok, 3), batch_price_of("no-such-model")
        (1.25, None)
    """
    return _map_price(model, "_batches", "litellm bundled cost map, batch rate")


def resolve_price(
    model: str, input_override: float | None = None, output_override: float | None = None
) -> Price | None:
    """Override, else our table, else litellm's map; None when no source knows the model.

    Example:
        >>> resolve_price("openai/local-llm", 0.0, 0.0).cost(1000, 1000)
        0.0
        >>> resolve_price("gemini/gemini-1.5-pro").input_per_mtok
        1.25
    """
    if input_override is not None or output_override is not None:
        return Price(input_override or 0.0, output_override or 0.0, "endpoint override")
    return table_prices().get(model) or litellm_price(model)


_DATE = re.compile(r"(20\d\d)-?([01]\d)-?([0-3]\d)")


def snapshot_date(model: str) -> str | None:
    """The snapshot date a model name carries, as YYYY-MM-DD (None when it names no date).

    Example:
        >>> snapshot_date("GPT-4o (2024-05-13)"), snapshot_date("claude-3-7-sonnet-20250219")
        ('2024-05-13', '2025-02-19')
        >>> snapshot_date("Llama 3.3 Instruct (70B)") is None
        True
    """
    m = _DATE.search(model)
    return f"{m.group(1)}-{m.group(2)}-{m.group(3)}" if m else None


def snapshot_price(
    price_model: str, tested_model: str, input_override: float | None = None,
    output_override: float | None = None,
) -> Price | None:
    """The price of the snapshot that was tested: its dated entry, else the undated one labelled assumed.

    Args:
        price_model: litellm model string the committee priced the candidate as, e.g. ``gpt-4o``.
        tested_model: the model as named in the evidence, e.g. ``GPT-4o (2024-05-13)``.
        input_override: USD per 1M prompt tokens actually paid (wins over every source).
        output_override: USD per 1M completion tokens actually paid.

    Example:
        >>> snapshot_price("gpt-4o", "GPT-4o (2024-05-13)")[:2]
        (5.0, 15.0)
        >>> "assumed" in snapshot_price("gpt-4o", "GPT-4o (2099-01-01)").source
        True
    """
    if input_override is not None or output_override is not None:
        return resolve_price(price_model, input_override, output_override)
    date = snapshot_date(tested_model)
    if date is None or snapshot_date(price_model) is not None:
        return resolve_price(price_model)
    compact = date.replace("-", "")
    for name in (f"{price_model}-{date}", f"{price_model}-{compact}"):
        price = resolve_price(name)
        if price is not None:
            return price._replace(source=f"{price.source}, the tested snapshot {date}")
    price = resolve_price(price_model)
    if price is None:
        return None
    return price._replace(source=(f"{price.source}; assumed: no price is known for the tested snapshot "
                                  f"{date}, so the undated entry {price_model!r} is used"))
