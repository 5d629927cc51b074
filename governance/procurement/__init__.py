"""Procurement: the vendor candidates a dossier compares, their quoted and list prices, cost per
1,000 requests and per acceptable output, measured cost arithmetic, the run-form values a recorded
candidate fills in, and the due-diligence questionnaire and its open items.

Cost is evidence the rules read (a cost ceiling), so this stage sits below ``rules``; the comparison
of candidates, which reads the verdicts, is in ``governance.decision``. Reading what the dossier's
own runs cost takes the run store: ``governance.procurement.operations``.
"""
