"""A run whose process died is ended as stopped when someone looks, saying how to resume."""

from __future__ import annotations

import socket

import pytest

from annotator.background.jobs import this_worker
from annotator.llm_judge.jobs import reap_abandoned
from annotator.models import LlmJudgeRun
from tests.factories import make_campaign, make_user

pytestmark = pytest.mark.django_db


def running(campaign, judge, worker: str) -> LlmJudgeRun:
    return LlmJudgeRun.objects.create(campaign=campaign, judge=judge, base_url="http://x/v1", model="m", prompt_version="v",
                                      status=LlmJudgeRun.Status.RUNNING, worker=worker)


def test_a_run_whose_process_is_gone_is_ended_and_one_still_running_is_left_alone():
    campaign, judge = make_campaign(), make_user("llm")
    dead = running(campaign, judge, f"{socket.gethostname()} 999999999 12345")
    alive = running(campaign, judge, this_worker())
    assert reap_abandoned(LlmJudgeRun.objects.all()) == 1
    dead.refresh_from_db()
    alive.refresh_from_db()
    assert dead.status == "failed" and "run it again to resume" in dead.summary and dead.finished_at is not None
    assert alive.status == "running"
