"""The ``accelerators.amd`` section: the probe (probe.py) over two backends, amdsmi (smi.py) and the
amdgpu driver's sysfs files (sysfs.py), and the gfx target names both report (gfx.py)."""
