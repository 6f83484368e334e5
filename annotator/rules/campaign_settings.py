"""The rules of a campaign's settings and grades, in one home.

`read_settings` judges the settings (L, alpha, the scoring choices, whether duplicates count
once, what an import does with a relevant nugget without a membership, the ranked-list cutoff);
`harvest_problems` what a harvest asks the systems (each topic type's first user turn, the
follow-ups, the simulated user's prompt; annotator.harvesting);
`grade_problems` one grade (its label, its gain, its ranked-list gain: FairWeb-1's for L0-L2 when
none is given); `repeated_grade_problems` the labels and levels of a scale. Problems are
``(field, message)`` pairs (annotator.rules.problems). The model's `full_clean` (Campaign,
Grade), the console's settings and grade forms (and the API's settings endpoint through them)
and the campaign file all ask these, and say their problems in their words.

Pure Python (no Django).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from string import Formatter
from typing import Any

from annotator.rules.problems import Problem, choice_problem, number_problem
from scoring.gfr import DEFAULT_GAINS as RANKED_LIST_GAINS
from scoring.gfrc import EMPTY_TURNS, METHODS, TURN_WEIGHTS

MISSING_MEMBERSHIP = ("uniform", "refuse")  # count a relevant nugget without a vector as uniform, or refuse the import
CHOICES = {"method": METHODS, "empty_turns": EMPTY_TURNS, "turn_weight": TURN_WEIGHTS, "missing_membership": MISSING_MEMBERSHIP}
SETTINGS = ("patience", "alpha", "method", "empty_turns", "turn_weight", "duplicates_count_once", "missing_membership",
            "ranked_list_cutoff")
GRADE_LABEL_MAX = 16
MAX_RANKED_LIST_GAIN = 1_000_000


def read_settings(given: Mapping[str, Any]) -> tuple[dict, list[Problem]]:
    """The settings among `given` (keys of SETTINGS; those absent are not judged) read (L and
    the cutoff as int, alpha as float; None where there is a problem), and their problems."""
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    for field in SETTINGS:
        if field not in given:
            continue
        value = given[field]
        problem = _setting_problem(field, value)
        if problem is not None:
            problems.append((field, problem))
            values[field] = None
        elif field in ("patience", "ranked_list_cutoff"):
            values[field] = int(value)
        else:
            values[field] = float(value) if field == "alpha" else value
    return values, problems


def _setting_problem(field: str, value: Any) -> str | None:
    if field in ("patience", "ranked_list_cutoff"):  # a number of words; of ranks
        return number_problem(value, low=1, integer=True)
    if field == "alpha":  # GFRC = alpha R + (1 - alpha) GF
        return number_problem(value, low=0, high=1)
    if field == "duplicates_count_once":
        return None if isinstance(value, bool) else "must be true or false"
    return None if value in CHOICES[field] else choice_problem(CHOICES[field])


def grade_problems(label: Any, gain: Any, ranked_list_gain: Any = None) -> list[Problem]:
    """One grade's problems: a short label, a gain in [0, 1] (the paper: L0 0, L1 0.5, L2 1), a
    ranked-list gain of at least 0 (FairWeb-1: L1 1, L2 3); none given is FairWeb-1's, which
    covers L0, L1 and L2 only."""
    problems: list[Problem] = []
    if not isinstance(label, str) or not label.strip() or len(label) > GRADE_LABEL_MAX:
        problems.append(("label", "a grade label is a short non-empty string"))
    if (problem := number_problem(gain, low=0, high=1)) is not None:
        problems.append(("gain", problem))
    if ranked_list_gain is None:
        if ranked_list_gain_of(label) is None:
            problems.append(("ranked_list_gain", missing_ranked_list_gain(label)))
    elif (problem := number_problem(ranked_list_gain, low=0, high=MAX_RANKED_LIST_GAIN)) is not None:
        problems.append(("ranked_list_gain", problem))
    return problems


def ranked_list_gain_of(label: Any, given: Any = None) -> Any:
    """The ranked-list gain of a grade: the one given, else FairWeb-1's (L0 0, L1 1, L2 3), else None."""
    if given is not None:
        return given
    return RANKED_LIST_GAINS.get(label) if isinstance(label, str) else None


def missing_ranked_list_gain(label: Any) -> str:
    return f"give the ranked-list gain of {label} (FairWeb-1's defaults cover L0, L1 and L2)"


def repeated_grade_problems(grades: Sequence[tuple[Any, Any]]) -> list[tuple[int, Problem]]:
    """The grades of a scale ((label, level) pairs, in order) whose label or level an earlier one
    has: (its index, its problem)."""
    out: list[tuple[int, Problem]] = []
    labels: set = set()
    levels: set = set()
    for index, (label, level) in enumerate(grades):
        if label in labels:
            out.append((index, ("label", f"label {label} is given twice")))
        if level in levels:
            out.append((index, ("level", f"level {level} is given twice")))
        labels.add(label)
        levels.add(level)
    return out


# --- harvesting: what a harvest asks the systems (annotator.harvesting) -------------------------
# The paper's protocol (Sakai, EVIA 2023): the topic as a request, then "Can you name a few
# more?"; a topic type's template adds the format line it asks for (FairWeb-1's movies:
# "Format: movie title, iMDB URL").
PAPER_FIRST_TURN = "Please list up {description}."
PAPER_FOLLOW_UPS = ("Can you name a few more?",)
SIMULATED_USER_PROMPT = (
    "You are a user of a conversational search system, looking for {description} (topic {topic}). "
    "Here is the conversation so far:\n\n{conversation}\n\n"
    "Write your next message to the system: one short request for more of what you are looking for, "
    "without repeating what it already gave. Write only the message."
)
HARVEST_SETTINGS = ("harvest_templates", "harvest_follow_ups", "harvest_user_prompt")
TEMPLATE_FIELDS = ("topic", "description", "type")  # what a first turn or a follow-up may name
USER_PROMPT_FIELDS = (*TEMPLATE_FIELDS, "conversation")
MAX_FOLLOW_UPS = 20
MAX_TEMPLATE = 5_000


def harvest_problems(given: Mapping[str, Any], type_codes: Sequence[str] | None = None) -> list[Problem]:
    """The problems of the harvest settings among `given` (keys of HARVEST_SETTINGS): the first
    turn's template per topic type code (of `type_codes`, when given), the follow-ups, the
    simulated user's prompt; placeholders in braces only among those each may name."""
    problems: list[Problem] = []
    templates = given.get("harvest_templates", {})
    if not isinstance(templates, Mapping):
        problems.append(("harvest_templates", "must be an object: a topic type's code -> its first user turn"))
        templates = {}
    for code, template in templates.items():
        field = f"harvest_templates.{code}"
        if type_codes is not None and code not in type_codes:
            problems.append((field, f"no topic type {code} in the campaign"))
        elif (problem := template_problem(template, TEMPLATE_FIELDS)) is not None:
            problems.append((field, problem))
    follow_ups = given.get("harvest_follow_ups", list(PAPER_FOLLOW_UPS))
    if not isinstance(follow_ups, Sequence) or isinstance(follow_ups, str) or len(follow_ups) > MAX_FOLLOW_UPS:
        problems.append(("harvest_follow_ups", f"must be a list of at most {MAX_FOLLOW_UPS} messages"))
    else:
        for i, text in enumerate(follow_ups):
            if (problem := template_problem(text, TEMPLATE_FIELDS)) is not None:
                problems.append((f"harvest_follow_ups.{i + 1}", problem))
    prompt = given.get("harvest_user_prompt", SIMULATED_USER_PROMPT)
    if (problem := template_problem(prompt, USER_PROMPT_FIELDS)) is not None:
        problems.append(("harvest_user_prompt", problem))
    return problems


def template_problem(template: Any, fields: Sequence[str]) -> str | None:
    """Why `template` is not a message with placeholders among `fields` ({description}...;
    {{ and }} are braces); None when it is one."""
    if not isinstance(template, str) or not template.strip():
        return "must be a non-empty text"
    if len(template) > MAX_TEMPLATE:
        return f"must be at most {MAX_TEMPLATE} characters"
    try:
        placeholders = [(name, spec, conversion) for _text, name, spec, conversion in Formatter().parse(template)
                        if name is not None]
    except ValueError as error:
        return f"a lone {{ or }} ({error}): write {{{{ and }}}} for braces"
    for name, spec, conversion in placeholders:
        if name not in fields:
            return f"{{{name}}} is no placeholder: it may name {', '.join('{' + f + '}' for f in fields)}"
        if spec or conversion:  # a width or a conversion is no part of a message (and a width can be huge)
            return f"{{{name}}} takes nothing after its name: write {{{name}}}"
    return None
