"""Reading a large harvest: a generated ChatGPT export (conversations.json) of N
conversations, each with a hidden system message, tool calls and results, an abandoned
regenerated answer and citation markers on every list line, read by ``parse_file`` (content
detection, the current_node branch, markers replaced by their links, offsets to words), and
counted by ``count_conversations`` (what decides, within the upload request, whether the
import runs in the background). Beside it, in the same run, the same conversations written as
this app's JSONL and read back: the ratio says what the harvest reader costs over the
reading every import already does.

``--format har``: a generated HAR capture instead, of N conversations of 3 OpenAI Chat
Completions calls each, every answer streamed (``text/event-stream``, one
``chat.completion.chunk`` per 4 characters, as a token stream comes) with a url_citation
annotation per list line, every request resending the history, a telemetry call between
calls, and every third body base64-encoded: the streams are assembled, the calls chained into
conversations and read.

    .venv/bin/python bench/bench_harvest_read.py [--format chatgpt|har] [--conversations 2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotator.interchange.formats import count_conversations, parse_file, write_jsonl  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402

MARKER = "\ue200cite\ue202turn{t}search{k}\ue201"


def _message(node_id: str, role: str, text: str, *, refs=None, content_type="text", recipient="all", hidden=False) -> dict:
    metadata = {"content_references": refs or []}
    if hidden:
        metadata["is_visually_hidden_from_conversation"] = True
    return {"id": node_id, "author": {"role": role}, "recipient": recipient, "create_time": 1718000000.0,
            "content": {"content_type": content_type, "parts": [text]}, "metadata": metadata}


def export_conversation(c: int, turns: int = 6, lines: int = 8) -> dict:
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": ["sys"]},
               "sys": {"id": "sys", "message": _message("sys", "system", "", hidden=True), "parent": "root", "children": []}}
    parent = "sys"
    for t in range(turns):
        user, call, tool, answer, old = (f"u{t}", f"c{t}", f"t{t}", f"a{t}", f"o{t}")
        body, refs = [f"Voici 🎬 picks n°{t} for Zoë and José:"], []
        for k in range(lines):
            prefix = "\n".join(body) + "\n" + f"{k + 1}. **Film {c}-{t}-{k}** ({1960 + k}) by Agnès Varda "
            marker = MARKER.format(t=t, k=k)
            url = f"https://www.imdb.com/title/tt{c:05d}{t}{k}/?utm_source=chatgpt.com"
            refs.append({"matched_text": marker, "start_idx": len(prefix), "end_idx": len(prefix) + len(marker),
                         "alt": f"([IMDb]({url}))", "type": "grouped_webpages", "items": [{"url": url, "title": f"Film {k} - IMDb"}]})
            body.append(f"{k + 1}. **Film {c}-{t}-{k}** ({1960 + k}) by Agnès Varda {marker}")
        mapping[parent]["children"].append(user)
        mapping[user] = {"id": user, "message": _message(user, "user", f"Question {t} about time travel films?"), "parent": parent, "children": [call, old]}
        mapping[old] = {"id": old, "message": _message(old, "assistant", "An abandoned answer."), "parent": user, "children": []}
        mapping[call] = {"id": call, "message": _message(call, "assistant", '{"q": "films"}', content_type="code", recipient="web"), "parent": user, "children": [tool]}
        mapping[tool] = {"id": tool, "message": _message(tool, "tool", "results", content_type="tether_browsing_display"), "parent": call, "children": [answer]}
        mapping[answer] = {"id": answer, "message": _message(answer, "assistant", "\n".join(body), refs=refs), "parent": tool, "children": []}
        parent = answer
    return {"title": f"Conversation {c}", "create_time": 1718000000.0, "mapping": mapping, "current_node": parent, "id": f"c{c}"}


def har_capture(conversations: int, turns: int = 3, lines: int = 8) -> dict:
    """A HAR capture of ``conversations`` chats with a search model, every answer streamed."""
    entries = []
    for c in range(conversations):
        history: list[dict] = [{"role": "system", "content": "Cite your sources."}]
        for t in range(turns):
            history.append({"role": "user", "content": f"Question {t} about time travel films, please ({c})?"})
            body, annotations = f"Voici 🎬 picks n°{t} for Zoë and José:", []
            for k in range(lines):
                url = f"https://www.imdb.com/title/tt{c:05d}{t}{k}/?utm_source=openai"
                link = f"([imdb.com]({url}))"
                body += f"\n{k + 1}. **Film {c}-{t}-{k}** ({1960 + k}) by Agnès Varda "
                annotations.append({"type": "url_citation", "url_citation": {
                    "start_index": len(body), "end_index": len(body) + len(link), "url": url, "title": f"Film {k} - IMDb"}})
                body += link
            chunk = {"id": f"chatcmpl-{c}-{t}", "object": "chat.completion.chunk", "model": "gpt-4o-search-preview"}
            events = [{**chunk, "choices": [{"index": 0, "delta": {"content": body[i : i + 4]}}]} for i in range(0, len(body), 4)]
            events.append({**chunk, "choices": [{"index": 0, "delta": {"annotations": annotations}, "finish_reason": "stop"}]})
            stream = "".join(f"data: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events) + "data: [DONE]\n\n"
            content = {"mimeType": "text/event-stream", "text": stream}
            if (c + t) % 3 == 0:
                content = {"mimeType": "text/event-stream", "encoding": "base64", "text": base64.b64encode(stream.encode()).decode()}
            request = {"model": "gpt-4o-search-preview", "stream": True, "messages": list(history)}
            entries.append({"request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions",
                                        "headers": [{"name": "Authorization", "value": "Bearer sk-bench"}],
                                        "postData": {"mimeType": "application/json", "text": json.dumps(request, ensure_ascii=False)}},
                            "response": {"status": 200, "content": content}})
            entries.append({"request": {"method": "POST", "url": "https://telemetry.example.org/e",
                                        "postData": {"mimeType": "application/json", "text": '{"event": "view"}'}},
                            "response": {"status": 204, "content": {"mimeType": "application/json", "text": '{"ok": true}'}}})
            history.append({"role": "assistant", "content": body})
    return {"log": {"version": "1.2", "creator": {"name": "bench"}, "entries": entries}}


def timed(function, repeat: int) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - started)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--format", choices=("chatgpt", "har"), default="chatgpt")
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()
    name = "capture.har" if args.format == "har" else "conversations.json"
    made = har_capture(args.conversations) if args.format == "har" else [export_conversation(c) for c in range(args.conversations)]
    export = json.dumps(made, ensure_ascii=False).encode()
    read_s, result = timed(lambda: parse_file(export, name), args.repeat)
    assert result.ok and len(result.conversations) == args.conversations, result.errors[:3]
    citations = sum(len(c.citations) for c in result.conversations)
    count_s, counted = timed(lambda: count_conversations(export, name), args.repeat)
    for n, conversation in enumerate(result.conversations):  # JSONL needs a topic and distinct runs
        conversation.topic, conversation.run = "M001", f"run{n}"
    jsonl = write_jsonl(result.conversations).encode()
    jsonl_s, jsonl_result = timed(lambda: parse_file(jsonl, "conversations.jsonl"), args.repeat)
    assert jsonl_result.ok and len(jsonl_result.conversations) == args.conversations
    numbers = {
        "format": result.format_name,
        "conversations": args.conversations,
        "citations": citations,
        "export_mb": round(len(export) / 1e6, 1),
        "jsonl_mb": round(len(jsonl) / 1e6, 1),
        "read_export_s": round(read_s, 2),
        "conversations_per_s": round(args.conversations / read_s),
        "count_export_ms": round(count_s * 1000, 1),
        "counted": counted,
        "read_same_as_jsonl_s": round(jsonl_s, 2),
        "export_over_jsonl": round(read_s / jsonl_s, 2),
        "machine": machine(),
    }
    if args.format == "har":  # why streams.assemble decodes a stream's events in one pass: both ways, same run
        from annotator.interchange.formats.harvest.streams import events

        streams = [base64.b64decode(e["response"]["content"]["text"]).decode() if e["response"]["content"].get("encoding")
                   else e["response"]["content"]["text"] for e in made["log"]["entries"] if "event-stream" in e["response"]["content"]["mimeType"]]
        datas = [[d for _, d, _ in events(text) if d != "[DONE]"] for text in streams]
        each_s, _ = timed(lambda: [[json.loads(d) for d in ds] for ds in datas], args.repeat)
        joined_s, _ = timed(lambda: [json.loads("[" + ",".join(ds) + "]") for ds in datas], args.repeat)
        numbers.update(events=sum(map(len, datas)), decode_each_event_s=round(each_s, 2), decode_joined_s=round(joined_s, 2),
                       each_over_joined=round(each_s / joined_s, 2))
    print(json.dumps(numbers, indent=2, ensure_ascii=False))
    print(write_result("harvest_read" if args.format == "chatgpt" else f"harvest_read_{args.format}", numbers))


if __name__ == "__main__":
    main()
