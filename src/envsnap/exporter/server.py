"""The HTTP side of ``envsnap serve --metrics``: ``GET /metrics`` and nothing else, loopback by default.

prometheus-client renders the page (``make_wsgi_app``: content negotiation between the text format
and OpenMetrics, gzip when asked); this module only narrows what it answers. prometheus-client
serves its page on *every* path, and an exporter is a listening socket on a GPU node, so the
surface is cut to the one path Prometheus scrapes: any other path is 404, any method but GET 405.
Requests are handled on threads (``ThreadingWSGIServer``) and never log to stderr.

The serve loop (``serve``) runs on the main thread: capture, then wait ``interval`` seconds or
for SIGTERM/SIGINT, then capture again. The next capture starts only after the previous one
ended, so a slow probe delays the next one instead of piling them up.
"""

from __future__ import annotations

import ipaddress
import signal
import socket
import threading
from collections.abc import Callable, Iterable
from types import FrameType
from typing import Any
from wsgiref.simple_server import WSGIServer, make_server

from prometheus_client.exposition import ThreadingWSGIServer, _SilentHandler, make_wsgi_app
from prometheus_client.registry import CollectorRegistry

from envsnap.errors import BadInput
from envsnap.exporter.source import CachedMetrics

DEFAULT_LISTEN = "127.0.0.1:9401"
"""Next to DCGM-exporter's 9400; loopback, so nothing off the node can scrape it unless told to."""

METRICS_PATH = "/metrics"

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:9401`` for IPv6) into its parts.

    Raises:
        BadInput: no port, a port out of range, or no host (``:9401`` would mean every interface:
            say ``0.0.0.0:9401`` when that is meant).
    """
    host, sep, port_text = text.rpartition(":")
    if not sep or not port_text.isdigit():
        raise BadInput(f"--listen {text}: give HOST:PORT, e.g. {DEFAULT_LISTEN}")
    port = int(port_text)
    if port > 65535:
        raise BadInput(f"--listen {text}: port {port} is out of range (0-65535)")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host:
        raise BadInput(
            f"--listen {text}: give the address to bind, e.g. 127.0.0.1 or 0.0.0.0 for every interface"
        )
    return host, port


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def metrics_app(registry: CollectorRegistry) -> Callable[[dict[str, Any], StartResponse], Iterable[bytes]]:
    """A WSGI app answering ``GET /metrics`` from ``registry``, 404/405 for anything else."""
    page = make_wsgi_app(registry)

    def app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != METRICS_PATH:
            start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"not found; metrics are at /metrics\n"]
        if environ.get("REQUEST_METHOD") != "GET":
            start_response("405 Method Not Allowed", [("Allow", "GET"), ("Content-Type", "text/plain")])
            return [b"use GET\n"]
        result: Iterable[bytes] = page(environ, start_response)
        return result

    return app


def bind(host: str, port: int, registry: CollectorRegistry) -> WSGIServer:
    """Bind the metrics server (not yet serving).

    Raises:
        BadInput: the address can't be bound (in use, not an address of this machine, ...).
    """

    class Server(ThreadingWSGIServer):
        pass

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, _, _, _, sockaddr = infos[0]
        Server.address_family = family
        return make_server(
            str(sockaddr[0]), port, metrics_app(registry), Server, handler_class=_SilentHandler
        )
    except OSError as err:
        raise BadInput(f"--listen {host}:{port}: cannot bind: {err.strerror or err}") from None


def bound_address(server: WSGIServer) -> tuple[str, int]:
    """The address actually bound (the real port when 0 was asked for)."""
    address = server.socket.getsockname()
    return str(address[0]), int(address[1])


def serve(
    source: CachedMetrics,
    server: WSGIServer,
    *,
    interval_s: float,
    on_ready: Callable[[], None] | None = None,
    on_refresh_failed: Callable[[str], None] | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Capture, serve, and capture again every ``interval_s`` until SIGTERM/SIGINT (or ``stop``).

    The first capture finishes before the first request is answered, so no scrape sees an empty
    page. Signal handlers are installed only on the main thread (tests run it on another).
    """
    stop = stop or threading.Event()
    previous: dict[int, Any] = {}

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    if threading.current_thread() is threading.main_thread():
        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    thread: threading.Thread | None = None
    try:
        _refresh(source, on_refresh_failed)
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="envsnap-metrics", daemon=True
        )
        thread.start()
        if on_ready is not None:
            on_ready()
        while not stop.wait(interval_s):
            _refresh(source, on_refresh_failed)
    finally:
        if thread is not None:
            server.shutdown()
            thread.join(5.0)
        server.server_close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _refresh(source: CachedMetrics, on_failed: Callable[[str], None] | None) -> None:
    if not source.refresh() and on_failed is not None:
        on_failed(source.stats.last_error or "unknown error")
