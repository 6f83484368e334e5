"""How many lines of the application (annotator/, scoring/) one save and one page execute.

Distinct lines run, counted by coverage.py, for the request a save is (the nugget POST; with
--two-request, the POST and the score panel GET its HX-Trigger asked for, as saves were before
issue 12) and for the conversation page, on the 300-nugget conversation of bench_http.py. A
measure of how much code a newcomer reads to follow a save, not of time: a loop counts once.
Run it from the checkout to count (e.g. a worktree of an older commit, with this file copied in).

    .venv/bin/pip install coverage django-coverage-plugin   (not needed by the product)
    .venv/bin/python bench/count_save_lines.py now [--two-request] [--templates]
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
LABEL = sys.argv[1]
TWO = "--two-request" in sys.argv
TEMPLATES = "--templates" in sys.argv  # also Django templates (django_coverage_plugin; template debug on)

import coverage  # noqa: E402

# Same trial settings in both versions (the "before" bench_database does not set them all).
os.environ.update(SECURE_SSL_REDIRECT="0", SESSION_COOKIE_SECURE="0", CSRF_COOKIE_SECURE="0")
os.environ.setdefault("STATIC_ROOT", tempfile.mkdtemp(prefix="lines-static-"))

from bench.common import (  # noqa: E402
    bench_database, make_annotator, make_campaign_with, seed_conversation, spare_span, write_result,
)


def counts(cov: coverage.Coverage) -> dict:
    data = cov.get_data()
    files = {}
    for f in sorted(data.measured_files()):
        n = len(data.lines(f) or [])
        if n:
            files[str(Path(f).relative_to(ROOT))] = n
    return {"files": files, "total": sum(files.values())}


def measure(fn):
    source = [str(ROOT / "annotator"), str(ROOT / "scoring")]
    if TEMPLATES:
        source.append(str(ROOT / "templates"))
    cov = coverage.Coverage(source=source, branch=False, data_file=None, config_file=False)
    if TEMPLATES:
        cov.set_option("run:plugins", ["django_coverage_plugin"])
    cov.start()
    try:
        out = fn()
    finally:
        cov.stop()
    return out, counts(cov)


with bench_database():
    import annotator
    import django.test
    from django.core.management import call_command

    if TEMPLATES:  # before any template engine is built: the plugin needs template debug
        from django.conf import settings
        settings.TEMPLATES[0].setdefault("OPTIONS", {})["debug"] = True
    assert Path(annotator.__file__).resolve().is_relative_to(ROOT), annotator.__file__
    call_command("collectstatic", "--noinput", verbosity=0)
    from annotator.models import Nugget

    campaign = make_campaign_with("lines")
    user = make_annotator("lines-annotator")
    conv = seed_conversation(campaign, user, nuggets=300, run="r")
    turn, start, end = spare_span(conv, 300)

    client = django.test.Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    page_url = f"/conversations/{conv.pk}/"
    save_url = f"/conversations/{conv.pk}/nuggets/"
    score_url = f"/conversations/{conv.pk}/score/"
    payload = {"turn": turn.pk, "start": start, "end": end}
    htmx = {"HX-Request": "true"}

    def save():
        return client.post(save_url, payload, headers=htmx)

    def panel():
        return client.get(score_url, headers=htmx)

    # -- warm-up: page, save + panel, delete -------------------------------------------------
    r = client.get(page_url)
    assert r.status_code == 200, r.status_code
    r = save()
    assert r.status_code == 200, r.status_code
    warm_trigger = r.headers.get("HX-Trigger")
    if TWO:
        assert panel().status_code == 200
    nugget = Nugget.objects.get(turn=turn, start_word=start, end_word=end)
    r = client.post(f"/conversations/{conv.pk}/nuggets/{nugget.pk}/delete/", {"version": nugget.version},
                    headers=htmx)
    assert r.status_code == 200, r.status_code
    assert not Nugget.objects.filter(pk=nugget.pk).exists()
    if TWO:
        assert panel().status_code == 200

    result = {"root": str(ROOT), "annotator_file": annotator.__file__, "warm_save_hx_trigger": warm_trigger}

    # -- measured: one save ----------------------------------------------------------------
    if TWO:
        def both():
            a = save()
            b = panel()
            return a, b
        (a, b), result["save"] = measure(both)
        assert a.status_code == 200 and b.status_code == 200, (a.status_code, b.status_code)
        result["save_hx_trigger"] = a.headers.get("HX-Trigger")
        # POST alone: delete the nugget again (unmeasured), then measure only the POST
        nugget = Nugget.objects.get(turn=turn, start_word=start, end_word=end)
        client.post(f"/conversations/{conv.pk}/nuggets/{nugget.pk}/delete/", {"version": nugget.version},
                    headers=htmx)
        panel()
        a, result["save_post_only"] = measure(save)
        assert a.status_code == 200, a.status_code
        _, result["panel_only"] = measure(panel)  # the GET alone, after that POST
    else:
        a, result["save"] = measure(save)
        assert a.status_code == 200, a.status_code
        result["save_hx_trigger"] = a.headers.get("HX-Trigger")
    assert Nugget.objects.filter(turn=turn, start_word=start, end_word=end).exists()

    # -- measured: one page GET -----------------------------------------------------------
    r, result["page"] = measure(lambda: client.get(page_url))
    assert r.status_code == 200, r.status_code

out = write_result(f"lines-{LABEL}{'-templates' if TEMPLATES else ''}", result)
for key in ("save", "save_post_only", "panel_only", "page"):
    if key in result:
        print(f"== {key}: total {result[key]['total']}")
        for f, n in result[key]["files"].items():
            print(f"   {n:5d}  {f}")
print(f"(raw: {out})")
