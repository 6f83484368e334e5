from django.urls import include, path

from annotator.views import home

urlpatterns = [
    path("", home.home, name="home"),
    path("", include("annotator.urls_workspace")),
    path("console/", include(("annotator.urls_console", "console"))),
    path("history/", include(("annotator.urls_history", "history"))),
    path("api/", include("annotator.api.urls")),
]
