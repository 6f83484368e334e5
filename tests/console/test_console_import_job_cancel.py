"""Cancelling a background import from its page: a queued one never starts, a running one stops
and publishes nothing (an import is all or nothing), and one already publishing cannot be."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotator.interchange.imports import jobs as import_jobs
from annotator.models import Campaign, Conversation, ImportJob, ImportJobFile
from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.console.test_console_import_job import job_url, jsonl, run_worker, upload

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def small_threshold(settings):
    settings.GFRC_BACKGROUND_IMPORT_CONVERSATIONS = 3


def cancel_url(job: ImportJob) -> str:
    return reverse("console:import_job_cancel", kwargs={"slug": job.campaign.slug, "job": job.pk})


def cancel_at(stage: str, campaign: Campaign, monkeypatch) -> None:
    """The organiser clicks Cancel on the job's page as soon as the worker reaches `stage`."""
    told = import_jobs._JobProgress.__call__
    clicker = Client()
    clicker.force_login(campaign.organisers.get())

    def progress(self, at: str, done: int) -> None:
        if at == stage and self.job.cancel_requested_at is None:
            assert clicker.post(cancel_url(self.job), HTTP_HX_REQUEST="true").status_code == 200
            self.job.cancel_requested_at = True  # clicked once
        told(self, at, done)

    monkeypatch.setattr(import_jobs._JobProgress, "__call__", progress)


def test_only_the_campaigns_organisers_cancel_and_only_by_post(client_as, organiser, campaign):
    upload(organiser, campaign, jsonl(8))
    job = ImportJob.objects.get()
    assert_only_the_organiser_gets_in(client_as, cancel_url(job), method="post")
    assert organiser.get(cancel_url(job)).status_code == 405
    job.refresh_from_db()
    assert job.status == "queued" and job.cancel_requested_at is None


def test_a_queued_import_cancelled_never_starts_and_drops_its_files(organiser, campaign):
    before = Conversation.objects.count()
    upload(organiser, campaign, jsonl(8))
    job = ImportJob.objects.get()
    assert "Cancel the import" in organiser.get(job_url(job)).content.decode()
    response = organiser.post(cancel_url(job), follow=True)
    assert "Cancelled before it started: nothing imported." in response.content.decode()
    run_worker()
    job.refresh_from_db()
    assert (job.status, job.cancelled_by.username, job.started_at) == ("cancelled", "org", None)
    assert Conversation.objects.count() == before and not ImportJobFile.objects.filter(job=job).exists()
    html = organiser.get(job_url(job)).content.decode()
    assert "Cancelled: nothing imported" in html and "Cancel the import" not in html


@pytest.mark.parametrize("stage", ["parsing", "checking", "writing"])
def test_a_running_import_cancelled_publishes_nothing(organiser, campaign, monkeypatch, stage):
    monkeypatch.setattr(import_jobs, "CANCEL_POLL_SECONDS", 0.0)
    cancel_at(stage, campaign, monkeypatch)
    before = set(Conversation.objects.values_list("pk", flat=True))
    upload(organiser, campaign, jsonl(8))
    run_worker()
    job = ImportJob.objects.get()
    assert job.status == "cancelled" and job.published_at is None
    assert job.summary == "Cancelled by org: nothing imported (an import is all or nothing)."
    assert set(Conversation.objects.values_list("pk", flat=True)) == before
    assert not Campaign.objects.filter(staging_for=campaign).exists()  # the staged rows are gone too
    assert not ImportJobFile.objects.filter(job=job).exists()


def test_a_cancel_that_comes_after_the_last_look_still_stops_the_publishing(organiser, campaign, monkeypatch):
    """Between the last check and publishing: the publishing transaction itself refuses."""
    monkeypatch.setattr(import_jobs._JobCancellation, "check", lambda self: None)  # never looks before
    cancel_at("writing", campaign, monkeypatch)
    before = Conversation.objects.count()
    upload(organiser, campaign, jsonl(8))
    run_worker()
    job = ImportJob.objects.get()
    assert job.status == "cancelled" and Conversation.objects.count() == before


def test_an_import_that_is_publishing_can_no_longer_be_cancelled(organiser, campaign):
    upload(organiser, campaign, jsonl(8))
    job = ImportJob.objects.get()
    ImportJob.objects.filter(pk=job.pk).update(status="running", published_at=job.created_at)
    response = organiser.post(cancel_url(job), follow=True)
    assert "Too late to cancel: its conversations are published already." in response.content.decode()
    job.refresh_from_db()
    assert job.cancel_requested_at is None


def test_a_finished_import_cannot_be_cancelled(organiser, campaign):
    upload(organiser, campaign, jsonl(8))
    run_worker()
    job = ImportJob.objects.get()
    assert job.status == "done"
    response = organiser.post(cancel_url(job), follow=True)
    assert "had already ended (imported)" in response.content.decode()
    job.refresh_from_db()
    assert job.status == "done" and job.cancel_requested_at is None
