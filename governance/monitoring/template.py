"""The feed template: every column of the feed format (``text`` too), invented example rows, as CSV text.

Why generated and not shipped as a file: the template is the importer's own column list
(``store_feed_import.KNOWN``) written as an example, so the two cannot drift apart; a test imports it.
The rows are invented teaching examples, not outputs of any model or patient.
"""

from __future__ import annotations

import csv
import io

from governance.monitoring.records import OUTPUT_COLUMNS

COLUMNS = [
    "id",
    "timestamp",
    "served_model",
    "prompt_version",
    "outcome",
    *OUTPUT_COLUMNS,
    "tag:department",
]
ROWS = [
    [
        "out-0001",
        "2026-03-02T09:14:05Z",
        "gpt-4o-2024-08-06",
        "v3",
        "accepted",
        "1840",
        "false",
        "612",
        "148",
        "0.0030",
        "rn-017",
        "42",
        "false",
        "",
        "4.5",
        "false",
        "",
        "Your refill request has been sent to the pharmacy; expect a call within two working days.",
        "primary care",
    ],
    [
        "out-0002",
        "2026-03-02T09:15:40+01:00",
        "gpt-4o-2024-08-06",
        "v3",
        "minor_edit",
        "2210",
        "false",
        "540",
        "171",
        "0.0031",
        "rn-017",
        "95",
        "true",
        "correct",
        "4.0",
        "false",
        "",
        "Please take the tablet with food and tell the clinic if the nausea continues.",
        "primary care",
    ],
    [
        "out-0003",
        "2026-03-02T10:02:11Z",
        "gpt-4o-2024-08-06",
        "v3",
        "material_correction",
        "1990",
        "false",
        "701",
        "133",
        "0.0031",
        "md-004",
        "180",
        "true",
        "material",
        "2.5",
        "true",
        "",
        "Increase the dose to 50 mg twice a day.",
        "primary care",
    ],
    [
        "out-0004",
        "2026-03-02T10:05:00Z",
        "gpt-4o-2024-08-06",
        "v3",
        "not_reviewed",
        "",
        "true",
        "655",
        "0",
        "0.0016",
        "",
        "",
        "false",
        "",
        "",
        "false",
        "",
        "",
        "primary care",
    ],
]


def feed_template() -> str:
    """The feed template as CSV text (header and four example rows).

    Example:
        >>> feed_template().splitlines()[0].split(",")[:5]
        ['id', 'timestamp', 'served_model', 'prompt_version', 'outcome']
    """
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    w.writerows(ROWS)
    return out.getvalue()
