"""Zips as exports are downloaded: a zip bomb is refused from its header or while it inflates,
at once and in little memory, by the one reader of zips (annotator.interchange.formats.zips)."""

from __future__ import annotations

import io
import time
import tracemalloc
import zipfile

import pytest

from annotator.interchange.formats import count_conversations, parse_file

from .harvest_helpers import DATA, zipped
from .zip_bombs import spaces_zip

MB = 1 << 20


def _measured(read):
    """What ``read()`` gives, its seconds and the peak of memory it allocated (bytes)."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        result = read()
        seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, seconds, peak


@pytest.fixture(scope="module")
def spaces_300_mib():
    return spaces_zip(300)  # 300 MiB of spaces in 0.3 MB, its header honest


def test_a_zip_declaring_300_mib_of_spaces_is_refused_from_its_header_at_once_and_in_little_memory(spaces_300_mib):
    result, seconds, peak = _measured(lambda: parse_file(spaces_300_mib, "export.zip"))
    assert [str(e) for e in result.errors] == [
        "export.zip: conversations.json would be 314,572,800 bytes unzipped, more than the 209,715,200 read from a zip: refused"]
    assert peak < 4 * MB and seconds < 1.0  # inflated, it was 300 MB and seconds
    count, seconds, peak = _measured(lambda: count_conversations(spaces_300_mib, "export.zip"))
    assert count == 0 and peak < 4 * MB and seconds < 1.0


def test_a_zip_that_inflates_a_thousand_times_is_refused_from_its_header_though_it_is_small():
    bomb = spaces_zip(20)  # 20 MiB of spaces in 21 KB: under the size cap, no text compresses so well
    packed = zipfile.ZipFile(io.BytesIO(bomb)).infolist()[0].compress_size
    result, seconds, peak = _measured(lambda: parse_file(bomb, "export.zip"))
    assert [str(e) for e in result.errors] == [
        f"export.zip: conversations.json would inflate {packed:,} bytes to 20,971,520 (more than 100 times: "
        "a zip bomb): refused"]
    assert peak < 4 * MB and seconds < 1.0


def test_a_member_whose_header_says_1_kb_but_which_inflates_to_2_gib_stops_inflating_past_1_kb():
    bomb = spaces_zip(2048, declared=1024)  # a Claude.ai export's name; the header lies
    result, seconds, peak = _measured(lambda: parse_file(bomb, "data-2025-05-04.zip"))
    assert [str(e) for e in result.errors] == [
        "data-2025-05-04.zip: conversations.json inflates past the 1,024 bytes its header declares (a zip bomb): refused"]
    assert peak < 4 * MB and seconds < 1.0  # before: 2 GiB inflated in memory, then "Bad CRC-32"
    count, seconds, peak = _measured(lambda: count_conversations(bomb, "data-2025-05-04.zip"))
    assert count == 0 and peak < 4 * MB and seconds < 1.0


def test_an_honest_export_zip_is_read_whole():
    export = (DATA / "claude-ai-conversations.json").read_bytes()
    result = parse_file(zipped({"conversations.json": export}), "export.zip")
    assert result.errors == [] and result.format_name == "Claude.ai export" and len(result.conversations) == 2


def test_an_encrypted_zip_is_refused_as_unreadable_not_a_crash():
    data = bytearray(zipped({"conversations.json": b"[]"}))
    data[6] |= 1  # the local header's flag: encrypted
    central = data.rfind(b"PK\x01\x02")
    data[central + 8] |= 1  # the central directory's
    result = parse_file(bytes(data), "export.zip")
    assert len(result.errors) == 1 and "not a readable zip" in str(result.errors[0])
