from django.urls import reverse

from annotator.models import Assignment, Conversation
from tests.console.conftest import assert_only_the_organiser_gets_in
from tests.factories import join, make_user


def url(campaign):
    return reverse("console:assign", kwargs={"slug": campaign.slug})


def test_only_the_campaigns_organiser_assigns(client_as, campaign, demo):
    before = Assignment.objects.count()
    ann, bob = demo[2]
    assert_only_the_organiser_gets_in(client_as, url(campaign))
    assert_only_the_organiser_gets_in(client_as, url(campaign), "post", {"annotators": [ann.pk, bob.pk], "per_conversation": 2})
    assert Assignment.objects.count() == before


def test_two_per_conversation_gives_every_conversation_two_annotators(organiser, campaign, demo):
    ann, bob = demo[2]
    response = organiser.post(url(campaign), {"annotators": [ann.pk, bob.pk], "per_conversation": 2})
    assert response.status_code == 302
    for conversation in Conversation.objects.filter(topic__campaign=campaign):
        assert set(conversation.assignments.values_list("annotator__username", flat=True)) == {"ann", "bob"}


def test_one_per_conversation_deals_new_conversations_out_evenly(organiser, campaign):
    Assignment.objects.filter(conversation__topic__campaign=campaign).delete()
    people = [make_user(f"a{i}") for i in range(3)]
    join(campaign, *people)
    organiser.post(url(campaign), {"annotators": [p.pk for p in people], "per_conversation": 1})
    loads = sorted(Assignment.objects.filter(annotator__in=people).values_list("annotator", flat=True))
    assert len(loads) == 6 and all(loads.count(p.pk) == 2 for p in people)


def test_assigning_can_be_limited_to_some_topics(organiser, campaign):
    Assignment.objects.filter(conversation__topic__campaign=campaign).delete()
    carol = make_user("carol")
    join(campaign, carol)
    topic = campaign.topics.get(code="M001")
    organiser.post(url(campaign), {"annotators": [carol.pk], "per_conversation": 1, "topics": [topic.pk]})
    assert set(Assignment.objects.values_list("conversation__topic__code", flat=True)) == {"M001"}


def test_two_per_conversation_with_one_annotator_is_refused(organiser, campaign, demo):
    response = organiser.post(url(campaign), {"annotators": [demo[2][0].pk], "per_conversation": 2})
    assert response.status_code == 200
    assert "need at least 2 annotators" in str(response.context["form"].errors)


def test_automatic_judges_are_named_as_such_among_the_annotators_to_assign(organiser, campaign, demo):
    from annotator.models import AnnotatorProfile

    AnnotatorProfile.mark(demo[2][1], description="a model")
    body = organiser.get(reverse("console:assign", kwargs={"slug": campaign.slug})).content.decode()
    assert "bob (automatic judge)" in body and "ann (automatic judge)" not in body


def test_a_harvest_whose_citations_the_judge_holds_still_gets_a_person(organiser, campaign):
    from annotator.interchange.formats import ParsedCitation, ParsedConversation, ParsedTurn, ParseResult
    from annotator.interchange.imports.conversations import import_parsed

    turns = [ParsedTurn("U", 1, None, "films?"), ParsedTurn("S", 1, None, "Volver (2006) is a comedy-drama.")]
    harvest = ParseResult([ParsedConversation("", None, turns, citations=[ParsedCitation(1, 0, 4, "https://imdb.com/title/tt0441909")])])
    assert import_parsed(campaign, [("h.json", harvest)], run="chatgpt", topic="M077").ok
    conversation = Conversation.objects.get(topic__code="M077")
    assert list(conversation.assignments.values_list("annotator__username", flat=True)) == ["citations"]
    carol = make_user("carol")
    join(campaign, carol)
    organiser.post(url(campaign), {"annotators": [carol.pk], "per_conversation": 1, "topics": [conversation.topic_id]})
    assert set(conversation.assignments.values_list("annotator__username", flat=True)) == {"citations", "carol"}


def test_the_assign_page_offers_this_campaigns_people_never_staff_other_campaigns_or_accounts_of_nobody(organiser, campaign, demo):
    """The probe of issue 39: an account that worked nowhere yet was offered, pulled in, then
    changed (marked a judge, its token revoked) as if it were the organiser's. Now a person
    comes in by name (the accounts page), and only then is offered."""
    from django.contrib.auth import get_user_model

    from tests.factories import make_campaign, make_conversation

    ann, bob = demo[2]
    get_user_model().objects.create_superuser("admin", "admin@example.org", "admin-pw-123456")
    make_user("staffer", is_staff=True)
    make_user("nobodys")
    join(campaign, make_user("newcomer"))
    elsewhere = make_user("elsewhere")
    make_conversation(make_campaign("other"), [("U", "hi"), ("S", "Primer (2004)")], annotators=[elsewhere])
    response = organiser.get(url(campaign))
    offered = {u.get_username() for u in response.context["form"].fields["annotators"].queryset}
    assert {"ann", "bob", "newcomer"} <= offered
    assert not offered & {"admin", "staffer", "elsewhere", "nobodys"}
    nobodys = get_user_model().objects.get(username="nobodys")
    response = organiser.post(url(campaign), {"annotators": [nobodys.pk], "per_conversation": 1})
    assert "annotators" in response.context["form"].errors and not Assignment.objects.filter(annotator=nobodys).exists()
    admin = get_user_model().objects.get(username="admin")
    response = organiser.post(url(campaign), {"annotators": [admin.pk], "per_conversation": 1})
    assert "annotators" in response.context["form"].errors
    assert not Assignment.objects.filter(annotator=admin).exists()


def test_ranked_list_runs_are_not_offered_for_assignment(organiser, campaign):
    from tests.console.helpers import add_ranked_list_runs

    add_ranked_list_runs(campaign)
    response = organiser.get(reverse("console:assign", kwargs={"slug": campaign.slug}))
    offered = {run.name for run in response.context["form"].fields["runs"].queryset}
    assert offered == {"bard-trial1", "bing-trial1", "chatgpt-trial1"}
