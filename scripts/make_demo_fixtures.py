"""Write the demo campaign's files (fixtures/demo/): INVENTED data, deterministic (same files on
every run), that `manage.py load_demo` imports as an organiser would.

    .venv/bin/python scripts/make_demo_fixtures.py

What it writes:
- `campaign.json`: the FairWeb-1 attribute sets of fixtures/fairweb-campaign.json, the invented
  topics M001-M003, R001-R003, Y001-Y003, T001-T003 (M002 is the paper's), the FairWeb-1 pilot
  pack's topics P001-P004 (for its web runs), and three systems with two trials each;
- `harvests/<TOPIC>-<system>.*`: each system's two trials of a topic as its harvester saved
  them: `bing` a ShareGPT dump (its links read as citations), `chatgpt` an OpenAI Chat
  Completions log (url_citation annotations), `perplexity` a Perplexity API log ([n] markers
  into search_results). M002's bing-trial1 is the paper's annotated conversation
  (M002-bing-trial1.txt, not written here), so M002-bing holds bing-trial2 alone;
- `judgments-<annotator>.jsonl`: each human annotator's judgments (this app's JSONL), added to
  the harvested conversations with `--annotator`: `annotator` judges topics M and R (and has
  T003 under way: some conversations not begun, others with nuggets not graded yet), `bea` Y, `carl` T001-T002; bea and carl also judge some of annotator's
  conversations, each with a few disagreements of every kind (span, grade, membership, turn
  label) for the adjudication page.

Every title, name, URL, figure and judgment here is invented (the URLs follow real sites'
shapes but name nothing real), except the paper's M002 conversation and the pilot pack.
The turn texts of the judgments are read back from the harvests with the app's own readers, so
that they are exactly what the import stores.
"""

from __future__ import annotations

import json
import random
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from annotator.interchange.formats import parse_file  # noqa: E402  (pure Python, no Django)

DEMO = ROOT / "fixtures" / "demo"
INVENTED = "INVENTED for the demo: no title, name, URL, figure or judgment here is real."

SYSTEMS = {"bing": "New Bing", "chatgpt": "ChatGPT search", "perplexity": "Perplexity"}

# topic -> (description, the user's question, the follow-up)
TOPICS = {
    "M001": ("heist movies, listed in IMDb", "Please list heist movies, with their IMDb URLs.", "Can you name a few more?"),
    "M002": ("sci-fi movies that feature time travel, listed in IMDb",
             "Please list up sci-fi movies that feature time travel, listed in IMDb.", "Any others?"),
    "M003": ("animated films about the sea, listed in IMDb", "Which animated films about the sea should I watch? IMDb links please.",
             "And a few more?"),
    "R001": ("researchers in information retrieval evaluation", "Who are researchers working on information retrieval evaluation?",
             "Can you suggest more researchers?"),
    "R002": ("researchers in speech recognition", "List researchers known for speech recognition.", "Who else?"),
    "R003": ("researchers in computational biology", "Name researchers in computational biology, with their pages.", "More, please."),
    "Y001": ("YouTube channels teaching bread baking", "Which YouTube channels teach bread baking?", "Any smaller channels?"),
    "Y002": ("YouTube channels about amateur astronomy", "Recommend YouTube channels about amateur astronomy.", "More like these?"),
    "Y003": ("YouTube channels reviewing budget bicycles", "YouTube channels that review budget bicycles?", "Others?"),
    "T001": ("accounts posting about urban birdwatching", "Which accounts post about urban birdwatching?", "Who else should I follow?"),
    "T002": ("accounts about tide-pool ecology", "Accounts to follow about tide-pool ecology?", "Any more?"),
    "T003": ("accounts about letterpress printing", "Who posts about letterpress printing?", "A few more?"),
}
PILOT_TOPICS = [("P001", "R"), ("P002", "M"), ("P003", "T"), ("P004", "Y")]  # fixtures/fairweb1-pilot-campaign.json

GROUPS = {  # topic type -> attribute set -> number of groups (fixtures/fairweb-campaign.json)
    "M": {"RATINGS": 4, "ORIGIN": 8}, "R": {"HINDEX": 4, "GENDER": 3}, "Y": {"SUBSCS": 4}, "T": {"FOLLOWERS": 4},
}
WORDS_A = ["Glass", "Silent", "Paper", "Copper", "Hollow", "Amber", "Northern", "Velvet", "Crooked", "Distant",
           "Salt", "Quiet", "Iron", "Lantern", "Tidal", "Winter"]
WORDS_B = ["Vault", "Harbour", "Ledger", "Orchard", "Signal", "Compass", "Meridian", "Atlas", "Reef", "Current",
           "Engine", "Garden", "Mirror", "Lighthouse", "Canal", "Archive"]
FIRST = ["Ana", "Bao", "Clara", "Dev", "Elif", "Femi", "Greta", "Hiro", "Ines", "Jonas", "Kemal", "Lena", "Mateo",
         "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tomoko"]
LAST = ["Arslan", "Brandt", "Castillo", "Duarte", "Eriksen", "Fontaine", "Gupta", "Halvorsen", "Ibarra", "Jovanovic",
        "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quiroga", "Rahman", "Sato", "Takahashi"]
NOTES = ["a favourite of critics", "often recommended", "worth a look", "a good place to start", "widely cited",
         "popular with beginners", "a steady classic", "known for clear explanations"]


@dataclass
class Entity:
    name: str
    url: str
    level: int  # 0, 1, 2
    vectors: dict[str, list[int]]  # attribute set -> one-hot (or split) counts


def vector_text(counts: list[int]) -> list[str]:
    total = sum(counts)
    return [f"{c}/{total}" if c and total > 1 else str(c // max(total, 1)) for c in counts]


def pool(topic: str, rng: random.Random) -> list[Entity]:
    """Ten invented entities of the topic, with their grades and memberships."""
    kind = topic[0]
    entities = []
    used = set()
    for i in range(10):
        while True:
            if kind == "M":
                name = f"The {rng.choice(WORDS_A)} {rng.choice(WORDS_B)} ({rng.randint(1968, 2023)})"
            elif kind == "R":
                name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            elif kind == "Y":
                name = f"{rng.choice(WORDS_A)} {rng.choice(WORDS_B)} {rng.choice(['Kitchen', 'Skies', 'Rides', 'Lab', 'Studio'])}"
            else:
                name = f"{rng.choice(FIRST)} {rng.choice(['of the', 'at the', 'by the'])} {rng.choice(WORDS_B)}"
            if name not in used:
                used.add(name)
                break
        slug = "".join(ch for ch in name.split("(")[0].title() if ch.isalnum())
        number = f"{int(topic[1:]):02d}{i:02d}"
        url = {"M": f"https://www.imdb.com/title/tt99{number}{rng.randint(100, 999)}/",
               "R": f"https://dblp.org/pid/99/{number}.html",
               "Y": f"https://www.youtube.com/@{slug}Demo",
               "T": f"https://x.com/{slug[:12]}_demo"}[kind]
        level = rng.choices([2, 1, 0], weights=[4, 3, 3])[0]
        vectors = {}
        for attribute_set, k in GROUPS[kind].items():
            counts = [0] * k
            counts[rng.randrange(k)] += 1
            if rng.random() < 0.2:
                counts[rng.randrange(k)] += 1  # two groups (a co-production, a shared channel)
            vectors[attribute_set] = counts
        entities.append(Entity(name, url, level, vectors))
    return entities


# -- the systems' answers, in each harvester's format ---------------------------------------


def line_plain(entity: Entity, note: str) -> str:
    return f"{entity.name}: {entity.url}"


def chat_line(entity: Entity, note: str) -> tuple[str, str]:
    """A Chat Completions line and its cited link (the url_citation's slice)."""
    link = f"[{entity.url.split('/')[2].removeprefix('www.')}]({entity.url}?utm_source=openai)"
    return f"- **{entity.name}**, {note} ({link})", link


# How each system picks from a topic's pool: a weight per grade (a higher weight for L2 is a
# system that finds the relevant entities more often) and whether it leads with its best. The
# systems must differ in quality, or the design study on the trials page has no systems'
# variance to show; the trials of one system still differ by their draws.
QUALITY = {
    "bing": ({2: 1.0, 1: 1.0, 0: 4.0}, False),
    "chatgpt": ({2: 2.0, 1: 1.5, 0: 1.0}, False),
    "perplexity": ({2: 6.0, 1: 1.5, 0: 0.3}, True),
}


def answer_turns(entities: list[Entity], rng: random.Random, first: int, system: str) -> list[list[Entity]]:
    """The entities of S1 and S2 of one conversation: five drawn from the pool without replacement,
    each with its system's weight for its grade (Efraimidis and Spirakis's keys u ** (1 / w))."""
    weights, best_first = QUALITY[system]
    keyed = sorted(entities, key=lambda e: rng.random() ** (1 / weights[e.level]), reverse=True)
    chosen = keyed[:5]
    if best_first:
        chosen.sort(key=lambda e: -e.level)
    return [chosen[:first], chosen[first:]]


def sharegpt(topic: str, trials: list[list[list[Entity]]], rng) -> str:
    question, more = TOPICS[topic][1:]
    items = []
    for k, (s1, s2) in enumerate(trials):
        turns = [{"from": "human", "value": question},
                 {"from": "bing", "value": "\n".join(["Here is what I found:"] + [line_plain(e, "") for e in s1])},
                 {"from": "human", "value": more},
                 {"from": "bing", "value": "\n".join(["Sure, here are a few more:"] + [line_plain(e, "") for e in s2])}]
        items.append({"id": f"demo-{topic}-bing-{k + 1}", "note": INVENTED, "conversations": turns})
    return json.dumps(items, indent=1, ensure_ascii=False) + "\n"


def chat_completions(topic: str, trials, rng) -> str:
    question, more = TOPICS[topic][1:]
    lines = []
    for s1, s2 in trials:
        messages = [{"role": "user", "content": question}]
        for intro, entities, follow in (("Here are some options:", s1, more), ("A few more:", s2, None)):
            text_lines, links = [intro], []
            for e in entities:
                line, link = chat_line(e, rng.choice(NOTES))
                text_lines.append(line)
                links.append((e, link))
            content = "\n".join(text_lines)
            annotations = []
            for e, link in links:
                start = content.index(link)
                annotations.append({"type": "url_citation", "url_citation": {
                    "start_index": start, "end_index": start + len(link), "url": link[link.index("(") + 1:-1],
                    "title": f"{e.name} - {e.url.split('/')[2]}"}})
            messages.append({"role": "assistant", "content": content, "refusal": None, "annotations": annotations})
            if follow:
                messages.append({"role": "user", "content": follow})
        lines.append(json.dumps({"model": "demo-search-model", "note": INVENTED, "messages": messages}, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def perplexity(topic: str, trials, rng) -> str:
    question, more = TOPICS[topic][1:]
    lines = []
    for k, (s1, s2) in enumerate(trials):
        history = [{"role": "user", "content": question}]
        for j, (intro, entities, follow) in enumerate((("Based on my search:", s1, more), ("Also worth a look:", s2, None))):
            results = [{"title": f"{e.name} - {e.url.split('/')[2]}", "url": e.url} for e in entities]
            content = "\n".join([intro] + [f"{e.name}, {rng.choice(NOTES)} [{n}]" for n, e in enumerate(entities, 1)])
            response = {"id": f"demo-{topic}-pplx-{k + 1}-{j + 1}", "model": "demo-sonar", "object": "chat.completion",
                        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                        "search_results": results}
            lines.append(json.dumps({"note": INVENTED, "request": {"model": "demo-sonar", "messages": list(history)},
                                     "response": response}, ensure_ascii=False))
            history.append({"role": "assistant", "content": content})
            if follow:
                history.append({"role": "user", "content": follow})
    return "\n".join(lines) + "\n"


WRITERS = {"bing": ("json", sharegpt), "chatgpt": ("jsonl", chat_completions), "perplexity": ("jsonl", perplexity)}


# -- the annotators' judgments -----------------------------------------------------------------


def find_line(text: str, needle: str) -> tuple[int, int]:
    """The 0-based word range (inclusive) of the line of `text` holding `needle`."""
    words_before = 0
    for line in text.split("\n"):
        n = len(line.split())
        if needle in line:
            return words_before, words_before + n - 1
        words_before += n
    raise ValueError(needle)


def judged(topic: str, run: str, turns, answer: list[list[Entity]], *, who: str = "annotator",
           unfinished: str | None = None) -> dict:
    """One conversation's JSONL record as `who` judged it. `who` other than annotator: the
    deviations that make the adjudication's disagreements. `unfinished`: "empty" (nothing done
    yet) or "partly" (nuggets marked, some ungraded, memberships missing)."""
    nuggets = []
    labels = []
    system_turns = [i for i, t in enumerate(turns) if t.role == "S"]
    for s, (index, entities) in enumerate(zip(system_turns, answer)):
        for j, e in enumerate(entities):
            start, end = find_line(turns[index].text, e.name)
            level, vectors = e.level, dict(e.vectors)
            if who in ("bea", "carl") and s == 0 and j == 1:
                level = 1 if level == 2 else 2  # both see this grade otherwise
            if who == "bea":
                if s == 0 and j == 0:
                    start += 1  # a shorter span: the title without its first word
                if e is next((x for x in answer[0] if x.level > 0), None):
                    first_set = next(iter(vectors))
                    vectors[first_set] = vectors[first_set][1:] + vectors[first_set][:1]  # another group
                if s == 1 and j == len(entities) - 1:
                    continue  # not marked
            nugget = {"turn": index + 1, "start": start, "end": end, "entity": {"url": e.url, "name": e.name}}
            if unfinished == "partly" and (s, j) != (0, 0):
                nugget["grade"] = None  # marked, not judged yet
            else:
                nugget["grade"] = f"L{level}"
                if level > 0:
                    nugget["memberships"] = {name: vector_text(v) for name, v in vectors.items()}
            nuggets.append(nugget)
        # the turn's usefulness, the same for every annotator before their own deviations: useful
        # with a fully relevant entity, most of the time (a hash, so that no random draw shifts)
        strong = any(e.level == 2 for e in entities)
        some = any(e.level > 0 for e in entities)
        k = zlib.crc32(f"{topic}/{run}/S{s + 1}".encode()) % 5
        label = "o" if (strong and k not in (0, 1)) or (some and k == 1 and s == 1) else "x"
        if who == "bea" and s == 1 or who == "carl" and s == 0:
            label = "x" if label == "o" else "o"
        labels.append(label)
    if unfinished == "empty":
        nuggets, labels = [], [None] * len(labels)
    if unfinished == "partly":
        labels = [None] * len(labels)
    out_turns = []
    for t in turns:
        turn = {"role": "user" if t.role == "U" else "system", "text": t.text}
        if t.role == "S":
            turn["label"] = labels[system_turns.index(turns.index(t))]
        out_turns.append(turn)
    return {"topic": topic, "run": run, "meta": INVENTED, "turns": out_turns, "nuggets": nuggets}


def main(out: Path = DEMO) -> None:
    """Write the files into `out` (fixtures/demo/; a test writes them elsewhere and compares)."""
    DEMO = out
    rng = random.Random(29)
    (DEMO / "harvests").mkdir(parents=True, exist_ok=True)
    judgments: dict[str, list[dict]] = {"annotator": [], "bea": [], "carl": []}
    for topic in TOPICS:
        entities = pool(topic, rng)
        for system, (ext, write) in WRITERS.items():
            trials = [answer_turns(entities, rng, rng.choice([2, 3]), system) for _ in range(2)]
            runs = [f"{system}-trial1", f"{system}-trial2"]
            if topic == "M002" and system == "bing":  # bing-trial1 is the paper's conversation
                trials, runs = trials[1:], runs[1:]
            path = DEMO / "harvests" / f"{topic}-{runs[0] if len(runs) == 1 else system}.{ext}"
            path.write_text(write(topic, trials, rng))
            read = parse_file(path.read_bytes(), path.name)
            assert read.ok and len(read.conversations) == len(trials), (path, read.errors)
            for conversation, answer, run in zip(read.conversations, trials, runs):
                turns = conversation.turns
                kind = topic[0]
                owner = {"M": "annotator", "R": "annotator", "Y": "bea", "T": "carl"}[kind]
                if topic == "T003":
                    owner = "annotator"
                unfinished = None
                if topic == "T003":
                    unfinished = "empty" if system == "perplexity" else "partly"
                judgments[owner].append(judged(topic, run, turns, answer, unfinished=unfinished))
                if run == "chatgpt-trial1" and owner == "annotator" and kind in "MR":
                    judgments["bea"].append(judged(topic, run, turns, answer, who="bea"))
                    if topic in ("M001", "R002"):
                        judgments["carl"].append(judged(topic, run, turns, answer, who="carl"))
    for who, records in judgments.items():
        with open(DEMO / f"judgments-{who}.jsonl", "w") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")

    campaign = json.loads((ROOT / "fixtures" / "fairweb-campaign.json").read_text())
    pilot = json.loads((ROOT / "fixtures" / "fairweb1-pilot-campaign.json").read_text())
    campaign["note"] = ("The demo campaign. " + INVENTED + " Except: topic M002's bing-trial1 conversation is the "
                        "paper's (Sakai, EVIA 2023, Figure 5) and topics P001-P004 with their web runs are the "
                        "NTCIR-17 FairWeb-1 pilot pack (fixtures/fairweb1-pilot/). " + campaign["note"])
    campaign["name"] = "FairWeb-1 demo (GFRC, invented conversations)"
    campaign["description"] = (
        "Demo of GFRC on FairWeb-1 topic types M (movies), R (researchers), Y (YouTube), T: invented topics, "
        "conversations, annotators and judgments, except the paper's M002 Bing conversation (Sakai, EVIA 2023) "
        "and the FairWeb-1 pilot pack's web runs on P001-P004, scored with GFR.")
    campaign["settings"]["ranked_list_gains"] = pilot["settings"]["ranked_list_gains"]
    campaign["settings"]["ranked_list_cutoff"] = pilot["settings"]["ranked_list_cutoff"]
    campaign["topics"] = [{"id": code, "description": TOPICS[code][0]} for code in TOPICS] + [
        {"id": code, "type": kind, "description": "FairWeb-1 pilot topic (web runs, NTCIREVAL pack)"}
        for code, kind in PILOT_TOPICS]
    campaign["runs"] = [{"name": f"{system}-trial{trial}", "system": name, "trial": trial}
                        for system, name in SYSTEMS.items() for trial in (1, 2)]
    (DEMO / "campaign.json").write_text(json.dumps(campaign, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {DEMO}: campaign.json, {len(list((DEMO / 'harvests').iterdir()))} harvests, "
          + ", ".join(f"judgments-{who}.jsonl ({len(r)})" for who, r in judgments.items()))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEMO)
