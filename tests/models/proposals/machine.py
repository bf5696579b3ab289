"""A hypothesis state machine shared by every delayed-delivery tracker: the design lab's Python
proposals (tests/models/proposals/test_machines.py) and Pulsar's own Java trackers driven in a
JVM (tests/broker/test_java_tracker_machines.py), each against the naive index.

Checked after every step: the same positions are tracked (counts agree). ``getScheduledMessages``
returns sorted distinct positions, at most ``n``, each tracked and available in the tracker's
:class:`~tests.reference.delayed.DeliveryWindow` (never more than ``early_ms`` before it is
due), the earliest keys first; when it returns fewer than ``n`` nothing available is left and
nothing more than ``late_ms`` overdue. ``hasMessageAvailable`` says whether something is
available; ``clear`` empties. Where ``checks_replay``: each position handed out at ``now``,
added again with its ``deliverAt`` at the same ``now`` (the dispatcher replaying it), is refused
(``addMessage`` false: deliver now), else the dispatcher would loop. Where a tracker has them: ``containsMessage`` says what is tracked
and ``shouldPauseAllDeliveries`` follows the fixed-delay detection.
A tracker's legitimate difference from the naive index is its window, stated with its source
in :class:`~tests.reference.delayed.DeliveryWindow`; the rules are the same for all.
"""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from tests.reference.delayed import DeliveryWindow, NaiveDelayedIndex

SETTINGS = settings(max_examples=60, stateful_step_count=40, deadline=None)


class DelayedTrackerMachine(RuleBasedStateMachine):
    """Subclasses set ``make(tick, strict, delay, lookahead)`` and ``window(tick, strict)``;
    they may pin the delay (``fixed_delay``), widen the ledgers, and turn on the checks of
    ``containsMessage`` and ``shouldPauseAllDeliveries``."""

    fixed_delay = False
    ledgers = (1, 3)
    checks_contains = False
    checks_pause = False
    #: whether ``shouldPauseAllDeliveries`` follows the fixed-delay detection (else always False)
    detects_fixed_delay = True
    #: whether a handed-out position re-added at the same ``now`` must be refused (the design
    #: lab's variant-a proposals, due at ``tickKey << bits``, do not hold this)
    checks_replay = True

    def make(self, tick: int, strict: bool, delay: int, lookahead: int):  # pragma: no cover
        raise NotImplementedError

    def window(self, tick: int, strict: bool) -> DeliveryWindow:  # pragma: no cover
        raise NotImplementedError

    @initialize(
        strict=st.booleans(),
        tick=st.sampled_from([1, 4, 10, 100]),
        delay=st.integers(1, 300),
        lookahead=st.sampled_from([0, 2, 5]),
    )
    def setup(self, strict, tick, delay, lookahead):
        self.tracker = self.make(tick, strict, delay, lookahead)
        self.win = self.window(tick, strict)
        self.ref = NaiveDelayedIndex(tick, strict)
        self.now = 10_000
        self.delay = delay
        self.lookahead = lookahead

    @precondition(lambda self: hasattr(self, "tracker"))
    @rule(data=st.data(), entry=st.integers(0, 20), dt=st.integers(-5, 300))
    def add(self, data, entry, dt):
        ledger = data.draw(st.integers(*self.ledgers), label="ledger")
        if self.ref.tracks(ledger, entry):
            return  # Pulsar never tracks one position twice
        if self.fixed_delay:
            dt = self.delay
        expected = self.ref.add(ledger, entry, self.now + dt, self.now)
        assert self.tracker.add_message(ledger, entry, self.now + dt, self.now) == expected

    @rule(dt=st.integers(0, 200))
    def advance(self, dt):
        self.now += dt

    @precondition(lambda self: hasattr(self, "tracker"))
    @rule(n=st.integers(1, 30))
    def get_scheduled(self, n):
        win, now = self.win, self.now
        available = self.tracker.has_message_available(now)
        assert available == any(win.available(t, now) for t, _, _ in self.ref.heap)
        got = self.tracker.get_scheduled_messages(n, now)
        assert got == sorted(set(got)) and len(got) <= n
        due = self.ref.deliver_at()
        for pos in got:
            assert pos in due, "handed out something never added"
            assert win.available(due[pos], now), "handed out before its key was due"
            assert due[pos] - now <= win.early_ms, "handed out too early"
        self.ref.remove(got)
        if self.checks_replay:  # the dispatcher replays what it got: refused, delivered now
            for ledger, entry in got:
                assert not self.ref.add(ledger, entry, due[(ledger, entry)], now)
                replayed = self.tracker.add_message(ledger, entry, due[(ledger, entry)], now)
                assert not replayed, "handed out, then accepted again: a replay loop"
        left = [t for t, _, _ in self.ref.heap if win.available(t, now)]
        if got and left:  # limited by n: the earliest keys went first
            assert max(win.key(due[p]) for p in got) <= min(win.key(t) for t in left)
        if len(got) < n:  # not limited by n: nothing available is left behind
            assert not left, "left something available behind"
            assert all(t > now - win.late_ms for t, _, _ in self.ref.heap), "left too late"
        assert bool(got) == available

    @precondition(lambda self: hasattr(self, "tracker") and self.checks_contains)
    @rule(data=st.data(), entry=st.integers(0, 20))
    def contains(self, data, entry):
        ledger = data.draw(st.integers(*self.ledgers), label="ledger")
        assert self.tracker.contains_message(ledger, entry) == self.ref.tracks(ledger, entry)

    @precondition(lambda self: hasattr(self, "tracker") and self.checks_pause)
    @rule()
    def pause(self):
        available = any(self.win.available(t, self.now) for t, _, _ in self.ref.heap)
        expected = self.detects_fixed_delay and self.ref.should_pause(self.lookahead, available)
        assert self.tracker.should_pause_all_deliveries(self.now) == expected

    @precondition(lambda self: hasattr(self, "tracker"))
    @rule()
    def clear(self):
        self.tracker.clear()
        self.ref.clear()

    @invariant()
    def counts_agree(self):
        if hasattr(self, "tracker"):
            assert self.tracker.number_of_delayed_messages() == len(self.ref)


class ProposalMachine(DelayedTrackerMachine):
    """The design lab's proposals: ``make(tick, strict, delay)``; the window of variant a,
    which hands out positions ``addMessage`` would accept again (no replay check)."""

    checks_replay = False

    def make(self, tick, strict, delay, lookahead=0):  # pragma: no cover - overridden
        raise NotImplementedError

    def window(self, tick, strict):
        return DeliveryWindow.trimmed(tick, strict, self.tracker.bits)
