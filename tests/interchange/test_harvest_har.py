"""HAR captures and event streams: the vendor calls inside a capture read as API logs (streamed
answers assembled from their events), every other entry passed over, and nothing of the
headers, cookies or URLs (keys, session tokens) read; one streamed answer saved alone, without
the question it answers, is refused with the reason."""

from __future__ import annotations

import base64
import json

from annotator.interchange.formats import count_conversations, parse_file, without_secrets

from .harvest_helpers import DATA, cited, read, read_text, turns

# tests/interchange/data/harvest/capture.har and anthropic-stream.sse are built from HAR 1.2's
# fields (log.entries[].request.postData.text, .response.content {mimeType, text, encoding};
# softwareishard.com/blog/har-12-spec) and the vendors' streamed bodies: OpenAI
# chat.completion.chunk deltas with annotations (openai-python types/chat/chat_completion_chunk.py),
# Anthropic message_start / content_block_start / content_block_delta (text_delta,
# citations_delta) events (docs.anthropic.com, streaming messages), Gemini
# streamGenerateContent?alt=sse chunks with groundingMetadata. The capture also holds a page, a
# telemetry call, an Authorization header, cookies and an API key in a URL.
SECRETS = ("sk-proj-SECRET0123456789", "COOKIE0123456789", "AIzaSyGKEY0123456789")


def in_capture(stream: str, request: dict, name: str = "capture.har"):
    """A streamed answer as a capture holds it: one entry, its request body and its event stream."""
    har = {"log": {"version": "1.2", "entries": [{
        "request": {"method": "POST", "url": "https://api.example/v1", "postData": {"mimeType": "application/json", "text": json.dumps(request)}},
        "response": {"content": {"mimeType": "text/event-stream", "text": stream}}}]}}
    return read_text(json.dumps(har), name)


def test_the_vendor_calls_of_a_capture_are_its_conversations():
    result = read("capture.har")
    assert result.format_name == "HAR capture" and result.errors == [] and result.warnings == []
    openai, anthropic, gemini = result.conversations
    assert turns(openai) == [
        ("U1", "List sci-fi movies with time travel."),
        ("S1", "Voici 🎬 a few picks for fans of Pedro Almodóvar:\n1. **Back to the Future** (1985), by Robert Zemeckis "
               "([imdb.com](https://www.imdb.com/title/tt0088763/?utm_source=openai))\n2. *Les Visiteurs* (1993) by Jean-Marie Poiré"),
        ("U2", "Any from the 2010s?"),  # the next call, base64-encoded, continues the conversation it repeats
        ("S2", "Sure: *Arrival* (2016) by Denis Villeneuve 👽."),
    ]
    assert turns(anthropic) == [("U1", "A time travel film made for almost nothing?"),
                                ("S1", "I'll search for it.\n\n*Primer* (2004) by Shane Carruth cost about $7,000.")]
    assert turns(gemini)[1] == ("S1", "Cléo 🎞️ fans may like *La Jetée* (1962) by Chris Marker. It is told almost entirely in still photographs.")


def test_streamed_citations_are_assembled_with_their_answers():
    openai, anthropic, gemini = read("capture.har").conversations
    assert cited(openai) == [("S1", "1. **Back to the Future** (1985), by Robert Zemeckis "
                                    "([imdb.com](https://www.imdb.com/title/tt0088763/?utm_source=openai))",
                              "https://www.imdb.com/title/tt0088763/?utm_source=openai")]
    assert cited(anthropic) == [("S1", "*Primer* (2004) by Shane Carruth cost about $7,000.", "https://en.wikipedia.org/wiki/Primer_(film)")]
    assert cited(gemini) == [("S1", "*La Jetée* (1962) by Chris Marker.",
                              "https://vertexaisearch.cloud.google.com/grounding-api-redirect/LaJ1")]
    assert openai.citations[0].field == "log.entries[1].response.choices[0].message.annotations[0].url_citation"


def test_no_header_cookie_or_url_of_the_capture_is_read():
    result = read("capture.har")
    said = repr(result.conversations) + repr(result.warnings) + repr(result.errors)
    assert not [secret for secret in SECRETS if secret in said]
    har = json.loads((DATA / "capture.har").read_text())
    assert any(secret in json.dumps(har) for secret in SECRETS)  # they are in the file


def test_one_streamed_answer_saved_alone_is_refused_as_its_question_would_move_every_word_position():
    result = read("anthropic-stream.sse")
    assert result.format_name == "event stream (Anthropic Messages)" and result.conversations == []
    assert [str(e) for e in result.errors] == [
        "anthropic-stream.sse:1: a streamed answer alone holds no question, and the question's words count in "
        'every word position: save the call with its request (a HAR capture, or a {"request", "response"} log line)']


def test_a_responses_stream_is_read_from_its_completed_response():
    text = "Watch *Primer* (2004) ([wikipedia.org](https://en.wikipedia.org/wiki/Primer_(film)))"
    part = {"type": "output_text", "text": text, "annotations": [
        {"type": "url_citation", "start_index": 23, "end_index": len(text), "url": "https://en.wikipedia.org/wiki/Primer_(film)", "title": "Primer"}]}
    completed = {"id": "resp_1", "object": "response", "status": "completed",
                 "output": [{"type": "web_search_call", "id": "ws_1", "status": "completed"},
                            {"type": "message", "role": "assistant", "content": [part]}]}
    stream = (f"event: response.created\ndata: {json.dumps({'type': 'response.created', 'response': {**completed, 'output': []}})}\n\n"
              f"event: response.output_text.delta\ndata: {json.dumps({'type': 'response.output_text.delta', 'delta': 'Watch'})}\n\n"
              f"event: response.completed\ndata: {json.dumps({'type': 'response.completed', 'response': completed})}\n\n")
    result = in_capture(stream, {"model": "gpt-5", "input": "A time travel film made for almost nothing?"})
    assert result.format_name == "HAR capture" and result.errors == []
    assert cited(result.conversations[0]) == [("S1", "Watch *Primer* (2004) ([wikipedia.org](https://en.wikipedia.org/wiki/Primer_(film)))",
                                               "https://en.wikipedia.org/wiki/Primer_(film)")]


def test_a_capture_without_a_vendor_call_is_refused_saying_what_it_looks_for():
    har = {"log": {"version": "1.2", "entries": [{"request": {"url": "https://example.org/"},
                                                  "response": {"content": {"mimeType": "text/html", "text": "<html></html>"}}}]}}
    result = read_text(json.dumps(har), "page.har")
    assert [str(e) for e in result.errors] == [
        "page.har: a HAR capture without a call of an API this app reads (OpenAI, Anthropic, Gemini, Perplexity)"]


def test_a_broken_vendor_body_refuses_the_capture_with_the_entrys_json_path():
    har = json.loads((DATA / "capture.har").read_text())
    body = json.loads(base64.b64decode(har["log"]["entries"][3]["response"]["content"]["text"]))
    body["choices"] = {"0": "not a list"}
    har["log"]["entries"][3]["response"]["content"]["text"] = base64.b64encode(json.dumps(body).encode()).decode()
    result = read_text(json.dumps(har), "capture.har")
    assert [str(e) for e in result.errors] == ["capture.har:1: log.entries[3].response.choices: choices: expected a list"]


def test_a_base64_body_that_is_no_text_is_passed_over_with_a_warning():
    har = json.loads((DATA / "capture.har").read_text())
    har["log"]["entries"][0]["response"]["content"].update(text=base64.b64encode(b"\xff\xd8\xff\xe0").decode(), encoding="base64")
    result = read_text(json.dumps(har), "capture.har")
    assert result.errors == [] and len(result.conversations) == 3
    assert [str(w) for w in result.warnings] == [
        "capture.har:1: log.entries[0].response.content.text: a base64 body that is no UTF-8 text: skipped"]


def test_a_capture_is_counted_by_its_entries_without_being_read():
    data = (DATA / "capture.har").read_bytes()
    assert count_conversations(data, "capture.har") == 6  # an upper bound of its 3 conversations: pages and telemetry count


def test_an_event_whose_data_is_not_json_is_skipped_with_its_line():
    stream = (DATA / "anthropic-stream.sse").read_text().replace("event: ping\n", "event: ping\ndata: {oops\n\nevent: ping\n", 1)
    result = in_capture(stream, {"model": "claude", "max_tokens": 1024, "messages": [{"role": "user", "content": "A film made for almost nothing?"}]})
    assert result.errors == [] and len(result.conversations) == 1
    assert [str(w) for w in result.warnings] == [
        "capture.har:1: log.entries[0].response.content.text: line 4 of the stream: an event whose data is not JSON: skipped"]


def test_a_capture_without_its_secrets_is_read_the_same():
    data = (DATA / "capture.har").read_bytes()
    kept = without_secrets(data)
    assert not [secret for secret in SECRETS if secret.encode() in kept] and len(kept) < len(data)
    before, after = parse_file(data, "capture.har"), parse_file(kept, "capture.har")
    assert [turns(c) for c in after.conversations] == [turns(c) for c in before.conversations]
    assert [(c.field, c.line, cited(conversation)) for conversation in after.conversations for c in conversation.citations] == [
        (c.field, c.line, cited(conversation)) for conversation in before.conversations for c in conversation.citations]
    assert without_secrets(b'{"messages": []}') == b'{"messages": []}'  # anything else is kept as it is


def test_a_perplexity_stream_keeps_its_sources_for_the_markers_of_its_answer():
    chunk = {"id": "p1", "object": "chat.completion.chunk", "model": "sonar",
             "search_results": [{"title": "Primer", "url": "https://en.wikipedia.org/wiki/Primer_(film)"}]}
    pieces = ["<think>budget</think>*Primer* (2004) ", "by Shane Carruth 🎬 cost $7,000 [1]."]
    stream = "".join(f"data: {json.dumps({**chunk, 'choices': [{'index': 0, 'delta': {'content': p}}]})}\n\n" for p in pieces)
    result = in_capture(stream + "data: [DONE]\n\n", {"model": "sonar", "messages": [{"role": "user", "content": "A film made for almost nothing?"}]})
    assert result.format_name == "HAR capture" and result.errors == []
    assert cited(result.conversations[0]) == [("S1", "*Primer* (2004) by Shane Carruth 🎬 cost $7,000 [1].",
                                               "https://en.wikipedia.org/wiki/Primer_(film)")]


def test_a_response_fetched_without_its_request_is_passed_over_with_a_warning():
    har = json.loads((DATA / "capture.har").read_text())
    polled = {"id": "resp_9", "object": "response", "status": "completed",
              "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}]}
    har["log"]["entries"].append({"request": {"method": "GET", "url": "https://api.openai.com/v1/responses/resp_9"},
                                  "response": {"content": {"mimeType": "application/json", "text": json.dumps(polled)}}})
    result = read_text(json.dumps(har), "capture.har")
    assert result.errors == [] and len(result.conversations) == 3
    assert [str(w) for w in result.warnings] == [
        "capture.har:1: log.entries[6]: a response of OpenAI Responses without the request that asked it (a poll, a GET): passed over"]
