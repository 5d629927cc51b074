"""Recording a candidate's token profile (the cost inputs), for the CLI as for the Cost page.

Why its own function: the profile replaces any earlier one for the same candidate (``CostSettings``
keeps one per model name), and recording the same profile again must leave the dossier unchanged
so that the save is a no-op rather than a new version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from governance.procurement.records import CostSettings, TokenProfile

if TYPE_CHECKING:
    from governance.dossier.record import Dossier


def with_token_profile(dossier: Dossier, profile: TokenProfile) -> Dossier:
    """The dossier with ``profile`` as its candidate's token profile (unchanged when already recorded).

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> from governance.dossier.record import Dossier
        >>> d = Dossier(title="Doses", owner="me", intended_use=example_intended_use())
        >>> p = TokenProfile(model="gpt-4o", price_model="gpt-4o", mean_prompt_tokens=220,
        ...                  mean_completion_tokens=6, source="run-1")
        >>> d2 = with_token_profile(d, p)
        >>> [x.model for x in d2.cost.profiles], with_token_profile(d2, p) is d2
        (['gpt-4o'], True)
    """
    old = dossier.cost or CostSettings()
    if profile in old.profiles:
        return dossier
    profiles = [p for p in old.profiles if p.model != profile.model] + [profile]
    return dossier.model_copy(update={"cost": old.model_copy(update={"profiles": profiles})})
