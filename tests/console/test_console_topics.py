"""The campaign's topics in the console: listed, added, edited and removed one at a time (with a
confirmation that says what goes), and added in bulk from a TSV or JSONL file, all or nothing
with file:line errors."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotator.models import Assignment, Conversation, Nugget, Topic
from tests.console.conftest import assert_only_the_organiser_gets_in


def page(campaign) -> str:
    return reverse("console:topics", args=[campaign.slug])


def upload(organiser, campaign, name: str, text: str):
    return organiser.post(reverse("console:topics_file", args=[campaign.slug]),
                          {"topics_file": SimpleUploadedFile(name, text.encode())})


def codes(campaign) -> list[str]:
    return list(Topic.objects.filter(campaign=campaign).order_by("code").values_list("code", flat=True))


def test_only_the_campaigns_organisers_reach_the_topics(client_as, campaign):
    topic = campaign.topics.first()
    for url in (page(campaign), reverse("console:topic", args=[campaign.slug, topic.pk]),
                reverse("console:topic_remove", args=[campaign.slug, topic.pk])):
        assert_only_the_organiser_gets_in(client_as, url)
    assert_only_the_organiser_gets_in(client_as, page(campaign), method="post", data={"code": "M009"})
    assert "M009" not in codes(campaign)


def test_the_page_lists_the_topics_with_their_conversations(organiser, campaign):
    html = organiser.get(page(campaign)).content.decode()
    assert 'data-topic="M001"' in html and 'data-topic="M002"' in html
    assert [t.conversation_count for t in organiser.get(page(campaign)).context["topics"]] == [3, 3]


def test_a_topic_is_added_with_its_type_from_its_code_or_named(organiser, campaign):
    assert organiser.post(page(campaign), {"code": "M009", "description": "heist movies"}).status_code == 302
    topic = Topic.objects.get(campaign=campaign, code="M009")
    assert (topic.topic_type.code, topic.description) == ("M", "heist movies")


def test_a_bad_or_taken_code_and_an_unknown_type_are_refused_and_nothing_changes(organiser, campaign):
    before = codes(campaign)
    for data, field, says in (({"code": "M001"}, "code", "exists already"), ({"code": "9x"}, "code", "letter"),
                              ({"code": "Z001"}, "topic_type", "No topic type for Z001")):
        response = organiser.post(page(campaign), data)
        assert response.status_code == 400 and says in str(response.context["form"].errors[field]), data
    assert codes(campaign) == before


def test_a_topic_is_edited_but_never_moved_to_another_type_once_judged(organiser, campaign):
    from annotator.models import TopicType

    topic = Topic.objects.get(campaign=campaign, code="M001")
    url = reverse("console:topic", args=[campaign.slug, topic.pk])
    assert organiser.post(url, {"code": "M001", "description": "new text"}).status_code == 302
    assert Topic.objects.get(pk=topic.pk).description == "new text"
    other = TopicType.objects.create(campaign=campaign, code="R", name="Researchers")
    response = organiser.post(url, {"code": "M001", "topic_type": other.pk, "description": "x"})
    assert response.status_code == 400 and "has judgments" in str(response.context["form"].errors)


def test_removing_says_what_goes_with_it_then_removes_it_all(organiser, campaign):
    topic = Topic.objects.get(campaign=campaign, code="M001")
    url = reverse("console:topic_remove", args=[campaign.slug, topic.pk])
    nuggets = Nugget.objects.filter(turn__conversation__topic=topic).count()
    html = organiser.get(url).content.decode()
    assert "<strong>3</strong> conversations" in html and f"<strong>{nuggets}</strong> nuggets" in html
    assert "judged by ann, bob" in html
    assert organiser.post(url).status_code == 302
    assert not Topic.objects.filter(pk=topic.pk).exists()
    assert not Conversation.objects.filter(topic__code="M001", topic__campaign=campaign).exists()
    assert not Assignment.objects.filter(conversation__topic_id=topic.pk).exists()


def test_a_tsv_file_adds_its_topics(organiser, campaign):
    response = upload(organiser, campaign, "topics.tsv", "code\ttype\ttext\nM010\tM\tmovies of 1990\nM011\t\tmore\n")
    assert response.status_code == 302
    assert {"M010", "M011"} <= set(codes(campaign))
    assert Topic.objects.get(campaign=campaign, code="M010").description == "movies of 1990"


def test_a_jsonl_file_as_the_campaign_file_writes_topics(organiser, campaign):
    assert upload(organiser, campaign, "t.jsonl", '{"id": "M020", "type": "M", "description": "x"}\n').status_code == 302
    assert "M020" in codes(campaign)


def test_a_bad_file_adds_nothing_and_says_every_problem_by_file_and_line(organiser, campaign):
    before = codes(campaign)
    response = upload(organiser, campaign, "bad.tsv", "M030\tM\tfine\nM001\tM\ttaken\nM031\tQ\tno type\nM030\tM\tagain\n9\tM\tbad id\n")
    assert response.status_code == 400
    errors = response.context["errors"]
    assert errors[0] == "bad.tsv:2: topic M001 exists already in fw (edit it on the topics page)"
    assert errors[1].startswith("bad.tsv:3: 'Q' is not a topic type of the campaign")
    assert errors[2] == "bad.tsv:4: topic M030 is also on line 1"
    assert errors[3].startswith("bad.tsv:5: ")
    assert codes(campaign) == before  # M030 was fine, and is not added either


def test_a_topic_type_is_added_and_renamed_on_the_settings_page_by_the_campaign_files_rule(organiser, campaign):
    from annotator.models import TopicType

    url = reverse("console:topic_type", args=[campaign.slug])
    assert organiser.post(url, {"code": "Y", "name": "YouTubers"}).status_code == 302
    created = TopicType.objects.get(campaign=campaign, code="Y")
    assert created.name == "YouTubers"
    organiser.post(url, {"topic_type": created.pk, "code": "Z", "name": "YouTube channels"})
    created.refresh_from_db()
    assert (created.code, created.name) == ("Y", "YouTube channels")  # a code once made stays
    for bad in ("M", "9x", "TOOLONGCODE"):
        response = organiser.post(url, {"code": bad, "name": "x"}, follow=True)
        assert "was not saved" in response.content.decode(), bad
    assert TopicType.objects.filter(campaign=campaign).count() == 2


def test_a_runs_system_and_trial_are_set_and_its_kind_only_while_it_holds_nothing(organiser, campaign):
    from annotator.models import Run

    run = Run.objects.get(campaign=campaign, name="bing-trial1")
    url = reverse("console:run", args=[campaign.slug, run.pk])
    prefix = f"run{run.pk}"
    assert organiser.post(url, {f"{prefix}-system": "bing-chat", f"{prefix}-trial": 3, f"{prefix}-kind": "ranked_lists"}).status_code == 302
    run.refresh_from_db()
    assert (run.system, run.trial, run.kind) == ("bing-chat", 3, "conversations")  # it holds conversations
    assert organiser.post(url, {f"{prefix}-system": "x", f"{prefix}-trial": 0, f"{prefix}-kind": "conversations"}).status_code == 400
    assert 'data-run="bing-trial1"' in organiser.get(page(campaign)).content.decode()
