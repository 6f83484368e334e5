from django.urls import reverse

from annotator.models import Run

from tests.console.conftest import assert_only_the_organiser_gets_in


def url(campaign, fmt):
    return reverse("console:plot", kwargs={"slug": campaign.slug, "fmt": fmt})


def test_only_the_campaigns_organiser_gets_the_plot(client_as, campaign):
    assert_only_the_organiser_gets_in(client_as, url(campaign, "svg"))


def test_the_scatter_is_a_matplotlib_svg_with_a_point_per_run(organiser, campaign):
    response = organiser.get(url(campaign, "svg"))
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    svg = response.content.decode()
    assert "<svg" in svg and "Matplotlib" in svg
    for run in ("bard-trial1", "bing-trial1", "chatgpt-trial1"):
        assert run in svg


def test_the_scatter_downloads_as_png_for_papers(organiser, campaign):
    response = organiser.get(url(campaign, "png") + "?download=1")
    assert response.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert 'filename="fw-R-vs-GF.png"' in response["Content-Disposition"]


def test_an_unknown_format_is_not_found(organiser, campaign):
    assert organiser.get(f"/console/{campaign.slug}/r-vs-gf.pdf").status_code == 404


def test_run_names_are_drawn_as_text_not_parsed_as_mathtext(organiser, campaign):
    Run.objects.filter(campaign=campaign, name="bing-trial1").update(name=r"a$\undefinedmacro{$b")
    for fmt in ("svg", "png"):
        response = organiser.get(url(campaign, fmt))
        assert response.status_code == 200, fmt
    assert "undefinedmacro" in organiser.get(url(campaign, "svg")).content.decode()
