"""Who judges: an annotator's profile (a person, or an automatic judge of one campaign)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.models.conversations import Conversation


class AnnotatorProfile(models.Model):
    """What the project knows about an annotator account beyond its login.

    An automatic judge (an LLM or a pipeline) annotates like anyone, through imports or the API,
    but it is nobody's colleague: it stays out of human progress figures, adjudication pairs
    and the choice of gold, and is compared with the gold on the judges page instead.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotator_profile")
    is_automatic = models.BooleanField(
        "automatic judge", default=False, help_text="An LLM or a pipeline, not a person."
    )
    description = models.TextField(blank=True, help_text="Model, version, prompt: what produced its judgments.")
    is_adjudicated_gold = models.BooleanField(
        "adjudicated gold", default=False,
        help_text="The account whose judgments are the organisers' adjudicated gold (no login).",
    )
    campaign = models.ForeignKey(
        "Campaign", on_delete=models.SET_NULL, null=True, blank=True, related_name="made_accounts",
        help_text="The campaign that made this account: an automatic judge (by an LLM judge run, an upload), or a "
                  "person invited on its accounts page. It belongs to that campaign: only its organisers use a "
                  "judge, and give a person who has not set a password yet a new link. Empty: made by an "
                  "administrator, or the judge of the systems' citations (every campaign's).",
    )

    def __str__(self) -> str:
        if self.is_adjudicated_gold:
            return f"{self.user} (adjudicated gold)"
        return f"{self.user} ({'automatic judge' if self.is_automatic else 'human'})"

    @staticmethod
    def automatic(prefix: str = "") -> Q:
        """Rows whose user (reached through `prefix`, e.g. "annotator__") is an automatic judge."""
        return Q(**{f"{prefix}annotator_profile__is_automatic": True})

    def save(self, *args, **kwargs) -> None:
        """A judge is never gold: marking an account (here, on the console or in the admin) hands
        the conversations it was the gold of back to their human annotators."""
        super().save(*args, **kwargs)
        if self.is_automatic:
            Conversation.objects.filter(gold_annotator_id=self.user_id).update(gold_annotator=None)

    @classmethod
    def mark(cls, user, *, automatic: bool = True, description: str | None = None, campaign=None) -> AnnotatorProfile:
        """Mark `user` an automatic judge (or a person again); `campaign`: the campaign it belongs
        to from now on (left as it is when None)."""
        profile, _ = cls.objects.get_or_create(user=user)
        profile.is_automatic = automatic
        if description is not None:
            profile.description = description
        if campaign is not None:
            profile.campaign = campaign
        profile.save()
        return profile


def is_automatic_judge(user) -> bool:
    profile = getattr(user, "annotator_profile", None) if getattr(user, "pk", None) else None
    return bool(profile and profile.is_automatic)
