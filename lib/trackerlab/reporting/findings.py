"""What a report concludes: its answer, headline figures and conclusion bullets, as data.

A report's ``conclusions(...)`` function returns a :class:`Findings` computed from its
frames, so the sentences can be tested against the numbers they state; the notebook only
calls :meth:`Findings.show`.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Headline:
    """One headline figure: ``label: value (note)``."""

    label: str
    value: str
    note: str = ""

    def show(self) -> None:
        """Publish this figure (in a notebook)."""
        from trackerlab.reporting.headline import headline

        headline(self.label, self.value, self.note)


@dataclass
class Findings:
    """The answer sentence (or ``""``), the headline figures and the conclusion bullets."""

    answer: str = ""
    headlines: list[Headline] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def show(self) -> None:
        """Publish the answer, then the headlines, then the bullets (in a notebook)."""
        from trackerlab.reporting.headline import answer
        from trackerlab.reporting.markdown import show_conclusions

        if self.answer:
            answer(self.answer)
        for h in self.headlines:
            h.show()
        show_conclusions(self.lines)
