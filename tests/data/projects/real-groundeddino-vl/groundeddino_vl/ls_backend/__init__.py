"""Label Studio ML Backend scaffolding for GroundedDINO-VL.

This package contains the minimal file structure required for the upcoming
implementation. No functionality is provided yet.
"""

# Intentionally left empty to enable package imports.
