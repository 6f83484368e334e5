from django.urls import reverse

from annotator.judgments import edits
from annotator.models import Conversation, TurnLabel
from scoring import usefulness
from tests.console.conftest import assert_only_the_organiser_gets_in


def url(campaign):
    return reverse("console:grid", kwargs={"slug": campaign.slug})


def _label(conversation, annotator, first, second):
    for number, label in ((1, first), (2, second)):
        turn = conversation.turns.get(role="S", number=number)
        current = TurnLabel.objects.filter(turn=turn, annotator=annotator).first()
        edits.set_turn_label(turn, annotator=annotator, actor=annotator, label=label,
                                   expected_version=current.version if current else None)


def test_only_the_campaigns_organiser_sees_the_grid(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign))


def test_each_cell_shows_the_pair_of_labels_in_the_papers_colours(organiser, campaign, demo):
    ann, bob = demo[2]
    conversations = Conversation.objects.filter(topic__campaign=campaign, run__name="bing-trial1").order_by("topic__code")
    conversations = list(conversations)
    for conversation, pair in zip(conversations, [("o", "o"), ("x", "-")]):
        conversation.gold_annotator = ann
        conversation.save()
        _label(conversation, ann, *pair)
    response = organiser.get(url(campaign))
    rows = response.context["grid"]["rows"]
    run_index = response.context["grid"]["runs"].index("bing-trial1")
    assert [(r["cells"][run_index]["labels"], r["cells"][run_index]["css"]) for r in rows] == [("o o", "green"), ("x -", "grey")]
    assert 'class="cell cell-green"' in response.content.decode()


def test_the_footer_gives_useful_ave_useful_and_recovery_per_run(organiser, campaign, demo):
    ann = demo[2][0]
    for conversation, pair in zip(
        Conversation.objects.filter(topic__campaign=campaign, run__name="bing-trial1").order_by("topic__code"),
        [("x", "o"), ("x", "x")],
    ):
        conversation.gold_annotator = ann
        conversation.save()
        _label(conversation, ann, *pair)
    grid = organiser.get(url(campaign)).context["grid"]
    summary = grid["summaries"]["bing-trial1"]
    assert summary.percent_useful == (0.0, 50.0)
    assert summary.ave_percent_useful == 25.0
    assert (summary.recovered, summary.unsuccessful_first, summary.percent_recovery) == (1, 2, 50.0)
    content = organiser.get(url(campaign)).content.decode()
    assert "ave%useful" in content and "50.0% (1/2)" in content


def test_a_conversation_not_fully_labelled_shows_a_question_mark(organiser, campaign):
    TurnLabel.objects.filter(turn__conversation__topic__campaign=campaign, turn__number=2).delete()
    grid = organiser.get(url(campaign)).context["grid"]
    cells = [c for row in grid["rows"] for c in row["cells"]]
    assert all(c["css"] == "unlabelled" and "?" in c["labels"] for c in cells)


def test_every_cell_colour_of_the_grid_reads_at_wcag_aa_contrast():
    """Each `.cell-<colour> { background: #...; color: #... }` of console.css: 4.5:1 or more."""
    import re
    from pathlib import Path

    css = (Path(__file__).resolve().parents[2] / "static" / "css" / "console.css").read_text()

    def luminance(colour: str) -> float:
        colour = colour.lstrip("#")
        if len(colour) == 3:
            colour = "".join(c * 2 for c in colour)
        channels = [int(colour[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    rules = re.findall(r"\.cell-([a-z-]+) \{ background: (#[0-9a-f]{3,6}); color: (#[0-9a-f]{3,6}); \}", css)
    assert {name for name, _, _ in rules} >= {"green", "light-green", "yellow", "orange", "grey", "pale-green"}
    for name, background, text in rules:
        light, dark = sorted((luminance(background), luminance(text)), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 4.5, name


def test_a_branching_conversation_shows_the_labels_of_the_path_its_chat_showed(organiser, campaign, demo):
    from tests.factories import make_branching_conversation

    ann = demo[2][0]
    conversation = make_branching_conversation(campaign, ann, run="branching-trial1")
    Conversation.objects.filter(pk=conversation.pk).update(gold_annotator=ann)
    labels = {"Film Alpha": "x", "Film Beta": "o", "Film Gamma": "-"}  # Alpha: the regenerated answer not shown
    for turn in conversation.turns.filter(role="S"):
        edits.set_turn_label(turn, annotator=ann, actor=ann, label=labels[turn.text], expected_version=None)

    def cell_and_first_useful():
        grid = organiser.get(url(campaign)).context["grid"]
        run_index = grid["runs"].index(conversation.run.name)
        cell = next(r["cells"][run_index] for r in grid["rows"] if r["topic"] == conversation.topic.code)
        return cell["labels"], cell["css"], grid["summaries"][conversation.run.name].percent_useful[0]

    assert cell_and_first_useful() == ("o -", usefulness.cell_colour_of(["o", "-"]), 100.0)
    # had the chat shown Alpha (and the user stopped there), the cell is Alpha's alone
    conversation.turns.filter(text="Film Alpha").update(shown=True)
    conversation.turns.filter(text="Film Beta").update(shown=False)
    assert cell_and_first_useful() == (f"x {usefulness.NO_TURN}", usefulness.cell_colour_of(["x"]), 0.0)
