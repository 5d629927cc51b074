"""The demo dossier seeded by ``medassure demo`` and ``make run``: one step per stretch of the
path (evidence, a local scenario, judge validity, candidates, rules to sign-off), every
synthetic value labelled DEMO DATA so nothing real is ever claimed.
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "seed_demo": "governance.demo.seed",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "seed_demo",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
