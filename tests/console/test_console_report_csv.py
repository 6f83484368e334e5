import csv
import io

from django.urls import reverse

from tests.console.conftest import assert_only_the_organiser_gets_in


def url(campaign):
    return reverse("console:report_csv", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_downloads_the_csv(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))


def conversations_url(campaign):
    return reverse("console:report_conversations_csv", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_downloads_the_conversations_csv(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, conversations_url(campaign))


def test_the_csv_is_one_table_of_run_means_with_intervals(organiser, campaign):
    response = organiser.get(url(campaign))
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="fw-scores-report.csv"' in response["Content-Disposition"]
    text = b"".join(response.streaming_content).decode()
    assert "#" not in text
    runs = list(csv.DictReader(io.StringIO(text)))
    assert [r["run"] for r in runs] == ["bard-trial1", "bing-trial1", "chatgpt-trial1"]
    assert float(runs[0]["GF_ci_low"]) <= float(runs[0]["GF"]) <= float(runs[0]["GF_ci_high"])


def test_every_conversation_is_a_csv_of_its_own_with_the_judges_username(organiser, campaign):
    response = organiser.get(conversations_url(campaign))
    assert 'filename="fw-scores-conversations.csv"' in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 6 and {r["judge"] for r in rows} <= {"ann", "bob"}
