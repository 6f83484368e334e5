"""Bad input gets a 4xx with a message, never a 500: ids too large for the database in URLs and
query strings, letters where ids go, numbers beyond any vector, JSON nested too deeply."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from annotator.models import Entity
from tests.security.conftest import all_urls, judgment_counts

pytestmark = pytest.mark.django_db

HUGE = "99999999999999999999"  # 20 digits: more than any database id holds


def with_each_id_huge(url: str) -> list[str]:
    """The URL once per numeric path segment, that segment replaced by HUGE."""
    parts = url.split("/")
    return ["/".join(parts[:i] + [HUGE] + parts[i + 1:]) for i, part in enumerate(parts) if re.fullmatch(r"\d+", part)]


@pytest.fixture
def answers(client):
    client.raise_request_exception = False
    return client


def test_the_issues_urls_are_among_those_walked(site):
    urls = {u for _, url in all_urls(site.ids_for()) for u in with_each_id_huge(url)}
    assert f"/conversations/{HUGE}/" in urls
    assert f"/conversations/{HUGE}/nuggets/" in urls
    assert f"/conversations/{site.conversation.pk}/nuggets/{HUGE}/" in urls
    assert f"/api/nuggets/{HUGE}/" in urls


@pytest.mark.parametrize("who", ["alice", "organiser"])
def test_a_huge_id_in_any_url_is_a_404(answers, site, who):
    answers.force_login(getattr(site, who))
    counts = judgment_counts()
    problems = []
    for name, url in all_urls(site.ids_for()):
        if name.startswith("admin:"):  # Django's own, for superusers only
            continue
        for bad in with_each_id_huge(url):
            for method in ("get", "post"):
                response = getattr(answers, method)(bad, HTTP_HX_REQUEST="true")
                if response.status_code not in (404, 405):
                    problems.append(f"{method.upper()} {bad} ({name}): {response.status_code}")
    assert not problems, "huge ids were not a 404:\n" + "\n".join(problems)
    assert judgment_counts() == counts


@pytest.mark.parametrize("value", ["abc", HUGE, "-1", "1.5"])
def test_a_conversation_filter_that_is_no_id_is_a_400_with_a_message(answers, site, value):
    answers.force_login(site.alice)
    response = answers.get("/api/nuggets/", {"conversation": value})
    assert response.status_code == 400
    assert "conversation" in response.json()


def test_a_conversation_filter_with_an_id_still_filters(answers, site):
    answers.force_login(site.alice)
    response = answers.get("/api/nuggets/", {"conversation": site.conversation.pk})
    assert [n["id"] for n in response.json()["results"]] == [site.nugget.pk]


@pytest.mark.parametrize("value", [HUGE, "abc", "1e3"])
def test_a_scores_annotator_that_is_no_id_is_a_400_with_a_message(answers, site, value):
    answers.force_login(site.organiser)
    response = answers.get(f"/api/conversations/{site.conversation.pk}/scores/", {"annotator": value})
    assert response.status_code == 400
    assert "annotator" in response.json()


@pytest.mark.parametrize("params", [{"after": HUGE}, {"nugget": HUGE}])
def test_huge_ids_in_workspace_query_strings_are_ignored(answers, site, params):
    answers.force_login(site.alice)
    url = reverse("queue-next") if "after" in params else reverse("conversation", args=[site.conversation.pk])
    assert answers.get(url, params).status_code in (200, 302)


@pytest.mark.parametrize("vector, reason", [
    ("(1e999,0,0,0,0,0,0,0)", "out of range"),
    ("(1e-99999999,0,0,0,0,0,0,1)", "out of range"),
    ("(1e-99999,0,0,0,0,0,0,1)", "out of range"),  # accepted as 1 (a tiny share) before the bounds
])
def test_numbers_beyond_the_bounds_in_the_vector_form_are_a_422_with_the_reason(answers, site, vector, reason):
    answers.force_login(site.alice)
    entity = Entity.objects.get(pk=site.nugget.entity_id)
    prefix = f"m{site.attribute_set.pk}"
    counts = judgment_counts()
    response = answers.post(
        reverse("nugget-membership", args=[site.conversation.pk, site.nugget.pk, site.attribute_set.pk]),
        {f"{prefix}-vector": vector, f"{prefix}-do": "typed", f"{prefix}-version": entity.version},
        HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    assert reason in response.content.decode()
    assert judgment_counts() == counts and not Entity.objects.get(pk=entity.pk).memberships.exists()


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("url", ["/api/nuggets/", "/api/token/"])
def test_json_nested_too_deeply_is_a_400_with_a_message(answers, site, url):
    answers.force_login(site.alice)
    response = answers.post(url, nested(100_000), content_type="application/json")
    assert response.status_code == 400
    assert "nested too deeply" in response.json()["detail"]


def test_json_nested_too_deeply_in_an_entity_change_is_a_400(answers, site):
    answers.force_login(site.alice)
    body = '{"version": 1, "comment": ' + nested(100_000) + "}"
    response = answers.patch(f"/api/entities/{site.nugget.entity_id}/", body, content_type="application/json")
    assert response.status_code == 400


def test_a_huge_integer_in_an_api_vector_is_a_400(answers, site):
    answers.force_login(site.alice)
    entity = Entity.objects.get(pk=site.nugget.entity_id)
    body = json.dumps({"attribute_set": "ORIGIN", "version": entity.version, "vector": [10**400, 0, 0, 0, 0, 0, 0, 0]})
    response = answers.post(f"/api/entities/{entity.pk}/membership/", body, content_type="application/json")
    assert response.status_code == 400


@pytest.mark.parametrize("bad", [HUGE, "1e400", "-1", "abc"])
def test_an_id_no_database_holds_in_an_admin_url_is_never_a_500(answers, site, bad):
    """Django's admin (superusers only): for every model it shows, its object pages answer
    "does not exist" (a redirect) or refuse, its lists filter to nothing or refuse the filter;
    nothing is deleted."""
    from django.apps import apps
    from django.contrib import admin
    from django.contrib.auth import get_user_model

    answers.force_login(get_user_model().objects.create_superuser("root", "root@example.org", "root-pw-123456"))
    counts = judgment_counts()
    problems = []
    models = [m for m in apps.get_models() if admin.site.is_registered(m)]
    assert len(models) >= 8
    for model in models:
        base = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        for url in (f"{base}{bad}/change/", f"{base}{bad}/history/", f"{base}{bad}/delete/", f"{base}?id__exact={bad}"):
            response = answers.get(url)
            if response.status_code >= 500:
                problems.append(f"GET {url}: {response.status_code}")
        response = answers.post(f"{base}{bad}/delete/", {"post": "yes"})
        if response.status_code >= 500 or response.status_code == 200:
            problems.append(f"POST {base}{bad}/delete/: {response.status_code}")
    assert not problems, "\n".join(problems)
    assert judgment_counts() == counts
