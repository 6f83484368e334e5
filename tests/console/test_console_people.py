"""A campaign's people, on its accounts page: added by name (an existing account as it is, a
new one with a one-time link to set its password: shown once, downloadable as CSV, e-mailed
where mail is configured), a new link for a lost one, taken out of the campaign. Never staff,
superusers, the app's own accounts or automatic judges; all or nothing."""

from __future__ import annotations

import csv
import io
import re

from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from annotator.models import AnnotatorProfile, Assignment, CampaignMember
from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.factories import make_campaign, make_conversation, make_user

User = get_user_model()


def page(campaign) -> str:
    return reverse("console:accounts", args=[campaign.slug])


def add(organiser, campaign, text: str, role: str = "annotator"):
    return organiser.post(page(campaign), {"usernames": text, "role": role})


def links_in(html: str) -> dict[str, str]:
    return dict(re.findall(r'<tr data-invitation="([^"]+)">.*?<code class="link">([^<]+)</code>', html, re.S))


def test_only_the_campaigns_organisers_add_people(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, page(campaign), method="post", data={"usernames": "zed", "role": "annotator"})
    assert not User.objects.filter(username="zed").exists()


def test_an_existing_account_is_added_as_it_is_and_new_names_get_accounts_and_links(organiser, campaign):
    existing = make_user("dora", email="dora@old.example")
    response = add(organiser, campaign, "dora,dora@new.example\nemil\nfay,Fay Gold,fay@example.org")
    assert response.status_code == 200
    html = response.content.decode()
    links = links_in(html)
    assert set(links) == {"emil", "fay"} and all(link.startswith("http://testserver/accounts/reset/") for link in links.values())
    assert "These links are shown only now" in html
    existing.refresh_from_db()
    assert existing.email == "dora@old.example" and existing.has_usable_password()  # never changed
    for name in ("dora", "emil", "fay"):
        assert CampaignMember.objects.filter(campaign=campaign, user__username=name).exists()
    fay = User.objects.get(username="fay")
    assert (fay.email, fay.get_full_name(), fay.has_usable_password()) == ("fay@example.org", "Fay Gold", False)
    assert fay.annotator_profile.campaign == campaign and not fay.annotator_profile.is_automatic
    assert not (fay.is_staff or fay.is_superuser)
    # shown once: the page does not show them again
    assert links_in(organiser.get(page(campaign)).content.decode()) == {}


def test_the_link_sets_the_password_logs_the_person_in_and_then_works_no_more(organiser, campaign):
    link = links_in(add(organiser, campaign, "gus").content.decode())["gus"]
    path = link.removeprefix("http://testserver")
    person = Client()
    form = person.get(path, follow=True)
    assert form.status_code == 200 and "Set your password" in form.content.decode() and "gus" in form.content.decode()
    set_url = form.redirect_chain[-1][0]
    done = person.post(set_url, {"new_password1": "a-long-passphrase-1", "new_password2": "a-long-passphrase-1"}, follow=True)
    assert done.redirect_chain[-1][0] in (reverse("home"), reverse("queue")) and "Your password is set" in done.content.decode()
    assert Client().login(username="gus", password="a-long-passphrase-1")
    again = Client().get(path, follow=True)
    assert "This link no longer works" in again.content.decode()


def test_the_links_download_as_csv_for_the_people_just_invited_only(organiser, campaign):
    html = add(organiser, campaign, "hana\nivo").content.decode()
    ids = re.findall(r'<input type="hidden" name="user" value="(\d+)">', html)
    outsider = make_user("outsider")  # never invited here
    response = organiser.post(reverse("console:links_csv", args=[campaign.slug]), {"user": [*ids, outsider.pk]})
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["username"] for r in rows] == ["hana", "ivo"] and all("/accounts/reset/" in r["link"] for r in rows)
    assert response["Cache-Control"] == "no-store"


def test_links_are_emailed_where_mail_is_configured(organiser, campaign, settings):
    settings.GFRC_EMAIL_LINKS = True
    html = add(organiser, campaign, "jo,jo@example.org\nkai").content.decode()
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["jo@example.org"]
    assert links_in(html)["jo"] in mail.outbox[0].body and "(e-mailed)" in html


def test_staff_a_superuser_a_judge_or_a_reserved_name_refuse_the_whole_list(organiser, campaign):
    make_user("staffer", is_staff=True)
    User.objects.create_superuser("root", "root@example.org", "root-pw-123456")
    judge = make_user("some-llm")
    AnnotatorProfile.mark(judge)
    before = User.objects.count()
    response = add(organiser, campaign, "newbie\nstaffer\nroot\nsome-llm\ncitations\nbad name!\nx,not-an-email")
    assert response.status_code == 400
    problems = response.context["problems"]
    assert "line 2: staffer is an administrator's account (staff): never added here" in problems
    assert "line 3: root is an administrator's account (staff): never added here" in problems
    assert "line 4: some-llm is an automatic judge, not a person" in problems
    assert "line 5: citations is one of the app's own names: choose another" in problems
    assert any(p.startswith("line 6: 'bad name!' is not a user name") for p in problems)
    assert "line 7: 'not-an-email' is not an e-mail address" in problems
    assert User.objects.count() == before and not CampaignMember.objects.filter(user__username="newbie").exists()


def test_organisers_are_added_too(organiser, campaign):
    other = make_user("lea")
    add(organiser, campaign, "lea", role="organiser")
    assert campaign.organisers.filter(pk=other.pk).exists()
    lea = Client()
    lea.force_login(other)
    assert lea.get(reverse("console:overview", args=[campaign.slug])).status_code == 200


def test_a_lost_link_is_given_again_but_never_for_someone_who_set_a_password(organiser, campaign, demo):
    add(organiser, campaign, "max")
    max_ = User.objects.get(username="max")
    html = organiser.post(reverse("console:person_link", args=[campaign.slug, max_.pk])).content.decode()
    assert "max" in links_in(html)
    ann = demo[2][0]  # has a password
    response = organiser.post(reverse("console:person_link", args=[campaign.slug, ann.pk]), follow=True)
    assert "has set a password already" in response.content.decode() and links_in(response.content.decode()) == {}


def test_taking_someone_out_drops_their_unstarted_assignments_and_keeps_what_they_judged(organiser, campaign, demo):
    ann = demo[2][0]
    unstarted = make_conversation(campaign, [("U", "q"), ("S", "Primer (2004)")], topic="M001", run="new-run", annotators=[ann])
    judged = Assignment.objects.filter(annotator=ann).exclude(conversation=unstarted).count()
    url = reverse("console:person_remove", args=[campaign.slug, ann.pk])
    html = organiser.get(url).content.decode()
    assert "Their 1 assignment not started yet goes" in html and f"The {judged} conversations they judged keep" in html
    assert organiser.post(url).status_code == 302
    assert not Assignment.objects.filter(annotator=ann, conversation=unstarted).exists()
    assert Assignment.objects.filter(annotator=ann).count() == judged
    assert User.objects.filter(pk=ann.pk, is_active=True).exists()


def test_the_last_organiser_stays(organiser, campaign):
    org = campaign.organisers.get()
    response = organiser.post(reverse("console:person_remove", args=[campaign.slug, org.pk]), follow=True)
    assert "only organiser: add another one first" in response.content.decode() and campaign.organisers.filter(pk=org.pk).exists()


def test_people_of_other_campaigns_are_not_reached_from_this_one(organiser, campaign):
    elsewhere = make_user("elsewhere")
    make_conversation(make_campaign("other"), [("U", "q"), ("S", "a")], annotators=[elsewhere])
    for name in ("person_remove", "person_link"):
        assert organiser.post(reverse(f"console:{name}", args=[campaign.slug, elsewhere.pk])).status_code == 404
    assert Assignment.objects.filter(annotator=elsewhere).exists()


def test_everyone_changes_their_own_password(client, demo):
    ann = demo[2][0]
    client.force_login(ann)
    assert reverse("password_change") in client.get(reverse("home"), follow=True).content.decode()
    response = client.post(reverse("password_change"), {"old_password": "ann-pw", "new_password1": "another-long-one-2",
                                                        "new_password2": "another-long-one-2"})
    assert response.status_code == 302 and Client().login(username="ann", password="another-long-one-2")
