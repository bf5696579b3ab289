"""The capacity planner's JupyterLab form: ``trackerlab plan``'s flags as ipywidgets controls.

Each control takes the text its flag takes (``20k/s``, ``uniform:0:1h``, ``512MiB``, ``4.0.7``);
an empty control is a flag left out, so the release's default applies (the control's
placeholder names it). The values go through the command line's own parsers
(:func:`~trackerlab.planner.inputs.parse_inputs`), so a bad value shows the one line
``trackerlab plan`` prints for it (``trackerlab: --rate: the rate must be > 0, got '0/s'``),
never a traceback. Every control commits its value on Enter or when it loses focus
(``continuous_update=False``): the form plans once per committed value, not per keystroke.

After each plan the form shows the answer, the command line that gives the same answer, the
table of every design (:func:`~trackerlab.planner.frames.rows_frame`, units in the column
names) and its figure (:func:`~trackerlab.planner.frames.plot_designs`); with a budget or an
early-delivery limit also the recommendation's table and figure. The attributes
:attr:`PlannerForm.result`, ``table``, ``choices``, ``figures`` and ``error`` hold what it
shows, so tests drive the form without a browser.
"""

from __future__ import annotations

import html
import logging
import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING

from trackerlab.core.durable import os_error_text
from trackerlab.core.errors import UsageError, one_line
from trackerlab.planner.defaults import PulsarDefaults, defaults_for
from trackerlab.planner.frames import ROUNDED, choice_frame, plot_choice, plot_designs, rows_frame
from trackerlab.planner.inputs import parse_inputs
from trackerlab.planner.memory_plan import Plan
from trackerlab.planner.plan_report import answer
from trackerlab.planner.workload import FIELD_BY_NAME, REQUIRED

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COLUMNS", "PlannerForm"]

#: The controls, in three columns: workload keys (:data:`~trackerlab.planner.workload.FIELDS`)
#: and the plan's ``budget`` and ``max_early``.
COLUMNS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Workload", ("rate", "partitions", "topics", "subscriptions", "consumers")),
    ("Delays and nacks", ("delayed", "delay", "nacked", "nack_precision_bits")),
    ("Pulsar and budget", ("pulsar_version", "tick", "budget", "max_early")),
)
#: Ticks offered by the tick control (any other can be typed): each bucket width's smallest
#: tick around the defaults, and the common round ones.
TICK_SUGGESTIONS = ("128ms", "256ms", "512ms", "1s", "1024ms", "2048ms", "4096ms", "5s", "10s")
#: The plan's own options: (flag, help, example).
OPTIONS = {
    "budget": (
        "--budget",
        "memory budget to fit: the delayed index per broker, else the nack trackers per topic",
        "512MiB",
    ),
    "max_early": ("--max-early", "largest acceptable early delivery", "1s"),
}

_log = logging.getLogger(__name__)


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _placeholder(name: str, defaults: PulsarDefaults) -> str:
    """What an empty control means: ``default: 1s (Pulsar 4.2.x)``, ``none (e.g. 512MiB)``."""
    if name in OPTIONS:
        return f"none (e.g. {OPTIONS[name][2]})"
    field = FIELD_BY_NAME[name]
    if name in REQUIRED:
        return f"required (e.g. {field.example})"
    text = field.default_text(defaults)
    return f"none (e.g. {field.example})" if text == "none" else f"default: {text}"


class PlannerForm:
    """The form over ``values`` (workload keys as the notebook or a ``--workload`` file gives
    them; keys without a control, such as ``batch``, are kept as given), ``budget`` and
    ``max_early`` (text, ``""`` for none). It plans at once and on every committed value.
    Display it with ``display(form)``."""

    def __init__(
        self,
        values: Mapping[str, object] | tuple[()] = (),
        budget: object = "",
        max_early: object = "",
        *,
        seed: int = 0,
    ) -> None:
        import ipywidgets as widgets

        self.base = {str(k).replace("-", "_"): v for k, v in dict(values).items()}
        self.seed = seed
        initial = {**self.base, "budget": budget, "max_early": max_early}
        self.controls = {
            name: self._control(name, _text(initial.get(name)))
            for _, names in COLUMNS
            for name in names
        }
        #: the plan shown (None after an error)
        self.result: Plan | None = None
        #: :func:`~trackerlab.planner.frames.rows_frame` of :attr:`result`
        self.table: pd.DataFrame | None = None
        #: :func:`~trackerlab.planner.frames.choice_frame` of :attr:`result` (empty: no budget)
        self.choices: pd.DataFrame | None = None
        #: the figures shown: every design per tracker, then the recommendation's
        self.figures: list = []
        #: the one line ``trackerlab plan`` prints for the current values, or None
        self.error: str | None = None
        #: ``trackerlab plan ...`` with the current values (the same answer on the command line)
        self.command = ""
        self.status = widgets.HTML()
        self.output = widgets.Output()
        columns = [
            widgets.VBox([widgets.HTML(f"<b>{title}</b>"), *(self.controls[n] for n in names)])
            for title, names in COLUMNS
        ]
        self.widget = widgets.VBox([widgets.HBox(columns), self.status, self.output])
        for control in self.controls.values():
            control.observe(self.replan, names="value")
        self.replan()

    # ------------------------------------------------------------------ controls

    def _control(self, name: str, value: str):
        """A text control (a combo box with suggestions for the version and the tick) that
        commits on Enter or blur."""
        import ipywidgets as widgets

        from trackerlab.models import pulsar_releases

        if name in OPTIONS:
            flag, help_text, example = OPTIONS[name]
        else:
            field = FIELD_BY_NAME[name]
            flag, help_text, example = field.flag, field.help, field.example
        common = {
            "value": value,
            "description": name.replace("_", " "),
            "tooltip": f"{flag}: {help_text} (e.g. {example})",
            "placeholder": _placeholder(name, defaults_for(None)),
            "continuous_update": False,
            "style": {"description_width": "9em"},
            "layout": widgets.Layout(width="22em"),
        }
        if name == "pulsar_version":
            return widgets.Combobox(
                options=list(pulsar_releases.known_versions()), ensure_option=False, **common
            )
        if name == "tick":
            return widgets.Combobox(options=list(TICK_SUGGESTIONS), ensure_option=False, **common)
        return widgets.Text(**common)

    def _placeholders(self, plan: Plan) -> None:
        """Each empty control names what applies: the plan's release's default."""
        for name, control in self.controls.items():
            control.placeholder = _placeholder(name, plan.workload.defaults)

    def values(self) -> dict[str, object]:
        """The workload keys as planned: the given values, the controls' text over them."""
        typed = {n: c.value for n, c in self.controls.items() if n not in OPTIONS}
        return {**self.base, **typed}

    def command_line(self) -> str:
        """``trackerlab plan`` with every non-empty value as its flag. O(values)."""
        args = ["trackerlab", "plan"]
        order = list(FIELD_BY_NAME)
        values = self.values()
        for name in sorted(values, key=lambda n: order.index(n) if n in order else len(order)):
            text = _text(values[name]).strip()
            if text:
                args += ["--" + name.replace("_", "-"), text]
        for name, (flag, _, _) in OPTIONS.items():
            text = _text(self.controls[name].value).strip()
            if text:
                args += [flag, text]
        return shlex.join(args)

    # ------------------------------------------------------------------ planning

    def replan(self, change: object = None) -> None:
        """Plan the committed values and show the answer, or the error's one line."""
        import matplotlib.pyplot as plt

        for fig in self.figures:
            plt.close(fig)
        self.result, self.table, self.choices, self.figures, self.error = None, None, None, [], None
        self.command = self.command_line()
        self.status.value = "<i>planning...</i>"
        try:
            inputs = parse_inputs(
                self.values(), self.controls["budget"].value, self.controls["max_early"].value
            )
            result = inputs.plan(seed=self.seed)
        except UsageError as exc:
            return self._fail(one_line(exc))
        except OSError as exc:
            return self._fail(one_line(os_error_text(exc)))
        except Exception:  # a defect, not the values: one line here, the traceback in the log
            _log.exception("capacity planner form: plan failed for %s", self.command)
            return self._fail(
                one_line(
                    "plan failed on these values (an internal error, logged); please report it"
                )
            )
        self._show(result)

    def _fail(self, line: str) -> None:
        self.error = line
        self.status.value = (
            '<pre style="color:#b00020;white-space:pre-wrap;margin:0.4em 0">'
            f"{html.escape(line)}</pre>"
        )
        self.output.clear_output()

    def _show(self, result: Plan) -> None:
        import matplotlib.pyplot as plt
        from IPython.display import display

        self.result = result
        self.table = table = rows_frame(result)
        self.choices = choices = choice_frame(result)
        self.figures = [plot_designs(result)]
        if not choices.empty:
            self.figures.append(plot_choice(result))
        for fig in self.figures:
            plt.close(fig)  # shown once, in the form's output, not again after the next cell
        self._placeholders(result)
        notes = "".join(f"<br><i>Note: {html.escape(w)}.</i>" for w in result.warnings)
        self.status.value = (
            f"<p><b>{html.escape(answer(result))}</b>{notes}<br>"
            f"<code>{html.escape(self.command)}</code></p>"
        )
        with self.output:
            self.output.clear_output(wait=True)
            display(table.round(ROUNDED))
            if not choices.empty:
                display(choices.round(2))
            for fig in self.figures:
                display(fig)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
