"""The live score panel: R, GF, GF per attribute set, GFRC, Tables 1 and 2."""

import pytest
from django.urls import reverse

from annotator.scores.per_conversation import score_conversation
from tests.factories import make_user
from tests.workspace.conftest import HTMX

pytestmark = pytest.mark.django_db


def test_the_panel_shows_the_papers_figures_for_the_paper_example(client, paper):
    conversation, annotator, _ = paper
    client.force_login(annotator)
    response = client.get(reverse("score-panel", args=[conversation.pk]), headers=HTMX)
    html = response.content.decode()
    score = score_conversation(conversation, annotator)
    assert f'data-score="R">{score.R:.4f}<' in html and 'data-score="R">0.0143<' in html
    assert f'data-score="GF">{score.GF:.4f}<' in html
    assert 'data-score="GF-ORIGIN">0.4492<' in html
    assert f'data-score="GFRC">{score.GFRC:.4f}<' in html
    # Table 1: WC, pw, g, pw*g; Table 2: DistrSim per system turn and attribute set
    assert '<td class="num">35</td><td class="num">0.9728</td><td class="num">1</td><td class="num">0.9728</td>' in html
    assert '<td class="num">46</td><td class="num">0.9640</td><td class="num">0.5</td><td class="num">0.4820</td>' in html
    assert 'data-distrsim="S1 RATINGS">0.6773<' in html and 'data-distrsim="S2 ORIGIN">0.4682<' in html
    assert 'style="width: 60.0%"' in html  # S1 RATINGS achieved (0, 0, 0.6, 0.4)


def test_the_panel_asks_for_nothing_more_after_an_edit(client, paper):
    """The panel arrives inside the edit's own answer: it no longer reloads itself."""
    conversation, annotator, _ = paper
    client.force_login(annotator)
    html = client.get(reverse("score-panel", args=[conversation.pk]), headers=HTMX).content.decode()
    assert 'id="score-panel"' in html and "hx-trigger" not in html and "hx-get" not in html


def test_an_annotator_cannot_see_the_score_panel_of_another_annotators_conversation(client, paper):
    conversation, _, _ = paper
    client.force_login(make_user("stranger"))
    assert client.get(reverse("score-panel", args=[conversation.pk])).status_code == 404


def test_the_score_panel_requires_login(client, paper):
    conversation, _, _ = paper
    assert client.get(reverse("score-panel", args=[conversation.pk])).status_code == 302
