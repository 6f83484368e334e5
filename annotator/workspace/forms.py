"""Workspace forms: the one home of the rules for what an annotator may type.

Vectors are judged by annotator.rules.vectors, evidence by annotator.rules.evidence, spans by
edits.check_span_bounds. Rules that depend on what others just saved (a span overlapping
another nugget) are judged once, by the service under a lock: edits.py raises
AnnotationRefused, which the views add to these forms as non-field errors. Every edit form carries `version`: the
version of the row it was based on (optimistic concurrency).
"""

from __future__ import annotations

from django import forms
from django.db.models import Q

from annotator.judgments import edits
from annotator.rules.identity import entity_key_and_name, find_url, name_key, normalise_url
from annotator.models import AttributeSet, Campaign, Entity, Grade, Nugget, Turn, TurnLabel
from annotator.rules.citations import CITATIONS_JUDGE
from annotator.rules.vectors import VectorError, parse_vector


class VersionForm(forms.Form):
    """Just the version the edit was based on (delete)."""

    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class SpanForm(forms.Form):
    """Mark words start..end (0-based, inclusive) of one turn of the conversation as a nugget;
    `cited`: the words are a span the system cited (a nugget of the judge `citations` in that
    turn), the nugget is linked to the cited page."""

    turn = forms.IntegerField(widget=forms.HiddenInput)
    start = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    end = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    cited = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1, widget=forms.HiddenInput)

    def __init__(self, *args, turns: dict[int, Turn], annotator, **kwargs):
        super().__init__(*args, **kwargs)
        self.turns = turns
        self.annotator = annotator

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        turn = self.turns.get(data["turn"])
        if turn is None:
            raise forms.ValidationError("That turn is not part of this conversation.")
        start, end = sorted((data["start"], data["end"]))
        try:
            edits.check_span_bounds(turn, start, end)
        except edits.AnnotationRefused as error:
            raise forms.ValidationError(str(error)) from error
        data.update(turn=turn, start=start, end=end)
        if data.get("cited") is not None:
            # the systems' citations, or the proposals of the judge the campaign shows
            whose = Q(annotator__username=CITATIONS_JUDGE)
            proposer = Campaign.objects.filter(topics__conversations__turns=turn).values_list("proposals_from_id", flat=True).first()
            if proposer is not None and proposer != self.annotator.pk:
                whose |= Q(annotator_id=proposer)
            source = (Nugget.objects.filter(whose, pk=data["cited"], turn=turn)
                      .values_list("entity__key", "entity__name").first())
            if source is None:
                raise forms.ValidationError("The system cited nothing there." if proposer is None else "Nothing was cited or proposed there.")
            data["cited"] = source
        return data


class DismissForm(SpanForm):
    """Dismiss a suggested nugget (a URL line): only its place is needed, no span rules."""

    def clean(self):
        data = forms.Form.clean(self)
        if self.errors:
            return data
        turn = self.turns.get(data["turn"])
        if turn is None or not turn.is_system:
            raise forms.ValidationError("Suggestions are lines of system turns of this conversation.")
        data["turn"] = turn
        return data


class NuggetSpanForm(forms.Form):
    """Move a nugget: its first and last word as conversation-wide positions (as the page shows them)."""

    first = forms.IntegerField(label="First word", min_value=1)
    last = forms.IntegerField(label="Last word", min_value=1)
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args, nugget, offset: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.nugget = nugget
        self.offset = offset

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        start, end = sorted((data["first"] - self.offset - 1, data["last"] - self.offset - 1))
        if start < 0:
            raise forms.ValidationError(f"A nugget stays inside its turn: its first word is after {self.offset}.")
        try:
            edits.check_span_bounds(self.nugget.turn, start, end)
        except edits.AnnotationRefused as error:
            raise forms.ValidationError(str(error)) from error
        data.update(start=start, end=end)
        return data


class EntityLinkForm(forms.Form):
    """Link a nugget to another entity of the topic: an existing one by URL or name, else a new one."""

    entity = forms.CharField(label="Entity (name or URL)", max_length=1000, strip=True)
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args, entities: list[Entity], **kwargs):
        super().__init__(*args, **kwargs)
        self.entities = entities

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        text = data["entity"]
        data["existing"] = find_entity(self.entities, text)
        if data["existing"] is None and entity_key_and_name(text)[0] is None:
            raise forms.ValidationError("Type the entity's name or URL.")
        return data


def find_entity(entities: list[Entity], text: str) -> Entity | None:
    """The entity `text` names among `entities`: same normalised URL, else same name (any case)."""
    url = find_url(text)
    if url is not None:
        try:
            key = normalise_url(url)
        except ValueError:
            key = None
        for entity in entities:
            if entity.key == key:
                return entity
        return None
    folded = " ".join(text.casefold().split())
    for entity in entities:
        if " ".join(entity.name.casefold().split()) == folded or entity.key == name_key(text):
            return entity
    return None


class EntityGradeForm(forms.Form):
    """The grade an annotator gives the entity of a nugget (everywhere it is mentioned in the topic)."""

    grade = forms.TypedChoiceField(coerce=int, label="Grade")
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args, grades: list[Grade], **kwargs):
        super().__init__(*args, **kwargs)
        self.grades = {g.level: g for g in grades}
        self.fields["grade"].choices = [(g.level, f"{g.label} (gain {g.gain:g})") for g in grades]

    def clean(self):
        data = super().clean()
        if "grade" in data:
            data["grade"] = self.grades[data["grade"]]
        return data


class EntityDetailsForm(forms.Form):
    name = forms.CharField(max_length=1000, required=False, strip=True)
    comment = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), strip=True)
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)


class MembershipForm(forms.Form):
    """One entity's membership in one attribute set, given one of four ways:

    - `group`: the index of one group (a click on it): that group gets everything,
    - `split`: several groups (checkboxes) sharing equally,
    - `vector`: typed, fractions allowed: (0,1/2,0,0,0,1/2,0,0),
    - `evidence` alone: the attribute set's helper turns it into a vector ("1.3M",
      "United Kingdom, United States"). Evidence typed with another way is kept as the raw note.
    `clear` removes the membership. `do` names the button that was pressed ("split" or
    "typed"; a group button sends `group`): ticked boxes are ignored unless "split" was pressed.
    """

    group = forms.IntegerField(required=False, min_value=0)
    split = forms.TypedMultipleChoiceField(coerce=int, required=False, label="Split equally among")
    vector = forms.CharField(required=False, max_length=500, label="Vector", strip=True)
    evidence = forms.CharField(required=False, max_length=1000, label="Evidence", strip=True)
    clear = forms.BooleanField(required=False)
    do = forms.ChoiceField(choices=[("typed", "typed"), ("split", "split")], required=False)
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args, attribute_set: AttributeSet, **kwargs):
        super().__init__(*args, **kwargs)
        self.attribute_set = attribute_set
        self.fields["split"].choices = [(i, g) for i, g in enumerate(attribute_set.groups)]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        groups = self.attribute_set.groups
        size = len(groups)
        name = self.attribute_set.name
        evidence = data.get("evidence") or ""
        if data.get("clear"):
            data["result"] = None
        elif data.get("group") is not None:
            if data["group"] >= size:
                raise forms.ValidationError(f"{name} has {size} groups.")
            data["result"] = tuple(1.0 if i == data["group"] else 0.0 for i in range(size))
        elif data.get("do") == "split":
            chosen = set(data.get("split") or [])
            if not chosen:
                self.add_error("split", f"Tick the {name} groups to split between.")
                return data
            data["result"] = tuple(1.0 / len(chosen) if i in chosen else 0.0 for i in range(size))
        elif data.get("vector"):
            try:
                vector = parse_vector(data["vector"], length=size)
            except VectorError as error:
                self.add_error("vector", f"The {name} vector {error}.")
                return data
            data["result"] = vector
        elif evidence:
            try:
                data["result"] = edits.vector_for_evidence(self.attribute_set, evidence)
            except edits.AnnotationRefused as error:
                self.add_error("evidence", str(error))
                return data
        else:
            raise forms.ValidationError(
                f"Click a {name} group, tick groups to split, type a vector or type evidence."
            )
        data["evidence"] = evidence
        return data


class LabelForm(forms.Form):
    """o / x / - for a system turn; empty clears it. `version` is empty when the turn had no label."""

    label = forms.ChoiceField(choices=[("", "none")] + list(TurnLabel.Label.choices), required=False)
    version = forms.IntegerField(min_value=1, required=False, widget=forms.HiddenInput)

    def clean(self):
        data = super().clean()
        if "label" in data:
            data["label"] = data["label"] or None
        return data
