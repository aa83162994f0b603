"""The `moss_shard` dataset format: KohakuVault catalog + binary image shards."""

from kohakumoss_data.format.catalog import Catalog, read_catalog, write_catalog
from kohakumoss_data.format.header import probe_image
from kohakumoss_data.format.shard import (
    RECORD,
    ShardReader,
    ShardRecord,
    ShardWriter,
)

__all__ = [
    "RECORD",
    "Catalog",
    "ShardReader",
    "ShardRecord",
    "ShardWriter",
    "probe_image",
    "read_catalog",
    "write_catalog",
]
