"""Model prices in USD per 1M tokens, resolved once per model string.

Why three sources in this order: an endpoint's own override is what the hospital actually
pays (a negotiated Azure rate, zero for an on-prem server); ``data/prices.csv`` covers models
that litellm's bundled map has dropped or never had (retired Claude 3.5, Gemini 1.5, Groq's
Llama 3.3: STACK_NOTES §4a), each row with its source; litellm's bundled map (read offline,
never fetched) covers the rest. An unknown price is ``None``, never a silent zero.
"""

from __future__ import annotations

import csv
import functools
import importlib.util
import json
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
                f"data/prices.csv: {row['source']}",
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


@functools.cache
def litellm_price(model: str) -> Price | None:
    """The price in litellm's bundled map for ``model`` (also tried without its provider prefix).

    Example:
        >>> litellm_price("gpt-4o").input_per_mtok > 0
        True
    """
    cost_map = _bundled_cost_map()
    candidates = [model]
    if "/" in model:
        candidates.append(model.split("/", 1)[1])
    for name in candidates:
        entry = cost_map.get(name)
        if isinstance(entry, dict) and entry.get("input_cost_per_token") is not None:
            return Price(
                float(entry["input_cost_per_token"]) * 1e6,
                float(entry.get("output_cost_per_token") or 0.0) * 1e6,
                f"litellm bundled cost map ({name})",
            )
    return None


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
