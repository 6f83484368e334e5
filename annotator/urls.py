from django.urls import include, path

urlpatterns = [
    path("", include("annotator.workspace.urls")),
    path("console/", include(("annotator.console.urls", "console"))),
    path("history/", include(("annotator.console.urls_history", "history"))),
    path("api/", include("annotator.api.urls")),
]
