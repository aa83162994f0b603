"""The cached scan: catalog files per source, rescans, single-writer locking (see
docs/concepts/data.md#the-catalog-cache)."""
