"""``trackerlab broker run pending-acks --smoke`` on a real broker (the CI release, 4.2.4).

The run starts a standalone in ``BrokerHost`` with ``maxUnackedMessagesPerConsumer=2000`` in its
configuration (about 20-50 s on two cores), produces 30 s of messages with the Java client to a
consumer that acknowledges each message 2 s after receipt and one that never acknowledges, and
samples each consumer's ``pendingAcks`` with JOL. It skips only when Java, ``mvn`` or Maven
Central is missing (the one line naming which); a host that does not compile, a broker that
does not start or a plan off by more than the tolerance fails. Measured here (4.2.4): -1.0%
(held 2 s, 1,035 entries against the plan's 1,025) and -0.01% (never: 2,000 at the cap, blocked).
"""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from tests.broker.conftest import VERSION, running_brokers
from tests.conftest import run_cli
from trackerlab.broker import host
from trackerlab.experiments.real_broker import pending_acks_live as pa


def test_smoke_pending_acks_match_the_plan_and_the_cap_blocks(tmp_path, available):
    before = set(running_brokers())
    out = tmp_path / "out"
    result = run_cli("broker", "run", "pending-acks", "--smoke", "--pulsar-version", VERSION,
                     "--out", str(out), timeout=600)  # fmt: skip
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "worst error of the plan against the measured deep size" in result.stdout
    assert set(running_brokers()) == before, "broker run left a broker running"
    (w,) = pa.SMOKE
    table = pq.read_table(out / f"pending-acks-{w.name}-{VERSION}-smoke.parquet")
    c = table.to_pandas().set_index("subscription")
    assert list(c.index) == ["hold-2s", "never"]
    assert (c["root"] == "PendingAcksMap.pendingAcks").all()
    for sub, row in c.iterrows():
        assert abs(row["error"]) <= pa.TOLERANCE, (sub, row)
        assert row["samples"] >= 2
        # the structure's size() and the consumer's unacked count agree (unbatched entries)
        assert row["measured_entries"] == pytest.approx(row["unacked"], rel=0.02)
    never = c.loc["never"]
    # the broker stops dispatching exactly at the configured cap, and says it blocked
    assert never["measured_entries"] == 2000 and never["blocked_share"] == 1.0
    assert c.loc["hold-2s", "measured_entries"] == pytest.approx(1025, rel=0.05)
    assert c.loc["hold-2s", "blocked_share"] == 0.0
    meta = json.loads(table.schema.metadata[b"trackerlab"])
    assert meta["broker_properties"] == {"maxUnackedMessagesPerConsumer": "2000"}
    assert meta["client"] == f"pulsar-client-original {VERSION}"
    samples = pq.read_table(out / f"pending-acks-{w.name}-{VERSION}-smoke-samples.parquet")
    s = samples.to_pandas()
    assert s["t_s"].is_monotonic_increasing and (s["deep_bytes"] > 0).all()
    assert not list(out.glob("*.tmp*")), "a temporary file was left"


def test_pending_of_an_unknown_subscription_is_a_one_line_error(available):
    with host.running_host(VERSION) as (_, client, _built):
        with pytest.raises(host.HostFailed, match="no topic persistent://public/default/none"):
            client.pending("persistent://public/default/none", "s")
        with pytest.raises(host.HostFailed, match="usage: pending TOPIC SUBSCRIPTION"):
            client.request("pending only-a-topic")
