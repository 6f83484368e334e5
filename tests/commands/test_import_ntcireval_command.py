"""import_ntcireval: NTCIREVAL qrels and memberships become graded entities, all or nothing."""

from __future__ import annotations

import pytest

from annotator.judgments import edits
from annotator.models import AnnotationEvent, AttributeSet, Entity, Membership
from tests.factories import make_user

from .helpers import refused, row_counts, run, write
from .pilot import GMEMB, PILOT_CAMPAIGN, QRELS

pytestmark = pytest.mark.django_db


def _load() -> None:
    run("load_campaign", str(PILOT_CAMPAIGN))


def test_the_pilot_pack_imports_every_judged_document_as_a_graded_entity_with_its_memberships():
    _load()
    out, err = run("import_ntcireval", "--campaign", "fairweb1pilot", str(QRELS), *map(str, GMEMB))
    assert err == ""
    assert out.strip() == "393 judged document(s) and 572 membership(s) imported for gold: 393 new and 0 updated entities"
    entity = Entity.objects.get(topic__code="P001", key="03fcec7a-9666-41f0-9419-6f4bdd7b95c3")
    assert (entity.name, entity.grade.label) == ("03fcec7a-9666-41f0-9419-6f4bdd7b95c3", "L2")
    vectors = {m.attribute_set.name: m.vector for m in entity.memberships.all()}
    assert vectors == {"GENDER": [0.0, 1.0, 0.0], "HINDEX": [0.0, 0.0, 0.6666666666666666, 0.3333333333333333]}
    assert AnnotationEvent.objects.filter(imported=True).count() == 393 + 572


def test_importing_again_changes_nothing_and_a_changed_level_updates_the_entity(tmp_path):
    _load()
    reviewer = make_user("reviewer")
    run("import_ntcireval", "--campaign", "fairweb1pilot", "--annotator", "reviewer", str(QRELS))
    before = row_counts()
    out, _ = run("import_ntcireval", "--campaign", "fairweb1pilot", "--annotator", "reviewer", str(QRELS))
    assert "0 new and 0 updated entities" in out and row_counts()["Entity"] == before["Entity"]
    changed = write(tmp_path, "x.qrels", "P001 03fcec7a-9666-41f0-9419-6f4bdd7b95c3 L1\n")
    out, _ = run("import_ntcireval", "--campaign", "fairweb1pilot", "--annotator", "reviewer", changed)
    assert "0 new and 1 updated entities" in out
    assert Entity.objects.get(annotator=reviewer, key="03fcec7a-9666-41f0-9419-6f4bdd7b95c3").grade.label == "L1"


def test_a_url_document_is_keyed_by_its_normalised_url_and_keeps_its_id_as_name(tmp_path):
    _load()
    qrels = write(tmp_path, "web.qrels", "P001 http://WWW.Example.org/page/ L1\n")
    run("import_ntcireval", "--campaign", "fairweb1pilot", qrels)
    entity = Entity.objects.get()
    assert (entity.key, entity.name) == ("https://example.org/page", "http://WWW.Example.org/page/")


def test_every_problem_is_listed_with_file_and_line_and_nothing_is_imported(tmp_path):
    _load()
    qrels = write(tmp_path, "bad.qrels", "P001 a L1\nZ999 b L1\nP001 c L7\nP001 d\nP001 a L2\n")
    gmemb = write(tmp_path, "x.R-GENDER.gmemb", "P001 a 0.5 0.5\nP002 e 1 0 0\nP001 f 0.5 0.6 0\n")
    unknown_set = write(tmp_path, "x.R-AGE.gmemb", "P001 a 1\n")
    before = row_counts()
    message, err = refused("import_ntcireval", "--campaign", "fairweb1pilot", qrels, gmemb, unknown_set)
    assert message == "8 problem(s): nothing was imported"
    assert err.splitlines() == [
        f"{qrels}:4: expected `topic doc Lk`, found 2 fields",
        f"{qrels}:5: P001 a is judged twice (first at line 1)",
        f"{qrels}:2: no topic 'Z999' in campaign fairweb1pilot",
        f"{qrels}:3: no grade L7 in campaign fairweb1pilot (L0, L1, L2)",
        f"{gmemb}:1: GENDER has 3 groups: the vector has 2 values",
        f"{gmemb}:3: the membership vector: sums to 1.1, not 1",
        f"{gmemb}:2: topic P002 is of type M, not R: it has no GENDER memberships",
        f"{unknown_set}: no attribute set AGE in topic type R",
    ]
    assert row_counts() == before


def test_a_membership_without_a_qrels_line_is_an_ungraded_entity_that_still_counts_as_a_document(tmp_path):
    _load()
    gmemb = write(tmp_path, "x.R-GENDER.gmemb", "P001 unjudged 1 0 0\n")
    run("import_ntcireval", "--campaign", "fairweb1pilot", gmemb)
    entity = Entity.objects.get()
    assert entity.grade is None and Membership.objects.get(entity=entity).vector == [1.0, 0.0, 0.0]


def test_a_changed_membership_moves_the_entitys_version_on_so_a_stale_workspace_edit_is_refused(tmp_path):
    _load()
    qrels = write(tmp_path, "q.qrels", "P001 a L1\n")
    run("import_ntcireval", "--campaign", "fairweb1pilot", qrels, write(tmp_path, "x.R-GENDER.gmemb", "P001 a 1 0 0\n"))
    version = Entity.objects.get().version
    out, _ = run("import_ntcireval", "--campaign", "fairweb1pilot", qrels, write(tmp_path, "y.R-GENDER.gmemb", "P001 a 0 1 0\n"))
    assert "0 new and 1 updated entities" in out
    entity = Entity.objects.get()
    assert entity.version == version + 1 and Membership.objects.get().vector == [0.0, 1.0, 0.0]
    assert AnnotationEvent.objects.filter(kind="membership", action="update").count() == 1
    gender = AttributeSet.objects.get(name="GENDER")
    with pytest.raises(edits.StaleEdit):
        edits.set_membership(entity, gender, actor=entity.annotator, expected_version=version, vector=[0, 0, 1])
    assert Membership.objects.get().vector == [0.0, 1.0, 0.0]


def _history() -> list[tuple]:
    return sorted((e.kind, e.action, e.object_id, e.topic.code, e.before, e.after, e.imported, e.annotator.username)
                  for e in AnnotationEvent.objects.select_related("topic", "annotator"))


def test_every_imported_judgment_has_one_history_event_with_its_state_before_and_after_in_batches_of_any_size(tmp_path, monkeypatch):
    monkeypatch.setattr("annotator.interchange.imports.ntcireval.LOOKUP", 2)  # a topic's documents written two at a time
    _load()
    qrels = write(tmp_path, "q.qrels", "P001 a L1\nP001 b L0\nP001 c L2\nP002 m L1\n")
    gmemb = write(tmp_path, "x.R-GENDER.gmemb", "P001 a 1 0 0\nP001 b 1/3 1/3 1/3\nP001 d 0 0 1\n")
    run("import_ntcireval", "--campaign", "fairweb1pilot", qrels, gmemb)
    entities = {e.key: e for e in Entity.objects.all()}
    memberships = {m.entity.key: m for m in Membership.objects.select_related("entity")}
    grade = {e.key: e.grade_id for e in entities.values()}
    assert _history() == sorted(
        [("entity", "create", e.pk, e.topic.code, None, edits.entity_state(e), True, "gold") for e in entities.values()]
        + [("membership", "create", m.pk, "P001", None, edits.membership_state(m), True, "gold") for m in memberships.values()]
    )
    assert memberships["b"].vector == [1 / 3] * 3 and grade["d"] is None

    AnnotationEvent.objects.all().delete()
    qrels = write(tmp_path, "q2.qrels", "P001 a L1\nP001 b L2\nP001 c L2\nP002 m L1\nP001 e L0\n")
    gmemb = write(tmp_path, "y.R-GENDER.gmemb", "P001 a 0 1 0\nP001 b 1/3 1/3 1/3\nP001 d 0 0 1\n")
    out, _ = run("import_ntcireval", "--campaign", "fairweb1pilot", qrels, gmemb)
    assert out.strip().endswith("1 new and 2 updated entities")
    b, a, e = (Entity.objects.get(key=key) for key in "bae")
    assert (b.version, a.version, entities["c"].version) == (2, 2, 1)
    assert _history() == sorted([
        ("entity", "create", e.pk, "P001", None, edits.entity_state(e), True, "gold"),
        ("entity", "update", b.pk, "P001", {**edits.entity_state(b), "grade": grade["b"]}, edits.entity_state(b), True, "gold"),
        ("membership", "update", memberships["a"].pk, "P001", edits.membership_state(memberships["a"]),
         {**edits.membership_state(memberships["a"]), "vector": [0.0, 1.0, 0.0]}, True, "gold"),
    ])
