"""Candidates: vendor products side by side (evidence, cost, attestations), and their records edited."""

import pandas as pd
import streamlit as st

from governance.procurement.comparison import compare_candidates
from pages import candidate_forms as forms
from pages import ui
from reports.candidates_chart import candidates_chart
from reports.candidates_table import comparison_csv, score_rows, summary_rows, tie_text

USD = st.column_config.NumberColumn(format="%.2f")
SCORE = st.column_config.NumberColumn(format="%.3f")

st.title("Candidates")
version = ui.require_dossier()
dossier = version.dossier
cmp = compare_candidates(dossier)

st.caption(
    f"Vendor products for this intended use, at its **{cmp.monthly_volume:,} requests a month**. "
    f"{cmp.methods['cost']} Attestations are the vendor's statements, not evidence of performance."
)
if not cmp.candidates:
    st.info("No candidates yet: add the products you are considering below.")
else:
    st.subheader("Side by side")
    st.dataframe(
        pd.DataFrame(summary_rows(cmp)),
        hide_index=True,
        width="stretch",
        key="cand_summary",
        column_config={
            "usd_per_1k": USD,
            "usd_per_month": USD,
            "usd_per_1k_acceptable": USD,
            "pass_rate": SCORE,
        },
    )
    st.caption(
        f"Click a column header to sort. Acceptable outputs: cost ÷ pass rate on "
        f"{cmp.score_benchmark or '—'}. {cmp.methods['cost_rule']}"
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
    st.dataframe(
        pd.DataFrame(score_rows(cmp)),
        hide_index=True,
        width="stretch",
        key="cand_scores",
        column_config={"score": SCORE, "lower": SCORE, "upper": SCORE},
    )
    st.caption(f"{cmp.methods['score']} {cmp.methods['verdict']}")
    st.markdown("**Tie groups** (" + cmp.methods["ties"] + ")")
    for b in cmp.benchmarks:
        st.markdown(f"- {b.name}: {tie_text(b.groups, b.note)}")
    if cmp.uncovered:
        st.caption("Mapped benchmarks with no evidence for any candidate: " + ", ".join(cmp.uncovered))

    st.subheader("Open items and conditions")
    for c in cmp.candidates:
        label = f"{c.label}: {len(c.open_items)} open item(s), {len(c.conditions)} condition(s)"
        with st.expander(label, expanded=False):
            st.markdown(
                f"**Model** {c.model} · **prompt** {c.prompt_version or '—'} · **endpoint** "
                f"{c.endpoint or '—'}  \n**Cost** {c.cost_basis}"
            )
            for t in c.open_items:
                st.markdown(f"- Open item: {t}")
            for t in c.conditions:
                st.markdown(f"- Condition: {t}")
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
