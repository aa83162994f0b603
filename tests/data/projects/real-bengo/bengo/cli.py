"""Command line entry point: parse, dispatch, and turn exceptions into advice."""
import argparse
import sys

from . import __version__, commands, presets
from .i18n import LANGUAGES, detect_language, set_language, t
from .ui import configure, ui
from .yaml_config import parse_override

# Flag name (argparse dest) -> configuration key.
OVERRIDES = {
    "model": "model_name", "dataset": "dataset", "eval": "eval_dataset", "output": "output_dir",
    "method": "method", "format": "dataset_format", "epochs": "epochs", "lr": "learning_rate",
    "batch_size": "batch_size", "grad_accum": "gradient_accumulation_steps",
    "max_length": "max_length", "max_steps": "max_steps", "lora_rank": "lora_rank",
    "lora_alpha": "lora_alpha", "precision": "precision", "device": "device", "seed": "seed",
}


class Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog, **kwargs):
        kwargs.setdefault("max_help_position", 34)
        kwargs.setdefault("width", min(100, ui().console.width))
        super().__init__(prog, **kwargs)


def _global_flags():
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--lang", choices=LANGUAGES, help=t("arg.lang"))
    parser.add_argument("--no-color", action="store_true", help=t("arg.no_color"))
    parser.add_argument("-q", "--quiet", action="store_true", help=t("arg.quiet"))
    return parser


def _config_flags():
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("path", nargs="?", help=t("arg.path"))
    parser.add_argument("-c", "--config", help=t("arg.config"))
    group = parser.add_argument_group(t("group.overrides"), t("group.overrides.help"))
    group.add_argument("--preset", choices=list(presets.NAMES), help=t("arg.preset"))
    group.add_argument("--model", metavar="ID", help="model_name")
    group.add_argument("--dataset", metavar="PATH", help="dataset")
    group.add_argument("--eval", metavar="PATH", help="eval_dataset")
    group.add_argument("--output", metavar="DIR", help="output_dir")
    group.add_argument("--method", choices=("full", "lora", "qlora"), help="method")
    group.add_argument("--format", choices=("text", "alpaca", "prompt_completion", "messages"), help="dataset_format")
    group.add_argument("--epochs", type=float, metavar="N", help="epochs")
    group.add_argument("--lr", type=float, metavar="RATE", help="learning_rate")
    group.add_argument("--batch-size", type=int, metavar="N", help="batch_size")
    group.add_argument("--grad-accum", type=int, metavar="N", help="gradient_accumulation_steps")
    group.add_argument("--max-length", type=int, metavar="N", help="max_length")
    group.add_argument("--max-steps", type=int, metavar="N", help="max_steps")
    group.add_argument("--lora-rank", type=int, metavar="N", help="lora_rank")
    group.add_argument("--lora-alpha", type=int, metavar="N", help="lora_alpha")
    group.add_argument("--precision", choices=("auto", "fp32", "fp16", "bf16"), help="precision")
    group.add_argument("--device", choices=("auto", "cpu", "cuda"), help="device")
    group.add_argument("--seed", type=int, metavar="N", help="seed")
    group.add_argument("--set", action="append", metavar="KEY=VALUE", help=t("arg.set"))
    return parser


def build_parser():
    common = _global_flags()
    config_flags = _config_flags()
    parser = argparse.ArgumentParser(
        prog="bengo", description=t("app.tagline"), epilog=t("app.epilog"),
        parents=[common], formatter_class=Formatter, add_help=True)
    parser.add_argument("--version", action="version", version=f"bengo {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="<command>")

    init = sub.add_parser("init", help=t("cmd.init"), parents=[common], formatter_class=Formatter)
    init.add_argument("path", nargs="?", default="bengo.yaml", help=t("arg.path"))
    init.add_argument("-y", "--yes", action="store_true", help=t("arg.yes"))
    init.add_argument("--preset", choices=list(presets.NAMES), help=t("arg.preset"))
    init.add_argument("--model", metavar="ID")
    init.add_argument("--dataset", metavar="PATH")
    init.add_argument("--output", metavar="DIR")
    init.add_argument("--method", choices=("full", "lora", "qlora"))
    init.add_argument("--format", choices=("text", "alpaca", "prompt_completion", "messages"))

    sub.add_parser("doctor", help=t("cmd.doctor"), parents=[common], formatter_class=Formatter)
    sub.add_parser("presets", help=t("cmd.presets"), parents=[common], formatter_class=Formatter)
    sub.add_parser("check", help=t("cmd.check"), parents=[common, config_flags], formatter_class=Formatter)

    guess = sub.add_parser("estimate", help=t("cmd.estimate"), parents=[common, config_flags],
                           formatter_class=Formatter)
    guess.add_argument("--vram", type=float, metavar="GB", help=t("arg.vram"))
    guess.add_argument("--params", type=float, metavar="B", help=t("arg.params"))

    train = sub.add_parser("train", help=t("cmd.train"), parents=[common, config_flags],
                           formatter_class=Formatter)
    train.add_argument("--resume", metavar="CHECKPOINT", help=t("arg.resume"))
    train.add_argument("--dry-run", action="store_true", help=t("arg.dry_run"))

    chat = sub.add_parser("chat", help=t("cmd.chat"), parents=[common], formatter_class=Formatter)
    chat.add_argument("adapter", help=t("arg.adapter"))
    chat.add_argument("-p", "--prompt", help=t("arg.prompt"))
    chat.add_argument("--max-new-tokens", type=int, default=256, help=t("arg.max_new_tokens"))
    chat.add_argument("--temperature", type=float, default=0.7, help=t("arg.temperature"))

    merge = sub.add_parser("merge", help=t("cmd.merge"), parents=[common], formatter_class=Formatter)
    merge.add_argument("adapter", help=t("arg.adapter"))
    merge.add_argument("output", help=t("arg.output"))
    return parser


def build_overrides(args):
    values = {}
    if getattr(args, "preset", None):
        try:
            values.update(presets.get(args.preset))
        except KeyError as exc:
            raise ValueError(t("presets.unknown", name=args.preset,
                               available=", ".join(presets.NAMES))) from exc
    for flag, key in OVERRIDES.items():
        value = getattr(args, flag, None)
        if value is not None:
            values[key] = value
    for item in getattr(args, "set", None) or []:
        key, value = parse_override(item)
        values[key] = value
    return values


def hint_for(exc):
    """The one next command most likely to unblock this error, or None."""
    text = str(exc).lower()
    if isinstance(exc, FileExistsError) or "not empty" in text:
        return t("hint.output_exists")
    if isinstance(exc, FileNotFoundError):
        return t("hint.file_not_found")
    if "out of memory" in text:
        return t("hint.oom")
    if "bitsandbytes" in text or "qlora dependencies" in text:
        return t("hint.bnb")
    if "no module named" in text:
        return t("error.no_ml")
    if "invalid yaml" in text or ("yaml" in text and "mapping" in text):
        return t("hint.yaml")
    if "resume" in text or "trainer_state" in text or "checkpoint" in text:
        return t("hint.resume")
    if "dataset field" in text or "dataset format" in text or "trainable target" in text:
        return t("hint.dataset_format")
    if "cuda" in text or "gpu" in text:
        return t("hint.no_cuda")
    if "no such file" in text or "not found" in text:
        return t("hint.file_not_found")
    return None


def _language_from(argv):
    for index, item in enumerate(argv):
        if item == "--lang" and index + 1 < len(argv):
            return argv[index + 1]
        if item.startswith("--lang="):
            return item.split("=", 1)[1]
    return None


COMMANDS = ("init", "doctor", "presets", "check", "estimate", "train", "chat", "merge")


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    set_language(detect_language(_language_from(argv)))
    configure(color="--no-color" not in argv,
              quiet=bool({"-q", "--quiet"}.intersection(argv)))
    # Bare 'bengo' and a help request without a command show the overview screen.
    if not argv or ({"-h", "--help"}.intersection(argv) and not set(COMMANDS).intersection(argv)):
        return commands.overview(__version__)
    args = build_parser().parse_args(argv)
    if not args.command:
        return commands.overview(__version__)
    configure(color=not args.no_color, quiet=args.quiet)
    args.version = __version__
    try:
        return dispatch(args)
    except (ValueError, OSError, ImportError, RuntimeError) as exc:
        ui().error(t("error.title"), exc, hint_for(exc))
        return 1
    except KeyboardInterrupt:
        ui().blank()
        ui().note(t("train.interrupted"), style="warn")
        ui().note("bengo train --resume <checkpoint>")
        return 130


def dispatch(args):
    from .yaml_config import load_config

    if args.command == "doctor":
        return commands.cmd_doctor(args)
    if args.command == "presets":
        return commands.cmd_presets(args)
    if args.command == "init":
        return commands.cmd_init(args)
    if args.command == "chat":
        return commands.cmd_chat(args)
    if args.command == "merge":
        return commands.cmd_merge(args)
    if args.path and args.config:
        raise ValueError(t("error.both_paths"))
    overrides = build_overrides(args)
    if args.command == "estimate" and getattr(args, "vram", None) and "device" not in overrides:
        # Planning for a card that is not in this machine; do not apply CPU-only rules.
        overrides["device"] = "auto"
    config = load_config(args.config or args.path or "bengo.yaml", overrides)
    if args.command == "check":
        return commands.cmd_check(args, config)
    if args.command == "estimate":
        return commands.cmd_estimate(args, config)
    return commands.cmd_train(args, config)


if __name__ == "__main__":
    raise SystemExit(main())
