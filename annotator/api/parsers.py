"""Request body parsers of the API."""

from __future__ import annotations

import codecs
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding
from rest_framework.utils import json

from annotator.interchange.formats.model import loads_json


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, reading with `loads_json`: a body nested too deeply (``[[[[...``) is a
    400 with a message, not a RecursionError (500)."""

    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        text = codecs.getreader(get_encoding(parser_context or {}))(stream)
        try:
            return loads_json(text.read(), parse_constant=json.strict_constant if self.strict else None)
        except ValueError as error:  # malformed or too deep JSON, and bad encodings
            raise ParseError(f"JSON parse error - {error}") from None
