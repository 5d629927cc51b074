"""Running a model over cases, and the one vocabulary for a run's life.

A run is one model × one benchmark (× one prompt version). It goes through six steps, each with one
type, owned by one module here; every page, command, re-evaluation and report uses these names::

    request ──► plan ──► job ──► results ──► summary ──► evidence

* **request** (``RunRequest``, ``request.py``): what to run: the benchmark, its dataset, one
  endpoint (``evaluator.gateway.llm.ModelEndpoint``) and the limits; stored beside the run so it
  can be started again after a restart (the key variable's name, never its value).
* **plan** (``RunPlan``, ``plan.py``): the rendered requests, their cache keys, the hashes of spec,
  prompts and instances, and the run key that makes an interrupted run resume. Its dry-run cost
  is a ``RunEstimate`` (upper bound, resume and cache counted), shown before anything is sent.
* **job** (``Job`` in ``jobs.py``, ``JobProgress`` in ``job_progress.py``): the background thread
  that works the plan, found again by its key; its status lives in the store, so a rerun, another
  tab or another app process sees it. The PHI gate (``phi_gate.py``) runs before a job sends.
* **results** (``RunRecord`` and ``ResultRecord`` in ``reads.py``, written by ``writer.py``, kept by
  ``RunStore`` in ``store.py``): every finished instance is stored as it completes (answer, score,
  tokens, cost, served model), so nothing is lost and a resumed run sends only what is missing.
  ``runner.py`` does the sending (bounded, retried, cached, ``RunOptions``); ``workers.py`` the
  worker processes that hold a run's ``RunLease`` so two processes never work one run.
* **summary** (``RunSummary``, ``summary.py``): the per-metric means with their intervals, n and
  the unparsed / unscored / error counts of a stored run.
* **evidence** (``evaluator.evidence.record.Evidence``): ``RunSummary.to_evidence`` turns a summary
  into the records a dossier attaches (provenance ``local-run``, with the run id).

Types elsewhere that carry "run" in their name are views of one of these steps for one reader,
never a second life of a run: the Run evidence page's estimate (``governance.runs.operations.jobs``: the
estimate with the request's key problem and the PHI check), the page's ``RunView`` of a stored run
and ``AttachedRun`` (what attaching it did), a re-evaluation's ``AfterRun`` (a plan item run
again), the report appendix's ``AppendixRun`` (the hashes a reader checks), and the peers' own run
formats read by the importers (HELM's ``HelmRun`` and ``RunSpec``, Inspect's ``InspectRun``).
"""
