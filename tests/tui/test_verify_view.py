"""The Verify view: ``envsnap tui REPORT.yaml`` on a report of a real record/verify with a changed layer."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

import envsnap
from envsnap.tui.screens.verify import DIVERGENCE_MARK, VerifyScreen
from tests.inprocess.record_models import make_input, make_net, with_tanh_gelu
from tests.tui.conftest import AppFactory, wait_for


@pytest.fixture(scope="module")
def report_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("verify-view")
    net = make_net()
    with envsnap.record(folder / "b.envsnap", model=net, environment="none", repeats=1, warmup=0):
        net(make_input())
    changed = with_tanh_gelu(make_net(), 1)
    with envsnap.verify(folder / "b.envsnap", model=changed, environment="none", slow=None) as v:
        changed(v.inputs)
    path = folder / "verify.yaml"
    path.write_text(v.report.to_yaml())
    return path


async def test_verify_report_opens_with_the_first_divergence_marked(
    make_app: AppFactory, report_path: Path
) -> None:
    app = make_app(snapshot_path=report_path)
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for(lambda: isinstance(app.screen, VerifyScreen), pilot)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, VerifyScreen)
        verdict = str(screen.query_one("#verify-verdict", Static).render())
        assert verdict.startswith(" FAIL ")
        divergence = str(screen.query_one("#verify-divergence", Static).render())
        assert "`layers.1.act`" in divergence
        tree: Tree[str] = screen.query_one("#verify-tree", Tree)
        marked = [node for node in _walk(tree.root) if DIVERGENCE_MARK in str(node.label)]
        assert [node.data for node in marked] == ["layers.1.act"]
        assert marked[0].parent is not None
        assert marked[0].parent.is_expanded
        assert "fail" in str(marked[0].label)
        assert "█" in str(marked[0].label)
        facts = str(screen.query_one("#verify-facts", Static).render())
        assert "latency" in facts
        assert "expected cpu" in facts
        env = str(screen.query_one("#verify-environment", Static).render())
        assert "no environment snapshot" in env


def _walk(node: TreeNode[str]) -> list[TreeNode[str]]:
    found = [node]
    for child in node.children:
        found += _walk(child)
    return found


async def test_esc_digits_and_r_keep_the_verify_report_on_show(
    make_app: AppFactory, report_path: Path
) -> None:
    """Issue 24 item 3: esc led to an empty main screen stuck on "probing…"; the report is the whole view."""
    app = make_app(snapshot_path=report_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(lambda: isinstance(app.screen, VerifyScreen), pilot)
        await pilot.press("escape", "1", "3", "m")
        await pilot.pause()
        assert isinstance(app.screen, VerifyScreen)
        assert len(app.screen_stack) == 2  # the tabs beneath, the report over them
        await pilot.press("r")  # re-read: replaced, not stacked
        await pilot.pause(0.5)
        await wait_for(lambda: isinstance(app.screen, VerifyScreen), pilot)
        assert isinstance(app.screen, VerifyScreen)
        assert len(app.screen_stack) == 2
        await pilot.press("question_mark")
        await pilot.pause()
        help_text = str(app.screen.query_one("#help-text").render())
        assert "Verify report (read-only)" in help_text
        assert "Migrate" not in help_text
