"""URLs of the annotation history (namespace "history"): organisers of the campaign only."""

from django.urls import path

from annotator.console.views import history

urlpatterns = [
    path("conversations/<id:conversation_id>/", history.conversation_history, name="conversation"),
    path("conversations/<id:conversation_id>/export.csv", history.conversation_history_csv, name="conversation-csv"),
    path("conversations/<id:conversation_id>/export.json", history.conversation_history_json, name="conversation-json"),
]
