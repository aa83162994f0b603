"""The headless core never loads Textual, and `import envsnap` loads nothing heavy.

Each module is imported in a fresh interpreter, because inside the test process other tests have
long since imported everything.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEADLESS = [
    "envsnap",
    "envsnap.api",
    "envsnap.cli",
    "envsnap.commands.snapshot",
    "envsnap.commands.check",
    "envsnap.commands.compare",
    "envsnap.commands.live",
    "envsnap.commands.tui",
    "envsnap.compare.diff",
    "envsnap.rollback.plan",
    "envsnap.rules",
    "envsnap.importers",
    "envsnap.live.fallback",
    "envsnap.inprocess.guard",
    "envsnap.guard",
    "envsnap.inprocess.record",
    "envsnap.inprocess.verify",
    "envsnap.commands.verify",
    "envsnap.commands.rollback",
    "envsnap.documents",
    "envsnap.snapshot.files",
    "envsnap.snapshot.yaml_text",
    "envsnap.snapshot.finalize",
    "envsnap.collector",
    "envsnap.snapshot.model",
    "envsnap.snapshot.store",
    "envsnap.snapshot.redact",
    "envsnap.snapshot.fingerprint",
    "envsnap.snapshot.normalize",
    "envsnap.live.sampler",
    "envsnap.live.sources",
    "envsnap.render.summary",
    "envsnap.audit",
    "envsnap.commands.audit",
    "envsnap.render.audit",
]


def _loaded_after_import(module: str, *, full: bool = False) -> set[str]:
    """Top-level packages loaded by importing ``module`` (every module's full name with ``full``)."""
    names = "sys.modules" if full else "{m.split('.')[0] for m in sys.modules}"
    code = f"import sys, {module}\nprint(' '.join(sorted({names})))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_modules_do_not_load_textual(module: str) -> None:
    loaded = _loaded_after_import(module)
    assert "textual" not in loaded
    assert "torch" not in loaded


def test_import_envsnap_is_light() -> None:
    loaded = _loaded_after_import("envsnap")
    assert not loaded & {"textual", "rich", "torch", "pynvml", "amdsmi", "yaml", "msgspec", "click"}


def test_tui_start_path_defers_the_model() -> None:
    # `envsnap tui` paints its first frame before the snapshot model (and msgspec) are needed;
    # keeping them out of the start path is what holds first-frame time near a bare Textual app.
    loaded = _loaded_after_import("envsnap.cli, envsnap.commands.tui, envsnap.tui.app, envsnap.tui.defaults")
    assert "textual" in loaded
    assert not loaded & {"msgspec", "yaml", "packaging", "psutil", "torch"}


def test_tui_start_path_leaves_hidden_tabs_widgets_out() -> None:
    # The Packages and Snapshots tables are built after the first GPU card (issue 24): DataTable's
    # module (and its rendering helpers) is imported then, not before the first frame.
    loaded = _loaded_after_import("envsnap.cli, envsnap.commands.tui, envsnap.tui.app", full=True)
    assert "envsnap.tui.panes.packages" in loaded
    assert "textual.widgets._data_table" not in loaded


def test_live_sampler_does_not_read_the_rocm_tree() -> None:
    # The sampler opens telemetry backends only; the ROCm install tree is the AMD probe's business.
    loaded = _loaded_after_import("envsnap.live.sources", full=True)
    assert "envsnap.probes.amd.probe" in loaded
    assert "envsnap.probes.toolkits.rocm" not in loaded


def _import_cycles() -> list[list[str]]:
    """Every set of envsnap modules that import each other in a circle (Tarjan's strongly connected
    components over grimp's graph; imports under ``if TYPE_CHECKING:`` run no code and don't count)."""
    import grimp

    graph = grimp.build_graph("envsnap", exclude_type_checking_imports=True)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in graph.modules:
                continue
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return cycles


def test_no_module_imports_itself_through_others() -> None:
    """The layers contract (pyproject.toml, checked by lint-imports) forbids upward imports between
    packages; this forbids circles inside a package too (issue 20: verify's report and its render)."""
    assert _import_cycles() == []
