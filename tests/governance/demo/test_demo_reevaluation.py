"""The demo dossier's re-evaluation addendum: a simulated vendor update, compared offline (DEMO DATA).

Known answers: the decided demo run gets 34 of 40 cases right (every other Spanish-language case
wrong, 6 of 12); the simulated update gets those six right and three English-language cases wrong,
so 37 of 40. Mean 0.85 → 0.925 (+3/40), nine discordant pairs split 3 worse / 6 better, and
McNemar's exact p is the two-sided binomial test of 3 in 9 at 1/2 (scipy).
"""

from __future__ import annotations

import pytest
from scipy.stats import binomtest

from governance.decision.signoff import signoff_status
from governance.demo.reevaluation import NEWLY_WRONG, UPDATE_ENDPOINT, UPDATED_MODEL
from governance.demo.seed import DEMO_ID, seed_demo
from governance.dossier.store import Store


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    store = Store.open(tmp_path_factory.mktemp("demo") / "medassure.duckdb")
    seed_demo(store)
    yield store, store.load(DEMO_ID)
    store.close()


def test_demo_has_one_addendum_with_known_numbers(demo):
    _, version = demo
    (addendum,) = version.dossier.reevaluations
    assert addendum.change.model == UPDATED_MODEL and addendum.new_requests == 0
    (c,) = addendum.comparisons
    assert c.kind == "scenario" and c.model_before == "GPT-4o (2024-05-13)" and c.model_after == UPDATED_MODEL
    assert c.n_pairs == 40 and c.worse == list(NEWLY_WRONG)
    assert c.better == ["es-02", "es-04", "es-06", "es-08", "es-10", "es-12"]
    assert (c.mean_before, c.mean_after, c.mean_delta) == pytest.approx((34 / 40, 37 / 40, 3 / 40))
    assert c.mcnemar_p == pytest.approx(binomtest(3, 9, 0.5).pvalue)
    lo, hi = c.delta_ci
    assert lo < 3 / 40 < hi
    language = {s.group: s for s in c.subgroups if s.tag == "language"}
    assert language["es"].mean_delta == pytest.approx(6 / 12)
    assert language["en"].mean_delta == pytest.approx(-3 / 24)
    assert language["vi"].suppressed and language["vi"].mean_delta is None


def test_demo_addendum_is_labelled_and_leaves_the_decision_standing(demo):
    store, version = demo
    (addendum,) = version.dossier.reevaluations
    assert any(text.startswith("DEMO DATA") and "no model was called" in text for text in addendum.caveats)
    assert addendum.impact.would_change and addendum.verdict_changes
    # the re-evaluation's version (later demo steps, such as the monitoring feed, append versions after it)
    assert any("re-evaluation" in h.note and "DEMO DATA" in h.note for h in store.history(version.dossier.id))
    status = signoff_status(version.dossier)
    assert [r.role for r in status.roles if r.valid] == ["clinical lead"] and not status.invalidated
    assert status.decision_current, "an addendum invalidates neither the decision nor its sign-off"
    runs = store.scenarios.runs(addendum.plan.items[0].scenario_id)
    assert sorted(r["endpoint_name"] for r in runs) == ["demo data (no model called)", UPDATE_ENDPOINT]


def test_seeding_twice_adds_nothing(demo):
    store, version = demo
    assert seed_demo(store) == DEMO_ID and store.load(DEMO_ID).version == version.version
