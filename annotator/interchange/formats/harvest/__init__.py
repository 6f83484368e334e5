"""Readers of harvested conversations: what the systems under test gave, saved by an API
harvester or exported, in each vendor's own shape (docs/formats.md, "Harvested
conversations"). Pure Python, no Django.

Each family has ``NAME`` (what ParseResult.format_name says), ``SUPPORTED`` (how the refusal
of an unknown file names it), ``claims(value)`` (is this JSON value one of mine) and
``read(units, reading, emit)``. The order of FAMILIES is the order of detection: the most
particular shapes first.
"""

from __future__ import annotations

from . import anthropic, chatgpt, claude_ai, gemini, gemini_takeout, har, openai_chat, openai_responses, perplexity
from .dumps import LMSYS, SHAREGPT

FAMILIES = (har, chatgpt, claude_ai, gemini_takeout, openai_responses, gemini, perplexity, anthropic, openai_chat, SHAREGPT, LMSYS)

__all__ = ["FAMILIES", "family_of"]


def family_of(value):
    """The family whose format this JSON value is, or None."""
    return next((family for family in FAMILIES if family.claims(value)), None)
