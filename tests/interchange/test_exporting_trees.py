"""Exports of conversations that branch (issue 42): JSONL keeps the tree; the paper format, which
holds one line of turns, refuses it and says why."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model

from annotator.interchange.exports.catalogue import ExportRefused, stream
from annotator.interchange.formats.jsonl import parse_jsonl, write_jsonl
from annotator.interchange.imports.conversations import import_files
from annotator.models import Campaign
from tests.commands.helpers import load_fairweb
from tests.scores.test_conversation_trees_scored import tree_line


@pytest.fixture
def campaign(db):
    load_fairweb()
    return Campaign.objects.get(slug="fairweb1")


def test_a_tree_exports_as_jsonl_as_it_was_imported(campaign):
    organiser = get_user_model().objects.create_user("organiser")
    line = json.dumps(tree_line()) + "\n"
    result = import_files(campaign, [("tree.jsonl", line.encode())], annotator=organiser)
    assert not result.errors, result.errors
    exported = "".join(stream(campaign, "jsonl", organiser))
    assert exported == write_jsonl(parse_jsonl(line, "tree.jsonl").conversations)


def test_the_paper_export_refuses_a_campaign_whose_conversations_branch(campaign):
    organiser = get_user_model().objects.create_user("organiser")
    import_files(campaign, [("tree.jsonl", (json.dumps(tree_line()) + "\n").encode())], annotator=organiser)
    with pytest.raises(ExportRefused, match=r"1 conversation\(s\) of campaign fairweb1 branch \(M001 / bing-trial1\)"):
        stream(campaign, "paper", organiser)
