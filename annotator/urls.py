from django.urls import include, path

from annotator.views import home

urlpatterns = [
    path("", home.home, name="home"),
    path("", include("annotator.workspace.urls")),
    path("console/", include(("annotator.console.urls", "console"))),
    path("history/", include(("annotator.console.urls_history", "history"))),
    path("api/", include("annotator.api.urls")),
]
