from django.test import Client
from django.urls import reverse

from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.factories import make_user


def url(campaign, annotator):
    return reverse("console:unlock", kwargs={"slug": campaign.slug, "annotator": annotator.pk})


def lock_out(username: str, settings) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT):
        Client().post("/accounts/login/", {"username": username, "password": "wrong"}, REMOTE_ADDR="10.9.0.1")


def logs_in(username: str) -> bool:
    return Client().post("/accounts/login/", {"username": username, "password": f"{username}-pw"},
                         REMOTE_ADDR="10.9.0.2").status_code == 302


def test_only_the_campaigns_organiser_unlocks(client_as, demo, settings):
    settings.AXES_ENABLED = True
    campaign, _, (ann, _) = demo
    assert_only_the_organiser_gets_in(client_as, url(campaign, ann), method="post")
    # (the helper logs ann in, which clears her failures: lock her out now)
    lock_out("ann", settings)
    for role in ("anonymous", "other organiser"):
        assert client_as(role).post(url(campaign, ann)).status_code in {302, 404}
    assert not logs_in("ann")


def test_the_organiser_unlocks_a_locked_out_annotator(organiser, demo, settings):
    settings.AXES_ENABLED = True
    campaign, _, (ann, _) = demo
    lock_out("ann", settings)
    assert not logs_in("ann")
    response = organiser.post(url(campaign, ann), follow=True)
    assert response.redirect_chain[-1][0] == reverse("console:accounts", args=[campaign.slug])
    assert "ann can log in again" in response.content.decode()
    assert logs_in("ann")


def test_unlocking_needs_a_post(organiser, demo):
    assert organiser.get(url(demo[0], demo[2][0])).status_code == 405


def test_a_user_outside_the_campaign_is_not_found(organiser, demo, settings):
    settings.AXES_ENABLED = True
    make_user("outsider")
    lock_out("outsider", settings)
    assert organiser.post(url(demo[0], make_user("outsider2"))).status_code == 404
    assert not logs_in("outsider")


def test_an_organiser_never_unlocks_nor_revokes_a_superuser_assigned_to_the_campaign(organiser, demo, settings):
    """The probe: the organiser had assigned `admin` (the page listed every account)."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from annotator.models import Assignment, Conversation

    settings.AXES_ENABLED = True
    campaign = demo[0]
    admin = get_user_model().objects.create_superuser("admin", "admin@example.org", "admin-pw-123456")
    Assignment.objects.create(conversation=Conversation.objects.filter(topic__campaign=campaign).first(), annotator=admin)
    Token.objects.create(user=admin)
    assert organiser.post(url(campaign, admin)).status_code == 404
    api = f"/api/campaigns/{campaign.slug}/annotators/{admin.pk}/token/"
    assert organiser.delete(api).status_code == 404
    assert Token.objects.filter(user=admin).exists()


def test_unlocking_clears_the_accounts_failures_only_so_the_guessing_address_stays_locked(organiser, demo, settings):
    """The probe of issue 39: "Unlock" called axes' reset by user name, which also deleted what
    the guessing address had counted, so an organiser could guess an annotator's password
    without end: ten guesses, unlock, ten more."""
    settings.AXES_ENABLED = True
    campaign, _, (ann, _) = demo
    lock_out("ann", settings)  # from 10.9.0.1
    organiser.post(url(campaign, ann))
    assert logs_in("ann")  # from another address: the account is free again
    guess = Client().post("/accounts/login/", {"username": "ann", "password": "ann-pw"}, REMOTE_ADDR="10.9.0.1")
    assert guess.status_code == 429  # the address that guessed is still locked, even with the right password


def test_the_accounts_of_other_organisers_campaigns_are_not_unlocked_from_this_one(organiser, demo, settings):
    from tests.factories import make_campaign, make_conversation

    settings.AXES_ENABLED = True
    campaign, _, (ann, bob) = demo
    make_conversation(make_campaign("theirs", organiser=make_user("their-org")), [("U", "hi"), ("S", "Primer")],
                      annotators=[bob])
    lock_out("bob", settings)
    assert organiser.post(url(campaign, bob)).status_code == 404
    page = organiser.get(reverse("console:accounts", args=[campaign.slug])).content.decode()
    assert "Unlock bob" not in page and "an administrator" in page
    assert not Client().post("/accounts/login/", {"username": "bob", "password": "bob-pw"},
                             REMOTE_ADDR="10.9.0.2").status_code == 302
