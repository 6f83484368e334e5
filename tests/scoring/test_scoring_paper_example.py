"""The paper's worked example (Topic M002, Trial 1, Tables 1 and 2) reproduced by `score`.

The Bing conversation is built by hand from the spec's figures and cross-checked against the
annotated example file; the Bard conversation exists only as the paper's figures (its 452-word
first turn is not in the reference material), so it is built from those.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from scoring.gfrc import AttributeSet, NuggetTable, Settings, TurnTable, hard_normaliser, pw, score
from scoring.reference import score_reference
from scoring.words import turn_offsets, word_count

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "M002-bing-trial1.txt"  # the paper's Figure 5 file

FAIRWEB_ORIGIN_TARGET = np.array(
    [0.244725738, 0.111814346, 0.008438819, 0.154008439, 0.099156118, 0.200421941, 0.080168776, 0.101265823]
)
REGIONS = ("Africa", "America", "Antarctica", "Asia", "Caribbean", "Europe", "Middle East", "Oceania")
RATING_BANDS = ("<100", "100-10K", "10K-1M", ">=1M")

RATINGS = AttributeSet("RATINGS", RATING_BANDS, np.full(4, 0.25), "rnod", 1.0)
ORIGIN = AttributeSet("ORIGIN", REGIONS, FAIRWEB_ORIGIN_TARGET, "jsd", 1.0)
ORIGIN_UNIFORM = AttributeSet("ORIGIN", REGIONS, np.full(8, 1 / 8), "jsd", 1.0)

US = (0, 1, 0, 0, 0, 0, 0, 0)
HIGH, MID = (0, 0, 0, 1), (0, 0, 1, 0)

# Bing, M002 trial 1: (title, WC, gain, RATINGS, ORIGIN), S1 then S2, as in the example file.
BING_S1 = [
    ("Back to the Future", 35, 1.0, HIGH, US),
    ("The Terminator", 39, 1.0, MID, (0, 1 / 2, 0, 0, 0, 1 / 2, 0, 0)),
    ("Groundhog Day", 43, 1.0, MID, US),
    ("Interstellar", 46, 0.5, HIGH, (0, 2 / 3, 0, 0, 0, 1 / 3, 0, 0)),
    ("The Time Machine", 51, 1.0, MID, US),
]
BING_S2 = [
    ("12 Monkeys", 91, 1.0, MID, US),
    ("The Butterfly Effect", 96, 1.0, MID, US),
    ("Looper", 99, 1.0, MID, (0, 1 / 2, 0, 1 / 2, 0, 0, 0, 0)),
    ("Edge of Tomorrow", 104, 1.0, MID, US),
    ("Predestination", 107, 1.0, MID, (0, 1 / 2, 0, 0, 0, 0, 0, 1 / 2)),
]
BING_TURN_ENDS = [67, 123]  # S1 and S2 end at these words (U1 17 + S1 50; + U2 6 + S2 50)

SPEC_PW = [0.9728, 0.9696, 0.9664, 0.9640, 0.9600, 0.9280, 0.9240, 0.9216, 0.9176, 0.9152]


def tables(turn_ends: list[int], turns_of_nuggets: list[list[tuple]]) -> tuple[TurnTable, NuggetTable]:
    """One conversation: system turns ending at turn_ends, each with its (title, wc, g, RATINGS, ORIGIN)."""
    rows = [(t, *nugget) for t, nuggets in enumerate(turns_of_nuggets) for nugget in nuggets]
    titles = sorted({row[1] for row in rows})
    turns = TurnTable(conversation=np.zeros(len(turn_ends), dtype=int), end_wc=np.array(turn_ends))
    nuggets = NuggetTable(
        turn=np.array([r[0] for r in rows], dtype=int),
        wc=np.array([r[2] for r in rows], dtype=int),
        gain=np.array([r[3] for r in rows], dtype=float),
        entity=np.array([titles.index(r[1]) for r in rows], dtype=int),
        membership={
            "RATINGS": np.array([r[4] for r in rows], dtype=float).reshape(-1, 4),
            "ORIGIN": np.array([r[5] for r in rows], dtype=float).reshape(-1, 8),
        },
    )
    return turns, nuggets


def bing(attribute_sets=(RATINGS, ORIGIN), settings: Settings = Settings()):
    turns, nuggets = tables(BING_TURN_ENDS, [BING_S1, BING_S2])
    return score(turns, nuggets, attribute_sets, settings, 1)


def bard(settings: Settings = Settings()):
    """Bard: S1 is 452 words with no nugget (ends at 17 + 452); S2 has two relevant nuggets
    (506, 560) and three L0 ones (wrong URLs or unrated) whose memberships are unknown (NaN)."""
    unknown4, unknown8 = (np.nan,) * 4, (np.nan,) * 8
    s2 = [
        ("Back to the Future", 506, 1.0, HIGH, US),
        ("Pulp Fiction", 520, 0.0, unknown4, unknown8),
        ("Looper (wrong URL)", 535, 0.0, unknown4, unknown8),
        ("Interstellar", 560, 0.5, HIGH, (0, 2 / 3, 0, 0, 0, 1 / 3, 0, 0)),
        ("Tenet (wrong URL)", 575, 0.0, unknown4, unknown8),
    ]
    turns, nuggets = tables([469, 640], [[], s2])
    return score(turns, nuggets, (RATINGS, ORIGIN), settings, 1)


def r4(x: float) -> float:
    return round(float(x), 4)


# --- the example file: word positions come from the text alone ------------------------------


def read_annotated_conversation(path: Path) -> tuple[list[str], list[str], list[dict]]:
    """Split a Figure-5 style file into turn texts and the nuggets annotated in them.

    '### U1' / '### S1 o' start turns; lines starting with '#' or 'wc=' are annotation (never
    text); a text line followed by a '#L<grade>' line is a nugget, and its annotation block
    (grade, hand-written wc=, memberships) is collected until the next text line.
    """
    headers: list[str] = []
    turn_lines: list[list[str]] = []
    nuggets: list[dict] = []
    last_text: tuple[int, int] | None = None  # (turn index, line index within the turn)
    for line in path.read_text(encoding="utf-8").splitlines():
        header = re.match(r"^###\s+([US]\d+)\b", line)
        if header:
            headers.append(header.group(1))
            turn_lines.append([])
            last_text = None
            continue
        if line.startswith("#") or line.startswith("wc="):
            if last_text is None:
                continue  # topic line '##### M002' or annotation before any text
            grade = re.match(r"^#(L\d+)", line)
            if grade:
                nuggets.append({"turn": last_text[0], "line": last_text[1], "grade": grade.group(1)})
            elif nuggets and (nuggets[-1]["turn"], nuggets[-1]["line"]) == last_text:
                nugget = nuggets[-1]
                if line.startswith("wc="):
                    nugget["hand_wc"] = int(line.split("=", 1)[1])
                else:
                    name, vector = re.match(r"^#(\w+):\s*\(([^)]*)\)", line).groups()
                    nugget[name] = tuple(float(Fraction(v.strip())) for v in vector.split(","))
            continue
        turn_lines[-1].append(line)
        last_text = (len(turn_lines) - 1, len(turn_lines[-1]) - 1)
    texts = ["\n".join(lines) for lines in turn_lines]
    offsets = turn_offsets(texts)
    for nugget in nuggets:
        lines = turn_lines[nugget["turn"]][: nugget["line"] + 1]
        nugget["wc"] = int(offsets[nugget["turn"]]) + word_count("\n".join(lines))
    return headers, texts, nuggets


def test_bing_m002_reproduces_the_papers_word_positions():
    headers, texts, nuggets = read_annotated_conversation(EXAMPLE)
    assert headers == ["U1", "S1", "U2", "S2"]
    assert word_count(texts[0]) == 17
    positions = [n["wc"] for n in nuggets]
    assert positions == [35, 39, 43, 46, 51, 91, 96, 99, 104, 107]
    assert positions == [n["hand_wc"] for n in nuggets]  # the annotator's own wc= lines agree
    assert positions == [row[1] for row in BING_S1 + BING_S2]  # and so does the hand-built example
    ends = np.cumsum([word_count(t) for t in texts])
    assert [int(ends[1]), int(ends[3])] == BING_TURN_ENDS


def test_bing_m002_hand_built_grades_and_memberships_match_the_example_file():
    _, _, nuggets = read_annotated_conversation(EXAMPLE)
    hand = BING_S1 + BING_S2
    gains = {"L2": 1.0, "L1": 0.5, "L0": 0.0}
    assert [gains[n["grade"]] for n in nuggets] == [row[2] for row in hand]
    assert [n["RATINGS"] for n in nuggets] == [tuple(float(x) for x in row[3]) for row in hand]
    assert np.allclose([n["ORIGIN"] for n in nuggets], [row[4] for row in hand], atol=1e-15)


# --- Table 1: R ----------------------------------------------------------------------------


def test_pw_of_every_bing_nugget_matches_table_1():
    scores = bing()
    assert [r4(x) for x in scores.pw] == SPEC_PW
    assert [r4(x) for x in scores.contribution] == [0.9728, 0.9696, 0.9664, 0.4820, 0.9600,
                                                    0.9280, 0.9240, 0.9216, 0.9176, 0.9152]


def test_pw_is_one_at_the_first_word_and_zero_from_word_l_plus_one():
    assert pw(np.array([1, 1250, 1251, 5000]), 1250).tolist() == pytest.approx([1.0, 1 / 1250, 0.0, 0.0], abs=1e-15)
    assert hard_normaliser(1250) == 625.5


def test_bing_r_is_0_0143():
    assert r4(bing().R[0]) == 0.0143


def test_bard_r_is_0_0014_about_a_tenth_of_bing():
    scores = bard()
    relevant = scores.effective_gain > 0
    assert [r4(x) for x in scores.pw[relevant]] == [0.5960, 0.5528]
    assert [r4(x) for x in scores.contribution[relevant]] == [0.5960, 0.2764]
    assert r4(scores.R[0]) == 0.0014
    assert 0.09 < scores.R[0] / bing().R[0] < 0.1


# --- Table 2: GF ---------------------------------------------------------------------------


def test_bing_ratings_achieved_distributions_and_rnod_distrsims_match_table_2():
    scores = bing()
    assert np.allclose(scores.achieved["RATINGS"], [[0, 0, 0.6, 0.4], [0, 0, 1, 0]])
    assert [r4(x) for x in scores.distr_sim[:, 0]] == [0.6773, 0.4796]


def test_bing_gf_ratings_is_the_mean_of_its_turns_0_5784_and_the_paper_rounds_first_to_0_5785():
    """The exact mean is 0.57842; the paper's 0.5785 is the mean of its rounded 0.6773 and 0.4796."""
    scores = bing()
    assert r4(scores.GF_m[0, 0]) == 0.5784
    mean_of_rounded = (Decimal("0.6773") + Decimal("0.4796")) / 2
    assert mean_of_rounded.quantize(Decimal("0.0001"), ROUND_HALF_UP) == Decimal("0.5785")
    assert abs(scores.GF_m[0, 0] - 0.5785) < 1e-4


def test_bing_origin_with_the_fairweb_target_matches_table_2():
    scores = bing()
    assert np.allclose(scores.achieved["ORIGIN"][0], [0, 5 / 6, 0, 0, 0, 1 / 6, 0, 0])
    assert np.allclose(scores.achieved["ORIGIN"][1], [0, 0.8, 0, 0.1, 0, 0, 0, 0.1])
    assert [r4(x) for x in scores.distr_sim[:, 1]] == [0.4303, 0.4682]
    assert r4(scores.GF_m[0, 1]) == 0.4492


def test_bing_origin_with_a_uniform_target_would_give_0_4114_and_0_4872():
    scores = bing(attribute_sets=(RATINGS, ORIGIN_UNIFORM))
    assert [r4(x) for x in scores.distr_sim[:, 1]] == [0.4114, 0.4872]


def test_bing_gf_is_the_equal_weight_mean_of_ratings_and_origin_and_gfrc_mixes_in_r():
    scores = bing()
    assert scores.attribute_weights.tolist() == [0.5, 0.5]
    assert scores.GF[0] == pytest.approx((scores.GF_m[0, 0] + scores.GF_m[0, 1]) / 2)
    assert scores.GFRC[0] == pytest.approx(0.5 * scores.R[0] + 0.5 * scores.GF[0])


def test_bard_scores_only_s2_with_gf_ratings_0_4049_and_gf_origin_0_4303():
    scores = bard()
    assert scores.scored.tolist() == [False, True]
    assert np.isnan(scores.achieved["RATINGS"][0]).all()
    assert scores.achieved["RATINGS"][1].tolist() == [0, 0, 0, 1]
    assert np.allclose(scores.achieved["ORIGIN"][1], bing().achieved["ORIGIN"][0])  # D(S2) = Bing's D(S1)
    assert r4(scores.GF_m[0, 0]) == 0.4049
    assert r4(scores.GF_m[0, 1]) == 0.4303


def test_the_paper_example_agrees_with_the_plain_python_reference():
    for settings in (Settings(), Settings(method="cumulative", turn_weight="max_pw", empty_turns="uniform")):
        turns, nuggets = tables(BING_TURN_ENDS, [BING_S1, BING_S2])
        fast = score(turns, nuggets, (RATINGS, ORIGIN), settings, 1)
        slow = score_reference(turns, nuggets, (RATINGS, ORIGIN), settings, 1)
        assert fast.R.tolist() == pytest.approx(slow.R, abs=1e-12)
        assert fast.GF_m.tolist() == [pytest.approx(row, abs=1e-12) for row in slow.GF_m]
