"""Running a model over cases: the plan and its cost estimate, the runner (bounded, retried,
cached, resumable), worker processes, per-instance records written as they finish, the run
store, run summaries, progress bars, and the background job manager every page and command
uses to start, watch, cancel and resume a run.
"""
