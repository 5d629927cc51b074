"""The LLM jury: judge models score a run's free-text responses on a rubric (rubrics as data),
one judge's passes, the fenced judge prompt and strict parser, scores with unscored counts, and
the jury's tables in the store.
"""
