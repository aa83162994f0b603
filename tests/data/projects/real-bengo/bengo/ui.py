"""Terminal presentation. One console, one palette, ASCII fallback for legacy consoles."""
import os
import sys
from pathlib import Path

from rich import box as rich_box
from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

THEME = Theme({
    "brand": "bold cyan",
    "title": "bold white",
    "key": "cyan",
    "value": "white",
    "muted": "dim white",
    "ok": "bold green",
    "warn": "bold yellow",
    "bad": "bold red",
    "hint": "yellow",
    "rule": "dim cyan",
})

_ui = None


def _unicode_safe(stream):
    encoding = getattr(stream, "encoding", None) or ""
    try:
        "─╭━".encode(encoding)
    except (LookupError, UnicodeEncodeError, TypeError):
        return False
    return True


def _modern_console():
    """True when the terminal handles VT sequences, so rich need not fall back to ASCII.

    rich assumes a legacy console on Windows unless it recognises the host. Git Bash,
    VS Code and anything exporting TERM handle VT fine, so trust that signal too.
    """
    return bool(os.environ.get("WT_SESSION") or os.environ.get("TERM")
                or os.environ.get("ConEmuANSI") or os.environ.get("TERM_PROGRAM"))


class Ui:
    def __init__(self, color=True, quiet=False, stream=None):
        stream = stream or sys.stdout
        self.unicode = _unicode_safe(stream)
        self.quiet = quiet
        no_color = not color or bool(os.environ.get("NO_COLOR"))
        legacy = False if self.unicode and _modern_console() else None
        self.console = Console(theme=THEME, file=stream, no_color=no_color,
                               highlight=False, soft_wrap=False, legacy_windows=legacy)
        self.error_console = Console(theme=THEME, file=sys.stderr, no_color=no_color,
                                     highlight=False, legacy_windows=legacy)
        self.box = rich_box.ROUNDED if self.unicode else rich_box.ASCII
        self.tick = "+" if not self.unicode else "✔"
        self.cross = "x" if not self.unicode else "✘"
        self.dot = "-" if not self.unicode else "•"
        self.arrow = "->" if not self.unicode else "→"

    # -- primitives ----------------------------------------------------
    def print(self, *args, **kwargs):
        if not self.quiet:
            self.console.print(*args, **kwargs)

    def always(self, *args, **kwargs):
        """Print even under --quiet: final results and anything the user asked for."""
        self.console.print(*args, **kwargs)

    def blank(self):
        self.print()

    def banner(self, version, subtitle=""):
        line = Text("  bengo ", style="brand")
        line.append(version, style="muted")
        if subtitle:
            line.append("   " + subtitle, style="muted")
        self.print(line)

    @property
    def width(self):
        return min(self.console.width, 96)

    def panel(self, renderable, title=None, style="rule", padding=(1, 2)):
        self.print(Panel(renderable, title=title, title_align="left", box=self.box,
                         border_style=style, padding=padding, width=self.width))

    def listing(self, rows, width=12, key_style="brand"):
        """Two-column list: a short name and its description."""
        table = Table.grid(padding=(0, 2))
        table.add_column(width=width, no_wrap=True)
        table.add_column(overflow="fold")
        for name, description in rows:
            table.add_row(Text(str(name), style=key_style), Text(str(description), style="value"))
        return table

    def fields(self, rows, width=None):
        """Borderless block for panels. A bare string is a section heading."""
        table = Table.grid(padding=(0, 2))
        table.add_column(width=width, no_wrap=True)
        table.add_column(overflow="fold")
        first = True
        for row in rows:
            if row is None:
                table.add_row("", "")
                continue
            if isinstance(row, str):
                if not first:
                    table.add_row("", "")
                table.add_row(Text(row, style="title"), "")
                first = False
                continue
            first = False
            name, value, *rest = row
            note = rest[0] if rest else None
            text = value if isinstance(value, Text) else Text(str(value), style="value")
            if note:
                text = text.copy()
                text.append("   " + str(note), style="muted")
            table.add_row(Text("  " + str(name), style="key"), text)
        return table

    def table(self, columns, rows, title=None):
        table = Table(box=self.box, border_style="rule", header_style="title",
                      title=title, title_style="title", title_justify="left",
                      width=self.width,
                      show_header=any(str(c[0] if isinstance(c, (list, tuple)) else c) for c in columns))
        for column in columns:
            name, *options = column if isinstance(column, (list, tuple)) else (column,)
            table.add_column(name, **(options[0] if options else {}))
        for row in rows:
            table.add_row(*[cell if isinstance(cell, Text) else Text(str(cell)) for cell in row])
        return table

    def group(self, *renderables):
        return Group(*[r for r in renderables if r is not None])

    def section(self, title, renderable):
        self.print(Text("  " + title, style="title"))
        self.print(Padding(renderable, (0, 0, 1, 4)))

    # -- status --------------------------------------------------------
    def status_text(self, level, label):
        style = {"ok": "ok", "warn": "warn", "fail": "bad"}[level]
        mark = {"ok": self.tick, "warn": "!", "fail": self.cross}[level]
        return Text(f"{mark} {label}", style=style)

    def success(self, message):
        self.print(Text("  " + self.tick + " ", style="ok").append(message, style="value"))

    def note(self, message, style="muted"):
        self.print(Text("  " + message, style=style))

    def bullets(self, items, style="value"):
        return self._marked(items, self.dot, style)

    def commands(self, items):
        return self._marked(items, self.arrow, "brand")

    def _marked(self, items, mark, style):
        table = Table.grid(padding=(0, 1))
        table.add_column(style="rule", no_wrap=True)
        table.add_column(overflow="fold")
        for item in items:
            table.add_row(mark, item if isinstance(item, Text) else Text(str(item), style=style))
        return table

    def error(self, title, message, hint=None):
        body = Text(str(message), style="value")
        if hint:
            body.append("\n\n")
            body.append(hint, style="hint")
        self.error_console.print(Panel(body, title=title, title_align="left", box=self.box,
                                       border_style="bad", padding=(1, 2)))


def configure(color=True, quiet=False):
    global _ui
    _ui = Ui(color=color, quiet=quiet)
    return _ui


def ui():
    global _ui
    if _ui is None:
        _ui = Ui()
    return _ui


def human_bytes(value):
    if value is None:
        return "-"
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(value) < 1024 or unit == "TB":
            return f"{value:.0f} {unit}" if unit in ("B", "KB") else f"{value:.2f} {unit}"
        value /= 1024
    return f"{value:.2f} TB"


def human_count(value):
    for limit, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(value) >= limit:
            return f"{value / limit:.2f}".rstrip("0").rstrip(".") + suffix
    return str(int(value))


def human_duration(seconds):
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes}m {secs}s"
    if minutes:
        return f"{minutes}m {secs}s"
    return f"{secs}s"


def short_path(value, limit=60):
    """Readable form of a path: relative to the working directory when possible."""
    if not value:
        return "-"
    text = str(value)
    path = Path(text)
    if path.is_absolute():
        try:
            text = "./" + str(path.relative_to(Path.cwd()))
        except ValueError:
            parts = path.parts
            text = (".../" + "/".join(parts[-3:])) if len(parts) > 3 else text
    text = text.replace("\\", "/")
    return text if len(text) <= limit else ".../" + text[-(limit - 4):]


def truncate(text, limit=88):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
