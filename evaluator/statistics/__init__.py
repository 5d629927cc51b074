"""Statistics over scores: intervals fitted to the kind of score, HELM's win rate, normalized means
and tie groups (``estimates``), paired before/after comparison (``paired``), and per-subgroup
ratios with their intervals (``subgroups``), and the monitoring charts: Bernoulli and standardized
CUSUMs with their run lengths, limits and the monthly audit sample size (``cusum``).

Why one room: all three are pure functions (numbers or DataFrames in and out) whose methods a
committee must be able to check, and the paired and subgroup code build on the same intervals.
Nothing here touches a store or a model. The face imports nothing (``evaluator.statistics`` is
not the standard library's ``statistics``; absolute imports keep the two apart).
"""
