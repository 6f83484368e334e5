"""URLs of the annotator's workspace (queue, conversation, nugget edits, score panel).

Names others link to: "home" (where a user lands: their queue, or the console for an organiser
with nothing to annotate), "queue", "conversation" and "score-panel" (kwargs conversation_id).
All HTML (pages and htmx fragments); the JSON API lives in annotator/api.
"""

from django.urls import path

from annotator.workspace.views import conversation as page
from annotator.workspace.views import completion, edits, home, queue

conversation_path = "conversations/<id:conversation_id>/"
nugget = conversation_path + "nuggets/<id:nugget_id>/"

urlpatterns = [
    path("", home.home, name="home"),
    path("queue/", queue.queue, name="queue"),
    path("queue/next/", queue.next_unfinished, name="queue-next"),
    path(conversation_path, page.conversation, name="conversation"),
    path(conversation_path + "score/", page.score_panel, name="score-panel"),
    path(conversation_path + "nuggets/", edits.create_nugget, name="nugget-create"),
    path(conversation_path + "suggestions/dismiss/", edits.dismiss_suggestion, name="suggestion-dismiss"),
    path(conversation_path + "undo/", edits.undo, name="undo"),
    path(conversation_path + "done/", completion.done, name="conversation-done"),
    path(conversation_path + "reopen/", completion.reopen, name="conversation-reopen"),
    path(conversation_path + "heartbeat/", completion.heartbeat, name="heartbeat"),
    path(conversation_path + "turns/<id:turn_id>/label/", edits.label_turn, name="turn-label"),
    path(conversation_path + "attribute-sets/<id:attribute_set_id>/check/", page.check_membership,
         name="membership-check"),
    path(nugget, edits.nugget, name="nugget"),
    path(nugget + "delete/", edits.delete_nugget, name="nugget-delete"),
    path(nugget + "entity/", edits.link_entity, name="nugget-entity"),
    path(nugget + "entity/options/", page.entity_options, name="nugget-entity-options"),
    path(nugget + "grade/", edits.grade, name="nugget-grade"),
    path(nugget + "details/", edits.entity_details, name="nugget-details"),
    path(nugget + "memberships/<id:attribute_set_id>/", edits.membership, name="nugget-membership"),
]
