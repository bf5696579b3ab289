"""The one error type the CLI turns into a one-line message and exit code 2, and that line."""


class UsageError(Exception):
    """Bad input from a user: a parameter outside its range, an unknown name, a missing file.

    The message names the parameter and what is allowed. ``trackerlab`` prints it as
    ``trackerlab: <message>`` on stderr, without a traceback, and exits with code 2.
    """


def one_line(message: object) -> str:
    """The line ``trackerlab`` prints on stderr for a UsageError (or an OSError's text):
    ``trackerlab: <message>``. The capacity planner's JupyterLab form shows the same line."""
    return f"trackerlab: {message}"


#: Longest echo of a user's value in a message; a longer one is cut (``'1111...'`` (5000 chars)).
SHOWN_CHARS = 40


def shown(value: object, quoted: bool = True) -> str:
    """``repr(value)`` (``quoted=False``: ``str(value)``) for a message, cut to
    :data:`SHOWN_CHARS` characters with its length, so a 5000-digit value still gives a short
    line. O(len(value))."""
    text = repr(value) if quoted else str(value)
    if len(text) <= SHOWN_CHARS:
        return text
    end = text[-1] if quoted else ""
    return f"{text[: SHOWN_CHARS - 4]}...{end} ({len(str(value)):,} characters)"
