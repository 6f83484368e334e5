"""The paper's annotated text format (Figure 5): reading, writing, every malformed case."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotator.interchange.formats import parse_paper, parse_paper_bytes, semantics, write_paper
from annotator.interchange.formats.paper import classify, escape_line

from .strategies import conversations

DATA = Path(__file__).parent / "data"
EXAMPLE = DATA / "M002-bing-trial1.txt"
BARD = DATA / "M002-bard-trial1-figure5.txt"
PAPER_WCS = [35, 39, 43, 46, 51, 91, 96, 99, 104, 107]


def parse(text: str, path: str = "f.txt"):
    return parse_paper(text, path)


def messages(items) -> list[str]:
    return [str(e) for e in items]


def one_conversation(body: str, header: str = "##### M002\n### U1\nlist time travel movies\n### S1 o\n"):
    return header + body


# --- the example file ---------------------------------------------------------------------------


def test_the_example_file_gives_the_ten_nuggets_at_the_papers_word_counts():
    result = parse_paper_bytes(EXAMPLE.read_bytes(), "M002-bing-trial1.txt")
    assert result.errors == [] and result.warnings == []
    (conv,) = result.conversations
    assert conv.topic == "M002" and conv.run is None
    assert [t.name for t in conv.turns] == ["U1", "S1", "U2", "S2"]
    assert [t.label for t in conv.turns] == [None, "o", None, "o"]
    assert [conv.wc(n) for n in conv.nuggets] == PAPER_WCS
    assert [n.declared_wc for n in conv.nuggets] == PAPER_WCS
    assert [n.grade for n in conv.nuggets] == ["L2", "L2", "L2", "L1"] + ["L2"] * 6


def test_the_example_nugget_is_its_whole_line_with_the_url_as_entity_key():
    conv = parse(EXAMPLE.read_text()).conversations[0]
    first = conv.nuggets[0]
    assert first.text == "Back to the Future (1985): https://www.imdb.com/title/tt0088763/"
    assert (first.turn, first.start_word, first.end_word) == (1, 12, 17)
    assert first.entity_key == "https://imdb.com/title/tt0088763"
    assert first.entity_name == "Back to the Future (1985)"
    assert first.line == 7 and first.grade_line == 8 and first.wc_line == 9


def test_membership_fractions_and_evidence_are_read_exactly():
    conv = parse(EXAMPLE.read_text()).conversations[0]
    interstellar = conv.nuggets[3]
    assert interstellar.memberships["ORIGIN"].vector == (0, 2 / 3, 0, 0, 0, 1 / 3, 0, 0)
    assert interstellar.memberships["ORIGIN"].evidence == "United States,United Kingdom,Canada"
    assert interstellar.memberships["RATINGS"].evidence == "2M"
    predestination = conv.nuggets[-1]  # "(0,1/2,0,0,0,0,0,1/2)#Australia,United States": no space
    assert predestination.memberships["ORIGIN"].vector == (0, 0.5, 0, 0, 0, 0, 0, 0.5)
    assert predestination.memberships["ORIGIN"].evidence == "Australia,United States"


def test_annotation_lines_are_not_turn_text():
    conv = parse(EXAMPLE.read_text()).conversations[0]
    assert "#L2" not in conv.turns[1].text and "wc=" not in conv.turns[1].text
    assert conv.turns[1].text.splitlines()[1] == "Back to the Future (1985): https://www.imdb.com/title/tt0088763/"


def test_the_example_round_trips_through_write_paper():
    first = parse(EXAMPLE.read_text()).conversations
    written = write_paper(first)
    again = parse(written, "written.txt")
    assert again.errors == [] and again.warnings == []
    assert [semantics(c) for c in again.conversations] == [semantics(c) for c in first]
    assert "#ORIGIN: (0,1/2,0,0,0,1/2,0,0) #United Kingdom,United States" in written
    assert "wc= 107" in written and "#SPAN" not in written and "#ENTITY" not in written


def test_the_papers_bard_figure_reads_with_comments_and_url_lines_and_warns_about_hand_counts():
    result = parse(BARD.read_text(), "bard.txt")
    assert result.errors == []
    conv = result.conversations[0]
    assert [n.grade for n in conv.nuggets] == ["L2", "L0", "L0", "L1"] + ["L0"] * 6
    looper = conv.nuggets[2]  # "Looper (2012)" then the URL on its own line, then "#L0 # wrong URL ..."
    assert looper.text == "https://www.imdb.com/title/tt1853739/"
    assert looper.entity_name == "Looper (2012)" and looper.comment == 'wrong URL "You\'re Next"'
    assert conv.nuggets[-1].comment == 'wrong URL "The Thief and the Cobbler"'  # "#L0 wrong URL ..." (no second #)
    assert conv.nuggets[4].entity_name == "Tenet (2020)"  # "Tenet (2020)https://..."
    # the figure's S1 is a one-line placeholder for 452 words: the hand-counted wc= disagree
    assert messages(result.warnings) == ["bard.txt:15: wc= 506 declared, 66 computed", "bard.txt:33: wc= 560 declared, 123 computed"]


# --- grammar: what is markup, what is text -----------------------------------------------------


@pytest.mark.parametrize(
    "line, kind",
    [
        ("##### M002", "topic"),
        ("##### M002 run=bing-trial1", "topic"),
        ("##### Conclusion", "text"),  # a markdown heading: a topic id has a digit
        ("##### Step 1", "text"),
        ("###### M002", "text"),
        ("### U1", "turn"),
        ("### S2 o", "turn"),
        ("### S3 Pricing", "turn"),  # turn-header shaped: an error, not silently text
        ("### Step 1", "text"),
        ("#L2", "grade"),
        ("#L0 # wrong URL", "grade"),
        ("#L0 wrong URL", "grade"),
        ("#Lorem ipsum", "text"),
        ("wc= 35", "wc"),
        ("wc=35", "wc"),
        ("#RATINGS: (0,0,0,1) #1.3M", "membership"),
        ("#RATNGS: (1,0)", "membership"),
        ("#SPAN: 3-5", "span"),
        ("#ENTITY: https://x.org", "entity"),
        ("#COMMENT: check", "comment"),
        ("# Heading", "text"),
        ("#1 pick", "text"),
        ("#TimeTravel is great", "text"),
        ("#Note: see below", "text"),
        ("\\#L2", "text"),
        ("\\### S1 o", "text"),
        ("\\just a backslash", "text"),
    ],
)
def test_line_classification(line, kind):
    assert classify(line).kind == kind


def test_markdown_hash_lines_are_ordinary_text_and_count_as_words():
    text = one_conversation("# Heading\n#1 pick: Looper https://www.imdb.com/title/tt1276104/\n#L2\nwc= 10\n")
    result = parse(text)
    assert result.errors == [] and result.warnings == []
    conv = result.conversations[0]
    assert conv.turns[1].text == "# Heading\n#1 pick: Looper https://www.imdb.com/title/tt1276104/"
    assert conv.wc(conv.nuggets[0]) == 4 + 2 + 4


def test_an_escaped_line_is_text_without_its_backslash():
    text = one_conversation("\\#L2 is a grade line\n\\\\### S1 o\nx\n")
    conv = parse(text).conversations[0]
    assert conv.turns[1].text == "#L2 is a grade line\n\\### S1 o\nx"


def test_annotation_lines_come_in_any_order_with_loose_spacing():
    text = one_conversation("Looper https://www.imdb.com/title/tt1276104/\n  #ORIGIN :( 0 , 1 / 2 ,0,1/2 )   #US,China\nWC = 6\n #L1   #  maybe\n")
    result = parse(text)
    assert result.errors == [] and result.warnings == []
    n = result.conversations[0].nuggets[0]
    assert (n.grade, n.comment, n.declared_wc) == ("L1", "maybe", 6)
    assert n.memberships["ORIGIN"].vector == (0, 0.5, 0, 0.5) and n.memberships["ORIGIN"].evidence == "US,China"


def test_blank_lines_between_a_line_and_its_annotations_are_allowed():
    conv = parse(one_conversation("Looper (2012)\n\n#L2\n\n")).conversations[0]
    assert conv.nuggets[0].text == "Looper (2012)" and conv.turns[1].text == "Looper (2012)"


def test_a_misspelt_attribute_set_is_still_a_membership_for_the_importer_to_refuse():
    n = parse(one_conversation("Looper (2012)\n#RATNGS: (1,0)\n")).conversations[0].nuggets[0]
    assert list(n.memberships) == ["RATNGS"]


def test_a_file_may_hold_several_conversations_and_runs():
    text = (
        "##### M002 run=bing\n### U1\nq\n### S1 o\nLooper (2012)\n#L2\n\n"
        "##### M002 run=bard\n### U1\nq\n### S1 x\nnothing\n### U2\nagain\n"
    )
    result = parse(text)
    assert result.errors == []
    assert [(c.topic, c.run, len(c.turns), len(c.nuggets)) for c in result.conversations] == [
        ("M002", "bing", 2, 1),
        ("M002", "bard", 3, 0),
    ]


def test_a_nugget_without_grade_is_kept_ungraded():
    n = parse(one_conversation("Looper (2012)\nwc= 5\n")).conversations[0].nuggets[0]
    assert n.grade is None and n.declared_wc == 5


def test_a_user_turn_label_is_refused_and_a_system_label_must_be_o_x_or_dash():
    result = parse("##### M002\n### U1 o\nq\n### S1 ok\nanswer\n")
    assert messages(result.errors) == [
        "f.txt:2: a user turn has no usefulness label (found 'o' after U1)",
        "f.txt:4: unknown turn label 'ok' (o, x or -); escape a text line that looks like a turn header with a backslash",
    ]


# --- declared positions ------------------------------------------------------------------------


def test_a_declared_wc_that_disagrees_is_a_warning_with_its_line():
    text = EXAMPLE.read_text().replace("wc= 35", "wc= 36")
    result = parse(text, "M002.txt")
    assert result.errors == []
    assert messages(result.warnings) == ["M002.txt:9: wc= 36 declared, 35 computed"]


# --- spans: several nuggets on one line, nuggets over lines ------------------------------------


def test_span_blocks_put_several_nuggets_on_one_line():
    text = one_conversation("Looper and Primer are good\n#SPAN: 5\n#L2\n#SPAN: 7-7\n#L1\nwc= 7\n")
    result = parse(text)
    assert result.errors == [] and result.warnings == []
    looper, primer = result.conversations[0].nuggets
    assert (looper.start_word, looper.end_word, looper.text, looper.grade) == (0, 0, "Looper", "L2")
    assert (primer.start_word, primer.end_word, primer.text, primer.grade) == (2, 2, "Primer", "L1")
    assert primer.entity_key == "name:primer"


def test_a_span_may_start_on_an_earlier_line_of_the_turn_and_ends_on_the_line_above():
    text = one_conversation("Looper (2012)\nhttps://www.imdb.com/title/tt1276104/\n#SPAN: 5-7\n#L2\n")
    n = parse(text).conversations[0].nuggets[0]
    assert (n.start_word, n.end_word) == (0, 2)
    assert n.entity_key == "https://imdb.com/title/tt1276104" and n.entity_name == "Looper (2012)"


def test_a_span_outside_the_line_above_is_refused():
    result = parse(one_conversation("Looper (2012)\nPrimer (2004)\n#SPAN: 4-5\n#L2\n"))
    assert messages(result.errors) == [
        "f.txt:7: #SPAN: 4-5 must end on the line above (words 7-8) and start in the same turn (from word 5)"
    ]


def test_an_entity_line_sets_the_entity():
    text = one_conversation('BTTF\n#ENTITY: https://www.imdb.com/title/tt0088763/\n#L2\nBTTF\n#ENTITY: {"key": "name:bttf", "name": "Back to the Future"}\n')
    a, b = parse(text).conversations[0].nuggets
    assert (a.entity_key, a.entity_name) == ("https://imdb.com/title/tt0088763", "")
    assert (b.entity_key, b.entity_name) == ("name:bttf", "Back to the Future")


# --- malformed files: every problem, with its line ---------------------------------------------


@pytest.mark.parametrize(
    "annotation, message",
    [
        ("#RATINGS: (0,a,1)", "malformed vector for RATINGS: value 2: 'a' is not a number (write 0.5 or 1/2)"),
        ("#RATINGS: (0,0,1", "malformed vector for RATINGS: missing ')'"),
        ("#RATINGS: ()", "malformed vector for RATINGS: value 1: empty value"),
        ("#RATINGS: (0,,1)", "malformed vector for RATINGS: value 2: empty value"),
        ("#RATINGS: (1/0,1)", "malformed vector for RATINGS: value 1: 1/0: division by zero"),
        ("#RATINGS: (0,0.5,0.4)", "RATINGS: vector sums to 0.9, not 1"),
        ("#RATINGS: (1/3,1/3,1/4)", "RATINGS: vector sums to 0.916667, not 1"),
        ("#RATINGS: (-1,2)", "RATINGS: value 1 is negative (-1)"),
        ("#RATINGS: (nan,1)", "malformed vector for RATINGS: value 1: nan is not a finite number"),
        ("#RATINGS: (1e-9999999,1)",
         "malformed vector for RATINGS: value 1: 1e-9999999: the exponent is out of range (at most 300)"),
        ("#RATINGS: (1e999,0)", "malformed vector for RATINGS: value 1: 1e999: the exponent is out of range (at most 300)"),
        ("wc= 3x", "wc= needs a whole number of words, found '3x'"),
        ("#SPAN: 5-3", "#SPAN: 5-3 is not a word range (first <= last, from 1)"),
        ("#ENTITY: {not json", '#ENTITY: needs {"key": "...", "name": "..."} or a URL or a name'),
    ],
)
def test_a_bad_annotation_is_an_error_at_its_line(annotation, message):
    result = parse(one_conversation(f"Looper (2012)\n{annotation}\n#L2\n"))
    assert messages(result.errors) == [f"f.txt:6: {message}"]
    assert result.conversations[0].nuggets == []


def test_thirds_written_as_decimals_within_a_millionth_sum_to_one():
    result = parse(one_conversation("Looper (2012)\n#GENDER: (0.333333,0.333333,0.333334)\n#X: (0.333333,0.333333,0.333333)\n"))
    assert result.errors == []


def test_annotations_in_a_user_turn_are_one_error_per_nugget():
    result = parse("##### M002\n### U1\nLooper (2012)\n#L2\nwc= 2\n#RATINGS: (0,0,1,0)\n### S1 o\nok\n")
    assert messages(result.errors) == ["f.txt:4: nugget in a user turn (U1): only system turns hold nuggets"]


def test_an_annotation_before_any_text_line_is_an_error():
    result = parse("##### M002\n### U1\nq\n### S1 o\n#L2\nLooper\n")
    assert messages(result.errors) == ["f.txt:5: annotation before any text line (annotations follow the line they annotate)"]


def test_an_annotation_before_any_header_is_an_error():
    assert messages(parse("#L2\n##### M002\n### U1\nq\n").errors) == [
        "f.txt:1: annotation before any text line (annotations follow the line they annotate)"
    ]


def test_turn_headers_out_of_order_are_errors():
    result = parse("##### M002\n### U1\nq\n### S2 o\na\n### U2\nq\n### U3\nq\n")
    assert messages(result.errors) == [
        "f.txt:4: turn header out of order: expected S1, found S2",
        "f.txt:6: turn header out of order: expected U3, found U2",
        "f.txt:8: turn header out of order: expected S2, found U3",
    ]


def test_a_conversation_must_start_with_u1():
    assert messages(parse("##### M002\n### S1 o\na\n").errors) == ["f.txt:2: turn header out of order: expected U1, found S1"]


def test_duplicate_annotations_for_one_nugget_are_errors():
    result = parse(one_conversation("Looper (2012)\n#L2\n#RATINGS: (0,0,1,0)\nwc= 6\n#L1\n#RATINGS: (0,0,0,1)\nwc= 6\n"))
    assert messages(result.errors) == [
        "f.txt:9: duplicate grade for one nugget (first at line 6)",
        "f.txt:10: duplicate #RATINGS: membership for one nugget (first at line 7)",
        "f.txt:11: duplicate wc= for one nugget (first at line 8)",
    ]


def test_every_problem_of_a_file_is_reported_not_just_the_first():
    text = EXAMPLE.read_text()
    text = text.replace("#RATINGS: (0,0,1,0) #898K", "#RATINGS: (0,0,1,1) #898K")
    text = text.replace("#ORIGIN: (0,1,0,0,0,0,0,0) #United States\nI hope", "#ORIGIN: (0,x,0) #US\nI hope")
    text = text.replace("### S2 o", "### S2 o\n#L2")
    result = parse(text, "M002.txt")
    assert messages(result.errors) == [
        "M002.txt:15: RATINGS: vector sums to 2, not 1",
        "M002.txt:31: malformed vector for ORIGIN: value 2: 'x' is not a number (write 0.5 or 1/2)",
        "M002.txt:36: annotation before any text line (annotations follow the line they annotate)",
    ]


def test_text_outside_a_conversation_is_an_error():
    assert messages(parse("hello\n##### M002\n### U1\nq\n").errors) == ["f.txt:1: text before the first ##### topic header"]
    assert messages(parse("##### M002\nhello\n### U1\nq\n").errors) == ["f.txt:2: text before any turn header"]


def test_a_conversation_without_turns_is_an_error():
    assert messages(parse("##### M002\n\n##### M003\n### U1\nq\n").errors) == ["f.txt:1: conversation M002 has no turns"]


def test_the_same_conversation_twice_in_a_file_is_an_error():
    result = parse("##### M002\n### U1\nq\n##### M002\n### U1\nq\n")
    assert messages(result.errors) == ["f.txt:4: conversation M002 appears twice in this file (first at line 1)"]


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_an_empty_file_is_an_error(text):
    assert messages(parse(text).errors) == ["f.txt: empty file"]


def test_non_utf8_text_is_an_error_at_the_line_of_the_bad_byte():
    data = EXAMPLE.read_bytes().replace(b"Groundhog Day", b"Groundhog D\xe4y").replace(b"Looper", b"L\xf6\xf6per")
    result = parse_paper_bytes(data, "latin1.txt")
    assert result.conversations == []
    assert messages(result.errors) == [
        "latin1.txt:17: not UTF-8 text: invalid byte e4 at byte offset 512",
        "latin1.txt:47: not UTF-8 text: invalid byte f6 at byte offset 1432",
    ]  # one message a line: its first bad byte (issue 28)


def test_a_byte_order_mark_and_crlf_line_ends_are_accepted():
    data = b"\xef\xbb\xbf" + EXAMPLE.read_bytes().replace(b"\n", b"\r\n")
    result = parse_paper_bytes(data, "crlf.txt")
    assert result.errors == [] and result.warnings == []
    assert [semantics(c) for c in result.conversations] == [semantics(c) for c in parse(EXAMPLE.read_text()).conversations]


# --- writing ------------------------------------------------------------------------------------


def test_write_paper_escapes_text_lines_that_look_like_markup():
    conv = parse(one_conversation("\\#L2\n\\wc= 3\nplain\n")).conversations[0]
    written = write_paper([conv])
    assert "\\#L2\n\\wc= 3\nplain\n" in written


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(["#", "w", "W", "c", "C", "=", "\\", " ", "\t", "\u00a0", "\u2003", "L", "1",
                                        "S", "U", "P", "A", "N", ":", "(", "x", "E", "T", "I", "Y", "O", "M", "R"]),
               max_size=14))
def test_a_line_escaped_for_writing_reads_back_as_that_text(line):
    """escape_line's shortcut (no regex for a line whose first non-space character starts no
    markup) escapes exactly the lines the grammar would read as markup, and they read back."""
    from annotator.interchange.formats.paper import _classify_raw, _needs_escape

    def needs_escape(text: str) -> bool:  # the grammar's definition, every regex tried
        return _classify_raw(text).kind != "text" or (text.startswith("\\") and needs_escape(text[1:]))

    assert _needs_escape(line) == needs_escape(line)
    escaped = escape_line(line)
    assert classify(escaped).kind == "text" and classify(escaped).text == line


def test_write_paper_writes_span_lines_only_for_partial_nuggets():
    text = one_conversation("Looper and Primer\n#SPAN: 5\n#L2\nPrimer (2004)\n#L1\n")
    written = write_paper(parse(text).conversations)
    assert written.endswith("Looper and Primer\n#SPAN: 5-5\n#L2\nwc= 5\nPrimer (2004)\n#L1\nwc= 9\n")


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(conversations())
def test_parse_paper_of_write_paper_gives_back_the_same_conversations(convs):
    written = write_paper(convs)
    result = parse(written, "roundtrip.txt")
    assert result.errors == [], written
    assert result.warnings == [], written
    assert [semantics(c) for c in result.conversations] == [semantics(c) for c in convs], written
    assert write_paper(result.conversations) == written


def test_a_topic_id_without_a_digit_needs_a_run_in_its_header():
    assert classify("##### MOVIES run=bing").kind == "topic"
    assert classify("##### MOVIES").kind == "text"
    conv = parse("##### MOVIES run=bing\n### U1\nq\n").conversations[0]
    assert (conv.topic, conv.run) == ("MOVIES", "bing")
    assert write_paper([conv]).startswith("##### MOVIES run=bing\n")
    conv.run = None
    with pytest.raises(ValueError):
        write_paper([conv])
