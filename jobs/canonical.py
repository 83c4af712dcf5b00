"""Engine-independent canonical form and checksum of table rows (pure; no I/O) — shipped with the tool.

Every reader in dev/verifier hands its rows over as a pyarrow Table; this module turns each row
into canonical JSON and hashes the sorted lines, so two engines (or the writer and a reader) agree
exactly when they saw the same multiset of rows. The checksum can be recomputed from the printed
canonical rows in any language: sha256 over "\n".join(sorted(canonical_json(row))), where
canonical JSON has sorted keys and no spaces, and lines sort by code point (= UTF-8 byte order).

Value rules (chosen so JSON round-trips them exactly, also through JavaScript):
  null, bool, str            as is
  int                        JSON number when |v| < 2**53, else a decimal string
  float                      Python repr as a string ("0.1", "NaN", "Infinity", "-Infinity")
  Decimal                    plain string with the type's scale ("12.30")
  date / time                ISO 8601 ("2024-01-31", "12:00:00.000001")
  timestamp (no zone)        ISO 8601 with microseconds ("2024-01-31T12:00:00.000000")
  timestamp with zone        converted to UTC, ISO 8601 with microseconds and "+00:00"
  bytes                      lower-case hex;  UUID: canonical string
  struct                     object;  list: array;  map: array of [key, value] sorted by key
"""
from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json
import math
import uuid
from typing import Any, Dict, List

MAX_SAFE_INT = 2**53 - 1


def normalize(v: Any) -> Any:
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v if -MAX_SAFE_INT <= v <= MAX_SAFE_INT else str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return repr(v)
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, dt.datetime):  # before date: datetime is a date subclass
        if v.tzinfo is not None:
            return v.astimezone(dt.timezone.utc).isoformat(timespec="microseconds")
        return v.isoformat(timespec="microseconds")
    if isinstance(v, (dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, dict):
        return {str(k): normalize(x) for k, x in v.items()}
    if isinstance(v, list) and v and all(isinstance(x, tuple) and len(x) == 2 for x in v):
        # pyarrow gives a map as a list of (key, value) tuples; entry order carries no meaning.
        pairs = [[normalize(k), normalize(x)] for k, x in v]
        return sorted(pairs, key=lambda p: canonical_json(p[0]))
    if isinstance(v, (list, tuple)):
        return [normalize(x) for x in v]
    raise TypeError(f"no canonical form for {type(v).__name__}: {v!r}")


def canonical_json(v: Any) -> str:
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_rows(table: Any) -> List[Dict[str, Any]]:
    """Rows of a pyarrow Table as normalised dicts, sorted by their canonical JSON."""
    rows = [{k: normalize(x) for k, x in r.items()} for r in table.to_pylist()]
    return sorted(rows, key=canonical_json)


def checksum(rows: List[Dict[str, Any]]) -> str:
    """sha256 (hex) over the sorted canonical JSON lines joined by "\\n"; order-independent."""
    lines = sorted(canonical_json(r) for r in rows)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def summary(engine: str, table: Any, sample_size: int = 5) -> Dict[str, Any]:
    rows = canonical_rows(table)
    return {
        "engine": engine,
        "rows": len(rows),
        "checksum": checksum(rows),
        "columns": list(table.column_names),
        "sample": rows[:sample_size],
    }
