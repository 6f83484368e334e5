"""A campaign's topics from a topics file (TSV or JSONL: annotator.interchange.formats.topics),
all or nothing: every problem with its file:line, and nothing written when there is one.

    result = import_topics(campaign, "topics.tsv", data)
    result.errors   # [FormatError], empty when the topics were added
    result.created  # their codes

A topic already in the campaign, or twice in the file, is an error (edit a topic on the
console's topics page); its type must be one of the campaign's (annotator.rules.topics).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import IntegrityError, transaction

from annotator.interchange.formats.model import FormatError
from annotator.interchange.formats.topics import MAX_TEXT, read_topics
from annotator.models import Campaign, Topic, TopicType
from annotator.rules.topics import topic_problem

__all__ = ["TopicsImport", "import_topics", "remove_topic"]


@dataclass
class TopicsImport:
    created: list[str] = field(default_factory=list)
    errors: list[FormatError] = field(default_factory=list)

    def summary(self) -> str:
        if self.errors:
            return f"Nothing added: {len(self.errors)} problem{'s' if len(self.errors) != 1 else ''}."
        return f"{len(self.created)} topic{'s' if len(self.created) != 1 else ''} added: {', '.join(self.created[:20])}" + (
            f" and {len(self.created) - 20} more." if len(self.created) > 20 else ".")


def import_topics(campaign: Campaign, name: str, data: bytes) -> TopicsImport:
    result = TopicsImport()
    parsed, result.errors = read_topics(data, name)
    types = {t.code: t for t in TopicType.objects.filter(campaign=campaign)}
    existing = set(Topic.objects.filter(campaign=campaign).values_list("code", flat=True))
    seen: dict[str, int] = {}
    wanted = []
    for t in parsed:
        type_code, problem = topic_problem(t.code, t.type, types)
        if problem is None and t.code in seen:
            problem = f"topic {t.code} is also on line {seen[t.code]}"
        elif problem is None and t.code in existing:
            problem = f"topic {t.code} exists already in {campaign.slug} (edit it on the topics page)"
        elif problem is None and len(t.text) > MAX_TEXT:
            problem = f"the text of {t.code} is longer than {MAX_TEXT:,} characters"
        seen.setdefault(t.code, t.line)
        if problem is not None:
            result.errors.append(FormatError(name, t.line, problem))
            continue
        wanted.append(Topic(campaign=campaign, code=t.code, topic_type=types[type_code], description=t.text))
    if result.errors:
        return result
    try:
        with transaction.atomic():
            Topic.objects.bulk_create(wanted, batch_size=500)
    except IntegrityError:  # someone added one of these codes meanwhile
        result.errors.append(FormatError(name, 0, "one of these topics was added meanwhile: nothing added; try again"))
        return result
    result.created = [t.code for t in wanted]
    return result


@transaction.atomic
def remove_topic(topic: Topic) -> None:
    """The topic and everything on it: its conversations (their turns, nuggets, labels,
    assignments, decisions, stored figures), then its entities, memberships and history. In that
    order: a nugget protects its entity, so the nuggets go with their conversations first."""
    topic.conversations.all().delete()
    topic.delete()
