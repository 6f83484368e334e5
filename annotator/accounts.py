"""Which accounts a campaign may use: its automatic judges.

A judge account belongs to the campaign that made it (`AnnotatorProfile.campaign`): an LLM judge
run, an upload "as" a new judge, an organiser marking an account of theirs. Only that
campaign's organisers (and administrators) use it. A person's account, the adjudicated gold,
staff, superusers and the app's own names (annotator.rules.accounts: `citations`, `gold`,
`adjudicated-gold` and their look-alikes) are never taken for a judge.

    judge_problem("gemma", campaign)   # None, or why not
    judge_account("gemma", campaign)   # the account, made if new (JudgeRefused: why not)

The one rule of the console's forms, the API, uploads and `judge_with_llm`.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model

from annotator.models import AnnotatorProfile, Campaign
from annotator.rules.accounts import is_reserved, judge_name_problem

__all__ = ["JudgeRefused", "judge_problem", "judge_account", "account_without_password"]


class JudgeRefused(ValueError):
    """A judge (or a run of one) that cannot be: a name held by a person or another campaign,
    a reserved name, no such topic or run."""


def judge_problem(name: str, campaign: Campaign) -> str | None:
    """Why `name` cannot be (or become) an automatic judge of `campaign`, or None."""
    if is_reserved(name):
        return judge_name_problem(name)
    user = get_user_model().objects.filter(username=name).select_related("annotator_profile").first()
    if user is None:
        return judge_name_problem(name)
    profile = getattr(user, "annotator_profile", None)
    if profile is None or not profile.is_automatic or profile.is_adjudicated_gold or user.is_staff or user.is_superuser:
        return f"{name} is not an automatic judge (a person's account, or the gold): choose another name"
    if profile.campaign_id != campaign.pk:
        return f"{name} is an automatic judge of another campaign (or an administrator's): choose another name"
    return None


def judge_account(name: str, campaign: Campaign, description: str = "automatic judge"):
    """The automatic judge account `name` of `campaign`: made (no password, no login, belonging
    to the campaign) if unknown; JudgeRefused with the reason when `judge_problem` says no."""
    if (problem := judge_problem(name, campaign)) is not None:
        raise JudgeRefused(problem)
    existed = get_user_model().objects.filter(username=name).exists()
    user = account_without_password(name)
    if not existed:
        AnnotatorProfile.mark(user, description=description, campaign=campaign)
    return user


def account_without_password(username: str):
    """The account `username`, made without a usable password (no login) if it is new."""
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    if user is None:
        user = User(username=username)
        user.set_unusable_password()
        user.save()
    return user
