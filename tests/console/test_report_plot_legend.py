"""The R-vs-GF plot stays legible with many runs: the legend beside the axes (never over the
points), one colour per system and one marker per trial."""

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg

from annotator.console.reports import run_styles, scatter_figure


def many_runs(systems: int, trials: int) -> pd.DataFrame:
    rows = []
    for s in range(systems):
        for t in range(1, trials + 1):
            for topic in ("M001", "M002", "M003"):
                rows.append({"run": f"a-rather-long-system-name-{s:02d}-trial{t}", "topic": topic,
                             "R": 0.01 * (s + t), "GF": 0.5 + 0.01 * s})
    return pd.DataFrame(rows)


def test_each_system_keeps_one_colour_and_each_trial_one_marker():
    styles = run_styles(["bing-trial1", "bing-trial2", "bard-trial1", "bard-trial2", "solo"])
    assert styles["bing-trial1"][0] == styles["bing-trial2"][0] != styles["bard-trial1"][0]
    assert styles["bing-trial1"][1] == styles["bard-trial1"][1] == styles["solo"][1] != styles["bing-trial2"][1]


def test_with_24_runs_the_legend_lies_outside_the_axes_and_names_every_run():
    figure = scatter_figure(many_runs(12, 2))
    FigureCanvasAgg(figure).draw()
    (legend,) = figure.legends
    renderer = figure.canvas.get_renderer()
    box, axes = legend.get_window_extent(renderer), figure.axes[0].get_window_extent(renderer)
    assert box.x0 >= axes.x1, "the legend is beside the axes, not over the points"
    assert box.x1 <= figure.bbox.x1 + 1 and box.y0 >= figure.bbox.y0 - 1, "and inside the figure"
    assert len(legend.get_texts()) == 24
    assert all(t.get_text().startswith("a-rather-long-system-name-") for t in legend.get_texts())


def test_more_runs_than_a_column_holds_spread_over_columns_inside_the_figure():
    figure = scatter_figure(many_runs(20, 2))
    FigureCanvasAgg(figure).draw()
    (legend,) = figure.legends
    box = legend.get_window_extent(figure.canvas.get_renderer())
    assert box.x0 >= figure.axes[0].get_window_extent().x1 and box.x1 <= figure.bbox.x1 + 1
    assert box.y0 >= figure.bbox.y0 - 1 and box.y1 <= figure.bbox.y1 + 1
