"""The console's harvest forms: what a harvest asks (the campaign's harvest settings, on the
settings page) and a harvest started on one of the deployment's listed servers.

The settings' rules are annotator.rules.campaign_settings' (`harvest_problems`), which the
model and the campaign file ask too: each problem is shown beside the input that gave it.
A server is chosen among the listed ones by its name; nothing typed here is an address, a key
or a variable's name (annotator.llm_judge.servers).
"""

from __future__ import annotations

from django import forms

from annotator.harvesting import jobs
from annotator.harvesting.runner import MAX_CONCURRENCY, MAX_TRIALS
from annotator.llm_judge import servers
from annotator.models import Campaign, HarvestRun, Topic, TopicType
from annotator.rules.campaign_settings import PAPER_FIRST_TURN, harvest_problems
from annotator.rules.problems import as_sentence

__all__ = ["HarvestSettingsForm", "HarvestForm"]


class HarvestSettingsForm(forms.Form):
    """Each topic type's first user turn, the follow-ups (one a line), a simulated user's prompt."""

    follow_ups = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False, label="Follow-ups, one a line",
        help_text="Asked in order after the first turn (the paper's: \"Can you name a few more?\"); {topic}, "
                  "{description} and {type} are the topic's. Empty: the first turn only.")
    user_prompt = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}), label="Simulated user's prompt",
        help_text="What a simulated user (a second model) is asked for each follow-up: {topic}, {description}, {type} "
                  "and {conversation}, the conversation so far.")

    def __init__(self, *args, campaign: Campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.types = list(TopicType.objects.filter(campaign=campaign).order_by("code"))
        templates = campaign.harvest_templates or {}
        for t in self.types:
            self.fields[f"template_{t.code}"] = forms.CharField(
                widget=forms.Textarea(attrs={"rows": 2}), required=False,
                label=f"First user turn for topic type {t.code}" + (f" ({t.name})" if t.name else ""),
                initial=templates.get(t.code, ""),
                help_text=f"Empty: the paper's \"{PAPER_FIRST_TURN}\". Add the format line the type asks for, e.g. "
                          "Format: movie title, iMDB URL.")
        self.fields["follow_ups"].initial = "\n".join(campaign.harvest_follow_ups or [])
        self.fields["user_prompt"].initial = campaign.harvest_user_prompt
        self.order_fields([f"template_{t.code}" for t in self.types] + ["follow_ups", "user_prompt"])

    def clean(self):
        data = super().clean()
        values = self.values(data)
        for field, message in harvest_problems(values, [t.code for t in self.types]):
            name, _, within = field.partition(".")
            if name == "harvest_templates":
                self.add_error(f"template_{within}", as_sentence(message))
            elif name == "harvest_follow_ups":
                self.add_error("follow_ups", as_sentence(message, f"line {within}" if within else ""))
            else:
                self.add_error("user_prompt", as_sentence(message))
        return data

    def values(self, data: dict) -> dict:
        """The campaign's harvest settings as the form gives them."""
        return {
            "harvest_templates": {t.code: data[f"template_{t.code}"].strip() for t in self.types
                                  if (data.get(f"template_{t.code}") or "").strip()},
            "harvest_follow_ups": [line.strip() for line in (data.get("follow_ups") or "").splitlines() if line.strip()],
            "harvest_user_prompt": (data.get("user_prompt") or "").strip(),
        }

    def save(self) -> None:
        Campaign.objects.filter(pk=self.campaign.pk).update(**self.values(self.cleaned_data))


class HarvestForm(forms.Form):
    """A harvest: a system, a listed server and model, trials, topics; optionally a simulated user."""

    system = forms.CharField(max_length=80, help_text="Its runs are <system>-trial1, <system>-trial2...")
    server = forms.ChoiceField(choices=(), help_text="One of the servers the deployment lists (GFRC_LLM_SERVERS).")
    model = forms.CharField(max_length=200)
    trials = forms.IntegerField(min_value=1, max_value=MAX_TRIALS, initial=2, help_text="Conversations a topic")
    topics = forms.ModelMultipleChoiceField(queryset=Topic.objects.none(), required=False,
                                            help_text="None chosen: every topic of the campaign.")
    replace = forms.BooleanField(required=False, label="Replace the conversations already there",
                                 help_text="Unticked, a topic and trial already in the campaign is kept and not asked "
                                           "again (a harvest run again goes on where it stopped).")
    user_server = forms.ChoiceField(choices=(), required=False, label="Simulated user's server",
                                    help_text="None: the campaign's follow-ups are asked as they are written.")
    user_model = forms.CharField(max_length=200, required=False, label="Simulated user's model")
    concurrency = forms.IntegerField(min_value=1, max_value=MAX_CONCURRENCY, initial=1,
                                     help_text="Conversations in flight at once")
    temperature = forms.FloatField(min_value=0, max_value=2, initial=0.0)
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, required=False, help_text="Sent when given")
    max_tokens = forms.IntegerField(min_value=16, max_value=32768, initial=2048, label="Tokens per answer, at most")
    timeout = forms.FloatField(min_value=1, max_value=3600, initial=120, label="Timeout per attempt (s)")

    def __init__(self, *args, campaign: Campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.servers, self.listing_problem = servers.offered()
        self.fields["server"].choices = [(name, name) for name in self.servers]
        self.fields["user_server"].choices = [("", "none")] + [(name, name) for name in self.servers]
        self.fields["topics"].queryset = Topic.objects.filter(campaign=campaign).order_by("code")

    def clean(self):
        data = super().clean()
        for server, model in (("server", "model"), ("user_server", "user_model")):
            if data.get(server) and data.get(model):
                try:
                    servers.listed(data[server], data[model])
                except servers.ServerNotListed as refused:
                    self.add_error(model, str(refused))
        if bool(data.get("user_server")) != bool(data.get("user_model")):
            self.add_error("user_model", "A simulated user is a listed server and a model: give both, or neither.")
        return data

    def start(self, created_by) -> HarvestRun:
        """Queue the harvest the form describes (annotator.harvesting.jobs.start; HarvestRefused)."""
        d = self.cleaned_data
        return jobs.start(self.campaign, d["system"], created_by=created_by, server=d["server"], model=d["model"],
                          trials=d["trials"], topics=[t.code for t in d["topics"]], replace=d["replace"],
                          concurrency=d["concurrency"], user_server=d["user_server"] or "",
                          user_model=d["user_model"] or "",
                          parameters={"temperature": d["temperature"], "seed": d["seed"], "max_tokens": d["max_tokens"],
                                      "timeout": d["timeout"]})
