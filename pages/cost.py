"""Cost: cost per 1,000 requests, monthly cost and cost per acceptable output, against score."""

import hashlib

import streamlit as st
from pydantic import ValidationError

from evaluator import benchmark_tokens
from governance import mapped_benchmarks
from governance.procurement import (
    CostSettings,
    TokenProfile,
    cost_report,
    measured_costs,
    medhelm_token_profile,
    run_token_profile,
)
from pages import policy_tables, tables, ui
from reports import cost_score_chart

COST_MONEY = ["USD / 1M in", "USD / 1M out", "USD / 1,000 requests", "USD / month", "USD / 1,000 acceptable",
              "USD / 1,000 measured"]
PUBLISHED_MONEY = ["total_usd_37_benchmarks", "benchmark_usd", "usd_per_instance"]
PUBLISHED_LABELS = {"model": "Model", "total_usd_37_benchmarks": "MedHELM total, all 37 benchmarks",
                    "benchmark": "Benchmark", "benchmark_usd": "MedHELM total on this benchmark",
                    "benchmark_instances": "Instances in this benchmark", "usd_per_instance": "Per instance",
                    "basis": "Basis"}


def with_measured(report):
    """The cost table with the measured cost per 1,000 requests beside the list-price one, and its source."""
    frame = policy_tables.cost_frame(report)
    at = frame.columns.get_loc("USD / month") + 1  # the money first: on screen at 1400 px
    measured = [None if r.measured_per_1k is None else round(r.measured_per_1k, 4) for r in report.rows]
    sources = [r.measured_source or "not measured" for r in report.rows]
    frame.insert(at, "USD / 1,000 measured", measured + [None] * len(report.pending))
    frame["measured on"] = sources + ["not measured"] * len(report.pending)
    return frame


st.title("Cost")
version = ui.require_dossier()
dossier = version.dossier
settings = dossier.cost or CostSettings()
benches = sorted({e.benchmark for e in dossier.evidence})
stored = settings.score_benchmark
choice = st.selectbox("Score shown (benchmark)", ["(automatic)", *benches], key=f"cost_bench_{dossier.id}",
                      index=0 if stored not in benches else benches.index(stored) + 1,
                      help="A view choice: the stored default does not change.")
report = cost_report(dossier, score_benchmark=None if choice == "(automatic)" else choice,
                     measured=measured_costs(ui.store(), dossier))

st.caption(f"Expected volume: **{report.monthly_volume:,} requests a month** (from the intended use). "
           "Cost per request = mean prompt tokens × input price + mean completion tokens × output price. "
           "Cost per acceptable output divides by the pass rate, only where the score is a share of "
           "correct outputs.")
if not report.rows and not report.pending:
    st.info("No token profile yet: add one per candidate below (from a local run's measured tokens, or "
            "MedHELM's average over the benchmarks mapped to this intended use).")
else:
    tables.show(with_measured(report), money=COST_MONEY)
    st.caption("Measured: what the candidate's requests were charged in this dossier's own runs (USD charged "
               "÷ instances sent; answers from the response cache were free and are left out), beside the "
               "list-price figure.")
    if any(r.cost_per_1k is not None and r.score is not None for r in report.rows):
        st.altair_chart(cost_score_chart(report), width="stretch")
        st.caption("Green: on the Pareto frontier (no other candidate is both cheaper and at least as good). "
                   "Dashed: the frontier.")

st.subheader("Tokens per request for this workload")
st.caption("Token means measured in MedHELM's benchmarks are MedHELM's, not your workload. If you know "
           "(or can estimate) how many tokens a request of this intended use sends and receives, enter it "
           "here: it replaces every candidate's token means in the table and the cost rule. 0 = no override.")
w1, w2 = st.columns(2)
work_prompt = w1.number_input("Prompt tokens per request (0 = none)", 0.0, 1e7,
                              float(settings.workload_prompt_tokens or 0.0),
                              key=f"cost_work_prompt_{dossier.id}")
work_completion = w2.number_input("Completion tokens per request (0 = none)", 0.0, 1e7,
                                  float(settings.workload_completion_tokens or 0.0),
                                  key=f"cost_work_completion_{dossier.id}")
if st.button("Save workload tokens", key="cost_work_save"):
    current = ui.current().dossier
    old = current.cost or CostSettings()
    new = old.model_copy(update={"workload_prompt_tokens": work_prompt or None,
                                 "workload_completion_tokens": work_completion or None})
    if new == old:
        st.toast("Nothing changed; no new version.")
    else:
        ui.save(current.model_copy(update={"cost": new}), note="cost: tokens per request for this workload")
        st.rerun()

st.subheader("Cost of the evaluation itself")
c1, c2 = st.columns(2)
spent = report.evaluation_cost_measured
# Cents hide a small run's cost ("USD 0.00" for $0.0054): below a dollar, four decimals.
shown = f"USD {spent:,.2f}" if spent >= 1 or spent == 0 else f"USD {spent:.4f}"
c1.metric("Measured (this dossier's own runs)", shown)
c2.metric("MedHELM's estimate for the published evidence", f"USD {report.evaluation_cost_published:,.2f}",
          help="Budget-based upper bound at 2025 list prices, jury included: not an invoice.")
if report.evaluation_items:
    tables.show([i.model_dump() for i in report.evaluation_items], money=["usd"],
                labels={"label": "What was run", "usd": "Cost", "kind": "Basis", "source": "Source"})

if report.published:
    st.subheader("MedHELM's published cost estimates")
    st.caption("Shown as published: **budget-based upper bounds** (output tokens counted at the max-tokens "
               "budget, jury priced as the sum of three judges, 2025 list prices). Not comparable with the "
               "table above and not an invoice.")
    tables.show(report.published, money=PUBLISHED_MONEY, labels=PUBLISHED_LABELS)

st.subheader("Token profile of a candidate")
models = sorted({e.model for e in dossier.evidence} | {p.model for p in settings.profiles}
                | {p.model for p in report.pending})
if not models:
    st.caption("Attach evidence first: candidates are named as in the evidence.")
    st.stop()
model = st.selectbox("Candidate", models, key="cost_model")
existing = next((p for p in settings.profiles if p.model == model), None)
# Measured in this dossier's runs: the starting values when no profile is saved (never invented ones).
# A run bound to a candidate is named after it; the price list knows its endpoint's model string.
endpoint = next((e.endpoint_model for e in dossier.evidence if e.model == model and e.endpoint_model), None)
own = run_token_profile(ui.store(), dossier, model, existing.price_model if existing else endpoint or model)
start = existing or own
published_names = set(benchmark_tokens()["model"])
# The keys follow the stored profile: after a save the form shows what was saved, not what it showed
# before (a kept 1,000 / 300 once overwrote a run's measured 220 / 6 at the next save).
stamp = hashlib.sha256((existing.model_dump_json() if existing else "none").encode()).hexdigest()[:8]
k = f"cost_{model}_{stamp}_"
price_model = st.text_input("Priced as (litellm model string)",
                            value=existing.price_model if existing else "",
                            key=k + "price_model",
                            help="e.g. gpt-4o, azure/<deployment>, openai/<on-prem name>")
c1, c2 = st.columns(2)
prompt = c1.number_input("Mean prompt tokens per request", 0.0, 1e7,
                         float(start.mean_prompt_tokens) if start else None, key=k + "prompt",
                         placeholder="required")
completion = c2.number_input("Mean completion tokens per request", 0.0, 1e7,
                             float(start.mean_completion_tokens) if start else None,
                             key=k + "completion", placeholder="required")
if existing is None and own is not None:
    st.caption(f"Token means measured in {ui.plain(own.source)}; type others to replace them.")
c1, c2 = st.columns(2)
price_in = c1.number_input("Override: USD per 1M prompt tokens (0 = none)", 0.0, 1e4,
                           float(existing.input_price_per_mtok or 0.0) if existing else 0.0, key=k + "in")
price_out = c2.number_input("Override: USD per 1M completion tokens (0 = none)", 0.0, 1e4,
                            float(existing.output_price_per_mtok or 0.0) if existing else 0.0, key=k + "out")
source = st.text_input("Where the token means come from", value=start.source if start else "",
                       key=k + "source", help="A local run id, a pilot, or a vendor's figures.")


def save_profile(profile: TokenProfile, note: str) -> None:
    current = ui.current().dossier
    old = current.cost or CostSettings()
    profiles = [p for p in old.profiles if p.model != profile.model] + [profile]
    new = old.model_copy(update={"profiles": profiles})
    if new == old:
        st.toast("Nothing changed; no new version.")
        return
    ui.save(current.model_copy(update={"cost": new}), note=note)
    st.rerun()


missing = [label for label, ok in (
    ("**Priced as** (the model string the price list knows, e.g. gpt-4o)", bool(price_model.strip())),
    ("**Mean prompt tokens per request**", prompt is not None),
    ("**Mean completion tokens per request**", completion is not None),
    ("**Where the token means come from** (at least 3 characters)", len(source.strip()) >= 3),
) if not ok]
if missing:
    st.caption("To save a token profile, fill in: " + "; ".join(missing) + ".")
b1, b2 = st.columns(2)
if b1.button("Save token profile", key="cost_save", disabled=bool(missing)):
    overrides = price_in > 0 or price_out > 0
    # the measured provenance stays when the measured means are saved unchanged
    measured_kept = own is not None and (prompt, completion) == (own.mean_prompt_tokens,
                                                                   own.mean_completion_tokens)
    try:
        profile = TokenProfile(model=model, price_model=price_model.strip(), mean_prompt_tokens=prompt,
                               mean_completion_tokens=completion, source=source.strip(),
                               n_requests=own.n_requests if measured_kept else None,
                               evidence_ids=own.evidence_ids if measured_kept else (),
                               input_price_per_mtok=price_in if overrides else None,
                               output_price_per_mtok=price_out if overrides else None)
    except ValidationError as exc:
        st.error("; ".join(e["msg"] for e in exc.errors()))
    else:
        save_profile(profile, f"cost: token profile for {model}")
own_priced = run_token_profile(ui.store(), dossier, model, price_model.strip() or endpoint or model)
if own_priced is not None and st.button("Use this dossier's runs", key="cost_runs",
                                        help=f"Mean tokens per request measured in {own_priced.source}."):
    save_profile(own_priced, f"cost: token means from this dossier's runs for {model}")
mapped = [b.name for b in mapped_benchmarks(dossier)]
medhelm_help = ("Not your workload: what MedHELM sent on the benchmarks mapped to this intended use. "
                "Completion tokens are its max-tokens budget.")
if model in published_names:
    why_not = [w for w, bad in (("fill in **Priced as**", not price_model.strip()),
                                ("accept a subcategory with benchmarks on Task mapping", not mapped)) if bad]
    if b2.button("Use MedHELM's average over the mapped benchmarks", key="cost_medhelm", help=medhelm_help,
                 disabled=bool(why_not)):
        save_profile(medhelm_token_profile(model, price_model.strip(), benchmarks=mapped),
                     f"cost: MedHELM token means over the mapped benchmarks for {model}")
    if why_not:
        b2.caption("For MedHELM's average: " + " and ".join(why_not) + ".")
