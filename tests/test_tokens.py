"""A token dies with the credentials behind it (annotator.tokens)."""

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import make_user


def test_changing_the_password_revokes_the_token(db):
    user = make_user("ann")
    token = Token.objects.create(user=user)
    user.set_password("a new password")
    user.save()
    assert not Token.objects.filter(user=user).exists()
    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert script.get("/api/conversations/").status_code == 401


def test_deactivating_the_user_revokes_the_token(db):
    user = make_user("ann")
    Token.objects.create(user=user)
    user.is_active = False
    user.save(update_fields=["is_active"])
    assert not Token.objects.filter(user=user).exists()


def test_saving_a_user_without_touching_the_credentials_keeps_the_token(db, django_assert_num_queries):
    user = make_user("ann")
    token = Token.objects.create(user=user)
    user.first_name = "Ann"
    user.save()
    # A login saves only last_login: no query looks at the old credentials.
    with django_assert_num_queries(1):  # UPDATE auth_user SET last_login
        user.save(update_fields=["last_login"])
    assert Token.objects.get(user=user) == token
