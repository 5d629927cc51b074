"""A rate chart's y-axis ticks read differently from each other (issue 36 item 13: "0.1 %, 0.1 %, 0.1 %").

The ticks are read from the chart as Vega draws it (vl-convert's SVG, as the monthly PDF renders it), so the
test checks what a committee sees, not the format string alone.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest
import vl_convert as vlc

from reports.monitoring_charts import rate_chart


def y_ticks(spec: dict) -> list[str]:
    return re.findall(r">(-?[0-9.,]+%?)</text>", vlc.vegalite_to_svg(spec))


@pytest.mark.parametrize(("rates", "bar", "percent"), [
    ((0.0010, 0.0012, 0.0011), None, True),  # a small rate: the walk's "0.1%, 0.1%, 0.1%"
    ((0.0010, 0.0012, 0.0011), 0.002, True),
    ((0.00091, 0.00095, 0.00093), None, True),  # narrower still
    ((0.02, 0.06, 0.04), 0.05, True),  # an ordinary range keeps one decimal
    ((801.2, 803.9, 802.5), 805.0, False),  # p95 latency in ms
])
def test_no_two_y_ticks_read_the_same(rates, bar, percent):
    spread = 0.3 if percent else 0.0
    df = pd.DataFrame({"month": ["2026-06", "2026-07", "2026-08"], "n": [4000] * 3, "rate": list(rates),
                       "lower": [r * (1 - spread) for r in rates] if percent else [None] * 3,
                       "upper": [r * (1 + spread) for r in rates] if percent else [None] * 3})
    chart = rate_chart("rate-x", "Share", df, bar, percent=percent)
    ticks = [t for t in y_ticks(chart.spec) if not re.fullmatch(r"\d{4}", t)]  # not the month labels' years
    assert len(ticks) >= 3 and len(set(ticks)) == len(ticks), ticks
    if percent and min(rates) > 0.01:
        assert all(re.fullmatch(r"\d+\.\d%", t) for t in ticks), ticks  # one decimal, as the page's words
