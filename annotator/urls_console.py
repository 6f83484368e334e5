"""URLs of the organiser's console (namespace "console")."""

from django.urls import path, re_path, register_converter

from annotator.analysis import SIDE_BY_SIDE

from annotator.views import (
    console,
    console_accounts,
    console_agreement,
    console_analysis,
    console_campaign,
    console_exports,
    console_judges,
    console_progress,
    console_reports,
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
    path("", console.index, name="index"),
    path("<slug:slug>/", console.overview, name="overview"),
    path("<slug:slug>/settings/", console_campaign.settings, name="settings"),
    path("<slug:slug>/attribute-sets/<id:pk>/", console_campaign.attribute_set, name="attribute_set"),
    path("<slug:slug>/attribute-sets/new/<id:topic_type>/", console_campaign.attribute_set_new, name="attribute_set_new"),
    path("<slug:slug>/upload/", console_campaign.upload, name="upload"),
    path("<slug:slug>/imports/<id:job>/", console_campaign.import_job, name="import_job"),
    path("<slug:slug>/assign/", console_campaign.assign, name="assign"),
    path("<slug:slug>/progress/", console_progress.progress, name="progress"),
    path("<slug:slug>/grid/", console_progress.grid, name="grid"),
    path("<slug:slug>/agreement/", console_agreement.agreement, name="agreement"),
    path("<slug:slug>/adjudicate/<id:conversation>/", console_agreement.adjudicate, name="adjudicate"),
    path("<slug:slug>/judges/", console_judges.judges, name="judges"),
    re_path(r"^(?P<slug>[-a-zA-Z0-9_]+)/judges-(?P<level>campaign|conversations)\.csv$", console_judges.judges_csv,
            name="judges_csv"),
    path("<slug:slug>/report/", console_reports.report, name="report"),
    path("<slug:slug>/report.csv", console_reports.report_csv, name="report_csv"),
    re_path(r"^(?P<slug>[-a-zA-Z0-9_]+)/r-vs-gf\.(?P<fmt>svg|png)$", console_reports.plot, name="plot"),
    path("<slug:slug>/report/significance/", console_analysis.significance, name="significance"),
    path("<slug:slug>/report/significance.csv", console_analysis.significance_csv, name="significance_csv"),
    path("<slug:slug>/report/trials/", console_analysis.trials, name="trials"),
    path("<slug:slug>/report/worst/", console_analysis.worst, name="worst"),
    path("<slug:slug>/conversations/<ids:ids>/", console_analysis.conversations, name="conversations"),
    path("<slug:slug>/exports/", console_exports.exports, name="exports"),
    path("<slug:slug>/exports/<str:kind>/", console_exports.download, name="download"),
    path("<slug:slug>/accounts/", console_accounts.accounts, name="accounts"),
    path("<slug:slug>/accounts/<id:annotator>/revoke-token/", console_accounts.token_revoke, name="token_revoke"),
    path("<slug:slug>/accounts/<id:annotator>/unlock/", console_accounts.unlock, name="unlock"),
]
