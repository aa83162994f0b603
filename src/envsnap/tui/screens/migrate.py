"""The Migrate view (``m``): pick a target, see the migration audit of this project and environment.

The same report as ``envsnap audit`` (``render.audit.render_audit``). The project folder is
scanned once, in a thread worker; each target picked re-judges that scan against the snapshot on
screen (no probing here: the snapshot comes from the app's existing collection or file), also in
a worker, so a big tree never blocks the UI.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Input, Select, Static

from envsnap.tui.messages import AuditComputed, AuditFailed

if TYPE_CHECKING:
    from envsnap.audit.model import AuditReport, ScanResult
    from envsnap.snapshot.model import Snapshot

TARGETS = (
    "rocm",
    "rocm:gfx942",
    "rocm:gfx90a",
    "rocm:gfx1100",
    "xpu",
    "xpu:pvc",
    "mps",
    "cpu",
    "cuda:sm_100",
    "cuda:sm_120",
)
"""The picker's targets; any precise form can be typed in the input instead."""


class MigrateScreen(Screen[None]):
    """Target picker over the migration report."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Close")]
    DEFAULT_CSS = """
    MigrateScreen #migrate-bar { height: auto; }
    MigrateScreen #migrate-target { width: 30; }
    MigrateScreen #migrate-custom { width: 1fr; }
    MigrateScreen #migrate-status { color: $text-muted; padding: 0 1; }
    MigrateScreen #migrate-body { padding: 0 1; }
    """

    def __init__(self, project_dir: Path, snapshot: Snapshot | None, target: str = "rocm") -> None:
        super().__init__(id="migrate-screen")
        self.project_dir = project_dir
        self.snapshot = snapshot
        self.target = target
        self.report: AuditReport | None = None
        self._scan: ScanResult | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="migrate-bar"):
            yield Select([(t, t) for t in TARGETS], value=self.target, allow_blank=False, id="migrate-target")
            yield Input(placeholder="or type a target: rocm:gfx942@6.4, cuda:sm_120 …", id="migrate-custom")
        yield Static(f"Auditing {self.project_dir} for {self.target}…", id="migrate-status", markup=False)
        with VerticalScroll(id="migrate-body"):
            yield Static("", id="migrate-report")
        yield Footer()

    def on_mount(self) -> None:
        self.audit_for(self.target)

    @on(Select.Changed, "#migrate-target")
    def _picked(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value != self.target:
            self.audit_for(event.value)

    @on(Input.Submitted, "#migrate-custom")
    def _typed(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.audit_for(event.value.strip())

    def audit_for(self, target: str) -> None:
        """Judge the project for ``target`` (scanning it first, once) in a worker."""
        self.target = target
        self.query_one("#migrate-status", Static).update(f"Auditing {self.project_dir} for {target}…")
        self._run_audit(target)

    @work(thread=True, exclusive=True, group="audit", exit_on_error=False, description="Auditing the project")
    def _run_audit(self, target: str) -> None:
        from envsnap.audit import audit, parse_target, scan_tree
        from envsnap.errors import BadInput

        try:
            parsed = parse_target(target)
            if self._scan is None:
                self._scan = scan_tree(str(self.project_dir), workers=1)  # threads alive: no fork
            label = "the snapshot on screen" if self.snapshot is not None else None
            report = audit(self._scan, self.snapshot, parsed, environment_label=label)
        except BadInput as err:
            self.post_message(AuditFailed(str(err)))
            return
        except Exception as err:  # an audit bug is shown, never a crash of the viewer
            self.post_message(AuditFailed(f"audit failed: {type(err).__name__}: {err}"))
            return
        self.post_message(AuditComputed(report))

    def on_audit_computed(self, message: AuditComputed) -> None:
        from envsnap.render.audit import render_audit, scanned_line

        self.report = message.report
        self.query_one("#migrate-status", Static).update(scanned_line(message.report))
        self.query_one("#migrate-report", Static).update(render_audit(message.report))

    def on_audit_failed(self, message: AuditFailed) -> None:
        self.query_one("#migrate-status", Static).update(message.error)
