from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import make_user


def test_a_script_obtains_a_token_with_username_and_password_and_uses_it(demo):
    client = APIClient()
    response = client.post("/api/token/", {"username": "ann", "password": "ann-pw"}, format="json")
    assert response.status_code == 200
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert client.get("/api/conversations/").status_code == 200


def test_a_wrong_password_gets_no_token(demo):
    assert APIClient().post("/api/token/", {"username": "ann", "password": "nope"}, format="json").status_code == 400


def test_a_bad_token_is_401(demo):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert client.get("/api/conversations/").status_code == 401


def test_the_token_page_creates_and_shows_the_users_token(demo):
    client = Client()
    client.force_login(demo[2][0])
    assert "no token yet" in client.get("/api/token/mine/").content.decode()
    response = client.post("/api/token/mine/")
    token = Token.objects.get(user=demo[2][0])
    assert token.key in response.content.decode()
    client.post("/api/token/mine/")
    assert Token.objects.get(user=demo[2][0]).key != token.key


def test_the_token_page_needs_a_login(demo):
    response = Client().get("/api/token/mine/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_token_page_and_the_token_endpoint_tell_caches_not_to_store_the_token(demo):
    client = Client()
    client.force_login(demo[2][0])
    for response in (client.get("/api/token/mine/"), client.post("/api/token/mine/")):
        assert "no-store" in response["Cache-Control"]
    obtained = APIClient().post("/api/token/", {"username": "ann", "password": "ann-pw"}, format="json")
    assert obtained.status_code == 200 and "no-store" in obtained["Cache-Control"]


def revoke_url(campaign, annotator) -> str:
    return f"/api/campaigns/{campaign.slug}/annotators/{annotator.pk}/token/"


def test_an_organiser_revokes_an_annotators_token_and_the_token_stops_working(demo, api_as):
    campaign, _, (ann, _) = demo
    token = Token.objects.create(user=ann)
    assert api_as("organiser").delete(revoke_url(campaign, ann)).status_code == 204
    assert not Token.objects.filter(user=ann).exists()
    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert script.get("/api/conversations/").status_code == 401


def test_only_the_campaigns_organiser_revokes_its_annotators_tokens(demo, api_as):
    campaign, _, (ann, bob) = demo
    Token.objects.create(user=bob)
    assert api_as("anonymous").delete(revoke_url(campaign, bob)).status_code == 401
    assert api_as("annotator").delete(revoke_url(campaign, bob)).status_code == 403
    assert api_as("other organiser").delete(revoke_url(campaign, bob)).status_code == 404
    assert Token.objects.filter(user=bob).exists()


def test_an_organiser_cannot_revoke_the_token_of_someone_outside_the_campaign(demo, api_as):
    campaign = demo[0]
    outsider = make_user("outsider")
    Token.objects.create(user=outsider)
    assert api_as("organiser").delete(revoke_url(campaign, outsider)).status_code == 404
    assert api_as("organiser").delete(f"/api/campaigns/{campaign.slug}/annotators/{10**30}/token/").status_code == 404
    assert Token.objects.filter(user=outsider).exists()
