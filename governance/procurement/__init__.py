"""Procurement: the vendor candidates a dossier compares, their quoted and list prices, cost per
1,000 requests and per acceptable output, what the dossier's own runs were charged (measured
cost), the run-form values a recorded candidate fills in, the due-diligence questionnaire and its
open items, and the side-by-side comparison.

The cost-against-performance step between Assessment and Decision.
"""
