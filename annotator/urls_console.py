"""URLs of the organiser's console (namespace "console")."""

from django.urls import path, re_path

from annotator.views import (
    console,
    console_agreement,
    console_campaign,
    console_exports,
    console_judges,
    console_progress,
    console_reports,
)

urlpatterns = [
    path("", console.index, name="index"),
    path("<slug:slug>/", console.overview, name="overview"),
    path("<slug:slug>/settings/", console_campaign.settings, name="settings"),
    path("<slug:slug>/attribute-sets/<int:pk>/", console_campaign.attribute_set, name="attribute_set"),
    path("<slug:slug>/attribute-sets/new/<int:topic_type>/", console_campaign.attribute_set_new, name="attribute_set_new"),
    path("<slug:slug>/upload/", console_campaign.upload, name="upload"),
    path("<slug:slug>/assign/", console_campaign.assign, name="assign"),
    path("<slug:slug>/progress/", console_progress.progress, name="progress"),
    path("<slug:slug>/grid/", console_progress.grid, name="grid"),
    path("<slug:slug>/agreement/", console_agreement.agreement, name="agreement"),
    path("<slug:slug>/adjudicate/<int:conversation>/", console_agreement.adjudicate, name="adjudicate"),
    path("<slug:slug>/judges/", console_judges.judges, name="judges"),
    re_path(r"^(?P<slug>[-a-zA-Z0-9_]+)/judges-(?P<level>campaign|conversations)\.csv$", console_judges.judges_csv,
            name="judges_csv"),
    path("<slug:slug>/report/", console_reports.report, name="report"),
    path("<slug:slug>/report.csv", console_reports.report_csv, name="report_csv"),
    re_path(r"^(?P<slug>[-a-zA-Z0-9_]+)/r-vs-gf\.(?P<fmt>svg|png)$", console_reports.plot, name="plot"),
    path("<slug:slug>/exports/", console_exports.exports, name="exports"),
    path("<slug:slug>/exports/<str:kind>/", console_exports.download, name="download"),
]
