"""The example of docs/api.md works as printed: against the demo (load_demo), the shell's JSON
and the Python script's `judgments` are the same request, and it is accepted."""

import ast
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.models import Conversation, Nugget

DOC = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()


@pytest.fixture
def demo(db):
    call_command("load_demo", stdout=open("/dev/null", "w"))


def shell_json(version: int = 0) -> dict:
    """The heredoc's JSON, with the $VERSION the script reads just before."""
    return json.loads(re.search(r"<<JSON\n(.*?)\nJSON\n", DOC, re.S).group(1).replace("$VERSION", str(version)))


def python_judgments() -> dict:
    source = re.search(r"^judgments = (\{.*?\n\})$", DOC, re.S | re.M).group(1)
    return ast.literal_eval(source)


def test_the_shell_and_python_examples_send_the_same_judgments():
    assert shell_json(812) == {**python_judgments(), "version": 812}


def test_the_documented_example_is_accepted_for_the_demos_baseline_judge(demo):
    paper = Conversation.objects.get(topic__code="M002", run__name="bing-trial1")
    token = Token.objects.create(user_id=paper.assignments.get(annotator__username="baseline").annotator_id)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    listed = client.get("/api/conversations/", {"campaign": "fairweb1"}).json()["results"][0]["id"]
    assert listed == paper.pk  # the first the judge is given: the paper's M002 conversation
    version = client.get(f"/api/conversations/{listed}/judgments/").json()["version"]
    assert version > 0  # the demo's baseline has judged it: the example replaces those knowingly
    response = client.post(f"/api/conversations/{listed}/judgments/", shell_json(version), format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["nuggets"] == 2
    assert sorted(Nugget.objects.filter(annotator__username="baseline", turn__conversation=paper)
                  .values_list("entity__key", flat=True)) == [
        "https://imdb.com/title/tt0088763", "https://imdb.com/title/tt1276104"]
