"""import_runs numbers a whole file at once (pyarrow and numpy): what it stores is what numbering
each list's keys one by one gives, in the lists' order, whatever the file's layout."""

from __future__ import annotations

import numpy as np
import pytest

from annotator.interchange.imports.ranked_runs import import_runs, stored_lists
from annotator.models import Campaign, Entity, RankedList, Run, TopicDocument
from tests.commands.pilot import load_pilot

pytestmark = pytest.mark.django_db


@pytest.fixture
def pilot() -> Campaign:
    load_pilot(runs=False)
    return Campaign.objects.get(slug="fairweb1pilot")


def _judged(code: str) -> list[str]:
    return sorted(set(Entity.objects.filter(topic__code=code).values_list("key", flat=True)))


def _stored(run: str, code: str) -> tuple[list[int], str]:
    row = RankedList.objects.get(run__name=run, topic__code=code)
    return np.frombuffer(bytes(row.documents), dtype="<i4").tolist(), row.unjudged


def _numbers(code: str) -> dict[str, int]:
    return dict(TopicDocument.objects.filter(topic__code=code).values_list("key", "number"))


def test_a_key_is_numbered_in_its_topic_in_the_order_lists_first_rank_it_and_unjudged_elsewhere(pilot):
    j1, j2, j3 = [k for k in _judged("P001") if k not in set(_judged("P002"))][:3]
    k1 = _judged("P002")[0]
    interleaved = (f"P001 Q0 u1 1 3 a\nP001 Q0 {j2} 2 2 a\nP002 Q0 {j1} 1 5 a\n"
                   f"P001 Q0 {j1} 3 1 a\nP002 Q0 {k1} 2 4 a\n").encode()
    second = f"P001 Q0 {j3} 1 1 b\nP001 Q0 {j1} 2 0 b\nP001 Q0 u2 3 0 b\nP001 Q0 u1 4 0 b\n".encode()
    result = import_runs(pilot, [("a", interleaved), ("b", second)])
    assert not result.errors and not result.warnings
    assert _numbers("P001") == {j2: 0, j1: 1, j3: 2} and _numbers("P002") == {k1: 0}
    assert _stored("a", "P001") == ([-1, 0, 1], "u1")
    assert _stored("a", "P002") == ([-1, 0], j1)  # judged for P001, not for P002
    assert _stored("b", "P001") == ([2, 1, -1, -2], "u2\nu1")
    # a later import goes on from the numbers stored
    assert not import_runs(pilot, [("c", f"P001 Q0 {j3} 1 1 c\nP001 Q0 {_judged('P001')[-1]} 2 0 c\n".encode())]).errors
    assert _stored("c", "P001") == ([2, 3], "")
    assert stored_lists(Run.objects.get(name="b"))["P001"] == [(j3, 1, 1.0), (j1, 2, 0.0), ("u2", 3, 0.0), ("u1", 4, 0.0)]


def test_a_url_id_is_numbered_as_the_page_it_names_and_a_file_without_urls_keeps_its_ids(pilot):
    entity = Entity.objects.filter(topic__code="P001").first()  # the pilot has no URL keys: one is judged here
    Entity.objects.filter(pk=entity.pk).update(key="https://example.org/page")
    data = b"P001 Q0 HTTPS://WWW.example.org/page/ 1 2 w\nP001 Q0 www-not-a-url 2 1 w\n"
    assert not import_runs(pilot, [("w", data)]).errors
    assert _numbers("P001") == {"https://example.org/page": 0}
    assert _stored("w", "P001") == ([0, -1], "www-not-a-url")


def test_a_key_judged_for_two_topics_is_numbered_in_each_and_numbers_carry_over_imports(pilot):
    shared, other = [k for k in _judged("P001") if k not in set(_judged("P002"))][:2]
    moved = Entity.objects.filter(topic__code="P002").order_by("key").first()
    Entity.objects.filter(pk=moved.pk).update(key=shared)  # `shared` is judged for P001 and P002 now
    first = f"P002 Q0 {shared} 1 2 a\nP001 Q0 {other} 1 2 a\nP001 Q0 {shared} 2 1 a\n".encode()
    assert not import_runs(pilot, [("a", first)]).errors
    assert _numbers("P001") == {other: 0, shared: 1} and _numbers("P002") == {shared: 0}
    assert _stored("a", "P001") == ([0, 1], "") and _stored("a", "P002") == ([0], "")
    again = f"P001 Q0 {shared} 1 2 b\nP002 Q0 {shared} 1 2 b\nP002 Q0 {other} 2 1 b\n".encode()
    assert not import_runs(pilot, [("b", again)]).errors
    assert _stored("b", "P001") == ([1], "") and _stored("b", "P002") == ([0, -1], other)


@pytest.mark.parametrize("files_at_once", [1, 2, 8])
def test_files_looked_up_together_are_numbered_as_one_at_a_time_and_each_problem_comes_in_file_order(
        pilot, monkeypatch, files_at_once):
    monkeypatch.setattr("annotator.interchange.imports.ranked_runs._FILES_AT_ONCE", files_at_once)
    j1, j2 = _judged("P001")[:2]
    k1 = _judged("P002")[0]
    files = [("a", f"P001 Q0 {j2} 1 2 a\nP001 Q0 {j1} 2 1 a\nP002 Q0 {j1} 1 1 a\n".encode()),
             ("b", f"P001 Q0 u 1 2 b\nP001 Q0 {j1} 2 1 b\nP002 Q0 {k1} 1 1 b\nP002 Q0 u 2 0 b\n".encode()),
             ("c", f"P002 Q0 {k1} 1 2 c\nP001 Q0 {j2} 1 1 c\n".encode())]
    assert not import_runs(pilot, files).errors
    assert _numbers("P001") == {j2: 0, j1: 1} and _numbers("P002") == {k1: 0}
    assert _stored("b", "P001") == ([-1, 1], "u") and _stored("b", "P002") == ([0, -1], "u")
    assert _stored("c", "P001") == ([0], "") and _stored("c", "P002") == ([0], "")
    # a page twice for a topic (an id twice, or two URLs of one page) is read line by line, where it is
    bad = [("d", f"P001 Q0 {j1} 1 2 d\nP002 Q0 {j1} 1 1 d\n".encode()),  # twice in the file, once a topic: sound
           ("e", b"P001 Q0 x 1 2 e\nP002 Q0 y 1 1 e\nP001 Q0 x 2 0 e\n"),
           ("f", b"Z9 Q0 x 1 1 f\n"),
           ("g", b"P001 Q0 http://example.org/p 1 2 g\nP001 Q0 https://EXAMPLE.org/p/ 2 1 g\n"),
           ("h", b"P001 Q0 x 1 1 d\n")]
    result = import_runs(pilot, bad)
    assert [(e.path, e.line, e.message) for e in result.errors] == [
        ("e", 3, "x is ranked twice for P001 (first at line 1)"),
        ("f", 1, "no topic 'Z9' in the campaign"),
        ("g", 2, "https://EXAMPLE.org/p/ is the page ranked at line 1 for P001"),
        ("h", 0, "run d is also in d")]
    assert not Run.objects.filter(name__in=["d", "e", "f", "g"]).exists()
