"""Init file."""

_submodules = [
    "adapters",
    "architecture",
    "trainer",
]
