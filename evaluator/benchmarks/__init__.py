"""What a model is asked: benchmark specs read from ``data/benchmarks/*.yaml`` into one registry
(``specs``) and the unit every loader produces and every scorer reads (``instance``).

Why its own room: the spec and the instance are the two shapes every other room agrees on
(loaders make instances, runs and scoring consume specs and instances), so they sit apart from
the code that fills or reads them. The face imports nothing.
"""
