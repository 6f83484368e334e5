"""annotator.models.background_jobs: what every background job records (its status, start and
end, worker, heartbeat, cancel request) and what every kind reads of it, on the three tables
built on it, whose columns, choices and help texts stayed those they had."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotator.models import BackgroundJob, HarvestRun, ImportJob, LlmJudgeRun

KINDS = (ImportJob, LlmJudgeRun, HarvestRun)


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_has_the_five_statuses_the_shared_plumbing_writes(kind):
    assert kind.Status.values == BackgroundJob.Status.values
    assert issubclass(kind, BackgroundJob) and kind._meta.ordering == ["-created_at", "-id"]


def test_an_import_says_in_its_own_words_what_each_ending_left():
    assert ImportJob.Status.DONE.label == "imported" and LlmJudgeRun.Status.DONE.label == "finished"
    assert ImportJob._meta.get_field("heartbeat_at").help_text == "Last sign of life of that process"
    assert LlmJudgeRun._meta.get_field("heartbeat_at").help_text == ""


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("status, finished", [
    ("queued", False), ("running", False), ("done", True), ("failed", True), ("cancelled", True),
])
def test_a_job_is_finished_once_done_failed_or_cancelled_and_cancellable_until_then(kind, status, finished):
    job = kind(status=status)
    assert job.finished is finished and job.cancellable is not finished


@pytest.mark.parametrize("kind", KINDS)
def test_a_job_asked_to_stop_is_no_longer_cancellable(kind):
    assert not kind(status="running", cancel_requested_at=timezone.now()).cancellable


def test_an_import_that_began_publishing_is_no_longer_cancellable():
    assert not ImportJob(status="running", published_at=timezone.now()).cancellable


def test_a_job_has_run_no_time_before_it_starts_then_until_now_then_until_it_ended():
    started = timezone.now() - timedelta(seconds=90)
    assert HarvestRun(status="queued").seconds is None
    assert 90 <= ImportJob(status="running", started_at=started).seconds < 100
    ended = LlmJudgeRun(status="done", started_at=started, finished_at=started + timedelta(seconds=30))
    assert ended.seconds == 30
