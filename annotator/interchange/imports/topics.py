"""A campaign's topics from a topics file (TSV or JSONL: annotator.interchange.formats.topics),
all or nothing: every problem with its file:line, and nothing written when there is one.

    result = import_topics(campaign, "topics.tsv", data)
    result.errors          # [FormatError], empty when the topics were added
    result.topics_created  # their codes

A topic already in the campaign, or twice in the file, is an error (edit a topic on the
console's topics page); its type must be one of the campaign's (annotator.rules.topics).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction

from annotator.interchange.formats.model import FormatError
from annotator.interchange.imports.all_or_nothing import WriteRefused, one_transaction
from annotator.interchange.imports.result import ImportResult
from annotator.interchange.formats.topics import MAX_TEXT, read_topics
from annotator.models import Campaign, Topic, TopicType
from annotator.rules.topics import topic_problem

__all__ = ["import_topics", "remove_topic"]


def import_topics(campaign: Campaign, name: str, data: bytes) -> ImportResult:
    """Add the topics of one file (TSV or JSONL), all or nothing."""
    plan = _plan(campaign, name, data)
    if plan.result.ok:
        with one_transaction(plan.result):
            _write(plan)
    return plan.result


@dataclass
class _TopicsPlan:
    result: ImportResult
    name: str
    topics: list[Topic]  # checked, not saved


def _plan(campaign: Campaign, name: str, data: bytes) -> _TopicsPlan:
    """Read and check the file against the campaign's types and topics; writes nothing."""
    result = ImportResult(what="topics")
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
            result.error(name, t.line, problem)
            continue
        wanted.append(Topic(campaign=campaign, code=t.code, topic_type=types[type_code], description=t.text))
    return _TopicsPlan(result, name, wanted)


def _write(plan: _TopicsPlan) -> None:
    try:
        with transaction.atomic():
            Topic.objects.bulk_create(plan.topics, batch_size=500)
    except IntegrityError:  # someone added one of these codes since the plan
        raise WriteRefused(FormatError(plan.name, 0, "one of these topics was added meanwhile: nothing added; try again"))
    plan.result.topics_created = [t.code for t in plan.topics]


@transaction.atomic
def remove_topic(topic: Topic) -> None:
    """The topic and everything on it: its conversations (their turns, nuggets, labels,
    assignments, decisions, stored figures), then its entities, memberships and history. In that
    order: a nugget protects its entity, so the nuggets go with their conversations first."""
    topic.conversations.all().delete()
    topic.delete()
