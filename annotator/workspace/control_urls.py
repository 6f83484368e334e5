"""Where the workspace's controls send their requests: the URLs its rendered forms and links
carry, reversed once per answer (the column is rendered with every edit, and each reverse costs)."""

from __future__ import annotations

from django.urls import reverse

from annotator.workspace.workbench import Urls

# an id no row has: reversed, then replaced by {} (a pattern the renderer formats per turn or nugget)
_MARKER = 987654321


def urls_for(conversation_id: int) -> Urls:
    """The conversation column's: mark words, dismiss a suggestion, label a turn, open a nugget, the page."""

    def pattern(name: str, **extra) -> str:
        return reverse(name, kwargs={"conversation_id": conversation_id, **extra}).replace(str(_MARKER), "{}")

    return Urls(
        create=reverse("nugget-create", kwargs={"conversation_id": conversation_id}),
        dismiss=reverse("suggestion-dismiss", kwargs={"conversation_id": conversation_id}),
        label=pattern("turn-label", turn_id=_MARKER),
        nugget=pattern("nugget", nugget_id=_MARKER),
        page=reverse("conversation", kwargs={"conversation_id": conversation_id}),
    )


def membership_urls(conversation_id: int, nugget_id: int, attribute_set_id: int) -> tuple[str, str]:
    """The editor's membership form of one attribute set: where it saves, and the live check while typing."""
    url_kwargs = {"conversation_id": conversation_id, "attribute_set_id": attribute_set_id}
    return (reverse("nugget-membership", kwargs={**url_kwargs, "nugget_id": nugget_id}),
            reverse("membership-check", kwargs=url_kwargs))
