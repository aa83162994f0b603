import pathlib


HYPERSLOTH_DATA_DIR = pathlib.Path("~/.cache/hypersloth").expanduser().resolve()
