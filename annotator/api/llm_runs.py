"""The API's LLM judge runs (organisers): the deployment's servers by name, runs started on one of
them (validated by the console's form: one home for every rule), their progress, and cancel.

    GET  /api/campaigns/<slug>/llm-runs/servers/          the listed servers and their models
    GET  /api/campaigns/<slug>/llm-runs/                  the campaign's runs, newest first
    POST /api/campaigns/<slug>/llm-runs/                  start one: {"judge", "server", "model", ...}
    GET  /api/campaigns/<slug>/llm-runs/<id>/             its progress
    POST /api/campaigns/<slug>/llm-runs/<id>/cancel/      stop it

No address and no environment variable is ever taken from a request: a server is a name the
deployment lists (annotator.llm_judge.servers).
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.access import llm_run_for_organiser
from annotator.accounts import JudgeRefused
from annotator.api.permissions import campaign_for_user, require_organiser
from annotator.api.views import ApiViewSet
from annotator.console.judge_forms import LlmJudgeForm
from annotator.converters import ID_PATTERN
from annotator.llm_judge import jobs, servers
from annotator.models import Campaign, LlmJudgeRun, Run, Topic

__all__ = ["LlmRunViewSet"]


class LlmRunSerializer(serializers.ModelSerializer):
    judge = serializers.CharField(source="judge.username", read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None)
    cancelled_by = serializers.CharField(source="cancelled_by.username", read_only=True, default=None)

    class Meta:
        model = LlmJudgeRun
        fields = ["id", "judge", "server", "model", "status", "prompt_version", "quotes", "response_format", "temperature",
                  "seed", "max_tokens", "timeout", "concurrency", "limit", "topics", "runs", "conversations", "judged",
                  "failed", "requests", "cached", "prompt_tokens", "completion_tokens", "problems", "summary",
                  "created_by", "created_at", "started_at", "finished_at", "cancel_requested_at", "cancelled_by"]


class LlmRunRequestSerializer(serializers.Serializer):
    """What a run may ask for; the console's LlmJudgeForm checks it (bounds, the listed server
    and its models, the judge's name)."""

    judge = serializers.CharField()
    server = serializers.CharField(help_text="The name of one of the deployment's listed servers (GET llm-servers/).")
    model = serializers.CharField()
    topics = serializers.ListField(child=serializers.CharField(), required=False, default=list,
                                   help_text="Topic codes; none: every topic.")
    runs = serializers.ListField(child=serializers.CharField(), required=False, default=list,
                                 help_text="Conversation run names; none: every run.")
    limit = serializers.IntegerField(required=False, allow_null=True)
    concurrency = serializers.IntegerField(required=False, default=1)
    quotes = serializers.CharField(required=False, default="free")
    response_format = serializers.CharField(required=False, default="json_object")
    temperature = serializers.FloatField(required=False, default=0.0)
    seed = serializers.IntegerField(required=False, allow_null=True, default=0)
    max_tokens = serializers.IntegerField(required=False, default=1024)
    timeout = serializers.FloatField(required=False, default=120.0)


def _form_data(campaign: Campaign, data: dict) -> dict:
    """The request as the console's form takes it: topics and runs by id."""
    topics = dict(Topic.objects.filter(campaign=campaign, code__in=data["topics"]).values_list("code", "pk"))
    runs = dict(Run.objects.filter(campaign=campaign, name__in=data["runs"], kind=Run.Kind.CONVERSATIONS)
                .values_list("name", "pk"))
    unknown = {"topics": sorted(set(data["topics"]) - set(topics)), "runs": sorted(set(data["runs"]) - set(runs))}
    if any(unknown.values()):
        raise ValidationError({field: f"not in {campaign.slug}: {', '.join(names)}" for field, names in unknown.items() if names})
    form = {k: v for k, v in data.items() if k not in ("topics", "runs") and v is not None}
    return {**form, "topics": list(topics.values()), "runs": list(runs.values())}


class LlmRunViewSet(ApiViewSet):
    """LLM judge runs of a campaign you organise."""

    serializer_class = LlmRunSerializer
    lookup_value_regex = ID_PATTERN

    def _campaign(self, slug: str) -> Campaign:
        campaign = campaign_for_user(self.request.user, slug)
        require_organiser(self.request.user, campaign)
        return campaign

    def list(self, request: Request, slug: str) -> Response:
        campaign = self._campaign(slug)
        runs = campaign.llm_runs.select_related("judge", "created_by", "cancelled_by")
        page = self.paginate_queryset(runs)
        return self.get_paginated_response(LlmRunSerializer(page, many=True).data)

    @extend_schema(request=LlmRunRequestSerializer, responses={201: LlmRunSerializer})
    def create(self, request: Request, slug: str) -> Response:
        """Queue a run on a listed server (the background worker runs it)."""
        campaign = self._campaign(slug)
        incoming = LlmRunRequestSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        form = LlmJudgeForm(_form_data(campaign, incoming.validated_data), campaign=campaign)
        if not form.is_valid():
            raise ValidationError(form.errors)
        try:
            run = form.start(created_by=request.user)
        except JudgeRefused as refused:
            raise ValidationError({"detail": str(refused)}) from None
        return Response(LlmRunSerializer(run).data, status=status.HTTP_201_CREATED)

    def retrieve(self, request: Request, slug: str, pk: str) -> Response:
        self._campaign(slug)
        return Response(LlmRunSerializer(self._run(slug, pk)).data)

    @extend_schema(request=None, responses={200: LlmRunSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, slug: str, pk: str) -> Response:
        """Stop the run: nothing more is asked; what was written stays, the answers stay cached."""
        self._campaign(slug)
        run = self._run(slug, pk)
        said = jobs.cancel(run, request.user)
        run.refresh_from_db()
        return Response({**LlmRunSerializer(run).data, "detail": said})

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=False)
    def servers(self, request: Request, slug: str) -> Response:
        """The deployment's LLM servers a run may use: names and models (empty: any model),
        never an address."""
        self._campaign(slug)
        try:
            listed = servers.listed_servers()
        except ImproperlyConfigured as malformed:  # nothing of a malformed listing is used
            return Response({"servers": [], "detail": f"The deployment's list of LLM servers is malformed: {malformed}"})
        return Response({"servers": [{"name": x.name, "models": list(x.models)} for x in listed.values()]})

    def _run(self, slug: str, pk: str) -> LlmJudgeRun:
        try:
            run = llm_run_for_organiser(self.request.user, slug, int(pk))
        except Http404:
            raise NotFound("No such LLM judge run.") from None
        jobs.reap_abandoned(LlmJudgeRun.objects.filter(pk=run.pk))
        run.refresh_from_db()
        return run
