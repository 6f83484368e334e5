"""Logins are throttled per account and per address (django-axes): the login page and the
API's token endpoint share one count; an organiser unlocks with `manage.py axes_reset_*`."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import make_user

LOGIN = "/accounts/login/"
TOKEN = "/api/token/"


@pytest.fixture(autouse=True)
def throttling(settings):
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 5
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    return settings


@pytest.fixture
def ann(db):
    return make_user("ann")


def log_in(client: Client, username: str, password: str, address: str = "10.0.0.1"):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=address)


def get_token(username: str, password: str, address: str = "10.0.0.1"):
    return APIClient().post(TOKEN, {"username": username, "password": password}, format="json", REMOTE_ADDR=address)


def test_a_hundred_wrong_passwords_are_not_all_answered_as_usual(ann):
    statuses = [log_in(Client(), "ann", f"guess-{i}").status_code for i in range(100)]
    assert statuses[:4] == [200] * 4  # the form again, with its error
    assert set(statuses[5:]) == {429}


def test_after_the_lockout_the_right_password_does_not_log_in(ann):
    for i in range(5):
        log_in(Client(), "ann", f"guess-{i}")
    client = Client()
    response = log_in(client, "ann", "ann-pw")
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_an_account_is_locked_from_every_address(ann):
    for i in range(5):
        log_in(Client(), "ann", f"guess-{i}", address=f"10.0.1.{i}")
    assert log_in(Client(), "ann", "ann-pw", address="10.0.2.1").status_code == 429


def test_an_address_is_locked_for_every_account(ann):
    for i in range(5):
        log_in(Client(), f"someone-{i}", "guess", address="10.0.3.1")
    assert log_in(Client(), "ann", "ann-pw", address="10.0.3.1").status_code == 429
    assert log_in(Client(), "ann", "ann-pw", address="10.0.3.2").status_code == 302


def test_resetting_the_username_unlocks_the_account(ann):
    for i in range(5):
        log_in(Client(), "ann", f"guess-{i}", address=f"10.0.4.{i}")
    call_command("axes_reset_username", "ann")
    assert log_in(Client(), "ann", "ann-pw", address="10.0.5.1").status_code == 302


def test_the_lockout_ends_after_the_cool_off(ann, throttling):
    for i in range(5):
        log_in(Client(), "ann", f"guess-{i}")
    assert log_in(Client(), "ann", "ann-pw").status_code == 429
    throttling.AXES_COOLOFF_TIME = timedelta(microseconds=1)  # the failures are now older than it
    assert log_in(Client(), "ann", "ann-pw").status_code == 302


def test_the_token_endpoint_is_throttled_too_and_the_right_password_gets_no_token(ann):
    statuses = [get_token("ann", f"guess-{i}").status_code for i in range(20)]
    assert statuses[:4] == [400] * 4
    assert set(statuses[5:]) == {429}
    locked = get_token("ann", "ann-pw")
    assert locked.status_code == 429 and "token" not in locked.json()
    assert locked["Retry-After"] == str(15 * 60)


def test_failures_on_the_login_page_lock_the_token_endpoint(ann):
    for i in range(5):
        log_in(Client(), "ann", f"guess-{i}")
    assert get_token("ann", "ann-pw", address="10.0.6.1").status_code == 429
    call_command("axes_reset_username", "ann")
    assert get_token("ann", "ann-pw", address="10.0.6.1").status_code == 200


def test_behind_the_proxy_the_address_locked_is_the_clients_not_the_proxys(ann, throttling):
    throttling.AXES_CLIENT_IP_CALLABLE = "annotator.throttling.client_address"
    for i in range(5):
        Client().post(LOGIN, {"username": f"someone-{i}", "password": "guess"},
                      REMOTE_ADDR="127.0.0.1", HTTP_X_REAL_IP="198.51.100.7")
    from_the_attacker = Client().post(LOGIN, {"username": "ann", "password": "ann-pw"},
                                      REMOTE_ADDR="127.0.0.1", HTTP_X_REAL_IP="198.51.100.7")
    from_a_colleague = Client().post(LOGIN, {"username": "ann", "password": "ann-pw"},
                                     REMOTE_ADDR="127.0.0.1", HTTP_X_REAL_IP="198.51.100.8")
    assert (from_the_attacker.status_code, from_a_colleague.status_code) == (429, 302)


@pytest.mark.parametrize("page", [LOGIN, "/admin/login/"])
def test_a_locked_out_login_page_says_when_to_try_again(ann, page):
    for i in range(5):
        Client().post(page, {"username": "ann", "password": f"guess-{i}"}, REMOTE_ADDR="10.0.6.1")
    response = Client().post(page, {"username": "ann", "password": "ann-pw"}, REMOTE_ADDR="10.0.6.1")
    assert response.status_code == 429
    assert int(response["Retry-After"]) == 15 * 60


def test_logging_in_to_ones_own_account_does_not_wipe_what_ones_address_counted(ann):
    """The probe of issue 39: axes' reset on success deleted every failure of the address too, so
    whoever knew one password could log in between guesses at another and guess without end."""
    make_user("mallory")
    for i in range(4):
        assert log_in(Client(), "ann", f"guess-{i}", address="10.0.6.1").status_code == 200
    assert log_in(Client(), "mallory", "mallory-pw", address="10.0.6.1").status_code == 302  # their own account
    assert log_in(Client(), "ann", "guess-5", address="10.0.6.1").status_code == 429  # the fifth failure locks
    assert log_in(Client(), "ann", "ann-pw", address="10.0.6.1").status_code == 429  # the address stays locked
    assert log_in(Client(), "mallory", "mallory-pw", address="10.0.6.1").status_code == 429
    assert log_in(Client(), "ann", "ann-pw", address="10.0.6.2").status_code == 429  # and so is ann's account


def test_a_successful_login_clears_the_accounts_own_failures(ann):
    for i in range(4):
        log_in(Client(), "ann", f"typo-{i}", address=f"10.0.7.{i}")
    assert log_in(Client(), "ann", "ann-pw", address="10.0.7.9").status_code == 302
    for i in range(4):  # four more typos later: the count started again
        log_in(Client(), "ann", f"typo-{i}", address=f"10.0.8.{i}")
    assert log_in(Client(), "ann", "ann-pw", address="10.0.8.9").status_code == 302


def test_clearing_an_accounts_failures_keeps_what_their_addresses_counted(ann):
    from annotator import throttling

    for i in range(5):
        log_in(Client(), "ann", f"guess-{i}", address="10.0.9.1")
    throttling.clear_account_failures("ann")
    assert log_in(Client(), "ann", "ann-pw", address="10.0.9.2").status_code == 302  # the account is free
    assert log_in(Client(), "ann", "ann-pw", address="10.0.9.1").status_code == 429  # the guessing address is not
