import pytest
from django.urls import reverse

from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.console.helpers import add_ranked_list_runs, settings_post


def url(campaign):
    return reverse("console:report", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_sees_the_report(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))


def test_the_report_gives_each_runs_means_with_confidence_intervals(organiser, campaign):
    response = organiser.get(url(campaign))
    assert response.status_code == 200
    report = response.context["report"]
    assert [r["run"] for r in report.runs] == ["bard-trial1", "bing-trial1", "chatgpt-trial1"]
    assert report.columns == ["R", "GF_ORIGIN", "GF_RATINGS", "GF", "GFRC"]
    cell = report.runs[0]["cells"]["GF"]
    assert cell.low <= cell.mean <= cell.high
    assert [t["topic"] for t in report.topics] == ["M001", "M002"]
    content = response.content.decode()
    assert "95% confidence interval" in content and "r-vs-gf.svg" in content


def test_the_report_follows_a_new_L_at_once(organiser, campaign):
    before = organiser.get(url(campaign)).context["report"].runs[0]["cells"]["R"].mean
    organiser.post(reverse("console:settings", kwargs={"slug": campaign.slug}), settings_post(campaign, patience=200))
    after = organiser.get(url(campaign)).context["report"].runs[0]["cells"]["R"].mean
    assert after > before


def test_the_quick_form_changes_L_and_alpha_and_htmx_gets_the_report_body_only(organiser, campaign):
    before = organiser.get(url(campaign)).context["report"].runs[0]["cells"]["R"].mean
    response = organiser.post(url(campaign), {"patience": 200, "alpha": 0.8, "version": 1}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    content = response.content.decode()
    assert content.lstrip().startswith('<div id="report-body">') and "<html" not in content
    campaign.refresh_from_db()
    assert (campaign.patience, campaign.alpha, campaign.version) == (200, 0.8, 2)
    after = organiser.get(url(campaign)).context["report"].runs[0]["cells"]["R"].mean
    assert after > before
    assert f"{after:.4f}" in content and 'data-testid="patience">200<' in content


def test_the_quick_form_without_htmx_redirects_back_to_the_report(organiser, campaign):
    response = organiser.post(url(campaign), {"patience": 300, "alpha": 0.5, "version": 1})
    assert response.status_code == 302 and response["Location"] == url(campaign)
    campaign.refresh_from_db()
    assert campaign.patience == 300


def test_a_stale_or_invalid_quick_change_is_refused_with_its_reason(organiser, campaign):
    organiser.post(url(campaign), {"patience": 300, "alpha": 0.5, "version": 1})
    stale = organiser.post(url(campaign), {"patience": 400, "alpha": 0.5, "version": 1}, HTTP_HX_REQUEST="true")
    assert stale.status_code == 400 and "Someone else saved" in stale.content.decode()
    invalid = organiser.post(url(campaign), {"patience": 400, "alpha": 7, "version": 2}, HTTP_HX_REQUEST="true")
    assert invalid.status_code == 400 and "Alpha: Must be between 0 and 1." in invalid.content.decode()
    campaign.refresh_from_db()
    assert (campaign.patience, campaign.alpha) == (300, 0.5)


def test_only_the_organiser_may_post_quick_settings(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign), "post", {"patience": 5, "alpha": 0.5, "version": 1})
    campaign.refresh_from_db()
    assert campaign.patience == 1250


def test_ranked_list_runs_are_reported_apart_from_conversation_runs_with_their_gfr_means(organiser, campaign):
    add_ranked_list_runs(campaign)
    response = organiser.get(url(campaign))
    report = response.context["report"]
    assert [r["run"] for r in report.runs] == ["bard-trial1", "bing-trial1", "chatgpt-trial1"]
    assert [r["run"] for r in report.ranked.runs] == ["web-a", "web-b", "web-c"]
    assert report.ranked.columns == ["ERR", "iRBU", "GFR-ERR+NMD+JSD", "GFR-ERR+RNOD+JSD", "GFR-iRBU+NMD+JSD", "GFR-iRBU+RNOD+JSD"]
    cell = report.ranked.runs[0]["cells"]["GFR-ERR+RNOD+JSD"]
    assert 0 < cell.mean < 1 and cell.low <= cell.mean <= cell.high
    content = response.content.decode()
    assert "Ranked-list runs: GFR@20" in content and 'id="ranked-run-table"' in content
    assert "Conversation run" in content


def test_the_report_of_a_campaign_without_ranked_lists_has_no_ranked_list_section(organiser, campaign):
    response = organiser.get(url(campaign))
    assert response.context["report"].ranked is None
    assert 'id="ranked-run-table"' not in response.content.decode()


def test_the_ranked_list_runs_have_csvs_of_their_own_one_table_each(organiser, campaign):
    import csv
    import io

    add_ranked_list_runs(campaign)
    conversation_runs = b"".join(organiser.get(reverse("console:report_csv", kwargs={"slug": campaign.slug})).streaming_content).decode()
    assert "web-a" not in conversation_runs and "#" not in conversation_runs
    per_run = organiser.get(reverse("console:report_ranked_csv", kwargs={"slug": campaign.slug}))
    rows = list(csv.DictReader(io.StringIO(b"".join(per_run.streaming_content).decode())))
    assert [r["run"] for r in rows] == ["web-a", "web-b", "web-c"] and "GFR-ERR+RNOD+JSD_ci_low" in rows[0]
    per_topic = organiser.get(reverse("console:report_ranked_csv", kwargs={"slug": campaign.slug, "per_topic": "-topics"}))
    rows = list(csv.DictReader(io.StringIO(b"".join(per_topic.streaming_content).decode())))
    assert {r["run"] for r in rows} == {"web-a", "web-b", "web-c"} and "topic" in rows[0]


def test_the_ranked_list_report_reads_the_stored_figures_and_re_scores_an_edited_judgments_topic_only(organiser, campaign, monkeypatch):
    from annotator.judgments.edits import update_entity
    from annotator.models import Entity, Grade
    from annotator.scores import ranked_lists

    add_ranked_list_runs(campaign)
    organiser.get(url(campaign))  # scored and stored
    asked: list[set] = []
    real = ranked_lists.compute_figures
    monkeypatch.setattr(ranked_lists, "compute_figures", lambda c, topics, *a, **k: asked.append(set(topics)) or real(c, topics, *a, **k))
    before = organiser.get(url(campaign)).context["report"].ranked.topics
    assert asked == []
    entity = Entity.objects.get(topic__campaign=campaign, topic__code="M001", key="d1")
    update_entity(entity, actor=None, expected_version=entity.version, grade=Grade.objects.get(campaign=campaign, label="L2"))
    after = organiser.get(url(campaign)).context["report"].ranked.topics
    assert asked == [{entity.topic_id}]
    assert [t["cells"]["ERR"].mean for t in after] != [t["cells"]["ERR"].mean for t in before]


def test_the_ranked_lists_can_be_scored_with_ntcirevals_six_decimal_uniform_vectors_page_and_csvs(organiser, campaign):
    from annotator.models import RankedListFigures

    add_ranked_list_runs(campaign)
    plain = organiser.get(url(campaign)).content.decode()
    assert 'name="as_ntcireval" value="1">' in plain and "?as_ntcireval=1" not in plain
    response = organiser.get(url(campaign) + "?as_ntcireval=1")
    content = response.content.decode()
    assert response.context["report"].as_ntcireval and 'name="as_ntcireval" value="1" checked>' in content
    assert "its six-decimal uniform vectors" in content and content.count("?as_ntcireval=1") == 2
    assert RankedListFigures.objects.filter(as_ntcireval=True).exists()
    per_topic = organiser.get(reverse("console:report_ranked_csv", kwargs={"slug": campaign.slug, "per_topic": "-topics"}) + "?as_ntcireval=1")
    assert b"web-a" in b"".join(per_topic.streaming_content)


def test_every_conversation_is_paged_and_sorted_by_any_column_with_the_csv_for_all(organiser, campaign, monkeypatch):
    from annotator.console import reports

    monkeypatch.setattr(reports, "CONVERSATIONS_PAGE", 4)
    table = reports.score_table(campaign)
    url = reverse("console:report", kwargs={"slug": campaign.slug})
    first = organiser.get(url).context["report"]
    assert first.pages == -(-len(table) // 4) > 1 and len(first.rows) == 4
    last = organiser.get(url, {"page": first.pages, "sort": "GFRC", "order": "desc"})
    report = last.context["report"]
    assert report.page == first.pages and report.sort == "GFRC" and report.descending
    lowest = sorted(table["GFRC"])[: len(report.rows)]
    assert sorted(row["values"][report.columns.index("GFRC")] for row in report.rows) == pytest.approx(lowest)
    html = last.content.decode()
    assert 'rel="prev"' in html and "?sort=GFRC&amp;order=desc&amp;page=" in html
    assert 'aria-sort="descending"' in html and "report-conversations.csv" in html
    assert organiser.get(url, {"page": "999"}).context["report"].page == first.pages  # clamped
