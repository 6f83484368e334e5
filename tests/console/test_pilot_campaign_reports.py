"""The FairWeb-1 pilot campaign shipped in fixtures/ (targets as given: R-GENDER sums to
0.999999) with its qrels, memberships and runs, and one conversation on P001: every report page
of the console answers, and report.csv streams to its end."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from tests.console.pilot import pilot_campaign


@pytest.mark.django_db
def test_the_pilot_campaign_with_a_conversation_has_working_report_pages():
    campaign, client = pilot_campaign()
    for name in ("report", "significance", "trials", "worst"):
        response = client.get(reverse(f"console:{name}", kwargs={"slug": campaign.slug}))
        assert response.status_code == 200, name
    response = client.get(reverse("console:report_csv", kwargs={"slug": campaign.slug}))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [r["run"] for r in rows] == ["chat-a"]
    assert 0 <= float(rows[0]["GF_GENDER"]) <= 1
