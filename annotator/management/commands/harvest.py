"""python manage.py harvest --campaign S --system NAME --server SERVER --model M --trials N
[--topic T ...] [--follow-up TEXT ...] [--concurrency K] [--replace]
[--user-server SERVER --user-model M]

Harvest a campaign's topics from a system through one of the deployment's listed LLM servers
(GFRC_LLM_SERVERS; its address and key variable come from the listing), trial after trial
(annotator.harvesting, docs/harvesting.md): each topic's conversation opens with the first
user turn of its topic type's template (the campaign's settings; the paper's "Please list up
{description}." by default), then each follow-up (`--follow-up`, repeatable; the campaign's
by default: "Can you name a few more?"), or as many written by a simulated user (`--user-server`
and `--user-model`: a second listed server and model, with the campaign's prompt). Trial k is
run `<system>-trial<k>`. Each conversation is imported as its request/response log (the
systems' citations become proposed nuggets) with its provenance. A conversation already there
is not asked again (run the command again to resume), unless `--replace`. A line per
conversation says what was stored or why it failed; the exit status is 1 when any failed.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotator.harvesting.runner import MAX_CONCURRENCY, MAX_TRIALS, HarvestRefused, execute, new_harvest
from annotator.models import Campaign, HarvestRun


class Command(BaseCommand):
    help = "Harvest a campaign's topics from a system on a listed LLM server, trial after trial."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, metavar="S")
        parser.add_argument("--system", required=True, metavar="NAME", help="the system: its runs are NAME-trial<k>")
        parser.add_argument("--server", required=True, metavar="SERVER", help="one of the deployment's listed servers")
        parser.add_argument("--model", required=True, metavar="M")
        parser.add_argument("--trials", type=int, default=2, metavar="N", help=f"trials a topic (default 2, at most {MAX_TRIALS})")
        parser.add_argument("--topic", action="append", default=[], metavar="T", help="only these topics (repeat)")
        parser.add_argument("--follow-up", action="append", default=None, metavar="TEXT",
                            help="the user turns after the first, in order (repeat; default: the campaign's)")
        parser.add_argument("--no-follow-up", action="store_true", help="ask the first turn only")
        parser.add_argument("--concurrency", type=int, default=1, metavar="K",
                            help=f"conversations in flight at once (default 1, at most {MAX_CONCURRENCY})")
        parser.add_argument("--replace", action="store_true",
                            help="harvest anew the conversations already there (replacing them and their judgments)")
        parser.add_argument("--user-server", default="", metavar="SERVER", help="a simulated user's listed server")
        parser.add_argument("--user-model", default="", metavar="M", help="a simulated user's model")
        parser.add_argument("--system-message", default="", metavar="TEXT",
                            help="sent first as the system message of every request (default: none, as a chat UI)")
        parser.add_argument("--temperature", type=float, default=0.0)
        parser.add_argument("--seed", type=int, default=None, help="sent when given")
        parser.add_argument("--max-tokens", type=int, default=2048, help="per answer (default 2048)")
        parser.add_argument("--timeout", type=float, default=120.0, help="seconds per attempt (default 120)")
        parser.add_argument("--retries", type=int, default=3, help="more attempts after a failure, with backoff (default 3)")

    def handle(self, *args, **o):
        campaign = Campaign.objects.filter(slug=o["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign {o['campaign']!r}")
        if o["max_tokens"] < 1 or o["timeout"] <= 0 or o["retries"] < 0 or not 0 <= o["temperature"] <= 2:
            raise CommandError("--max-tokens and --timeout are positive, --retries 0 or more, --temperature 0 to 2")
        if o["no_follow_up"] and o["follow_up"]:
            raise CommandError("--no-follow-up or --follow-up, not both")
        parameters = {k: o[k] for k in ("temperature", "seed", "max_tokens", "timeout", "retries")}
        try:
            harvest = new_harvest(
                campaign, o["system"], server=o["server"], model=o["model"], trials=o["trials"], topics=o["topic"],
                follow_ups=[] if o["no_follow_up"] else o["follow_up"], concurrency=o["concurrency"],
                replace=o["replace"], user_server=o["user_server"], user_model=o["user_model"],
                system_message=o["system_message"], parameters=parameters)
        except HarvestRefused as refused:
            raise CommandError(str(refused)) from None
        self.stdout.write(f"Harvest {harvest.pk} of {campaign.slug}: {harvest.describe()}")
        execute(harvest, report=self.stdout.write)
        self.stdout.write(harvest.summary)
        if harvest.status != HarvestRun.Status.DONE or harvest.failed:
            raise CommandError(f"{harvest.failed} conversation{'s' if harvest.failed != 1 else ''} failed"
                               if harvest.status == HarvestRun.Status.DONE else harvest.summary)
