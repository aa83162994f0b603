"""Cross-platform utilities: memory hygiene and hardware probing."""
