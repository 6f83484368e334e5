"""Which text becomes a link: the one rule of every template and HTML builder.

Entity keys, cited sources and anything else a file, an annotator or a model wrote are
untrusted. Only an absolute ``http`` or ``https`` URL with a host, and without whitespace or
control characters, is ever put in an ``href``; anything else (``javascript:``, ``data:``,
``vbscript:``, a relative path, a URL with a user part pretending to be another site's host
is still a URL of that host and is shown as it is) is shown as escaped text. A link opens
elsewhere, without a referrer or an opener, and tells search engines it vouches for nothing.

    http_url("https://www.imdb.com/title/tt0088763/")  # the URL
    http_url("javascript:alert(1)")                      # None
    link_html(url, text)                                 # <a ...>text</a>, or the text escaped

Pure Python, no Django: the template tag ``{% external_link %}`` (annotator.templatetags.links)
and the conversation's HTML (annotator.workspace.conversation_html) both call it.
"""

from __future__ import annotations

from html import escape
from urllib.parse import urlsplit

__all__ = ["http_url", "link_html", "LINK_ATTRIBUTES"]

LINK_ATTRIBUTES = 'target="_blank" rel="noopener noreferrer nofollow"'


def http_url(url: object) -> str | None:
    """`url` when it may be a link's target (an absolute http(s) URL with a host), else None."""
    if not isinstance(url, str) or not url or len(url) > 4096:
        return None
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        return None  # browsers drop tabs and newlines inside a scheme ("java\tscript:")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # a malformed IPv6 literal or port
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    if not url[: len(parts.scheme) + 3].lower() == f"{parts.scheme.lower()}://":
        return None  # "http:evil" has a scheme but no authority: no host to go to
    return url


def link_html(url: object, text: object, *, title: bool = True) -> str:
    """An ``<a>`` to `url` showing `text`, both escaped, when `url` passes `http_url`; else
    `text` alone, escaped (the URL itself when there is no text)."""
    shown = escape(str(text if text not in (None, "") else (url or "")))
    target = http_url(url)
    if target is None:
        return shown
    href = escape(target, quote=True)
    return f'<a href="{href}" {LINK_ATTRIBUTES}' + (f' title="{href}"' if title else "") + f">{shown}</a>"
