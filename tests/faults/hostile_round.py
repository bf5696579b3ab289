"""A hostile round against the ``trackerlab`` command line: every command x every flag x
hostile values, each run as a user runs it (a subprocess with a timeout), each outcome
classified.

    python tests/faults/hostile_round.py [--out FILE] [--jobs 2] [--timeout 60] [--list]
        [--per-flag N] [--match TEXT]

The tries are generated from the parser itself (:func:`trackerlab.commands.cli.build_parser`), so a
new flag is tried without editing this file: each value-taking flag of each command gets
the values of its kind (numbers and units, paths, choices, free text) on top of a cheap,
valid base command line; then the locales, strict JSON and Ctrl-C tries. Classes:

- ``ok``: exit 0 and (for ``--json``) strict JSON: no NaN or Infinity;
- ``usage``: exit 2 and one line on stderr, ``trackerlab: ...``;
- ``interrupted``: Ctrl-C gave exit 130 and ``interrupted``;
- ``accepted``: exit 0 for a value no flag may take (NaN, inf, 5000 digits, '', a FIFO...);
- ``traceback``, ``timeout``, ``multi-line``, ``exit-code`` (not 0/2/130), ``bad-json``.

Everything runs in one temporary folder (working directory, ``HOME``, ``TRACKERLAB_CACHE``,
every ``--out``), removed at the end; no broker starts (``broker`` is skipped) and no Spark
cluster (``--master`` takes ``local[1]`` only). ``--out FILE`` writes the table and the
failing tries there as well.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "lib"))

BIG = "1" * 5000
#: Values nothing may accept: a run that exits 0 with one of them is "accepted".
NEVER = {"", " ", "nan", "NaN", "inf", "-inf", BIG, "1kg", "\uff14", "\uff14.\uff11", "1e999"}
NUMERIC = ["", "-1", "0", BIG, "nan", "\uff14.\uff11", "1kg", "10ms"]
#: The benchmarks' flags take fewer (an accepted value runs a benchmark).
FEWER = ["", BIG, "nan"]
TEXT = ["", BIG, "\uff14.\uff11", ","]
SKIP_COMMANDS = {"broker", "pulsar"}  # a real broker; Maven Central downloads
#: Cheap valid command lines; the flag under test replaces the base's own value.
BASES: dict[str, list[str]] = {
    "plan": ["--rate", "1k/s", "--delayed", "10%", "--delay", "uniform:0:1m"],
    "size": ["triple-heap", "--messages", "1000"],
    "simulate delayed": ["--days", "0.01", "--rate", "100/s", "--samples", "4"],
    "simulate receiver-queue": ["--duration-s", "1"],
    "bench build": ["--messages", "1000", "--loop-messages", "100"],
    "bench heaps": ["--messages", "1000", "--loop-messages", "100"],
    "bench pending-acks": ["--entries", "100", "--ops", "100", "--repeats", "1"],
    "bench plan": ["--entries", "1000", "--no-jvm"],
    "bench receiver-queue": ["--duration-s", "1"],
    "bench sweep": ["--messages", "1000"],
    "sweep": ["--profile", "smoke", "--dry-run", "--out", "{tmp}/sweep"],
    "report": [
        "--only",
        "capacity_planner",
        "--out",
        "{tmp}/report",
        "-p",
        "capacity_planner:exact_check=false",
    ],
    "jvm-check": ["--list"],
    "reproduce": ["--only", "N08"],
    "notebooks": [],
    "designs": ["--json"],
}
#: Flags whose value names a file read, or a folder or file written (made relative to tmp).
READ_PATHS = {"--workload", "--grid", "--topics", "--notebooks"}
WRITE_PATHS = {"--out", "--csv"}
#: Notebook parameters that carry units or a closed set, tried through ``report -p``.
NOTEBOOK_PARAMS = [
    "capacity_planner:rate",
    "capacity_planner:delay",
    "capacity_planner:delayed",
    "capacity_planner:budget",
    "capacity_planner:max_early",
    "capacity_planner:tick",
    "capacity_planner:pulsar_version",
    "capacity_planner:nack_precision_bits",
    "receiver_queue:client",
    "receiver_queue:sensitivity_ids",
    "massive_delayed:partition_by",
]
NOTEBOOK_VALUES = ["-5k/s", "", "rust", "[N99]", "\uff14.\uff11"]


@dataclass
class Try:
    """One run: its argv after ``trackerlab``, its environment changes, what it tests."""

    args: list[str]
    env: dict[str, str] = field(default_factory=dict)
    value: str | None = None
    sigint_after_s: float | None = None
    timeout_s: float | None = None


@dataclass
class Outcome:
    attempt: Try
    cls: str
    code: int | None
    stderr: str
    seconds: float


def _commands(parser) -> list[tuple[str, argparse.ArgumentParser]]:
    """``(name, parser)`` for each leaf command (``simulate delayed``), skipped ones out."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if name in SKIP_COMMANDS or sub is parser:
                    continue
                leaves = _commands(sub)
                if leaves:
                    out += [(f"{name} {leaf}", p) for leaf, p in leaves]
                else:
                    out.append((name, sub))
    return list({n: (n, p) for n, p in out}.values())


def _files(tmp: Path) -> dict[str, str]:
    """Hostile files: a FIFO, /dev/zero, a NUL byte, a 100,000-deep nest, a folder."""
    fifo = tmp / "fifo.yaml"
    os.mkfifo(fifo)
    (tmp / "nul.yaml").write_bytes(b"rate: 1k/s\n\x00\n")
    (tmp / "deep.yaml").write_text("[" * 100_000 + "]" * 100_000)
    (tmp / "big.yaml").write_text("rate: " + BIG + "/s\n")
    (tmp / "dir.yaml").mkdir()
    return {k: str(tmp / f"{k}.yaml") for k in ("fifo", "nul", "deep", "big", "dir")} | {
        "zero": "/dev/zero"
    }


def _with(base: list[str], flag: str, value: str) -> list[str]:
    """``base`` with ``flag value``, the base's own value of ``flag`` dropped."""
    out, skip = [], False
    for token in base:
        if skip:
            skip = False
            continue
        if token == flag:
            skip = True
            continue
        out.append(token)
    return [*out, f"{flag}={value}"] if value.startswith("-") else [*out, flag, value]


def generate(tmp: Path, per_flag: int | None = None) -> list[Try]:
    """Every try of the round, in a fixed order. ``per_flag``: each flag takes that many of
    its kind's values, rotating through them from flag to flag (every value still comes up)."""
    from trackerlab.commands.cli import build_parser

    files = _files(tmp)
    parser = build_parser()
    tries: list[Try] = []
    rotation: dict[int, int] = {}
    for name, sub in _commands(parser):
        base = [a.format(tmp=tmp) for a in BASES.get(name, [])]
        words = name.split()
        for action in sub._actions:
            if not action.option_strings or action.nargs == 0 or "-h" in action.option_strings:
                continue
            flag = max(action.option_strings, key=len)
            if flag == "--master":
                values = ["", "spark://127.0.0.1:1", "local[0]", "local[-1]", "local[" + BIG + "]"]
            elif action.choices:
                values = ["", "NOPE", BIG]
            elif flag in READ_PATHS:
                values = [*files.values(), "/", ""]
            elif flag in WRITE_PATHS:
                values = ["~", ".", "", "/dev/zero", files["fifo"]]
            elif flag in ("--only", "--designs", "--profile", "--layouts", "--pulsar"):
                values = TEXT
            elif flag == "-p":
                continue  # the notebook parameters below
            else:
                values = FEWER if name.startswith("bench") else NUMERIC
            if per_flag is not None and per_flag < len(values):
                start = rotation.get(id(values), 0)
                rotation[id(values)] = start + per_flag
                values = [values[(start + i) % len(values)] for i in range(per_flag)]
            for value in values:
                tries.append(Try([*words, *_with(base, flag, value)], value=value))
        positionals = [a for a in sub._actions if not a.option_strings and a.dest != "help"]
        if name == "size" and positionals:
            for value in ["", "NOPE", "delayed-bucket", "delayed-topic", BIG, "\u2013"]:
                tries.append(Try(["size", value, *base[1:]], value=value))
    report = [a.format(tmp=tmp) for a in BASES["report"]][:4]
    for param in NOTEBOOK_PARAMS:
        notebook = param.split(":")[0]
        for value in NOTEBOOK_VALUES:
            args = ["report", "--only", notebook, *report[2:], "-p", f"{param}={value}"]
            tries.append(Try(args, value=value, timeout_s=120))
    for text in [":x=1", "=1", ":=1", "capacity_planner:=1", "x", "a:b:c=1", "rate"]:
        tries.append(Try(["report", *report, "-p", text], value=text))
    tries += _locales()
    tries += [
        Try(["plan", *BASES["plan"], "--json"]),
        Try(["plan", "--rate", "1/s", "--json"]),
        Try(["plan", "--rate", "1/d", "--nacked", "1%", "--json"]),
        Try(["designs", "--json"]),
        Try(["reproduce", "--only", "N08", "--format", "json"]),
    ]
    tries += [
        Try(
            [
                "plan",
                "--exact",
                "--master",
                "local[1]",
                "--rate",
                "1k/s",
                "--delayed",
                "100%",
                "--delay",
                "uniform:0:1h",
            ],
            sigint_after_s=12,
            timeout_s=120,
        ),
        Try(
            ["simulate", "delayed", "--days", "30", "--rate", "10k/s", "--allow-large"],
            sigint_after_s=4,
            timeout_s=60,
        ),
    ]
    return tries


def _locales() -> list[Try]:
    envs = [
        {"LC_ALL": "C"},
        {"PYTHONIOENCODING": "ascii"},
        {"PYTHONIOENCODING": "latin-1"},
    ]
    commands = [
        ["designs"],
        ["size", "--list"],
        ["notebooks"],
        ["jvm-check", "--list"],
        ["plan", "--rate", "1k/s", "--pulsar-version", "2.10"],
        ["plan", "--rate", "\uff14/s"],
        ["plan", "--rate", "1k/s", "--delay", "a\u2013b"],
        ["--help"],
        ["plan", "--help"],
    ]
    return [Try(c, env=e) for e in envs for c in commands]


def classify(attempt: Try, code: int | None, out: str, err: str) -> str:
    text = out + err
    if code is None:
        return "timeout"
    if "Traceback (most recent call last)" in text:
        return "traceback"
    if attempt.sigint_after_s is not None:
        return "interrupted" if code == 130 and "interrupted" in err else "exit-code"
    if code == 0:
        if "--json" in attempt.args or "json" in attempt.args:
            try:
                json.loads(out, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            except ValueError:
                return "bad-json"
        return "accepted" if attempt.value in NEVER or _hostile_file(attempt.value) else "ok"
    if code == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        if len(lines) == 1 and lines[0].startswith("trackerlab: "):
            return "usage"
        if lines and lines[-1].startswith("trackerlab: ") and attempt.args[0] == "report":
            return "usage" if not any("FAILED" in line for line in lines) else "multi-line"
        return "multi-line"
    return "exit-code"


def _hostile_file(value: str | None) -> bool:
    return bool(value) and any(value.endswith(k) for k in ("fifo.yaml", "/dev/zero", "nul.yaml"))


def run(attempt: Try, tmp: Path, default_timeout: float) -> Outcome:
    env = {
        **os.environ,
        "HOME": str(tmp / "home"),
        "TRACKERLAB_CACHE": str(tmp / "cache"),
        "PYTHONPATH": str(REPO / "lib"),
        **attempt.env,
    }
    env.pop("TRACKERLAB_ALLOW_LARGE", None)
    timeout = attempt.timeout_s or default_timeout
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "trackerlab", *attempt.args],
        cwd=tmp / "cwd" / "deeper",
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        if attempt.sigint_after_s is not None:
            try:
                proc.wait(attempt.sigint_after_s)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = None
    text_out = out.decode("utf-8", "backslashreplace")
    text_err = err.decode("utf-8", "backslashreplace")
    return Outcome(
        attempt, classify(attempt, code, text_out, text_err), code, text_err, time.monotonic() - t0
    )


GOOD = {"ok", "usage", "interrupted"}


def shown(attempt: Try) -> str:
    env = " ".join(f"{k}={v}" for k, v in attempt.env.items())
    args = " ".join(repr(a) if (not a or " " in a) else a for a in attempt.args)
    args = args.replace(BIG, "<5000 digits>")
    sig = f" (Ctrl-C after {attempt.sigint_after_s:g} s)" if attempt.sigint_after_s else ""
    return f"{env + ' ' if env else ''}trackerlab {args}{sig}"


def report(outcomes: list[Outcome]) -> str:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.cls] = counts.get(o.cls, 0) + 1
    lines = [f"{'class':<12} {'tries':>6}"]
    lines += [f"{c:<12} {n:>6}" for c, n in sorted(counts.items(), key=lambda kv: -kv[1])]
    bad = [o for o in outcomes if o.cls not in GOOD]
    lines.append(f"{'total':<12} {len(outcomes):>6}   ({len(outcomes) - len(bad)} pass)")
    lines.append("")
    for o in bad:
        last = (o.stderr.strip().splitlines() or [""])[-1].replace(BIG, "<5000 digits>")
        lines.append(f"[{o.cls}] exit {o.code}: {shown(o.attempt)}")
        lines.append(f"    {last[:240]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="also write the table and the failing tries to this file")
    ap.add_argument("--jobs", type=int, default=2, help="tries run at once (default: 2)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per try (default: 60)")
    ap.add_argument("--list", action="store_true", help="print the tries, run none")
    ap.add_argument("--match", default="", help="run only tries whose command line has this")
    ap.add_argument(
        "--per-flag",
        type=int,
        default=None,
        help="values per flag, rotating through each kind's list (default: all of them)",
    )
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="trackerlab-hostile-") as name:
        tmp = Path(name)
        for sub in ("home", "cache", "cwd/deeper"):
            (tmp / sub).mkdir(parents=True)
        tries = [t for t in generate(tmp, args.per_flag) if args.match in shown(t)]
        if args.list:
            print("\n".join(shown(t) for t in tries))
            print(f"{len(tries)} tries")
            return 0
        t0 = time.monotonic()
        log = open(args.out + ".progress", "w") if args.out else None  # noqa: SIM115

        def one(t: Try) -> Outcome:
            outcome = run(t, tmp, args.timeout)
            if log is not None:  # a partial round is still read when the round is stopped
                log.write(f"{outcome.cls}\t{outcome.code}\t{shown(t)[:300]}\n")
                log.flush()
            return outcome

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            outcomes = list(pool.map(one, tries))
        if log is not None:
            log.close()
        text = report(outcomes) + f"\n\n{len(tries)} tries in {time.monotonic() - t0:.0f} s"
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0 if all(o.cls in GOOD for o in outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
