"""The deployment's list of LLM servers (GFRC_LLM_SERVERS): what it may hold, what a malformed
one says, and which server and model a name gives."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from annotator.llm_judge import servers

LISTING = {
    "local": {"base_url": "http://127.0.0.1:8080/v1"},
    "vllm": {"base_url": "https://gpu-host:8000/v1", "key_variable": "VLLM_KEY", "models": ["qwen2.5-7b", "llama-3.1-8b"]},
}


def test_a_listed_server_gives_its_address_its_key_variable_and_its_models(settings):
    settings.GFRC_LLM_SERVERS = LISTING
    listed = servers.listed_servers()
    assert list(listed) == ["local", "vllm"]
    assert listed["vllm"] == servers.ListedServer("vllm", "https://gpu-host:8000/v1", "VLLM_KEY", ("qwen2.5-7b", "llama-3.1-8b"))
    assert listed["local"].key_variable is None and listed["local"].offers("anything")
    settings_for = servers.listed("vllm", "qwen2.5-7b").settings_for("qwen2.5-7b", temperature=0.3)
    assert (settings_for.server, settings_for.base_url, settings_for.key_variable, settings_for.temperature) == (
        "vllm", "https://gpu-host:8000/v1", "VLLM_KEY", 0.3)


def test_a_name_not_listed_or_a_model_not_offered_is_refused_saying_what_is(settings):
    settings.GFRC_LLM_SERVERS = LISTING
    with pytest.raises(servers.ServerNotListed, match=r"no LLM server named 'mine' .*listed: local, vllm"):
        servers.listed("mine")
    with pytest.raises(servers.ServerNotListed, match=r"does not offer the model 'gpt-4o' \(its models: qwen2.5-7b, llama-3.1-8b\)"):
        servers.listed("vllm", "gpt-4o")
    with pytest.raises(servers.ServerNotListed, match="no LLM server named ''"):
        servers.listed("")


def test_nothing_listed_offers_nothing(settings):
    settings.GFRC_LLM_SERVERS = {}
    assert servers.listed_servers() == {}
    with pytest.raises(servers.ServerNotListed, match="listed: none"):
        servers.listed("local")


@pytest.mark.parametrize(("listing", "problem"), [
    ([], "a JSON object of servers by name"),
    ({"a b": {"base_url": "http://x/v1"}}, "a server's name is letters, digits"),
    ({"x": "http://x/v1"}, "an object with base_url"),
    ({"x": {"base_url": "file:///etc/passwd"}}, "base_url: an http(s) URL"),
    ({"x": {"base_url": "javascript:alert(1)"}}, "base_url: an http(s) URL"),
    ({"x": {"base_url": "http://x/v1", "key_variable": "NOT A NAME"}}, "key_variable: the name of an environment variable"),
    ({"x": {"base_url": "http://x/v1", "key_variable": "SECRET_KEY"}}, "SECRET_KEY is the app's own secret"),
    ({"x": {"base_url": "http://x/v1", "key_variable": "DATABASE_URL"}}, "DATABASE_URL is the app's own secret"),
    ({"x": {"base_url": "http://x/v1", "models": "gemma"}}, "models: a list of model names"),
    ({"x": {"base_url": "http://x/v1", "url": "http://y"}}, "unknown key url"),
])
def test_a_malformed_listing_is_refused_whole_with_its_problem(settings, listing, problem):
    settings.GFRC_LLM_SERVERS = listing
    assert any(problem in p for p in servers.listing_problems(listing))
    with pytest.raises(ImproperlyConfigured, match=problem.replace("(", r"\(").replace(")", r"\)")):
        servers.listed_servers()
    with pytest.raises(servers.ServerNotListed, match="malformed"):
        servers.listed("x")


def test_manage_py_check_reports_a_malformed_listing(settings):
    settings.GFRC_LLM_SERVERS = {"x": {"base_url": "ftp://x"}}
    with pytest.raises(SystemCheckError, match=r"annotator.E001.*base_url: an http\(s\) URL"):
        call_command("check")
    settings.GFRC_LLM_SERVERS = LISTING
    call_command("check")


def test_the_setting_is_read_from_the_environment_as_json():
    """config/settings.py: the environment's JSON, and a clear error when it is not JSON."""
    import os
    import subprocess
    import sys

    code = "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup(); " \
           "from django.conf import settings; print(sorted(settings.GFRC_LLM_SERVERS))"
    ok = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                        env={**os.environ, "GFRC_LLM_SERVERS": '{"local": {"base_url": "http://127.0.0.1:1/v1"}}'})
    assert ok.stdout.strip() == "['local']", ok.stderr
    broken = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, "GFRC_LLM_SERVERS": "{local: "})
    assert broken.returncode != 0 and "GFRC_LLM_SERVERS is not JSON" in broken.stderr
