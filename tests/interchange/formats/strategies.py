"""Hypothesis strategies: conversations as the formats must carry them."""

from __future__ import annotations

from hypothesis import strategies as st

from annotator.interchange.formats.model import ParsedConversation, ParsedMembership, ParsedNugget, ParsedTurn, canonical_text
from annotator.rules.identity import entity_key_and_name, name_key, normalise_url
from scoring.words import tokenise

# Lines an LLM (or an organiser) may write that look like the paper format's markup.
TRICKY_LINES = [
    "#L2",
    "#L0 # wrong URL \"You're Next\"",
    "#L1 wrong",
    "  #L2",
    "wc= 35",
    "WC=3",
    "wc= abc",
    "### S1 o",
    "### S3 Pricing",
    "### U2",
    "##### M002",
    "##### Q1 run=x",
    "##### Conclusion",
    "### Step 1",
    "#RATINGS: (0,1)",
    "#RATNGS: (1,0)",
    "#Note: (see below)",
    "#SPAN: 1-2",
    "#ENTITY: {}",
    "#COMMENT: x",
    "\\#L2",
    "\\\\wc= 3",
    "\\plain",
    "\\",
    "# Heading",
    "#1 pick",
    "#hashtag",
    "",
    "   ",
    "\t",
    "\u00a0\u2003",
    "https://www.imdb.com/title/tt0088763/",
    "Back to the Future (1985): https://www.imdb.com/title/tt0088763/",
    "Looper (2012)",
    "Tenet (2020)https://www.imdb.com/title/tt10375988/",
    "1. **Groundhog Day** (1993) - [IMDb](https://www.imdb.com/title/tt0107048/)",
]

line_chars = st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",))
free_line = st.text(alphabet=line_chars, max_size=30)
text_line = st.one_of(st.sampled_from(TRICKY_LINES), free_line, st.text(alphabet="ab #:/.()\t", max_size=12))
one_line_text = st.text(alphabet=line_chars, max_size=20).map(str.strip)

URLS = [
    "https://www.imdb.com/title/tt0088763/",
    "http://IMDb.com/title/tt0816692",
    "https://en.wikipedia.org/wiki/Looper_(film)",
    "https://example.org/a?b=1",
]


@st.composite
def paper_text(draw) -> str:
    return canonical_text("\n".join(draw(st.lists(text_line, max_size=6))))


@st.composite
def any_text(draw) -> str:
    return draw(st.text(st.characters(blacklist_categories=("Cs",)), max_size=60))


@st.composite
def membership(draw) -> ParsedMembership:
    counts = draw(st.lists(st.integers(0, 5), min_size=1, max_size=8).filter(lambda xs: sum(xs) > 0))
    total = sum(counts)
    return ParsedMembership(tuple(c / total for c in counts), draw(one_line_text))


@st.composite
def conversation(draw, text=paper_text, topic=None, run=None) -> ParsedConversation:
    topic = topic or draw(st.from_regex(r"[A-Z][0-9]{3}", fullmatch=True))
    if run is None:
        run = draw(st.one_of(st.none(), st.from_regex(r"[a-z0-9][a-z0-9.\-]{0,10}", fullmatch=True)))
    n_turns = draw(st.integers(1, 5))
    turns = []
    for i in range(n_turns):
        role = "U" if i % 2 == 0 else "S"
        label = draw(st.sampled_from([None, "o", "x", "-"])) if role == "S" else None
        turns.append(ParsedTurn(role=role, number=i // 2 + 1, label=label, text=draw(text())))
    nuggets = []
    for ti, turn in enumerate(turns):
        words = tokenise(turn.text)
        if turn.role != "S" or not words:
            continue
        for _ in range(draw(st.integers(0, 3))):
            end = draw(st.integers(0, len(words) - 1))
            start = draw(st.integers(0, end))
            nugget_text = " ".join(words[start : end + 1])
            key, name = draw(
                st.one_of(
                    st.just(entity_key_and_name(nugget_text)),
                    st.tuples(st.sampled_from(URLS).map(normalise_url), one_line_text),
                    one_line_text.filter(bool).map(lambda s: (name_key(s), s)),
                    st.just((None, "")),
                )
            )
            names = draw(st.lists(st.from_regex(r"[A-Z][A-Z0-9_]{0,7}", fullmatch=True), max_size=3, unique=True))
            nuggets.append(
                ParsedNugget(
                    turn=ti,
                    start_word=start,
                    end_word=end,
                    text=nugget_text,
                    grade=draw(st.sampled_from([None, "L0", "L1", "L2", "L3"])),
                    comment=draw(one_line_text),
                    memberships={n: draw(membership()) for n in names if n not in ("SPAN", "ENTITY", "COMMENT")},
                    entity_key=key,
                    entity_name=name,
                )
            )
    return ParsedConversation(topic=topic, run=run, turns=turns, nuggets=nuggets)


@st.composite
def conversations(draw, text=paper_text):
    convs = draw(st.lists(conversation(text=text), min_size=1, max_size=3))
    seen, unique = set(), []
    for c in convs:
        if (c.topic, c.run) not in seen:
            seen.add((c.topic, c.run))
            unique.append(c)
    return unique
