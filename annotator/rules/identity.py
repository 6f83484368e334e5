"""Entity identity: which nuggets name the same entity.

An entity (a movie, a researcher, a channel...) is identified by its URL when the nugget text
has one, otherwise by its name. Two spellings of one URL must give one key:

- the scheme (``http`` or ``https``) does not matter,
- nor the letter case of the host, a leading ``www.``, a default port,
- nor trailing slashes of the path, an empty query (``?``) or the fragment (``#...``),
- nor a user part before the host (``user:pass@``): it names no page, and it makes a link look
  like another site's (``https://www.imdb.com@evil.example/`` is a page of evil.example), so
  keys and the links shown from them never have one (``user_part`` says what was dropped);
- nor tracking parameters of the query (``utm_*`` such as ``?utm_source=openai`` or
  ``?utm_source=chatgpt.com`` that search systems append to what they cite, ``gclid``,
  ``fbclid``...: TRACKING_PARAMETERS), which say who sent the visitor, not which page it is;

the case of the path and the query are kept (``/title/tt0088763`` and ``/Title/tt0088763``
are different pages on most servers).

Pure Python, no Django: used by the file formats, the importer and the console.
"""

from __future__ import annotations

import functools
import re
from urllib.parse import unquote_plus, urlsplit

from scoring.words import tokenise

__all__ = [
    "normalise_url", "find_url", "entity_key_and_name", "name_key", "document_key", "NAME_PREFIX", "TRACKING_PARAMETERS",
    "is_grounding_redirect", "user_part",
]

NAME_PREFIX = "name:"

_URL_RE = re.compile(r"""https?://[^\s<>"'`]+""", re.IGNORECASE)
_TRAILING_PUNCT = ".,;:!?*_~'\""
_BRACKETS = {")": "(", "]": "[", "}": "{"}
_DEFAULT_PORTS = {"80", "443"}
# Query parameters that only say where a visit came from (matched case-insensitively; any
# ``utm_...`` too): Google Analytics' UTM tags, ad click ids (Google, Microsoft, Meta, Yandex),
# Mailchimp's and HubSpot's campaign tags, Instagram's share id.
TRACKING_PARAMETERS = frozenset({
    "gclid", "dclid", "gbraid", "wbraid", "msclkid", "fbclid", "yclid", "mc_cid", "mc_eid", "_hsenc", "_hsmi", "igshid",
})


@functools.lru_cache(maxsize=65536)
def normalise_url(url: str) -> str:
    """The identity key of a URL: ``https://host/path?query``.

    ``http://WWW.IMDb.com/title/tt0088763/#x`` and ``https://imdb.com/title/tt0088763`` both
    give ``https://imdb.com/title/tt0088763``. A URL without a scheme (``www.imdb.com/...``) is
    read as http(s). Idempotent: ``normalise_url(normalise_url(u)) == normalise_url(u)``.
    Raises ValueError for another scheme or a URL without a host.
    """
    text = url.strip()
    if "://" not in text:
        text = "https://" + text.lstrip("/")
    parts = urlsplit(text)
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError(f"not an http(s) URL: {url!r}")
    netloc = parts.netloc
    hostport = netloc.rpartition("@")[2]
    host, port = hostport, ""
    if hostport.startswith("["):  # IPv6 literal
        end = hostport.find("]")
        if end != -1:
            host, rest = hostport[: end + 1], hostport[end + 1 :]
            port = rest[1:] if rest.startswith(":") else ""
    elif ":" in hostport:
        host, _, port = hostport.rpartition(":")
    host = host.lower().rstrip(".")
    while host.startswith("www.") and len(host) > 4:
        host = host[4:]
    if not host:
        raise ValueError(f"URL without a host: {url!r}")
    if port in _DEFAULT_PORTS:
        port = ""
    netloc = host + (":" + port if port else "")  # never the user part: see the module's docstring
    path = parts.path.rstrip("/")
    query = _without_tracking(parts.query)
    return "https://" + netloc + path + ("?" + query if query else "")


def user_part(url: str) -> str:
    """The user part of a URL's authority, with its ``@`` (``www.imdb.com@`` of
    ``https://www.imdb.com@evil.example/``; ``user:pass@``), "" when it has none: what
    ``normalise_url`` drops, for a warning."""
    text = url.strip()
    if "://" not in text:
        text = "https://" + text.lstrip("/")
    try:
        netloc = urlsplit(text).netloc
    except ValueError:
        return ""
    userinfo, at, _ = netloc.rpartition("@")
    return userinfo + at


def _without_tracking(query: str) -> str:
    """The query without its tracking parameters, the others as written and in their order."""
    kept = [part for part in query.split("&") if not (part and _is_tracking(part.split("=", 1)[0]))]
    return "&".join(kept)


def _is_tracking(name: str) -> bool:
    name = unquote_plus(name).lower()
    return name.startswith("utm_") or name in TRACKING_PARAMETERS


def is_grounding_redirect(url: str) -> bool:
    """A Google grounding link (Gemini's ``vertexaisearch.cloud.google.com/grounding-api-redirect/...``):
    it stands for the cited page, which only an online redirect lookup reveals, so its key is
    the link itself and two citations of one page by two answers are two entities."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    return (parts.hostname or "").lower() == "vertexaisearch.cloud.google.com" and parts.path.startswith(
        "/grounding-api-redirect/"
    )


def find_url(text: str) -> str | None:
    """The first http(s) URL in ``text``, without the punctuation that ends a sentence.

    Trailing ``. , ; : ! ?`` and quotes are dropped, and so is a closing bracket that has no
    opening partner inside the URL: ``(see https://x.org/a_(b))`` gives ``https://x.org/a_(b)``,
    ``[IMDb](https://imdb.com/title/tt1/)`` gives ``https://imdb.com/title/tt1/``. A URL glued
    to the preceding word (``Tenet (2020)https://...``) is found too.
    """
    match = _URL_RE.search(text)
    while match is not None:  # finditer's matches, without its iterator (most texts: one URL)
        url = _trim(match.group(0))
        if len(url) > len("https://") and _has_host(url):
            return url
        match = _URL_RE.search(text, match.end())
    return None


_HOST_RE = re.compile(r"https?://([^/?#]*)", re.IGNORECASE)


def _has_host(url: str) -> bool:
    """``urlsplit(url).netloc != ""`` for a URL `_URL_RE` found (http(s)://, no whitespace),
    without urlsplit's cost (a third of the paper export's entity check) where it cannot
    differ: urlsplit's authority is what precedes the first ``/ ? #``, and only brackets (an
    IPv6 literal, which it validates and may refuse with ValueError) need urlsplit itself."""
    host = _HOST_RE.match(url).group(1)
    if "[" in host or "]" in host:
        return bool(urlsplit(url).netloc)
    return bool(host)


def _trim(url: str) -> str:
    while url:
        last = url[-1]
        if last in _TRAILING_PUNCT:
            url = url[:-1]
        elif last in _BRACKETS and url.count(last) > url.count(_BRACKETS[last]):
            url = url[:-1]
        else:
            break
    return url


_DOCUMENT_URL_RE = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)


def document_key(document: str) -> str:
    """The entity key of a ranked list's document (a qrels or run file's id): the normalised
    URL when the id is a URL, so a page judged as a conversation's nugget is the same entity;
    else the id itself (a collection's document id, kept as written)."""
    return normalise_url(document) if _DOCUMENT_URL_RE.fullmatch(document) else document


def name_key(name: str) -> str:
    """``name:`` + the name case-folded with its whitespace collapsed."""
    return NAME_PREFIX + " ".join(tokenise(name.casefold()))


_MD_LINK_RE = re.compile(r"\[([^\[\]]*)\]\(\s*<?(https?://[^\s)]*(?:\([^\s)]*\)[^\s)]*)*)>?\s*\)", re.I)
_LIST_MARKER_RE = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+")
_ORPHAN_PUNCT = ".,;:!?"
_ORPHAN_PUNCT_RE = re.compile(rf"(?:\s+[{_ORPHAN_PUNCT}]+)+$")
_EDGE_SEPARATORS = " \t:-\u2013\u2014|,;"


def entity_key_and_name(text: str) -> tuple[str | None, str]:
    """The identity key and the display name of the entity a nugget text names.

    ``"Back to the Future (1985): https://www.imdb.com/title/tt0088763/"`` gives
    ``("https://imdb.com/title/tt0088763", "Back to the Future (1985)")``;
    ``"Back to the Future (1985)"`` gives ``("name:back to the future (1985)", ...)``.
    The name is the text without its URL (a markdown link ``[label](url)`` goes whole), list
    markers, ``**``/``__`` emphasis and separators (``:`` ``-`` ``|`` ...) at its ends. The name
    is ``""`` when the text is only a URL; the key is None when the text has neither a URL nor
    a name.
    """
    url = find_url(text)
    rest = text
    if url is not None:
        md = _MD_LINK_RE.search(rest) if "](" in rest else None  # the pattern's "](", cheaply first
        if md and _trim(md.group(2)) == url:
            rest = rest[: md.start()] + " " + rest[md.end() :]
            if not _clean_name(rest):
                rest = md.group(1)
        else:
            start = rest.find(url)
            rest = rest[:start] + rest[start + len(url) :]
            rest = rest.replace("<>", " ").replace("()", " ").replace("[]", " ")
    name = _clean_name(rest)
    if url is not None:
        try:
            return normalise_url(url), name
        except ValueError:
            pass
    if not name:
        return None, ""
    return name_key(name), name


def _clean_name(text: str) -> str:
    text = _LIST_MARKER_RE.sub("", text)
    text = text.replace("**", "").replace("__", "")
    text = " ".join(tokenise(text))
    last_word = text.rpartition(" ")[2]
    if last_word and not last_word.strip(_ORPHAN_PUNCT):  # the pattern's last group: a word of punctuation alone
        text = _ORPHAN_PUNCT_RE.sub("", text)
    return text.strip(_EDGE_SEPARATORS)
