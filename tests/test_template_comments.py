"""Django's `{# #}` comments end on their own line: one that spans lines is not a comment but
text, rendered on the page where it stands (the workspace showed three such at its top)."""

from __future__ import annotations

from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"


def unclosed_comments(text: str) -> list[int]:
    """The line numbers of `{#` with no `#}` after it on the same line."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        rest = line
        while "{#" in rest:
            rest = rest[rest.index("{#") + 2 :]
            if "#}" not in rest:
                found.append(number)
                break
            rest = rest[rest.index("#}") + 2 :]
    return found


def test_a_comment_that_spans_lines_is_found():
    assert unclosed_comments("{# one #}\n{# two\n   lines #}\n<p>{# three #} {# four\n") == [2, 4]


def test_no_template_has_a_comment_that_spans_lines():
    problems = [
        f"{path.relative_to(TEMPLATES)}:{number}"
        for path in sorted(TEMPLATES.rglob("*.html"))
        for number in unclosed_comments(path.read_text())
    ]
    assert problems == [], "multi-line {# #} comments render as text; use {% comment %}: " + ", ".join(problems)
