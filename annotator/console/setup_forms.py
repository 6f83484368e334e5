"""Forms of a campaign's set-up from nothing: a new campaign (from a template or a campaign file),
its topics (one at a time, or a topics file), its people, its guidelines.

The rules they apply have their homes elsewhere: the campaign file's checks
(annotator.interchange.imports.campaign_file), a topic's id and type (annotator.rules.topics), who may
be added (annotator.people), the guidelines' versions (annotator.judgments.guidelines).
"""

from __future__ import annotations

from pathlib import Path

from django import forms
from django.conf import settings

from annotator.access import organised_campaigns
from annotator.interchange.imports.campaign_file import describe_campaign, parse_campaign_file
from annotator.judgments.guidelines import MAX_CHARACTERS
from annotator.models import Campaign, Run, Topic, TopicType
from annotator.people import ANNOTATOR, MAX_LINES, ORGANISER
from annotator.rules.topics import TYPE_CODE_MAX, topic_problem, type_code_problem

__all__ = ["NewCampaignForm", "TopicForm", "TopicsFileForm", "TopicTypeForm", "RunForm", "PeopleForm", "GuidelinesForm",
           "SHIPPED_TEMPLATES"]

# the shipped campaign files a new campaign may start from (their settings, topic types and
# attribute sets; never their topics): a fixed list of the repository's files
SHIPPED_TEMPLATES = {
    "fairweb": ("FairWeb-1 (movies, researchers, YouTubers, X accounts)", "fairweb-campaign.json"),
    "pilot": ("FairWeb-1 pilot (ranked lists: FairWeb-1's gains and cutoff)", "fairweb1-pilot-campaign.json"),
}
CAMPAIGN_PREFIX = "campaign:"
RESERVED_SLUGS = frozenset({"new"})  # /console/new/ is the new campaign's page


def _shipped(name: str) -> dict:
    path = Path(settings.BASE_DIR) / "fixtures" / SHIPPED_TEMPLATES[name][1]
    return parse_campaign_file(path.read_bytes(), path.name)


def _without_topics(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in ("topics", "runs", "organisers", "note")}


class NewCampaignForm(forms.Form):
    name = forms.CharField(max_length=200)
    slug = forms.SlugField(max_length=50, help_text="Its address: letters, digits, - and _ (e.g. fairweb2).")
    template = forms.ChoiceField(
        required=False, label="Start from",
        help_text="The settings, grades, topic types and attribute sets of a shipped campaign or of one of yours; "
                  "never its topics, conversations or people.")
    campaign_file = forms.FileField(
        required=False, label="Or a campaign file",
        help_text="The JSON file manage.py load_campaign reads (docs/formats.md): settings, topic types, attribute "
                  "sets, and optionally topics and runs; checked by the same rules, with the same messages.")

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        mine = list(organised_campaigns(user).order_by("name").values_list("slug", "name"))
        self.fields["template"].choices = [("", "(choose one, or upload a file)")] + [
            (key, label) for key, (label, _file) in SHIPPED_TEMPLATES.items()] + [
            (f"{CAMPAIGN_PREFIX}{slug}", f"{name} (yours)") for slug, name in mine]
        self.user = user

    def clean_slug(self):
        slug = self.cleaned_data["slug"]
        if slug in RESERVED_SLUGS:
            raise forms.ValidationError(f"{slug!r} names a console page: choose another slug.")
        if Campaign.objects.filter(slug=slug).exists():
            raise forms.ValidationError(f"A campaign {slug!r} exists already: choose another slug.")
        return slug

    def clean(self):
        data = super().clean()
        template, upload = data.get("template"), data.get("campaign_file")
        if bool(template) == bool(upload):
            raise forms.ValidationError("Start from a template, or upload a campaign file (one of the two).")
        return data

    def campaign_data(self):
        """What the new campaign is made of, as a campaign file's content (CampaignFileError for
        a file that is not JSON)."""
        template, upload = self.cleaned_data.get("template"), self.cleaned_data.get("campaign_file")
        if upload:
            return parse_campaign_file(upload.read(), upload.name)
        if template.startswith(CAMPAIGN_PREFIX):
            source = organised_campaigns(self.user).get(slug=template.removeprefix(CAMPAIGN_PREFIX))
            return describe_campaign(source)
        return _without_topics(_shipped(template))

    @property
    def source(self) -> str:
        upload = self.cleaned_data.get("campaign_file")
        return upload.name if upload else f"template {self.cleaned_data.get('template')}"


class TopicForm(forms.ModelForm):
    """One topic: its code, its type and the text annotators read (annotator.rules.topics)."""

    code = forms.CharField(max_length=32, help_text="e.g. M003: a letter, then letters, digits, _ . or -")
    topic_type = forms.ModelChoiceField(queryset=TopicType.objects.none(), required=False, label="Type",
                                        help_text="Left empty: the type its code starts with (M003 -> M).")

    class Meta:
        model = Topic
        fields = ["code", "topic_type", "description"]
        labels = {"description": "Text shown to annotators"}
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}

    def __init__(self, *args, campaign: Campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.fields["topic_type"].queryset = TopicType.objects.filter(campaign=campaign).order_by("code")
        self.fields["topic_type"].label_from_instance = lambda t: f"{t.code} ({t.name})" if t.name else t.code

    def clean(self):
        data = super().clean()
        code, chosen = data.get("code", "").strip(), data.get("topic_type")
        types = {t.code: t for t in TopicType.objects.filter(campaign=self.campaign)}
        type_code, problem = topic_problem(code, chosen.code if chosen else "", types)
        if problem is not None:
            self.add_error("code" if "type" not in problem else "topic_type", problem[0].upper() + problem[1:] + ".")
            return data
        taken = Topic.objects.filter(campaign=self.campaign, code=code).exclude(pk=self.instance.pk)
        if taken.exists():
            self.add_error("code", f"Topic {code} exists already in {self.campaign.slug}.")
        if self.instance.pk and types[type_code].pk != self.instance.topic_type_id and self.instance.entities.exists():
            self.add_error("topic_type", f"{self.instance.code} has judgments under topic type "
                                         f"{self.instance.topic_type.code}: it cannot move to {type_code}.")
        data["code"], data["topic_type"] = code, types[type_code]
        self.instance.campaign = self.campaign
        return data


class TopicTypeForm(forms.ModelForm):
    """A topic type (its code once made is fixed: topics' ids start with it); its attribute sets
    are added on the settings page."""

    class Meta:
        model = TopicType
        fields = ["code", "name"]
        help_texts = {"code": "Letters and digits, starting with a letter (e.g. M): the first letters of its topics' ids.",
                      "name": "What its topics are about, e.g. Movies."}

    def __init__(self, *args, campaign: Campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.fields["code"].max_length = TYPE_CODE_MAX
        if self.instance.pk:
            self.fields["code"].disabled = True

    def clean_code(self):
        code = self.cleaned_data["code"]
        if (problem := type_code_problem(code)) is not None:
            raise forms.ValidationError(problem[0].upper() + problem[1:] + ".")
        if TopicType.objects.filter(campaign=self.campaign, code=code).exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError(f"Topic type {code} exists already.")
        return code

    def save(self, commit=True):
        self.instance.campaign = self.campaign
        return super().save(commit)


class RunForm(forms.ModelForm):
    """A run's system and trial (the trials page groups by them); its kind while it holds nothing."""

    trial = forms.IntegerField(min_value=1, max_value=100_000)

    class Meta:
        model = Run
        fields = ["system", "trial", "kind"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and (self.instance.conversations.exists() or self.instance.ranked_lists.exists()):
            self.fields["kind"].disabled = True  # what it holds decides


class TopicsFileForm(forms.Form):
    topics_file = forms.FileField(
        label="Topics file",
        help_text="TSV lines code<TAB>type<TAB>text (a header line optional), or JSONL lines {\"id\", \"type\", "
                  "\"description\"} as the campaign file writes them. All or nothing.")

    def clean_topics_file(self):
        upload = self.cleaned_data["topics_file"]
        limit = settings.GFRC_MAX_UPLOAD_MB * 1024 * 1024
        if upload.size > limit:
            raise forms.ValidationError(f"{upload.name} is larger than the {settings.GFRC_MAX_UPLOAD_MB} MB limit.")
        return upload


class PeopleForm(forms.Form):
    usernames = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "placeholder": "ana\nben,ben@example.org\ncleo,Cleo Diaz,cleo@example.org"}),
        label="People, one a line",
        help_text=f"A name (an account that exists is added as it is), or name,e-mail, or name,Full Name,e-mail: "
                  f"a new name gets a new account and a link to set its password. At most {MAX_LINES}.")
    role = forms.ChoiceField(choices=[(ANNOTATOR, "annotators"), (ORGANISER, "organisers")], initial=ANNOTATOR,
                             widget=forms.RadioSelect, label="As")


class GuidelinesForm(forms.Form):
    """The campaign's guidelines and a note per topic type, in Markdown."""

    text = forms.CharField(
        required=False, max_length=MAX_CHARACTERS, widget=forms.Textarea(attrs={"rows": 14}),
        label="Guidelines (Markdown)",
        help_text="What every annotator of the campaign reads: shown beside each conversation (key g) and on the queue.")

    def __init__(self, *args, campaign: Campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.types = list(TopicType.objects.filter(campaign=campaign).order_by("code"))
        for t in self.types:
            self.fields[f"note_{t.code}"] = forms.CharField(
                required=False, max_length=MAX_CHARACTERS, widget=forms.Textarea(attrs={"rows": 4}),
                label=f"Note for topic type {t.code}{f' ({t.name})' if t.name else ''}",
                help_text="Shown after the guidelines to the annotators of this type's topics.")

    def notes(self) -> dict[str, str]:
        return {t.code: self.cleaned_data.get(f"note_{t.code}", "") for t in self.types}
