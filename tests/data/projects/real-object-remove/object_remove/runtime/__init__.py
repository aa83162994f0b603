"""GPU runtime plumbing. ``torch`` ships as a required dependency (one
``pip install object-remove`` gets both CPU and GPU support), imported
lazily by :func:`device.resolve_device` and the ``*_gpu.py``/``torch_*.py``
modules rather than at package top level.
"""
