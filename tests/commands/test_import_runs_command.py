"""import_runs: TREC run files become ranked-list runs, in file order, all or nothing."""

from __future__ import annotations

import pytest

from annotator.interchange.imports.ranked_runs import stored_lists
from annotator.models import Campaign, RankedList, Run

from .helpers import refused, row_counts, run, write
from .pilot import PILOT_CAMPAIGN, RUN_FILES

pytestmark = pytest.mark.django_db


def _load() -> None:
    run("load_campaign", str(PILOT_CAMPAIGN))


def test_the_pilot_runs_import_under_their_tags_whatever_the_file_names():
    _load()
    out, err = run("import_runs", "--campaign", "fairweb1pilot", *map(str, RUN_FILES))
    assert err == ""
    assert out.strip() == ("run Anserini-bm25: 4 topic(s), 400 document(s); run Anserini-qld: 4 topic(s), 400 document(s); "
                           "run Anserini-qljm: 4 topic(s), 400 document(s)")
    assert sorted(Run.objects.values_list("name", "kind")) == [
        ("Anserini-bm25", "ranked_lists"), ("Anserini-qld", "ranked_lists"), ("Anserini-qljm", "ranked_lists")]
    first = stored_lists(Run.objects.get(name="Anserini-bm25"))["P001"][0]
    assert first == ("d40ba8f7-7f55-4118-8e7a-cfdcdd8598fc", 1, 7.6957)
    assert RankedList.objects.count() == 3 * 4  # one row per run and topic


def test_the_list_is_the_files_order_with_a_warning_where_ranks_or_scores_disagree(tmp_path):
    _load()
    path = write(tmp_path, "r.txt", "P001 Q0 a 2 5.0 sys\nP001 Q0 b 1 6.0 sys\nP002 Q0 c 1 1.0 sys\n")
    out, err = run("import_runs", "--campaign", "fairweb1pilot", "--name", "mine", path)
    assert err.splitlines() == [f"warning: {path}:2: P001: the rank disagrees with the file's order (line 1); "
                                "the list is scored in the file's order, as NTCIREVAL does"]
    assert [(d, r) for d, r, _ in stored_lists(Run.objects.get(name="mine"))["P001"]] == [("a", 2), ("b", 1)]
    assert out.strip() == "run mine: 2 topic(s), 3 document(s)"


def test_importing_a_run_again_replaces_its_lists(tmp_path):
    _load()
    run("import_runs", "--campaign", "fairweb1pilot", write(tmp_path, "a", "P001 Q0 a 1 2 sys\nP001 Q0 b 2 1 sys\n"))
    out, _ = run("import_runs", "--campaign", "fairweb1pilot", write(tmp_path, "b", "P002 Q0 z 1 2 sys\n"))
    assert out.strip() == "run sys: 1 topic(s), 1 document(s) (replaced)"
    assert stored_lists(Run.objects.get(name="sys")) == {"P002": [("z", 1, 2.0)]}


def test_duplicate_documents_unknown_topics_and_bad_lines_are_refused_with_file_and_line(tmp_path):
    _load()
    run("import_runs", "--campaign", "fairweb1pilot", write(tmp_path, "keep", "P001 Q0 a 1 2 kept\n"))
    bad = write(tmp_path, "bad", "P001 Q0 a 1 2 x\nP001 Q0 a 2 1 x\nZ9 Q0 b 1 1 x\nZ9 Q0 c 2 1 x\nP001 Q0 d one 1 x\n"
                                 "P001 Q0 http://example.org/p 3 1 x\nP001 Q0 https://EXAMPLE.org/p/ 4 1 x\nP001 Q0 e 5 1 y\n")
    before = row_counts()
    message, err = refused("import_runs", "--campaign", "fairweb1pilot", bad)
    assert message == "5 problem(s): nothing was imported"
    assert err.splitlines() == [
        f"{bad}:2: a is ranked twice for P001 (first at line 1)",
        f"{bad}:5: the rank 'one' is not a whole number",
        f"{bad}:8: a second run tag 'y' (the file's is 'x'): one run a file",
        f"{bad}:3: no topic 'Z9' in the campaign",
        f"{bad}:7: https://EXAMPLE.org/p/ is the page ranked at line 6 for P001",
    ]
    assert row_counts() == before


def test_a_conversation_run_is_not_replaced_by_a_ranked_list(tmp_path):
    _load()
    Run.objects.create(campaign=Campaign.objects.get(), name="bing-trial1")
    message, err = refused("import_runs", "--campaign", "fairweb1pilot", write(tmp_path, "r", "P001 Q0 a 1 1 bing-trial1\n"))
    assert "is a conversation run" in err and message == "1 problem(s): nothing was imported"


@pytest.mark.parametrize("name", ["mine\n", "mi\x07ne"])
def test_a_run_name_that_would_forge_an_export_line_is_refused(tmp_path, name):
    from annotator.interchange.imports.ranked_runs import import_runs

    _load()
    result = import_runs(Campaign.objects.get(slug="fairweb1pilot"),
                         [("r.txt", b"P001 Q0 a 1 5.0 sys\n")], name=name)
    assert [e.message for e in result.errors] == [
        f"run id {name!r} holds a line break or a control character: it cannot name a run (at most 100 characters, no spaces)"]
    assert not Run.objects.filter(name=name).exists()


def test_a_file_that_cannot_be_read_is_refused_before_any_run_is_imported(tmp_path):
    _load()
    good = write(tmp_path, "a", "P001 Q0 a 1 2 sys\n")
    missing = str(tmp_path / "missing")
    before = row_counts()
    message, _ = refused("import_runs", "--campaign", "fairweb1pilot", good, missing)
    assert message == f"{missing}: No such file or directory"
    assert row_counts() == before


def test_runs_written_in_batches_are_all_rolled_back_by_a_bad_line_in_a_later_file(tmp_path, monkeypatch):
    monkeypatch.setattr("annotator.interchange.imports.rows.BATCH", 2)  # the first run is three executemany batches
    _load()
    first = write(tmp_path, "a", "".join(f"P001 Q0 d{i} {i} {10 - i} one\n" for i in range(1, 6)))
    second = write(tmp_path, "b", "P001 Q0 x 1 2 two\nP001 Q0 y 2 1 two\nP001 Q0 x 3 0 two\n")
    before = row_counts()
    message, err = refused("import_runs", "--campaign", "fairweb1pilot", first, second)
    assert err.splitlines() == [f"{second}:3: x is ranked twice for P001 (first at line 1)"]
    assert row_counts() == before
    out, _ = run("import_runs", "--campaign", "fairweb1pilot", first)
    assert out.strip() == "run one: 1 topic(s), 5 document(s)"
    assert stored_lists(Run.objects.get(name="one")) == {"P001": [(f"d{i}", i, 10.0 - i) for i in range(1, 6)]}
