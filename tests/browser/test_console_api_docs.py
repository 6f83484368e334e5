"""The API docs page renders with the vendored Swagger UI (no CDN on this closed network)."""

import pytest

from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_api_docs_page_renders_the_schema_with_the_vendored_swagger_ui(page, live_server, login):
    make_user("org")
    outside = []
    page.on("request", lambda request: outside.append(request.url) if not request.url.startswith(live_server.url) else None)
    login("org", "org-pw")
    page.goto(f"{live_server.url}/api/docs/")
    page.get_by_text("GFRC annotator API").first.wait_for()
    assert page.get_by_text("/api/nuggets/", exact=True).first.is_visible()
    assert outside == []
