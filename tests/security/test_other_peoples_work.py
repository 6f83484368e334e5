"""An annotator cannot reach another annotator's conversation, nuggets or entities by id (HTML
and API), cannot use organiser pages, and cannot post without a CSRF token. Each refusal
changes nothing. URL walks cover views added later automatically."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotator.models import Nugget
from tests.security.conftest import all_urls, judgment_counts

pytestmark = pytest.mark.django_db

OWNED_PARAMS = ("conversation_id", "conversation", "nugget_id", "turn_id", "entity_id")
FORM = {"start_word": 0, "end_word": 1, "label": "x", "name": "hijacked", "grade": 1, "vector": "1 0 0 0 0 0 0 0",
        "evidence": "x", "version": 1, "expected_version": 1, "comment": "x"}


def bobs_rows():
    return sorted(Nugget.objects.filter(annotator__username="bob").values_list("id", "start_word", "end_word", "version"))


def urls_with_someone_elses_ids(site):
    alices = dict(all_urls(site.ids_for("alice")))
    bobs = dict(all_urls(site.ids_for("bob")))
    return [(name, url) for name, url in sorted(bobs.items())
            if not name.startswith("admin:") and url != alices.get(name)]


def test_the_walk_uses_bobs_ids(site):
    urls = dict(urls_with_someone_elses_ids(site))
    assert urls["conversation"] == f"/conversations/{site.bobs_conversation.pk}/"
    assert f"/nuggets/{site.bobs_nugget.pk}/" in urls["nugget-delete"]


def test_alice_cannot_reach_bobs_conversation_by_id(client, site):
    client.force_login(site.alice)
    client.raise_request_exception = False
    counts, rows = judgment_counts(), bobs_rows()
    problems = []
    for name, url in urls_with_someone_elses_ids(site):
        for method in ("get", "post"):
            response = getattr(client, method)(url, FORM if method == "post" else None, HTTP_HX_REQUEST="true")
            if response.status_code not in (403, 404, 405):
                problems.append(f"{method.upper()} {url} ({name}) as alice: {response.status_code}")
    assert not problems, "alice reached bob's work:\n" + "\n".join(problems)
    assert judgment_counts() == counts and bobs_rows() == rows


def test_alice_cannot_reach_bobs_work_through_the_api(client, site):
    client.force_login(site.alice)
    client.raise_request_exception = False
    counts, rows = judgment_counts(), bobs_rows()
    bob_conversation, bob_nugget = site.bobs_conversation.pk, site.bobs_nugget.pk
    bob_entity = site.bobs_nugget.entity_id
    problems = []
    for url in (f"/api/conversations/{bob_conversation}/", f"/api/nuggets/{bob_nugget}/", f"/api/entities/{bob_entity}/",
                f"/api/conversations/{bob_conversation}/scores/"):
        for method in ("get", "patch", "put", "delete"):
            response = getattr(client, method)(url, {"start_word": 0, "end_word": 1, "name": "hijacked"},
                                               content_type="application/json")
            if response.status_code not in (403, 404, 405):
                problems.append(f"{method.upper()} {url}: {response.status_code}")
    response = client.post("/api/nuggets/", {"turn": site.bobs_conversation.turns.get(position=2).pk,
                                             "start_word": 7, "end_word": 8}, content_type="application/json")
    if response.status_code not in (400, 403, 404):
        problems.append(f"POST /api/nuggets/ in bob's turn: {response.status_code}")
    for listing in ("/api/conversations/", "/api/nuggets/", "/api/entities/"):
        response = client.get(listing)
        if response.status_code == 200:
            body = response.content.decode()
            data = response.json()
            items = data.get("results", data) if isinstance(data, dict) else data
            ids = {item.get("id") for item in items if isinstance(item, dict)}
            kind = listing.strip("/").split("/")[-1]
            foreign = {"conversations": bob_conversation, "nuggets": bob_nugget, "entities": bob_entity}[kind]
            if foreign in ids:
                problems.append(f"GET {listing} lists bob's {kind[:-1]} {foreign}")
            assert "hijacked" not in body
    assert not problems, "\n".join(problems)
    assert judgment_counts() == counts and bobs_rows() == rows


def test_annotators_cannot_use_organiser_pages(client, site):
    client.force_login(site.alice)
    client.raise_request_exception = False
    counts = judgment_counts()
    problems = []
    for name, url in all_urls(site.ids_for("alice")):
        if not name.startswith(("console:", "history:", "admin:")) or name in {"admin:login", "admin:logout"}:
            continue
        for method in ("get", "post"):
            response = getattr(client, method)(url, FORM if method == "post" else None)
            status = response.status_code
            if name == "console:index" and method == "get" and status == 200:
                if site.campaign.name in response.content.decode():
                    problems.append(f"GET {url}: lists the campaign to an annotator")
                continue
            if name.startswith("admin:") and status == 302 and "/admin/login/" in response["Location"]:
                continue
            if status not in (403, 404, 405):
                problems.append(f"{method.upper()} {url} ({name}) as annotator: {status}")
    assert not problems, "an annotator reached organiser pages:\n" + "\n".join(problems)
    assert judgment_counts() == counts


def test_another_campaigns_organiser_cannot_use_this_campaigns_pages(client, site):
    from tests.factories import make_campaign, make_user

    oscar = make_user("oscar")
    make_campaign(slug="other", organiser=oscar)
    client.force_login(oscar)
    client.raise_request_exception = False
    counts = judgment_counts()
    problems = []
    for name, url in all_urls(site.ids_for("alice")):
        if not name.startswith(("console:", "history:")) or name == "console:index":
            continue
        for method in ("get", "post"):
            response = getattr(client, method)(url, FORM if method == "post" else None)
            if response.status_code not in (403, 404, 405):
                problems.append(f"{method.upper()} {url} ({name}) as another campaign's organiser: {response.status_code}")
    assert not problems, "\n".join(problems)
    assert judgment_counts() == counts


def test_posts_without_a_csrf_token_are_refused(site):
    """Logged in with a session, but the POST carries no CSRF token: 403 everywhere, nothing changed."""
    problems = []
    counts = judgment_counts()
    for user, ids in ((site.alice, site.ids_for("alice")), (site.organiser, site.ids_for("alice"))):
        client = Client(enforce_csrf_checks=True)
        client.force_login(user)
        client.raise_request_exception = False
        for name, url in all_urls(ids):
            if name.startswith("admin:") or name in {"api-token"}:  # the token endpoint takes a password, no session
                continue
            response = client.post(url, FORM, HTTP_HX_REQUEST="true")
            if response.status_code not in (403, 405):
                problems.append(f"POST {url} ({name}) as {user} without CSRF token: {response.status_code}")
    assert not problems, "\n".join(problems)
    assert judgment_counts() == counts


def test_a_post_with_the_csrf_token_works(site):
    """The CSRF check above refuses for the right reason: the same post with the token goes through."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(site.alice)
    client.get(reverse("conversation", args=[site.conversation.pk]))
    token = client.cookies["csrftoken"].value
    label_url = reverse("turn-label", args=[site.conversation.pk, site.turn.pk])
    response = client.post(label_url, {"label": "o"}, HTTP_X_CSRFTOKEN=token, HTTP_HX_REQUEST="true")
    assert response.status_code in (200, 204, 302, 409), response.status_code


def test_api_tokens_reach_only_their_owners_work(site):
    """Token authentication (no session, no CSRF): bob's objects are 404 for alice's token too."""
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=site.alice)
    client = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    client.raise_request_exception = False
    counts, rows = judgment_counts(), bobs_rows()
    assert client.get(f"/api/nuggets/{site.nugget.pk}/").status_code == 200  # her own
    for url in (f"/api/conversations/{site.bobs_conversation.pk}/", f"/api/nuggets/{site.bobs_nugget.pk}/",
                f"/api/entities/{site.bobs_nugget.entity_id}/"):
        assert client.get(url).status_code == 404, url
        assert client.delete(url).status_code in (403, 404, 405), url
    bad = Client(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert bad.get("/api/nuggets/").status_code == 401
    assert judgment_counts() == counts and bobs_rows() == rows
