"""URLs of the organiser's console (namespace "console")."""

from django.urls import path, re_path, register_converter

from annotator.evaluation.run_comparison import SIDE_BY_SIDE

from annotator.console.views import (
    accounts,
    agreement,
    analysis,
    campaign,
    exports,
    harvest,
    index,
    judges,
    llm_judge,
    progress,
    reports,
    setup,
)



class ConversationIds:
    """Conversation ids separated by commas: ``12,13,14`` (at most SIDE_BY_SIDE of them)."""

    regex = rf"[0-9]{{1,12}}(?:,[0-9]{{1,12}}){{0,{SIDE_BY_SIDE - 1}}}"

    def to_python(self, value: str) -> list[int]:
        return [int(i) for i in value.split(",")]

    def to_url(self, value) -> str:
        return ",".join(str(i) for i in value) if isinstance(value, (list, tuple)) else str(value)


register_converter(ConversationIds, "ids")

urlpatterns = [
    path("", index.index, name="index"),
    path("new/", setup.new_campaign, name="new_campaign"),
    path("<slug:slug>/", index.overview, name="overview"),
    path("<slug:slug>/topics/", setup.topics, name="topics"),
    path("<slug:slug>/topics/file/", setup.topics_file, name="topics_file"),
    path("<slug:slug>/topics/<id:topic_id>/", setup.topic, name="topic"),
    path("<slug:slug>/topics/<id:topic_id>/remove/", setup.topic_remove, name="topic_remove"),
    path("<slug:slug>/guidelines/", setup.guidelines, name="guidelines"),
    path("<slug:slug>/topic-types/", setup.topic_type, name="topic_type"),
    path("<slug:slug>/runs/<id:run_id>/", setup.run, name="run"),
    path("<slug:slug>/settings/", campaign.settings, name="settings"),
    path("<slug:slug>/attribute-sets/<id:pk>/", campaign.attribute_set, name="attribute_set"),
    path("<slug:slug>/attribute-sets/new/<id:topic_type>/", campaign.attribute_set_new, name="attribute_set_new"),
    path("<slug:slug>/upload/", campaign.upload, name="upload"),
    path("<slug:slug>/imports/<id:job>/", campaign.import_job, name="import_job"),
    path("<slug:slug>/imports/<id:job>/cancel/", campaign.import_job_cancel, name="import_job_cancel"),
    path("<slug:slug>/assign/", campaign.assign, name="assign"),
    path("<slug:slug>/progress/", progress.progress, name="progress"),
    path("<slug:slug>/grid/", progress.grid, name="grid"),
    path("<slug:slug>/agreement/", agreement.agreement, name="agreement"),
    path("<slug:slug>/adjudicate/<id:conversation>/", agreement.adjudicate, name="adjudicate"),
    path("<slug:slug>/adjudicate/<id:conversation>/decide/", agreement.adjudicate_decide, name="adjudicate_decide"),
    path("<slug:slug>/adjudicate/<id:conversation>/undo/", agreement.adjudicate_undo, name="adjudicate_undo"),
    path("<slug:slug>/judges/", judges.judges, name="judges"),
    re_path(r"^(?P<slug>[-a-zA-Z0-9_]+)/judges-(?P<level>campaign|conversations)\.csv$", judges.judges_csv,
            name="judges_csv"),
    path("<slug:slug>/harvest/", harvest.harvest, name="harvest"),
    path("<slug:slug>/harvest/settings/", harvest.harvest_settings, name="harvest_settings"),
    path("<slug:slug>/harvest/<id:harvest>/", harvest.harvest_run, name="harvest_run"),
    path("<slug:slug>/harvest/<id:harvest>/cancel/", harvest.harvest_cancel, name="harvest_cancel"),
    path("<slug:slug>/harvest/<id:harvest>/again/", harvest.harvest_again, name="harvest_again"),
    path("<slug:slug>/harvest/answers/<id:answer>.json", harvest.harvested_answer_raw, name="harvested_answer_raw"),
    path("<slug:slug>/llm-judge/", llm_judge.llm_judge, name="llm_judge"),
    path("<slug:slug>/llm-judge/<id:run>/", llm_judge.llm_run, name="llm_run"),
    path("<slug:slug>/llm-judge/<id:run>/cancel/", llm_judge.llm_run_cancel, name="llm_run_cancel"),
    path("<slug:slug>/llm-judge/proposals/", llm_judge.proposals, name="llm_proposals"),
    path("<slug:slug>/report/", reports.report, name="report"),
    path("<slug:slug>/report.csv", reports.report_csv, name="report_csv"),
    path("<slug:slug>/report-conversations.csv", reports.report_conversations_csv, name="report_conversations_csv"),
    re_path(r"^(?P<slug>[-a-zA-Z0-9_]+)/report-ranked(?P<per_topic>-topics)?\.csv$", reports.report_ranked_csv,
            name="report_ranked_csv"),
    re_path(r"^(?P<slug>[-a-zA-Z0-9_]+)/r-vs-gf\.(?P<fmt>svg|png)$", reports.plot, name="plot"),
    path("<slug:slug>/report/significance/", analysis.significance, name="significance"),
    path("<slug:slug>/report/significance.csv", analysis.significance_csv, name="significance_csv"),
    path("<slug:slug>/report/trials/", analysis.trials, name="trials"),
    re_path(r"^(?P<slug>[-a-zA-Z0-9_]+)/report/design-study\.(?P<fmt>csv|json)$", analysis.design_study_file,
            name="design_study_file"),
    path("<slug:slug>/report/worst/", analysis.worst, name="worst"),
    path("<slug:slug>/conversations/<ids:ids>/", analysis.conversations, name="conversations"),
    path("<slug:slug>/exports/", exports.exports, name="exports"),
    path("<slug:slug>/exports/<str:kind>/", exports.download, name="download"),
    path("<slug:slug>/accounts/", accounts.accounts, name="accounts"),
    path("<slug:slug>/accounts/links.csv", accounts.links_csv, name="links_csv"),
    path("<slug:slug>/accounts/<id:annotator>/link/", accounts.person_link, name="person_link"),
    path("<slug:slug>/accounts/<id:annotator>/remove/", accounts.person_remove, name="person_remove"),
    path("<slug:slug>/accounts/<id:annotator>/revoke-token/", accounts.token_revoke, name="token_revoke"),
    path("<slug:slug>/accounts/<id:annotator>/unlock/", accounts.unlock, name="unlock"),
]
