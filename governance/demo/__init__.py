"""The demo dossier seeded by ``medassure demo`` and ``make run``: one step per stretch of the
path (evidence, a local scenario, judge validity, candidates, rules to sign-off), every
synthetic value labelled DEMO DATA so nothing real is ever claimed.
"""
