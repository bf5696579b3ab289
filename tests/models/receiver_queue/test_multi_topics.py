"""MultiTopicsConsumerImpl's drain of its children, by hand (1-byte messages, ms)."""

from __future__ import annotations

from trackerlab.models.receiver_queue.java import JavaConsumer
from trackerlab.models.receiver_queue.memory_limit import MemoryLimitController
from trackerlab.models.receiver_queue.multi_topics import BATCH, NONE, SINGLE, MultiTopicsConsumer

MS = 1_000_000


def parent(drain="batch-receive", children=2, max_size=10):
    flows, log, armed = [], [], []
    memory = MemoryLimitController(None, java_rounding=True)
    kids = [
        JavaConsumer(q, max_size, auto=True, memory=memory, message_bytes=1, flows=flows,
                     size_log=log)
        for q in range(children)
    ]  # fmt: skip
    p = MultiTopicsConsumer(
        kids, max_size, auto=True, memory=memory, message_bytes=1, size_log=log, drain=drain,
        arm_timeout=lambda q, token, at: armed.append((q, token, at / MS)),
    )  # fmt: skip
    return p, kids, flows, armed


def test_batch_receive_drains_a_child_once_per_timeout():
    p, (c0, _c1), flows, armed = parent()
    assert p.size == 2  # minReceiverQueueSize: the number of children
    p.start(0)
    assert p.op == [BATCH, BATCH] and armed == [(0, 1, 100.0), (1, 1, 100.0)]
    p.child_arrival(c0, 3, 5 * MS)  # the default policy (10 MiB) is never "enough"
    assert c0.incoming == 3 and c0.hint and p.incoming == 0
    p.batch_timeout(0, 1, 100 * MS)  # the batch takes all 3; size 1 flushes every permit
    assert c0.incoming == 0 and flows == [(100 * MS, 0, 1)] * 3
    assert p.incoming == 3 and p.hint  # 3 >= 2: the child is paused
    assert p.paused == [c0] and p.op[0] == NONE
    p.take_many(1, 101 * MS)  # 2 left > 2 // 2: still paused
    assert p.paused == [c0]
    p.take_many(1, 102 * MS)  # 1 <= 1: resume with batchReceiveAsync, which finds nothing,
    assert p.paused == [] and p.op[0] == BATCH  # expects more (hint: 1 -> 2, +1 permit)
    assert c0.size == 2 and flows[-1] == (102 * MS, 0, 1) and armed[-1] == (0, 2, 202.0)
    p.batch_timeout(0, 1, 200 * MS)  # a stale timeout does nothing
    assert p.op[0] == BATCH
    p.batch_timeout(1, 1, 100 * MS)  # child 1 empty: an empty batch, then receiveAsync
    assert p.op[1] == SINGLE and p.incoming == 1


def test_receive_async_takes_the_first_message_of_an_entry_unqueued():
    p, (c0, _), flows, armed = parent(drain="receive-async")
    p.start(0)
    assert p.op == [SINGLE, SINGLE] and armed == []
    p.child_arrival(c0, 4, 5 * MS)  # 1 completes the future, 3 are enqueued, then drained
    # the parent holds 2 (its size) and pauses the child, which keeps 2
    assert p.incoming == 2 and c0.incoming == 2 and p.paused == [c0]
    assert sum(n for _, _, n in flows) == 2  # one permit per message taken from the child
    p.take_many(1, 6 * MS)  # 1 <= 1: resume, drain 1 more (pause at 2 again)
    assert p.incoming == 2 and c0.incoming == 1
