from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient


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
