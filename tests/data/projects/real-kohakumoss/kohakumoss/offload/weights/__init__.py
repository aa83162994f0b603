"""Weight placement engines: block weight streaming (`stream`, `streaming/`), the base
weights it installs, inference-time layer streaming and node-shared host memory."""
