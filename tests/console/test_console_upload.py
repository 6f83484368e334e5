from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.urls import reverse

from annotator.models import Conversation, Nugget
from tests.console.conftest import assert_only_the_organiser_gets_in

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "M002-bing-trial1.txt"


def url(campaign):
    return reverse("console:upload", kwargs={"slug": campaign.slug})


def example(name="M002-bing-trial1.txt"):
    return SimpleUploadedFile(name, EXAMPLE.read_bytes(), content_type="text/plain")


def test_only_the_campaigns_organiser_uploads(client_as, campaign):
    before = Conversation.objects.count()
    assert_only_the_organiser_gets_in(client_as, url(campaign))
    for role in ("annotator", "other organiser"):
        assert client_as(role).post(url(campaign), {"files": [example()], "run": "new-run"}).status_code == 404
    assert Conversation.objects.count() == before


def test_the_papers_example_file_is_imported_with_its_nuggets(organiser, campaign):
    response = organiser.post(url(campaign), {"files": [example()], "run": "bing-trial9"}, follow=True)
    assert response.status_code == 200
    conversation = Conversation.objects.get(topic__campaign=campaign, topic__code="M002", run__name="bing-trial9")
    assert Nugget.objects.filter(turn__conversation=conversation).count() == 10
    assert "1 conversation(s) imported" in response.content.decode()


def test_a_broken_file_imports_nothing_and_lists_its_errors_by_file_and_line(organiser, campaign):
    before = Conversation.objects.count()
    broken = SimpleUploadedFile("M002-x-trial1.txt", b"##### M002\n### U1\nhello\n### S1 o\nA film\n#L7\n", content_type="text/plain")
    response = organiser.post(url(campaign), {"files": [example("M002-ok-trial1.txt"), broken]})
    assert response.status_code == 400
    assert Conversation.objects.count() == before  # the good file was not imported either
    errors = response.context["errors"]
    assert errors and all(e.startswith("M002-x-trial1.txt:") for e in errors)
    assert "Nothing was imported" in response.content.decode()


def test_importing_an_existing_conversation_again_needs_replace(organiser, campaign):
    organiser.post(url(campaign), {"files": [example()], "run": "bing-trial9"})
    again = organiser.post(url(campaign), {"files": [example()], "run": "bing-trial9"})
    assert again.status_code == 400
    replaced = organiser.post(url(campaign), {"files": [example()], "run": "bing-trial9", "replace": "on"})
    assert replaced.status_code == 302


def test_posting_without_a_file_asks_for_one(organiser, campaign):
    response = organiser.post(url(campaign), {})
    assert response.status_code == 400 and response.context["form"].errors["files"]


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(organiser, campaign, settings):
    settings.GFRC_MAX_UPLOAD_MB = 1
    before = Conversation.objects.count()
    big = SimpleUploadedFile("M002-big-trial1.txt", EXAMPLE.read_bytes() + b" " * (1024 * 1024), content_type="text/plain")
    response = organiser.post(url(campaign), {"files": [big]})
    assert response.status_code == 400
    assert "larger than the 1 MB limit" in str(response.context["form"].errors["files"])
    assert Conversation.objects.count() == before


def test_an_upload_for_another_annotator_adds_their_judgments_to_the_conversation_already_there(organiser, campaign, demo):
    from annotator.models import Assignment
    from tests.factories import make_user

    organiser.post(url(campaign), {"files": [example()], "run": "bing-trial9"})
    conversation = Conversation.objects.get(topic__code="M002", run__name="bing-trial9")
    bob = make_user("second-annotator")
    # one of the campaign's annotators (the upload offers no one else)
    Assignment.objects.create(conversation=Conversation.objects.exclude(pk=conversation.pk).filter(
        topic__campaign=campaign).first(), annotator=bob)
    response = organiser.post(url(campaign), {"files": [example()], "run": "bing-trial9", "annotator": bob.pk}, follow=True)
    assert "added second-annotator&#x27;s judgments to 1 conversation already there" in response.content.decode()
    assert "0 conversation(s) imported" not in response.content.decode()
    assert Conversation.objects.get(topic__code="M002", run__name="bing-trial9").pk == conversation.pk
    assert Nugget.objects.filter(turn__conversation=conversation, annotator=bob).count() == 10
    assert Nugget.objects.filter(turn__conversation=conversation, annotator=demo[1]).count() == 10
    assert Assignment.objects.filter(conversation=conversation, annotator=bob).exists()


def test_the_upload_says_what_each_file_was_read_as(organiser, campaign):
    response = organiser.post(url(campaign), {"files": [example()], "run": "bing-trial9"}, follow=True)
    assert "M002-bing-trial1.txt: read as paper: 1 conversation" in response.content.decode()


def test_the_upload_offers_the_campaigns_topics_for_harvests_and_files_with_topics_keep_theirs(organiser, campaign):
    page = organiser.get(url(campaign)).content.decode()
    assert 'list="campaign-topics"' in page and '<option value="M002">' in page
    organiser.post(url(campaign), {"files": [example()], "run": "bing-trial9", "topic": "M009"})
    assert Conversation.objects.filter(topic__code="M002", run__name="bing-trial9").exists()


def test_a_topic_with_spaces_is_refused_by_the_form(organiser, campaign):
    response = organiser.post(url(campaign), {"files": [example()], "run": "bing-trial9", "topic": "M 9"})
    assert response.status_code == 400 and response.context["form"].errors["topic"] == ["A topic id has no spaces."]


HARVESTS = Path(__file__).resolve().parents[1] / "interchange" / "data" / "harvest"


def test_a_chatgpt_export_is_uploaded_into_the_topic_chosen_and_its_citations_proposed(organiser, campaign):
    export = SimpleUploadedFile("conversations.json", (HARVESTS / "chatgpt-conversations.json").read_bytes(),
                                content_type="application/json")
    response = organiser.post(url(campaign), {"files": [export], "run": "chatgpt", "topic": "M010"}, follow=True)
    page = response.content.decode()
    assert "conversations.json: read as ChatGPT export: 2 conversations, 6 citations" in page
    assert set(Conversation.objects.filter(topic__code="M010").values_list("run__name", flat=True)) == {
        "chatgpt-trial1", "chatgpt-trial2"}
    # six citations on four spans: sources cited together ([1][2]) on the same words are one proposal
    assert Nugget.objects.filter(annotator__username="citations", turn__conversation__topic__code="M010").count() == 4


def test_a_chatgpt_export_zip_as_downloaded_is_uploaded(organiser, campaign):
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("conversations.json", (HARVESTS / "chatgpt-conversations.json").read_bytes())
        archive.writestr("chat.html", "<html></html>")
    export = SimpleUploadedFile("chatgpt-export.zip", buffer.getvalue(), content_type="application/zip")
    assert 'accept=".txt,.jsonl,.json,.zip,.har,.sse"' in organiser.get(url(campaign)).content.decode()
    response = organiser.post(url(campaign), {"files": [export], "run": "chatgpt", "topic": "M010"}, follow=True)
    assert "chatgpt-export.zip: read as ChatGPT export: 2 conversations, 6 citations" in response.content.decode()
    assert Conversation.objects.filter(topic__code="M010").count() == 2


def test_a_lone_surrogate_in_an_uploaded_file_is_a_400_at_its_line_not_a_500(organiser, campaign):
    before = Conversation.objects.count()
    line = b'{"topic": "M002", "run": "x-trial1", "turns": [{"role": "user", "text": "hi \\ud800"}, {"role": "system", "text": "ok"}]}\n'
    response = organiser.post(url(campaign), {"files": [SimpleUploadedFile("bad.jsonl", b"\n" + line)]})
    assert response.status_code == 400
    assert response.context["errors"] == [
        "bad.jsonl:2: turns[0].text: a lone surrogate (\\ud800-\\udfff) is no text"]
    assert Conversation.objects.count() == before


def test_a_har_capture_is_uploaded_and_only_its_conversations_and_citations_are_kept(organiser, campaign):
    capture = SimpleUploadedFile("capture.har", (HARVESTS / "capture.har").read_bytes(), content_type="application/json")
    response = organiser.post(url(campaign), {"files": [capture], "run": "sys", "topic": "M010"}, follow=True)
    assert "capture.har: read as HAR capture: 3 conversations, 3 citations" in response.content.decode()
    assert Conversation.objects.filter(topic__code="M010").count() == 3
    with connection.cursor() as cursor:  # the capture's key, bearer token and cookie are nowhere in the database
        for secret in ("sk-proj-SECRET0123456789", "COOKIE0123456789", "AIzaSyGKEY0123456789"):
            found = []
            for table in connection.introspection.table_names(cursor):
                columns = [c.name for c in connection.introspection.get_table_description(cursor, table)]
                quoted = connection.ops.quote_name
                where = " OR ".join(f"CAST({quoted(c)} AS TEXT) LIKE %s" for c in columns)
                cursor.execute(f"SELECT COUNT(*) FROM {quoted(table)} WHERE {where}", [f"%{secret}%"] * len(columns))
                if cursor.fetchone()[0]:
                    found.append(table)
            assert found == [], (secret, found)


def test_a_zip_bomb_uploaded_is_a_400_at_once_without_being_inflated(organiser, campaign):
    import time
    import tracemalloc

    from tests.interchange.zip_bombs import spaces_zip

    bomb = SimpleUploadedFile("export.zip", spaces_zip(300), content_type="application/zip")  # 300 MiB of spaces, 0.3 MB
    target = url(campaign)
    assert organiser.get(target).status_code == 200  # the URLs and the page's code loaded before the clock starts
    tracemalloc.start()
    started = time.perf_counter()
    try:
        response = organiser.post(target, {"files": [bomb], "topic": "M002", "run": "chatgpt"})
        seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert response.status_code == 400
    assert response.context["errors"] == [
        "export.zip: conversations.json would be 314,572,800 bytes unzipped, more than the 209,715,200 read from a zip: refused"]
    assert seconds < 2.0 and peak < 32 << 20  # before: the 300 MB inflated twice (counted, then read), seconds
