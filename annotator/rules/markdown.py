"""Markdown an organiser writes (the campaign's guidelines) as HTML every annotator's browser
may show: the one rule.

Rendered by markdown-it-py (CommonMark, with tables and strikethrough; raw HTML in the text is
shown as text, never passed through), then cleaned by nh3 (the ammonia sanitiser) to a fixed
list of tags and attributes. Links keep the rule of every untrusted link (annotator.rules.links):
only an absolute http(s) URL stays a link, opening elsewhere without a referrer or an opener;
anything else (`javascript:`, `data:`, a relative path) loses its href. No images: a picture
from another host would tell it who reads the guidelines. Headings go two levels down (``#`` is
an h3): the page showing them has its own h1 and h2.

    html = render("**Grade L2** a movie with its IMDb page: [IMDb](https://www.imdb.com/)")

Pure Python, no Django.
"""

from __future__ import annotations

import functools

import nh3
from markdown_it import MarkdownIt

__all__ = ["render", "TAGS"]

TAGS = frozenset({
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "code", "pre", "blockquote",
    "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
})
_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}}
HEADING_SHIFT = 2  # the page has its h1 and h2 already


@functools.lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
        ["table", "strikethrough"])


@functools.lru_cache(maxsize=256)
def render(text: str) -> str:
    """The Markdown `text` as clean HTML ("" for none)."""
    if not text or not text.strip():
        return ""
    parser = _parser()
    tokens = parser.parse(text)
    for token in tokens:  # "# Title" is a section of the page that shows it: h3 (and so on down to h6)
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1]) + HEADING_SHIFT)}"
    html = parser.renderer.render(tokens, parser.options, {})
    return nh3.clean(
        html, tags=set(TAGS), attributes={k: set(v) for k, v in _ATTRIBUTES.items()}, url_schemes={"http", "https"},
        link_rel="noopener noreferrer nofollow", set_tag_attribute_values={"a": {"target": "_blank"}},
        strip_comments=True, url_relative="deny",
    )
