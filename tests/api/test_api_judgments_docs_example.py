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


def shell_json() -> dict:
    return json.loads(re.search(r"<<'JSON'\n(.*?)\nJSON\n", DOC, re.S).group(1))


def python_judgments() -> dict:
    source = re.search(r"^judgments = (\{.*?\n\})$", DOC, re.S | re.M).group(1)
    return ast.literal_eval(source)


def test_the_shell_and_python_examples_send_the_same_judgments():
    assert shell_json() == python_judgments()


def test_the_documented_example_is_accepted_for_the_demos_baseline_judge(demo):
    token = Token.objects.create(user_id=Conversation.objects.get().assignments.get(annotator__username="baseline").annotator_id)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    listed = client.get("/api/conversations/", {"campaign": "fairweb1"}).json()["results"][0]["id"]
    response = client.post(f"/api/conversations/{listed}/judgments/", shell_json(), format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["nuggets"] == 2
    assert sorted(Nugget.objects.filter(annotator__username="baseline").values_list("entity__key", flat=True)) == [
        "https://imdb.com/title/tt0088763", "https://imdb.com/title/tt1276104"]
