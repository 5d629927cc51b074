"""The decision: the committee's own decision beside the computed recommendation, sign-offs
bound to a version hash, the human-review and monitoring plan, the committee's actions on a
dossier, and what the Decision page shows.

Arrow Assessment -> Decision of the path.
"""
