import re

from django.test import Client
from rest_framework.test import APIClient


def test_the_openapi_schema_describes_every_endpoint(api_as):
    response = api_as("annotator").get("/api/schema/?format=json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in ("/api/campaigns/", "/api/campaigns/{slug}/scores/", "/api/conversations/{id}/", "/api/nuggets/",
                 "/api/nuggets/{id}/", "/api/entities/{id}/membership/", "/api/token/"):
        assert path in paths, path


def test_the_docs_page_loads_the_vendored_swagger_ui_and_no_cdn(demo):
    client = Client()
    client.force_login(demo[1])
    html = client.get("/api/docs/").content.decode()
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in html
    # every script, style and link is the app's own (the page's random CSRF token can spell "cdn")
    loaded = re.findall(r'(?:src|href)="([^"]*)"', html)
    assert loaded and all(url.startswith("/") for url in loaded), loaded
    assert "://" not in html.replace("http://www.w3.org", "")


def test_the_schema_is_public_but_holds_no_data(db):
    response = APIClient().get("/api/schema/?format=json")
    assert response.status_code == 200 and "GFRC annotator API" in response.content.decode()
    assert APIClient().get("/api/conversations/").status_code == 401


def test_the_docs_page_says_its_language_and_holds_swagger_ui_in_a_main_landmark_with_the_apps_icon(demo):
    client = Client()
    client.force_login(demo[1])
    html = client.get("/api/docs/").content.decode()
    assert '<html lang="en">' in html
    assert '<main id="swagger-ui"' in html and 'href="/"' in html
    assert '<link rel="icon" href="/static/favicon.ico">' in html
