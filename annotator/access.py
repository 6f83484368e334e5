"""Who may see what: one helper per object type, called at the top of every view.

Each returns the object when the user may act on it and raises Http404 otherwise: an
annotator cannot even learn that another annotator's conversation exists.
Organisers (the campaign's organisers, or superusers) see everything in their campaigns.
What an import is still staging (annotator.interchange.imports.staging) is in a hidden campaign (its
conversations already carry their assignments): every helper here leaves it out, for everyone.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import Http404

from annotator.models import (
    AnnotatorProfile, Assignment, AttributeSet, Campaign, CampaignMember, Conversation, Entity, HarvestedAnswer, HarvestRun,
    ImportJob, LlmJudgeRun, Nugget, Turn,
)
from annotator.rules.accounts import CITATIONS_JUDGE, IMPORT_GOLD


def organised_campaigns(user) -> QuerySet[Campaign]:
    if not user.is_authenticated:
        return Campaign.objects.none()
    if user.is_superuser:
        return Campaign.objects.filter(staging_for__isnull=True)
    return Campaign.objects.filter(organisers=user)


def may_create_campaigns(user) -> bool:
    """Superusers, and the accounts an administrator allowed to (Django's own
    `annotator.add_campaign` permission, given in the admin)."""
    return user.is_authenticated and (user.is_superuser or user.has_perm("annotator.add_campaign"))


def is_organiser_of(user, campaign: Campaign) -> bool:
    return organised_campaigns(user).filter(pk=campaign.pk).exists()


def campaign_for_organiser(user, slug: str) -> Campaign:
    campaign = organised_campaigns(user).filter(slug=slug).first()
    if campaign is None:
        raise Http404("No such campaign.")
    return campaign


def import_job_for_organiser(user, slug: str, job_id: int) -> ImportJob:
    """A background import of a campaign the user organises (whoever of its organisers started it)."""
    job = (
        ImportJob.objects.select_related("campaign", "created_by")
        .filter(pk=job_id, campaign__slug=slug, campaign__in=organised_campaigns(user))
        .first()
    )
    if job is None:
        raise Http404("No such import.")
    return job


def llm_run_for_organiser(user, slug: str, run_id: int) -> LlmJudgeRun:
    """An LLM judge run of a campaign the user organises (whoever of its organisers started it)."""
    run = (
        LlmJudgeRun.objects.select_related("campaign", "created_by", "judge")
        .filter(pk=run_id, campaign__slug=slug, campaign__in=organised_campaigns(user))
        .first()
    )
    if run is None:
        raise Http404("No such LLM judge run.")
    return run


def harvest_for_organiser(user, slug: str, harvest_id: int) -> HarvestRun:
    """A harvest of a campaign the user organises (whoever of its organisers started it)."""
    harvest = (HarvestRun.objects.select_related("campaign", "created_by", "cancelled_by")
               .filter(pk=harvest_id, campaign__slug=slug, campaign__in=organised_campaigns(user)).first())
    if harvest is None:
        raise Http404("No such harvest.")
    return harvest


def harvested_answer_for_organiser(user, slug: str, answer_id: int) -> HarvestedAnswer:
    """A harvested turn's provenance (its raw answer) in a campaign the user organises."""
    answer = HarvestedAnswer.objects.filter(pk=answer_id, campaign__slug=slug,
                                            campaign__in=organised_campaigns(user)).first()
    if answer is None:
        raise Http404("No such harvested answer.")
    return answer


def _visible(user, objects: QuerySet, *, assigned: str, organised: str) -> QuerySet:
    """The one visibility rule: a user sees what they are assigned to and what they organise
    (a superuser everything). `assigned` and `organised` lead from `objects` to the annotator of
    an assignment and to the campaign's organisers."""
    if not user.is_authenticated:
        return objects.none()
    # never an import's staging area (annotator.interchange.imports.staging): nobody's, not even a superuser's
    published = {f"{organised.removesuffix('organisers')}staging_for__isnull": True}
    if user.is_superuser:
        return objects.filter(**published)
    return objects.filter(Q(**{assigned: user}) | Q(**{organised: user})).filter(**published).distinct()


def visible_conversations(user) -> QuerySet[Conversation]:
    """Conversations the user is assigned to, or organises."""
    return _visible(user, Conversation.objects, assigned="assignments__annotator", organised="topic__campaign__organisers")


def assigned_conversations(user) -> QuerySet[Conversation]:
    """Conversations in the user's queue (organising a campaign does not put them there)."""
    if not user.is_authenticated:
        return Conversation.objects.none()
    return Conversation.objects.filter(assignments__annotator_id=user.pk, topic__campaign__staging_for__isnull=True)


def own_assignments(user) -> QuerySet[Assignment]:
    """The user's own assignments (what their own "done" and time on task are kept on)."""
    return Assignment.objects.filter(annotator_id=user.pk) if user.is_authenticated else Assignment.objects.none()


def visible_campaigns(user) -> QuerySet[Campaign]:
    """Campaigns the user organises or has an assignment in."""
    return _visible(user, Campaign.objects, assigned="topics__conversations__assignments__annotator", organised="organisers")


def assignment_for_annotator(user, conversation_id: int) -> Assignment:
    """The user's own assignment to this conversation: the key to annotating it."""
    assignment = (
        Assignment.objects.select_related(
            "conversation__topic__topic_type", "conversation__topic__campaign", "conversation__run"
        ).filter(conversation_id=conversation_id, annotator_id=user.pk, conversation__topic__campaign__staging_for__isnull=True)
        .order_by("pk").first()
        if user.is_authenticated else None
    )
    if assignment is None:
        raise Http404("No such conversation in your queue.")
    return assignment


def conversation_for_organiser(user, conversation_id: int) -> Conversation:
    conversation = (
        Conversation.objects.select_related("topic__campaign", "topic__topic_type", "run")
        .filter(pk=conversation_id, topic__campaign__in=organised_campaigns(user))
        .first()
    )
    if conversation is None:
        raise Http404("No such conversation.")
    return conversation


def turn_for_annotator(user, turn_id: int) -> Turn:
    turn = (
        Turn.objects.select_related("conversation__topic__campaign", "conversation__topic__topic_type")
        .filter(pk=turn_id, conversation__assignments__annotator_id=user.pk,
                conversation__topic__campaign__staging_for__isnull=True)
        .first()
    )
    if turn is None:
        raise Http404("No such turn in your queue.")
    return turn


def nugget_for_annotator(user, nugget_id: int) -> Nugget:
    """Only the annotator's own nuggets, in conversations still assigned to them."""
    nugget = (
        Nugget.objects.select_related(
            "turn__conversation__topic__campaign", "turn__conversation__topic__topic_type", "entity", "annotator"
        ).filter(pk=nugget_id, annotator_id=user.pk, turn__conversation__assignments__annotator_id=user.pk,
                 turn__conversation__topic__campaign__staging_for__isnull=True)
        .order_by("pk").first()
        if user.is_authenticated else None
    )
    if nugget is None:
        raise Http404("No such nugget.")
    return nugget


def attribute_set_of(assignment: Assignment, attribute_set_id: int) -> AttributeSet:
    """An attribute set of the topic type of the assignment's conversation."""
    attribute_set = AttributeSet.objects.filter(
        pk=attribute_set_id, topic_type_id=assignment.conversation.topic.topic_type_id
    ).first()
    if attribute_set is None:
        raise Http404("No such attribute set for this topic.")
    return attribute_set


def nugget_in_conversation(user, conversation_id: int, nugget_id: int) -> Nugget:
    """The annotator's own nugget, reached through the conversation's URL it must belong to."""
    nugget = nugget_for_annotator(user, nugget_id)
    if nugget.turn.conversation_id != conversation_id:
        raise Http404("No such nugget in this conversation.")
    return nugget


def annotator_entities(user) -> QuerySet[Entity]:
    """The user's own entities (never those an import of theirs is still staging)."""
    return Entity.objects.filter(annotator_id=user.pk, topic__campaign__staging_for__isnull=True)


def entity_for_annotator(user, entity_id: int) -> Entity:
    entity = (
        annotator_entities(user).select_related("topic__campaign", "topic__topic_type", "grade", "annotator")
        .filter(pk=entity_id)
        .first()
    )
    if entity is None:
        raise Http404("No such entity.")
    return entity


def _annotator_accounts() -> QuerySet:
    """Accounts an organiser may ever act on: staff and superusers are never theirs."""
    return get_user_model().objects.filter(is_staff=False, is_superuser=False)


def _reserved_accounts() -> Q:
    """The app's own accounts (annotator.rules.accounts): the systems' citations, the import's
    "gold" and the adjudicated gold. Nobody's to change, nobody's to import as."""
    return Q(username__in=[CITATIONS_JUDGE, IMPORT_GOLD]) | Q(annotator_profile__is_adjudicated_gold=True)


def _campaigns_of(campaigns: QuerySet[Campaign]) -> Q:
    """Campaign rows that are `campaigns` or what an import into one of them is staging."""
    return Q(pk__in=campaigns.values("pk")) | Q(staging_for__in=campaigns.values("pk"))


def assignable_annotators(user, campaign: Campaign) -> QuerySet:
    """Active accounts the user may assign in the campaign: people who annotate in (members,
    assignees) or organise one of the user's campaigns, and the campaign's own automatic judges;
    never staff, superusers, the app's own accounts, other campaigns' people, nor accounts that
    work nowhere yet (an organiser brings a person in by name, on the campaign's accounts page)."""
    campaigns = organised_campaigns(user)
    mine = (Q(pk__in=_people_of(campaigns)) | Q(organised_campaigns__in=campaigns)
            | Q(annotator_profile__campaign=campaign))
    return _annotator_accounts().filter(is_active=True).filter(mine).exclude(_reserved_accounts()).distinct()


def _people_of(campaigns) -> QuerySet:
    """Ids of the accounts that annotate in `campaigns` (a queryset, or one campaign): members
    (added on an accounts page) and assignees."""
    if isinstance(campaigns, Campaign):
        campaigns = Campaign.objects.filter(pk=campaigns.pk)
    return get_user_model().objects.filter(
        Q(memberships__campaign__in=campaigns) | Q(assignments__conversation__topic__campaign__in=campaigns)
    ).values("pk")


def campaign_people(campaign: Campaign) -> QuerySet:
    """Everyone of the campaign an organiser sees on its accounts page: its members, assignees,
    organisers and the accounts it made (judges, invited people); never staff or superusers."""
    return _annotator_accounts().filter(
        Q(pk__in=_people_of(campaign)) | Q(annotator_profile__campaign=campaign) | Q(organised_campaigns=campaign)
    ).distinct()


def campaign_annotators(campaign: Campaign) -> QuerySet:
    """The accounts an organiser of the campaign sees on its accounts page: its members, those
    with an assignment in it and its own automatic judges, never staff or superusers."""
    return _annotator_accounts().filter(Q(pk__in=_people_of(campaign)) | Q(annotator_profile__campaign=campaign)).distinct()


def judgment_holders(campaign: Campaign) -> QuerySet:
    """Whose judgments an organiser may import into the campaign: its annotators (an assignment
    there) and its own automatic judges; never staff, superusers, the app's own accounts or
    people of other campaigns only."""
    return campaign_annotators(campaign).filter(is_active=True).exclude(_reserved_accounts())


def managed_accounts(user, campaign: Campaign) -> QuerySet:
    """The campaign's accounts whose account the user may change (mark an automatic judge or a
    person, revoke the API token, lift a login lockout): those whose every campaign (assignments,
    organising, the campaign a judge belongs to) is one the user organises. Never staff,
    superusers or the app's own accounts: an account shared with another organiser's campaign
    is an administrator's to change."""
    if not is_organiser_of(user, campaign):
        return get_user_model().objects.none()
    mine = organised_campaigns(user)
    elsewhere = (
        Exists(Assignment.objects.filter(annotator_id=OuterRef("pk")).exclude(
            Q(conversation__topic__campaign__in=Campaign.objects.filter(_campaigns_of(mine)))))
        | Exists(CampaignMember.objects.filter(user_id=OuterRef("pk")).exclude(campaign__in=mine))
        | Exists(Campaign.organisers.through.objects.filter(user_id=OuterRef("pk")).exclude(campaign__in=mine))
        | Exists(AnnotatorProfile.objects.filter(user_id=OuterRef("pk"), campaign__isnull=False).exclude(campaign__in=mine))
    )
    return campaign_people(campaign).exclude(_reserved_accounts()).exclude(elsewhere)


def person_for_organiser(user, campaign: Campaign, person_id: int):
    """Someone of the campaign (`campaign_people`) the user, its organiser, may take out of it:
    any of its people but the app's own accounts (taking someone out changes no account)."""
    if not is_organiser_of(user, campaign):
        raise Http404("No such person in this campaign.")
    person = campaign_people(campaign).exclude(_reserved_accounts()).filter(pk=person_id).first()
    if person is None:
        raise Http404("No such person in this campaign.")
    return person


def annotator_for_organiser(user, campaign: Campaign, annotator_id: int):
    """An account of the campaign the user may change (`managed_accounts`); 404 otherwise."""
    annotator = managed_accounts(user, campaign).filter(pk=annotator_id).first()
    if annotator is None:
        raise Http404("No such annotator in this campaign, or one an administrator manages.")
    return annotator
