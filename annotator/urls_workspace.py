"""URLs of the annotator's workspace (queue, conversation, nugget edits, score panel).

Names others link to: "queue", "conversation" and "score-panel" (kwargs conversation_id).
All HTML (pages and htmx fragments); the JSON API lives in annotator/api.
"""

from django.urls import path

from annotator.views import queue, workspace, workspace_edit

conversation = "conversations/<id:conversation_id>/"
nugget = conversation + "nuggets/<id:nugget_id>/"

urlpatterns = [
    path("queue/", queue.queue, name="queue"),
    path("queue/next/", queue.next_unfinished, name="queue-next"),
    path(conversation, workspace.conversation, name="conversation"),
    path(conversation + "score/", workspace.score_panel, name="score-panel"),
    path(conversation + "nuggets/", workspace_edit.create_nugget, name="nugget-create"),
    path(conversation + "suggestions/dismiss/", workspace_edit.dismiss_suggestion, name="suggestion-dismiss"),
    path(conversation + "undo/", workspace_edit.undo, name="undo"),
    path(conversation + "turns/<id:turn_id>/label/", workspace_edit.label_turn, name="turn-label"),
    path(conversation + "attribute-sets/<id:attribute_set_id>/check/", workspace.check_membership,
         name="membership-check"),
    path(nugget, workspace_edit.nugget, name="nugget"),
    path(nugget + "delete/", workspace_edit.delete_nugget, name="nugget-delete"),
    path(nugget + "entity/", workspace_edit.link_entity, name="nugget-entity"),
    path(nugget + "entity/options/", workspace.entity_options, name="nugget-entity-options"),
    path(nugget + "grade/", workspace_edit.grade, name="nugget-grade"),
    path(nugget + "details/", workspace_edit.entity_details, name="nugget-details"),
    path(nugget + "memberships/<id:attribute_set_id>/", workspace_edit.membership, name="nugget-membership"),
]
