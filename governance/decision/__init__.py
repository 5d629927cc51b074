"""The decision: the committee's own decision beside the computed recommendation, sign-offs bound to
a version hash, the readiness checklist, the human-review and monitoring plan, and the side-by-side
comparison of candidates the committee decides between.

Arrow Assessment -> Decision of the path. What the Decision page renders from the store, and
recording a decision with its frozen evidence plan, take the store: they are this package's
``operations`` (``decide``, ``standing``, ``view``).
"""
