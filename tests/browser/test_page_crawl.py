"""Every page as a person sees it: on the demo campaign (`load_demo`), as each demo user and as a
superuser, a crawl of every page reachable from the navigation (one page of each shape: the
workspace once, with a nugget selected once, each console tab and sub-page, the adjudication
page of a conversation with three annotators, a background import's job page, the API docs).

Each page, in Chromium: status 200; no template syntax in its visible text (`{#`, `#}`, `{%`,
`{{`: a broken comment or tag shows as text); no console error, no failed request; no element
wider than the viewport at 1280x800 and at 1920x1080 (outside a box that scrolls it); and
axe-core (vendored from npm for the tests only: tests/browser/vendor/, never served) reports no
critical or serious violation, which includes every control having an accessible name (axe's
button-name, input-button-name, label, link-name, select-name, aria-*-name rules). A
screenshot of each page goes to test-results/crawl/.

The API docs page is Swagger UI's (vendored): the project controls its template (language,
title, landmark, icon; templates/drf_spectacular/swagger_ui.html); what Swagger UI renders
inside #swagger-ui is that project's, and SWAGGER_UI_RULES names the axe rules left to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotator.interchange.imports import jobs as import_jobs
from annotator.models import Conversation

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "tests" / "browser" / "vendor" / "axe-core-4.14.1.min.js"
SHOTS = ROOT / "test-results" / "crawl"
VIEWPORTS = [(1280, 800), (1920, 1080)]
TEMPLATE_SYNTAX = ("{#", "#}", "{%", "{{")
# What the crawl does not follow: leaving, the admin (Django's own pages), files to download
# (CSV, JSON, SVG/PNG plots, exports), the schema (JSON), and forms' side effects (never links).
NOT_PAGES = re.compile(r"/accounts/logout|/admin/|\.(csv|json|svg|png|tsv|txt|jsonl|zip)$|/exports/[^/]+/$|/api/schema/")
# Swagger UI's own markup inside #swagger-ui (vendored, not the project's): its buttons inside
# buttons (the operation summary holds the copy and lock buttons), its grey-on-grey labels and
# method badges. Reported upstream as swagger-api/swagger-ui accessibility issues; left to it.
SWAGGER_UI_RULES = {"nested-interactive", "color-contrast"}

OVERFLOW = """(width) => {
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= width + 1) continue;
    let clipped = false;  // inside a box that scrolls or clips it, itself within the viewport
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX !== 'visible' && a.getBoundingClientRect().right <= width + 1) { clipped = true; break; }
    }
    if (!clipped) wide.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' right=' + Math.round(r.right));
  }
  return wide.slice(0, 5);
}"""


AXE_RUN = """async () => (await axe.run(document, {resultTypes: ['violations']})).violations.map(v => ({
  id: v.id, impact: v.impact,
  nodes: v.nodes.map(n => ({target: n.target.join(' '),
                            swagger: !!(document.querySelector(n.target[0]) || {closest: () => null}).closest('#swagger-ui')}))}))"""


def shape(url: str) -> str:
    """A page's kind: its path with ids as N, and its query's keys."""
    parts = urlsplit(url)
    keys = sorted(parse_qs(parts.query))
    return re.sub(r"\d+", "N", parts.path) + ("?" + "&".join(keys) if keys else "")


@dataclass
class Crawl:
    base: str
    problems: list[str] = field(default_factory=list)
    pages: list[str] = field(default_factory=list)


def links_of(page, base: str) -> list[str]:
    hrefs = page.eval_on_selector_all("a[href]:not([download])", "nodes => nodes.map(n => n.href)")
    found = []
    for href in hrefs:
        href = href.split("#", 1)[0]
        if href.startswith(base) and not NOT_PAGES.search(urlsplit(href).path):
            found.append(href)
    return found


def check_page(page, url: str, who: str, crawl: Crawl, events: list[str]) -> bool:
    """Open `url` and check it; False when it is no HTML page to crawl on."""
    events.clear()
    page.set_viewport_size({"width": VIEWPORTS[0][0], "height": VIEWPORTS[0][1]})
    response = page.goto(url)  # "load": the page and its files; then htmx's own requests, if any, settle
    page.wait_for_function("!document.querySelector('.htmx-request')")
    where = f"{who} {url.removeprefix(crawl.base)}"
    if response is None or response.status != 200:
        crawl.problems.append(f"{where}: status {response and response.status}")
        return False
    if "text/html" not in (response.headers.get("content-type") or ""):
        return False
    crawl.pages.append(where)
    if "/api/docs/" in url:
        page.locator(".swagger-ui .info").wait_for()
    text = page.inner_text("body")
    for syntax in TEMPLATE_SYNTAX:
        if syntax in text:
            at = text.index(syntax)
            crawl.problems.append(f"{where}: template syntax in the text: {text[max(0, at - 40):at + 60]!r}")
    for width, height in VIEWPORTS:
        page.set_viewport_size({"width": width, "height": height})
        wide = page.evaluate(OVERFLOW, width)
        if wide:
            crawl.problems.append(f"{where}: wider than {width}x{height}: {wide}")
    page.set_viewport_size({"width": VIEWPORTS[0][0], "height": VIEWPORTS[0][1]})
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(AXE_RUN)
    for violation in result:
        if violation["impact"] not in ("critical", "serious"):
            continue
        nodes = [n["target"] for n in violation["nodes"]
                 if not ("/api/docs/" in url and violation["id"] in SWAGGER_UI_RULES and n["swagger"])]
        if not nodes:
            continue
        crawl.problems.append(f"{where}: axe {violation['id']} ({violation['impact']}): {nodes[:4]}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9]+", "_", f"{who}_{shape(url)}").strip("_")
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    if events:
        crawl.problems.extend(f"{where}: {event}" for event in events)
    return True


def crawl_as(page, crawl: Crawl, who: str, seeds: list[str]) -> None:
    events: list[str] = []
    page.on("console", lambda m: events.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: events.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: events.append(f"request failed: {r.url} {r.failure}"))
    page.on("response", lambda r: events.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    seen: set[str] = set()
    queue = [crawl.base + "/"] + [crawl.base + s for s in seeds]
    while queue:
        url = queue.pop(0)
        if shape(url) in seen:
            continue
        seen.add(shape(url))
        if check_page(page, url, who, crawl, events) and "/api/docs/" not in url:
            queue.extend(u for u in links_of(page, crawl.base) if shape(u) not in seen)


@pytest.fixture
def demo(db):
    call_command("load_demo", stdout=open("/dev/null", "w"))
    get_user_model().objects.create_superuser("root", "root@example.org", "root-pw")
    three = Conversation.objects.get(topic__code="M001", run__name="chatgpt-trial1")
    paper = Conversation.objects.get(topic__code="M002", run__name="bing-trial1")
    # a background import, run here: its job page
    data = (ROOT / "fixtures" / "demo" / "harvests" / "M001-bing.json").read_bytes()
    job = import_jobs.start(three.topic.campaign, [("M001-bing.json", data)], run="upload-demo", replace=False,
                            actor=three.topic.campaign.organisers.get(), topic="M001")
    import_jobs.run_import_job.call(job.pk)
    return {"three": three.pk, "paper": paper.pk, "job": job.pk}


USERS = [("annotator", "annotator"), ("bea", "bea"), ("carl", "carl"), ("organiser", "organiser"), ("root", "root-pw")]


def test_every_page_reads_as_text_fits_the_screen_and_passes_axe_for_every_user(page, live_server, demo, login):
    crawl = Crawl(live_server.url)
    organiser_seeds = [f"/console/fairweb1/adjudicate/{demo['three']}/", f"/console/fairweb1/imports/{demo['job']}/"]
    for username, password in USERS:
        page.context.clear_cookies()
        login(username, password)
        seeds = ["/api/docs/"] + (organiser_seeds if username in ("organiser", "root") else [])
        crawl_as(page, crawl, username, seeds)
    visited = "\n".join(crawl.pages)
    for needed in ("annotator /conversations/", "?nugget=", "organiser /console/fairweb1/report/significance/",
                   "organiser /console/fairweb1/adjudicate/", "organiser /console/fairweb1/imports/",
                   "organiser /console/fairweb1/judges/", "organiser /console/fairweb1/report/trials/",
                   "organiser /console/fairweb1/report/worst/", "organiser /console/fairweb1/grid/",
                   "root /console/", "bea /api/docs/"):
        assert needed in visited, f"{needed} was not reached:\n{visited}"
    assert crawl.problems == [], f"{len(crawl.problems)} problem(s) on {len(crawl.pages)} pages:\n" + "\n".join(crawl.problems)
