"""Where a record goes: Flink's ``StreamPartitioner`` (the ``ChannelSelector`` of a
``RecordWriter``).

- ALL_TO_ALL ``hash`` edges: ``KeyGroupStreamPartitioner`` with Flink's exact key-group
  arithmetic (``KeyGroupRangeAssignment``); a record's key is the Java int
  ``1000 * split + offset`` (``record_key``; records of a split may share keys).
- ALL_TO_ALL ``custom`` edges (``partitionCustom``): the record's key modulo the channels.
- Every other edge (rebalance, and POINTWISE forward/rescale): round robin from channel 0.
  ``RescalePartitioner`` starts at 0; ``RebalancePartitioner`` starts at a random channel in
  Flink, fixed to 0 here (abstraction: a run that depends on the start channel is explored for
  start 0 only).
"""

from __future__ import annotations

from functools import lru_cache

from .component import Component, follows
from .keygroups import assign_to_key_group, operator_index_for_key_group
from .topology import Pattern


def record_key(split: int, offset: int, keys: int = 0) -> int:
    """The key of record (split, offset): a Java int, so Flink's hash routing applies.  With
    ``keys`` = 0 (the default) every record has a key of its own, ``1000 * split + offset``;
    with ``keys`` = k > 0 (the scope's ``keys_per_split``) the records of a split share k keys,
    ``1000 * split + offset % k``, so that the order of one key's records can be checked."""
    return 1000 * split + (offset % keys if keys else offset)


@lru_cache(maxsize=65536)
def record_key_group(split: int, offset: int, max_p: int, keys: int = 0) -> int:
    """The key group of record (split, offset) (``KeyGroupRangeAssignment.assignToKeyGroup``)."""
    return assign_to_key_group(record_key(split, offset, keys), max_p)


def custom_channel(split: int, offset: int, channels: int, keys: int = 0) -> int:
    """A custom partitioner's channel for record (split, offset) (``CustomPartitionerWrapper``
    with a user ``Partitioner``, as Flink's ``UnalignedCheckpointRescaleITCase``'s
    ``Integer.parseInt(key) % numPartitions``): the record's key modulo the channels."""
    return record_key(split, offset, keys) % channels


class StreamPartitioner(Component):
    """``StreamPartitioner.selectChannel`` for every output edge of a subtask."""

    @follows("ChannelSelector.selectChannel")
    def route(self, t: int, rec: tuple, rr: tuple) -> tuple[list[int], tuple]:
        """Channels that record ``rec`` goes to from task ``t``, and the new round-robin state."""
        topo = self.topo
        job = topo.job
        targets: list[int] = []
        new_rr = list(rr)
        for k, ek in enumerate(topo.out_edges[topo.vertex_of[t]]):
            cids = topo.outputs[t][k]
            e = job.edges[ek]
            if not e.carries(rec[2]):  # a side output that does not carry this record
                continue
            if e.pattern is Pattern.ALL_TO_ALL and e.partitioner == "hash":
                dst = job.vertex(e.target)
                idx = operator_index_for_key_group(dst.max_p, dst.parallelism, record_key_group(rec[1], rec[2], dst.max_p, self.scope.keys_per_split))
                targets.append(cids[idx])
            elif e.pattern is Pattern.ALL_TO_ALL and e.partitioner == "custom":
                targets.append(cids[custom_channel(rec[1], rec[2], len(cids), self.scope.keys_per_split)])
            else:
                targets.append(cids[rr[k] % len(cids)])
                new_rr[k] = (rr[k] + 1) % len(cids)
        return targets, tuple(new_rr)
