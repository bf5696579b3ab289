"""Generated markdown renders as its words: no accidental headings, italics or code blocks."""

from trackerlab.reporting import bullets, escape_markdown, show_conclusions


def _html(markdown: str) -> str:
    """The HTML nbconvert's renderer (mistune) makes of ``markdown``."""
    import mistune  # nbconvert's markdown renderer, installed with it

    return mistune.html(markdown)


def test_issue_number_at_the_start_of_a_bullet_is_not_a_heading():
    text = bullets(["#23611 (4.0.1 – 4.2.x): Σ getLongSizeInBytes()", "plain"])
    assert text.splitlines()[0] == r"- \#23611 (4.0.1 – 4.2.x): Σ getLongSizeInBytes()"
    html = _html(text)
    assert "<h1" not in html and "#23611" in html


def test_stars_inside_words_do_not_open_italics():
    text = bullets(["Spark local[*] with mix:0.8*uniform:0:60s+0.2*uniform:1h:12h delays"])
    assert r"local[\*]" in text and r"0.8\*uniform" in text and r"0.2\*uniform" in text
    html = _html(text)
    assert "<em>" not in html and "local[*]" in html and "0.8*uniform" in html


def test_author_emphasis_is_kept():
    text = bullets(["**time-buckets-hier** is best; *note*."])
    html = _html(text)
    assert "<strong>time-buckets-hier</strong>" in html and "<em>note</em>" in html


def test_indented_and_printed_style_lines_become_plain_bullets():
    """A line indented four spaces would render as a monospace code block; "* " bullets from
    print() keep one marker."""
    text = bullets(["*   4 of the 6 rows", "    - indented continuation"])
    assert text.splitlines() == ["- 4 of the 6 rows", "- indented continuation"]
    html = _html(text)
    assert "<pre" not in html and "<code" not in html


def test_escape_markdown_escapes_every_syntax_character():
    assert escape_markdown("local[*] a_b `x` #1") == r"local\[\*\] a\_b \`x\` #1"
    assert escape_markdown("#23611 first") == r"\#23611 first"


def test_show_conclusions_displays_markdown(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    show_conclusions(["#1 first"])
    (md,) = shown
    assert md.data == r"- \#1 first"
