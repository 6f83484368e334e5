"""The FairWeb-1 pilot pack (fixtures/fairweb1-pilot/) loaded through the commands, shared by
the ranked-list command tests."""

from __future__ import annotations

from .helpers import ROOT, run

PILOT = ROOT / "fixtures" / "fairweb1-pilot"
PILOT_CAMPAIGN = ROOT / "fixtures" / "fairweb1-pilot-campaign.json"
QRELS = PILOT / "fairweb1pilot.qrels"
GMEMB = sorted(PILOT.glob("*.gmemb"))
RUN_FILES = [PILOT / "run.bm25-depThre6.bm25-depThre6", PILOT / "run.qld-depThre6.qld-depThre6", PILOT / "run.qljm-depThre6"]


def load_pilot(*, runs: bool = True) -> None:
    run("load_campaign", str(PILOT_CAMPAIGN))
    run("import_ntcireval", "--campaign", "fairweb1pilot", str(QRELS), *map(str, GMEMB))
    if runs:
        run("import_runs", "--campaign", "fairweb1pilot", *map(str, RUN_FILES))
