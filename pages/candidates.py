"""Candidates: vendor products side by side (evidence, cost, attestations), and their records edited."""

import streamlit as st

from governance.decision import compare_candidates
from governance.dossier import benchmark_label
from governance.procurement import measured_costs
from pages import candidate_forms as forms
from pages import tables, ui
from reports import candidates_chart, comparison_csv, score_rows, summary_rows

MONEY = ["usd_per_1k", "usd_per_month", "usd_per_1k_acceptable", "usd_per_1k_list", "usd_per_1k_measured"]
SUMMARY_LABELS = {"candidate": "Candidate", "id": "Id", "model": "Model", "pricing": "Pricing",
                  "answered": "Questions answered", "satisfactory": "Answers satisfactory",
                  "questions": "Questions", "recommendation": "Recommendation",
                  "usd_per_1k_list": "USD per 1,000 at list price",
                  "usd_per_1k_measured": "USD per 1,000 measured", "measured_on": "Measured on"}
SCORE_LABELS = {"benchmark": "Benchmark", "kind": "Kind of score", "candidate": "Candidate",
                "score": "Score (0-1)", "verdict": "Verdict", "rules": "Rules"}

st.title("Candidates")
version = ui.require_dossier()
dossier = version.dossier
cmp = compare_candidates(dossier, measured=measured_costs(ui.store(), dossier))
products = {c.id: c.label for c in cmp.candidates}
"""Candidate id → its product label: the CSV keeps ids and benchmark keys, the page shows words (issue 36)."""

st.caption(
    "A **candidate** here is a vendor product: a model at a prompt version and an endpoint, with its "
    "price and the vendor's answers. The **Intended use** page lists the *models under consideration* by "
    "the names the evidence uses; each candidate below points to one of them. Models under consideration: "
    + (", ".join(dossier.intended_use.candidate_models) or "none listed yet")
    + "."
)
st.caption(
    f"Vendor products for this intended use, at its **{cmp.monthly_volume:,} requests a month**. "
    f"{cmp.methods['cost']} Attestations are the vendor's statements, not evidence of performance."
)
if not cmp.candidates:
    st.info("No vendor product recorded yet: add the products you are considering below, one per model "
            "under consideration you want to compare.")
else:
    st.subheader("Side by side")
    tables.show(summary_rows(cmp), labels=SUMMARY_LABELS, money=MONEY, key="cand_summary")
    st.caption(
        f"Click a column header to sort. Acceptable outputs: cost ÷ pass rate on "
        f"{benchmark_label(cmp.score_benchmark) or '—'}. {cmp.methods['cost_rule']} Beside the quote: the "
        "list price on the Cost page's tokens, and what the candidate's requests were charged in this "
        "dossier's own runs (USD charged ÷ instances sent; cache hits are free and left out)."
    )
    st.download_button(
        "Download the comparison (CSV)",
        comparison_csv(cmp).encode("utf-8-sig"),
        file_name=f"{dossier.id}-v{version.version}-candidates.csv",
        mime="text/csv",
        key="cand_csv",
        on_click="ignore",
    )

    st.subheader("Scores by benchmark")
    if any(c.score is not None for c in cmp.cells):
        st.altair_chart(candidates_chart(cmp), width="stretch")
        st.caption("Bars: 95% intervals (normalized 0-1). Hollow points have no interval.")
    tables.show([{**row, "benchmark": benchmark_label(row["benchmark"]),
                  "candidate": products.get(row["candidate"], row["candidate"])} for row in score_rows(cmp)],
                labels=SCORE_LABELS, key="cand_scores")
    st.caption(f"{cmp.methods['score']} {cmp.methods['verdict']}")
    st.markdown("**Tie groups** (" + cmp.methods["ties"] + ")")
    for b in cmp.benchmarks:
        groups = [[products.get(i, i) for i in g] for g in b.groups] if b.groups else b.groups
        st.markdown(f"- {ui.plain(benchmark_label(b.name))}: {ui.plain(tables.tie_groups(groups, b.note))}")
    if cmp.uncovered:
        st.caption("Mapped benchmarks with no evidence for any candidate: "
                   + ", ".join(benchmark_label(b) for b in cmp.uncovered))

    st.subheader("Open items and conditions")
    for c in cmp.candidates:
        label = f"{ui.plain(c.label)}: {len(c.open_items)} open item(s), {len(c.conditions)} condition(s)"
        with st.expander(label, expanded=False):
            st.markdown(
                f"**Model** {ui.plain(c.model)} · **prompt** {ui.plain(c.prompt_version or '—')} · "
                f"**endpoint** {ui.plain(c.endpoint or '—')}  \n**Cost** {ui.plain(c.cost_basis)}"
            )
            for t in c.open_items:
                st.markdown(f"- Open item: {ui.plain(t)}")
            for t in c.conditions:
                st.markdown(f"- Condition: {ui.plain(t)}")
            if not c.open_items and not c.conditions:
                st.markdown("No open items or conditions from due diligence.")
    st.caption(
        cmp.methods["attestations"] + " They also appear among the recommendation's conditions on "
        "the Decision page."
    )

st.subheader("Edit candidates")
forms.candidate_editor(dossier)
if dossier.candidates:
    st.subheader("Vendor attestations")
    forms.attestation_editor(dossier)
