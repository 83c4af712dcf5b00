"""Hive conventions the seeder needs to lay files out as Hive would (pure; no I/O).

Partition directory names: FileUtils.escapePathName (apache/hive common/.../FileUtils.java): every
char in 0x01-0x1F, '"', '#', '%', '\\'', '*', '/', ':', '=', '?', '\\\\', 0x7F, '{', '[', ']', '^' becomes
%XX (upper-case hex); everything else, space and non-ASCII included, stays as is (Linux rules). A
null value is the default partition name. Dev tooling; the product has its own (core/hive).
"""
from __future__ import annotations

from typing import List, Optional, Sequence

DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
_ESCAPED = set(chr(c) for c in range(1, 0x20)) | set('"#%\'*/:=?\\\x7f{[]^')


def escape_path_name(v: Optional[str]) -> str:
    if v is None or v == "":
        return DEFAULT_PARTITION
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in v)


def partition_name(keys: Sequence[str], values: Sequence[Optional[str]]) -> str:
    """`k1=v1/k2=v2`, both sides escaped (Warehouse.makePartName)."""
    return "/".join(f"{escape_path_name(k)}={escape_path_name(v)}" for k, v in zip(keys, values))


def hms_values(values: Sequence[Optional[str]]) -> List[str]:
    """Partition values as HMS stores them: a null is the default partition name."""
    return [DEFAULT_PARTITION if v is None else v for v in values]
