from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from tests.console.conftest import assert_only_the_organiser_gets_in


def url(campaign):
    return reverse("console:accounts", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_sees_the_annotators_accounts(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))


def test_the_page_lists_the_campaigns_annotators_with_a_revoke_button_for_each_token(organiser, demo):
    campaign, _, (ann, bob) = demo
    Token.objects.create(user=ann)
    response = organiser.get(url(campaign))
    # the campaign's people: its annotators and its organiser
    assert {a.username: a.has_token for a in response.context["annotators"]} == {"ann": True, "bob": False, "org": False}
    page = response.content.decode()
    assert reverse("console:token_revoke", args=[campaign.slug, ann.pk]) in page
    assert reverse("console:token_revoke", args=[campaign.slug, bob.pk]) not in page


def test_the_page_counts_failed_logins_and_offers_to_unlock(organiser, demo, settings):
    settings.AXES_ENABLED = True
    campaign, _, (ann, bob) = demo
    for _ in range(3):
        Client().post("/accounts/login/", {"username": "bob", "password": "wrong"})
    response = organiser.get(url(campaign))
    assert {a.username: a.failed_logins for a in response.context["annotators"]} == {"ann": None, "bob": 3, "org": None}
    page = response.content.decode()
    assert reverse("console:unlock", args=[campaign.slug, bob.pk]) in page
    assert reverse("console:unlock", args=[campaign.slug, ann.pk]) not in page


def test_the_page_never_lists_a_superuser_or_staff_account_even_when_assigned(organiser, demo):
    from django.contrib.auth import get_user_model

    from annotator.models import Assignment, Conversation
    from tests.factories import make_user

    campaign = demo[0]
    conversation = Conversation.objects.filter(topic__campaign=campaign).first()
    admin = get_user_model().objects.create_superuser("admin", "admin@example.org", "admin-pw-123456")
    for account in (admin, make_user("staffer", is_staff=True)):
        Assignment.objects.create(conversation=conversation, annotator=account)
    listed = {a.username for a in organiser.get(url(campaign)).context["annotators"]}
    assert listed == {"ann", "bob", "org"}
