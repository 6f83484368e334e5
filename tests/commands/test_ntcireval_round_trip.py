"""The pilot pack through import_ntcireval and export_annotations --format qrels gives back the
same files, document ids unchanged: the official scorer can be run on the app's export."""

from __future__ import annotations

import pytest

from .helpers import run
from .pilot import GMEMB, PILOT, QRELS, load_pilot

pytestmark = pytest.mark.django_db


def test_importing_the_pilot_pack_and_exporting_it_gives_back_the_same_qrels_memberships_and_targets(tmp_path):
    load_pilot(runs=False)
    run("export_annotations", "--campaign", "fairweb1pilot", "--format", "qrels", "--output", str(tmp_path / "out"))
    out = tmp_path / "out"
    assert (out / QRELS.name).read_text() == QRELS.read_text()
    for path in GMEMB:
        assert (out / path.name).read_text() == path.read_text(), path.name
    for path in PILOT.glob("*.golddistr"):
        assert [float(x) for x in (out / path.name).read_text().split()] == [float(x) for x in path.read_text().split()]


def test_the_runs_imported_beside_do_not_change_the_exported_judgments(tmp_path):
    load_pilot(runs=True)
    run("export_annotations", "--campaign", "fairweb1pilot", "--format", "qrels", "--output", str(tmp_path / "out"))
    assert (tmp_path / "out" / QRELS.name).read_text() == QRELS.read_text()
