"""The Prometheus exporter: what ``envsnap export prometheus`` and ``envsnap serve --metrics`` share.

source.py captures the node and builds the metric families (render/prometheus.py), caching them
for ``serve``; server.py is the HTTP side (``/metrics`` only, loopback by default).
"""
