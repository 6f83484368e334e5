"""The one reader of uploaded zips (a data export as downloaded: ChatGPT's and Claude.ai's
``conversations.json``, Google Takeout's Gemini Apps ``MyActivity.json``), which no zip bomb
gets past.

A member is refused from its header, before anything is inflated, when it declares more than
MAX_UNZIPPED bytes or more than MAX_RATIO times its compressed size (text compresses a few
times, JSON exports at most some tens of times; a file of spaces a thousand times). Then it is
inflated counting the bytes as they come out, and reading stops one byte past what the header
declared: a header that says 1 KB of a member that inflates to 2 GiB costs one kilobyte, not
two gigabytes (zipfile itself inflates it all before its CRC check finds the lie).

Pure Python, no Django.
"""

from __future__ import annotations

import copy
import io
import zipfile

from .model import FormatError

__all__ = ["unzipped", "read_member", "ZIP_MAGIC", "MAX_UNZIPPED", "MAX_RATIO"]

ZIP_MAGIC = b"PK\x03\x04"
EXPORT_IN_ZIP = "conversations.json"  # ChatGPT's and Claude.ai's exports
TAKEOUT_IN_ZIP = "MyActivity.json"  # Google Takeout: Takeout/My Activity/Gemini Apps/MyActivity.json
MAX_UNZIPPED = 200 << 20  # 200 MiB: ten times the largest upload (GFRC_MAX_UPLOAD_MB, 20) at JSON's usual ratio
MAX_RATIO = 100
RATIO_FROM = 1 << 20  # below a MiB, any ratio: small files of repeated text compress well and cost nothing
CHUNK = 1 << 20


class Refused(Exception):
    """A member not read, and why."""


def unzipped(data: bytes, path: str) -> tuple[bytes, FormatError | None]:
    """A data export as it is downloaded (a zip): ChatGPT's or Claude.ai's conversations.json,
    or Google Takeout's Gemini Apps activity (MyActivity.json in a folder named for Gemini;
    the folder names are translated, "Gemini" is not), read by ``read_member``. Any other data
    as it is."""
    if not data.startswith(ZIP_MAGIC):
        return data, None
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            member = next((i for i in members if i.filename.rsplit("/", 1)[-1] == EXPORT_IN_ZIP), None) or next(
                (i for i in members if i.filename.rsplit("/", 1)[-1] == TAKEOUT_IN_ZIP and "gemini" in i.filename.lower()), None)
            if member is None:
                return b"", FormatError(path, 0, f"a zip without {EXPORT_IN_ZIP} or Gemini Apps/{TAKEOUT_IN_ZIP}: only ChatGPT's "
                                        "and Claude.ai's data exports and Google Takeout's Gemini Apps activity are read from a zip")
            return read_member(archive, member), None
    except Refused as refused:
        return b"", FormatError(path, 0, str(refused))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, OSError, EOFError, ValueError) as exc:
        return b"", FormatError(path, 0, f"not a readable zip: {exc}")


def read_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, *, limit: int = MAX_UNZIPPED) -> bytes:
    """The member's bytes, or Refused when its header declares too much (more than ``limit``
    bytes, or more than MAX_RATIO times its compressed size) or it inflates past what its
    header declares (read stops there, whatever follows)."""
    name, size, packed = member.filename, member.file_size, member.compress_size
    if size > limit:
        raise Refused(f"{name} would be {size:,} bytes unzipped, more than the {limit:,} read from a zip: refused")
    if size > RATIO_FROM and size > MAX_RATIO * packed:
        raise Refused(f"{name} would inflate {packed:,} bytes to {size:,} (more than {MAX_RATIO} times: a zip bomb): refused")
    out = bytearray()
    # zipfile cuts a member at its declared size (then finds a bad CRC): told more (a read may
    # inflate a few KB beyond what it returns), it lets the byte past the size through, which is
    # how a lying header shows. At the end it checks the CRC.
    told = copy.copy(member)
    told.file_size = size + 2 * CHUNK
    with archive.open(told) as member_file:
        while chunk := member_file.read(min(CHUNK, size + 1 - len(out))):
            out += chunk
            if len(out) > size:
                raise Refused(f"{name} inflates past the {size:,} bytes its header declares (a zip bomb): refused")
    return bytes(out)
