"""Public dumps: ShareGPT (HTML values read back as markdown, FastChat fragments joined) and
LMSYS-Chat-1M / WildChat / Arena rows. They carry no citation structure: the links their
answers show are proposed, a site-named link or a bare URL citing the words before it."""

from __future__ import annotations

import json

from .harvest_helpers import cited, read, read_text, turns

SHAREGPT_S1 = (
    "Voici 🎬 a few picks for fans of Pedro Almodóvar:\n\n"
    "1. **Back to the Future** (1985): [IMDb](https://www.imdb.com/title/tt0088763/)\n"
    "2. *Les Visiteurs* (1993) by Jean-Marie Poiré: [IMDb](https://www.imdb.com/title/tt0108500/)\n\n"
    '```\nwatchlist = ["BTTF"]\n```'
)


def test_sharegpt_html_values_are_read_as_the_markdown_they_showed_without_copy_code_buttons():
    result = read("sharegpt.json")
    assert result.format_name == "ShareGPT" and result.errors == [] and result.warnings == []
    first = result.conversations[0]
    assert turns(first)[1] == ("S1", SHAREGPT_S1)


def test_sharegpt_fragments_of_one_chat_are_joined_and_system_prompts_dropped():
    first, second = read("sharegpt.json").conversations
    assert [name for name, _ in turns(first)] == ["U1", "S1", "U2", "S2"]
    assert turns(first)[2:] == [("U2", "Any from the 2010s?"),
                                ("S2", "*Arrival* (2016) by Denis Villeneuve 👽: [IMDb](https://www.imdb.com/title/tt2543164/)")]
    assert turns(second) == [("U1", "A time travel film made for almost nothing?"),
                             ("S1", "*Primer* (2004) by Shane Carruth cost about $7,000."), ("U2", "Thanks!"), ("S2", "You're welcome.")]
    assert second.citations == [] and (first.line, second.line) == (2, 28)


def test_lmsys_and_wildchat_rows_and_both_sides_of_an_arena_row_are_conversations():
    result = read("lmsys-wildchat.jsonl")
    assert result.format_name == "LMSYS-Chat / WildChat" and result.errors == [] and result.warnings == []
    lmsys, wildchat, arena_a, arena_b = result.conversations
    assert turns(lmsys) == [
        ("U1", "List sci-fi movies with time travel, like NAME_1 would."),
        ("S1", "Voici 🎬 a few, for fans of Pedro Almodóvar:\n1. Back to the Future (1985): https://www.imdb.com/title/tt0088763/\n"
               "2. Les Visiteurs (1993) by Jean-Marie Poiré"),
        ("U2", "Any from the 2010s?"),
        ("S2", "Arrival (2016) by Denis Villeneuve 👽."),
    ]
    assert turns(wildchat) == [("U1", "Un film de voyage dans le temps à petit budget ?"),
                               ("S1", "*Primer* (2004), de Shane Carruth, a coûté environ 7 000 $."), ("U2", "Merci !"),
                               ("S2", "Avec plaisir.")]
    assert turns(arena_a)[1] == ("S1", "Cléo from 5 to 7 (1962).") and turns(arena_b)[1] == ("S1", "Le Bonheur (1965).")
    assert [c.line for c in result.conversations] == [1, 2, 3, 3]
    assert arena_b.turns[0].field == "conversation_b[0]"


def test_the_links_a_dump_shows_are_proposed_a_site_named_link_citing_its_line():
    first, _ = read("sharegpt.json").conversations
    assert cited(first) == [
        ("S1", "1. **Back to the Future** (1985): [IMDb](https://www.imdb.com/title/tt0088763/)", "https://www.imdb.com/title/tt0088763/"),
        ("S1", "2. *Les Visiteurs* (1993) by Jean-Marie Poiré: [IMDb](https://www.imdb.com/title/tt0108500/)",
         "https://www.imdb.com/title/tt0108500/"),
        ("S2", "*Arrival* (2016) by Denis Villeneuve 👽: [IMDb](https://www.imdb.com/title/tt2543164/)",
         "https://www.imdb.com/title/tt2543164/"),
    ]
    lmsys = read("lmsys-wildchat.jsonl").conversations[0]
    assert cited(lmsys) == [("S1", "1. Back to the Future (1985): https://www.imdb.com/title/tt0088763/", "https://www.imdb.com/title/tt0088763/")]


def test_a_link_named_for_what_it_shows_cites_its_label_and_links_in_code_are_code():
    answer = ("Watch [Primer](https://en.wikipedia.org/wiki/Primer_(film)) tonight, then Cléo 🎬 "
              "(see https://www.imdb.com/title/tt0055852/?utm_source=chatgpt.com).\n"
              "```\n[IMDb](https://www.imdb.com/title/tt1/)\n```")
    row = {"conversation": [{"role": "user", "content": "Two films?"}, {"role": "assistant", "content": answer}]}
    result = read_text(json.dumps(row) + "\n", "rows.jsonl")
    assert result.errors == []
    assert cited(result.conversations[0]) == [
        ("S1", "[Primer](https://en.wikipedia.org/wiki/Primer_(film))", "https://en.wikipedia.org/wiki/Primer_(film)"),
        ("S1", "tonight, then Cléo 🎬 (see https://www.imdb.com/title/tt0055852/?utm_source=chatgpt.com).",
         "https://www.imdb.com/title/tt0055852/?utm_source=chatgpt.com"),
    ]
    assert result.conversations[0].citations[0].title == "Primer"
