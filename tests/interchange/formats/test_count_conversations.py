"""What background imports ask of the formats: a cheap count of conversations before parsing, and progress while parsing."""

from annotator.interchange.formats import count_conversations, parse_jsonl, parse_paper, write_jsonl, write_paper
from tests.commands.helpers import EXAMPLE


def _conversations(n):
    base = parse_paper(EXAMPLE.read_text(), "x").conversations[0]
    out = []
    for i in range(n):
        conversation = parse_paper(EXAMPLE.read_text(), "x").conversations[0] if i else base
        conversation.topic, conversation.run = f"M{i:03d}", "r"
        out.append(conversation)
    return out


def test_it_counts_the_conversations_of_a_jsonl_file_as_parsing_does():
    data = ("\n" + write_jsonl(_conversations(4)) + "\n\n").encode()
    assert count_conversations(data, "a.jsonl") == 4 == len(parse_jsonl(data.decode(), "a.jsonl").conversations)


def test_it_counts_the_topic_headers_of_a_paper_file_as_parsing_does():
    text = "\ufeff" + write_paper(_conversations(3))
    data = text.encode()
    assert count_conversations(data, "a.txt") == 3 == len(parse_paper(text, "a.txt").conversations)
    assert count_conversations(b"###### not a header\n", "a.txt") == 0


def test_parsing_reports_each_conversation_as_it_is_read():
    from annotator.interchange.formats import parse_file

    for name, data in [("a.jsonl", write_jsonl(_conversations(3)).encode()), ("a.txt", write_paper(_conversations(3)).encode())]:
        seen = []
        assert len(parse_file(data, name, seen.append).conversations) == 3
        assert seen == [1, 2, 3], name
