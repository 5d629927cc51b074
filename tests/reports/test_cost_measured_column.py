"""The report's cost table: the measured column beside the list-price one, with its source as a reference."""

from __future__ import annotations

import pytest

from governance.procurement.measured_cost import measure
from reports.build import build_report
from tests.reports.conftest import GPT4O

ROWS = [{"prompt_tokens": p, "completion_tokens": c, "cost_usd": usd, "cached": False, "error": None}
        for p, c, usd in ((1000, 200, 0.0045), (2000, 100, 0.0060), (600, 300, 0.0045))]  # USD 0.005 each


@pytest.fixture(scope="module")
def cost(governed_version):
    return build_report(governed_version, measured={GPT4O: measure(GPT4O, {"run-1": ROWS})}).cost


def test_measured_cost_column_and_its_source(cost):
    table, sources = cost.tables[0], cost.tables[1]
    i = table.columns.index("USD per 1,000 measured in our runs")
    assert table.columns[i - 1] == "USD per 1,000 requests"
    cells = {r[0]: r[i] for r in table.rows}
    ref = cells[GPT4O].split("[")[1].rstrip("]")
    assert cells[GPT4O] == f"USD 5.00 [{ref}]"
    assert [r[1] for r in sources.rows if r[0] == ref] == ["measured on 3 instances of run run-1"]
    assert all(v == "—" for m, v in cells.items() if m != GPT4O)


def test_without_measured_costs_the_column_is_empty(governed_version):
    table = build_report(governed_version).cost.tables[0]
    i = table.columns.index("USD per 1,000 measured in our runs")
    assert {r[i] for r in table.rows} == {"—"}
