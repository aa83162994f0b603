"""The ``accelerators.nvidia`` section: the NVML probe (probe.py), the NVML fields it reads, the live
NVML telemetry source, and the ``nvidia-smi -q -x`` parser that shares its vocabulary (names.py)."""
