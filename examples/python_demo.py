"""The Python package on the demo's orders: records as dicts, columns as NumPy, a DataFrame, Arrow, and a write.

    PYTHONPATH=build/python /usr/bin/python3 examples/python_demo.py build/demo/orders.avro
"""
import sys
import tempfile
import time

import numpy as np

import avrokit


def main(path):
    with avrokit.reader(path) as r:
        schema = r.schema
        print("codec %s, schema %s, sync %s" % (r.codec, r.schema["name"], r.sync.hex()))
        first = next(r)
        print("first order: id %d placed %s by %s (%s), %d lines, first unit price %s" % (
            first["id"], first["placed"].isoformat(), first["customer"]["name"],
            first["customer"]["tier"], len(first["lines"]),
            first["lines"][0]["unit_price"] if first["lines"] else "-"))

    t = time.perf_counter()
    n = sum(1 for _ in avrokit.reader(path))
    dt = time.perf_counter() - t
    print("dicts: %d records in %.3f s (%.0f records/s)" % (n, dt, n / dt))

    t = time.perf_counter()
    cols = avrokit.read_columns(path, columns=["id", "placed", "customer.tier", "paid", "discount"])
    dt = time.perf_counter() - t
    print("read_columns of 5 fields: %.3f s (%.0f records/s); dtypes: %s" % (
        dt, n / dt, ", ".join("%s %s" % (k, v.dtype) for k, v in cols.items())))
    # a nullable float column: NaN where the order has no discount
    print("  paid: %d of %d; mean discount %.3f (%d orders without one)" % (
        cols["paid"].sum(), n, float(np.nanmean(cols["discount"])),
        int(np.isnan(cols["discount"]).sum())))

    df = avrokit.to_pandas(path, columns=["id", "placed", "customer.tier", "paid"])
    print("to_pandas:")
    print(df.head(3).to_string())
    print("orders per tier: %s" % df.groupby("customer.tier", observed=True).size().to_dict())

    arrow = avrokit.read_arrow(path, columns=["id", "customer.name"])
    schema_capsule, array_capsule = arrow.__arrow_c_array__()
    print("read_arrow: %d rows through the Arrow C Data Interface (%s, %s)" % (
        len(arrow), schema_capsule, array_capsule))

    with tempfile.NamedTemporaryFile(suffix=".avro") as out:
        with avrokit.writer(out.name, schema, codec="zstandard") as w:
            w.write_many(avrokit.reader(path))
        back = avrokit.scan(out.name)
        print("rewritten with zstandard: %d records, %d bytes of record data" % back)


if __name__ == "__main__":
    main(sys.argv[1])
