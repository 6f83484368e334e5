"""manage.py compare_judges: the campaign-level CSV (one row per measure) or everything as JSON."""

import csv
import io
import json

import pytest

from annotator.models import AnnotatorProfile
from tests.commands.helpers import refused, run
from tests.console.demo import build_demo


@pytest.fixture
def demo(db):
    campaign, _, (ann, bob) = build_demo(n_topics=2)
    AnnotatorProfile.mark(bob, description="test judge")
    return campaign, ann, bob


def test_the_csv_has_one_row_per_measure_with_the_issues_columns(demo):
    out, _ = run("compare_judges", "--campaign", "fw", "--judge", "bob")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["measure", "runs", "kendall_tau_b", "tau_ap", "flips", "mean_abs_error"]
    assert [r["measure"] for r in rows] == ["R", "GF_ORIGIN", "GF_RATINGS", "GF", "GFRC"]


def test_the_json_names_the_gold_and_holds_every_figure(demo):
    out, _ = run("compare_judges", "--campaign", "fw", "--judge", "bob", "--gold", "ann", "--format", "json")
    data = json.loads(out)
    assert (data["judge"], data["gold"], data["conversations_compared"]) == ("bob", "ann", 4)
    assert set(data) >= {"nuggets", "grades", "memberships", "measures", "per_conversation"}
    assert data["measures"][-1]["measure"] == "GFRC" and "kendall_p" in data["measures"][-1]


def test_a_judge_sharing_nothing_with_the_gold_says_so(demo):
    out, err = run("compare_judges", "--campaign", "fw", "--judge", "org")
    assert "nothing to compare" in err
    assert out.strip() == "measure,runs,kendall_tau_b,tau_ap,flips,mean_abs_error"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--campaign", "nope", "--judge", "bob"], "no campaign 'nope'"),
        (["--campaign", "fw", "--judge", "nobody"], "no user named 'nobody'"),
        (["--campaign", "fw", "--judge", "bob", "--gold", "nobody"], "no user named 'nobody'"),
    ],
)
def test_unknown_names_are_refused(demo, args, message):
    error, _ = refused("compare_judges", *args)
    assert message in error


def test_the_systems_own_citations_are_compared_with_the_gold_as_the_judge_citations(db):
    from tests.factories import mark
    from tests.workspace.conftest import build_harvest

    conversation, gold = build_harvest()
    mark(conversation, gold, 4, 12, 17, grade="L2")  # the gold agrees with the Volver citation
    mark(conversation, gold, 4, 0, 3, grade="L0")  # and marks words the system cited nothing on
    out, _ = run("compare_judges", "--campaign", "fw", "--judge", "citations", "--gold", "gold", "--format", "json")
    data = json.loads(out)
    assert (data["judge"], data["gold"], data["conversations_compared"]) == ("citations", "gold", 1)
    (row,) = data["per_conversation"]
    assert (row["nuggets_gold"], row["nuggets_judge"]) == (2, 2)
    assert row["exact_precision"] == row["exact_recall"] == 0.5
