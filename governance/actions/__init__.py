"""The front desk: every operation that takes a store, starts a job or builds a view for a page.

Why one room: the stages of the path (``mapping``, ``evidence``, ``procurement``, ``rules``,
``decision``, ``reevaluation``) are pure functions of a dossier and its records, testable without a
database. What touches the store (saving a version as someone, attaching evidence from a run,
starting runs, juries and re-evaluations, freezing the evidence plan, imports, attestations, the
views a page renders from stored state) lives here, one module per operation, so a newcomer places a
change by one question: does it touch the store or start a job?

Modules:

* ``save``: save a dossier as an identity, after the authorization check (``identity.access``);
* ``decision``: record the committee's decision with the evidence plan frozen from the store;
* ``runs``: build, estimate, start, resume, cancel and follow a benchmark or scenario run;
* ``run_view``, ``run_attach``: what a finished run shows, and attaching it as evidence;
* ``juries``: plan, start and attach an LLM-jury pass over a finished free-text run;
* ``judge_validity``: clinicians' ratings against stored jury scores, and the minimum agreement rule;
* ``review``, ``review_sheets``, ``review_status``: blinded review queues (create, rate, skip, close),
  offline sheets and their import, the export for ``agreement``, the status, and the hand-off of a
  closed queue's ratings to Judge validity;
* ``scenarios``: local scenarios imported, redacted, gated and run for a dossier;
* ``deidentification``: de-identification attestations recorded for files and scenario versions;
* ``helm_import``, ``inspect_import``: previews and attachment of HELM run folders and Inspect logs;
* ``evidence_plan``, ``rerun``, ``reevaluate``, ``reevaluation``: the frozen plan, re-running it after a
  model or prompt change, the comparison and addendum, and the job that does it;
* ``costs``: measured cost and token profiles read from the dossier's own runs;
* ``decision_view``, ``history``: what the Decision and History pages render from the store.
"""
