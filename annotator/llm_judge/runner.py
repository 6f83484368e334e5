"""A run of an LLM judge over a campaign: `manage.py judge_with_llm` and the console's job.

    run = new_run(campaign, "gemma", ServerSettings(base_url=..., model=...), topics=[...], runs=[...])
    execute(run)

The conversations chosen (topics, runs, at most `limit`, in topic and run order) are asked
about one system turn at a time (annotator.llm_judge.prompt), `concurrency` requests at once
in threads that only talk to the server; everything that touches the database happens in the
calling thread. Each answer is cached as soon as it arrives (annotator.llm_judge.client), so an
interrupted run, run again, asks only what it had not. When every turn of a conversation is
answered, the answers are read (annotator.llm_judge.answers) and the conversation's judgments
are written through the judges' bulk path, `set_conversation_judgments`, replacing the
judge's earlier ones: the same rules, history and one transaction per conversation as the API.
A conversation with a refused answer (broken or cut JSON), a server that gave no answer, or a
judgment the rules refuse is skipped whole and reported; problems with single entities are
reported beside the conversation's judgments. The run records its server, model, prompt
version, temperature and seed, and the judge's description says them.

A run on a listed server (the console's, the API's, `judge_with_llm --server`) takes the
server's address and key variable from the deployment's listing when it starts
(annotator.llm_judge.servers), never from its row; a command line's `--base-url` run gives its
settings to `execute` itself. An organiser may cancel a run: no request is sent after it, what
was written stays (one transaction per conversation) and the answers received stay cached.

The judge is an automatic judge account of the run's campaign (`judge_account`): made there if
its name is new; a person's account, the gold, a reserved name (annotator.rules.accounts) or
another campaign's judge is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from django.db import transaction

from annotator.accounts import JudgeRefused, judge_account, judge_problem
from annotator.background import jobs as background
from annotator.judgments.edits import (
    AnnotationRefused, JudgedNugget, StaleEdit, judgments_version, set_conversation_judgments, vector_for_evidence,
)
from annotator.llm_judge import client as llm
from annotator.llm_judge import servers
from annotator.llm_judge.answers import read_answer
from annotator.llm_judge.prompt import PROMPT_VERSION, QUOTES_FREE, QUOTES_LINES, GradeSpec, SetSpec, TopicSpec, answer_schema, build_messages
from annotator.models import (
    AnnotatorProfile, Assignment, AttributeSet, Campaign, Conversation, Grade, LlmJudgeRun, Run, Topic, Turn,
)
from annotator.rules.candidates import lines_of

__all__ = ["JudgeRefused", "judge_account", "judge_problem", "new_run", "listed_settings", "execute"]

# What a run counts as it goes (its page shows them), written with each progress write.
COUNTS = ("conversations", "judged", "failed", "requests", "cached", "prompt_tokens", "completion_tokens", "problems")
CANCEL_POLL_SECONDS = 0.5  # how often a running run looks whether it was cancelled
MAX_PROBLEMS_KEPT = 1_000  # problems listed on the run (the row is rewritten with each progress write); all are counted


def new_run(campaign: Campaign, judge_name: str, settings: llm.ServerSettings, *, topics=(), runs=(),
            concurrency: int = 1, limit: int | None = None, quotes: str = QUOTES_FREE, created_by=None) -> LlmJudgeRun:
    """Check what was asked and record the run (queued); `execute` runs it."""
    topics, runs = sorted(set(topics)), sorted(set(runs))
    known = set(Topic.objects.filter(campaign=campaign, code__in=topics).values_list("code", flat=True))
    if set(topics) - known:
        raise JudgeRefused(f"no topic {', '.join(sorted(set(topics) - known))} in {campaign.slug}")
    known = set(Run.objects.filter(campaign=campaign, name__in=runs, kind=Run.Kind.CONVERSATIONS).values_list("name", flat=True))
    if set(runs) - known:
        raise JudgeRefused(f"no conversation run {', '.join(sorted(set(runs) - known))} in {campaign.slug}")
    if concurrency < 1 or (limit is not None and limit < 1):
        raise JudgeRefused("concurrency and limit are 1 or more")
    judge = judge_account(judge_name, campaign, description="LLM judge")
    return LlmJudgeRun.objects.create(
        campaign=campaign, judge=judge, created_by=created_by, server=settings.server, base_url=settings.base_url,
        model=settings.model, key_variable=settings.key_variable or "", prompt_version=PROMPT_VERSION, temperature=settings.temperature,
        seed=settings.seed, max_tokens=settings.max_tokens, timeout=settings.timeout, retries=settings.retries,
        response_format=settings.response_format, quotes=quotes, concurrency=concurrency,
        limit=limit, topics=topics, runs=runs,
    )


def listed_settings(run: LlmJudgeRun) -> llm.ServerSettings:
    """The settings of a run on a listed server, as the listing says now: its address and key
    variable are the deployment's, never the row's (ServerNotListed when the server or the
    model is no longer offered, or the run names none)."""
    if not run.server:
        raise servers.ServerNotListed("the run names no listed server (a command line's --base-url run is run by that "
                                      "command only)")
    server = servers.listed(run.server, run.model)
    return server.settings_for(run.model, temperature=run.temperature, seed=run.seed, max_tokens=run.max_tokens,
                               timeout=run.timeout, retries=run.retries, response_format=run.response_format)


def chosen_conversations(run: LlmJudgeRun) -> list[Conversation]:
    conversations = Conversation.objects.filter(topic__campaign_id=run.campaign_id, run__kind=Run.Kind.CONVERSATIONS)
    if run.topics:
        conversations = conversations.filter(topic__code__in=run.topics)
    if run.runs:
        conversations = conversations.filter(run__name__in=run.runs)
    conversations = conversations.select_related("topic__campaign", "topic__topic_type", "run").order_by("topic__code", "run__name")
    return list(conversations[: run.limit] if run.limit else conversations)


def topic_specs(campaign_id: int, topics: list[Topic]) -> dict[int, TopicSpec]:
    """Each topic as the prompt describes it (two queries for all of them)."""
    grades = tuple(GradeSpec(label, gain) for label, gain in
                   Grade.objects.filter(campaign_id=campaign_id).order_by("level").values_list("label", "gain"))
    sets: dict[int, list[SetSpec]] = {}
    for a in AttributeSet.objects.filter(topic_type_id__in={t.topic_type_id for t in topics}).order_by("position", "name"):
        sets.setdefault(a.topic_type_id, []).append(SetSpec(a.name, a.kind, tuple(a.groups), a.helper or {}))
    return {
        t.pk: TopicSpec(t.code, t.description, t.topic_type.name or t.topic_type.code, grades, tuple(sets.get(t.topic_type_id, ())))
        for t in topics
    }


@dataclass
class TurnRequest:
    turn: str  # S1, S2...
    text: str
    messages: list[dict]
    schema: dict
    key: str


@dataclass
class Pending:
    conversation: Conversation
    requests: list[TurnRequest]
    answers: dict[str, llm.Answer] = field(default_factory=dict)  # cache key -> answer
    failure: str | None = None


def plan(conversations: list[Conversation], settings: llm.ServerSettings, quotes: str = QUOTES_FREE,
         campaign_id: int | None = None) -> list[Pending]:
    """The requests of every conversation (its turns in one query), keyed for the cache of
    `campaign_id` (the conversations' campaign when None)."""
    if campaign_id is None and conversations:
        campaign_id = conversations[0].topic.campaign_id
    specs = topic_specs(conversations[0].topic.campaign_id, list({c.topic_id: c.topic for c in conversations}.values())) \
        if conversations else {}
    turns: dict[int, list[tuple[str, int, str]]] = {}
    for conversation_id, role, number, text in Turn.objects.filter(conversation__in=conversations).order_by(
        "conversation_id", "position"
    ).values_list("conversation_id", "role", "number", "text"):
        turns.setdefault(conversation_id, []).append((role, number, text))
    result = []
    for conversation in conversations:
        spec = specs[conversation.topic_id]
        request, asks = "", []
        for role, number, text in turns.get(conversation.pk, []):
            if role == Turn.Role.USER:
                request = text
                continue
            name = f"{role}{number}"
            messages = build_messages(spec, turn_name=name, turn_text=text, request=request)
            lines = [" ".join(line.words) for line in lines_of(text) if line.words]
            schema = answer_schema(spec, max_entities=max(10, min(100, 2 * len(lines))),
                                   lines=lines if quotes == QUOTES_LINES else None)
            asks.append(TurnRequest(name, text, messages, schema, llm.request_key(messages, schema, settings, campaign_id)))
        result.append(Pending(conversation, asks))
    return result


class _Progress(background.ProgressWriter):
    """The run's counts on its row, and its report lines."""

    def __init__(self, run: LlmJudgeRun, report: Callable[[str], None] | None):
        super().__init__(run, COUNTS)
        self.report = report

    def say(self, line: str) -> None:
        if self.report is not None:
            self.report(line)


def execute(run: LlmJudgeRun, *, settings: llm.ServerSettings | None = None, report: Callable[[str], None] | None = None,
            make_client=llm.make_client) -> LlmJudgeRun:
    """Run it to the end: every conversation judged or reported, or until an organiser cancels
    it. `settings`: a command line's own (--base-url); None, a run on a listed server, whose
    settings the listing gives now (a server no longer listed: the run fails, saying why).
    `report` gets a line per conversation. An interruption (KeyboardInterrupt, SystemExit)
    stops it as failed, saying how to resume; the answers received are cached."""
    if settings is None:
        try:
            settings = listed_settings(run)
        except servers.ServerNotListed as refused:
            _end(run, LlmJudgeRun.Status.FAILED, f"Not run: {refused}.")
            return run
    asking = _Asking(run, settings, report)
    client = make_client(settings)
    pool = ThreadPoolExecutor(max_workers=run.concurrency, thread_name_prefix=f"llm-run-{run.pk}")
    cancelled = False
    try:
        cancelled = asking.ask_all(pool, client, background.CancelWatch(run, every=CANCEL_POLL_SECONDS))
    except (KeyboardInterrupt, SystemExit):
        pool.shutdown(wait=True)  # the requests in flight are waited for: their answers are kept too
        asking.keep_finished()
        _end(run, LlmJudgeRun.Status.FAILED,
             f"Interrupted after {run.judged} of {run.conversations} conversations. The {run.requests} answers received "
             "are cached: run it again to resume without asking the server again.")
        raise
    finally:
        # cancelled: the requests in flight are left to end on their own, unread
        pool.shutdown(wait=not cancelled, cancel_futures=True)
    if cancelled:
        who = run.cancelled_by.get_username() if run.cancelled_by_id else "an organiser"
        abandoned = len(asking.futures)
        _end(run, LlmJudgeRun.Status.CANCELLED,
             f"Cancelled by {who} after {run.judged + run.failed} of {run.conversations} conversations ({run.judged} judged, "
             f"{run.failed} skipped): what was written stays, and the {run.requests - asking.failed_requests} answers "
             f"received are cached{_abandoned(abandoned)}. "
             "Run it again to go on without asking the server again.")
        return run
    _end(run, LlmJudgeRun.Status.DONE, _summary(run))
    return run


def _abandoned(count: int) -> str:
    if not count:
        return ""
    return " (1 request in flight was abandoned)" if count == 1 else f" ({count} requests in flight were abandoned)"


class _Asking:
    """A run's requests: which are cached, which wait for the server, and the conversations
    written in order as their answers come in."""

    def __init__(self, run: LlmJudgeRun, settings: llm.ServerSettings, report: Callable[[str], None] | None):
        self.run, self.settings = run, settings
        run.judged = run.failed = run.requests = run.cached = run.prompt_tokens = run.completion_tokens = 0
        run.problems = []
        background.begin(run, counts=COUNTS)  # a run whose process died is then ended as stopped (jobs.reap_abandoned)
        AnnotatorProfile.mark(run.judge, description=run.describe())
        self.progress = _Progress(run, report)
        self.pending = plan(chosen_conversations(run), settings, run.quotes, run.campaign_id)
        run.conversations = len(self.pending)
        self.progress.save(force=True)
        answers = llm.cached(sorted({r.key for p in self.pending for r in p.requests}))
        run.cached = len(answers)
        self.waiting_on: dict[str, list[Pending]] = {}
        for p in self.pending:  # prompt and completion tokens count what the run used, cached or not
            for r in p.requests:
                if r.key in answers:
                    p.answers[r.key] = answers[r.key]
                else:
                    self.waiting_on.setdefault(r.key, []).append(p)
        self.first_request = {r.key: r for p in self.pending for r in p.requests}
        self.queue = list(dict.fromkeys(r.key for p in self.pending for r in p.requests if r.key in self.waiting_on))
        self.futures: dict[Future, str] = {}
        self.failed_requests = 0

    def ask_all(self, pool: ThreadPoolExecutor, client, cancel: background.CancelWatch) -> bool:
        """Ask, keep and write until every conversation is done (False) or the run is cancelled
        (True: nothing more is sent or written)."""
        run, pending, done, position = self.run, self.pending, 0, 0
        while done < len(pending):
            if cancel.requested():
                return True
            while position < len(self.queue) and len(self.futures) < 2 * run.concurrency:
                r = self.first_request[self.queue[position]]
                position += 1
                self.futures[pool.submit(llm.ask, client, r.messages, r.schema, self.settings)] = r.key
            # conversations whose answers are all in (or that failed) are written in order
            while done < len(pending) and _ready(pending[done]):
                _finish_conversation(run, pending[done], self.progress)
                done += 1
            if done >= len(pending):
                break
            finished, _ = wait(list(self.futures), timeout=CANCEL_POLL_SECONDS, return_when=FIRST_COMPLETED)
            for future in finished:
                self.keep(future, self.futures.pop(future))
            self.progress.save()
        return False

    def keep(self, future: Future, key: str) -> None:
        """A request that ended: its answer cached and given to the conversations waiting on it,
        or its failure to them."""
        self.run.requests += 1
        try:
            answer = future.result()
        except llm.ServerError as error:
            self.failed_requests += 1
            for p in self.waiting_on[key]:
                p.failure = p.failure or f"{_turn_of(p, key)}: {error}"
            return
        llm.store(key, answer, self.settings, self.run.prompt_version, self.run.campaign_id)
        for p in self.waiting_on[key]:
            p.answers[key] = answer

    def keep_finished(self) -> None:
        """After an interruption: the answers of the requests that ended meanwhile."""
        for future, key in list(self.futures.items()):
            if future.done() and not future.cancelled() and future.exception() is None:
                self.run.requests += 1
                llm.store(key, future.result(), self.settings, self.run.prompt_version, self.run.campaign_id)


def _ready(p: Pending) -> bool:
    return p.failure is not None or all(r.key in p.answers for r in p.requests)


def _turn_of(p: Pending, key: str) -> str:
    return next((r.turn for r in p.requests if r.key == key), "?")


def _finish_conversation(run: LlmJudgeRun, p: Pending, progress: _Progress) -> None:
    """Read the conversation's answers and write its judgments, or report why not."""
    conversation = p.conversation
    name = f"{conversation.topic.code} / {conversation.run.name}"
    for r in p.requests:
        answer = p.answers.get(r.key)
        if answer is not None:
            run.prompt_tokens += answer.prompt_tokens
            run.completion_tokens += answer.completion_tokens
    problems: list[tuple[str, str]] = []
    nuggets: list[JudgedNugget] = []
    if p.failure is None:
        sets = {a.name: a for a in AttributeSet.objects.filter(topic_type_id=conversation.topic.topic_type_id)}
        spec = topic_specs(run.campaign_id, [conversation.topic])[conversation.topic_id]

        def read_evidence(set_name: str, evidence: str) -> tuple[float, ...]:
            try:
                return vector_for_evidence(sets[set_name], evidence)  # the helper, as if typed
            except AnnotationRefused as refused:
                raise ValueError(str(refused).rstrip(".")) from refused

        judged: dict = {}
        duplicates = 0
        for r in p.requests:
            answer = p.answers[r.key]
            reading = read_answer(answer.text, answer.finish_reason, spec, r.text, read_evidence, judged)
            problems += [(r.turn, problem) for problem in reading.problems]
            duplicates += reading.duplicates
            if reading.refused:
                p.failure = f"{r.turn}: {reading.problems[-1]}"
                break
            nuggets += [
                JudgedNugget(turn=r.turn, start_word=x.start, end_word=x.end, entity=x.entity, grade=x.grade,
                             memberships={k: list(v) for k, v in x.memberships.items()} or None)
                for x in reading.proposals
            ]
        if p.failure is None:
            try:
                with transaction.atomic():
                    Assignment.objects.get_or_create(conversation=conversation, annotator=run.judge)
                    # the judge replaces its own judgments knowingly: the version it has now
                    set_conversation_judgments(conversation, annotator=run.judge, actor=run.created_by or run.judge,
                                               nuggets=nuggets, expected_version=judgments_version(conversation, run.judge))
            except (AnnotationRefused, StaleEdit) as refused:
                p.failure = f"the judgments were refused: {refused}"
    if p.failure is not None:
        run.failed += 1
        _problem(run, {"conversation": name, "id": conversation.pk, "skipped": True,
                       "problem": f"skipped, nothing written: {p.failure}"})
        progress.say(f"{name}: skipped, nothing written: {p.failure}")
    else:
        run.judged += 1
        merged = f", {duplicates} repeated mention{'s' if duplicates != 1 else ''} merged" if duplicates else ""
        progress.say(f"{name}: {len(nuggets)} nuggets written{merged}"
                     + (f", {len(problems)} problem{'s' if len(problems) != 1 else ''}" if problems else ""))
    for turn, problem in problems:
        if p.failure is None or not problem.endswith("none of it is used"):
            _problem(run, {"conversation": name, "id": conversation.pk, "skipped": p.failure is not None,
                           "problem": f"{turn} {problem}"})
            progress.say(f"  {turn} {problem}")
    progress.save()


def _problem(run: LlmJudgeRun, problem: dict) -> None:
    run.problems_found = getattr(run, "problems_found", 0) + 1
    if len(run.problems) < MAX_PROBLEMS_KEPT:
        run.problems.append(problem)


def _summary(run: LlmJudgeRun) -> str:
    found = getattr(run, "problems_found", 0)
    more = f" {found} problems in all, the first {MAX_PROBLEMS_KEPT} listed." if found > MAX_PROBLEMS_KEPT else ""
    return (f"{run.judged} of {run.conversations} conversations judged, {run.failed} skipped; "
            f"{run.requests} requests, {run.cached} answers from the cache; "
            f"{run.prompt_tokens} prompt and {run.completion_tokens} completion tokens.{more}")


def _end(run: LlmJudgeRun, status: str, summary: str) -> None:
    background.finish(run, status, summary, counts=("started_at", "worker", *COUNTS))