from django.urls import reverse

from annotator.console.views.exports import EXPORTS
from tests.console.conftest import assert_only_the_organiser_gets_in


def url(campaign):
    return reverse("console:exports", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_sees_the_exports(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))


def test_the_page_links_every_export_of_the_commands(organiser, campaign):
    content = organiser.get(url(campaign)).content.decode()
    kinds = {"paper", "jsonl", "nuggets-tsv", "qrels", "scores-csv", "scores-json", "nuggets-csv", "turns-csv", "paths-csv", "assignments"}
    for kind in kinds:
        assert reverse("console:download", kwargs={"slug": campaign.slug, "kind": kind}) in content
    assert set(EXPORTS) == kinds
