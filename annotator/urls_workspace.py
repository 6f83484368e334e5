"""URLs of the annotator's workspace (queue, conversation, nugget edits, score panel)."""

from django.urls import path

from annotator.views import queue

urlpatterns = [
    path("queue/", queue.queue, name="queue"),
]
