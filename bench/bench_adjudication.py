"""The adjudication page on a generated 1,000-conversation campaign judged by two people.

The same seeded files as bench_compare_judges (50 topics x 20 runs; 10 films a conversation):
`ann`'s judgments, then `bob`'s noisy copy (misses 10% of the nuggets, cuts 10% of the spans a
word short, regrades 20%, moves 20% of the ORIGIN memberships) added to the same
conversations: every conversation has disagreements. Times, in-process, best of --repeats:

- `score_table` of the campaign (the reference: the report costs this much);
- listing one conversation's disagreements (`adjudication.adjudication`);
- the runs' means the page reads (`adjudication_effect.RunMeans.of_topic`: the database's sums
  by run and the topic's rows);
- the effect of both choices of every disagreement of it (`adjudication_effect.effects`:
  in memory, nothing written), with the runs' means already read; and, in the same run, the
  way issue 22 first did it (each choice applied by `adjudication.decide` in a savepoint
  rolled back, the conversation rescored from the database): the write lock it held;
- an annotator's save started 0.2 s into each way of previewing (threads of this process, each
  with its own connection; the in-memory previews repeated to last as long as the savepoints);
- the whole page (GET through Django's test client, the organiser logged in);
- one decision (POST take right) and its undo.

    .venv/bin/python bench/bench_adjudication.py [--topics 50] [--runs 20] [--repeats 3]
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.lib.database import bench_database, database_label  # noqa: E402
from bench.lib.generators import write_gold_and_judge_files  # noqa: E402
from bench.lib.results import machine, write_result  # noqa: E402
from bench.lib.timing import best_time  # noqa: E402


def savepoint_previews(found, organiser, ann) -> None:
    """Issue 22's preview, for comparison: each choice decided for real in a savepoint, the
    conversation rescored from the database, everything rolled back (the write lock is held
    from the first write to the rollback)."""
    from django.db import transaction

    from annotator.judgments import adjudication
    from annotator.judgments.edits import AnnotationRefused
    from annotator.scores.per_conversation import score_conversation

    conversation = found.conversation
    with transaction.atomic():
        gold = adjudication.start(conversation, actor=organiser, judge=ann.pk)
        for disagreement in found.disagreements:
            for said in disagreement.said:
                with transaction.atomic():
                    try:
                        adjudication.decide(conversation, disagreement.unit, actor=organiser, judge=ann.pk, take=said.annotator)
                    except AnnotationRefused:
                        pass
                    score_conversation(conversation, gold, found.attribute_sets)
                    transaction.set_rollback(True)
        transaction.set_rollback(True)
    conversation.refresh_from_db()


def save_during(preview, annotator, conversation) -> float:
    """Seconds an annotator's save (a turn label of another conversation, on its own
    connection) takes when it starts 0.2 s into `preview`, run in another thread."""
    import threading

    from django.db import connections

    from annotator.judgments import edits
    from annotator.models import Turn, TurnLabel

    turn = Turn.objects.filter(conversation=conversation, role=Turn.Role.SYSTEM).select_related("conversation").first()
    running = threading.Event()

    def previewing() -> None:
        running.set()
        try:
            preview()
        finally:
            connections.close_all()

    thread = threading.Thread(target=previewing)
    thread.start()
    running.wait()
    time.sleep(0.2)
    current = TurnLabel.objects.filter(turn=turn, annotator=annotator).first()
    started = time.perf_counter()
    edits.set_turn_label(turn, annotator=annotator, actor=annotator, label="x" if current and current.label == "o" else "o",
                         expected_version=current.version if current else None)
    waited = time.perf_counter() - started
    thread.join()
    return waited


def run(topics: int, runs: int, repeats: int) -> dict:
    with bench_database() as tmp:
        from django.core.management import call_command
        from django.test import Client
        from django.urls import reverse

        from annotator.evaluation import adjudication_effect
        from annotator.judgments import adjudication
        from annotator.models import Campaign, Conversation
        from annotator.scores.campaign_tables import score_table
        from bench.lib.seeding import make_annotator, make_campaign

        label = database_label()
        campaign = make_campaign("bench")
        ann, bob, organiser = make_annotator("ann"), make_annotator("bob"), make_annotator("organiser")
        campaign.organisers.add(organiser)
        first, second = write_gold_and_judge_files(tmp, topics, runs)
        for path, who in ((first, "ann"), (second, "bob")):
            call_command("import_conversations", str(path), campaign="bench", annotator=who, stdout=io.StringIO())
        campaign = Campaign.objects.get(slug="bench")
        conversation = Conversation.objects.filter(topic__campaign=campaign).select_related("topic__campaign", "run").order_by("pk")[7]
        table_seconds, table = best_time(lambda: score_table(campaign), repeats)
        means_seconds, means = best_time(lambda: adjudication_effect.RunMeans.of_topic(conversation), repeats)
        list_seconds, found = best_time(lambda: adjudication.adjudication(conversation, [ann, bob]), repeats)
        effect_seconds, _ = best_time(lambda: adjudication_effect.effects(found, means, judge=ann.pk), repeats)
        savepoint_seconds, _ = best_time(lambda: savepoint_previews(found, organiser, ann), repeats)
        neighbour = Conversation.objects.filter(topic__campaign=campaign).order_by("pk")[8]
        save_in_savepoints = save_during(lambda: savepoint_previews(found, organiser, ann), bob, neighbour)
        loops = max(1, round(savepoint_seconds / max(effect_seconds, 1e-3)))  # as long as the savepoints take
        save_in_memory = save_during(
            lambda: [adjudication_effect.effects(found, means, judge=ann.pk) for _ in range(loops)], bob, neighbour)
        call_command("collectstatic", "--noinput", verbosity=0)  # DEBUG=0: pages name hashed static files
        client = Client(HTTP_HOST="localhost")
        client.force_login(organiser)
        url = reverse("console:adjudicate", kwargs={"slug": "bench", "conversation": conversation.pk})
        client.get(url)  # warm-up: imports and first queries
        page_seconds, response = best_time(lambda: client.get(url), repeats)
        assert response.status_code == 200, response.status_code
        decide_url = reverse("console:adjudicate_decide", kwargs={"slug": "bench", "conversation": conversation.pk})
        undo_url = reverse("console:adjudicate_undo", kwargs={"slug": "bench", "conversation": conversation.pk})
        started = time.perf_counter()
        response = client.post(decide_url, {"unit": found.disagreements[0].unit, "take": bob.pk, "version": found.version})
        assert Conversation.objects.get(pk=conversation.pk).decisions.count() == 1, response
        decide_seconds = time.perf_counter() - started
        started = time.perf_counter()
        client.post(undo_url)
        undo_seconds = time.perf_counter() - started
    return {
        "machine": machine(),
        "database": label,
        "conversations": len(table),
        "disagreements": len(found.disagreements),
        "kinds": sorted({d.kind for d in found.disagreements}),
        "score_table_s": round(table_seconds, 3),
        "run_means_s": round(means_seconds, 3),
        "disagreements_s": round(list_seconds, 3),
        "effects_s": round(effect_seconds, 3),
        "effects_in_savepoints_s": round(savepoint_seconds, 3),
        "ratio_savepoints_to_in_memory": round(savepoint_seconds / effect_seconds, 1),
        "annotator_save_during_savepoint_previews_s": round(save_in_savepoints, 3),
        "annotator_save_during_in_memory_previews_s": round(save_in_memory, 3),
        "page_s": round(page_seconds, 3),
        "ratio_page_to_score_table": round(page_seconds / table_seconds, 2),
        "first_decision_s": round(decide_seconds, 3),
        "undo_s": round(undo_seconds, 3),
        "repeats": repeats,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    result = run(args.topics, args.runs, args.repeats)
    path = write_result("adjudication-" + result["database"].split()[0].lower(), result)
    print(f"== adjudication ({result['database']}): {result['conversations']} conversations; "
          f"{result['disagreements']} disagreements in the conversation adjudicated ({', '.join(result['kinds'])})")
    print(f"   score_table {result['score_table_s']} s; the runs' means (database sums and the topic's rows) "
          f"{result['run_means_s']} s; disagreements {result['disagreements_s']} s; effects of both "
          f"choices of each {result['effects_s']} s in memory, {result['effects_in_savepoints_s']} s in savepoints "
          f"({result['ratio_savepoints_to_in_memory']}x); an annotator's save meanwhile "
          f"{result['annotator_save_during_savepoint_previews_s']} s / {result['annotator_save_during_in_memory_previews_s']} s; the page {result['page_s']} s ({result['ratio_page_to_score_table']}x "
          f"score_table); first decision {result['first_decision_s']} s, undo {result['undo_s']} s; best of {result['repeats']}")
    print(f"(raw: {path})")


if __name__ == "__main__":
    main()
