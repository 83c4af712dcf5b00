"""A small Trino client over the HTTP client protocol (POST /v1/statement, follow nextUri), standard
library only, that turns Trino's JSON values back into the Python values canonical.py normalises
(the same values pyarrow's to_pylist gives for the same Iceberg columns), so a Trino read has the same
canonical checksum as a PyIceberg or Spark read of the same rows.

Value mapping (Trino's JSON encoding → Python), driven by each column's typeSignature:
  bigint/integer/smallint/tinyint → int;  double → float ("NaN"/"Infinity" strings included);
  real → float widened from float32 (as pyarrow gives a float32);  decimal → Decimal (Trino prints the
  scale);  varchar/char → str;  boolean → bool;  date → date;  time → time;  timestamp(p) → naive
  datetime;  timestamp(p) with time zone → aware datetime (the session zone is UTC);  varbinary
  (base64) → bytes;  uuid → UUID;  row (a JSON array) → dict by field name;  array → list;
  map (a JSON object; keys printed as strings) → list of (key, value) tuples, as pyarrow gives a map.
Dev/test tooling.
"""
from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
import struct
import time
import urllib.error
import urllib.request
import uuid
from typing import Any, Dict, List, Optional, Tuple
from zoneinfo import ZoneInfo


class TrinoError(Exception):
    """A query Trino answered with an error: errorName (e.g. GENERIC_INTERNAL_ERROR) and message."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


def _http(method: str, url: str, body: Optional[bytes], headers: Dict[str, str], timeout: float) -> Dict[str, Any]:
    delay = 0.05
    give_up = time.monotonic() + timeout
    while True:
        req = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as res:
                return json.loads(res.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            # 502/503/504: the protocol says retry the same URI (within the query's time).
            if e.code in (502, 503, 504) and time.monotonic() < give_up:
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            raise


def query(uri: str, sql: str, session: Optional[Dict[str, str]] = None, catalog: str = "iceberg",
          schema: Optional[str] = None, timeout: float = 300.0) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
    """Run one statement; return (columns, rows as dicts of Python values). Raises TrinoError."""
    headers = {"X-Trino-User": "him-verifier", "X-Trino-Catalog": catalog, "X-Trino-Time-Zone": "UTC",
               "Content-Type": "text/plain; charset=utf-8",
               # Without this capability Trino rounds every timestamp/time to milliseconds for the
               # client (legacy clients): microseconds would be lost and checksums differ.
               "X-Trino-Client-Capabilities": "PARAMETRIC_DATETIME"}
    if schema:
        headers["X-Trino-Schema"] = schema
    if session:
        headers["X-Trino-Session"] = ",".join(f"{k}={v}" for k, v in session.items())
    deadline = time.monotonic() + timeout
    res = _http("POST", f"{uri.rstrip('/')}/v1/statement", sql.encode("utf-8"), headers, timeout)
    columns: List[Dict[str, Any]] = []
    data: List[List[Any]] = []
    while True:
        if res.get("columns") and not columns:
            columns = res["columns"]
        data.extend(res.get("data") or [])
        if res.get("error"):
            err = res["error"]
            raise TrinoError(err.get("errorName", "ERROR"), err.get("message", ""))
        nxt = res.get("nextUri")
        if not nxt:
            break
        if time.monotonic() > deadline:
            _cancel(nxt, headers)
            raise TrinoError("CLIENT_TIMEOUT", f"query did not finish in {timeout} s: {sql[:200]}")
        res = _http("GET", nxt, None, headers, timeout)
    names = [c["name"] for c in columns]
    sigs = [c["typeSignature"] for c in columns]
    rows = [{n: convert(v, s) for n, v, s in zip(names, row, sigs)} for row in data]
    return columns, rows


def _cancel(next_uri: str, headers: Dict[str, str]) -> None:
    """DELETE the query's next URI (the protocol's cancel); a failure to cancel is not the caller's error."""
    try:
        urllib.request.urlopen(urllib.request.Request(next_uri, method="DELETE", headers=headers), timeout=10).close()
    except OSError:
        pass


def _args(sig: Dict[str, Any]) -> List[Dict[str, Any]]:
    return sig.get("arguments") or []


def _timestamp(v: str, with_zone: bool) -> dt.datetime:
    if not with_zone:
        return dt.datetime.fromisoformat(v)
    stamp, zone = v.rsplit(" ", 1)
    tz = dt.timezone.utc if zone in ("UTC", "Z") else ZoneInfo(zone)
    return dt.datetime.fromisoformat(stamp).replace(tzinfo=tz)


def convert(v: Any, sig: Dict[str, Any]) -> Any:
    """One Trino JSON value of type `sig` (a typeSignature) as the Python value pyarrow would give."""
    if v is None:
        return None
    raw = sig["rawType"]
    if raw in ("bigint", "integer", "smallint", "tinyint"):
        return int(v)
    if raw == "double":
        return float(v)
    if raw == "real":
        return struct.unpack("f", struct.pack("f", float(v)))[0]
    if raw == "decimal":
        return decimal.Decimal(v)
    if raw in ("varchar", "char", "boolean", "json"):
        return v
    if raw == "date":
        return dt.date.fromisoformat(v)
    if raw in ("time", "time with time zone"):
        return dt.time.fromisoformat(v)
    if raw in ("timestamp", "timestamp with time zone"):
        return _timestamp(v, raw.endswith("zone"))
    if raw == "varbinary":
        return base64.b64decode(v)
    if raw == "uuid":
        return uuid.UUID(v)
    if raw == "array":
        inner = _args(sig)[0]["value"]
        return [convert(x, inner) for x in v]
    if raw == "map":
        ks, vs = (a["value"] for a in _args(sig))
        # Keys arrive as JSON object keys (strings); every scalar conversion above accepts a string.
        return [(convert(k, ks), convert(x, vs)) for k, x in v.items()]
    if raw == "row":
        fields = [a["value"] for a in _args(sig)]
        # An anonymous field (ROW(1, 'x') in SQL) is named field0, field1 ... as Trino's own clients do.
        names = [(f.get("fieldName") or {}).get("name") or f"field{i}" for i, f in enumerate(fields)]
        return {n: convert(x, f["typeSignature"]) for n, f, x in zip(names, fields, v)}
    raise TypeError(f"no conversion for Trino type {raw}")


class Rows:
    """What canonical.summary needs of a pyarrow Table: column_names and to_pylist()."""

    def __init__(self, columns: List[Dict[str, Any]], rows: List[Dict[str, Any]]) -> None:
        self.column_names = [c["name"] for c in columns]
        self._rows = rows

    def to_pylist(self) -> List[Dict[str, Any]]:
        return self._rows
