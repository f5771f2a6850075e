"""perf.render.plots.history: one panel per timeline, an error bar per
commit, a dashed line labelled with its ratio at each change, spikes
apart, commit ids on the axis; PNG and SVG, reproducibly."""

from __future__ import annotations

import importlib.util
import re
import xml.etree.ElementTree as ET

import pytest

from perf.errors import MissingDependencyError
from perf.history.timelines import Change, CommitPoint, Spike, Timeline
from perf.render.plots import canvas, history

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

requires_matplotlib = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None, reason="matplotlib is not installed (the plot extra)"
)


def commit_id(number):
    return f"{number:08x}" + "ab" * 16


def make_timeline(name, means, *, changes=(), spikes=(), machine="m1", unit="second", width=0.01):
    """A timeline of one commit per mean (interval: +-width of the mean);
    *changes*: (index of the first commit after, ratio); *spikes*: indexes."""
    commits = tuple(
        CommitPoint(
            commit_id(i),
            f"2024-01-{i % 28 + 1:02d}T00:00:00+00:00",
            mean,
            mean * (1 - width),
            mean * (1 + width),
            20,
            1,
        )
        for i, mean in enumerate(means)
    )
    return Timeline(
        name,
        machine,
        unit,
        commits,
        tuple(
            Change(
                name,
                machine,
                commit_id(index - 1),
                commit_id(index),
                index,
                ratio,
                ratio * 0.99,
                ratio * 1.01,
                "slower" if ratio > 1 else "faster",
            )
            for index, ratio in changes
        ),
        tuple(Spike(name, machine, commit_id(index), index, 1.3) for index in spikes),
    )


def stepped(name="call_method", count=20, **kwargs):
    """17 ms, 29 ms from commit 8, back to 17 ms from commit 14, a spike at 4."""
    means = [0.017] * 8 + [0.029] * 6 + [0.017] * (count - 14)
    means[4] = 0.022
    return make_timeline(name, means, changes=[(8, 29 / 17), (14, 17 / 29)], spikes=[4], **kwargs)


def svg_of(figure):
    data = canvas.figure_bytes(figure, "svg")
    ET.fromstring(data)
    return data.decode("utf-8")


def texts(figure):
    from matplotlib.text import Text

    svg_of(figure)
    return [" ".join(text.get_text().split()) for text in figure.findobj(Text) if text.get_text()]


def panels(figure):
    """The axes that draw a timeline (not the legend's)."""
    return [ax for ax in figure.axes if ax.get_title(loc="left")]


def change_lines(ax):
    return [line for line in ax.get_lines() if (line.get_gid() or "").startswith("history-change-")]


# --- without matplotlib ------------------------------------------------------------


def test_the_figure_needs_matplotlib(monkeypatch):
    monkeypatch.setattr(canvas, "MATPLOTLIB_MODULE", "perf_tests_no_such_module")
    with pytest.raises(MissingDependencyError, match=re.escape(canvas.INSTALL_HINT)):
        history.history_figure([stepped()])


@pytest.mark.parametrize(
    ("count", "always", "expected"),
    [
        (5, (), [0, 1, 2, 3, 4]),
        (30, (7,), list(range(30))),
        (90, (), list(range(0, 90, 3))),
        # the first commit after a change replaces its close neighbours
        (90, (10,), [*range(0, 9, 3), 10, *range(12, 90, 3)]),
        (90, (89, 200, -1), [*range(0, 88, 3), 89]),
        (0, (), []),
    ],
)
def test_commit_ticks_are_thinned_but_keep_the_changes(count, always, expected):
    assert history.commit_ticks(count, always) == expected


def test_texts_of_ids_and_ratios():
    assert history.short_id("0123456789abcdef") == "01234567"
    assert history.ratio_text(29 / 17) == "1.706x"
    assert history.ratio_text(0.95) == "0.950x"


# --- the figure ----------------------------------------------------------------------


@requires_matplotlib
def test_one_panel_per_timeline_with_its_changes_and_spikes():
    timelines = [stepped("call_method"), make_timeline("flat", [1e-6] * 12)]
    figure = history.history_figure(timelines)
    first, second = panels(figure)
    assert [ax.get_title(loc="left") for ax in (first, second)] == ["call_method", "flat"]
    assert first.get_title(loc="right") == "20 commits, 2 changes, 1 spike"
    assert second.get_title(loc="right") == "12 commits"
    # a dashed line between the commits around each change
    lines = change_lines(first)
    assert [line.get_xdata()[0] for line in lines] == [7.5, 13.5]
    assert [line.get_color() for line in lines] == [history.CHANGE_COLOURS["slower"], history.CHANGE_COLOURS["faster"]]
    assert change_lines(second) == []
    found = texts(figure)
    assert "1.706x" in found and "0.586x" in found
    assert "Performance history on m1" in found


@requires_matplotlib
def test_points_and_intervals_with_the_spike_apart():
    timeline = stepped()
    figure = history.history_figure([timeline])
    (ax,) = panels(figure)
    markers = {line.get_marker(): line for line in ax.get_lines() if line.get_linestyle() == "None"}
    points, spike = markers["o"], markers["D"]
    assert list(points.get_xdata()) == [i for i in range(20) if i != 4]
    assert list(points.get_ydata()) == [point.mean for i, point in enumerate(timeline.commits) if i != 4]
    assert list(spike.get_xdata()) == [4] and spike.get_markerfacecolor() == "none"
    # one error bar per commit, from low to high
    bars = [collection for collection in ax.collections if len(collection.get_segments()) in (1, 19)]
    segments = sorted((segment[0][0], segment[0][1], segment[1][1]) for bar in bars for segment in bar.get_segments())
    assert len(segments) == 20
    for index, ((x, low, high), point) in enumerate(zip(segments, timeline.commits)):
        assert x == index
        assert (low, high) == pytest.approx((point.low, point.high))


@requires_matplotlib
def test_svg_has_an_element_per_change_and_the_spikes():
    svg = svg_of(history.history_figure([stepped(), stepped("other", machine="m1")]))
    for panel in (0, 1):
        assert f'id="{history.change_gid(panel, 0)}"' in svg
        assert f'id="{history.change_gid(panel, 1)}"' in svg
        assert f'id="{history.change_gid(panel, 2)}"' not in svg
        assert f'id="{history.spike_gid(panel)}"' in svg
    assert svg.count('id="history-change-') == 4


@requires_matplotlib
def test_commit_ids_label_the_axis():
    timeline = stepped()
    (ax,) = panels(history.history_figure([timeline]))
    labels = [label.get_text() for label in ax.get_xticklabels()]
    assert labels == [commit_id(i)[:8] for i in range(20)]


@requires_matplotlib
def test_many_commits_are_thinned_and_the_change_is_labelled():
    timeline = make_timeline("long", [1.0] * 50 + [1.05] * 50, changes=[(50, 1.05)])
    figure = history.history_figure([timeline])
    (ax,) = panels(figure)
    ticks = list(ax.get_xticks())
    assert 50 in ticks and len(ticks) <= history.MAX_COMMIT_LABELS + 1
    assert commit_id(50)[:8] in [label.get_text() for label in ax.get_xticklabels()]
    assert "One commit in 4 is labelled, and the first after each change." in " ".join(texts(figure))


@requires_matplotlib
def test_png_and_svg_bytes_are_reproducible():
    def draw(fmt):
        return canvas.figure_bytes(history.history_figure([stepped()]), fmt)

    png = draw("png")
    assert png.startswith(PNG_SIGNATURE) and png == draw("png")
    svg = draw("svg")
    assert ET.fromstring(svg).tag == "{http://www.w3.org/2000/svg}svg" and svg == draw("svg")


@requires_matplotlib
def test_units_on_the_y_axis():
    found = texts(history.history_figure([stepped()]))
    assert any(re.fullmatch(r"\d+ ms", text) for text in found)
    memory = make_timeline("rss", [30e6, 30.5e6, 31e6], unit="byte")
    found = texts(history.history_figure([memory]))
    assert any(re.fullmatch(r"\d+(\.\d+)? MiB", text) for text in found)


@requires_matplotlib
def test_several_machines_are_named_in_the_panels():
    figure = history.history_figure([stepped(machine="m1"), stepped(machine="m2")])
    assert [ax.get_title(loc="left") for ax in panels(figure)] == ["call_method on m1", "call_method on m2"]
    assert "Performance history" in texts(figure)


@requires_matplotlib
def test_the_panels_are_capped():
    many = [make_timeline(f"bench{i:02d}", [1.0, 1.1, 1.0]) for i in range(14)]
    figure = history.history_figure(many)
    assert len(panels(figure)) == canvas.MAX_PANELS
    text = " ".join(texts(figure))
    assert "Only the first 12 of 14 panels (one per benchmark and machine) are shown" in text


@requires_matplotlib
def test_empty_inputs_say_so():
    assert "no benchmark to show" in texts(history.history_figure([]))
    assert "no commit" in texts(history.history_figure([make_timeline("empty", [])]))


@requires_matplotlib
def test_single_commits_and_unknown_intervals():
    timeline = make_timeline("one", [2e-3])
    point = timeline.commits[0]._replace(low=float("-inf"), high=float("inf"), processes=1)
    timeline = timeline._replace(commits=(point,))
    figure = history.history_figure([timeline])
    (ax,) = panels(figure)
    low, high = ax.get_ylim()
    assert low < 2e-3 < high and high - low < 1e-3
    canvas.figure_bytes(figure, "png")


@requires_matplotlib
def test_the_legend_names_only_what_is_drawn():
    found = texts(history.history_figure([stepped()]))
    assert {"mean of a commit, 95% interval", "spike (not a change)", "change: slower", "change: faster"} <= set(found)
    found = texts(history.history_figure([make_timeline("up", [1.0] * 5 + [1.1] * 5, changes=[(5, 1.1)])]))
    assert "change: slower" in found
    assert "change: faster" not in found and "spike (not a change)" not in found
