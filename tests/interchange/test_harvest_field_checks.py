"""Every harvest reader checks what it reads: a lone surrogate, a field of the wrong type, a
conversation twice in one export are refused or said, with the file, line and JSON path;
nothing is written in silence or ends in a traceback."""

from __future__ import annotations

import base64
import json

from .harvest_helpers import DATA, read_text


def _claude_export(text: str = "Primer (2004).", **message) -> list:
    return [{"uuid": "c1", "name": "t", "chat_messages": [
        {"uuid": "m1", "sender": "human", "text": "A time travel film?", "content": [{"type": "text", "text": "A time travel film?"}]},
        {"uuid": "m2", "sender": "assistant", "content": [{"type": "text", "text": text, "citations": []}], **message},
    ]}]


def _takeout(title: str = "Prompted A time travel film?") -> list:
    return [{"header": "Gemini Apps", "title": title, "titleUrl": "https://gemini.google.com/app/c/a1", "time": "2025-06-01T10:00:00Z",
             "products": ["Gemini Apps"], "safeHtmlItem": [{"html": "<p>Primer (2004).</p>"}]}]


def _capture(request: dict, response: dict, *, base64_response: bool = False) -> dict:
    text = json.dumps(response)
    content = {"mimeType": "application/json", "text": text}
    if base64_response:
        content = {"mimeType": "application/json", "text": base64.b64encode(text.encode()).decode(), "encoding": "base64"}
    return {"log": {"version": "1.2", "entries": [{
        "request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions",
                    "postData": {"mimeType": "application/json", "text": json.dumps(request)}},
        "response": {"content": content}}]}}


def _chat_request(question: str = "A time travel film?") -> dict:
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": question}]}


def _chat_response(answer: str = "Primer (2004).") -> dict:
    return {"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}}]}


# -- a lone surrogate ---------------------------------------------------------------------------


def test_a_lone_surrogate_in_a_claude_ai_export_is_refused_at_its_json_path():
    result = read_text(json.dumps(_claude_export("Primer \ud800 (2004).")), "conversations.json")
    assert [str(e) for e in result.errors] == [
        "conversations.json:1: [0].chat_messages[1].content[0].text: a lone surrogate (\\ud800-\\udfff) is no text"]
    assert result.conversations == []


def test_a_lone_surrogate_in_a_gemini_takeout_file_is_refused_at_its_json_path():
    result = read_text(json.dumps(_takeout("Prompted A time \udfff film?"), indent=1), "MyActivity.json")
    assert [str(e) for e in result.errors] == ["MyActivity.json:2: [0].title: a lone surrogate (\\ud800-\\udfff) is no text"]


def test_a_lone_surrogate_in_a_har_body_is_refused_at_the_bodys_field():
    capture = _capture(_chat_request("A time \ud800 travel film?"), _chat_response())
    result = read_text(json.dumps(capture), "capture.har")
    assert [str(e) for e in result.errors] == [
        "capture.har:1: log.entries[0].request.messages[0].content: a lone surrogate (\\ud800-\\udfff) is no text"]
    capture = _capture(_chat_request(), _chat_response("Primer \udc00 (2004)."), base64_response=True)
    result = read_text(json.dumps(capture), "capture.har")
    assert [str(e) for e in result.errors] == [
        "capture.har:1: log.entries[0].response.choices[0].message.content: a lone surrogate (\\ud800-\\udfff) is no text"]


def test_a_lone_surrogate_in_a_streamed_answer_of_a_capture_is_refused_at_its_message():
    stream = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in (
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Primer "}}]},
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "\ud800 (2004)."}}]},
    )) + "data: [DONE]\n\n"
    capture = _capture(_chat_request(), {})
    capture["log"]["entries"][0]["response"]["content"] = {"mimeType": "text/event-stream", "text": stream}
    result = read_text(json.dumps(capture), "capture.har")
    assert [str(e) for e in result.errors] == [
        "capture.har:1: log.entries[0].response.choices[0].message: a lone surrogate (\\ud800-\\udfff) is no text"]


def test_every_example_file_still_reads_without_a_surrogate_error():
    for path in sorted(DATA.iterdir()):
        result = read_text(path.read_text(encoding="utf-8"), path.name)
        assert not any("surrogate" in str(e) for e in result.errors), path.name


# -- one conversation twice ---------------------------------------------------------------------


def test_a_claude_ai_conversation_exported_twice_alike_is_read_once_with_a_warning():
    export = _claude_export() * 2  # one uuid twice, as two exports joined give it
    result = read_text(json.dumps(export), "conversations.json")  # before: two conversations (three trials with a third)
    assert result.errors == [] and len(result.conversations) == 1
    assert [str(w) for w in result.warnings] == [
        "conversations.json:1: [1].uuid: conversation 'c1' again (as [0] at line 1), the same turns: imported once"]


def test_a_claude_ai_id_given_to_two_different_conversations_refuses_the_file():
    export = _claude_export() + _claude_export("La Jetée (1962).")
    result = read_text(json.dumps(export), "conversations.json")
    assert [str(e) for e in result.errors] == [
        "conversations.json:1: [1].uuid: conversation 'c1' again (as [0] at line 1) with other turns: one id, two "
        "conversations (keep the right one in the file)"]


def test_a_chatgpt_conversation_exported_twice_is_read_once_with_a_warning():
    export = json.loads((DATA / "chatgpt-conversations.json").read_text())
    result = read_text(json.dumps(export + export[:1], indent=1), "conversations.json")
    assert len(result.conversations) == len(read_text(json.dumps(export)).conversations)
    assert [w.message for w in result.warnings if "again" in w.message] == [
        f"conversation {export[0]['conversation_id']!r} again (as [0] at line 2), the same turns: imported once"]


def test_a_wildchat_row_twice_and_a_sharegpt_chat_twice_are_read_once():
    row = {"conversation_hash": "h1", "model": "gpt-4", "conversation": [
        {"role": "user", "content": "A time travel film?"}, {"role": "assistant", "content": "Primer (2004)."}]}
    result = read_text("\n".join(json.dumps(r) for r in (row, row)), "wildchat.jsonl")
    assert len(result.conversations) == 1 and [w.field for w in result.warnings] == ["conversation_hash"]
    chat = {"id": "s1", "conversations": [{"from": "human", "value": "A time travel film?"}, {"from": "gpt", "value": "Primer."}]}
    result = read_text(json.dumps([chat, chat]), "sharegpt.json")
    assert len(result.conversations) == 1 and [w.field for w in result.warnings] == ["[1].id"]


def test_a_takeout_activity_exported_twice_is_read_once_not_doubled_into_the_chat():
    result = read_text(json.dumps(_takeout() * 2), "MyActivity.json")
    assert len(result.conversations) == 1 and [t.name for t in result.conversations[0].turns] == ["U1", "S1"]
    assert [w.message for w in result.warnings] == [
        "the same activity again (as [0] at line 1: same chat, time, prompt and answer): read once"]


# -- the type of each field ---------------------------------------------------------------------


def test_a_claude_ai_message_whose_content_or_text_is_a_number_refuses_the_file_at_its_path():
    export = _claude_export()
    export[0]["chat_messages"][1] = {"uuid": "m2", "sender": "assistant", "text": "Primer.", "content": 42}
    result = read_text(json.dumps(export), "conversations.json")  # before: imported from its text, without a word
    assert [str(e) for e in result.errors] == ["conversations.json:1: [0].chat_messages[1].content: content blocks: expected a list"]
    export[0]["chat_messages"][1] = {"uuid": "m2", "sender": "assistant", "text": 42}
    result = read_text(json.dumps(export), "conversations.json")  # before: an empty message, dropped in silence
    assert [str(e) for e in result.errors] == [
        "conversations.json:1: [0].chat_messages[1].text: the message's text: expected a string, not a number"]


def test_citations_given_as_an_object_are_a_warning_at_their_path_in_claude_ai_and_anthropic():
    export = _claude_export()
    export[0]["chat_messages"][1]["content"][0]["citations"] = {"url": "https://www.imdb.com/title/tt0390384/"}
    result = read_text(json.dumps(export), "conversations.json")  # before: the citation dropped without a word
    assert result.errors == [] and [str(w) for w in result.warnings] == [
        "conversations.json:1: [0].chat_messages[1].content[0].citations: citations: expected a list, not an object: not read"]
    messages = {"messages": [{"role": "user", "content": "A time travel film?"}, {"role": "assistant", "content": [
        {"type": "text", "text": "Primer (2004).", "citations": {"type": "web_search_result_location", "url": "https://x.org/"}}]}]}
    result = read_text(json.dumps(messages), "messages.json")
    assert result.format_name == "Anthropic Messages" and result.errors == []
    assert [str(w) for w in result.warnings] == [
        "messages.json:1: messages[1].content[0].citations: citations: expected a list, not an object: not read"]


def test_a_citation_title_of_another_type_is_a_warning_not_its_repr_as_the_title():
    export = _claude_export()
    export[0]["chat_messages"][1]["content"][0]["citations"] = [
        {"url": "https://www.imdb.com/title/tt0390384/", "title": {"text": "Primer"}}, "https://x.org/"]
    result = read_text(json.dumps(export), "conversations.json")
    [conv] = result.conversations
    assert [c.title for c in conv.citations] == [""]  # before: "{'text': 'Primer'}"
    assert [str(w) for w in result.warnings] == [
        "conversations.json:1: [0].chat_messages[1].content[0].citations[0].title: title: expected a string, not an object: not read",
        "conversations.json:1: [0].chat_messages[1].content[0].citations[1]: a citation: expected an object, not a string: skipped"]


def test_openai_annotations_of_another_type_are_said_and_a_text_part_without_a_string_refuses_the_file():
    answer = {"role": "assistant", "content": "Primer (2004).", "annotations": {"type": "url_citation"}}
    result = read_text(json.dumps({"messages": [{"role": "user", "content": "A film?"}, answer]}), "chat.jsonl")
    assert [str(w) for w in result.warnings] == [
        "chat.jsonl:1: messages[1].annotations: annotations: expected a list, not an object: not read"]
    answer = {"role": "assistant", "content": [{"type": "text", "text": 7}]}
    result = read_text(json.dumps({"messages": [{"role": "user", "content": "A film?"}, answer]}), "chat.jsonl")
    assert [str(e) for e in result.errors] == [
        "chat.jsonl:1: messages[1].content[0].text: a text part's text: expected a string, not a number"]


def test_a_gemini_part_or_a_perplexity_source_of_another_type_refuses_the_file_at_its_path():
    call = {"request": {"contents": [{"role": "user", "parts": [{"text": "A film?"}]}]},
            "response": {"candidates": [{"content": {"role": "model", "parts": [{"text": 42}]}}]}}
    result = read_text(json.dumps(call), "gemini.jsonl")  # before: an answer without its text, in silence
    assert [str(e) for e in result.errors] == [
        "gemini.jsonl:1: response.candidates[0].content.parts[0]: a text part's text: expected a string, not a number"]
    call = {"request": {"messages": [{"role": "user", "content": "A film?"}]},
            "response": {"object": "chat.completion", "choices": [{"message": {"role": "assistant", "content": "Primer [1]."}}],
                         "search_results": [{"url": 5, "title": "Primer"}]}}
    result = read_text(json.dumps(call), "sonar.jsonl")  # before: the URL "5"
    assert [str(e) for e in result.errors] == ["sonar.jsonl:1: response.search_results[0].url: url: expected a string, not a number"]


def test_chatgpt_content_references_of_another_type_are_a_warning():
    export = json.loads((DATA / "chatgpt-conversations.json").read_text())
    node = next(n for n in export[0]["mapping"].values()
                if n.get("message") and n["message"]["author"]["role"] == "assistant" and n["message"]["metadata"].get("content_references"))
    node["message"]["metadata"]["content_references"] = {"matched_text": "x"}
    result = read_text(json.dumps(export), "conversations.json")
    assert any(w.field and w.field.endswith("metadata.content_references")
               and w.message == "content_references: expected a list, not an object: not read" for w in result.warnings)
