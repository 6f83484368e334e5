import csv
import io

from django.urls import reverse

from tests.console.conftest import assert_only_the_organiser_gets_in


def url(campaign):
    return reverse("console:report_csv", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_downloads_the_csv(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))


def test_the_csv_streams_run_means_with_intervals_then_every_conversation(organiser, campaign):
    response = organiser.get(url(campaign))
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="fw-scores-report.csv"' in response["Content-Disposition"]
    text = b"".join(response.streaming_content).decode()
    summary, conversations = text.split("# per conversation (topic x run)\n")
    runs = list(csv.DictReader(io.StringIO(summary.split("\n", 1)[1])))
    assert [r["run"] for r in runs] == ["bard-trial1", "bing-trial1", "chatgpt-trial1"]
    assert float(runs[0]["GF_ci_low"]) <= float(runs[0]["GF"]) <= float(runs[0]["GF_ci_high"])
    assert len(list(csv.DictReader(io.StringIO(conversations)))) == 6
