"""Review queues as pure functions: the sample, its strata, the double-rated share, sentinels (planted
errors made by documented perturbations), each rater's blinded order, catch rates with their Wilson
intervals, rubber-stamping flags, the inputs of clinician agreement, and the sample-size guidance.

Arrow *Review queues -> clinician ratings* of the path. Nothing here takes a store: creating a queue,
recording a rating, importing a sheet and closing a queue are in the operations
(``governance.review.operations.queues``); the records are ``governance.review.records``.
Modules: ``rubric`` (the jury rubric or the audit verdict), ``sampling``, ``sentinels``, ``measures``,
``sample_size``.
"""
