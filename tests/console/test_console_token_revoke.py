from django.urls import reverse
from rest_framework.authtoken.models import Token

from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.factories import make_user


def url(campaign, annotator):
    return reverse("console:token_revoke", kwargs={"slug": campaign.slug, "annotator": annotator.pk})


def test_only_the_campaigns_organiser_revokes_a_token(client_as, demo):
    campaign, _, (ann, _) = demo
    Token.objects.create(user=ann)
    assert_only_the_organiser_gets_in(client_as, url(campaign, ann), method="post")
    assert Token.objects.filter(user=ann).exists()


def test_the_organiser_revokes_an_annotators_token(organiser, demo):
    campaign, _, (ann, _) = demo
    Token.objects.create(user=ann)
    response = organiser.post(url(campaign, ann), follow=True)
    assert response.redirect_chain[-1][0] == reverse("console:accounts", args=[campaign.slug])
    assert "revoked" in response.content.decode()
    assert not Token.objects.filter(user=ann).exists()


def test_revoking_needs_a_post(organiser, demo):
    campaign, _, (ann, _) = demo
    Token.objects.create(user=ann)
    assert organiser.get(url(campaign, ann)).status_code == 405
    assert Token.objects.filter(user=ann).exists()


def test_a_user_outside_the_campaign_is_not_found(organiser, demo):
    outsider = make_user("outsider")
    Token.objects.create(user=outsider)
    assert organiser.post(url(demo[0], outsider)).status_code == 404
    assert Token.objects.filter(user=outsider).exists()
