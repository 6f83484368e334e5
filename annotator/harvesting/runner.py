"""A whole harvest: `manage.py harvest` and the console's background job.

    harvest = new_harvest(campaign, "gemma", server="local", model="gemma-3", trials=2, topics=["M001"])
    execute(harvest, report=print)

Every chosen topic (all of the campaign's when none is named) is asked `trials` times, the
conversation of trial k becoming run `<system>-trial<k>` (annotator.harvesting.protocol). A
conversation already in the campaign for that topic and run is kept and never asked again (a
harvest run again resumes where it stopped), unless the harvest replaces (then it is asked
anew and replaces the old one, with every judgment on it).

`concurrency` conversations are in flight at once, in threads that only talk to the servers
(annotator.harvesting.asking); everything that touches the database happens in the calling
thread, one conversation at a time, so SQLite's one writer and PostgreSQL see the same writes.
A conversation held to its end is imported as its request/response log would be from a file
(annotator.interchange.imports.conversations: all or nothing; the systems' citations become
nuggets of the automatic judge `citations`), with its provenance (annotator.models.HarvestedAnswer):
written first, untied, then tied to the conversation the import published. A harvest killed
between the two leaves rows untied; the next harvest of the campaign ties them (their
conversation was published) or drops them (it was not). A conversation whose system failed
(after the client's retries), or that the import refused, is reported with why, and nothing
of it is stored. A kill loses at most the conversations in flight.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max

from annotator.background import jobs as background
from annotator.harvesting.asking import Asker, Held, Stopped, hold
from annotator.harvesting.protocol import TopicAsked, first_turn, run_name
from annotator.interchange.imports.conversations import import_files
from annotator.llm_judge import servers
from annotator.llm_judge.client import ServerError, make_client
from annotator.models import Campaign, Conversation, HarvestedAnswer, HarvestRun, Run, Topic
from annotator.rules.campaign_settings import MAX_FOLLOW_UPS, TEMPLATE_FIELDS, template_problem
from annotator.rules.ids import RUN, id_problem

__all__ = ["HarvestRefused", "new_harvest", "execute", "tie_untied", "reap_abandoned", "MAX_TRIALS", "MAX_CONCURRENCY"]

# What a harvest counts as it goes (its page shows them), written with each progress write.
COUNTS = ("conversations", "harvested", "kept", "failed", "requests", "prompt_tokens", "completion_tokens", "failures")
CANCEL_POLL_SECONDS = 0.5
MAX_TRIALS = 100
MAX_CONCURRENCY = 16
MAX_FAILURES_KEPT = 1_000


class HarvestRefused(ValueError):
    """The harvest cannot start: what was asked is not allowed, and why."""


def new_harvest(campaign: Campaign, system: str, *, server: str, model: str, trials: int = 2, topics=(),
                follow_ups: list[str] | None = None, concurrency: int = 1, replace: bool = False,
                user_server: str = "", user_model: str = "", system_message: str = "", parameters: dict | None = None,
                created_by=None) -> HarvestRun:
    """Check what was asked and record the harvest (queued); `execute` runs it. `follow_ups`:
    None for the campaign's (annotator.models.Campaign.harvest_follow_ups). `parameters`:
    temperature, seed, max_tokens, timeout, retries."""
    system = (system or "").strip()
    last = run_name(system, max(trials, 1))
    if not system or (problem := id_problem(RUN, last)) is not None:
        raise HarvestRefused(f"system {system!r}: its runs are named {last!r}, and "
                             f"{problem or 'a run needs a system name'}")
    if Run.system_and_trial_of(run_name(system, 1)) != (system, 1) or Run.system_and_trial_of(system) != (system, 1):
        raise HarvestRefused(f"system {system!r}: a system's name does not end in -trial<N> (its runs add it)")
    if not 1 <= trials <= MAX_TRIALS or not 1 <= concurrency <= MAX_CONCURRENCY:
        raise HarvestRefused(f"trials are 1 to {MAX_TRIALS}, concurrency 1 to {MAX_CONCURRENCY}")
    try:
        listed = servers.listed(server, model)
        if user_server or user_model:
            servers.listed(user_server, user_model or None)
    except servers.ServerNotListed as refused:
        raise HarvestRefused(str(refused)) from None
    if bool(user_server) != bool(user_model):
        raise HarvestRefused("a simulated user is a listed server and a model: give both")
    topics = sorted(set(topics))
    known = set(Topic.objects.filter(campaign=campaign, code__in=topics).values_list("code", flat=True))
    if missing := sorted(set(topics) - known):
        raise HarvestRefused(f"no topic {', '.join(missing)} in {campaign.slug}")
    follow_ups = list(campaign.harvest_follow_ups if follow_ups is None else follow_ups)
    if len(follow_ups) > MAX_FOLLOW_UPS:
        raise HarvestRefused(f"at most {MAX_FOLLOW_UPS} follow-ups")
    for i, text in enumerate(follow_ups, 1):
        if (problem := template_problem(text, TEMPLATE_FIELDS)) is not None:
            raise HarvestRefused(f"follow-up {i}: {problem}")
    return HarvestRun.objects.create(
        campaign=campaign, created_by=created_by, system=system, server=server, base_url=listed.base_url, model=model,
        user_server=user_server, user_model=user_model, system_message=system_message.strip(), trials=trials, topics=topics, follow_ups=follow_ups,
        concurrency=concurrency, replace=replace, **(parameters or {}),
    )


def _asker(server: str, model: str, harvest: HarvestRun) -> Asker:
    """The model on the listed server, as the listing says now (ServerNotListed)."""
    settings = servers.listed(server, model).settings_for(
        model, temperature=harvest.temperature, seed=harvest.seed, max_tokens=harvest.max_tokens,
        timeout=harvest.timeout, retries=harvest.retries)
    return Asker(settings, make_client(settings))


@dataclass(frozen=True)
class Ask:
    topic: TopicAsked
    trial: int
    run: str
    first: str


def log_name(topic: str, run: str) -> str:
    """The name a held conversation's log is imported under (its conversation's `source`)."""
    return f"{topic}-{run}.jsonl"


def tie_untied(campaign: Campaign) -> int:
    """Provenance rows a killed harvest left untied: tied to their conversation when its import
    was published, else dropped (it was not). Rows of harvests still running are theirs."""
    untied = HarvestedAnswer.objects.filter(campaign=campaign, conversation__isnull=True).exclude(
        harvest__status__in=[HarvestRun.Status.QUEUED, HarvestRun.Status.RUNNING])
    tied = 0
    for topic, run in set(untied.values_list("topic", "run")):
        rows = untied.filter(topic=topic, run=run)
        answered = rows.aggregate(last=Max("answered_at"))["last"]
        # the harvest's own import: its file's name, published after the answers came
        conversation = Conversation.objects.filter(topic__campaign=campaign, topic__code=topic, run__name=run,
                                                   source=log_name(topic, run), imported_at__gte=answered).first()
        with transaction.atomic():
            if conversation is not None and not conversation.harvested_answers.exists():
                tied += rows.update(conversation=conversation)
            else:
                rows.delete()
    return tied


def reap_abandoned(harvests) -> int:
    """End the running harvests among `harvests` whose process is gone (a killed command, a dead
    worker: annotator.background.jobs.reap_abandoned); what they stored stays."""
    return background.reap_abandoned(harvests, _abandoned)


def _abandoned(harvest: HarvestRun, why: str) -> dict:
    return {"summary": "The process running this stopped. What it stored stays (one import per conversation): run it "
                       "again to go on."}


def chosen(harvest: HarvestRun) -> list[Ask]:
    """What the harvest asks: each topic (in code order) and trial."""
    campaign = harvest.campaign
    topics = Topic.objects.filter(campaign=campaign).select_related("topic_type").order_by("code")
    if harvest.topics:
        topics = topics.filter(code__in=harvest.topics)
    asks = []
    for t in topics:
        asked = TopicAsked(t.code, t.description, t.topic_type.code, t.topic_type.name)
        first = first_turn(campaign.harvest_templates or {}, asked)
        asks += [Ask(asked, k, run_name(harvest.system, k), first) for k in range(1, harvest.trials + 1)]
    return asks


class _Harvesting(background.ProgressWriter):
    """A harvest's progress on its row, its report lines, its cancel."""

    def __init__(self, harvest: HarvestRun, report: Callable[[str], None] | None):
        super().__init__(harvest, COUNTS)
        self.harvest, self.report = harvest, report
        self.watch = background.CancelWatch(harvest, every=CANCEL_POLL_SECONDS)

    def say(self, line: str) -> None:
        if self.report is not None:
            self.report(line)

    def cancelled(self) -> bool:
        """Whether an organiser asked to cancel (read at most every CANCEL_POLL_SECONDS)."""
        return self.watch.requested()

    def fail(self, ask: Ask, problem: str) -> None:
        h = self.harvest
        h.failed += 1
        if len(h.failures) < MAX_FAILURES_KEPT:
            h.failures.append({"topic": ask.topic.code, "run": ask.run, "problem": problem})
        self.say(f"{ask.topic.code} / {ask.run}: failed, nothing stored: {problem}")
        self.save()


def execute(harvest: HarvestRun, report: Callable[[str], None] | None = None) -> HarvestRun:
    """Run the harvest; returns it, ended (done, cancelled, or stopped saying why)."""
    harvest.harvested = harvest.kept = harvest.failed = harvest.requests = harvest.prompt_tokens = harvest.completion_tokens = 0
    harvest.failures = []
    background.begin(harvest, counts=COUNTS)  # a harvest whose process died is then ended as stopped (reap_abandoned)
    progress = _Harvesting(harvest, report)
    try:
        system = _asker(harvest.server, harvest.model, harvest)
        user = _asker(harvest.user_server, harvest.user_model, harvest) if harvest.user_server else None
    except servers.ServerNotListed as refused:
        _end(harvest, HarvestRun.Status.FAILED, f"Nothing asked: {refused}.")
        return harvest
    reap_abandoned(harvest.campaign.harvests.exclude(pk=harvest.pk))  # a killed command's rows are then tied
    tie_untied(harvest.campaign)
    asks = _to_ask(harvest, chosen(harvest), progress)
    progress.save(force=True)
    pool = ThreadPoolExecutor(max_workers=harvest.concurrency, thread_name_prefix=f"harvest-{harvest.pk}")
    in_flight: dict[Future, Ask] = {}
    try:
        cancelled = _ask_all(harvest, asks, in_flight, pool, system, user, progress)
    except (KeyboardInterrupt, SystemExit):
        pool.shutdown(wait=False, cancel_futures=True)
        _end(harvest, HarvestRun.Status.FAILED,
             f"Interrupted: {_counts(harvest)}; {len(in_flight)} conversation{'s' if len(in_flight) != 1 else ''} in "
             "flight lost. Run it again to resume: what was stored is not asked again.")
        raise
    pool.shutdown(wait=not cancelled, cancel_futures=True)
    if cancelled:
        who = harvest.cancelled_by.get_username() if harvest.cancelled_by_id else "an organiser"
        _end(harvest, HarvestRun.Status.CANCELLED,
             f"Cancelled by {who}: {_counts(harvest)}; the conversations in flight were abandoned. What was stored "
             "stays: run it again to go on.")
    else:
        _end(harvest, HarvestRun.Status.DONE, _counts(harvest) + ".")
    return harvest


def _to_ask(harvest: HarvestRun, asks: list[Ask], progress: _Harvesting) -> list[Ask]:
    """The conversations to ask: those already there are kept (unless the harvest replaces),
    those of a ranked-list run fail at once."""
    harvest.conversations = len(asks)
    there = set(Conversation.objects.filter(
        topic__campaign=harvest.campaign, run__name__in={a.run for a in asks}).values_list("topic__code", "run__name"))
    ranked = set(Run.objects.filter(campaign=harvest.campaign, name__in={a.run for a in asks},
                                    kind=Run.Kind.RANKED_LISTS).values_list("name", flat=True))
    out = []
    for ask in asks:
        if ask.run in ranked:
            progress.fail(ask, f"{ask.run} is a ranked-list run: a conversation cannot be stored in it")
        elif (ask.topic.code, ask.run) in there and not harvest.replace:
            harvest.kept += 1
            progress.say(f"{ask.topic.code} / {ask.run}: already in the campaign, not asked again "
                         "(replace harvests it anew)")
        else:
            out.append(ask)
    return out


def _ask_all(harvest: HarvestRun, asks: list[Ask], in_flight: dict[Future, Ask], pool: ThreadPoolExecutor,
             system: Asker, user: Asker | None, progress: _Harvesting) -> bool:
    """Ask every conversation, `concurrency` at once, storing each as it ends; True when
    cancelled (nothing more is begun or stored)."""
    campaign = harvest.campaign
    stop = progress.cancelled
    position = 0
    while position < len(asks) or in_flight:
        if stop():
            return True
        while position < len(asks) and len(in_flight) < harvest.concurrency:
            a = asks[position]
            position += 1
            in_flight[pool.submit(hold, a.topic, a.run, a.trial, a.first, harvest.follow_ups, system, user=user,
                                  user_prompt=campaign.harvest_user_prompt, system_message=harvest.system_message,
                                  stopped=lambda: harvest.cancel_requested_at is not None)] = a
        done, _ = wait(list(in_flight), timeout=CANCEL_POLL_SECONDS, return_when=FIRST_COMPLETED)
        for future in done:
            ask = in_flight.pop(future)
            try:
                held = future.result()
            except Stopped:
                continue
            except ServerError as error:
                progress.fail(ask, str(error))
                continue
            _store(harvest, ask, held, progress)
        progress.save()
    return False


def _store(harvest: HarvestRun, ask: Ask, held: Held, progress: _Harvesting) -> None:
    """Import the held conversation with its provenance, or report why not (nothing stored)."""
    harvest.requests += len(held.said)
    for said in held.said:
        harvest.prompt_tokens += said.prompt_tokens
        harvest.completion_tokens += said.completion_tokens
    rows = HarvestedAnswer.objects.bulk_create([HarvestedAnswer(
        campaign=harvest.campaign, harvest=harvest, topic=ask.topic.code, run=ask.run, role=s.role, number=s.number,
        server=s.server, model=s.model, model_answered=s.model_answered, parameters=s.parameters,
        requested_at=s.requested_at, answered_at=s.answered_at, prompt_tokens=s.prompt_tokens,
        completion_tokens=s.completion_tokens, raw=s.raw) for s in held.said])
    ids = [r.pk for r in rows] if all(r.pk for r in rows) else list(HarvestedAnswer.objects.filter(
        harvest=harvest, topic=ask.topic.code, run=ask.run, conversation__isnull=True).values_list("pk", flat=True))
    try:
        result = import_files(harvest.campaign, [(log_name(ask.topic.code, ask.run), held.log())], run=ask.run,
                              topic=ask.topic.code, replace=harvest.replace, actor=harvest.created_by)
    except Exception:
        HarvestedAnswer.objects.filter(pk__in=ids).delete()
        raise
    conversation = Conversation.objects.filter(topic__campaign=harvest.campaign, topic__code=ask.topic.code,
                                               run__name=ask.run).first()
    if result.errors or conversation is None:
        HarvestedAnswer.objects.filter(pk__in=ids).delete()
        said = "; ".join(str(e) for e in result.errors[:3]) or "the import stored nothing"
        progress.fail(ask, f"the import refused it: {said}")
        return
    with transaction.atomic():
        conversation.harvested_answers.exclude(pk__in=ids).delete()
        HarvestedAnswer.objects.filter(pk__in=ids).update(conversation=conversation)
    harvest.harvested += 1
    notes = f", {len(result.warnings)} warning{'s' if len(result.warnings) != 1 else ''}" if result.warnings else ""
    progress.say(f"{ask.topic.code} / {ask.run}: {len(held.calls)} answer{'s' if len(held.calls) != 1 else ''}, "
                 f"{result.citations} citation{'s' if result.citations != 1 else ''} proposed{notes}")
    progress.save()


def _counts(h: HarvestRun) -> str:
    return (f"{h.harvested} of {h.conversations} conversations harvested, {h.kept} already there kept, {h.failed} failed; "
            f"{h.requests} answers, {h.prompt_tokens} prompt and {h.completion_tokens} completion tokens")


def _end(harvest: HarvestRun, status: str, summary: str) -> None:
    background.finish(harvest, status, summary, counts=COUNTS)
