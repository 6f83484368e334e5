"""GFRC written out formula by formula in plain Python: the oracle for `scoring.gfrc.score`.

Deliberately naive: loops, lists and dicts, no numpy, one conversation at a time, each step
named after the GFRC specification (docs/scoring.md); the divergences are
`scoring.reference.divergence`'s. It makes no attempt at speed (clarity first), which also
makes it the baseline of `bench/bench_scoring.py`. The property tests assert the vectorised
`score` agrees with it on random campaigns under every combination of settings.

`score_reference` takes the same tables as `score` (it only reads them through `.tolist()`
and iteration, so numpy stays out of this module) and regroups them into nested plain
conversations -> turns -> nuggets before scoring.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.reference.divergence import DIVERGENCES


@dataclass
class ReferenceScores:
    """Per-conversation figures, plus per-nugget gains and per-turn DistrSim for finer checks."""

    R: list[float]
    GF_m: list[list[float]]  # [conversation][attribute set]
    GF: list[float]
    GFRC: list[float]
    effective_gain: list[float]  # per nugget row
    distr_sim: list[list[float] | None]  # per turn row: one DistrSim per attribute set, None if not scored
    turn_weight: list[float]  # per turn row: PW(S), 0 if not scored


def pw(wc: int, patience: int) -> float:
    """pw(n) = max(0, 1 - (WC(n) - 1) / L)."""
    return max(0.0, 1.0 - (wc - 1) / patience)


def campaign_from_tables(turns, nuggets, attribute_sets, n_conversations: int) -> list[list[dict]]:
    """Regroup the flat tables into conversations -> system turns -> nuggets (plain Python)."""
    conversations: list[list[dict]] = [[] for _ in range(n_conversations)]
    turn_dicts = []
    for row, (conversation, end_wc) in enumerate(zip(turns.conversation.tolist(), turns.end_wc.tolist())):
        turn = {"row": row, "end_wc": end_wc, "nuggets": []}
        conversations[conversation].append(turn)
        turn_dicts.append(turn)
    memberships = {a.name: nuggets.membership[a.name].tolist() for a in attribute_sets if len(nuggets)}
    columns = zip(nuggets.turn.tolist(), nuggets.wc.tolist(), nuggets.gain.tolist(), nuggets.entity.tolist())
    for row, (turn, wc, gain, entity) in enumerate(columns):
        turn_dicts[turn]["nuggets"].append(
            {
                "row": row,
                "wc": wc,
                "gain": gain,
                "entity": entity,
                "membership": {name: vectors[row] for name, vectors in memberships.items()},
            }
        )
    return conversations


def score_conversation(conversation: list[dict], attribute_sets, settings) -> dict:
    """R, GF_m, GF, GFRC of one conversation, following the spec line by line."""
    patience = settings.patience

    # Duplicates: walk the nuggets in reading order; an entity already seen gains nothing.
    all_nuggets = [n for turn in conversation for n in turn["nuggets"]]
    effective_gain = {}
    seen = set()
    for nugget in sorted(all_nuggets, key=lambda n: (n["wc"], n["row"])):
        if settings.duplicates_count_once and nugget["entity"] in seen:
            effective_gain[nugget["row"]] = 0.0
        else:
            effective_gain[nugget["row"]] = nugget["gain"]
        seen.add(nugget["entity"])

    # R = (1/N) sum pw(n) g(n), N = (L+1)/2.
    normaliser = (patience + 1) / 2
    R = sum(pw(n["wc"], patience) * effective_gain[n["row"]] for n in all_nuggets) / normaliser

    # Achieved distributions and DistrSim per scored system turn.
    names = [a.name for a in attribute_sets]
    targets = {a.name: [float(x) for x in a.target] for a in attribute_sets}
    turn_results = {}
    pooled: list[dict] = []  # relevant nuggets so far (cumulative method)
    for turn in conversation:
        own = [n for n in turn["nuggets"] if effective_gain[n["row"]] > 0]
        pooled.extend(own)
        # Only a turn with relevant nuggets of its own gets an achieved distribution; under
        # cumulative it is built from those and every earlier relevant nugget.
        basis = (pooled if settings.method == "cumulative" else own) if own else []
        if not basis and settings.empty_turns == "ignore":
            turn_results[turn["row"]] = (None, 0.0)
            continue
        if settings.turn_weight == "one":
            weight = 1.0
        elif own:
            weight = max(pw(n["wc"], patience) for n in own)
        else:
            weight = pw(turn["end_wc"], patience)
        sims = []
        for name in names:
            target = targets[name]
            k = len(target)
            if basis:
                achieved = [sum(n["membership"][name][g] for n in basis) / len(basis) for g in range(k)]
            else:
                achieved = [1.0 / k] * k
            divergence = DIVERGENCES[next(a.divergence for a in attribute_sets if a.name == name)]
            sims.append(1.0 - divergence(achieved, target))
        turn_results[turn["row"]] = (sims, weight)

    # GF_m = sum PW(S) DistrSim_m(S) / sum PW(S) over scored turns; 0 if nothing weighs.
    gf_m = []
    for m in range(len(names)):
        numerator = denominator = 0.0
        for sims, weight in turn_results.values():
            if sims is not None:
                numerator += weight * sims[m]
                denominator += weight
        gf_m.append(numerator / denominator if denominator > 0 else 0.0)

    raw_weights = [a.weight for a in attribute_sets]
    total = sum(raw_weights)
    if total > 0:
        weights = [w / total for w in raw_weights]
    else:  # all zero (or no attribute set at all): equal weights, the paper's choice
        weights = [1.0 / len(names) for _ in names]
    GF = sum(w * g for w, g in zip(weights, gf_m))
    GFRC = settings.alpha * R + (1 - settings.alpha) * GF
    return {"R": R, "GF_m": gf_m, "GF": GF, "GFRC": GFRC, "effective_gain": effective_gain, "turns": turn_results}


def score_reference(turns, nuggets, attribute_sets, settings, n_conversations: int) -> ReferenceScores:
    """Same inputs and semantics as `scoring.gfrc.score`, one conversation at a time."""
    attribute_sets = tuple(attribute_sets)
    conversations = campaign_from_tables(turns, nuggets, attribute_sets, n_conversations)
    effective_gain = [0.0] * len(nuggets.turn)
    distr_sims: list[list[float] | None] = [None] * len(turns.conversation)
    turn_weight = [0.0] * len(turns.conversation)
    result = ReferenceScores(R=[], GF_m=[], GF=[], GFRC=[], effective_gain=effective_gain,
                             distr_sim=distr_sims, turn_weight=turn_weight)
    for conversation in conversations:
        scores = score_conversation(conversation, attribute_sets, settings)
        result.R.append(scores["R"])
        result.GF_m.append(scores["GF_m"])
        result.GF.append(scores["GF"])
        result.GFRC.append(scores["GFRC"])
        for row, gain in scores["effective_gain"].items():
            effective_gain[row] = gain
        for row, (sims, weight) in scores["turns"].items():
            distr_sims[row] = sims
            turn_weight[row] = weight
    return result
