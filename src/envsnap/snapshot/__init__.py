"""The snapshot file: its model, deterministic YAML in and distrustful YAML out, fingerprint, redaction."""
