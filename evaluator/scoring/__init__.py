"""Scoring one reply: read the answer out of a model's text (``answers``), the metrics registry
(``metrics``), and per-instance scores with their aggregate, n and interval (``responses``).

Why one room: these three are the path from a raw reply to a number, and the rule that an
unreadable answer is wrong *and* counted as unparsed runs through all of them. The package face
imports nothing, so reading one module does not load the metrics' libraries.
"""
