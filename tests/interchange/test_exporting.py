"""annotator.interchange.exports.catalogue and export_annotations: what goes out comes back in."""

from __future__ import annotations

import io
import json
import types
import zipfile

import pandas as pd
import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotator.judgments import edits
from annotator.interchange.exports import annotations, batches, catalogue as exporting, qrels
from annotator.interchange.imports.conversations import import_files
from annotator.models import Campaign, Entity, Nugget, Topic, TurnLabel
from tests.commands.helpers import BARD_FIGURE, CAMPAIGN_FILE, EXAMPLE, refused, run

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(db):
    """The fairweb1 campaign with the paper's Bing and Bard M002 conversations judged by "gold"."""
    run("load_campaign", str(CAMPAIGN_FILE))
    campaign = Campaign.objects.get(slug="fairweb1")
    gold = get_user_model().objects.create_user("gold")
    result = import_files(campaign, [("M002-bing-trial1.txt", EXAMPLE.read_bytes()), ("M002-bard-trial1.txt", BARD_FIGURE.read_bytes())], annotator=gold)
    assert result.ok, result.errors
    return campaign, gold


def judgments(campaign: Campaign, annotator) -> dict:
    """Everything an annotator judged in a campaign, without database ids."""
    nuggets = sorted(
        (n.turn.conversation.topic.code, n.turn.conversation.run.name, n.turn.position, n.start_word, n.end_word,
         n.entity.key, n.entity.name, n.entity.grade.label if n.entity.grade else None, n.entity.comment,
         tuple(sorted((m.attribute_set.name, tuple(m.vector), m.evidence) for m in n.entity.memberships.all())))
        for n in Nugget.objects.filter(turn__conversation__topic__campaign=campaign, annotator=annotator)
        .select_related("turn__conversation__topic", "turn__conversation__run", "entity__grade")
    )
    labels = sorted(
        (t.turn.conversation.topic.code, t.turn.conversation.run.name, t.turn.position, t.label)
        for t in TurnLabel.objects.filter(turn__conversation__topic__campaign=campaign, annotator=annotator)
        .select_related("turn__conversation__topic", "turn__conversation__run")
    )
    return {"nuggets": nuggets, "labels": labels}


def copy_campaign(slug: str) -> Campaign:
    data = json.loads(CAMPAIGN_FILE.read_text())
    data["slug"] = slug
    from annotator.interchange.imports.campaign_file import load_campaign

    return load_campaign(data).campaign


@pytest.mark.parametrize("kind, name", [("paper", "export.txt"), ("jsonl", "export.jsonl")])
def test_importing_an_export_gives_back_the_same_annotations(judged, kind, name):
    campaign, gold = judged
    # a partial nugget with an entity of its own, to need #SPAN and #ENTITY lines
    bing = campaign.topics.get(code="M002").conversations.get(run__name="bing-trial1")
    last_turn = bing.turns.get(position=4)
    words = last_turn.text.split()
    end = len(words) - 1
    nugget = edits.create_nugget(annotator=gold, actor=gold, turn=last_turn, start_word=end - 1, end_word=end)
    edits.update_entity(nugget.entity, actor=gold, expected_version=nugget.entity.version, name="Closing words", comment="no entity really")
    exported = "".join(exporting.stream(campaign, kind))
    if kind == "paper":
        assert "#SPAN: " in exported and '#ENTITY: {"key": "name:you with.", "name": "Closing words"}' in exported
    copy = copy_campaign("copy")
    result = import_files(copy, [(name, exported.encode())], annotator=gold)
    assert result.ok, result.errors
    assert [str(w) for w in result.warnings] == []
    assert judgments(copy, gold) == judgments(campaign, gold)
    assert sorted(
        (c.topic.code, c.run.name, [t.text for t in c.turns.order_by("position")])
        for c in copy.topics.get(code="M002").conversations.all()
    ) == sorted(
        (c.topic.code, c.run.name, [t.text for t in c.turns.order_by("position")])
        for c in campaign.topics.get(code="M002").conversations.all()
    )


def test_the_export_command_writes_a_file_the_import_command_reads_back(judged, tmp_path):
    campaign, gold = judged
    run("export_annotations", "--campaign", "fairweb1", "--format", "paper", "--output", str(tmp_path))
    path = tmp_path / "fairweb1.txt"
    assert path.read_text().startswith("##### M002 run=bard-trial1\n### U1\n")
    copy_campaign("copy")
    out, err = run("import_conversations", "--campaign", "copy", "--annotator", "gold", str(path))
    read, summary = out.splitlines()
    assert err == "" and read == "fairweb1.txt: read as paper: 2 conversations"
    assert summary.startswith("2 conversation(s) imported")
    assert judgments(Campaign.objects.get(slug="copy"), gold) == judgments(campaign, gold)


def test_exports_are_generators_that_send_conversations_in_chunks(judged, monkeypatch):
    campaign, _ = judged
    for kind in ("paper", "jsonl"):
        chunks = exporting.stream(campaign, kind)
        assert isinstance(chunks, types.GeneratorType)
        assert len(list(chunks)) == 1
        monkeypatch.setattr(annotations, "CONVERSATIONS_PER_CHUNK", 1)
        one_each = list(exporting.stream(campaign, kind))
        assert len(one_each) == 2 and "".join(one_each) == "".join(exporting.stream(campaign, kind))
        monkeypatch.undo()


def test_an_annotator_can_be_asked_for_instead_of_each_judge(judged):
    campaign, _ = judged
    nobody = get_user_model().objects.create_user("nobody")
    text = "".join(exporting.stream(campaign, "paper", annotator=nobody))
    assert "#L" not in text and "wc=" not in text and "### S1 x" not in text
    out, _ = run("export_annotations", "--campaign", "fairweb1", "--format", "jsonl", "--annotator", "nobody")
    assert all("nuggets" not in json.loads(line) for line in out.splitlines())


def test_nuggets_tsv_has_one_row_per_nugget_with_wc_gain_and_memberships(judged):
    campaign, _ = judged
    table = pd.read_csv(io.StringIO("".join(exporting.stream(campaign, "nuggets-tsv"))), sep="\t", keep_default_na=False)
    assert list(table.columns[:12]) == ["topic", "run", "turn", "start", "end", "text", "entity_key", "entity_name", "grade", "gain", "wc", "duplicate"]
    assert {"RATINGS", "RATINGS_evidence", "ORIGIN", "ORIGIN_evidence", "HINDEX", "GENDER"} <= set(table.columns)
    bing = table[table.run == "bing-trial1"]
    assert list(bing.wc) == [35, 39, 43, 46, 51, 91, 96, 99, 104, 107]
    assert list(bing.gain) == [1, 1, 1, 0.5] + [1] * 6
    first = bing.iloc[0]
    assert (first.turn, first.start, first.end, first.entity_key, first.RATINGS, first.ORIGIN_evidence) == (
        "S1", 12, 17, "https://imdb.com/title/tt0088763", "(0,0,0,1)", "United States")
    bard = table[table.run == "bard-trial1"]
    assert len(bard) == 10 and list(bard.grade[:4]) == ["L2", "L0", "L0", "L1"] and not bard.duplicate.any()


def test_a_later_mention_of_an_entity_is_flagged_duplicate(judged, tmp_path):
    campaign, gold = judged
    text = EXAMPLE.read_text().replace("12 Monkeys (1995): https://www.imdb.com/title/tt0114746/", "Back to the Future (1985): https://www.imdb.com/title/tt0088763/")
    text = text.replace("#RATINGS: (0,0,1,0) #634K", "#RATINGS: (0,0,0,1) #1.3M")
    assert import_files(campaign, [("M002-dup.txt", text.encode())], annotator=gold).ok
    table = pd.read_csv(io.StringIO("".join(exporting.stream(campaign, "nuggets-tsv"))), sep="\t", keep_default_na=False)
    dup = table[table.run == "dup"]
    assert list(dup.duplicate) == [False] * 5 + [True] + [False] * 4


def test_qrels_files_follow_ntcireval(judged, tmp_path):
    campaign, _ = judged
    run("export_annotations", "--campaign", "fairweb1", "--format", "qrels", "--output", str(tmp_path / "q"))
    files = {p.name: p.read_text() for p in (tmp_path / "q").iterdir()}
    assert {"fairweb1.qrels", "fairweb1.M-RATINGS.gmemb", "fairweb1.M-ORIGIN.gmemb", "M-RATINGS.golddistr", "M-ORIGIN.golddistr",
            "R-HINDEX.golddistr", "R-GENDER.golddistr", "Y-SUBSCS.golddistr", "T-FOLLOWERS.golddistr"} <= set(files)
    qrels = files["fairweb1.qrels"].splitlines()
    assert len(qrels) == 18  # 10 Bing entities, 8 more from Bard (its BttF and Interstellar are Bing's)
    assert "M002 https://imdb.com/title/tt0088763 L2" in qrels and "M002 https://imdb.com/title/tt0816692 L1" in qrels
    assert "M002 https://imdb.com/title/tt1853739 L0" in qrels
    ratings = {line.split()[1]: line.split()[2:] for line in files["fairweb1.M-RATINGS.gmemb"].splitlines()}
    assert ratings["https://imdb.com/title/tt0088763"] == ["0.0", "0.0", "0.0", "1.0"]
    assert ratings["https://imdb.com/title/tt1853739"] == ["0.25", "0.25", "0.25", "0.25"]  # L0, no membership: uniform
    assert files["M-ORIGIN.golddistr"].split() == ["0.244725738", "0.111814346", "0.008438819", "0.154008439",
                                                   "0.099156118", "0.200421941", "0.080168776", "0.101265823"]


def test_qrels_ids_have_no_spaces():
    assert qrels.qrels_id("name:back to the future (1985)") == "name:back%20to%20the%20future%20(1985)"
    assert qrels.qrels_id("https://imdb.com/title/tt1") == "https://imdb.com/title/tt1"


def test_the_qrels_download_is_a_streamed_zip(judged, tmp_path):
    campaign, _ = judged
    chunks = list(exporting.stream(campaign, "qrels"))
    assert all(isinstance(c, bytes) for c in chunks) and len(chunks) > 3
    archive = zipfile.ZipFile(io.BytesIO(b"".join(chunks)))
    assert archive.read("fairweb1-qrels/fairweb1.qrels").decode().count("\n") == 18
    run("export_annotations", "--campaign", "fairweb1", "--format", "qrels", "--output", str(tmp_path / "q.zip"))
    assert zipfile.ZipFile(tmp_path / "q.zip").namelist() == archive.namelist()


def test_scores_json_holds_the_settings_the_conversations_and_the_run_means(judged):
    campaign, _ = judged
    data = json.loads("".join(exporting.stream(campaign, "scores-json")))
    assert data["settings"] == {"L": 1250, "alpha": 0.5, "method": "independent", "empty_turns": "ignore", "turn_weight": "one",
                                "duplicates_count_once": True, "missing_membership": "uniform", "grades": {"L0": 0.0, "L1": 0.5, "L2": 1.0}}
    rows = {r["run"]: r for r in data["conversations"]}
    # the figure's Bard S1 is a 10-word placeholder for 452 words: its nuggets sit at 66 and 123, not 506 and 560
    assert round(rows["bing-trial1"]["R"], 4) == 0.0143 and round(rows["bard-trial1"]["R"], 4) == 0.0022
    assert round(rows["bard-trial1"]["GF_RATINGS"], 4) == 0.4049 and round(rows["bard-trial1"]["GF_ORIGIN"], 4) == 0.4303
    means = {r["run"]: r for r in data["runs"]}
    assert means["bing-trial1"]["topics"] == 1 and means["bing-trial1"]["R"] == rows["bing-trial1"]["R"]


def test_export_commands_refuse_unknown_campaigns_and_annotators(judged):
    assert refused("export_annotations", "--campaign", "nope", "--format", "paper")[0] == "no campaign 'nope'"
    assert refused("export_annotations", "--campaign", "fairweb1", "--format", "paper", "--annotator", "x")[0] == "no user named 'x'"
    assert refused("export_scores", "--campaign", "nope")[0] == "no campaign 'nope'"


FORGING_TOPIC = "M9 a L0\nM002 evil L2\nM9"


def test_a_topic_id_that_would_forge_an_export_line_is_refused_at_import_by_file_and_line(db):
    from annotator.interchange.formats import parse_paper, write_jsonl
    from tests.commands.helpers import load_fairweb

    load_fairweb()
    campaign = Campaign.objects.get(slug="fairweb1")
    conversation = parse_paper(EXAMPLE.read_text(), "x").conversations[0]
    conversation.topic = FORGING_TOPIC
    result = import_files(campaign, [("forged.jsonl", b"\n" + write_jsonl([conversation]).encode())])
    assert [(e.path, e.line) for e in result.errors] == [("forged.jsonl", 2)]
    assert "line break" in result.errors[0].message
    assert not Topic.objects.filter(code=FORGING_TOPIC).exists()


@pytest.mark.parametrize("kind", ["paper", "qrels", "jsonl"])
def test_a_campaign_holding_such_an_id_from_before_is_refused_whole_not_cut_mid_stream(client, judged, kind):
    campaign, _ = judged
    Topic.objects.filter(campaign=campaign).update(code=FORGING_TOPIC)
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.org", "root-pw-123456"))
    response = client.get(reverse("console:download", kwargs={"slug": campaign.slug, "kind": kind}))
    assert response.status_code == 409
    assert "line break" in response.content.decode()


def test_qrels_write_entity_keys_with_line_breaks_as_one_field():
    assert qrels.qrels_id("name:x\nM002 evil L2") == "name:x%0AM002%20evil%20L2"


def nuggets_tsv_through_pandas(campaign: Campaign) -> str:
    """The nuggets TSV as it was written before it skipped pandas: a frame of row dicts per
    batch through csvsafe.frame_csv (the reference the direct writer must equal byte for byte)."""
    from annotator.interchange.csvsafe import frame_csv
    from annotator.models import AttributeSet
    from annotator.rules.vectors import format_vector

    gains = {g.label: g.gain for g in campaign.grades.all()}
    names: list[str] = []
    for a in AttributeSet.objects.filter(topic_type__campaign=campaign).order_by("topic_type__code", "position", "name"):
        if a.name not in names:
            names.append(a.name)
    columns = ["topic", "run", "turn", "start", "end", "text", "entity_key", "entity_name", "grade", "gain", "wc", "duplicate"]
    for name in names:
        columns += [name, f"{name}_evidence"]
    out, header = [], True
    for batch in batches.conversation_batches(campaign):
        rows = []
        for conversation in batch.conversations:
            parsed = batch.parsed(conversation)
            offsets = parsed.offsets()
            seen: set[str] = set()
            for n in sorted(parsed.nuggets, key=lambda n: parsed.wc(n, offsets)):
                row = {"topic": parsed.topic, "run": parsed.run, "turn": parsed.turns[n.turn].name,
                       "start": n.start_word, "end": n.end_word, "text": n.text, "entity_key": n.entity_key,
                       "entity_name": n.entity_name, "grade": n.grade or "",
                       "gain": gains.get(n.grade, 0.0) if n.grade else 0.0, "wc": parsed.wc(n, offsets),
                       "duplicate": bool(campaign.duplicates_count_once and n.entity_key in seen)}
                seen.add(n.entity_key)
                for name in names:
                    m = n.memberships.get(name)
                    row[name] = format_vector(m.vector) if m else ""
                    row[f"{name}_evidence"] = m.evidence if m else ""
                rows.append(row)
        if rows or header:
            out.append(frame_csv(pd.DataFrame(rows, columns=columns), sep="\t", header=header))
            header = False
    return "".join(out)


def test_the_nuggets_tsv_is_what_pandas_wrote_even_with_odd_cells_and_a_set_named_like_a_column(judged):
    campaign, gold = judged
    from annotator.models import AttributeSet, Grade

    Grade.objects.filter(campaign=campaign, label="L1").update(gain=1 / 3)  # a gain with 16 digits
    entity = Entity.objects.filter(topic__campaign=campaign, annotator=gold).order_by("pk").first()
    Entity.objects.filter(pk=entity.pk).update(name='=HYPERLINK("x")\t"quoted", -1', comment="+c")
    ratings = AttributeSet.objects.get(topic_type__campaign=campaign, topic_type__code="M", name="RATINGS")
    ratings.name = "wc"  # an attribute set whose name is a column's
    ratings.save()
    written = "".join(exporting.stream(campaign, "nuggets-tsv"))
    assert written == nuggets_tsv_through_pandas(campaign)
    assert "0.3333333333333333" in written and "'=HYPERLINK" in written


def _every_export(campaign: Campaign, annotator=None) -> dict[str, object]:
    """Each export's text (the qrels zip: its members, whose timestamps differ run to run)."""
    out: dict[str, object] = {}
    for kind in exporting.KINDS:
        if annotator is not None and kind in ("scores-csv", "scores-json"):
            continue  # the judges' scores only
        chunks = list(exporting.stream(campaign, kind, annotator))
        if kind == "qrels":
            with zipfile.ZipFile(io.BytesIO(b"".join(chunks))) as z:
                out[kind] = {name: z.read(name) for name in z.namelist()}
        else:
            out[kind] = "".join(chunks)
    return out


def test_every_export_is_the_same_whatever_its_batches_cut_through_a_topic(db, monkeypatch):
    from bench.lib.generators import conversation_line
    from tests.factories import make_campaign

    import random

    campaign = make_campaign(slug="batches")
    gold, second = (get_user_model().objects.create_user(name) for name in ("gold", "second"))
    rng = random.Random(7)
    lines = [json.dumps(conversation_line(i, 3, rng)) for i in range(12)]  # 3 topics x 4 runs
    assert import_files(campaign, [("a.jsonl", "\n".join(lines).encode())], annotator=gold).ok
    assert import_files(campaign, [("b.jsonl", "\n".join(lines[:5]).encode())], annotator=second).ok
    whole = _every_export(campaign), _every_export(campaign, second)
    assert "M001" in whole[0]["paper"] and "#L" in whole[1]["paper"]
    monkeypatch.setattr(batches, "BATCH", 5)  # batches of 5 conversations: 4 + 1, 3 + 2, 2
    monkeypatch.setattr(batches, "POSTGRESQL_BATCH", 5)
    assert (_every_export(campaign), _every_export(campaign, second)) == whole
