"""The evaluation report: run comparison with significance and topic set size, trial
instability and how many topics and trials (the design study, with its CSV and JSON), worst
cases, and a read-only view of conversations for the organiser.

All computed live from the current judgments and settings (annotator.evaluation.run_comparison); the inputs
are GET forms whose bounds keep every request short.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from annotator.evaluation import design_study, run_comparison
from annotator.evaluation.branches import branch_spreads
from annotator.access import campaign_for_organiser, conversation_for_organiser
from annotator.console.forms import AnalysisForm, MeasureForm
from annotator.models import Campaign, Conversation
from annotator.scores.campaign_tables import score_table, worst_tables
from annotator.scores.per_conversation import gold_annotators, score_conversation
from annotator.workspace.score_panel import score_panel_html
from scoring.words import span_text, tokenise

def _compared(campaign: Campaign, query) -> tuple[AnalysisForm, run_comparison.Selection | None,
                                                  run_comparison.MeasureComparison | None]:
    """The run comparison the query asks for (the runs and topics picked, else every run of the
    measure's kind on the topics they share); None when the form refuses it."""
    tables = run_comparison.run_tables(campaign)
    every = [t for t in (tables.conversations, tables.ranked_lists) if not t.empty]
    form = AnalysisForm.from_query(
        query, measures=tables.measure_groups(),
        runs=sorted({r for t in every for r in t["run"]}), topics=sorted({c for t in every for c in t["topic"]}))
    if not form.is_valid():
        return form, None, None
    p = form.cleaned_data
    selected, selections = run_comparison.select_tables(tables, p["runs"], p["topics"])
    selection = selections.get(run_comparison.kind_of(p["measure"]))
    table = selected.table_for(p["measure"])
    return form, selection, run_comparison.compare_measure(table, p["measure"], p["permutations"], p["seed"],
                                                           p["standardise"])


@login_required
@require_GET
def significance(request: HttpRequest, slug: str) -> HttpResponse:
    """Run x run table of one measure (difference, Tukey HSD and paired t p-values, effect
    size), the ANOVA, and the topic set size the next round needs."""
    campaign = campaign_for_organiser(request.user, slug)
    form, selection, comparison = _compared(campaign, request.GET)
    context = {"campaign": campaign, "tab": "report", "form": form, "selection": selection}
    if comparison is None:
        return render(request, "console/significance.html", context, status=400)
    p = form.cleaned_data
    context.update({
        "comparison": comparison,
        "rows": comparison.table(p["alpha"]),
        "topic_set_size": run_comparison.topic_set_size(comparison, p["min_diff"], p["alpha"]),
        "csv_query": request.GET.urlencode(),
        "runs_kind": "ranked-list runs" if comparison.measure in run_comparison.RANKED_LIST_MEASURES else "conversation runs",
    })
    return render(request, "console/significance.html", context)


@login_required
@require_GET
def significance_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """The page's comparison as CSV, one row per run pair (the compare_runs command's columns)."""
    campaign = campaign_for_organiser(request.user, slug)
    form, _selection, comparison = _compared(campaign, request.GET)
    if comparison is None:
        return HttpResponse(form.errors.as_text(), status=400, content_type="text/plain; charset=utf-8")
    if comparison.result is None:  # a header alone would read as "no differences"
        return HttpResponse(f"Not compared: {comparison.reason}.\n", status=400, content_type="text/plain; charset=utf-8")
    response = HttpResponse(run_comparison.pairs_csv([comparison]), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, f"{campaign.slug}-{comparison.measure}-run-pairs.csv")
    return response


@login_required
@require_GET
def trials(request: HttpRequest, slug: str) -> HttpResponse:
    """Trial instability, and how many topics and trials: the design study of the measure asked
    for (GET `measure`, default GFRC), with every measure whose systems differ named beside it."""
    campaign = campaign_for_organiser(request.user, slug)
    table = score_table(campaign)
    instability = run_comparison.trial_instability(table, run_comparison.run_identities(campaign))
    measures = design_study.known_measures(campaign, table)
    form = MeasureForm.from_query(request.GET, measures=measures)
    context = {"campaign": campaign, "tab": "report", "instability": instability, "branches": branch_spreads(campaign),
               "design_form": form}
    if not form.is_valid():
        return render(request, "console/trials.html", context, status=400)
    studies = design_study.campaign_studies(campaign, measures, table)
    chosen = next(s for s in studies if s.measure == form.cleaned_data["measure"])
    context["design"] = design_study.page(chosen)
    context["systems_differ_on"] = [s.measure for s in studies if s.components and s.components.variance["system"] > 0]
    return render(request, "console/trials.html", context)


@login_required
@require_GET
def design_study_file(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    """The design study as `manage.py design_study` writes it (`measure` repeated for several,
    default GFRC): CSV (the components, a blank line, the D study) or JSON."""
    campaign = campaign_for_organiser(request.user, slug)
    table = score_table(campaign)
    known = design_study.known_measures(campaign, table)
    asked = list(dict.fromkeys(request.GET.getlist("measure")))
    unknown = [m for m in asked if m not in known]
    if unknown:
        return HttpResponse(f"No measure {', '.join(unknown)}: choose from {', '.join(known)}.\n", status=400,
                            content_type="text/plain; charset=utf-8")
    studies = design_study.campaign_studies(campaign, asked or None, table)
    if fmt == "csv" and all(s.components is None for s in studies):  # headers alone would read as a study
        reasons = "; ".join(f"{s.measure}: {s.study.reason}" for s in studies)
        return HttpResponse(f"Not studied: {reasons}.\n", status=400, content_type="text/plain; charset=utf-8")
    if fmt == "csv":
        response = HttpResponse(design_study.as_csv(studies), content_type="text/csv; charset=utf-8")
    else:
        response = HttpResponse(design_study.as_json(studies) + "\n", content_type="application/json")
    measures = "-".join(s.measure for s in studies)
    response["Content-Disposition"] = content_disposition_header(True, f"{campaign.slug}-{measures}-design-study.{fmt}")
    return response


@login_required
@require_GET
def worst(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = campaign_for_organiser(request.user, slug)
    tables = worst_tables(campaign, run_comparison.LOWEST)
    form = MeasureForm.from_query(request.GET, measures=run_comparison.measures_of(tables.conversations))
    context = {"campaign": campaign, "tab": "report", "form": form}
    if not form.is_valid():
        return render(request, "console/worst.html", context, status=400)
    measure = form.cleaned_data["measure"]
    context["worst"] = run_comparison.worst_cases(tables, measure, run_comparison.LOWEST)
    # a regenerated answer is a trial within its conversation: the worst path, not only the expectation
    context["worst_paths"] = sorted(branch_spreads(campaign, measure), key=lambda b: (b.lowest, b.topic, b.run))[
        :run_comparison.LOWEST]
    return render(request, "console/worst.html", context)


@login_required
@require_GET
def conversations(request: HttpRequest, slug: str, ids: list[int]) -> HttpResponse:
    """Conversations side by side, read-only, each judged by its scoring judge."""
    campaign = campaign_for_organiser(request.user, slug)
    shown = []
    for conversation_id in dict.fromkeys(ids):
        conversation = conversation_for_organiser(request.user, conversation_id)
        if conversation.topic.campaign_id != campaign.pk:
            raise Http404("No such conversation in this campaign.")
        shown.append(read_only_conversation(conversation))
    return render(request, "console/conversations.html", {"campaign": campaign, "tab": "report", "shown": shown})


def read_only_conversation(conversation: Conversation) -> dict:
    """What the organiser sees of a conversation: its turns with the judge's nuggets and the
    workspace's score panel (which has no edit controls), scored as the reports score it."""
    judge = gold_annotators([conversation])[conversation.pk]
    score = score_conversation(conversation, judge)
    nuggets_by_turn: dict[int, list] = {}
    for n in score.nuggets:
        nuggets_by_turn.setdefault(n.nugget.turn_id, []).append(n)
    turns = []
    for view in score.turns:
        words = tokenise(view.turn.text)
        turns.append({
            "view": view,
            "nuggets": [{"score": n, "words": span_text(words, n.nugget.start_word, n.nugget.end_word)}
                        for n in nuggets_by_turn.get(view.turn.pk, [])],
        })
    return {
        "conversation": conversation,
        "judge": judge,
        "score": score,
        "turns": turns,
        "panel": score_panel_html(score),
        "harvested": list(conversation.harvested_answers.defer("raw").order_by("number", "role")),  # where its turns came from
    }
