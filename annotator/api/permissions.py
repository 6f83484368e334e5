"""API permissions: the same rules as the UI, through the same access helpers.

Objects outside a user's reach are 404 (an annotator cannot learn another annotator's
conversation exists); an organiser-only action on a campaign the user can see as an annotator
is 403.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet
from rest_framework.exceptions import NotFound, PermissionDenied

from annotator.access import is_organiser_of, organised_campaigns
from annotator.models import Campaign


def visible_campaigns(user) -> QuerySet[Campaign]:
    """Campaigns the user organises or has an assignment in."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    if user.is_superuser:
        return Campaign.objects.all()
    return Campaign.objects.filter(
        Q(organisers=user) | Q(topics__conversations__assignments__annotator=user)
    ).distinct()


def campaign_for_user(user, slug: str) -> Campaign:
    campaign = visible_campaigns(user).filter(slug=slug).first()
    if campaign is None:
        raise NotFound("No such campaign.")
    return campaign


def require_organiser(user, campaign: Campaign) -> None:
    if not is_organiser_of(user, campaign):
        raise PermissionDenied("Only the campaign's organisers may do this.")


__all__ = ["visible_campaigns", "campaign_for_user", "require_organiser", "organised_campaigns"]
