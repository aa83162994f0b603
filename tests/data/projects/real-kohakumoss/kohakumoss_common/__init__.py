"""Shared by kohakumoss, kohakumoss_kernels and kohakumoss_data: logging, the name ->
factory registry, dotted-path imports, knob checks, byte units, file helpers. Imports
neither torch nor a sibling package."""
