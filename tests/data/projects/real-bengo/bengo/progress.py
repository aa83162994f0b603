"""Live training dashboard driven by Trainer callbacks."""
import time

from rich.padding import Padding
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from .i18n import t
from .ui import human_bytes, ui

SPARK = "▁▂▃▄▅▆▇█"


def sparkline(values, width=24):
    points = values[-width:]
    if len(points) < 2:
        return ""
    low, high = min(points), max(points)
    span = (high - low) or 1.0
    return "".join(SPARK[min(7, int((v - low) / span * 7.999))] for v in points)


class TrainingMonitor:
    """Owns the Live region. Create one, pass .callback to the Trainer, stop it in a finally."""

    def __init__(self, interface=None):
        self.ui = interface or ui()
        self.progress = Progress(
            TextColumn("  [brand]{task.description}[/brand]"),
            BarColumn(bar_width=32, complete_style="brand", finished_style="ok",
                      pulse_style="rule", style="rule"),
            TextColumn("[value]{task.percentage:>3.0f}%[/value]"),
            TextColumn("[muted]{task.completed}/{task.total}[/muted]"),
            TimeElapsedColumn(), TextColumn("[muted]<[/muted]"), TimeRemainingColumn(),
            console=self.ui.console, transient=False,
        )
        self.task = None
        self.live = None
        self.losses = []
        self.metrics = {}
        self.started = None
        self.last_checkpoint = None
        self._callback = None

    # -- rendering -----------------------------------------------------
    def _stats(self):
        table = Table.grid(padding=(0, 3))
        table.add_column(style="muted", no_wrap=True)
        cells = []
        loss = self.metrics.get("loss")
        if loss is not None:
            trend = sparkline(self.losses) if self.ui.unicode else ""
            cells.append(Text(f"{t('train.loss')} ", style="muted").append(f"{loss:.4f}", style="ok")
                         .append(f" {trend}", style="rule"))
        if "eval_loss" in self.metrics:
            cells.append(Text(f"{t('train.eval_loss')} ", style="muted")
                         .append(f"{self.metrics['eval_loss']:.4f}", style="brand"))
        if "learning_rate" in self.metrics:
            cells.append(Text(f"{t('train.lr')} ", style="muted")
                         .append(f"{self.metrics['learning_rate']:.2e}", style="value"))
        if "epoch" in self.metrics:
            cells.append(Text(f"{t('train.epoch')} ", style="muted")
                         .append(f"{self.metrics['epoch']:.2f}", style="value"))
        vram = self._vram()
        if vram:
            cells.append(Text(f"{t('train.vram')} ", style="muted").append(vram, style="value"))
        if not cells:
            return Text("")
        table.add_row(*cells)
        return table

    def _vram(self):
        try:
            import torch
            if not torch.cuda.is_available():
                return None
            return f"{human_bytes(torch.cuda.max_memory_allocated())}"
        except Exception:
            return None

    def _render(self):
        rows = [self.progress]
        stats = self._stats()
        if stats:
            rows.append(Text(""))
            rows.append(Padding(stats, (0, 0, 0, 2)))
        if self.last_checkpoint:
            rows.append(Text(f"  {self.ui.dot} {self.last_checkpoint}", style="muted"))
        return self.ui.group(*rows)

    # -- lifecycle -----------------------------------------------------
    def start(self, total_steps):
        from rich.live import Live

        self.started = time.time()
        if self.ui.quiet:
            return
        self.task = self.progress.add_task(t("train.progress"), total=max(1, total_steps))
        self.live = Live(self._render(), console=self.ui.console, refresh_per_second=5)
        self.live.start()

    def refresh(self):
        if self.live:
            self.live.update(self._render())

    def stop(self):
        if self.live:
            self.live.update(self._render())
            self.live.stop()
            self.live = None

    @property
    def elapsed(self):
        return time.time() - self.started if self.started else 0.0

    @property
    def callback(self):
        if self._callback is None:
            self._callback = _build_callback(self)
        return self._callback


def _build_callback(monitor):
    from transformers import TrainerCallback

    class Dashboard(TrainerCallback):
        def on_train_begin(self, args, state, control, **kwargs):
            monitor.start(state.max_steps)

        def on_step_end(self, args, state, control, **kwargs):
            if monitor.task is not None:
                monitor.progress.update(monitor.task, completed=state.global_step)
            monitor.refresh()

        def on_log(self, args, state, control, logs=None, **kwargs):
            for key, value in (logs or {}).items():
                if isinstance(value, (int, float)):
                    monitor.metrics[key] = value
            if isinstance((logs or {}).get("loss"), (int, float)):
                monitor.losses.append(logs["loss"])
            monitor.refresh()

        def on_save(self, args, state, control, **kwargs):
            monitor.last_checkpoint = f"checkpoint-{state.global_step}"
            monitor.refresh()

        def on_train_end(self, args, state, control, **kwargs):
            if monitor.task is not None:
                monitor.progress.update(monitor.task, completed=state.global_step)
            monitor.stop()

    return Dashboard()
