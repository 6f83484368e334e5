"""`{{ text|markdown }}`: Markdown an organiser wrote, as clean HTML (annotator.rules.markdown:
markdown-it-py, then the nh3 sanitiser; links only to http(s) pages)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from annotator.rules.markdown import render

register = template.Library()


@register.filter(name="markdown")
def markdown(text) -> SafeString:
    return mark_safe(render(str(text or "")))  # noqa: S308 (cleaned by nh3 in render)
