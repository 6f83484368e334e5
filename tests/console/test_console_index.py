import pytest
from django.urls import reverse

URL = reverse("console:index")


def test_an_anonymous_visitor_is_sent_to_log_in(client_as):
    response = client_as("anonymous").get(URL)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_an_annotator_who_organises_nothing_is_forbidden(client_as):
    assert client_as("annotator").get(URL).status_code == 403


def test_an_organiser_sees_their_campaigns_and_not_others(client_as):
    response = client_as("organiser").get(URL)
    assert response.status_code == 200
    assert b"FairWeb pilot (demo)" in response.content
    assert b"Campaign other" not in response.content


def test_another_organiser_sees_only_their_own_campaign(client_as):
    response = client_as("other organiser").get(URL)
    assert b"Campaign other" in response.content
    assert b"FairWeb pilot (demo)" not in response.content


@pytest.mark.django_db
def test_the_index_links_to_the_api_docs_and_token_page(organiser):
    content = organiser.get(URL).content.decode()
    assert reverse("api-docs") in content and reverse("api-token-page") in content
