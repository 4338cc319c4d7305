"""avrokit.dask on the demo's orders: a LocalCluster of 2 worker processes reads the files in byte ranges, aggregates, and writes a projection back.

    PYTHONPATH=build/python /usr/bin/python3 examples/dask_demo.py build/demo/orders*.avro
"""
import importlib
import os
import sys
import tempfile
import time

try:
    import dask
    import distributed
except ImportError as e:
    print("dask demo skipped: %s (apt-get install python3-dask python3-distributed)" % e)
    sys.exit(0)

import avrokit
import avrokit.dask


def main(paths):
    total = sum(os.path.getsize(p) for p in paths)
    # 2 workers of 1 thread each: separate processes, as on a real cluster
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        print("cluster: %d worker processes (%s)" % (
            len(client.scheduler_info()["workers"]), client.scheduler.address))
        client.run(importlib.import_module, "avrokit.dask")  # imports off the clock
        df = avrokit.dask.read_avro(paths, blocksize="4MiB",
                                    columns=["id", "placed", "customer.tier", "paid", "discount"])
        print("%d files, %.1f MB, blocksize 4 MiB: %d partitions (byte ranges)" % (
            len(paths), total / 1e6, df.npartitions))
        print("columns: %s" % ", ".join("%s %s" % (c, t) for c, t in df.dtypes.items()))

        t = time.perf_counter()
        n, per_tier, paid, discount = dask.compute(
            df["id"].count(), df.groupby("customer.tier", observed=True).size(),
            df["paid"].sum(), df["discount"].mean())
        dt = time.perf_counter() - t
        print("%d records in %.2f s on the cluster (%.0f records/s)" % (n, dt, n / dt))
        print("orders per tier: %s; paid %d; mean discount %.3f" % (
            {tier: int(per_tier[tier]) for tier in df.dtypes["customer.tier"].categories}, paid, discount))

        with tempfile.TemporaryDirectory() as out:
            plain = [p for p in paths if os.path.basename(p) == "orders.avro"] or paths
            first = avrokit.dask.read_avro(plain[0], blocksize="4MiB", columns=["id", "paid", "discount"])
            t = time.perf_counter()
            names = avrokit.dask.to_avro(first[first["paid"]], os.path.join(out, "paid-*.avro"))
            dt = time.perf_counter() - t
            back = avrokit.dask.read_avro(names, blocksize=None)
            print("to_avro: the paid orders of %s as %d files in %.2f s, %d records read back" % (
                os.path.basename(plain[0]), len(names), dt, len(back)))


if __name__ == "__main__":
    main(sys.argv[1:])
