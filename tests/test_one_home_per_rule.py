"""Each rule of the annotation guidelines has one home (docs/architecture.md, "Where each rule
lives"). These tests look for the rule's own wording in the source of annotator/ and scoring/:
a second home coming back (a copied regex, a restated query, a recomputed WC) fails here,
naming the file. Each rule's behaviour is tested beside its home (tests/rules, tests/scoring).

The set-up rules (an attribute set's name, groups, target, helper...; a campaign's settings and
grades) are held to one home by their behaviour instead, since a copy in other words would pass
a search for their text: tests/test_set_up_rules_through_every_entrance.py feeds the same bad
input through every entrance and wants the same refusal in the same words.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# scoring/reference/ is left out: its plain-Python oracles are second homes on purpose, written
# apart to check the homes (the app never imports them: pyproject.toml's import contracts).
SOURCES = sorted(
    path for folder in ("annotator", "scoring") for path in (ROOT / folder).rglob("*.py")
    if "migrations" not in path.parts and not path.is_relative_to(ROOT / "scoring" / "reference")
)


def homes_of(pattern: str, within: str = "") -> set[str]:
    """The source files (relative paths, under `within`) whose code matches `pattern`."""
    rx = re.compile(pattern)
    return {
        name for path in SOURCES
        if (name := str(path.relative_to(ROOT))).startswith(within) and rx.search(path.read_text(encoding="utf-8"))
    }


def test_campaign_scores_are_computed_only_in_the_scores_package():
    assert homes_of(r"gfrc\.score\(") == {"annotator/scores/per_conversation.py", "annotator/scores/stored/figures.py"}


def test_the_measure_columns_are_listed_only_in_campaign_tables():
    assert homes_of(r'"GF",\s*"GFRC"') == {"annotator/scores/campaign_tables.py"}
    assert homes_of(r'"GF_"|f"GF_\{') == {"annotator/scores/campaign_tables.py"}


def test_a_nuggets_text_and_wc_are_computed_only_in_scoring_words():
    assert homes_of(r"end_word\s*\+\s*1\s*\]") == {"scoring/words.py"}  # the span's words
    assert homes_of(r"[\w\]]\s*\+\s*[\w.]*end_word\s*\+\s*1") == set()  # offset + end_word + 1: word_position
    assert homes_of(r"\+=\s*(len\(tokenise|word_count)") == set()  # running word counts: turn_offsets
    assert homes_of(r"def turn_offsets") == {"scoring/words.py"}


def test_which_entities_need_memberships_is_decided_only_in_rules_relevance():
    # (scoring/ has its own: a nugget counts in GF when its *effective* gain is above 0)
    assert homes_of(r"\bgain\s*(>|==|<=)\s*0\b", within="annotator/") == {"annotator/rules/relevance.py"}


def test_what_a_user_may_see_is_decided_only_in_access():
    assert homes_of(r"organisers\s*=\s*[\w.]*user\b|assignments__annotator\s*=\s*[\w.]*user\b|annotator_id\s*=\s*[\w.]*user\.pk") == {
        "annotator/access.py"
    }


def test_exact_span_matching_is_defined_only_in_scoring_rankings():
    assert homes_of(r"def exact_matches|set\(gold\)\s*&") == {"scoring/rankings.py"}
    assert homes_of(r"exact_f1\s*=\s*dice") == set()


def test_turn_label_names_come_only_from_the_model():
    assert homes_of(r'"(looks useful|not useful|no turn)"') == set()
    assert homes_of(r'"o: looks useful"') == {"annotator/models/judgments.py"}


def test_the_t_interval_of_a_mean_is_taken_only_in_scoring_intervals():
    assert homes_of(r"\bt\.ppf\(\s*\(1 \+ confidence\)|std\(ddof=1\)\s*/\s*(math|np)\.sqrt") == {"scoring/intervals.py"}


def test_krippendorffs_alpha_is_computed_only_in_scoring_agreement():
    assert homes_of(r"krippendorff\.alpha\(|def krippendorff_alpha|coincidence") == {"scoring/agreement.py"}


def test_uploaded_zips_are_opened_only_in_formats_zips_with_its_caps():
    # (the exports write zips: mode "w")
    assert homes_of(r"zipfile\.ZipFile\((?![^)\n]*[\"']w[\"'])") == {"annotator/interchange/formats/zips.py"}


def test_a_urls_user_part_is_read_only_in_rules_identity():
    assert homes_of(r'rpartition\("@"\)') == {"annotator/rules/identity.py"}


def test_a_target_is_used_as_given_within_1e_5_by_a_rule_in_scoring_targets_only():
    # the conversation side (gfrc), the ranked-list side (gfr) and, through rules.vectors.check_target,
    # the attribute sets' rules (rules.attribute_sets: the model, the campaign file, the console's form)
    assert homes_of(r"TARGET\w*TOLERANCE\s*=|def target_problem") == {"scoring/targets.py"}
    assert homes_of(r"target\.sum\(\)|tolerance\s*=\s*TARGET") == set()
    assert homes_of(r"\btarget_problem\(") == {"scoring/targets.py", "scoring/gfrc.py", "scoring/gfr.py", "annotator/rules/vectors.py"}


def test_a_vectors_length_is_judged_only_in_rules_vectors_before_its_numbers():
    # check_length: the API, the edit service, the forms and the NTCIREVAL importer call it
    assert homes_of(r"values, expected|len\([\w.]*vector\)\s*!=") == {"annotator/rules/vectors.py"}
