"""What a committee reads back: the ``Evidence`` record (a score with its n, interval and
provenance; ``record``) and typed access to the shipped, published MedHELM files it is built
from (``medhelm``: benchmark map, scores, costs).

Why apart from ``benchmarks``: a benchmark says what to ask, evidence says what came out and from
where. Published, imported (``importers``) and local (``runs``, ``scenarios``) evidence all land
in this one record. The face imports nothing.
"""
