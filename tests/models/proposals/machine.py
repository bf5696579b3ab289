"""A hypothesis state machine shared by the proposals: each tracker against the naive index.

Checked after every step: the same positions are tracked (counts agree), ``getScheduledMessages``
returns sorted positions, at most ``n``, none earlier than ``tick + 2^bits - 1`` ms before it
is due (``2^bits - 1`` strict), none later than due, and when it returns fewer than ``n`` nothing
due is left behind; ``hasMessageAvailable`` says whether something is due; ``clear`` empties.
"""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from tests.reference.delayed import NaiveDelayedIndex

SETTINGS = settings(max_examples=60, stateful_step_count=40, deadline=None)


class ProposalMachine(RuleBasedStateMachine):
    """Subclasses set ``make(tick, strict)`` and may pin the delay (``fixed_delay``)."""

    fixed_delay = False

    def make(self, tick: int, strict: bool, delay: int):  # pragma: no cover - overridden
        raise NotImplementedError

    @initialize(
        strict=st.booleans(),
        tick=st.sampled_from([1, 4, 10, 100]),
        delay=st.integers(1, 300),
    )
    def setup(self, strict, tick, delay):
        self.tracker = self.make(tick, strict, delay)
        self.ref = NaiveDelayedIndex(tick, strict)
        self.now = 10_000
        self.delay = delay
        self.early = (0 if strict else tick) + (1 << self.tracker.bits) - 1

    @rule(ledger=st.integers(1, 3), entry=st.integers(0, 20), dt=st.integers(-5, 300))
    def add(self, ledger, entry, dt):
        if self.ref.tracks(ledger, entry):
            return  # Pulsar never tracks one position twice
        if self.fixed_delay:
            dt = self.delay
        expected = self.ref.add(ledger, entry, self.now + dt, self.now)
        assert self.tracker.add_message(ledger, entry, self.now + dt, self.now) == expected

    @rule(dt=st.integers(0, 200))
    def advance(self, dt):
        self.now += dt

    @rule(n=st.integers(1, 30))
    def get_scheduled(self, n):
        available = self.tracker.has_message_available(self.now)
        cutoff = self.tracker.cutoff(self.now)
        bucket = (1 << self.tracker.bits) - 1
        due_somewhere = any((t & ~bucket) <= cutoff for t, _, _ in self.ref.heap)
        assert available == due_somewhere
        got = self.tracker.get_scheduled_messages(n, self.now)
        assert got == sorted(set(got)) and len(got) <= n
        due = self.ref.deliver_at()
        for pos in got:
            assert pos in due, "handed out something never added"
            assert due[pos] - self.now <= self.early, "handed out too early"
        self.ref.remove(got)
        if len(got) < n:  # not limited by n: nothing due is left behind
            assert all(t > self.now for t, _, _ in self.ref.heap)
        assert bool(got) == available

    @precondition(lambda self: hasattr(self, "tracker"))
    @rule()
    def clear(self):
        self.tracker.clear()
        self.ref.remove([(led, e) for _, led, e in self.ref.heap])

    @invariant()
    def counts_agree(self):
        if hasattr(self, "tracker"):
            assert self.tracker.number_of_delayed_messages() == len(self.ref)
