"""Set-up for the "nothing let in" tests: a campaign with an organiser and two annotators,
each with a conversation and judgments, and every named URL of the site with real ids."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest
from django.urls import NoReverseMatch, get_resolver, reverse

from annotator.judgments import edits
from annotator.models import AttributeSet, Campaign, Conversation, Entity, Nugget, Turn, TurnLabel, AnnotationEvent
from tests.factories import make_campaign, make_conversation, make_user

TURNS = [
    ("U", "Recommend some time travel movies please"),
    ("S", "Back to the Future (1985): https://www.imdb.com/title/tt0088763/ is a classic. "
          "Primer (2004): https://www.imdb.com/title/tt0390384/ is harder."),
]


@dataclass
class Site:
    campaign: Campaign
    organiser: object
    alice: object
    bob: object
    conversation: Conversation  # alice's
    bobs_conversation: Conversation
    nugget: Nugget  # alice's
    bobs_nugget: Nugget
    turn: Turn  # alice's system turn
    attribute_set: AttributeSet

    def ids_for(self, owner: str = "alice") -> dict:
        """Values for URL parameters, by name, pointing at `owner`'s objects."""
        conversation = self.conversation if owner == "alice" else self.bobs_conversation
        nugget = self.nugget if owner == "alice" else self.bobs_nugget
        return {
            "conversation_id": conversation.pk,
            "conversation": conversation.pk,
            "annotator": (self.alice if owner == "alice" else self.bob).pk,
            "nugget_id": nugget.pk,
            "turn_id": conversation.turns.get(position=2).pk,
            "entity_id": nugget.entity_id,
            "attribute_set_id": self.attribute_set.pk,
            "topic_type": self.attribute_set.topic_type_id,
            "slug": self.campaign.slug,
            "fmt": "svg",
            "format": "json",
            "kind": "scores",
        }


@pytest.fixture
def site(db) -> Site:
    organiser, alice, bob = make_user("olga"), make_user("alice"), make_user("bob")
    campaign = make_campaign(organiser=organiser)
    conversation = make_conversation(campaign, TURNS, annotators=[alice])
    bobs = make_conversation(campaign, TURNS, run="other-run", annotators=[bob])
    nugget = edits.create_nugget(annotator=alice, actor=alice, turn=conversation.turns.get(position=2),
                                       start_word=0, end_word=5)
    bobs_nugget = edits.create_nugget(annotator=bob, actor=bob, turn=bobs.turns.get(position=2),
                                            start_word=0, end_word=5)
    return Site(campaign, organiser, alice, bob, conversation, bobs, nugget, bobs_nugget,
                conversation.turns.get(position=2),
                AttributeSet.objects.get(topic_type=conversation.topic.topic_type, name="ORIGIN"))


def named_patterns(resolver=None, namespace=()):
    """(full name, parameter names) of every named URL pattern, namespaces included."""
    resolver = resolver or get_resolver()
    seen = set()
    for key in list(resolver.reverse_dict.keys()):
        if not isinstance(key, str):
            continue
        for possibilities, _pattern, _defaults, _converters in resolver.reverse_dict.getlist(key):
            for _format, params in possibilities:
                entry = (":".join((*namespace, key)), tuple(params))
                if entry not in seen:
                    seen.add(entry)
                    yield entry
    for name, (_prefix, sub) in resolver.namespace_dict.items():
        yield from named_patterns(sub, (*namespace, name))


FALLBACKS = ["1", "fw", "json", "svg", "x"]


def reverse_with(name: str, params: tuple, ids: dict) -> str | None:
    """The URL of a named pattern with real ids where the parameter name says which, else dummies."""
    choices = [[str(ids[p])] + FALLBACKS if p in ids else ["1" if p.endswith(("id", "pk")) else "x"] + FALLBACKS
               for p in params]
    if "pk" in params:
        choices[params.index("pk")] = [str(ids.get("pk_value", 1))] + FALLBACKS
    for values in itertools.product(*choices):
        try:
            return reverse(name, kwargs=dict(zip(params, values)))
        except NoReverseMatch:
            continue
    return None


def all_urls(ids: dict) -> list[tuple[str, str]]:
    urls = []
    for name, params in named_patterns():
        url = reverse_with(name, params, ids)
        if url is not None:
            urls.append((name, url))
    return sorted(set(urls))


def judgment_counts() -> dict:
    return {
        model.__name__: model.objects.count()
        for model in (Campaign, Conversation, Turn, Entity, Nugget, TurnLabel, AnnotationEvent, AttributeSet)
    }

