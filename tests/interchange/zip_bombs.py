"""Zip bombs for the tests, built in milliseconds: a deflate stream of N MiB of spaces is one
compressed MiB (flushed in full, so every further MiB compresses to the same bytes) repeated,
written into a zip by hand so that its header can say any size."""

from __future__ import annotations

import struct
import zlib

MIB = 1 << 20


def _spaces_deflated(mib: int, crc_needed: bool) -> tuple[bytes, int]:
    """A raw deflate stream of ``mib`` MiB of spaces, and the CRC-32 of what it inflates to
    (0 unless ``crc_needed``: a header that lies about the size may lie about the CRC)."""
    chunk = b" " * MIB
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    ending = compressor.flush()
    crc = 0
    for _ in range(mib if crc_needed else 0):
        crc = zlib.crc32(chunk, crc)
    return first + again * (mib - 1) + ending, crc


def spaces_zip(mib: int, *, declared: int | None = None, name: str = "conversations.json") -> bytes:
    """A zip whose one member inflates to ``mib`` MiB of spaces; its headers declare
    ``declared`` bytes (default: the truth). Sizes below 4 GiB (no zip64)."""
    stream, crc = _spaces_deflated(mib, crc_needed=declared is None)
    size = mib * MIB if declared is None else declared
    filename = name.encode()
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(stream), size, len(filename), 0) + filename
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(stream), size, len(filename),
                          0, 0, 0, 0, 0, 0) + filename
    offset = len(local) + len(stream)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), offset, 0)
    return local + stream + central + end
