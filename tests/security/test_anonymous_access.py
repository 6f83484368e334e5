"""Nobody gets in without logging in: every named URL of the site (found by walking the URL
resolver, so views added later are covered automatically) sends an anonymous visitor to the
login page or answers 401/403/405, for GET and for POST, and changes nothing."""

from __future__ import annotations

import pytest

from tests.security.conftest import all_urls, judgment_counts, named_patterns

pytestmark = pytest.mark.django_db

# Pages that are meant to be public: logging in, setting one's password with the one-time link an
# organiser handed out (the link's token is the credential: tests/console/test_console_people.py),
# the API's self-description (no data), the site's icon.
PUBLIC_GET = {"login", "admin:login", "password_reset_confirm", "api-schema", "api-docs", "favicon"}
# POSTs that are meant for anonymous visitors: logging in, setting a password with that link, and
# getting an API token (with a password).
PUBLIC_POST = {"login", "admin:login", "password_reset_confirm", "api-token"}
REFUSED = {401, 403, 405}


def refused(response, client=None, hops: int = 2) -> bool:
    """401/403/405, or a redirect that ends at a login page (admin:logout goes via /admin/)."""
    if response.status_code in REFUSED:
        return True
    if response.status_code == 302:
        location = response["Location"]
        if "/login/" in location:
            return True
        if client is not None and hops and location.startswith("/"):
            return refused(client.get(location), client, hops - 1)
    return False


def describe(response) -> str:
    extra = f" -> {response['Location']}" if response.status_code in (301, 302) else ""
    return f"{response.status_code}{extra}"


def test_the_walk_finds_the_sites_urls(site):
    names = {name for name, _ in named_patterns()}
    assert {"home", "login", "queue", "history:conversation", "console:index"} <= names
    urls = dict(all_urls(site.ids_for()))
    assert urls["history:conversation"] == f"/history/conversations/{site.conversation.pk}/"


def test_anonymous_get_of_every_url_is_refused(client, site):
    counts = judgment_counts()
    problems = []
    for name, url in all_urls(site.ids_for()):
        if name in PUBLIC_GET:
            continue
        response = client.get(url)
        if not refused(response, client):
            problems.append(f"GET {url} ({name}): {describe(response)}")
    assert not problems, "anonymous visitors were not refused:\n" + "\n".join(problems)
    assert judgment_counts() == counts


def test_anonymous_post_to_every_url_is_refused(client, site):
    counts = judgment_counts()
    problems = []
    for name, url in all_urls(site.ids_for()):
        if name in PUBLIC_POST:
            continue
        response = client.post(url, {"start_word": 0, "end_word": 1, "label": "o", "name": "x"},
                               HTTP_HX_REQUEST="true")
        if refused(response, client):
            continue
        problems.append(f"POST {url} ({name}): {describe(response)}")
    assert not problems, "anonymous posts were not refused:\n" + "\n".join(problems)
    assert judgment_counts() == counts


def test_anonymous_htmx_requests_are_refused_too(client, site):
    """htmx asks for fragments; an anonymous one must still get no data."""
    problems = []
    for name, url in all_urls(site.ids_for()):
        if name in PUBLIC_GET:
            continue
        response = client.get(url, HTTP_HX_REQUEST="true")
        if not (refused(response, client) or response.status_code == 204 and response.get("HX-Redirect")):
            problems.append(f"GET (htmx) {url} ({name}): {describe(response)}")
    assert not problems, "\n".join(problems)


def test_public_pages_show_no_judgments(client, site):
    for name, url in all_urls(site.ids_for()):
        if name not in PUBLIC_GET:
            continue
        response = client.get(url)
        if response.status_code == 200 and response.get("Content-Type", "").startswith("text/html"):
            body = response.content.decode(errors="replace")
            assert "Back to the Future" not in body and "imdb.com/title" not in body, name
