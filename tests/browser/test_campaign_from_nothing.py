"""A campaign from nothing, in a real browser, with no shell after `createsuperuser`: the
superuser allows an organiser to create campaigns (the admin); the organiser creates a campaign
from the FairWeb template, uploads its topics as TSV and its conversations, adds two new
annotators and one existing account, writes the guidelines, hands out the links and assigns;
an annotator sets her password through her link, reads the guidelines, annotates and says she is
done; the organiser sees the time spent and the same done count on the overview, the progress
page and the export."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from annotator.models import Assignment, Campaign, Conversation

pytestmark = pytest.mark.django_db(transaction=True)

HARVESTS = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "harvests"
TOPICS_TSV = "code\ttype\ttext\nM101\tM\tsci-fi movies that feature time travel, listed in IMDb\nM102\tM\theist movies, listed in IMDb\n"


def log_in(page, url: str, username: str, password: str) -> None:
    page.goto(f"{url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state("networkidle")


def log_out(page) -> None:
    page.get_by_role("button", name="Log out").click()
    page.wait_for_load_state("networkidle")


def test_a_new_organiser_goes_from_an_empty_install_to_annotators_at_work(page, browser, live_server, tmp_path):
    url = live_server.url
    User = get_user_model()
    User.objects.create_superuser("root", "root@example.org", "root-pw-0123456789")  # manage.py createsuperuser
    page.set_viewport_size({"width": 1400, "height": 1000})

    # 1. the superuser makes the organiser's account and allows it to create campaigns (the admin)
    log_in(page, url, "root", "root-pw-0123456789")
    for name in ("olivia", "carla"):
        page.goto(f"{url}/admin/auth/user/add/")
        page.locator("#id_username").fill(name)
        page.locator("#id_password1").fill(f"{name}-pw-0123456789")
        page.locator("#id_password2").fill(f"{name}-pw-0123456789")
        page.locator("input[name=_continue]").click()
        page.wait_for_load_state("networkidle")
    olivia = User.objects.get(username="olivia")
    page.goto(f"{url}/admin/auth/user/{olivia.pk}/change/")
    page.select_option("#id_user_permissions_from", label="GFRC annotation | campaign | Can add campaign")
    page.locator("#id_user_permissions_add").click()
    page.locator("input[name=_save]").click()
    page.wait_for_load_state("networkidle")
    assert User.objects.get(username="olivia").has_perm("annotator.add_campaign")
    log_out(page)

    # 2. the organiser creates a campaign from the FairWeb template
    log_in(page, url, "olivia", "olivia-pw-0123456789")
    page.get_by_role("link", name="Console").click()
    page.get_by_role("link", name="New campaign").click()
    page.get_by_label("Name").fill("FairWeb-2 conversational")
    page.get_by_label("Slug").fill("fw2")
    page.get_by_label("Start from").select_option("fairweb")
    page.get_by_role("button", name="Create the campaign").click()
    expect(page.locator("h1")).to_have_text("Topics")
    campaign = Campaign.objects.get(slug="fw2")
    assert list(campaign.organisers.values_list("username", flat=True)) == ["olivia"]

    # 3. its topics as TSV, then its conversations
    topics = tmp_path / "topics.tsv"
    topics.write_text(TOPICS_TSV)
    page.locator("#id_topics_file").set_input_files(str(topics))
    page.get_by_role("button", name="Add these topics").click()
    expect(page.locator('tr[data-topic="M102"]')).to_be_visible()
    for code, name in (("M101", "M002-perplexity.jsonl"), ("M102", "M001-perplexity.jsonl")):
        page.goto(f"{url}/console/fw2/upload/")
        page.locator("#id_files").set_input_files(str(HARVESTS / name))
        page.locator("#id_run").fill("perplexity")
        page.locator("#id_topic").fill(code)
        page.get_by_role("button", name="Import").click()
        expect(page.locator(".messages")).to_contain_text("conversation(s) imported")
    conversations = Conversation.objects.filter(topic__campaign=campaign).count()
    assert conversations >= 3

    # 4. its guidelines
    page.get_by_role("link", name="Guidelines").click()
    page.get_by_label("Guidelines (Markdown)").fill("# Judging\n\nMark each **movie** the turn names; grade it.")
    page.get_by_label("Note for topic type M (Movies)").fill("The IMDb page is the movie's page.")
    page.get_by_role("button", name="Save as a new version").click()
    expect(page.locator(".messages")).to_contain_text("Version 1 of the guidelines is in force")

    # 5. its people: two new annotators and one existing account; the links are handed out
    page.get_by_role("link", name="People").click()
    page.get_by_label("People, one a line").fill("ana\nbruno,bruno@example.org\ncarla")
    page.get_by_role("button", name="Add them").click()
    expect(page.locator("#invitations")).to_be_visible()
    links = {row.get_attribute("data-invitation"): row.locator("code.link").inner_text()
             for row in page.locator("#invitations tr[data-invitation]").all()}
    assert set(links) == {"ana", "bruno"}
    with page.expect_download() as download:
        page.get_by_role("button", name="Download as CSV").click()
    rows = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text())))
    assert [r["username"] for r in rows] == ["ana", "bruno"]

    # 6. assigning: one annotator a conversation
    page.get_by_role("link", name="Assign").click()
    for name in ("ana", "bruno", "carla"):
        page.get_by_label(name, exact=True).check()
    page.get_by_role("button", name=re.compile("Assign")).click()
    page.wait_for_load_state("networkidle")
    people = Assignment.objects.filter(conversation__topic__campaign=campaign).exclude(annotator__username="citations")
    assert people.count() == conversations and set(people.values_list("annotator__username", flat=True)) == {"ana", "bruno", "carla"}
    log_out(page)

    # 7. an annotator sets her password through her link, reads the guidelines, annotates, is done
    annotator = browser.new_context(viewport={"width": 1400, "height": 1000})
    ana = annotator.new_page()
    ana.goto(links["ana"].replace("http://testserver", url))
    expect(ana.locator("h1")).to_have_text("Set your password")
    ana.get_by_label("New password").fill("ana-chooses-this-one")
    ana.get_by_label("The same again").fill("ana-chooses-this-one")
    ana.get_by_role("button", name="Set my password").click()
    expect(ana.locator("h1")).to_have_text("My queue")
    expect(ana.locator("#guidelines-fw2 summary")).to_contain_text("Guidelines of FairWeb-2 conversational")
    ana.locator("#next-unfinished").click()
    ana.wait_for_load_state("networkidle")
    ana.keyboard.press("g")
    expect(ana.locator("#guidelines")).to_have_attribute("open", "")
    expect(ana.locator("#guidelines")).to_contain_text("The IMDb page is the movie's page.")
    ana.keyboard.press("g")
    first = ana.locator("#turns [data-accept]").first  # the system's first cited span
    first.click()
    expect(ana.locator("#editor")).to_contain_text("Entity")
    ana.locator("#grade-2").click()
    expect(ana.locator("#grade-2")).to_have_attribute("aria-pressed", "true")
    ana.wait_for_timeout(1200)  # a moment of reading before saying it is done
    ana.keyboard.press("f")
    expect(ana.locator("#done-control")).to_contain_text("Done")
    expect(ana.locator("#done-button")).to_have_text("Reopen")
    done = Assignment.objects.get(annotator__username="ana", done_at__isnull=False)
    assert done.guidelines_version == 1 and done.active_seconds > 1.0
    annotator.close()

    # 8. the organiser sees the time spent and the same done count everywhere
    log_in(page, url, "olivia", "olivia-pw-0123456789")
    page.goto(f"{url}/console/fw2/")
    expect(page.locator(".stats")).to_contain_text(f"1/{conversations}")
    page.goto(f"{url}/console/fw2/progress/")
    ana_row = page.locator("tr", has=page.locator("td", has_text=re.compile("^ana$")))
    expect(ana_row.locator("td").nth(3)).to_have_text("1")
    seconds = float(ana_row.locator("td[data-seconds]").get_attribute("data-seconds"))
    assert seconds >= 1
    with page.expect_download() as download:
        page.get_by_role("link", name="Every assignment as CSV").click()
    rows = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text())))
    assert [r["annotator"] for r in rows if r["done_at"]] == ["ana"]
    assert float(next(r for r in rows if r["done_at"])["active_seconds"]) == pytest.approx(done.active_seconds, abs=0.1)
