"""Forms of the organiser's console.

The set-up rules they apply have their home in annotator.rules (`attribute_sets`,
`campaign_settings`), which the model's `full_clean` and the campaign file ask too: a form reads
what was typed (lines, numbers, a vector), asks the rule, and shows each problem beside the input
that gave it, in the rule's words. The API's settings endpoint validates through these same forms.

Settings and attribute sets carry the version the organiser loaded; `save()` writes them in a
transaction only if nobody saved in between (else `StaleForm`, and nothing is written).
"""

from __future__ import annotations

import re

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F

from annotator.access import judgment_holders
from annotator.accounts import judge_account, judge_problem
from annotator.models import (
    AnnotatorProfile, AttributeSet, Campaign, Grade, Run, Topic, TopicType, is_automatic_judge,
)
from annotator.rules.attribute_sets import (
    DIVERGENCES, FROM_MAPPING, KINDS, UNIFORM, read_attribute_set, regrouping_problem, same_value_problem,
)
from annotator.rules.campaign_settings import (
    CHOICES, missing_ranked_list_gain, ranked_list_gain_of, repeated_grade_problems,
)
from annotator.rules.problems import NOT_A_NUMBER, NOT_A_WHOLE_NUMBER, as_sentence, choice_problem, placed
from annotator.rules.vectors import VectorError, format_vector, parse_number, parse_vector, written_values
from annotator.scores.stored import invalidation
from scoring import significance

STALE_MESSAGE = (
    "Someone else saved these settings while you were editing (now version {version}); "
    "nothing was saved. The form now shows their values: redo your change on it."
)


class StaleForm(Exception):
    def __init__(self, current_version: int):
        self.current_version = current_version
        super().__init__(STALE_MESSAGE.format(version=current_version))


class VersionedForm(forms.ModelForm):
    """A model form that names the version it was loaded at and refuses to overwrite a newer one."""

    version = forms.IntegerField(widget=forms.HiddenInput, min_value=1)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and not self.is_bound:
            self.fields["version"].initial = self.instance.version
        if not self.instance.pk:
            self.fields["version"].required = False

    def save_checked(self, extra=None):
        """Save in a transaction if the row is still at the submitted version; else StaleForm."""
        model = type(self.instance)
        with transaction.atomic():
            if self.instance.pk:
                expected = self.cleaned_data["version"]
                updated = model.objects.filter(pk=self.instance.pk, version=expected).update(version=F("version") + 1)
                if not updated:
                    raise StaleForm(model.objects.get(pk=self.instance.pk).version)
                self.instance.version = expected + 1
            obj = self.save()
            if extra is not None:
                extra(obj)
        return obj


class CampaignSettingsForm(VersionedForm):
    def save_checked(self, extra=None, *, grades_changed: bool = False):
        """Save, and in the same transaction recompute the stored figures the change
        invalidates (annotator.scores.stored.invalidation.settings_changed): new gains read the judgments
        again, L and the other knobs re-score the stored inputs, alpha alone recombines."""

        def then(campaign):
            if extra is not None:
                extra(campaign)
            invalidation.settings_changed(campaign, self.changed_data, judgments=grades_changed)

        return super().save_checked(extra=then)

    class Meta:
        model = Campaign
        fields = [
            "name", "description", "patience", "alpha", "method", "empty_turns", "turn_weight", "duplicates_count_once",
            "missing_membership", "ranked_list_cutoff",
        ]
        widgets = {
            "description": forms.Textarea(attrs={"rows": 2}),
            "alpha": forms.NumberInput(attrs={"step": "0.05", "min": "0", "max": "1"}),
            "patience": forms.NumberInput(attrs={"min": "1", "step": "1"}),
            "method": forms.RadioSelect,
            "empty_turns": forms.RadioSelect,
            "turn_weight": forms.RadioSelect,
            "missing_membership": forms.RadioSelect,
        }
        labels = {"duplicates_count_once": "Duplicates count once"}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["ranked_list_cutoff"].required = False
        # the settings' rules (annotator.rules.campaign_settings) judge these, in their words: the
        # model's full_clean asks them once the fields are read
        _said_by_rule(self, choices=CHOICES, numbers=["alpha"], whole_numbers=["patience", "ranked_list_cutoff"])

    def clean_ranked_list_cutoff(self):
        """Left out (forms that only change L and alpha): the cutoff stays."""
        cutoff = self.cleaned_data.get("ranked_list_cutoff")
        return self.instance.ranked_list_cutoff if cutoff is None else cutoff


def _said_by_rule(form: forms.Form, *, choices: dict[str, tuple[str, ...]] | None = None, numbers=(), whole_numbers=()) -> None:
    """A value outside a field's choices, or a number that is none, is told what the set-up rules
    tell it (annotator.rules.problems: the campaign file's words); the rules judge a number's
    bounds themselves, so the fields' own bounds give way."""
    for name, allowed in (choices or {}).items():
        form.fields[name].error_messages["invalid_choice"] = as_sentence(choice_problem(allowed))
    for name in numbers:
        form.fields[name].error_messages["invalid"] = as_sentence(NOT_A_NUMBER)
    for name in whole_numbers:
        form.fields[name].error_messages["invalid"] = as_sentence(NOT_A_WHOLE_NUMBER)
        form.fields[name].validators = []


class GradeLevelForm(forms.ModelForm):
    """One level of the campaign's grade scale: its label, level and gain."""

    class Meta:
        model = Grade
        fields = ["label", "level", "gain", "ranked_list_gain"]
        widgets = {
            "gain": forms.NumberInput(attrs={"step": "0.05", "min": "0", "max": "1"}),
            "ranked_list_gain": forms.NumberInput(attrs={"step": "any", "min": "0"}),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["ranked_list_gain"].required = False
        _said_by_rule(self, numbers=["gain", "ranked_list_gain"])
        if self.instance.pk is None:  # the blank row adding a grade: empty means FairWeb-1's gain
            self.initial["ranked_list_gain"] = None
        # the inputs sit in a table under column heads: each says which grade and which column it is
        grade = self.instance.label if self.instance.pk is not None else "the new grade"
        columns = {"label": "Label", "level": "Level (key)", "gain": "Gain g", "ranked_list_gain": "Ranked-list gain"}
        for name, column in columns.items():
            self.fields[name].widget.attrs["aria-label"] = f"{column} of {grade}"

    def clean_ranked_list_gain(self):
        """Left empty: FairWeb-1's (L0 0, L1 1, L2 3), as the campaign file's default. The grade's
        rules (annotator.rules.campaign_settings) judge the rest in the model's full_clean."""
        label = self.cleaned_data.get("label")
        gain = ranked_list_gain_of(label, self.cleaned_data.get("ranked_list_gain"))
        if gain is None and label is not None:
            raise forms.ValidationError(as_sentence(missing_ranked_list_gain(label)))
        return gain


class BaseGradeFormSet(forms.BaseInlineFormSet):
    def clean(self):
        """No two grades share a label or a level (annotator.rules.campaign_settings), said beside
        the later one's."""
        super().clean()
        kept = [form for form in self.forms
                if not form.errors and form.cleaned_data and (form.has_changed() or form.instance.pk)]
        scale = [(form.cleaned_data.get("label"), form.cleaned_data.get("level")) for form in kept]
        for index, (field, message) in repeated_grade_problems(scale):
            kept[index].add_error(field, as_sentence(message))


GradeFormSet = forms.inlineformset_factory(
    Campaign, Grade, form=GradeLevelForm, formset=BaseGradeFormSet, extra=1, can_delete=False
)


def _split_groups(text: str) -> list[str]:
    separator = "\n" if "\n" in text.strip() else ","
    return [g.strip() for g in text.split(separator) if g.strip()]


def _parse_mapping(text: str) -> dict[str, str | list[str]]:
    """Lines "United Kingdom = Europe" or "Turkey = Europe, Middle East". A value written twice is
    refused as the rule refuses two values of one key (annotator.rules.attribute_sets), rather
    than kept as whichever line came last."""
    mapping: dict[str, str | list[str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.strip().startswith("#"):
            continue
        if "=" not in line:
            raise forms.ValidationError(f"Line {number}: write value = group (e.g. United Kingdom = Europe).")
        value, groups = (part.strip() for part in line.split("=", 1))
        targets = [g.strip() for g in groups.split(",") if g.strip()]
        if not value or not targets:
            raise forms.ValidationError(f"Line {number}: a value and at least one group are needed.")
        if value in mapping:
            raise forms.ValidationError(as_sentence(same_value_problem(value), where=value))
        mapping[value] = targets[0] if len(targets) == 1 else targets
    return mapping


def _band_limit(written: str) -> float | str:
    """A band limit as typed, read as a number; what is not one is left as written, for the rule
    to refuse."""
    try:
        return float(parse_number(written))
    except VectorError:
        return written


def _target_typed(text: str) -> str | list[str]:
    """A target as typed: "uniform" (or nothing), else its values as written ('(1/4, 1/4, 1/2)'),
    read by the rule."""
    return UNIFORM if text.strip().lower() in ("", UNIFORM) else written_values(text)


def _mapping_text(mapping: dict) -> str:
    return "\n".join(f"{k} = {v if isinstance(v, str) else ', '.join(v)}" for k, v in mapping.items())


class AttributeSetForm(VersionedForm):
    """Groups, target, divergence, weight and the membership helper of one attribute set."""

    def save_checked(self, extra=None):
        """Save, and in the same transaction recompute the campaign's stored figures: a new set,
        a new name or new groups read the judgments again; a target, divergence or weight
        re-scores the stored inputs."""
        new = self.instance.pk is None

        def then(attribute_set):
            if extra is not None:
                extra(attribute_set)
            campaign = attribute_set.topic_type.campaign
            again = new or bool({"name", "groups_text", "kind"} & set(self.changed_data))
            invalidation.settings_changed(campaign, {"attribute_sets"}, judgments=again)

        return super().save_checked(extra=then)

    HELPERS = [("none", "None: annotators type vectors"), ("bands", "Ordinal bands from a number"), ("mapping", "Nominal groups from a value mapping")]

    groups_text = forms.CharField(
        label="Groups", widget=forms.Textarea(attrs={"rows": 4}),
        help_text="One per line (or comma-separated), in order; ordinal: low to high.",
    )
    target_text = forms.CharField(
        label="Target distribution D*", required=False,
        help_text='One probability per group, e.g. (1/4,1/4,1/4,1/4); "uniform" or empty: uniform.',
    )
    helper_kind = forms.ChoiceField(label="Membership helper", choices=HELPERS, widget=forms.RadioSelect, initial="none")
    bands_text = forms.CharField(
        label="Band limits", required=False,
        help_text="Ascending numbers between the groups: 100, 10000, 1000000 for <100, 100-10K, 10K-1M, >=1M.",
    )
    mapping_text = forms.CharField(
        label="Value mapping", required=False, widget=forms.Textarea(attrs={"rows": 6}),
        help_text="One per line: value = group, or value = group, group for a value split between groups.",
    )
    derive_target = forms.BooleanField(
        label="Derive the target from the mapping (proportional to the values per group, like FairWeb's ORIGIN)",
        required=False,
    )

    class Meta:
        model = AttributeSet
        fields = ["name", "kind", "divergence", "weight", "position"]
        widgets = {"weight": forms.NumberInput(attrs={"step": "0.1", "min": "0"})}
        help_texts = {"name": "Letters, digits, _ and -, from a letter: it becomes a column GF_<name> and a #NAME: "
                              "line of the paper format."}

    # Each field of the attribute set's rules (annotator.rules.attribute_sets) beside the input that gave it.
    RULE_FIELDS = {"name": "name", "kind": "kind", "groups": "groups_text", "divergence": "divergence", "weight": "weight",
                   "helper": "helper_kind", "helper.bands": "bands_text", "helper.mapping": "mapping_text"}

    def __init__(self, *args, topic_type: TopicType | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.topic_type = topic_type or (self.instance.topic_type if self.instance.pk else None)
        _said_by_rule(self, choices={"kind": KINDS, "divergence": DIVERGENCES}, numbers=["weight"])
        self.fields["name"].validators = []  # its length too is the rule's (annotator.rules.ids), in its words
        if self.instance.pk and not self.is_bound:
            a = self.instance
            self.fields["groups_text"].initial = "\n".join(a.groups)
            self.fields["target_text"].initial = format_vector(a.target)
            helper = a.helper or {}
            if "bands" in helper:
                self.fields["helper_kind"].initial = "bands"
                self.fields["bands_text"].initial = ", ".join(f"{b:g}" for b in helper["bands"])
            elif "mapping" in helper:
                self.fields["helper_kind"].initial = "mapping"
                self.fields["mapping_text"].initial = _mapping_text(helper["mapping"])

    def clean_groups_text(self):
        return _split_groups(self.cleaned_data["groups_text"])

    def clean_name(self):
        name = self.cleaned_data["name"].strip()
        clash = AttributeSet.objects.filter(topic_type=self.topic_type, name=name).exclude(pk=self.instance.pk)
        if self.topic_type is not None and clash.exists():
            raise forms.ValidationError(f"This topic type already has an attribute set {name}.")
        return name

    def clean(self):
        """The set as typed, judged by its rules; each problem beside its input, unless that
        input was refused already (a number that is none, a clash of names)."""
        data = super().clean()
        helper = self._helper_typed(data)
        deriving = bool(data.get("derive_target"))
        read, problems = read_attribute_set({
            "name": data.get("name"), "kind": data.get("kind"), "groups": data.get("groups_text"),
            "divergence": data.get("divergence"), "weight": data.get("weight"), "helper": helper,
            "target": FROM_MAPPING[0] if deriving else _target_typed(data.get("target_text") or ""),
        })
        groups = data.get("groups_text")
        if self.instance.pk and groups:
            problem = regrouping_problem(self.instance.name, self.instance.size, len(groups), self.instance.memberships.exists())
            problems += [problem] if problem else []
        refused_already = set(self.errors)
        for field, message in placed(problems, {**self.RULE_FIELDS, "target": "derive_target" if deriving else "target_text"}):
            if field not in refused_already:
                self.add_error(field, message)
        data["target"], data["helper"] = read["target"], read["helper"]
        return data

    def _helper_typed(self, data) -> dict:
        """The helper as typed: band limits read as numbers, a mapping's lines (a line it cannot
        read is refused here; the rule then judges no mapping)."""
        if data.get("helper_kind") == "bands":
            return {"bands": [_band_limit(b) for b in re.split(r"[,\s;]+", data.get("bands_text", "").strip()) if b]}
        if data.get("helper_kind") == "mapping":
            try:
                return {"mapping": _parse_mapping(data.get("mapping_text", ""))}
            except forms.ValidationError as error:
                self.add_error("mapping_text", error)
                return {"mapping": None}
        return {}

    def save(self, commit=True):
        obj = super().save(commit=False)
        obj.groups = self.cleaned_data["groups_text"]
        obj.target = self.cleaned_data["target"]
        obj.helper = self.cleaned_data["helper"]
        if self.topic_type is not None:
            obj.topic_type = self.topic_type
        if commit:
            obj.save()
        return obj


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": ".txt,.jsonl,.json,.zip,.har,.sse"}))
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, (list, tuple)):
            return [single(d, initial) for d in data] if data else [single(None, initial)]
        return [single(data, initial)]


class UploadForm(forms.Form):
    files = MultipleFileField(
        label="Conversation files",
        help_text="The paper's annotated text format, JSONL, or harvested chats (ChatGPT and Claude.ai exports or their zips, "
                  "OpenAI Chat Completions or Responses, Gemini with grounding, Gemini Takeout, Perplexity, Anthropic, "
                  "ShareGPT, LMSYS / WildChat rows, HAR captures, streamed answers), each told by its content; all files "
                  "are imported together or not at all.",
    )
    run = forms.SlugField(
        required=False, label="Run (optional)",
        help_text="The run of every conversation; empty: from the file (run=) or its name, M002-bing-trial1.txt -> bing-trial1.",
    )
    topic = forms.CharField(
        required=False, max_length=32, label="Topic of harvested conversations",
        help_text="A harvest carries no topic: its conversations get this one (a new id whose first letter is a topic type "
                  "is created). Files with topics (paper, JSONL) keep theirs.",
    )
    replace = forms.BooleanField(
        required=False, label="Replace conversations that already exist (their judgments are deleted)",
    )
    annotator = forms.ModelChoiceField(
        queryset=get_user_model().objects.none(), required=False, label="Whose judgments (optional)", empty_label="yours",
        help_text="Empty: yours. One of the campaign's annotators or automatic judges: their judgments, "
                  "added to conversations already there when the text is the same.",
    )
    new_judge = forms.CharField(
        required=False, max_length=150, label="Or a new automatic judge named",
        help_text="The judgments of an automatic judge of this campaign made for them (a pipeline, a model run "
                  "elsewhere); never a person's name.",
    )

    def __init__(self, *args, campaign=None, **kwargs):
        super().__init__(*args, **kwargs)
        # the campaign's topics, offered as the topic field's datalist (a new id is fine too)
        self.topics = list(campaign.topics.order_by("code").values_list("code", flat=True)) if campaign is not None else []
        self.fields["topic"].widget.attrs.update({"list": "campaign-topics", "placeholder": "e.g. M003", "autocomplete": "off"})
        self.campaign = campaign
        self.fields["annotator"].queryset = (
            judgment_holders(campaign).select_related("annotator_profile").order_by("username") if campaign is not None
            else get_user_model().objects.none())
        self.fields["annotator"].label_from_instance = (
            lambda u: f"{u.get_username()} (automatic judge)" if is_automatic_judge(u) else u.get_username())
        self.fields["files"].help_text += (
            f" More than {settings.GFRC_BACKGROUND_IMPORT_CONVERSATIONS:,} conversations, or more than"
            f" {settings.GFRC_BACKGROUND_IMPORT_BYTES / 1024:,.0f} KB, are imported in the background, with a progress page."
        )

    def clean_new_judge(self):
        name = self.cleaned_data["new_judge"].strip()
        if name and (problem := judge_problem(name, self.campaign)) is not None:
            raise forms.ValidationError(problem)
        return name

    def clean(self):
        data = super().clean()
        if data.get("annotator") is not None and data.get("new_judge"):
            self.add_error("new_judge", "Either one of the campaign's accounts or a new judge, not both.")
        return data

    def judgments_of(self):
        """Whose judgments the files hold: the account chosen, the new judge (made now, this
        campaign's), or None (the uploader's)."""
        data = self.cleaned_data
        if data.get("new_judge"):
            return judge_account(data["new_judge"], self.campaign, description="automatic judge (uploaded judgments)")
        return data.get("annotator")

    def clean_topic(self):
        topic = self.cleaned_data["topic"].strip()
        if any(c.isspace() for c in topic):
            raise forms.ValidationError("A topic id has no spaces.")
        return topic

    def clean_files(self):
        files = self.cleaned_data["files"]
        _check_upload_sizes(files)
        return files


def _check_upload_sizes(files) -> None:
    """Each file, and all of them together, at most GFRC_MAX_UPLOAD_MB megabytes."""
    limit_mb = settings.GFRC_MAX_UPLOAD_MB
    limit = limit_mb * 1024 * 1024
    for f in files:
        if f.size > limit:
            raise forms.ValidationError(
                f"{f.name} is {f.size / 1024 / 1024:.1f} MB, larger than the {limit_mb} MB limit (GFRC_MAX_UPLOAD_MB)."
            )
    if sum(f.size for f in files) > limit:
        raise forms.ValidationError(f"These files are larger than {limit_mb} MB together (GFRC_MAX_UPLOAD_MB).")


class AssignForm(forms.Form):
    annotators = forms.ModelMultipleChoiceField(
        queryset=get_user_model().objects.none(), widget=forms.CheckboxSelectMultiple,
        help_text="Conversations are dealt out round-robin, least-loaded first.",
    )
    per_conversation = forms.TypedChoiceField(
        label="Annotators per conversation", coerce=int, choices=[(1, "1"), (2, "2 (for agreement)"), (3, "3")], initial=1,
        widget=forms.RadioSelect,
    )
    topics = forms.ModelMultipleChoiceField(queryset=Topic.objects.none(), required=False, help_text="None chosen: all topics.")
    runs = forms.ModelMultipleChoiceField(queryset=Run.objects.none(), required=False, help_text="None chosen: all runs.")

    def __init__(self, *args, campaign: Campaign, annotators, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["annotators"].queryset = annotators.select_related("annotator_profile").order_by("username")
        self.fields["topics"].queryset = Topic.objects.filter(campaign=campaign)
        self.fields["runs"].queryset = Run.objects.filter(campaign=campaign, kind=Run.Kind.CONVERSATIONS)
        self.fields["annotators"].label_from_instance = (
            lambda u: f"{u.get_username()} (automatic judge)" if is_automatic_judge(u) else u.get_username()
        )

    def clean(self):
        data = super().clean()
        annotators, per = data.get("annotators"), data.get("per_conversation")
        if annotators is not None and per and len(annotators) < per:
            self.add_error("annotators", f"{per} annotators per conversation need at least {per} annotators chosen.")
        return data


class GoldForm(forms.Form):
    gold_annotator = forms.ModelChoiceField(
        queryset=get_user_model().objects.none(), widget=forms.RadioSelect, empty_label=None,
        label="Gold annotation (the scores use it)",
    )

    def __init__(self, *args, conversation, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["gold_annotator"]
        # an automatic judge is compared with the gold (console judges page), never chosen as it
        field.queryset = (
            get_user_model().objects.filter(assignments__conversation=conversation)
            .exclude(AnnotatorProfile.automatic()).order_by("username")
        )
        field.label_from_instance = lambda u: u.get_username()


class DecisionForm(forms.Form):
    """One adjudication decision: which disagreement, and whether the gold takes one annotator's
    value (`take` = their account id; "left" and "right" still name the first and the second
    annotator) or a value the organiser writes (a grade label, a membership vector with
    fractions, a turn label o/x/-; empty clears it)."""

    unit = forms.CharField(max_length=1300, widget=forms.HiddenInput)
    version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)  # of the gold the page showed
    take = forms.RegexField(regex=r"^(left|right|written|[0-9]{1,18})$",
                            error_messages={"invalid": "Take an annotator's value (their id) or write one."})
    value = forms.CharField(required=False, max_length=1000, strip=True)

    def __init__(self, *args, adjudicated, **kwargs):
        super().__init__(*args, **kwargs)
        self.adjudicated = adjudicated

    def clean(self):
        data = super().clean()
        unit, take = data.get("unit"), data.get("take")
        if unit is None or take is None:
            return data
        disagreement = self.adjudicated.find(unit) if self.adjudicated else None
        if disagreement is None:
            raise forms.ValidationError("The annotators no longer disagree there (their judgments changed): nothing was decided.")
        data["disagreement"] = disagreement
        data["taker"] = None
        data["written"] = None
        if take != "written":
            said = disagreement.said[{"left": 0, "right": 1}[take]] if take in ("left", "right") else \
                disagreement.said_by(int(take))
            if said is None:
                raise forms.ValidationError("That account is not an annotator of this conversation: nothing was decided.")
            if not said.takeable:
                raise forms.ValidationError(f"{said.annotator.get_username()} did not mark that entity in this conversation: "
                                            "take another annotator's value or write it.")
            data["taker"] = said.annotator
            return data
        if not disagreement.writable:
            raise forms.ValidationError("A span is settled by taking one annotator's.")
        value = data.get("value", "")
        if disagreement.kind == "grade":
            grades = {g.label.casefold(): g for g in self.adjudicated.grades.values()}
            if value and value.casefold() not in grades:
                self.add_error("value", f"{value!r} is not a grade of this campaign ({', '.join(g.label for g in self.adjudicated.grades.values())}).")
            data["written"] = grades.get(value.casefold()) if value else None
        elif disagreement.kind == "membership":
            attribute_set = next(a for a in self.adjudicated.attribute_sets if a.name == disagreement.parts[1])
            if value:
                try:
                    vector = parse_vector(value, length=attribute_set.size)
                except VectorError as error:
                    self.add_error("value", f"The {attribute_set.name} vector {error}.")
                else:
                    data["written"] = list(vector)
        else:
            if value and value not in ("o", "x", "-"):
                self.add_error("value", f"{value!r} is not a turn label (o, x or -).")
            data["written"] = value or None
        return data


# -- the evaluation report's inputs (GET forms: each bounded so no request stalls a worker) -------


class QueryForm(forms.Form):
    """A form of GET parameters, each falling back to its field's initial value."""

    @classmethod
    def from_query(cls, query, **kwargs):
        """Bound to the query string, the initial value standing in for each parameter it lacks
        (a first visit computes with the defaults). A submitted form leaves an unticked box
        out: it stays unticked."""
        fields = cls(**kwargs).fields
        data = {
            name: field.initial for name, field in fields.items()
            if field.initial is not None and not (query and isinstance(field, forms.BooleanField))
        }
        for name in query.keys() if query else ():
            many = isinstance(fields.get(name), forms.MultipleChoiceField)
            data[name] = query.getlist(name) if many and hasattr(query, "getlist") else query[name]
        return cls(data=data, **kwargs)


class ComparisonForm(QueryForm):
    """How runs are compared: randomised Tukey HSD trials, its seed, standardised scores."""

    permutations = forms.IntegerField(
        label="B (permutations)", min_value=100, max_value=significance.MAX_PERMUTATIONS,
        initial=significance.DEFAULT_PERMUTATIONS,
        help_text=f"Randomised Tukey HSD trials, 100 to {significance.MAX_PERMUTATIONS:,}.",
    )
    seed = forms.IntegerField(label="Seed", min_value=0, max_value=2**32 - 1, initial=0,
                              help_text="The same seed gives the same p-values.")
    standardise = forms.BooleanField(
        label="Standardise scores", required=False, initial=False,
        help_text="z-score per topic over the runs, then the standard normal CDF: topics of different difficulty count alike.",
    )


class MeasureForm(QueryForm):
    measure = forms.ChoiceField(label="Measure", initial="GFRC")

    def __init__(self, *args, measures: list[str] | list[tuple[str, list[str]]], **kwargs):
        """`measures`: names, or (group label, names) pairs (conversation and ranked-list runs)."""
        super().__init__(*args, **kwargs)
        self.fields["measure"].choices = [
            (m[0], [(name, name) for name in m[1]]) if isinstance(m, tuple) else (m, m) for m in measures
        ]


class RunPickForm(QueryForm):
    """Which runs and topics to compare (none picked: every run on the topics they share; see
    annotator.evaluation.run_comparison.select_runs). Runs of any kind: only their names count."""

    runs = forms.MultipleChoiceField(label="Runs", required=False, widget=forms.CheckboxSelectMultiple,
                                     help_text="None ticked: every run that has every topic.")
    topics = forms.MultipleChoiceField(label="Topics", required=False, widget=forms.CheckboxSelectMultiple,
                                       help_text="None ticked: every topic the compared runs share.")

    def __init__(self, *args, runs: list[str] = (), topics: list[str] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["runs"].choices = [(r, r) for r in runs]
        self.fields["topics"].choices = [(t, t) for t in topics]


class AnalysisForm(MeasureForm, ComparisonForm, RunPickForm):
    """The run comparison and topic set size inputs."""

    field_order = ["measure", "alpha", "min_diff", "permutations", "seed", "standardise", "runs", "topics"]

    alpha = forms.FloatField(label="α (significance level)", min_value=0.001, max_value=0.5, initial=0.05)
    min_diff = forms.FloatField(
        label="Minimum difference", min_value=0.001, max_value=1.0, initial=0.05,
        help_text="The smallest difference between runs the next round must detect (topic set size).",
    )
