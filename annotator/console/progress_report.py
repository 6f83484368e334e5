"""The console's progress page: per human annotator and per topic, how far the campaign's
assignments have got (annotator.judgments.progress counts each; "done" is
annotator.judgments.completion's) and the time on task (annotator.judgments.activity)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from django.db.models import BooleanField, Count, ExpressionWrapper, Q

from annotator.judgments.completion import people_assignments
from annotator.judgments.progress import campaign_progress
from annotator.judgments.run_totals import campaign_counts
from annotator.models import Campaign, Conversation


def _time_on_task(seconds: list[float]) -> dict:
    """The total and the median time on task of the conversations worked on (seconds)."""
    return {"active_seconds": float(sum(seconds)), "median_seconds": float(np.median(seconds)) if seconds else None,
            "worked": len(seconds)}


def progress(campaign: Campaign) -> dict:
    """Per human annotator and per topic (automatic judges are not counted): conversations done
    (`Assignment.done_at`, the one "done": annotator.judgments.completion), started, nuggets,
    entities still incomplete (no grade, or a relevant one without every membership), and the
    time on task (annotator.judgments.activity): the total and the median per conversation
    worked on."""
    from django.contrib.auth import get_user_model

    # plain rows: (annotator, conversation, topic code, done, active seconds) of every human
    # assignment; "done" read as a flag (100,000 datetimes to convert cost 0.3 s)
    assignments = list(
        people_assignments(campaign).order_by("pk")
        .annotate(done=ExpressionWrapper(Q(done_at__isnull=False), output_field=BooleanField()))
        .values_list("annotator_id", "conversation_id", "conversation__topic__code", "done", "active_seconds")
    )
    by_annotator: dict[int, list[tuple]] = defaultdict(list)
    for row in assignments:
        by_annotator[row[0]].append(row)
    users = get_user_model().objects.in_bulk(list(by_annotator))
    people = []
    topics: dict[str, dict] = {}
    seconds_of: dict[str, list[float]] = defaultdict(list)
    for code, count in (Conversation.objects.filter(topic__campaign=campaign).order_by()
                        .values("topic__code").annotate(n=Count("pk")).values_list("topic__code", "n")):
        topics[code] = {"topic": code, "conversations": count, "assigned": 0, "done": 0, "nuggets": 0, "ungraded": 0, "incomplete": 0}
    states = campaign_progress(campaign, ((a, c) for a, c, _t, _d, _s in assignments))
    for annotator_id, mine in by_annotator.items():
        person = {"annotator": users[annotator_id], "assigned": len(mine), "done": 0, "started": 0, "nuggets": 0, "ungraded": 0, "incomplete": 0}
        worked = []
        for _annotator, conversation_id, topic_code, done, seconds in mine:
            state = states.get((annotator_id, conversation_id))
            done = bool(done)
            incomplete = state.entities - state.entities_complete if state else 0
            nuggets = state.nuggets if state else 0
            ungraded = state.nuggets - state.nuggets_graded if state else 0
            person["ungraded"] += ungraded
            person["done"] += done
            person["started"] += bool(state and state.started)
            person["nuggets"] += nuggets
            person["incomplete"] += incomplete
            topic = topics[topic_code]
            topic["assigned"] += 1
            topic["done"] += done
            topic["nuggets"] += nuggets
            topic["incomplete"] += incomplete
            topic["ungraded"] += ungraded
            if seconds > 0:
                worked.append(seconds)
                seconds_of[topic_code].append(seconds)
        person["percent"] = 100.0 * person["done"] / person["assigned"]
        person.update(_time_on_task(worked))
        people.append(person)
    for code, topic in topics.items():
        topic["percent"] = 100.0 * topic["done"] / topic["assigned"] if topic["assigned"] else 0.0
        topic.update(_time_on_task(seconds_of.get(code, [])))
    return {
        "annotators": sorted(people, key=lambda p: p["annotator"].get_username()),
        "topics": sorted(topics.values(), key=lambda t: t["topic"]),
        "unassigned": campaign_counts(campaign).unassigned,  # the overview's, kept per run
    }
