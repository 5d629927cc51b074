"""pages/tables.py: labels and formatting of display tables, checked value by value."""

from __future__ import annotations

import datetime as dt

from pages import tables


def test_labels_turn_keys_into_words_and_keep_words():
    assert tables.label("usd_per_month") == "USD per month"
    assert tables.label("risk_tier") == "Risk tier"
    assert tables.label("total_usd_37_benchmarks") == "Total USD (37 benchmarks)"
    assert tables.label("95% interval") == "95% interval"  # already words


def test_cells_read_as_words_and_numbers():
    when = dt.datetime(2026, 12, 1, 5, 4, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    assert tables.cell(when) == "2026-12-01 04:04 UTC"
    assert tables.cell("2026-12-01T04:04:59+00:00") == "2026-12-01T04:04:59+00:00"  # free text untouched
    assert tables.when("2026-12-01T04:04:59+00:00") == "2026-12-01 04:04 UTC"
    assert (tables.cell(None), tables.cell(float("nan")), tables.cell(True)) == ("—", "—", "yes")
    assert tables.cell(2.784, money=True) == "USD 2.78"
    assert tables.cell(1234.5, money=True) == "USD 1,234.50"
    assert tables.cell(0.81249) == 0.812 and tables.text(0.5) == "0.500"
    assert tables.cell({"B", "A"}) == "A, B" and tables.cell([]) == "—"
    assert tables.cell("at_most") == "at most"
    assert tables.cell("model_version_change") == "model version change"


def test_tie_groups_are_numbered_best_first():
    assert tables.tie_groups([["A", "B"], ["C"]]) == "1. A, B · 2. C"
    assert tables.tie_groups(None, "no interval") == "not grouped: no interval"


def test_readable_keeps_full_number_columns_numeric_and_writes_gaps_as_a_dash():
    frame, config = tables.readable([
        {"usd_per_1k": 2.5, "n": 10, "pass_rate": 0.9, "tie_group": 1, "note": None},
        {"usd_per_1k": 3.0, "n": None, "pass_rate": None, "tie_group": 2, "note": "x"},
    ], money=["usd_per_1k"])
    assert list(frame.columns) == ["USD per 1,000 requests", "n", "Pass rate", "Tie group", "note"]
    assert list(frame["USD per 1,000 requests"]) == [2.5, 3.0]
    assert config["USD per 1,000 requests"]["type_config"]["format"] == "USD %.2f"
    assert list(frame["n"]) == ["10", "—"]  # a count with a gap stays a count
    assert list(frame["Pass rate"]) == ["0.900", "—"]
    assert list(frame["Tie group"]) == [1, 2] and list(frame["note"]) == ["—", "x"]
