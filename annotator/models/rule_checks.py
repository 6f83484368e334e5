"""The set-up rules (annotator.rules.attribute_sets, annotator.rules.campaign_settings) as the
models' field checks: `full_clean` refuses what a rule refuses, each problem beside the model's
field, in the rule's words (annotator.rules.problems.placed).

They run in `clean_fields` rather than `clean` because `clean_fields` is told which fields to
leave alone: a ModelForm leaves out the fields it does not have and those that failed its own
checks, so the console's forms, which ask the same rules beside their own fields, never see a
problem twice, nor one about a field they do not show.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.core.exceptions import ValidationError
from django.db import models

from annotator.rules.problems import Problem, placed


def clean_fields_by_rule(instance: models.Model, exclude: Iterable[str] | None, problems: Iterable[Problem],
                         fields: Mapping[str, str]) -> None:
    """`Model.clean_fields` with a rule's problems: each beside the model field `fields` names
    for its rule field, unless that field is excluded. Django's own checks then judge the fields
    the rule did not refuse, except the choices among the rule's fields (the rule names the
    choices in its words); a value beyond the database's range is still Django's to refuse."""
    exclude = set(exclude or ())
    errors: dict[str, list[str]] = {}
    for field, message in placed(problems, fields):
        if field not in exclude:
            errors.setdefault(field, []).append(message)
    ruled_choices = {f.name for f in instance._meta.fields if f.choices and f.name in fields.values()}
    try:
        models.Model.clean_fields(instance, exclude=exclude | set(errors) | ruled_choices)
    except ValidationError as error:
        for field, messages in error.message_dict.items():
            errors.setdefault(field, []).extend(messages)
    if errors:
        raise ValidationError(errors)
