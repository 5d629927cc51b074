"""Every JSON the command prints parses as strict JSON (issue 36 item 20: ``agreement`` printed NaN)."""

from __future__ import annotations

import json
import math

from cli._common import emit


def _strict(text: str):
    def refuse(token: str):
        raise ValueError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


def test_a_figure_that_is_not_a_number_is_printed_as_null(capsys):
    emit({"icc": math.nan, "ci": (math.nan, 0.5), "rows": [{"rho": math.inf, "n": 4}], "note": "nan"})
    doc = _strict(capsys.readouterr().out)
    assert doc == {"icc": None, "ci": [None, 0.5], "rows": [{"rho": None, "n": 4}], "note": "nan"}


def test_agreement_prints_strict_json_when_a_statistic_is_undefined(home, capsys, tmp_path, monkeypatch):
    from cli import main
    from evaluator.agreement import report

    real = report.AgreementReport.as_cli

    def with_an_undefined_rho(self):  # what scipy's spearmanr returns for a constant baseline
        out = real(self)
        out["ALL"]["rouge_l_spearman"] = math.nan
        return out

    monkeypatch.setattr(report.AgreementReport, "as_cli", with_an_undefined_rho)
    rows = ["instance_id,rater,accuracy"] + [f"{i},{r},{(i + k) % 4 + 2}" for i in range(8)
                                              for k, r in enumerate("ab")]
    (tmp_path / "c.csv").write_text("\n".join(rows) + "\n")
    rows = ["instance_id,rater,accuracy"] + [f"{i},{r},{(i * k) % 4 + 2}" for i in range(8)
                                              for k, r in enumerate(("j1", "j2", "j3"))]
    (tmp_path / "j.csv").write_text("\n".join(rows) + "\n")
    code = main(["agreement", "--clinicians", str(tmp_path / "c.csv"), "--jury", str(tmp_path / "j.csv"),
                 "--n-boot", "100"])
    doc = _strict(capsys.readouterr().out)
    assert code == 0 and doc["ALL"]["rouge_l_spearman"] is None
