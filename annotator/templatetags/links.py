"""Links to what untrusted text names: `{% external_link url text %}` makes an ``<a>`` only for an
http(s) URL (annotator.rules.links, the one rule), and shows anything else as text."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from annotator.rules.links import link_html

register = template.Library()


@register.simple_tag
def external_link(url, text=None) -> SafeString:
    """An ``<a>`` to `url` (new tab, no referrer, no opener) showing `text` (the URL when none),
    both escaped; for anything but an http(s) URL the text alone, in ``<code>``."""
    html = link_html(url, text)
    return mark_safe(html if html.startswith("<a ") else f"<code>{html}</code>")  # noqa: S308 (escaped by link_html)
