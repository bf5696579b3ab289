"""Every proposal against the naive delayed index (tests/models/proposals/machine.py)."""

from __future__ import annotations

from tests.models.proposals.machine import SETTINGS, ProposalMachine
from trackerlab.models.proposals.adaptive_leaf import AdaptiveBucketTracker
from trackerlab.models.proposals.flat_buckets import FlatBucketTracker
from trackerlab.models.proposals.hier_buckets import HierBucketTracker
from trackerlab.models.proposals.sealed_buckets import SealedBucketTracker


class FlatMachine(ProposalMachine):
    def make(self, tick, strict, delay, lookahead=0):
        return FlatBucketTracker(tick, strict)


class SealedMachine(ProposalMachine):
    fixed_delay = True

    def make(self, tick, strict, delay, lookahead=0):
        return SealedBucketTracker(tick, strict, fixed_delay_ms=delay)


class AdaptiveMachine(ProposalMachine):
    def make(self, tick, strict, delay, lookahead=0):
        return AdaptiveBucketTracker(tick, strict)


class HierMachine(ProposalMachine):
    def make(self, tick, strict, delay, lookahead=0):
        return HierBucketTracker(tick, strict)


TestFlatMachine = FlatMachine.TestCase
TestSealedMachine = SealedMachine.TestCase
TestAdaptiveMachine = AdaptiveMachine.TestCase
TestHierMachine = HierMachine.TestCase
for case in (TestFlatMachine, TestSealedMachine, TestAdaptiveMachine, TestHierMachine):
    case.settings = SETTINGS
