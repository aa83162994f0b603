"""``serve --metrics``: the export's metrics over HTTP for Prometheus, probes cached between scrapes."""

from __future__ import annotations

import click

from envsnap.commands import completion
from envsnap.commands.common import CONTEXT_SETTINGS, warn_edited
from envsnap.errors import ExitCode


@click.command("serve", context_settings=CONTEXT_SETTINGS)
@click.option("--metrics", is_flag=True, help="Serve Prometheus metrics at /metrics (the only thing served).")
@click.option(
    "--listen",
    metavar="HOST:PORT",
    default="127.0.0.1:9401",
    show_default=True,
    help="Address to bind; loopback unless you say otherwise (0.0.0.0:9401 for every interface).",
)
@click.option(
    "--against",
    metavar="KNOWN_GOOD",
    shell_complete=completion.files,
    help="Also serve drift from this known-good snapshot (read again when the file changes).",
)
@click.option(
    "--interval",
    type=click.FloatRange(min=1.0),
    default=60.0,
    show_default=True,
    metavar="S",
    help="Seconds between captures; scrapes in between are answered from the last one.",
)
@click.option(
    "--watch-dir",
    metavar="DIR",
    help="Also serve the verdicts of the processes `envsnap watch --export DIR` is watching.",
)
@click.option("--python", "python_path", metavar="PATH", help="Probe this interpreter's environment.")
@click.option("--no-frameworks", is_flag=True, help="Don't import ML frameworks (faster, fewer checks).")
def serve_command(
    metrics: bool,
    listen: str,
    against: str | None,
    interval: float,
    watch_dir: str | None,
    python_path: str | None,
    no_frameworks: bool,
) -> int:
    """Serve this node's stack, findings and drift to Prometheus, probing every --interval seconds.

    The same metrics as `envsnap export prometheus`, at http://HOST:PORT/metrics (no other path is
    answered). Probes run between scrapes, never during one, so a scrape costs milliseconds. Runs
    until SIGTERM or Ctrl-C (exit 0); exit 2 when the address can't be bound or an input can't be read.

    \b
    Examples:
      envsnap serve --metrics
      envsnap serve --metrics --against /etc/envsnap/known-good.yaml --interval 300
      envsnap serve --metrics --listen 0.0.0.0:9401 --watch-dir /run/envsnap/watch
    """
    from envsnap import api
    from envsnap.commands.export import watch_folder
    from envsnap.exporter.server import bind, bound_address, is_loopback, parse_listen, serve
    from envsnap.exporter.source import CachedMetrics, KnownGood, live_capture
    from envsnap.snapshot.safe_text import one_line

    if not metrics:
        raise click.UsageError("say what to serve: --metrics (the only thing `envsnap serve` serves)")
    host, port = parse_listen(listen)
    if python_path is not None:
        api.check_interpreter(python_path)
    folder = watch_folder(watch_dir)
    known = KnownGood(against) if against is not None else None
    if known is not None:
        warn_edited([known.path] if known.edited else [])
    from prometheus_client.registry import CollectorRegistry

    source = CachedMetrics(live_capture(python_path, not no_frameworks), known, folder)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(source)
    server = bind(host, port, registry)
    bound_host, bound_port = bound_address(server)
    if not is_loopback(bound_host):
        click.echo(
            f"envsnap: warning: serving on {bound_host}, reachable from other machines; "
            "restrict it with a firewall or --listen 127.0.0.1:PORT",
            err=True,
        )
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host

    def ready() -> None:
        click.echo(
            f"envsnap: serving metrics on http://{shown}:{bound_port}/metrics "
            f"(capturing every {interval:g} s)",
            err=True,
        )

    def failed(error: str) -> None:
        from envsnap.snapshot.redact import redact_text

        click.echo(
            f"envsnap: warning: capture failed, serving the last one: {one_line(redact_text(error))}",
            err=True,
        )

    serve(source, server, interval_s=interval, on_ready=ready, on_refresh_failed=failed)
    return int(ExitCode.OK)
