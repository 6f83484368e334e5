"""scoring.design_study: the G study of r:(s x t) and its D study, checked against computations
made apart (exact fractions by Brennan's T terms; least squares of nested dummy-coded models, as
an OLS ANOVA table gives them; estimates averaged over data drawn from known components), two
published examples, and docs/scoring.md's worked example."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from scoring import design_study
from scoring.design_study import CONFOUNDED, balance, study, variance_components

# -- computations made apart -----------------------------------------------------------------------


def sums_of_squares_by_t_terms(x) -> dict[str, Fraction]:
    """Brennan's route (and GENOVA's): sums of squared means weighted by the cells they cover,
    T(s) = n_t n_r sum ȳ_s², ..., SS_s = T(s) - T(mu), in exact fractions by loops."""
    n_s, n_t, n_r = len(x), len(x[0]), len(x[0][0])
    value = [[[Fraction(str(v)) for v in cell] for cell in row] for row in x]
    mean = sum(v for row in value for cell in row for v in cell) / (n_s * n_t * n_r)
    system = [sum(v for cell in value[s] for v in cell) / (n_t * n_r) for s in range(n_s)]
    topic = [sum(v for s in range(n_s) for v in value[s][t]) / (n_s * n_r) for t in range(n_t)]
    cell = [[sum(value[s][t]) / n_r for t in range(n_t)] for s in range(n_s)]
    T_mu = n_s * n_t * n_r * mean ** 2
    T_s = n_t * n_r * sum(m ** 2 for m in system)
    T_t = n_s * n_r * sum(m ** 2 for m in topic)
    T_st = n_r * sum(m ** 2 for row in cell for m in row)
    T_all = sum(v ** 2 for row in value for c in row for v in c)
    return {"system": T_s - T_mu, "topic": T_t - T_mu, "system_x_topic": T_st - T_s - T_t + T_mu,
            "trial_in_cell": T_all - T_st}


def sums_of_squares_by_least_squares(x: np.ndarray) -> dict[str, float]:
    """The OLS route: each term's sum of squares is the fall in the residual sum of squares when
    it joins the model (sequential, as anova_lm gives them; in a balanced design the order does
    not matter); the full model's residual is r:st."""
    n_s, n_t, n_r = x.shape
    s, t, r = (a.ravel() for a in np.meshgrid(range(n_s), range(n_t), range(n_r), indexing="ij"))
    y = x.ravel()

    def dummies(codes, levels):
        return np.eye(levels)[codes][:, 1:]

    one = np.ones((y.size, 1))
    S, T = dummies(s, n_s), dummies(t, n_t)
    ST = np.column_stack([S[:, i] * T[:, j] for i in range(n_s - 1) for j in range(n_t - 1)])

    def rss(*blocks):
        X = np.column_stack(blocks)
        fitted = X @ np.linalg.lstsq(X, y, rcond=None)[0]
        return float(((y - fitted) ** 2).sum())

    return {"system": rss(one) - rss(one, S), "topic": rss(one, S) - rss(one, S, T),
            "system_x_topic": rss(one, S, T) - rss(one, S, T, ST), "trial_in_cell": rss(one, S, T, ST)}


def degrees_of_freedom(n_s, n_t, n_r) -> dict[str, int]:
    return {"system": n_s - 1, "topic": n_t - 1, "system_x_topic": (n_s - 1) * (n_t - 1),
            "trial_in_cell": n_s * n_t * (n_r - 1)}


def drawn(components: dict[str, float], n_s: int, n_t: int, n_r: int, rng) -> np.ndarray:
    """Scores of the r:(s x t) model: grand mean + system + topic + system x topic + trial effects."""
    sd = {k: math.sqrt(v) for k, v in components.items()}
    return (0.5 + rng.normal(0, sd["system"], (n_s, 1, 1)) + rng.normal(0, sd["topic"], (1, n_t, 1))
            + rng.normal(0, sd["system_x_topic"], (n_s, n_t, 1)) + rng.normal(0, sd["trial_in_cell"], (n_s, n_t, n_r)))


@pytest.mark.parametrize("shape, seed", [((3, 5, 2), 1), ((6, 4, 3), 2), ((2, 2, 2), 3), ((5, 9, 4), 4)])
def test_the_mean_squares_equal_exact_t_term_sums_and_least_squares(shape, seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.uniform(0, 1, shape), 3)  # three decimals: exact as fractions
    c = variance_components(x)
    exact = sums_of_squares_by_t_terms(x.tolist())
    ols = sums_of_squares_by_least_squares(x)
    df = degrees_of_freedom(*shape)
    assert c.degrees_of_freedom == df
    for name in design_study.COMPONENTS:
        assert c.mean_squares[name] == pytest.approx(float(exact[name] / df[name]), rel=1e-10, abs=1e-14)
        assert c.mean_squares[name] == pytest.approx(ols[name] / df[name], rel=1e-8, abs=1e-12)
    ms = {k: exact[k] / df[k] for k in exact}
    n_s, n_t, n_r = shape
    by_hand = {"system": (ms["system"] - ms["system_x_topic"]) / (n_t * n_r),
               "topic": (ms["topic"] - ms["system_x_topic"]) / (n_s * n_r),
               "system_x_topic": (ms["system_x_topic"] - ms["trial_in_cell"]) / n_r,
               "trial_in_cell": ms["trial_in_cell"]}
    for name, value in by_hand.items():
        assert c.estimates[name] == pytest.approx(float(value), abs=1e-12)
        assert c.variance[name] == pytest.approx(max(float(value), 0.0), abs=1e-12)


def test_the_estimates_are_unbiased_for_data_drawn_from_known_components():
    truth = {"system": 0.004, "topic": 0.02, "system_x_topic": 0.006, "trial_in_cell": 0.003}
    rng = np.random.default_rng(43)
    draws = np.array([[variance_components(drawn(truth, 12, 25, 3, rng)).estimates[k] for k in truth]
                      for _ in range(600)])
    mean, se = draws.mean(axis=0), draws.std(axis=0, ddof=1) / math.sqrt(len(draws))
    for (name, value), m, e in zip(truth.items(), mean, se):
        assert abs(m - value) < 4 * e, (name, m, value, e)


# -- published examples ------------------------------------------------------------------------------

# Brennan (2001), Generalizability Theory, Chapter 2: Synthetic Data Set No. 1, 10 persons x 12
# dichotomous items (the p x i design), and its G study: s2(p) = .0574, s2(i) = .0754,
# s2(pi,e) = .1269; for 12 items E rho^2 = .844 and Phi = .773. (The data and figures as the
# GeneralizIT package's tests carry them from the book, tests/fixtures/design1_fixtures.py.)
BRENNAN_SYNTHETIC_1 = [
    [1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0],
    [1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
    [1, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0],
    [1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0],
    [1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0],
    [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
    [1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0],
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0],
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
]


def test_brennans_synthetic_data_set_1_is_the_one_trial_case():
    """Persons as systems, items as topics, one trial per cell: p x i is r:(s x t) with n_r = 1,
    where s2(pi,e) is the confounded system_x_topic+trial_in_cell."""
    c = variance_components(np.array(BRENNAN_SYNTHETIC_1, dtype=float)[:, :, None])
    assert c.confounded
    assert round(c.variance["system"], 4) == 0.0574
    assert round(c.variance["topic"], 4) == 0.0754
    assert round(c.variance[CONFOUNDED], 4) == 0.1269
    assert c.variance["system_x_topic"] is None and c.variance["trial_in_cell"] is None
    assert (round(c.mean_squares["system"], 4), round(c.mean_squares["topic"], 4)) == (0.8157, 0.8811)
    coefficients = c.coefficients(12, 1)
    assert (round(float(coefficients["E_rho2"]), 3), round(float(coefficients["Phi"]), 3)) == (0.844, 0.773)


# A crossed gauge R&R study (SPC for Excel, "ANOVA Gage R&R", part 1; the data and its published
# ANOVA as the GaugeRnR package carries them, README.md and GaugeRnR/tests/test_gaugeRnR.py):
# 3 operators measure 5 parts 3 times each. Parts are the object of measurement (systems),
# operators the crossed facet (topics), the repeated measurements the trials in each cell.
# Published: MS part 7.227, operator 0.815, part x operator 0.008, repeatability 0.057; variance
# part 0.8021, operator 0.0538, part x operator 0 (negative, set to 0), repeatability 0.057.
GAUGE = [  # [operator][part][measurement]
    [[3.29, 3.41, 3.64], [2.44, 2.32, 2.42], [4.34, 4.17, 4.27], [3.47, 3.50, 3.64], [2.20, 2.08, 2.16]],
    [[3.08, 3.25, 3.07], [2.53, 1.78, 2.32], [4.19, 3.94, 4.34], [3.01, 4.03, 3.20], [2.44, 1.80, 1.72]],
    [[3.04, 2.89, 2.85], [1.62, 1.87, 2.04], [3.88, 4.09, 3.67], [3.14, 3.20, 3.11], [1.54, 1.93, 1.55]],
]


def test_a_published_gauge_study_with_a_negative_interaction_set_to_zero():
    c = variance_components(np.array(GAUGE).transpose(1, 0, 2))  # parts x operators x measurements
    assert [round(c.mean_squares[k], 3) for k in design_study.COMPONENTS] == [7.227, 0.815, 0.008, 0.057]
    assert c.estimates["system_x_topic"] < 0 and c.variance["system_x_topic"] == 0.0
    assert round(c.variance["system"], 4) == 0.8021 and round(c.variance["topic"], 4) == 0.0538
    assert round(c.variance["trial_in_cell"], 3) == 0.057
    # Brennan's zeroing: the operator component still subtracts MS_po, not MS_e (Cronbach et al.'s)
    assert c.variance["topic"] == pytest.approx((c.mean_squares["topic"] - c.mean_squares["system_x_topic"]) / 15)
    assert c.variance["topic"] != pytest.approx((c.mean_squares["topic"] - c.mean_squares["trial_in_cell"]) / 15)


# -- docs/scoring.md's worked example ----------------------------------------------------------------

WORKED = [("A", "t1", 0.7, 0.8), ("A", "t2", 0.4, 0.5), ("A", "t3", 0.5, 0.7),
          ("B", "t1", 0.4, 0.5), ("B", "t2", 0.3, 0.4), ("B", "t3", 0.4, 0.4)]


def long(rows):
    """(system, topic, trial, score) columns of rows (system, topic, score of trial 1, of trial 2, ...)."""
    out = [(s, t, k, v) for s, t, *scores in rows for k, v in enumerate(scores, 1)]
    return [list(column) for column in zip(*out)]


def test_the_worked_example_of_the_docs():
    result = study(*long(WORKED))
    c = result.components
    assert (c.n_systems, c.n_topics, c.n_trials) == (2, 3, 2) and not result.balanced.left_out.sentences()
    assert [c.mean_squares[k] for k in design_study.COMPONENTS] == pytest.approx([0.12, 0.04, 0.01, 0.04 / 6])
    assert [c.variance[k] for k in design_study.COMPONENTS] == pytest.approx([11 / 600, 3 / 400, 1 / 600, 1 / 150])
    assert [share for _, _, share in c.rows()] == pytest.approx([22 / 41, 9 / 41, 2 / 41, 8 / 41])
    at_own_size = c.coefficients(3, 2)
    assert float(at_own_size["E_rho2"]) == pytest.approx(33 / 36) == 1 - 0.01 / 0.12
    assert float(at_own_size["Phi"]) == pytest.approx(22 / 27)
    fewest = {(row["trials"], row["target"]): (row["E_rho2"], row["Phi"]) for row in result.fewest_topics()}
    assert fewest[1, 0.8] == (2, 4) and fewest[1, 0.9] == (5, 8)
    one = c.coefficients(np.array([1, 2, 3, 4, 5, 7, 8]), 1)
    assert one["E_rho2"][:2] == pytest.approx([0.6875, 44 / 54]) and one["E_rho2"][3:5] == pytest.approx([88 / 98, 110 / 120])
    assert one["Phi"][2:4] == pytest.approx([66 / 85, 88 / 107]) and one["Phi"][5:] == pytest.approx([154 / 173, 176 / 195])


def test_the_docs_give_the_worked_examples_data_and_figures():
    import re
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "scoring.md").read_text(encoding="utf-8")
    section = docs[docs.index("## How many topics and trials: a design study"):]
    rows = re.findall(r"^\| ([AB]) \| (t\d) \| ([\d.]+) \| ([\d.]+) \| [\d.]+ \|$", section, re.M)
    assert [(s, t, float(a), float(b)) for s, t, a, b in rows] == WORKED
    c = study(*long(WORKED)).components
    own = c.coefficients(3, 2)
    assert f"**{float(own['E_rho2']):.6f}**" in section and f"**{float(own['Phi']):.6f}**" in section
    for name, value in zip(design_study.COMPONENTS, ("0.018333", "0.0075", "0.001667", "0.006667")):
        assert f"{c.variance[name]:.6f}".rstrip("0") == value.rstrip("0") and f"| {value} (" in section
    fewest = {(row["trials"], row["target"]): row for row in study(*long(WORKED)).fewest_topics()}
    for target in (0.8, 0.9):
        line = next(line for line in section.splitlines() if line.startswith(f"| {target} |"))
        assert re.findall(r"\*\*(\d+)\*\*", line) == [str(fewest[1, target]["E_rho2"]), str(fewest[1, target]["Phi"])]


# -- the D study ---------------------------------------------------------------------------------------


def components_of(variance: dict[str, float], n_trials: int = 2) -> design_study.Components:
    return design_study.Components(3, 10, n_trials, {}, {}, dict(variance), dict(variance))


@pytest.mark.parametrize("n_t, n_r", [(1, 1), (7, 3), (50, 10), (100, 1)])
def test_the_coefficients_are_the_issues_formulas(n_t, n_r):
    v = {"system": 0.01, "topic": 0.03, "system_x_topic": 0.02, "trial_in_cell": 0.005}
    got = components_of(v).coefficients(n_t, n_r)
    s, t, st, r = v.values()
    assert float(got["E_rho2"]) == pytest.approx(s / (s + st / n_t + r / (n_t * n_r)))
    assert float(got["Phi"]) == pytest.approx(s / (s + (t + st) / n_t + r / (n_t * n_r)))


def test_the_d_study_grid_is_vectorised_and_grows_with_topics_and_trials():
    result = study(*long(WORKED))
    rows = result.d_study()
    assert len(rows) == 100 * 10 and rows[0]["topics"] == 1 and rows[0]["trials"] == 1 and rows[-1]["topics"] == 100
    grid = {(row["topics"], row["trials"]): row for row in rows}
    for (n_t, n_r), row in itertools.islice(grid.items(), 0, None, 37):
        one = result.components.coefficients(n_t, n_r)
        assert (row["E_rho2"], row["Phi"]) == (float(one["E_rho2"]), float(one["Phi"]))
        assert row["Phi"] <= row["E_rho2"]
        if n_t < 100:
            assert grid[n_t + 1, n_r]["E_rho2"] > row["E_rho2"]
        if n_r < 10:
            assert grid[n_t, n_r + 1]["Phi"] > row["Phi"]


@pytest.mark.parametrize("coefficient", ["E_rho2", "Phi"])
@pytest.mark.parametrize("trials", [1, 2, 3, 5, 10])
@pytest.mark.parametrize("target", [0.8, 0.9])
def test_the_fewest_topics_are_the_first_of_a_plain_scan(coefficient, trials, target):
    c = components_of({"system": 0.0021, "topic": 0.013, "system_x_topic": 0.0049, "trial_in_cell": 0.0061})
    scan = next(n for n in range(1, 10_001) if float(c.coefficients(n, trials)[coefficient]) >= target - 1e-12)
    assert c.fewest_topics(target, trials, coefficient) == scan


def test_fewest_topics_is_none_beyond_the_cap_or_without_system_variance():
    tiny = components_of({"system": 1e-9, "topic": 0.01, "system_x_topic": 0.01, "trial_in_cell": 0.01})
    assert tiny.fewest_topics(0.8, 1) is None and tiny.fewest_topics(0.8, 1, cap=10**9) is not None
    flat = components_of({"system": 0.0, "topic": 0.01, "system_x_topic": 0.01, "trial_in_cell": 0.01})
    assert flat.fewest_topics(0.8, 1) is None
    assert float(flat.coefficients(10, 2)["E_rho2"]) == 0.0
    exact = components_of({"system": 0.01, "topic": 0.0, "system_x_topic": 0.0, "trial_in_cell": 0.0})
    assert exact.fewest_topics(0.9, 1, "Phi") == 1
    nothing = components_of(dict.fromkeys(design_study.COMPONENTS, 0.0))
    assert math.isnan(float(nothing.coefficients(5, 2)["E_rho2"]))
    with pytest.raises(ValueError, match="target"):
        exact.fewest_topics(1.0, 1)
    with pytest.raises(ValueError, match="coefficient"):
        exact.fewest_topics(0.8, 1, "alpha")


# -- zeroing, balancing, one trial, too little -----------------------------------------------------------


def test_negative_estimates_are_zero_only_after_all_are_computed():
    # trials disagree more than the systems' topic profiles: MS_st < MS_r:st
    x = np.array([[[0.1, 0.9], [0.2, 0.8], [0.9, 0.1]], [[0.3, 0.7], [0.6, 0.6], [0.2, 0.6]]])
    c = variance_components(x)
    ms = c.mean_squares
    assert ms["system_x_topic"] < ms["trial_in_cell"]
    assert c.estimates["system_x_topic"] < 0 and c.variance["system_x_topic"] == 0.0
    assert c.estimates["system"] == pytest.approx((ms["system"] - ms["system_x_topic"]) / 6)
    assert c.variance["topic"] == max(0.0, (ms["topic"] - ms["system_x_topic"]) / 4)
    assert sum(share for _, _, share in c.rows()) == pytest.approx(1.0)


def test_cells_with_fewer_trials_are_left_out_and_cells_with_more_keep_their_first_trials():
    rows = [(s, t, k, float(f"0.{ord(s) % 9}{t[-1]}{k}")) for s in "ABC" for t in ("t1", "t2", "t3", "t4") for k in (1, 2)]
    rows = [r for r in rows if not (r[0] == "B" and r[1] == "t4" and r[2] == 2)]  # B on t4: one trial
    rows += [("C", "t1", 3, 0.99), ("C", "t1", 0, 0.01)]  # C on t1: trials 0..3, keeps 0 and 1
    rows.reverse()  # the order of the rows does not matter
    result = study(*[list(c) for c in zip(*rows)])
    b = result.balanced
    left = b.left_out
    assert left.trials == 2 and left.short_cells == (("B", "t4", 1),) and left.trimmed_cells == (("C", "t1", 4),)
    assert b.systems == ("A", "B", "C") and b.topics == ("t1", "t2", "t3") and left.topics == {"t4": ("B",)}
    score = {(s, t, k): v for s, t, k, v in rows}
    assert b.scores[2, 0].tolist() == [score["C", "t1", 0], score["C", "t1", 1]]  # trials 0 and 1 of 0..3
    said = " | ".join(left.sentences())
    assert "B on t4 (1)" in said and "C on t1 (4)" in said and "t4 (B)" in said
    kept = np.array([[[score[s, t, k] for k in ((0, 1) if (s, t) == ("C", "t1") else (1, 2))] for t in ("t1", "t2", "t3")]
                     for s in "ABC"])
    assert result.components.mean_squares == variance_components(kept).mean_squares


def test_a_system_with_few_topics_is_left_out_when_that_keeps_more_cells():
    rows = [(s, f"t{t}", k, (t * 7 + k * 3 + ord(s)) % 10 / 10) for s in "ABCD" for t in range(6) for k in (1, 2)
            if not (s == "D" and t > 1)]
    result = study(*[list(c) for c in zip(*rows)])
    assert result.balanced.systems == ("A", "B", "C") and len(result.balanced.topics) == 6
    assert result.balanced.left_out.systems == {"D": ("t2", "t3", "t4", "t5")}
    assert "system D left out" in " ".join(result.balanced.left_out.sentences())


def test_one_trial_per_cell_confounds_interaction_and_trials_and_says_so():
    rows = [(s, t, 1, v) for (s, t, v) in [("A", "t1", 0.2), ("A", "t2", 0.5), ("A", "t3", 0.4),
                                            ("B", "t1", 0.6), ("B", "t2", 0.9), ("B", "t3", 0.7)]]
    result = study(*[list(c) for c in zip(*rows)])
    c = result.components
    assert c.confounded and [name for name, _, _ in c.rows()][-1] == CONFOUNDED
    assert c.variance[CONFOUNDED] == pytest.approx(c.mean_squares["system_x_topic"])
    assert math.isnan(c.mean_squares["trial_in_cell"])
    grid = {(r["topics"], r["trials"]): r for r in result.d_study(range(1, 4), range(1, 4))}
    assert not math.isnan(grid[3, 1]["E_rho2"]) and math.isnan(grid[3, 2]["E_rho2"]) and math.isnan(grid[3, 3]["Phi"])
    fewest = {row["trials"]: row for row in result.fewest_topics()}
    assert fewest[1]["E_rho2"] is not None and fewest[2]["E_rho2"] is None and fewest[10]["Phi"] is None


@pytest.mark.parametrize("rows, reason", [
    ([("A", "t1", 1, 0.1), ("A", "t2", 1, 0.2)], "two or more systems"),
    ([("A", "t1", 1, 0.1), ("B", "t1", 1, 0.2), ("A", "t2", 1, 0.3)], "two or more topics"),
    ([], "two or more systems"),
])
def test_fewer_than_two_systems_or_topics_is_refused_with_a_reason(rows, reason):
    result = study(*([list(c) for c in zip(*rows)] if rows else [[], [], [], []]))
    assert result.components is None and reason in result.reason
    assert result.d_study() == [] and result.fewest_topics() == []
    with pytest.raises(design_study.DesignError):
        variance_components(np.zeros((1, 3, 2)))


def test_a_missing_score_does_not_count_and_two_scores_of_one_trial_are_refused():
    rows = long(WORKED)
    rows[3][0] = float("nan")  # A on t1, trial 1
    assert study(*rows).balanced.left_out.short_cells == (("A", "t1", 1),)
    with pytest.raises(ValueError, match="one score per system, topic and trial"):
        balance(["A", "A"], ["t1", "t1"], [1, 1], [0.1, 0.2])


def test_systems_that_score_alike_have_no_system_variance():
    one = np.random.default_rng(1).uniform(0, 1, (1, 8, 2))
    x = np.repeat(one, 3, axis=0)  # three identical systems, whose means round a hair off the grand mean
    assert ((x.mean(axis=(1, 2)) - x.mean()) ** 2).sum() > 0
    c = variance_components(x)
    assert c.mean_squares["system"] == 0.0 and c.variance["system"] == 0.0
    assert c.fewest_topics(0.8, 1) is None
