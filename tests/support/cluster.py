"""A real Redis Cluster on loopback for the tests: crisp/bench/procs/cluster.py (the same
one `crisp bench --cluster` starts). The session's cluster (tests/conftest.py) is
3 masters without replicas; a test that kills a node starts its own, with
replicas (tests/store/test_store_failover.py).

    cluster = start_redis_cluster()   # 3 masters on free ports
    cluster.url                       # redis+cluster://127.0.0.1:<port>/  (the store URL)
    cluster.flush()                   # FLUSHALL on every master
    cluster.stop()
"""

from __future__ import annotations

from crisp.bench.procs.cluster import RedisClusterProcs, start_redis_cluster

__all__ = ["RedisClusterProcs", "start_redis_cluster"]
