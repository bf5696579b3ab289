"""PIP-448's topic-level index against a naive shared set, its metric, and its memory:
one index whatever the number of subscriptions."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tests.reference.delayed import NaiveTopicDelayedIndex
from trackerlab.catalog import CATALOG, SizeRequest, size
from trackerlab.models.delayed.topic_index import TopicDelayedIndex, long_size_in_bytes
from trackerlab.workloads.stream import Workload

SUBS = st.sampled_from(["a", "b", "c"])


class TopicIndexMachine(RuleBasedStateMachine):
    @initialize(strict=st.booleans(), tick=st.sampled_from([1, 8, 100]))
    def setup(self, strict, tick):
        self.model = TopicDelayedIndex(tick, strict)
        self.ref = NaiveTopicDelayedIndex(tick, self.model.bits, strict)
        self.now = 10_000

    @rule(sub=SUBS, ledger=st.integers(1, 3), entry=st.integers(0, 20), dt=st.integers(-5, 400))
    def add(self, sub, ledger, entry, dt):
        if self.ref.tracks(ledger, entry):
            return
        expected = self.ref.add(sub, ledger, entry, self.now + dt, self.now)
        assert self.model.add_message(sub, ledger, entry, self.now + dt, self.now) == expected

    @rule(dt=st.integers(0, 200))
    def advance(self, dt):
        self.now += dt

    @rule(sub=SUBS, n=st.integers(1, 30))
    def scheduled(self, sub, n):
        assert self.model.get_scheduled_messages(sub, n, self.now) == self.ref.scheduled(
            sub, n, self.now
        )

    @rule(sub=SUBS, ledger=st.integers(0, 3), entry=st.integers(-1, 20))
    def mark_delete(self, sub, ledger, entry):
        if sub in self.ref.marks:
            self.model.update_mark_delete(sub, (ledger, entry))
            self.ref.marks[sub] = (ledger, entry)

    @rule()
    def prune(self):
        self.model.prune()
        self.ref.prune()

    @invariant()
    def agree(self):
        if hasattr(self, "model"):
            assert self.model.number_of_delayed_messages() == len(self.ref)
            stored = {
                (b, led, int(e)) for b, led, bm in self.model.index.iter_bitmaps() for e in bm
            }
            assert stored == self.ref.items


TestTopicIndex = TopicIndexMachine.TestCase
TestTopicIndex.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)


def test_metric_is_the_sum_of_roaring64_size_deltas():
    """Two entries of one ledger in one bucket: getLongSizeInBytes 1 (empty) -> 60 -> 62; a
    second subscription adding the same message changes nothing; pruning the whole ledger
    subtracts its full 62 B, one more than it added (the manager's -1 B drift)."""
    index = TopicDelayedIndex(1000)
    assert index.add_message("a", 5, 1, 100_000, 0) and index.buffer_memory_usage() == 59
    assert index.add_message("b", 5, 1, 100_000, 0) and index.buffer_memory_usage() == 59
    index.add_message("a", 5, 2, 100_000, 0)
    assert (
        index.buffer_memory_usage() == 61 == long_size_in_bytes(index.index.buckets[99_840][5]) - 1
    )
    index.update_mark_delete("a", (6, 0))
    index.update_mark_delete("b", (6, 0))
    index.prune()
    assert index.number_of_delayed_messages() == 0 and index.buffer_memory_usage() == -1


def test_memory_does_not_grow_with_subscriptions():
    w = Workload.from_options(20_000, 1.0, delay="uniform:0:10m")
    one, five = TopicDelayedIndex(), TopicDelayedIndex()
    for chunk in w.chunks():
        one.add_chunk(chunk, subscriptions=1)
        five.add_chunk(chunk, subscriptions=5)
    assert five.count == one.count
    assert (
        five.jvm_bytes(index_nodes=100) - one.jvm_bytes(index_nodes=100) == 4 * 48
    )  # one SubContext (48 B) each


def test_catalog_entry_says_the_merge_is_not_established():
    design = CATALOG["pip448-topic-index"]
    assert "not established" in design.releases and not design.proposal
    r = size("pip448-topic-index", SizeRequest(Workload.from_options(5000, 1.0, delay="fixed:60s")))
    assert r.entries == 5000 and "not established" in r.details["merged"]


@pytest.mark.parametrize("subs", [1, 4])
def test_per_subscription_trackers_cost_subs_times_more(subs):
    """Per-subscription time buckets (form a) hold one index each: O(delayed x subscriptions);
    the shared index holds one."""
    w = Workload.from_options(20_000, 1.0, delay="fixed:60s")
    per_sub = size("time-buckets", SizeRequest(w)).jvm_bytes * subs
    shared = size("pip448-topic-index", SizeRequest(w)).jvm_bytes
    assert (per_sub > shared) == (subs > 1)
