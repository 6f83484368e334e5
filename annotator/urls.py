from pathlib import Path

from django.conf import settings
from django.http import FileResponse, HttpRequest
from django.urls import include, path
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

FAVICON = Path(settings.BASE_DIR) / "static" / "favicon.ico"


@require_GET
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> FileResponse:
    """/favicon.ico, which browsers ask for on a first visit whatever the page links (and the
    pages link static/favicon.ico): the same icon, never a 404."""
    return FileResponse(FAVICON.open("rb"), content_type="image/x-icon")


urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("", include("annotator.workspace.urls")),
    path("console/", include(("annotator.console.urls", "console"))),
    path("history/", include(("annotator.console.urls_history", "history"))),
    path("api/", include("annotator.api.urls")),
]
