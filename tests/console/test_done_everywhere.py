"""One "done", the same everywhere: conversations said done in the workspace, through the API
and by an import, reopened and reopened by a save, read back from every entrance (the overview,
the progress page, each annotator's queue, the assignments export, the API) with the same
counts; and the time on task the same on the progress page, in the export and in the API."""

from __future__ import annotations

import csv
import io
import re
import time

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotator.judgments import activity
from annotator.models import Assignment

pytestmark = pytest.mark.django_db


@pytest.fixture
def mixed(demo):
    """The demo with some conversations reopened, some said done again, and time on task."""
    campaign, organiser, (ann, bob) = demo
    assignments = list(Assignment.objects.filter(conversation__topic__campaign=campaign).order_by("pk"))
    Assignment.objects.filter(pk__in=[a.pk for a in assignments[::2]]).update(done_at=None)  # every other one reopened
    ann_client = Client()
    ann_client.force_login(ann)
    reopened_by_ann = [a for a in assignments[::2] if a.annotator_id == ann.pk]
    ann_client.post(reverse("conversation-done", args=[reopened_by_ann[0].conversation_id]))  # the workspace
    api = APIClient()
    api.force_authenticate(bob)
    reopened_by_bob = [a for a in assignments[::2] if a.annotator_id == bob.pk]
    api.post(f"/api/conversations/{reopened_by_bob[0].conversation_id}/done/")  # the API
    still_done_by_bob = [a for a in assignments[1::2] if a.annotator_id == bob.pk]
    api.delete(f"/api/conversations/{still_done_by_bob[0].conversation_id}/done/")  # reopened through the API
    later = time.time() + 3600  # after the signs the workspace and the API just made
    for a, seconds in zip(assignments[:4], (60, 90, 150, 420)):
        activity.record(a.pk, later)
        activity.record(a.pk, later + seconds)  # 420 s: over the idle limit, it counts nothing
        if seconds > activity.IDLE_SECONDS:
            activity.record(a.pk, later + seconds + 200)
    return campaign, organiser, ann, bob


def test_every_entrance_counts_the_same_conversations_done(client, mixed):
    campaign, organiser, ann, bob = mixed
    truth = {u.username: Assignment.objects.filter(annotator=u, done_at__isnull=False).count() for u in (ann, bob)}
    total = sum(truth.values())
    assigned = Assignment.objects.filter(conversation__topic__campaign=campaign).count()
    assert 0 < total < assigned

    client.force_login(organiser)
    overview = client.get(reverse("console:overview", args=[campaign.slug]))
    assert overview.context["counts"]["done"] == total
    assert f"{total}/{assigned}" in overview.content.decode()

    progress = client.get(reverse("console:progress", args=[campaign.slug])).context["progress"]
    assert {p["annotator"].username: p["done"] for p in progress["annotators"]} == truth
    assert sum(t["done"] for t in progress["topics"]) == total

    export = client.get(reverse("console:download", args=[campaign.slug, "assignments"]))
    rows = list(csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode())))
    assert len(rows) == assigned and sum(1 for r in rows if r["done_at"]) == total
    assert {name: sum(1 for r in rows if r["annotator"] == name and r["done_at"]) for name in truth} == truth

    api = APIClient()
    api.force_authenticate(organiser)
    listed = api.get(f"/api/campaigns/{campaign.slug}/assignments/").json()["assignments"]
    assert sum(1 for r in listed if r["done_at"]) == total

    for user in (ann, bob):
        queue = Client()
        queue.force_login(user)
        page = queue.get(reverse("queue"))
        assert page.context["done"] == truth[user.username]
        assert f"{truth[user.username]} of" in page.content.decode()
        mine = APIClient()
        mine.force_authenticate(user)
        conversations = mine.get("/api/conversations/", {"limit": 1000}).json()["results"]
        assert sum(1 for c in conversations if c["done_at"]) == truth[user.username]


def test_the_time_on_task_is_the_same_on_the_progress_page_in_the_export_and_in_the_api(client, mixed):
    campaign, organiser, ann, bob = mixed
    per_person = {u.username: sum(Assignment.objects.filter(annotator=u).values_list("active_seconds", flat=True))
                  for u in (ann, bob)}
    assert sum(per_person.values()) == pytest.approx(60 + 90 + 150 + 200)
    client.force_login(organiser)
    progress = client.get(reverse("console:progress", args=[campaign.slug]))
    assert {p["annotator"].username: p["active_seconds"] for p in progress.context["progress"]["annotators"]} == pytest.approx(per_person)
    shown = dict(re.findall(r'<tr><td>(\w+)</td>.*?data-seconds="(\d+)"', progress.content.decode(), re.S))
    assert {k: float(v) for k, v in shown.items()} == pytest.approx(per_person, abs=0.5)
    export = client.get(reverse("console:download", args=[campaign.slug, "assignments"]))
    rows = list(csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode())))
    assert {name: sum(float(r["active_seconds"]) for r in rows if r["annotator"] == name) for name in per_person} == pytest.approx(per_person)
    api = APIClient()
    api.force_authenticate(organiser)
    listed = api.get(f"/api/campaigns/{campaign.slug}/assignments/").json()["assignments"]
    assert sum(r["active_seconds"] for r in listed) == pytest.approx(sum(per_person.values()))


def test_the_progress_page_gives_the_median_time_per_conversation_worked_on(client, demo):
    campaign, organiser, _ = demo
    assignments = list(Assignment.objects.filter(conversation__topic__campaign=campaign, annotator__username="ann").order_by("pk"))
    for a, seconds in zip(assignments, (30, 60, 240)):
        Assignment.objects.filter(pk=a.pk).update(active_seconds=seconds)
    client.force_login(organiser)
    ann = next(p for p in client.get(reverse("console:progress", args=[campaign.slug])).context["progress"]["annotators"]
               if p["annotator"].username == "ann")
    assert (ann["active_seconds"], ann["median_seconds"], ann["worked"]) == (330.0, 60.0, 3)


def test_the_assignments_export_begins_with_the_columns_the_issue_names(client, demo):
    campaign, organiser, _ = demo
    client.force_login(organiser)
    export = client.get(reverse("console:download", args=[campaign.slug, "assignments"]))
    header = b"".join(export.streaming_content).decode().splitlines()[0]
    assert header.startswith("annotator,topic,run,done_at,active_seconds,guidelines_version,")
