"""python manage.py judge_with_llm --campaign S --judge NAME (--server NAME | --base-url URL) --model M
[--topic T ...] [--run R ...] [--concurrency N] [--limit N]

Annotate a campaign's conversations with an LLM through any OpenAI-compatible server
(llama.cpp's server, vLLM, Ollama, a vendor's API) as the automatic judge NAME of the campaign
(made if unknown), replacing its earlier judgments (annotator.llm_judge.runner). `--server`
names one of the deployment's listed servers (GFRC_LLM_SERVERS: its address and key variable
come from the listing), as the console and the API do; `--base-url` (with `--key-variable`,
OPENAI_API_KEY by default) is for whoever has a shell on the server, who holds its environment
already. The key is read from the environment, never stored. A line per conversation says what
was written or why it was skipped; the exit status is 1 when any conversation was skipped.
Answers are cached: run it again to resume an interrupted run.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotator.llm_judge import servers
from annotator.llm_judge.client import RESPONSE_FORMATS, ServerSettings
from annotator.llm_judge.prompt import QUOTES, QUOTES_FREE
from annotator.llm_judge.runner import JudgeRefused, execute, new_run
from annotator.models import Campaign


class Command(BaseCommand):
    help = "Annotate a campaign with an LLM (any OpenAI-compatible server) as an automatic judge."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, metavar="S")
        parser.add_argument("--judge", required=True, metavar="NAME", help="the automatic judge account (made if unknown)")
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument("--server", metavar="NAME", help="one of the deployment's listed servers (GFRC_LLM_SERVERS)")
        where.add_argument("--base-url", metavar="URL", help="any server, e.g. http://127.0.0.1:8080/v1 (shell users)")
        parser.add_argument("--model", required=True, metavar="M")
        parser.add_argument("--topic", action="append", default=[], metavar="T", help="only these topics (repeat)")
        parser.add_argument("--run", action="append", default=[], metavar="R", help="only these runs (repeat)")
        parser.add_argument("--concurrency", type=int, default=1, metavar="N", help="requests at once (default 1)")
        parser.add_argument("--limit", type=int, default=None, metavar="N", help="at most N conversations")
        parser.add_argument("--quotes", choices=QUOTES, default=QUOTES_FREE,
                            help="free: the model quotes any words of the turn (default); lines: it picks one of the "
                                 "turn's lines, the server's grammar forcing an exact copy (small models)")
        parser.add_argument("--key-variable", default=None, metavar="VAR",
                            help="with --base-url: the environment variable holding the API key (default OPENAI_API_KEY; "
                                 "none needed locally); a listed server's is the listing's")
        parser.add_argument("--temperature", type=float, default=0.0)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--max-tokens", type=int, default=1024, help="per answer (default 1024)")
        parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request (default 120)")
        parser.add_argument("--retries", type=int, default=2, help="more attempts after a failure, with backoff (default 2)")
        parser.add_argument("--response-format", choices=RESPONSE_FORMATS, default="json_object",
                            help="json_object with a schema (llama.cpp's server, the default) or json_schema (vLLM, Ollama, vendors)")

    def handle(self, *args, **o):
        campaign = Campaign.objects.filter(slug=o["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign {o['campaign']!r}")
        if o["max_tokens"] < 1 or o["timeout"] <= 0 or o["retries"] < 0:
            raise CommandError("--max-tokens and --timeout are positive, --retries 0 or more")
        parameters = dict(temperature=o["temperature"], seed=o["seed"], max_tokens=o["max_tokens"], timeout=o["timeout"],
                          retries=o["retries"], response_format=o["response_format"])
        if o["server"]:
            if o["key_variable"]:
                raise CommandError("--key-variable goes with --base-url: a listed server's key variable is the listing's")
            try:
                settings = servers.listed(o["server"], o["model"]).settings_for(o["model"], **parameters)
            except servers.ServerNotListed as refused:
                raise CommandError(str(refused)) from None
        else:
            settings = ServerSettings(base_url=o["base_url"], model=o["model"],
                                      key_variable=o["key_variable"] or "OPENAI_API_KEY", **parameters)
        try:
            run = new_run(campaign, o["judge"], settings, topics=o["topic"], runs=o["run"],
                          concurrency=o["concurrency"], limit=o["limit"], quotes=o["quotes"])
        except JudgeRefused as refused:
            raise CommandError(str(refused)) from None
        self.stdout.write(f"{run.describe()}: {o['judge']} on {campaign.slug}")
        execute(run, settings=None if o["server"] else settings, report=self.stdout.write)
        self.stdout.write(run.summary)
        self.stdout.write(f"Compare it with the gold: manage.py compare_judges --campaign {campaign.slug} --judge {o['judge']}")
        if run.failed:
            raise CommandError(f"{run.failed} conversation{'s' if run.failed != 1 else ''} skipped (listed above)", returncode=1)
