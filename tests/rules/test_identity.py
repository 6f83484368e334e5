"""Entity identity: one key per URL however it is spelt, names as keys when there is no URL."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from annotator.rules.identity import entity_key_and_name, find_url, is_grounding_redirect, name_key, normalise_url, user_part

hosts = st.from_regex(r"[a-z][a-z0-9\-]{0,8}(\.[a-z][a-z0-9\-]{0,8}){1,2}", fullmatch=True)
paths = st.from_regex(r"(/[A-Za-z0-9_\-.~%()]{1,8}){0,3}", fullmatch=True)
queries = st.one_of(st.just(""), st.from_regex(r"[a-z]{1,4}=[A-Za-z0-9]{0,4}(&[a-z]{1,4}=[A-Za-z0-9]{0,4})?", fullmatch=True))
fragments = st.one_of(st.just(""), st.from_regex(r"[A-Za-z0-9\-]{0,6}", fullmatch=True))


def url(scheme: str, host: str, path: str, query: str, fragment: str | None = None) -> str:
    return f"{scheme}://{host}{path}" + (f"?{query}" if query else "") + (f"#{fragment}" if fragment is not None else "")


@given(st.sampled_from(["http", "https", "HTTP", "Https"]), hosts, paths, queries, fragments, st.booleans(), st.booleans())
def test_normalise_url_is_idempotent(scheme, host, path, query, fragment, www, slash):
    u = url(scheme, ("www." if www else "") + host, path + ("/" if slash else ""), query, fragment)
    once = normalise_url(u)
    assert normalise_url(once) == once


@given(hosts, paths, queries, fragments, st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_scheme_host_case_www_trailing_slash_and_fragment_make_no_new_entity(host, path, query, fragment, https, upper, www, slash):
    plain = normalise_url(url("https", host, path, query))
    variant_host = ("WWW." if upper else "www.") + host if www else host
    variant_host = variant_host.upper() if upper else variant_host
    variant = url("https" if https else "http", variant_host, path + ("/" if slash else ""), query, fragment)
    assert normalise_url(variant) == plain


@given(hosts, paths.filter(lambda p: any(c.isalpha() for c in p)), queries)
def test_path_case_makes_a_new_entity(host, path, query):
    swapped = path.swapcase()
    if swapped.rstrip("/") != path.rstrip("/"):
        assert normalise_url(url("https", host, path, query)) != normalise_url(url("https", host, swapped, query))


@given(hosts, paths, queries, queries)
def test_query_makes_a_new_entity(host, path, q1, q2):
    if q1 != q2:
        assert normalise_url(url("https", host, path, q1)) != normalise_url(url("https", host, path, q2))


def test_the_example_urls_normalise_to_https_without_www_and_slash():
    assert normalise_url("https://www.imdb.com/title/tt0088763/") == "https://imdb.com/title/tt0088763"
    assert normalise_url("HTTP://WWW.IMDb.COM:80/title/tt0088763#reviews") == "https://imdb.com/title/tt0088763"
    assert normalise_url("www.imdb.com/title/tt0088763/") == "https://imdb.com/title/tt0088763"
    assert normalise_url("https://example.org/a?x=1&y=2") == "https://example.org/a?x=1&y=2"


def test_normalise_url_refuses_other_schemes_and_missing_hosts():
    with pytest.raises(ValueError):
        normalise_url("ftp://example.org/x")
    with pytest.raises(ValueError):
        normalise_url("https:///nohost")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Back to the Future (1985): https://www.imdb.com/title/tt0088763/", "https://www.imdb.com/title/tt0088763/"),
        ("see https://x.org/a.", "https://x.org/a"),
        ("(https://x.org/a), then", "https://x.org/a"),
        ("https://en.wikipedia.org/wiki/Looper_(film)", "https://en.wikipedia.org/wiki/Looper_(film)"),
        ("[IMDb](https://www.imdb.com/title/tt1276104/)", "https://www.imdb.com/title/tt1276104/"),
        ("Tenet (2020)https://www.imdb.com/title/tt10375988/", "https://www.imdb.com/title/tt10375988/"),
        ("<https://x.org/b>", "https://x.org/b"),
        ("no url here, www.imdb.com is a domain", None),
        ("https:// nothing", None),
    ],
)
def test_find_url_finds_the_first_url_without_trailing_punctuation(text, expected):
    assert find_url(text) == expected


@pytest.mark.parametrize(
    "text, key, name",
    [
        ("Back to the Future (1985): https://www.imdb.com/title/tt0088763/", "https://imdb.com/title/tt0088763", "Back to the Future (1985)"),
        ("Back to the Future (1985)", "name:back to the future (1985)", "Back to the Future (1985)"),
        ("The  Time Machine - https://imdb.com/title/tt0054387", "https://imdb.com/title/tt0054387", "The Time Machine"),
        ("https://www.imdb.com/title/tt1853739/", "https://imdb.com/title/tt1853739", ""),
        ("1. **Looper** (2012) - [IMDb](https://www.imdb.com/title/tt1276104/)", "https://imdb.com/title/tt1276104", "Looper (2012)"),
        ("  -  ", None, ""),
    ],
)
def test_entity_key_and_name(text, key, name):
    assert entity_key_and_name(text) == (key, name)


def test_name_keys_ignore_case_and_spacing():
    assert name_key("Back  to the FUTURE (1985)") == name_key("back to the future (1985)") == "name:back to the future (1985)"


@pytest.mark.parametrize("cited", [
    "https://www.imdb.com/title/tt2543164/?utm_source=chatgpt.com",
    "https://imdb.com/title/tt2543164?utm_source=openai",
    "http://imdb.com/title/tt2543164/?UTM_Medium=x&utm_campaign=y#frag",
    "https://imdb.com/title/tt2543164?gclid=abc&fbclid=def",
])
def test_tracking_parameters_make_no_new_entity(cited):
    assert normalise_url(cited) == normalise_url("https://www.imdb.com/title/tt2543164/") == "https://imdb.com/title/tt2543164"


def test_other_query_parameters_stay_in_their_order_around_removed_tracking_ones():
    assert normalise_url("https://x.org/a?b=1&utm_source=openai&a=2&fbclid=z") == "https://x.org/a?b=1&a=2"
    assert normalise_url("https://x.org/a?utm=1") == "https://x.org/a?utm=1"  # not a utm_ tag


@given(hosts, paths, queries, st.sampled_from(["utm_source=openai", "utm_source=chatgpt.com", "gclid=1", "UTM_TERM=a%20b"]))
def test_a_tracking_parameter_anywhere_in_the_query_makes_no_new_entity(host, path, query, tracking):
    plain = normalise_url(url("https", host, path, query))
    for with_tracking in (f"{query}&{tracking}" if query else tracking, f"{tracking}&{query}" if query else tracking):
        tracked = normalise_url(url("https", host, path, with_tracking))
        assert tracked == plain
        assert normalise_url(tracked) == tracked


def test_a_grounding_redirect_link_is_recognised_and_keyed_as_it_is():
    link = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQE3xYz"
    assert is_grounding_redirect(link)
    assert normalise_url(link) == link
    assert not is_grounding_redirect("https://imdb.com/grounding-api-redirect/x")


def test_a_user_part_before_the_host_is_no_part_of_the_key_so_a_link_never_looks_like_another_site():
    assert normalise_url("https://www.imdb.com@evil.example/") == "https://evil.example"
    assert normalise_url("http://user:secret@WWW.IMDb.com:443/title/tt0088763/") == "https://imdb.com/title/tt0088763"
    assert entity_key_and_name("Back to the Future: https://www.imdb.com@evil.example/title/tt0088763/") == (
        "https://evil.example/title/tt0088763", "Back to the Future")
    assert user_part("https://www.imdb.com@evil.example/") == "www.imdb.com@"
    assert user_part("https://imdb.com/title/a@b") == ""  # an @ in the path is no user part


# the characters that decide urlsplit's authority: its ends, IPv6 brackets, a port, a user part
_url_tails = st.text(alphabet="ab1:@[]/?#.-_%()", max_size=24)


@given(st.sampled_from(["http://", "https://", "HTTPS://", "hTtP://"]), _url_tails)
def test_the_quick_host_check_says_what_urlsplit_says_or_raises_what_it_raises(scheme, tail):
    from urllib.parse import urlsplit

    from annotator.rules.identity import _has_host

    try:
        expected = bool(urlsplit(scheme + tail).netloc)
    except ValueError:
        with pytest.raises(ValueError):
            _has_host(scheme + tail)
        return
    assert _has_host(scheme + tail) == expected


@pytest.mark.parametrize("text", [
    "[Tenet](https://imdb.com/title/tt6723592/) (2020)", "see [x] (https://a.org/b)", "https://[::1]:8000/a",
    "https://[bad/x and more", "http://user@[::1]/", "https:///nohost then https://ok.org/y",
])
def test_entity_key_and_name_with_the_quick_host_check_says_what_it_says_with_urlsplit(text, monkeypatch):
    from urllib.parse import urlsplit

    import annotator.rules.identity as identity

    def outcome():
        try:
            return identity.entity_key_and_name(text)
        except ValueError as error:
            return str(error)

    quick = outcome()
    monkeypatch.setattr(identity, "_has_host", lambda url: bool(urlsplit(url).netloc))
    assert outcome() == quick


@given(st.text(alphabet="ab1 .,;:!?-*_\n\t(|", max_size=20))
def test_a_name_is_cleaned_as_when_the_orphan_punctuation_pattern_ran_on_every_name(text):
    from annotator.rules import identity

    def with_the_pattern_always(text):
        text = identity._LIST_MARKER_RE.sub("", text).replace("**", "").replace("__", "")
        return identity._ORPHAN_PUNCT_RE.sub("", " ".join(text.split())).strip(identity._EDGE_SEPARATORS)

    assert identity._clean_name(text) == with_the_pattern_always(text)


@given(st.lists(st.sampled_from(["https://", "http://", "a.b", "/", " ", ".", ")", "(", "x", "[", "]"]), max_size=12).map("".join))
@example("https:/// then https://a.b")  # the first match has no host: the next one is the URL
@example("https://[x then https://a.b")
def test_find_url_takes_the_first_match_with_a_host_as_iterating_every_match_would(text):
    from urllib.parse import urlsplit

    from annotator.rules import identity

    def by_every_match(text):
        for match in identity._URL_RE.finditer(text):
            url = identity._trim(match.group(0))
            if len(url) > len("https://") and urlsplit(url).netloc:
                return url
        return None

    try:
        expected = by_every_match(text)
    except ValueError:
        with pytest.raises(ValueError):
            identity.find_url(text)
        return
    assert identity.find_url(text) == expected
