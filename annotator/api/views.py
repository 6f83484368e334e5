"""REST API views (Django REST framework).

Annotators reach only conversations assigned to them and only their own entities and nuggets;
organisers read their campaigns, scores and exports and change settings. Changes to judgments
go through annotator.judgments.edits (the same business rules, history and optimistic concurrency
as the UI): a stale version answers 409 Conflict with the current state.
"""

from __future__ import annotations

from axes.helpers import get_cool_off
from django.contrib.auth.decorators import login_required
from django.db.models import OuterRef, Subquery
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers
from django.views.decorators.cache import never_cache
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, Throttled, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.interchange.exports.assignments import COLUMNS as ASSIGNMENT_COLUMNS, assignment_rows
from annotator.judgments import completion, edits
from annotator.console import reports
from annotator import tokens
from annotator.access import (
    own_assignments,
    annotator_entities,
    annotator_for_organiser,
    assigned_conversations,
    assignment_for_annotator,
    entity_for_annotator,
    nugget_for_annotator,
    turn_for_annotator,
    visible_conversations,
)
from annotator.api import serializers as s
from annotator.api.parsers import BoundedJSONParser
from annotator.api.permissions import campaign_for_user, require_organiser, visible_campaigns
from annotator.console.forms import CampaignSettingsForm, StaleForm
from annotator.converters import ID_PATTERN, read_id
from annotator.models import AttributeSet, Conversation, Entity, Grade, Nugget
from annotator.console.views.exports import EXPORTS, export_response
from annotator.scores.campaign_tables import score_table
from annotator.scores.per_conversation import gold_annotators, score_conversation

# ?detail= of a campaign's scores -> the export that holds it
SCORE_DETAILS = {"nuggets": "nuggets-csv", "turns": "turns-csv"}


def query_id(request: Request, name: str) -> int | None:
    """?name=<id>: None when absent; 400 with a message when it cannot be an id."""
    try:
        return read_id(request.query_params.get(name))
    except ValueError as error:
        raise ValidationError({name: f"{error}: give a number."}) from None


NO_GOLD = ("This conversation has no gold yet: only automatic judges annotated it, and a judge is never gold. "
           "Its scores come with a human annotator's judgments (or ask for a judge's with ?annotator=).")


def conversation_scores(conversation: Conversation, annotator) -> dict:
    score = score_conversation(conversation, annotator)
    return {
        "conversation": conversation.pk,
        "annotator": getattr(annotator, "pk", annotator),
        "R": score.R,
        "GF": score.GF,
        "GF_m": score.GF_m,
        "GFRC": score.GFRC,
    }


class ApiViewSet(viewsets.GenericViewSet):
    """Token first: an anonymous request gets 401 with `WWW-Authenticate: Token`."""

    authentication_classes = [TokenAuthentication, SessionAuthentication]
    parser_classes = [BoundedJSONParser, FormParser, MultiPartParser]

    def handle_exception(self, exc):
        """The one home of the API's answers to the business rules' refusals: a stale version
        is 409 with the latest state (in this view's serializer), a refused change 400."""
        if isinstance(exc, edits.StaleEdit):
            current = exc.current
            if current is not None:
                current = self.get_serializer_class()(current, context=self.get_serializer_context()).data
            return Response({"detail": str(exc), "current": current}, status=status.HTTP_409_CONFLICT)
        if isinstance(exc, edits.AnnotationRefused):
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return super().handle_exception(exc)


# -- campaigns ------------------------------------------------------------------------------


class CampaignViewSet(ApiViewSet):
    """Campaigns you organise or annotate in; settings, scores and exports are organiser-only."""

    serializer_class = s.CampaignSerializer
    lookup_field = "slug"
    lookup_value_regex = "[-a-zA-Z0-9_]+"

    def get_queryset(self):
        return visible_campaigns(self.request.user).prefetch_related("grades")

    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(s.CampaignSerializer(page, many=True).data)

    def retrieve(self, request: Request, slug: str) -> Response:
        return Response(s.CampaignSerializer(campaign_for_user(request.user, slug)).data)

    @extend_schema(request=s.CampaignSettingsSerializer, responses={200: s.CampaignSerializer, 409: OpenApiTypes.OBJECT})
    def partial_update(self, request: Request, slug: str) -> Response:
        """Change settings (organisers). Carries the version you saw; 409 if someone saved since."""
        campaign = campaign_for_user(request.user, slug)
        require_organiser(request.user, campaign)
        incoming = s.CampaignSettingsSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = {f: getattr(campaign, f) for f in CampaignSettingsForm.Meta.fields}
        data.update(incoming.validated_data)
        if not data["duplicates_count_once"]:
            data.pop("duplicates_count_once")  # a checkbox: absent means off
        form = CampaignSettingsForm(data=data, instance=campaign)
        if not form.is_valid():
            raise ValidationError(form.errors)
        try:
            form.save_checked()
        except StaleForm as stale:
            campaign.refresh_from_db()
            return Response({"detail": str(stale), "current": s.CampaignSerializer(campaign).data}, status=409)
        campaign.refresh_from_db()
        return Response(s.CampaignSerializer(campaign).data)

    @extend_schema(responses=s.TopicSerializer(many=True))
    @action(detail=True)
    def topics(self, request: Request, slug: str) -> Response:
        campaign = campaign_for_user(request.user, slug)
        return Response(s.TopicSerializer(campaign.topics.select_related("topic_type"), many=True).data)

    @extend_schema(responses=s.RunSerializer(many=True))
    @action(detail=True)
    def runs(self, request: Request, slug: str) -> Response:
        campaign = campaign_for_user(request.user, slug)
        return Response(s.RunSerializer(campaign.runs.all(), many=True).data)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "detail", str, enum=sorted(SCORE_DETAILS),
                description="Stream how the scores were built instead, as CSV: the paper's Table 1 (nuggets) "
                "or Table 2 (turns), one row per nugget or per system turn and attribute set.",
            )
        ],
        responses={200: OpenApiTypes.OBJECT, (200, "text/csv"): OpenApiTypes.BINARY},
    )
    @action(detail=True)
    def scores(self, request: Request, slug: str):
        """Per-conversation scores (gold judgments) and per-run means with 95% CIs (organisers)."""
        campaign = campaign_for_user(request.user, slug)
        require_organiser(request.user, campaign)
        detail = request.query_params.get("detail")
        if detail is not None:
            if detail not in SCORE_DETAILS:
                raise ValidationError({"detail": f"one of {', '.join(sorted(SCORE_DETAILS))}"})
            return export_response(campaign, SCORE_DETAILS[detail])
        table = score_table(campaign)
        summary = reports.run_summary(table)
        return Response(
            {
                "conversations": _records(table),
                "runs": _records(summary),
            }
        )

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["delete"], url_path=rf"annotators/(?P<annotator>{ID_PATTERN})/token")
    def revoke_token(self, request: Request, slug: str, annotator: str) -> Response:
        """Revoke the API token of an annotator of the campaign (organisers); 204 either way."""
        campaign = campaign_for_user(request.user, slug)
        require_organiser(request.user, campaign)
        tokens.revoke(annotator_for_organiser(request.user, campaign, int(annotator)))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=True)
    def assignments(self, request: Request, slug: str) -> Response:
        """Organisers: every assignment of a person, as the assignments export has it: when done,
        the time on task, the guidelines version in force when done, and its counts."""
        campaign = campaign_for_user(request.user, slug)
        require_organiser(request.user, campaign)
        return Response({"assignments": [dict(zip(ASSIGNMENT_COLUMNS, row)) for row in assignment_rows(campaign)]})

    @extend_schema(
        parameters=[OpenApiParameter("kind", str, OpenApiParameter.PATH, enum=sorted(EXPORTS))],
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
    )
    @action(detail=True, url_path=r"exports/(?P<kind>[-a-z]+)")
    def export(self, request: Request, slug: str, kind: str):
        """Download an export (organisers); streamed."""
        campaign = campaign_for_user(request.user, slug)
        require_organiser(request.user, campaign)
        if kind not in EXPORTS:
            raise NotFound("No such export.")
        return export_response(campaign, kind)


def _records(frame) -> list[dict]:
    frame = frame.astype(object).where(frame.notna(), None)
    return frame.to_dict(orient="records")


# -- conversations --------------------------------------------------------------------------


class ConversationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, ApiViewSet):
    """Conversations assigned to you (or in campaigns you organise), with their turns."""

    lookup_value_regex = ID_PATTERN

    def get_queryset(self):
        mine = own_assignments(self.request.user).filter(conversation=OuterRef("pk"))
        queryset = (visible_conversations(self.request.user).select_related("topic__campaign", "run").order_by("pk")
                    .annotate(my_done_at=Subquery(mine.values("done_at")[:1])))
        if self.action == "retrieve":
            queryset = queryset.prefetch_related("turns")
        campaign = self.request.query_params.get("campaign")
        if campaign:
            queryset = queryset.filter(topic__campaign__slug=campaign)
        return queryset

    def get_serializer_class(self):
        if self.action == "judgments":  # what a stale submission's 409 carries as `current`
            return s.JudgmentsVersionSerializer
        return s.ConversationSerializer if self.action == "retrieve" else s.ConversationListSerializer

    @extend_schema(
        parameters=[OpenApiParameter("annotator", int, description="Organisers: whose judgments (default: the gold)")],
        responses=s.ScoresSerializer,
    )
    @action(detail=True)
    def scores(self, request: Request, pk: str) -> Response:
        """Live scores: an annotator's own judgments; for organisers the gold (or ?annotator=)."""
        conversation = self.get_object()
        if conversation.assignments.filter(annotator=request.user).exists() and "annotator" not in request.query_params:
            return Response(conversation_scores(conversation, request.user))
        require_organiser(request.user, conversation.topic.campaign)
        annotator = query_id(request, "annotator") or gold_annotators([conversation])[conversation.pk]
        if annotator is None:
            return Response({"conversation": conversation.pk, "annotator": None, "R": None, "GF": None, "GF_m": None,
                             "GFRC": None, "detail": NO_GOLD})
        return Response(conversation_scores(conversation, annotator))


    @extend_schema(methods=["POST", "DELETE"], request=None, responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post", "delete"])
    def done(self, request: Request, pk: str) -> Response:
        """POST: say your judgment of the conversation is done (400 with what is missing while a
        nugget lacks a grade or a membership the campaign requires); DELETE: reopen it. The same
        rule and the same "done" as the workspace's Done button (annotator.judgments.completion)."""
        try:
            assignment = assignment_for_annotator(request.user, int(pk))
        except Http404 as missing:
            raise NotFound("No such conversation in your queue.") from missing
        if request.method == "DELETE":
            completion.reopen(assignment)
        else:
            try:
                completion.mark_done(assignment)
            except completion.NotDone as refused:
                return Response({"detail": str(refused), "missing": refused.problems}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"conversation": assignment.conversation_id, "done_at": assignment.done_at,
                         "guidelines_version": assignment.guidelines_version})

    @extend_schema(methods=["GET"], responses={200: s.JudgmentsVersionSerializer})
    @extend_schema(methods=["POST"], request=s.JudgmentsSerializer,
                   responses={200: s.JudgmentsResultSerializer, 400: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get", "post"])
    def judgments(self, request: Request, pk: str) -> Response:
        """Set your whole judgment of a conversation in one request (an automatic judge's token, or
        any annotator assigned to it): nuggets by word span with their entities, grades and
        membership vectors, and turn labels. They replace your judgments there; checked by the
        same rules as edits in the workspace, all or nothing; answers the conversation's new scores
        and `version`. Once you have judged the conversation, send the `version` you replace
        (GET gives it): if your judgments changed since, nothing is written (409, `current`)."""
        try:
            assignment = assignment_for_annotator(request.user, int(pk))
        except Http404 as missing:
            raise NotFound("No such conversation in your queue.") from missing
        conversation = assignment.conversation
        if request.method == "GET":
            return Response({"version": edits.judgments_version(conversation, request.user)})
        incoming = s.JudgmentsSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        written = edits.set_conversation_judgments(
            conversation, annotator=request.user, actor=request.user,
            nuggets=[edits.JudgedNugget(**n) for n in data["nuggets"]], labels=data.get("labels"),
            expected_version=data.get("version"),
        )
        return Response({"nuggets": written.nuggets, "labels": written.labels, "entities": written.entities,
                         "version": written.version, "scores": conversation_scores(conversation, request.user)})


# -- entities -------------------------------------------------------------------------------


class EntityViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, ApiViewSet):
    """Your own entities (one per thing named, per topic): grade, comment, memberships."""

    lookup_value_regex = ID_PATTERN

    serializer_class = s.EntitySerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Entity.objects.none()
        queryset = annotator_entities(self.request.user).select_related("topic", "grade").order_by("pk")
        topic = self.request.query_params.get("topic")
        if topic:
            queryset = queryset.filter(topic__code=topic)
        return queryset

    def get_object(self):
        return entity_for_annotator(self.request.user, int(self.kwargs["pk"]))

    @extend_schema(request=s.EntityUpdateSerializer, responses={200: s.EntitySerializer, 409: OpenApiTypes.OBJECT})
    def partial_update(self, request: Request, pk: str) -> Response:
        entity = self.get_object()
        incoming = s.EntityUpdateSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        changes = dict(incoming.validated_data)
        version = changes.pop("version")
        if "grade" in changes and changes["grade"] is not None:
            grade = Grade.objects.filter(campaign=entity.topic.campaign, label=changes["grade"]).first()
            if grade is None:
                raise ValidationError({"grade": f"No grade {changes['grade']} in this campaign."})
            changes["grade"] = grade
        edits.update_entity(entity, actor=request.user, expected_version=version, **changes)
        return Response(s.EntitySerializer(Entity.objects.get(pk=entity.pk)).data)

    @extend_schema(request=s.MembershipUpdateSerializer, responses={200: s.EntitySerializer, 409: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"])
    def membership(self, request: Request, pk: str) -> Response:
        """Set a membership: a vector, or evidence the attribute set's helper turns into one; vector null clears."""
        entity = self.get_object()
        incoming = s.MembershipUpdateSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        attribute_set = AttributeSet.objects.filter(topic_type=entity.topic.topic_type, name=data["attribute_set"]).first()
        if attribute_set is None:
            raise ValidationError({"attribute_set": "Not an attribute set of this topic."})
        edits.set_membership(
            entity, attribute_set, actor=request.user, expected_version=data["version"], vector=data.get("vector"),
            evidence=data.get("evidence", ""), from_evidence="vector" not in request.data,
        )
        return Response(s.EntitySerializer(Entity.objects.get(pk=entity.pk)).data)


# -- nuggets --------------------------------------------------------------------------------


class NuggetViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, ApiViewSet):
    """Your own nuggets. Creating one returns its WC and the conversation's new scores."""

    lookup_value_regex = ID_PATTERN

    serializer_class = s.NuggetSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Nugget.objects.none()
        queryset = (
            Nugget.objects.filter(annotator=self.request.user, turn__conversation__in=assigned_conversations(self.request.user))
            .select_related("turn")
            .order_by("turn__conversation_id", "turn__position", "start_word")
        )
        conversation = query_id(self.request, "conversation")
        if conversation is not None:
            queryset = queryset.filter(turn__conversation_id=conversation)
        return queryset

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "offsets": {}}

    def get_object(self):
        return nugget_for_annotator(self.request.user, int(self.kwargs["pk"]))

    def _with_scores(self, nugget: Nugget, code: int) -> Response:
        nugget = Nugget.objects.select_related("turn__conversation__topic__campaign").get(pk=nugget.pk)
        return Response(
            {
                "nugget": s.NuggetSerializer(nugget, context={"offsets": {}}).data,
                "scores": conversation_scores(nugget.turn.conversation, self.request.user),
            },
            status=code,
        )

    @extend_schema(request=s.NuggetCreateSerializer, responses={201: s.NuggetWithScoresSerializer})
    def create(self, request: Request) -> Response:
        incoming = s.NuggetCreateSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        try:
            turn = turn_for_annotator(request.user, data["turn"])
        except Http404 as missing:
            raise NotFound("No such turn in your queue.") from missing
        entity = None
        if data.get("entity"):
            try:
                entity = entity_for_annotator(request.user, data["entity"])
            except Http404 as missing:
                raise ValidationError({"entity": "No such entity of yours."}) from missing
        nugget = edits.create_nugget(
            annotator=request.user, actor=request.user, turn=turn,
            start_word=data["start_word"], end_word=data["end_word"], entity=entity,
        )
        return self._with_scores(nugget, status.HTTP_201_CREATED)

    @extend_schema(request=s.NuggetUpdateSerializer, responses={200: s.NuggetWithScoresSerializer, 409: OpenApiTypes.OBJECT})
    def partial_update(self, request: Request, pk: str) -> Response:
        nugget = self.get_object()
        incoming = s.NuggetUpdateSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        entity = None
        if data.get("entity"):
            try:
                entity = entity_for_annotator(request.user, data["entity"])
            except Http404 as missing:
                raise ValidationError({"entity": "No such entity of yours."}) from missing
        edits.update_nugget(
            nugget, actor=request.user, expected_version=data["version"],
            start_word=data.get("start_word"), end_word=data.get("end_word"), entity=entity,
        )
        return self._with_scores(nugget, status.HTTP_200_OK)

    @extend_schema(
        parameters=[OpenApiParameter("version", int, required=True, description="The version you saw")],
        responses={200: s.ScoresSerializer, 409: OpenApiTypes.OBJECT},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        """Delete a nugget (?version=N); answers the conversation's new scores."""
        nugget = self.get_object()
        version = request.query_params.get("version", request.data.get("version") if hasattr(request.data, "get") else None)
        try:
            version = int(version)
        except (TypeError, ValueError) as error:
            raise ValidationError({"version": "Give the version you saw (?version=N)."}) from error
        conversation = nugget.turn.conversation
        edits.delete_nugget(nugget, actor=request.user, expected_version=version)
        return Response(conversation_scores(conversation, request.user))


# -- tokens ---------------------------------------------------------------------------------


LOCKED_OUT = (
    "Too many failed logins: this account or address is locked for a while. "
    "A campaign organiser or an administrator can unlock it."
)


class ObtainToken(ObtainAuthToken):
    """POST username and password: the user's token. Failures count towards the same lockout
    as the login page (django-axes): once locked, 429 even for the right password."""

    parser_classes = [FormParser, MultiPartParser, BoundedJSONParser]

    def post(self, request: Request, *args, **kwargs) -> Response:
        serializer = self.get_serializer(data=request.data)
        if not serializer.is_valid():
            # authenticate() ran with this DRF request: axes marks it when the lockout applies.
            if getattr(request, "axes_locked_out", False):
                raise Throttled(wait=get_cool_off().total_seconds(), detail=LOCKED_OUT)
            raise ValidationError(serializer.errors)
        token, _ = Token.objects.get_or_create(user=serializer.validated_data["user"])
        response = Response({"token": token.key})
        add_never_cache_headers(response)  # a secret: no cache may keep it
        return response


obtain_token = ObtainToken.as_view()


@never_cache  # the page shows a secret: no cache (browser or proxy) may keep it
@login_required
def token_page(request: HttpRequest) -> HttpResponse:
    """Show (and on POST, create or replace) the user's API token."""
    if request.method == "POST":
        token = tokens.replace(request.user)
    else:
        token = Token.objects.filter(user=request.user).first()
    return render(request, "console/token.html", {"token": token})
