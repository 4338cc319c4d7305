"""The interop data's expected records (canonical Avro JSON) as the values avrokit.reader(raw=True) gives."""
import json
import math

PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


class Names:
    """Named types of a schema by full name, for references."""

    def __init__(self, schema):
        self.types = {}
        self._collect(schema, "")

    def _collect(self, s, ns):
        if isinstance(s, list):
            for b in s:
                self._collect(b, ns)
        elif isinstance(s, dict):
            t = s.get("type")
            if t in ("record", "error", "enum", "fixed"):
                name = s["name"]
                space = s.get("namespace", ns) if "." not in name else name.rsplit(".", 1)[0]
                full = name if "." in name else (space + "." + name if space else name)
                self.types[full] = s
                self.types.setdefault(name.rsplit(".", 1)[-1], s)
                for f in s.get("fields", []):
                    self._collect(f["type"], space)
            elif t == "array":
                self._collect(s["items"], ns)
            elif t == "map":
                self._collect(s["values"], ns)
            elif isinstance(t, (dict, list)):
                self._collect(t, ns)

    def resolve(self, s):
        if isinstance(s, str) and s not in PRIMITIVES:
            return self.types.get(s) or self.types[s.rsplit(".", 1)[-1]]
        if isinstance(s, dict) and s.get("type") in PRIMITIVES and len(s) >= 1:
            return s["type"]
        return s


def full_name(s):
    if isinstance(s, str):
        return s
    if isinstance(s, dict):
        t = s.get("type")
        if t in ("record", "error", "enum", "fixed"):
            return s["name"] if "." in s["name"] else (
                s["namespace"] + "." + s["name"] if s.get("namespace") else s["name"])
        return t
    return "union"


def normalize(value, schema, names):
    """Expected JSON value -> Python value of raw reading."""
    s = names.resolve(schema)
    if isinstance(s, list):
        if value is None:
            return None
        (branch, inner), = value.items()
        for b in s:
            rb = names.resolve(b)
            if full_name(rb) == branch or full_name(b) == branch or (
                    isinstance(rb, dict) and rb.get("name") == branch.rsplit(".", 1)[-1]):
                return normalize(inner, b, names)
        raise AssertionError("branch %s not in %s" % (branch, s))
    t = s if isinstance(s, str) else s.get("type")
    if isinstance(t, (dict, list)):
        return normalize(value, t, names)
    if t in ("float", "double"):
        if isinstance(value, str):
            return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[value]
        return float(value)
    if t in ("bytes", "fixed"):
        return value.encode("latin-1")
    if t == "array":
        return [normalize(v, s["items"], names) for v in value]
    if t == "map":
        return {k: normalize(v, s["values"], names) for k, v in value.items()}
    if t in ("record", "error"):
        return {f["name"]: normalize(value[f["name"]], f["type"], names) for f in s["fields"]}
    return value


def same(a, b):
    """Equality with NaN equal to NaN (bit patterns are not compared here)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


# How a damaged file ends (as tests/interop/file_interop_test.c decides):
# the status after the expected records. Any other file must read whole.
DAMAGED = {
    "avro-1237-bad-union-discriminant.avro": "MALFORMED",
    "avro-1238-truncated.avro": "TRUNCATED",
    "person-10.no-codec.avro": "TRUNCATED",
}


def load(apache, rel, schema):
    """(records, status): the expected records, and the status that must
    follow them (None: the file reads whole)."""
    readers = json.loads((apache / "expected" / "READERS.json").read_text())
    entry = next(e for e in readers if e["file"] == rel)
    names = Names(schema)
    lines = (apache / entry["expected"]).read_text().splitlines()
    records = [normalize(json.loads(line), schema, names) for line in lines if line.strip()]
    return records, DAMAGED.get(rel.rsplit("/", 1)[-1])
