"""An attribute set the console accepts can be exported in every format: the console, the model,
the campaign file and the paper writer share one naming rule (annotator.rules.ids)."""

import pytest
from django.urls import reverse

from annotator.console.views.exports import EXPORTS
from annotator.interchange.formats import parse_paper
from annotator.models import AttributeSet, Entity, Membership
from tests.rules.test_attribute_set_names import ALLOWED, REFUSED


def new_set_url(campaign):
    topic_type = campaign.topic_types.get()
    return reverse("console:attribute_set_new", kwargs={"slug": campaign.slug, "topic_type": topic_type.pk})


def new_set(name: str) -> dict:
    return {"name": name, "kind": "nominal", "divergence": "jsd", "weight": 1, "position": 9,
            "groups_text": "yes, no", "target_text": "", "helper_kind": "none"}


def body(response) -> bytes:
    return b"".join(c if isinstance(c, bytes) else c.encode() for c in response.streaming_content)


def test_a_set_made_in_the_console_with_every_name_the_rule_allows_exports_in_every_format(organiser, campaign):
    entity = Entity.objects.filter(topic__campaign=campaign, nuggets__isnull=False).first()
    for name in ALLOWED:
        response = organiser.post(new_set_url(campaign), new_set(name))
        assert response.status_code == 302, (name, response.context["form"].errors)
        attribute_set = AttributeSet.objects.get(topic_type__campaign=campaign, name=name)
        Membership.objects.create(entity=entity, attribute_set=attribute_set, vector=[1, 0])
    for kind in EXPORTS:
        response = organiser.get(reverse("console:download", kwargs={"slug": campaign.slug, "kind": kind}))
        assert response.status_code == 200 and body(response), kind
    paper = body(organiser.get(reverse("console:download", kwargs={"slug": campaign.slug, "kind": "paper"}))).decode()
    read = parse_paper(paper, "export.txt")
    assert not read.errors
    written = {name for c in read.conversations for n in c.nuggets for name in n.memberships}
    assert set(ALLOWED) <= written


@pytest.mark.parametrize("name", REFUSED)
def test_the_console_refuses_a_name_the_paper_format_cannot_write(organiser, campaign, name):
    response = organiser.post(new_set_url(campaign), new_set(name))
    assert response.status_code == 200 and response.context["form"].errors["name"]
    assert not AttributeSet.objects.filter(topic_type__campaign=campaign, name=name.strip()).exists()
