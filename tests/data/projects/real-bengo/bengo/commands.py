"""Command implementations. Everything the user sees on success is rendered here."""
import json
import math
from pathlib import Path

from rich.text import Text

from . import estimate as vram
from . import presets
from .doctor import collect, readiness
from .i18n import t
from .ui import human_bytes, human_count, human_duration, short_path, truncate, ui

DATA_SUFFIXES = (".json", ".jsonl", ".parquet")


# ----------------------------------------------------------------- overview
def overview(version):
    interface = ui()
    interface.blank()
    interface.banner(version, t("app.tagline"))
    interface.blank()
    rows = [("init", t("cmd.init")), ("doctor", t("cmd.doctor")), ("check", t("cmd.check")),
            ("estimate", t("cmd.estimate")), ("presets", t("cmd.presets")), ("train", t("cmd.train")),
            ("chat", t("cmd.chat")), ("merge", t("cmd.merge"))]
    interface.panel(interface.listing(rows), title="commands", padding=(0, 2))
    interface.blank()
    interface.panel(interface.commands([
        "bengo doctor", "bengo init", "bengo check", "bengo train", "bengo chat outputs/run",
    ]), title="quickstart", padding=(0, 2))
    interface.note("bengo <command> --help     BENGO_LANG=uz")
    interface.blank()
    return 0


# ------------------------------------------------------------------- doctor
def cmd_doctor(args):
    interface = ui()
    rows = collect()
    body = []
    fixes = []
    for key, level, detail, fix in rows:
        value = human_bytes(detail) if isinstance(detail, int) else t(detail) if detail else t("doctor.missing")
        body.append((t(key), interface.status_text(level, value)))
        if fix and t(fix) not in fixes:
            fixes.append(t(fix))
    interface.blank()
    interface.panel(interface.fields(body), title=t("doctor.title"))
    state = readiness(rows)
    message = {"ready": t("doctor.ready.full"), "cpu_only": t("doctor.ready.cpu"),
               "blocked": t("doctor.ready.no")}[state]
    if state == "ready":
        interface.success(message)
    else:
        interface.note(message, style="warn" if state == "cpu_only" else "bad")
    if fixes:
        interface.blank()
        interface.section(t("doctor.fix"), interface.bullets(fixes, style="hint"))
    interface.blank()
    return 0 if state != "blocked" else 1


# ------------------------------------------------------------------ presets
def cmd_presets(args):
    interface = ui()
    detected, name = vram.detect_vram()
    best = presets.recommend(detected / vram.GB if detected else 0)
    rows = []
    for key, preset in presets.PRESETS.items():
        marker = interface.arrow if key == best else " "
        rows.append((Text(f"{marker} {key}", style="brand" if key == best else "value"),
                     preset["target"], presets.summary(key)))
    interface.blank()
    interface.print(interface.table(
        [(t("presets.name"), {"no_wrap": True}), (t("presets.target"), {}), (t("presets.settings"), {"style": "muted"})],
        rows, title=t("presets.title")))
    interface.blank()
    if detected:
        interface.note(t("init.detected.gpu", name=name, vram=f"{detected / vram.GB:.1f}"))
    interface.note(t("presets.usage", name=best))
    interface.blank()
    return 0


# --------------------------------------------------------------------- init
def cmd_init(args):
    from .yaml_config import init_config

    interface = ui()
    path = Path(args.path)
    if path.exists():
        interface.error(t("error.title"), t("init.exists", path=path), t("hint.file_not_found"))
        return 1
    detected, gpu = vram.detect_vram()
    gigabytes = detected / vram.GB if detected else 0
    values = dict(presets.get(args.preset) if args.preset else presets.get(presets.recommend(gigabytes)))
    interface.blank()
    interface.banner(args.version, t("init.wizard.title"))
    interface.blank()
    if detected:
        interface.note(t("init.detected.gpu", name=gpu, vram=f"{gigabytes:.1f}"))
    else:
        interface.note(t("init.detected.none"))
    answers = {"model_name": args.model or "Qwen/Qwen2.5-1.5B-Instruct",
               "dataset": args.dataset or "./train.jsonl",
               "dataset_format": args.format or "alpaca",
               "method": args.method or values.get("method", "qlora"),
               "output_dir": args.output or "./outputs/run"}
    if not args.yes:
        # Always ask. isatty() is unreliable (Git Bash and other terminals report
        # False), so rely on the prompt itself failing when there is no input.
        chosen = _ask(interface, answers, args.preset or presets.recommend(gigabytes))
        if chosen:
            values.update(presets.get(chosen))
    values.update(answers)
    try:
        created = init_config(path, values)
    except FileExistsError:
        interface.error(t("error.title"), t("init.exists", path=path))
        return 1
    interface.blank()
    interface.success(t("init.created", path=created))
    dataset = Path(path).parent / values["dataset"]
    if not dataset.exists() and values["dataset"].startswith((".", "/", "~")):
        interface.note(t("init.dataset.missing", path=values["dataset"]), style="hint")
    interface.blank()
    interface.section(t("init.next"), interface.commands(
        [f"bengo check {path}" if path.name != "bengo.yaml" else "bengo check", "bengo train"]))
    return 0


QUESTIONS = (
    ("model_name", "init.ask.model", None),
    ("dataset", "init.ask.dataset", None),
    ("dataset_format", "init.ask.format", ("alpaca", "prompt_completion", "text", "messages")),
    ("method", "init.ask.method", ("qlora", "lora", "full")),
    ("output_dir", "init.ask.output", None),
)


def _ask(interface, answers, preset):
    """Fill answers in place and return the chosen preset.

    Every answer is kept as soon as it is given, so an interrupted wizard still
    writes what the user typed. Returns None when nothing could be asked.
    """
    from rich.prompt import Prompt

    def ask(message, default, choices=None):
        return Prompt.ask(f"  [key]{message}[/key]", default=default,
                          choices=list(choices) if choices else None,
                          console=interface.console, show_choices=bool(choices))

    interface.blank()
    try:
        for key, label, choices in QUESTIONS:
            answers[key] = ask(t(label), answers[key], choices)
        return ask(t("init.ask.preset"), preset, presets.NAMES)
    except (EOFError, KeyboardInterrupt):
        # No input available (a pipe or CI) or the user gave up; keep the defaults.
        interface.blank()
        return None


# -------------------------------------------------------------------- check
def inspect_dataset(source, base=None):
    """(rows, bytes, first_row, state) without loading the datasets library."""
    path = Path(source)
    if not path.is_absolute() and base:
        path = Path(base) / path
    if path.is_file():
        size = path.stat().st_size
        if path.suffix.lower() == ".parquet":
            return None, size, None, "local"
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None, size, None, "local"
        if path.suffix.lower() == ".json":
            try:
                rows = json.loads(text)
            except ValueError:
                return None, size, None, "local"
            rows = rows if isinstance(rows, list) else [rows]
            return len(rows), size, rows[0] if rows else None, "local"
        lines = [line for line in text.splitlines() if line.strip()]
        first = None
        if lines:
            try:
                first = json.loads(lines[0])
            except ValueError:
                first = None
        return len(lines), size, first, "local"
    if str(source).lower().endswith(DATA_SUFFIXES):
        return None, None, None, "missing"
    return None, None, None, "remote"


def planned_steps(config, rows):
    if config.max_steps > 0:
        return config.max_steps
    if not rows:
        return None
    per_epoch = math.ceil(rows / config.batch_size) // config.gradient_accumulation_steps
    return max(1, int(per_epoch * config.epochs))


def config_sections(config, interface):
    rows, size, first, state = inspect_dataset(config.dataset)
    effective = config.batch_size * config.gradient_accumulation_steps
    steps = planned_steps(config, rows)
    if state == "local":
        data_note = t("check.dataset.local", count=rows if rows is not None else "?",
                      size=human_bytes(size))
    elif state == "missing":
        data_note = t("check.dataset.missing")
    else:
        data_note = t("check.dataset.remote")
    fields = [
        t("check.section.model"),
        ("model_name", short_path(config.model_name)),
        ("method", config.method, "4-bit NF4" if config.method == "qlora" else ""),
        ("precision", config.precision),
        ("revision", config.revision or "-"),
        t("check.section.data"),
        ("dataset", short_path(config.dataset), data_note),
        ("dataset_format", config.dataset_format),
        ("eval_dataset", short_path(config.eval_dataset)),
        t("check.section.training"),
        ("epochs", config.epochs if config.max_steps < 0 else f"max_steps {config.max_steps}",
         t("check.steps", steps=steps) if steps else t("check.steps.unknown")),
        ("learning_rate", f"{config.effective_learning_rate:g}"),
        ("batch", f"{config.batch_size} x {config.gradient_accumulation_steps}",
         t("check.effective_batch", value=effective)),
        ("max_length", config.max_length),
        t("check.section.memory"),
        ("lora_rank", f"{config.lora_rank} / alpha {config.lora_alpha}" if config.method != "full" else "-"),
        ("gradient_checkpointing", "on" if config.gradient_checkpointing else "off"),
        ("optim", config.optim or ("paged_adamw_8bit" if config.method == "qlora" else "adamw_torch")),
        t("check.section.output"),
        ("output_dir", short_path(config.output_dir)),
        ("resume", short_path(config.resume_from_checkpoint)),
    ]
    return interface.fields(fields), {"first": first, "state": state, "rows": rows,
                                      "effective_batch": effective}


def _dataset_problem(interface, config, summary):
    """Renders dataset warnings; returns True when training cannot start."""
    if summary["state"] == "missing":
        interface.error(t("error.title"), f"{t('check.dataset.missing')}: {config.dataset}",
                        t("hint.file_not_found"))
        return True
    rows, batch = summary["rows"], summary["effective_batch"]
    if rows is not None and 0 < rows < batch:
        interface.note(t("check.tiny", rows=rows, batch=batch), style="warn")
    return False


def cmd_check(args, config):
    interface = ui()
    body, summary = config_sections(config, interface)
    interface.blank()
    interface.panel(body, title=t("check.title"))
    if summary["first"]:
        preview = ", ".join(f"{key}: {truncate(value, 42)}"
                            for key, value in list(summary["first"].items())[:4])
        interface.section(t("check.sample"), Text(preview, style="muted"))
    if _dataset_problem(interface, config, summary):
        return 1
    interface.success(t("check.valid"))
    interface.note(t("check.caveat"))
    interface.blank()
    return 0


# ----------------------------------------------------------------- estimate
def resolve_profile(config, params_billion=None, offline=False):
    return vram.profile(config.model_name, revision=config.revision,
                        params_billion=params_billion, offline=offline)


def render_estimate(config, info, budget, gpu_name, compact=False):
    """Returns (verdict, renderable). budget is bytes or None."""
    interface = ui()
    parts = vram.breakdown(config, info)
    state = vram.verdict(parts["total"], budget)
    lines = [
        (t("estimate.weights"), human_bytes(parts["weights"])),
        (t("estimate.adapter"), human_bytes(parts["adapter"]),
         human_count(parts["trainable"]) if config.method != "full" else ""),
        (t("estimate.gradients"), human_bytes(parts["gradients"])),
        (t("estimate.optimizer"), human_bytes(parts["optimizer"])),
        (t("estimate.activations"), human_bytes(parts["activations"])),
        (t("estimate.logits"), human_bytes(parts["logits"])),
        (t("estimate.overhead"), human_bytes(parts["overhead"])),
        None,
        (t("estimate.total"), Text(human_bytes(parts["total"]), style="title")),
    ]
    if budget:
        style = {"fits": "ok", "tight": "warn", "over": "bad"}[state]
        lines.append((t("estimate.available"),
                      Text(f"{human_bytes(budget)}  {gpu_name or ''}".strip(), style=style)))
    if compact:
        return state, parts, None
    header = [
        (t("estimate.params"), f"{info['params'] / 1e9:.2f}B", t(f"estimate.source.{info['source']}")),
        None,
    ]
    return state, parts, interface.fields(header + lines)


def cmd_estimate(args, config):
    interface = ui()
    info = resolve_profile(config, getattr(args, "params", None))
    if not info:
        interface.error(t("error.title"), t("estimate.unknown_params"))
        return 1
    detected, gpu_name = vram.detect_vram()
    budget = int(args.vram * vram.GB) if getattr(args, "vram", None) else detected
    state, parts, body = render_estimate(config, info, budget, gpu_name)
    interface.blank()
    interface.panel(body, title=t("estimate.title"))
    verdicts = {"fits": ("ok", t("estimate.verdict.fits")), "tight": ("warn", t("estimate.verdict.tight")),
                "over": ("bad", t("estimate.verdict.over")), "unknown": ("muted", t("estimate.verdict.unknown"))}
    style, message = verdicts[state]
    if state == "fits":
        interface.success(message)
    else:
        interface.note(message, style=style)
    if state == "over":
        advice, solved = vram.suggestions(config, info, budget)
        items = [t(key, **fields) for key, fields in advice]
        if not solved:
            items.append(t("estimate.advice.smaller", params=f"{info['params'] / 1e9:.1f}"))
            items.append(t("estimate.advice.preset",
                           name=presets.recommend(budget / vram.GB if budget else 0)))
        interface.blank()
        interface.section(t("estimate.advice"), interface.bullets(items, style="hint"))
    interface.blank()
    interface.note(t("estimate.disclaimer"))
    interface.blank()
    return 0


# -------------------------------------------------------------------- train
def cmd_train(args, config):
    interface = ui()
    body, summary = config_sections(config, interface)
    interface.blank()
    interface.banner(args.version, f"{config.method} {interface.arrow} {Path(config.output_dir).name}")
    interface.blank()
    interface.panel(body, title=t("train.title"))
    if _dataset_problem(interface, config, summary):
        return 1
    info = resolve_profile(config, offline=True)
    if info:
        detected, gpu_name = vram.detect_vram()
        fit, parts, _ = render_estimate(config, info, detected, gpu_name, compact=True)
        style = {"fits": "ok", "tight": "warn", "over": "bad", "unknown": "muted"}[fit]
        summary = Text(f"  {t('estimate.total')}: ", style="muted")
        summary.append(human_bytes(parts["total"]), style=style)
        if detected:
            summary.append(f" / {human_bytes(detected)}", style="muted")
        interface.print(summary)
        if fit == "over":
            interface.note(t("estimate.verdict.over"), style="bad")
    if args.dry_run:
        interface.blank()
        interface.success(t("train.dry_run"))
        return 0

    from .progress import TrainingMonitor
    from .trainer import FineTuner

    _quiet_libraries()
    interface.blank()
    monitor = TrainingMonitor(interface)
    with interface.console.status(f"[muted]{t('train.loading_model')}[/muted]", spinner="dots"):
        tuner = FineTuner(config, callbacks=[monitor.callback])
    try:
        metrics = tuner.train(resume_from_checkpoint=args.resume)
    finally:
        monitor.stop()
    interface.blank()
    _report(interface, config, metrics, monitor.elapsed)
    return 0


def _quiet_libraries():
    """The dashboard is the only progress reporter during a run."""
    try:
        import datasets
        datasets.disable_progress_bars()
    except Exception:
        pass


NOISY_METRICS = ("total_flos", "train_steps_per_second")


def _report(interface, config, metrics, elapsed):
    output = short_path(config.output_dir)
    if interface.quiet:
        loss = metrics.get("train_loss")
        loss = f"  {t('train.loss')} {loss:.4f}" if isinstance(loss, float) else ""
        interface.always(Text(f"{output}{loss}  {human_duration(elapsed)}", style="value"))
        return
    rows = [(key, f"{value:,.4g}" if isinstance(value, float) else value)
            for key, value in sorted(metrics.items())
            if isinstance(value, (int, float)) and key not in NOISY_METRICS]
    interface.panel(interface.fields(rows), title=t("train.done", duration=human_duration(elapsed)))
    interface.success(t("train.saved", path=output))
    interface.blank()
    commands = [f"bengo chat {output}"]
    if config.method != "full":
        commands.append(f"bengo merge {output} {output}-merged")
    interface.section(t("train.next"), interface.commands(commands))


# --------------------------------------------------------------- chat/merge
def cmd_chat(args):
    from .chat import session

    return session(args.adapter, max_new_tokens=args.max_new_tokens,
                   temperature=args.temperature, single_prompt=args.prompt)


def cmd_merge(args):
    from .trainer import FineTuner

    interface = ui()
    interface.blank()
    interface.note(t("merge.working"), style="hint")
    with interface.console.status(f"[muted]{t('chat.loading')}[/muted]", spinner="dots"):
        FineTuner.merge_adapter(args.adapter, args.output)
    interface.success(t("merge.done", path=args.output))
    interface.blank()
    return 0
