"""Forms of the console's automatic judges: comparing one with the gold, marking an account,
starting an LLM judge run on one of the deployment's servers, and whose proposals annotators see.

Nothing here takes an address, an environment variable or an account of another campaign: the
LLM server is one the deployment lists (annotator.llm_judge.servers), the judge a name the
campaign may use (annotator.llm_judge.runner.judge_problem), the account one the organiser
manages (annotator.access.managed_accounts).
"""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model

from annotator.access import campaign_annotators, managed_accounts
from annotator.llm_judge import jobs, servers
from annotator.accounts import judge_problem
from annotator.models import AnnotatorProfile, Campaign, Run, Topic

__all__ = ["JudgeComparisonForm", "AutomaticJudgeForm", "LlmJudgeForm", "ProposalsForm"]


def _campaign_annotators(campaign: Campaign):
    return (
        get_user_model().objects.filter(assignments__conversation__topic__campaign=campaign)
        .distinct().select_related("annotator_profile").order_by("username")
    )


class JudgeComparisonForm(forms.Form):
    """Which automatic judge to compare with which gold (a GET form: the page is a report)."""

    judge = forms.ModelChoiceField(queryset=get_user_model().objects.none(), empty_label=None, label="Automatic judge")
    gold = forms.ChoiceField(label="Gold", help_text="One human annotator, or each conversation's adjudicated gold.")

    def __init__(self, *args, campaign: Campaign, **kwargs):
        super().__init__(*args, **kwargs)
        annotators = _campaign_annotators(campaign)
        self.fields["judge"].queryset = annotators.filter(AnnotatorProfile.automatic())
        self.fields["judge"].label_from_instance = lambda u: u.get_username()
        humans = annotators.exclude(AnnotatorProfile.automatic())
        self.fields["gold"].choices = [("adjudicated", "adjudicated gold")] + [(str(u.pk), u.get_username()) for u in humans]
        self.humans = {str(u.pk): u for u in humans}

    def gold_user(self):
        """The chosen human annotator, or None for the adjudicated gold."""
        return self.humans.get(self.cleaned_data["gold"])


class AutomaticJudgeForm(forms.Form):
    """Organisers mark an account of their campaign an automatic judge (or a person again). The
    mark is the account's, in every campaign: only accounts the organiser manages are offered
    (`managed_accounts`: every campaign they work in is the organiser's; never staff)."""

    annotator = forms.ModelChoiceField(
        queryset=get_user_model().objects.none(), label="Annotator account",
        help_text="Accounts that also work in other organisers' campaigns are an administrator's to mark (admin, "
                  "annotator profiles).",
        error_messages={"invalid_choice": "That account is not one you manage: it also works in other organisers' "
                                          "campaigns, or is staff or the app's own. Only an administrator can mark it "
                                          "(admin, annotator profiles)."})
    is_automatic = forms.BooleanField(label="Automatic judge (an LLM or a pipeline)", required=False)
    description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False, max_length=5000,
        help_text="Model, version, prompt: what produced its judgments. Left empty: the account keeps the one it has.",
    )

    def __init__(self, *args, campaign: Campaign, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.fields["annotator"].queryset = (managed_accounts(user, campaign)
                                             .filter(pk__in=campaign_annotators(campaign).values("pk")).order_by("username"))
        self.fields["annotator"].label_from_instance = lambda u: u.get_username()

    def save(self) -> AnnotatorProfile:
        data = self.cleaned_data
        # a judge marked here is this campaign's (another campaign's organisers never use it)
        return AnnotatorProfile.mark(data["annotator"], automatic=data["is_automatic"],
                                     description=data["description"] or None,
                                     campaign=self.campaign if data["is_automatic"] else None)


class LlmJudgeForm(forms.Form):
    """An LLM judge run over the campaign, started from the console (annotator.llm_judge.jobs) on
    one of the deployment's listed servers: the same choices as `manage.py judge_with_llm
    --server`. No address and no API key variable is typed here: the worker takes both from the
    listing when the run starts."""

    judge = forms.CharField(label="Judge account", max_length=150, initial="llm",
                            help_text="The campaign's automatic judge whose judgments these are (made if the name is new); "
                                      "its earlier ones are replaced.")
    server = forms.ChoiceField(label="Server", help_text="One of the LLM servers the deployment lists (GFRC_LLM_SERVERS).")
    model = forms.CharField(max_length=200, help_text="One of the server's models.")
    topics = forms.ModelMultipleChoiceField(queryset=Topic.objects.none(), required=False, help_text="None chosen: every topic.")
    runs = forms.ModelMultipleChoiceField(queryset=Run.objects.none(), required=False, help_text="None chosen: every run.")
    limit = forms.IntegerField(min_value=1, max_value=1_000_000, required=False, help_text="At most this many conversations.")
    concurrency = forms.IntegerField(min_value=1, max_value=64, initial=1, help_text="Requests at once.")
    quotes = forms.ChoiceField(choices=[("free", "any words of the turn"), ("lines", "one of the turn's lines (small models)")],
                               initial="free")
    response_format = forms.ChoiceField(
        choices=[("json_object", "json_object with a schema (llama.cpp's server)"), ("json_schema", "json_schema (vLLM, Ollama, vendors)")],
        initial="json_object")
    temperature = forms.FloatField(min_value=0, max_value=2, initial=0.0)
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=0, required=False)
    max_tokens = forms.IntegerField(min_value=16, max_value=32768, initial=1024, label="Tokens per answer, at most")
    timeout = forms.FloatField(min_value=1, max_value=3600, initial=120, label="Timeout per request (s)")

    def __init__(self, *args, campaign: Campaign, page_url: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.servers, self.listing_problem = servers.offered()
        self.fields["server"].choices = [(name, name) for name in self.servers]
        self.fields["topics"].queryset = Topic.objects.filter(campaign=campaign).order_by("code")
        self.fields["runs"].queryset = Run.objects.filter(campaign=campaign, kind=Run.Kind.CONVERSATIONS).order_by("name")
        chosen = self.servers.get(self.data.get("server") or self.initial.get("server") or next(iter(self.servers), ""))
        if chosen is not None and chosen.models:  # the server's models to pick from
            self.fields["model"] = forms.ChoiceField(choices=[(m, m) for m in chosen.models],
                                                     help_text=f"One of {chosen.name}'s models.")
        elif chosen is not None:
            self.fields["model"].help_text = f"{chosen.name} takes any model name."
        if page_url:  # choosing another server brings its models (the page again, its model field taken)
            self.fields["server"].widget.attrs.update({
                "hx-get": page_url, "hx-trigger": "change", "hx-target": "[data-field=model]",
                "hx-select": "[data-field=model]", "hx-swap": "outerHTML"})

    def clean_judge(self):
        name = self.cleaned_data["judge"]
        if (problem := judge_problem(name, self.campaign)) is not None:
            raise forms.ValidationError(problem)
        return name

    def clean(self):
        data = super().clean()
        if data.get("server") and data.get("model"):
            try:
                servers.listed(data["server"], data["model"])
            except servers.ServerNotListed as refused:
                self.add_error("model", str(refused))
        return data

    def parameters(self) -> dict:
        data = self.cleaned_data
        return {k: data[k] for k in ("temperature", "seed", "max_tokens", "timeout", "response_format")}

    def start(self, created_by):
        """Queue the run the form describes (annotator.llm_judge.jobs.start; JudgeRefused)."""
        data = self.cleaned_data
        return jobs.start(self.campaign, data["judge"], server=data["server"], model=data["model"],
                          parameters=self.parameters(), created_by=created_by,
                          topics=[t.code for t in data["topics"]], runs=[r.name for r in data["runs"]],
                          concurrency=data["concurrency"], limit=data["limit"], quotes=data["quotes"])


class ProposalsForm(forms.Form):
    """Which automatic judge's nuggets the campaign's annotators see as suggestions (none: only
    the systems' citations)."""

    proposals_from = forms.ModelChoiceField(queryset=get_user_model().objects.none(), required=False,
                                            label="Show annotators the proposals of", empty_label="nobody")

    def __init__(self, *args, campaign: Campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.fields["proposals_from"].queryset = _campaign_annotators(campaign).filter(AnnotatorProfile.automatic())
        self.fields["proposals_from"].label_from_instance = lambda u: u.get_username()
        self.fields["proposals_from"].initial = campaign.proposals_from_id

    def save(self) -> None:
        Campaign.objects.filter(pk=self.campaign.pk).update(proposals_from=self.cleaned_data["proposals_from"])
