"""Monitoring after go-live, the pure side: the approved model watched in production against the
committee's own bars, and the ladder (in control < review < pause < suspend) that can reopen the decision.

Arrow Decision -> Monitoring -> re-evaluation of the path. Every function here is a function of a
dossier and the feed's aggregates (``models.FeedAggregates``, summed in SQL by the store): the approved
identity and its check (``identity``), monthly rates against the plan's bars (``rates``), CUSUM drift
(``drift``), whether human review works (``review``), subgroups and use outside the envelope
(``subgroups``), the plan with its defaults by tier (``plan``), and the ladder that turns findings into
signals with owners and deadlines (``ladder``), composed in ``status``. Importing a feed, recording
events and acknowledging or resolving signals take the store, so they are in the operations
(``governance.monitoring.operations.feed``).
"""
