"""Whose judgments an imported file holds when nobody is named: the rule of every importer.

A module of its own, not the conversation importer's: `import_ntcireval` reads no conversations
and would load that importer and its rules only for this, at every start.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model

from annotator.models import Campaign
from annotator.rules.accounts import IMPORT_GOLD

__all__ = ["GOLD_USERNAME", "default_annotator"]

GOLD_USERNAME = IMPORT_GOLD  # reserved: annotator.rules.accounts


def default_annotator(campaign: Campaign, actor=None, *, create: bool = True):
    """Whose judgments a file holds when nobody is named: the uploader, else the campaign's
    first organiser, else the user "gold" (created, without a usable password, if missing;
    with create=False it is returned unsaved)."""
    if actor is not None and getattr(actor, "is_authenticated", False):
        return actor
    organiser = campaign.organisers.order_by("pk").first()
    if organiser is not None:
        return organiser
    User = get_user_model()
    user = User.objects.filter(username=GOLD_USERNAME).first()
    if user is None:
        user = User(username=GOLD_USERNAME)
        user.set_unusable_password()
        if create:
            user.save()
    return user
