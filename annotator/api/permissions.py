"""API permissions: the same rules as the UI, through the same access helpers.

Objects outside a user's reach are 404 (an annotator cannot learn another annotator's
conversation exists); an organiser-only action on a campaign the user can see as an annotator
is 403.
"""

from __future__ import annotations

from rest_framework.exceptions import NotFound, PermissionDenied

from annotator.access import is_organiser_of, organised_campaigns, visible_campaigns
from annotator.models import Campaign


def campaign_for_user(user, slug: str) -> Campaign:
    campaign = visible_campaigns(user).filter(slug=slug).first()
    if campaign is None:
        raise NotFound("No such campaign.")
    return campaign


def require_organiser(user, campaign: Campaign) -> None:
    if not is_organiser_of(user, campaign):
        raise PermissionDenied("Only the campaign's organisers may do this.")


__all__ = ["visible_campaigns", "campaign_for_user", "require_organiser", "organised_campaigns"]
