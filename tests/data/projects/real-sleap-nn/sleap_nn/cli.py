"""Unified CLI for SLEAP-NN using rich-click for styled output."""

import __main__
import functools
import math
import subprocess
import sys
import tempfile
import shutil
from datetime import datetime
from pathlib import Path
from typing import Optional

import rich_click as click
from click import Command
from loguru import logger

from sleap_nn import __version__


def _needs_module_respawn() -> bool:
    """Check if we need to re-spawn with `python -m` for proper DDP support.

    On Windows and macOS (Python 3.8+), multiprocessing uses 'spawn' instead of
    'fork'. The 'spawn' method starts child processes fresh and needs to re-import
    the training module. It uses `__main__.__spec__` to determine what module to
    import.

    When running via entry point scripts (e.g., `sleap-nn train` or `sleap train`),
    `__main__.__spec__` is None because entry points don't set it. This causes
    PyTorch Lightning's DDP to fail with: `ValueError: __main__.__spec__ is None`

    When running via `python -m sleap_nn.cli`, `__main__.__spec__` is properly set,
    allowing DDP child processes to re-import the module correctly.

    Returns:
        True if we need to re-spawn with `python -m`, False if already in module context.
    """
    return getattr(__main__, "__spec__", None) is None


# Rich-click configuration for styled help
click.rich_click.TEXT_MARKUP = "markdown"
click.rich_click.SHOW_ARGUMENTS = True
click.rich_click.GROUP_ARGUMENTS_OPTIONS = True
click.rich_click.STYLE_ERRORS_SUGGESTION = "magenta italic"
click.rich_click.ERRORS_EPILOGUE = (
    "Try 'sleap-nn [COMMAND] --help' for more information."
)


def _parse_int_list(ctx, param, value):
    """Click callback parsing a comma-separated int list (e.g. ``0,1,2``).

    Returns ``None`` for an unset/empty value so it maps cleanly onto the
    ``Optional[List[int]]`` tracker kwargs (e.g. ``kf_node_indices``).
    """
    if value is None or value == "":
        return None
    try:
        return [int(x) for x in str(value).split(",") if x.strip() != ""]
    except ValueError:
        raise click.BadParameter(
            "must be a comma-separated list of integers, e.g. '0,1,2'"
        )


class _CommaFloatTuple(click.ParamType):
    """Click type parsing a comma-separated float list into a tuple.

    Used for ``--merge_thresholds`` (e.g. ``0.85,0.6,0.4``). Accepts an already
    parsed tuple/list (the option default) unchanged.
    """

    name = "comma_floats"

    def convert(self, value, param, ctx):
        if value is None or isinstance(value, (tuple, list)):
            return tuple(value) if value is not None else None
        try:
            return tuple(
                float(x) for x in str(value).split(",") if str(x).strip() != ""
            )
        except ValueError:
            self.fail(
                "must be a comma-separated list of floats, e.g. '0.85,0.6,0.4'",
                param,
                ctx,
            )


# `--tracker` choices: kept literal so importing the CLI does not import the
# trackers; pinned to `sleap_nn.inference.tracking.TRACKER_NAMES` by a test.
_TRACKER_CHOICES = (
    "classic",
    "sort",
    "deepsort",
    "strongsort",
    "bytetrack",
    "botsort",
    "ocsort",
    "deepocsort",
)

# MOT-only `predict` options (rejected with `--tracker classic`). `--link_tracklets`
# is shared by both tracker families.
_MOT_ONLY_FLAGS = (
    "track_buffer",
    "min_hits",
    "track_high_threshold",
    "track_low_threshold",
    "new_track_threshold",
    "min_match_similarity",
    "appearance_threshold",
    "mot_param",
)


class _AppearanceThreshold(click.ParamType):
    """Click type for ``--appearance_threshold``: ``auto`` or a cosine in [-1, 1]."""

    name = "auto|float"

    def convert(self, value, param, ctx):
        if value is None or isinstance(value, float):
            return value
        if str(value).strip().lower() == "auto":
            return "auto"
        try:
            number = float(value)
        except ValueError:
            self.fail(
                f"must be 'auto' or a cosine similarity in [-1, 1], got {value!r}",
                param,
                ctx,
            )
        if not -1.0 <= number <= 1.0:
            self.fail(
                f"must be 'auto' or a cosine similarity in [-1, 1], got {number}",
                param,
                ctx,
            )
        return number


def is_config_path(arg: str) -> bool:
    """Check if an argument looks like a config file path.

    Returns True if the arg ends with .yaml or .yml.
    """
    return arg.endswith(".yaml") or arg.endswith(".yml")


def split_config_path(config_path: str) -> tuple:
    """Split a full config path into (config_dir, config_name).

    Args:
        config_path: Full path to a config file.

    Returns:
        Tuple of (config_dir, config_name) where config_dir is an absolute path.
    """
    path = Path(config_path).resolve()
    return path.parent.as_posix(), path.name


def print_version(ctx, param, value):
    """Print version and exit."""
    if not value or ctx.resilient_parsing:
        return
    click.echo(f"sleap-nn {__version__}")
    ctx.exit()


class TrainCommand(Command):
    """Custom command class that overrides help behavior for train command."""

    def format_help(self, ctx, formatter):
        """Override the help formatting to show custom training help."""
        show_training_help()


def parse_path_map(ctx, param, value):
    """Parse (old, new) path pairs into a dictionary for path mapping options."""
    if not value:
        return None
    result = {}
    for old_path, new_path in value:
        result[old_path] = Path(new_path).as_posix()
    return result


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}


class LazyGroup(click.RichGroup):
    """Click group that lazily loads export subcommands on first use."""

    _export_loaded = False

    def list_commands(self, ctx):
        """List all commands, loading export subcommands on first access."""
        self._ensure_export_loaded()
        return super().list_commands(ctx)

    def get_command(self, ctx, cmd_name):
        """Get a command by name, loading export subcommands on first access."""
        self._ensure_export_loaded()
        return super().get_command(ctx, cmd_name)

    def _ensure_export_loaded(self):
        if not self._export_loaded:
            LazyGroup._export_loaded = True
            _register_export_commands()


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS)
@click.option(
    "--version",
    "-v",
    is_flag=True,
    callback=print_version,
    expose_value=False,
    is_eager=True,
    help="Show version and exit.",
)
def cli():
    """SLEAP-NN: Neural network backend for training and inference for animal pose estimation.

    Use subcommands to run different workflows:

    train    - Run training workflow (auto-handles multi-GPU)
    predict  - Run inference workflow (new pipeline)
    track    - Run inference/tracking workflow (legacy pipeline)
    eval     - Run evaluation workflow
    system   - Display system information and GPU status
    """
    pass


def _get_num_devices_from_config(cfg) -> int:
    """Determine the number of devices from config.

    User preferences take precedence over auto-detection:
    - trainer_device_indices=[0] → 1 device (user choice)
    - trainer_devices=1 → 1 device (user choice)
    - trainer_devices="auto" or unset → auto-detect available GPUs

    Returns:
        Number of devices to use for training.
    """
    import torch
    from omegaconf import OmegaConf

    # User preference: explicit device indices (highest priority)
    device_indices = OmegaConf.select(
        cfg, "trainer_config.trainer_device_indices", default=None
    )
    if device_indices is not None and len(device_indices) > 0:
        return len(device_indices)

    # User preference: explicit device count
    devices = OmegaConf.select(cfg, "trainer_config.trainer_devices", default="auto")

    if isinstance(devices, int):
        return devices

    # Auto-detect only when user hasn't specified (devices is "auto" or None)
    if devices in ("auto", None, "None"):
        accelerator = OmegaConf.select(
            cfg, "trainer_config.trainer_accelerator", default="auto"
        )

        if accelerator == "cpu":
            return 1
        elif torch.cuda.is_available():
            return torch.cuda.device_count()
        elif hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
            return 1
        else:
            return 1

    return 1


def _finalize_config(cfg):
    """Finalize configuration by generating run_name if not provided.

    This runs ONCE before subprocess, ensuring all workers get the same run_name.
    """
    import sleap_io as sio
    from omegaconf import OmegaConf
    from sleap_nn.config.utils import get_model_type_from_cfg

    # Resolve ckpt_dir first
    ckpt_dir = OmegaConf.select(cfg, "trainer_config.ckpt_dir", default=None)
    if ckpt_dir is None or ckpt_dir == "" or ckpt_dir == "None":
        cfg.trainer_config.ckpt_dir = "."

    # Generate run_name if not provided
    run_name = OmegaConf.select(cfg, "trainer_config.run_name", default=None)
    if run_name is None or run_name == "" or run_name == "None":
        # Get model type from config
        model_type = get_model_type_from_cfg(cfg)

        # Count frames from labels
        train_paths = cfg.data_config.train_labels_path
        val_paths = OmegaConf.select(cfg, "data_config.val_labels_path", default=None)

        train_count = sum(len(sio.load_slp(p)) for p in train_paths)
        val_count = 0
        if val_paths:
            val_count = sum(len(sio.load_slp(p)) for p in val_paths)

        # Generate full run_name with timestamp
        timestamp = datetime.now().strftime("%y%m%d_%H%M%S")
        run_name = f"{timestamp}.{model_type}.n={train_count + val_count}"
        cfg.trainer_config.run_name = run_name

        logger.info(f"Generated run_name: {run_name}")

    return cfg


def show_training_help():
    """Display training help information with rich formatting."""
    from rich.console import Console
    from rich.panel import Panel
    from rich.markdown import Markdown

    console = Console()

    help_md = """
## Usage

```
sleap-nn train <config.yaml> [overrides]
sleap-nn train --config <path/to/config.yaml> [overrides]
```

## Common Overrides

| Override | Description |
|----------|-------------|
| `trainer_config.max_epochs=100` | Set maximum training epochs |
| `trainer_config.batch_size=32` | Set batch size |
| `trainer_config.save_ckpt=true` | Enable checkpoint saving |

## Examples

**Start a new training run:**
```bash
sleap-nn train path/to/config.yaml
sleap-nn train --config path/to/config.yaml
```

**With overrides:**
```bash
sleap-nn train config.yaml trainer_config.max_epochs=100
```

**Resume training:**
```bash
sleap-nn train config.yaml trainer_config.resume_ckpt_path=/path/to/ckpt
```

**Legacy usage (still supported):**
```bash
sleap-nn train --config-dir /path/to/dir --config-name myrun
```

## Tips

- Use `-m/--multirun` for sweeps; outputs go under `hydra.sweep.dir`
- For Hydra flags and completion, use `--hydra-help`
- Config documentation: https://nn.sleap.ai/config/
"""
    console.print(
        Panel(
            Markdown(help_md),
            title="[bold cyan]sleap-nn train[/bold cyan]",
            subtitle="Train SLEAP models from a config YAML file",
            border_style="cyan",
        )
    )


@cli.command(cls=TrainCommand, context_settings=CONTEXT_SETTINGS)
@click.option(
    "--config",
    type=str,
    help="Path to configuration file (e.g., path/to/config.yaml)",
)
@click.option("--config-name", "-c", type=str, help="Configuration file name (legacy)")
@click.option(
    "--config-dir", "-d", type=str, default=".", help="Configuration directory (legacy)"
)
@click.option(
    "--video-paths",
    "-v",
    multiple=True,
    help="Video paths to replace existing paths in the labels file. "
    "Order must match the order of videos in the labels file. "
    "Can be specified multiple times. "
    "Example: --video-paths /path/to/vid1.mp4 --video-paths /path/to/vid2.mp4",
)
@click.option(
    "--video-path-map",
    nargs=2,
    multiple=True,
    callback=parse_path_map,
    metavar="OLD NEW",
    help="Map old video path to new path. Takes two arguments: old path and new path. "
    "Can be specified multiple times. "
    'Example: --video-path-map "/old/vid.mp`4" "/new/vid.mp4"',
)
@click.option(
    "--prefix-map",
    nargs=2,
    multiple=True,
    callback=parse_path_map,
    metavar="OLD NEW",
    help="Map old path prefix to new prefix. Takes two arguments: old prefix and new prefix. "
    "Updates ALL videos that share the same prefix. Useful when moving data between machines. "
    "Can be specified multiple times. "
    'Example: --prefix-map "/old/server/path" "/new/local/path"',
)
@click.option(
    "--video-config",
    type=str,
    hidden=True,
    help="Path to video replacement config YAML (internal use for multi-GPU).",
)
@click.argument("overrides", nargs=-1, type=click.UNPROCESSED)
def train(
    config,
    config_name,
    config_dir,
    video_paths,
    video_path_map,
    prefix_map,
    video_config,
    overrides,
):
    """Run training workflow with Hydra config overrides.

    Automatically detects multi-GPU setups and handles run_name synchronization
    by spawning training in a subprocess with a pre-generated config.

    Examples:
        sleap-nn train path/to/config.yaml
        sleap-nn train --config path/to/config.yaml trainer_config.max_epochs=100
        sleap-nn train config.yaml trainer_config.trainer_devices=4
    """
    import hydra
    import sleap_io as sio
    from omegaconf import OmegaConf
    from sleap_nn.train import run_training

    # Convert overrides to a mutable list
    overrides = list(overrides)

    # Check if the first positional arg is a config path (not a Hydra override)
    config_from_positional = None
    if overrides and is_config_path(overrides[0]):
        config_from_positional = overrides.pop(0)

    # Resolve config path with priority:
    # 1. Positional config path (e.g., sleap-nn train config.yaml)
    # 2. --config flag (e.g., sleap-nn train --config config.yaml)
    # 3. Legacy --config-dir/--config-name flags
    if config_from_positional:
        config_dir, config_name = split_config_path(config_from_positional)
    elif config:
        config_dir, config_name = split_config_path(config)
    elif config_name:
        config_dir = Path(config_dir).resolve().as_posix()
    else:
        # No config provided - show help
        show_training_help()
        return

    # Check video path options early
    # If --video-config is provided (from subprocess), load from file
    if video_config:
        video_cfg = OmegaConf.load(video_config)
        video_paths = tuple(video_cfg.video_paths) if video_cfg.video_paths else ()
        video_path_map = (
            dict(video_cfg.video_path_map) if video_cfg.video_path_map else None
        )
        prefix_map = dict(video_cfg.prefix_map) if video_cfg.prefix_map else None

    has_video_paths = len(video_paths) > 0
    has_video_path_map = video_path_map is not None
    has_prefix_map = prefix_map is not None
    options_used = sum([has_video_paths, has_video_path_map, has_prefix_map])

    if options_used > 1:
        raise click.UsageError(
            "Cannot use multiple path replacement options. "
            "Choose one of: --video-paths, --video-path-map, or --prefix-map."
        )

    # Load config to detect device count
    with hydra.initialize_config_dir(config_dir=config_dir, version_base=None):
        cfg = hydra.compose(config_name=config_name, overrides=overrides)

        # Validate config
        if not hasattr(cfg, "model_config") or not cfg.model_config:
            click.echo(
                "No model config found! Use `sleap-nn train --help` for more information."
            )
            raise click.Abort()

        num_devices = _get_num_devices_from_config(cfg)

        # Check if run_name is already set (for synchronization across DDP ranks)
        run_name = OmegaConf.select(cfg, "trainer_config.run_name", default=None)
        run_name_is_set = run_name is not None and run_name != "" and run_name != "None"

    # Multi-GPU path: spawn subprocess with finalized config
    # We need to re-spawn if EITHER:
    # 1. Not in module context (__main__.__spec__ is None) - required for DDP on
    #    Windows/macOS where multiprocessing uses 'spawn' and needs to know what
    #    module to re-import. See: https://github.com/talmolab/sleap/issues/2656
    # 2. run_name is not set - required for synchronization so all DDP ranks use
    #    the same run_name (otherwise each rank generates different timestamps)
    needs_respawn = _needs_module_respawn() or not run_name_is_set
    if num_devices > 1 and needs_respawn:
        logger.info(
            f"Detected {num_devices} devices, re-spawning with module context for DDP..."
        )

        # Load and finalize config (generate run_name, apply overrides)
        with hydra.initialize_config_dir(config_dir=config_dir, version_base=None):
            cfg = hydra.compose(config_name=config_name, overrides=overrides)
            cfg = _finalize_config(cfg)

        # Save finalized config to temp file
        temp_dir = tempfile.mkdtemp(prefix="sleap_nn_train_")
        temp_config_path = Path(temp_dir) / "training_config.yaml"
        OmegaConf.save(cfg, temp_config_path)
        logger.info(f"Saved finalized config to: {temp_config_path}")

        # Save video replacement config if needed (so subprocess doesn't need CLI args)
        temp_video_config_path = None
        if options_used == 1:
            video_replacement_config = {
                "video_paths": list(video_paths) if has_video_paths else None,
                "video_path_map": dict(video_path_map) if has_video_path_map else None,
                "prefix_map": dict(prefix_map) if has_prefix_map else None,
            }
            temp_video_config_path = Path(temp_dir) / "video_replacement.yaml"
            OmegaConf.save(
                OmegaConf.create(video_replacement_config), temp_video_config_path
            )
            logger.info(f"Saved video replacement config to: {temp_video_config_path}")

        # Build subprocess command (no video args - they're in the temp file)
        cmd = [sys.executable, "-m", "sleap_nn.cli", "train", str(temp_config_path)]
        if temp_video_config_path:
            cmd.extend(["--video-config", str(temp_video_config_path)])

        logger.info(f"Launching subprocess: {' '.join(cmd)}")

        try:
            process = subprocess.Popen(cmd)
            result = process.wait()
            if result != 0:
                logger.error(f"Training failed with exit code {result}")
                sys.exit(result)
        except KeyboardInterrupt:
            logger.info("Training interrupted, terminating subprocess...")
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            sys.exit(1)
        finally:
            shutil.rmtree(temp_dir, ignore_errors=True)
            logger.info("Cleaned up temporary files")

        return

    # Single GPU (or subprocess worker): run directly
    with hydra.initialize_config_dir(config_dir=config_dir, version_base=None):
        cfg = hydra.compose(config_name=config_name, overrides=overrides)

        logger.info("Input config:")
        logger.info("\n" + OmegaConf.to_yaml(cfg))

        # Handle video path replacement options
        train_labels = None
        val_labels = None

        if options_used == 1:
            # Load train labels
            train_labels = [
                sio.load_slp(path) for path in cfg.data_config.train_labels_path
            ]

            # Load val labels if they exist
            if (
                cfg.data_config.val_labels_path is not None
                and len(cfg.data_config.val_labels_path) > 0
            ):
                val_labels = [
                    sio.load_slp(path) for path in cfg.data_config.val_labels_path
                ]

            # Build replacement arguments based on option used
            if has_video_paths:
                replace_kwargs = {
                    "new_filenames": [Path(p).as_posix() for p in video_paths]
                }
            elif has_video_path_map:
                replace_kwargs = {"filename_map": video_path_map}
            else:  # has_prefix_map
                replace_kwargs = {"prefix_map": prefix_map}

            # Apply replacement to train labels
            for labels in train_labels:
                labels.replace_filenames(**replace_kwargs)

            # Apply replacement to val labels if they exist
            if val_labels:
                for labels in val_labels:
                    labels.replace_filenames(**replace_kwargs)

        run_training(config=cfg, train_labels=train_labels, val_labels=val_labels)


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--data_path",
    "-i",
    type=str,
    required=True,
    help="Path to data to predict on. This can be a labels (.slp) file or any supported video format.",
)
@click.option(
    "--model_paths",
    "-m",
    multiple=True,
    help="Path to a trained model directory, or to its best.ckpt or training_config.yaml/.json file (all resolve to the model directory). Multiple models can be specified, each preceded by --model_paths.",
)
@click.option(
    "--output_path",
    "-o",
    type=str,
    default=None,
    help="The output filename to use for the predicted data. If not provided, defaults to '[data_path].slp'.",
)
@click.option(
    "--device",
    "-d",
    type=str,
    default="auto",
    help="Device on which torch.Tensor will be allocated. One of the ('cpu', 'cuda', 'mps', 'auto'). Default: 'auto' (based on available backend either cuda, mps or cpu is chosen). If `cuda` is available, you could also use `cuda:0` to specify the device.",
)
@click.option(
    "--batch_size",
    "-b",
    type=int,
    default=4,
    help="Number of frames to predict at a time. Larger values result in faster inference speeds, but require more memory.",
)
@click.option(
    "--tracking",
    "-t",
    is_flag=True,
    default=False,
    help="If True, runs tracking on the predicted instances.",
)
@click.option(
    "-n",
    "--max_instances",
    type=int,
    default=None,
    help="Limit maximum number of instances in multi-instance models. Not available for ID models. Defaults to None.",
)
@click.option(
    "--backbone_ckpt_path",
    type=str,
    default=None,
    help="To run inference on any `.ckpt` other than `best.ckpt` from the `model_paths` dir, the path to the `.ckpt` file should be passed here.",
)
@click.option(
    "--head_ckpt_path",
    type=str,
    default=None,
    help="Path to `.ckpt` file if a different set of head layer weights are to be used. If `None`, the `best.ckpt` from `model_paths` dir is used (or the ckpt from `backbone_ckpt_path` if provided.)",
)
@click.option(
    "--max_height",
    type=int,
    default=None,
    help="Maximum height the image should be padded to. If not provided, the values from the training config are used. Default: None.",
)
@click.option(
    "--max_width",
    type=int,
    default=None,
    help="Maximum width the image should be padded to. If not provided, the values from the training config are used. Default: None.",
)
@click.option(
    "--input_scale",
    type=float,
    default=None,
    help="Scale factor to apply to the input image. If not provided, the values from the training config are used. Default: None.",
)
@click.option(
    "--ensure_rgb/--no-ensure_rgb",
    default=None,
    help="If True, input images will have 3 channels (RGB). Single-channel images are replicated along the channel axis. If False, RGB conversion is disabled. If not provided, the values from the training config are used. Default: None.",
)
@click.option(
    "--ensure_grayscale/--no-ensure_grayscale",
    default=None,
    help="If True, input images will be converted to single-channel grayscale. If False, grayscale conversion is disabled. If not provided, the values from the training config are used. Default: None.",
)
@click.option(
    "--anchor_part",
    type=str,
    default=None,
    help="The node name to use as the anchor for the centroid. If not provided, the anchor part in the `training_config.yaml` is used. Default: `None`.",
)
@click.option(
    "--only_labeled_frames",
    is_flag=True,
    default=False,
    help="Only run inference on user labeled frames when running on labels dataset. This is useful for generating predictions to compare against ground truth.",
)
@click.option(
    "--only_suggested_frames",
    is_flag=True,
    default=False,
    help="Only run inference on unlabeled suggested frames when running on labels dataset. This is useful for generating predictions for initialization during labeling.",
)
@click.option(
    "--exclude_user_labeled",
    is_flag=True,
    default=False,
    help="Skip frames that have user-labeled instances. Useful when predicting on entire video but skipping already-labeled frames.",
)
@click.option(
    "--only_predicted_frames",
    is_flag=True,
    default=False,
    help="Only run inference on frames that already have predictions. Requires .slp input file. Useful for re-predicting with a different model.",
)
@click.option(
    "--no_empty_frames",
    is_flag=True,
    default=False,
    help=("Clear empty frames that did not have predictions before saving to output."),
)
@click.option(
    "--video_index",
    type=int,
    default=None,
    help="Integer index of video in .slp file to predict on. To be used with an .slp path as an alternative to specifying the video path: predicts on every frame of that video (or --frames, as source frame indices), and --exclude_user_labeled / --only_* filter those frames using the .slp's annotations. A video embedded in a .pkg.slp is scoped to its labeled frames instead.",
)
@click.option(
    "--video_dataset", type=str, default=None, help="The dataset for HDF5 videos."
)
@click.option(
    "--video_input_format",
    type=str,
    default="channels_last",
    help="The input_format for HDF5 videos.",
)
@click.option(
    "--frames",
    type=str,
    default="",
    help="List of frames to predict when running on a video. Can be specified as a comma separated list (e.g. 1,2,3) or a range separated by hyphen (e.g., 1-3, for 1,2,3). If not provided, defaults to predicting on the entire video.",
)
@click.option(
    "--integral_patch_size",
    type=int,
    default=5,
    help="Size of patches to crop around each rough peak as an integer scalar. Default: 5.",
)
@click.option(
    "--max_edge_length_ratio",
    type=float,
    default=0.25,
    help="The maximum expected length of a connected pair of points as a fraction of the image size. Candidate connections longer than this length will be penalized during matching. Default: 0.25.",
)
@click.option(
    "--dist_penalty_weight",
    type=float,
    default=1.0,
    help="A coefficient to scale weight of the distance penalty as a scalar float. Set to values greater than 1.0 to enforce the distance penalty more strictly. Default: 1.0.",
)
@click.option(
    "--n_points",
    type=int,
    default=10,
    help="Number of points to sample along the line integral. Default: 10.",
)
@click.option(
    "--min_instance_peaks",
    type=float,
    default=0,
    help="Minimum number of peaks the instance should have to be considered a real instance. Instances with fewer peaks than this will be discarded (useful for filtering spurious detections). Default: 0.",
)
@click.option(
    "--min_line_scores",
    type=float,
    default=0.25,
    help="Minimum line score (between -1 and 1) required to form a match between candidate point pairs. Useful for rejecting spurious detections when there are no better ones. Default: 0.25.",
)
@click.option(
    "--queue_maxsize",
    type=int,
    default=32,
    help="Maximum size of the frame buffer queue.",
)
@click.option(
    "--crop_size",
    type=int,
    default=None,
    help="Crop size. If not provided, the crop size from training_config.yaml is used. If `input_scale` is provided, then the cropped image will be resized according to `input_scale`.",
)
@click.option(
    "--peak_threshold",
    type=float,
    default=0.2,
    help="Minimum confidence map value to consider a peak as valid.",
)
@click.option(
    "--filter_overlapping",
    is_flag=True,
    default=False,
    help=(
        "Enable filtering of overlapping instances after inference using greedy NMS. "
        "Applied independently of tracking. (default: False)"
    ),
)
@click.option(
    "--filter_overlapping_method",
    type=click.Choice(["iou", "oks"]),
    default="iou",
    help=(
        "Similarity metric for filtering overlapping instances. "
        "'iou': bounding box intersection-over-union. "
        "'oks': Object Keypoint Similarity (pose-based). (default: iou)"
    ),
)
@click.option(
    "--filter_overlapping_threshold",
    type=float,
    default=0.8,
    help=(
        "Similarity threshold for filtering overlapping instances. "
        "Instances with similarity above this threshold are removed, "
        "keeping the higher-scoring instance. "
        "Typical values: 0.3 (aggressive) to 0.8 (permissive). (default: 0.8)"
    ),
)
@click.option(
    "--filter_min_visible_nodes",
    type=int,
    default=0,
    help=(
        "Minimum number of visible (non-NaN) keypoints required. "
        "Instances with fewer visible nodes are removed. (default: 0, no filtering)"
    ),
)
@click.option(
    "--filter_min_visible_node_fraction",
    type=float,
    default=0.0,
    help=(
        "Minimum fraction of skeleton nodes that must be visible. "
        "Value should be in [0, 1]. For example, 0.5 requires at least half "
        "of the skeleton's nodes to be detected. (default: 0.0, no filtering)"
    ),
)
@click.option(
    "--filter_min_mean_node_score",
    type=float,
    default=0.0,
    help=(
        "Minimum mean confidence score across visible nodes. "
        "Instances with lower mean node scores are removed. (default: 0.0, no filtering)"
    ),
)
@click.option(
    "--filter_min_instance_score",
    type=float,
    default=0.0,
    help=(
        "Minimum overall instance confidence score. "
        "Instances with lower scores are removed. (default: 0.0, no filtering)"
    ),
)
@click.option(
    "--integral_refinement",
    type=str,
    default="integral",
    help="If `None`, returns the grid-aligned peaks with no refinement. If `'integral'`, peaks will be refined with integral regression. Default: 'integral'.",
)
@click.option(
    "--tracking_window_size",
    type=int,
    default=5,
    help="Number of frames to look for in the candidate instances to match with the current detections.",
)
@click.option(
    "--min_new_track_points",
    type=int,
    default=0,
    help="We won't spawn a new track for an instance with fewer than this many points.",
)
@click.option(
    "--candidates_method",
    type=str,
    default="fixed_window",
    help="Either of `fixed_window` or `local_queues`. In fixed window method, candidates from the last `window_size` frames. In local queues, last `window_size` instances for each track ID is considered for matching against the current detection.",
)
@click.option(
    "--min_match_points",
    type=int,
    default=0,
    help="Minimum non-NaN points for match candidates.",
)
@click.option(
    "--features",
    type=str,
    default="keypoints",
    help="Feature representation for the candidates to update current detections. One of [`keypoints`, `centroids`, `bboxes`, `masks`, `embeddings`]. `embeddings` tracks by the appearance vector attached by the embedding model (pair with `--scoring_method cosine_sim`).",
)
@click.option(
    "--scoring_method",
    type=str,
    default="oks",
    help="Method to compute association score between features from the current frame and the previous tracks. One of [`oks`, `cosine_sim`, `iou`, `mask_iou`, `euclidean_dist`]. `cosine_sim` pairs with `--features embeddings`.",
)
@click.option(
    "--scoring_reduction",
    type=str,
    default="mean",
    help="Method to aggregate and reduce multiple scores if there are several detections associated with the same track. One of [`mean`, `max`, `robust_quantile`].",
)
@click.option(
    "--robust_best_instance",
    type=float,
    default=1.0,
    help="If the value is between 0 and 1 (excluded), use a robust quantile similarity score for the track. If the value is 1, use the max similarity (non-robust). For selecting a robust score, 0.95 is a good value.",
)
@click.option(
    "--track_matching_method",
    type=str,
    default="hungarian",
    help="Track matching algorithm. One of `hungarian`, `greedy`.",
)
@click.option(
    "--max_tracks",
    type=int,
    default=None,
    help="Maximum number of new tracks to be created to avoid redundant tracks. (only for local queues candidate)",
)
@click.option(
    "--use_flow",
    is_flag=True,
    default=False,
    help="If True, `FlowShiftTracker` is used, where the poses are matched using optical flow shifts.",
)
@click.option(
    "--of_img_scale",
    type=float,
    default=1.0,
    help="Factor to scale the images by when computing optical flow. Decrease this to increase performance at the cost of finer accuracy. Sometimes decreasing the image scale can improve performance with fast movements.",
)
@click.option(
    "--of_window_size",
    type=int,
    default=21,
    help="Optical flow window size to consider at each pyramid scale level.",
)
@click.option(
    "--of_max_levels",
    type=int,
    default=3,
    help="Number of pyramid scale levels to consider. This is different from the scale parameter, which determines the initial image scaling.",
)
@click.option(
    "--use_kalman",
    is_flag=True,
    default=False,
    help="If True, `KalmanShiftTracker` is used: poses are predicted with a per-track constant-velocity Kalman filter. Requires --tracking_target_instance_count (or --max_tracks/--max_instances) and is mutually exclusive with --use_flow.",
)
@click.option(
    "--kf_track_features",
    type=click.Choice(["centroid", "keypoints"]),
    default="centroid",
    help="What the Kalman motion model tracks: 'centroid' (default; rigid, stable) or 'keypoints' (per-node poses; noisier — pair with --oks_stddev or --features bboxes --scoring_method iou). (only if --use_kalman)",
)
@click.option(
    "--oks_stddev",
    type=float,
    default=None,
    help="OKS keypoint-spread normalization constant for `oks` scoring. Larger is more tolerant of localization error (useful with --kf_track_features keypoints). Default: 0.025.",
)
@click.option(
    "--kf_init_frame_count",
    type=int,
    default=10,
    help="Number of warm-up frames tracked with the base path before the Kalman filters are fit via EM. (only if --use_kalman)",
)
@click.option(
    "--kf_node_indices",
    type=str,
    default=None,
    callback=_parse_int_list,
    help="Comma-separated skeleton node indices to track with the motion model (e.g. '0,1,2'). Empty/unset uses all nodes. (only if --use_kalman)",
)
@click.option(
    "--kf_reset_gap_size",
    type=int,
    default=5,
    help="Number of consecutive missed frames after which a stale track's Kalman filter is reset. (only if --use_kalman)",
)
@click.option(
    "--post_connect_single_breaks",
    is_flag=True,
    default=False,
    help="If True and `max_tracks` is not None with local queues candidate method, connects track breaks when exactly one track is lost and exactly one new track is spawned in the frame.",
)
@click.option(
    "--tracking_target_instance_count",
    type=int,
    default=None,
    help="Target number of instances to track per frame. (default: 0)",
)
@click.option(
    "--tracking_pre_cull_to_target",
    type=int,
    default=0,
    help=(
        "If non-zero and target_instance_count is also non-zero, then cull instances "
        "over target count per frame *before* tracking. (default: 0)"
    ),
)
@click.option(
    "--tracking_pre_cull_iou_threshold",
    type=float,
    default=0,
    help=(
        "If non-zero and pre_cull_to_target also set, then use IOU threshold to remove "
        "overlapping instances over count *before* tracking. (default: 0)"
    ),
)
@click.option(
    "--tracking_clean_instance_count",
    type=int,
    default=0,
    help="Target number of instances to clean *after* tracking. (default: 0)",
)
@click.option(
    "--tracking_clean_iou_threshold",
    type=float,
    default=0,
    help="IOU to use when culling instances *after* tracking. (default: 0)",
)
@click.option(
    "--gui",
    is_flag=True,
    default=False,
    help="Output JSON progress for GUI integration instead of Rich progress bar.",
)
def track(**kwargs):
    """Run Inference and Tracking workflow (legacy pipeline).

    This command uses the legacy ``run_inference`` pipeline. For the new
    inference pipeline, use ``sleap-nn predict``.
    """
    from sleap_nn import redirect_logs_to_stderr
    from sleap_nn.legacy_predict import frame_list, run_inference

    if kwargs.get("gui"):
        redirect_logs_to_stderr()

    if "model_paths" in kwargs and kwargs["model_paths"]:
        kwargs["model_paths"] = list(kwargs["model_paths"])
    else:
        kwargs["model_paths"] = None

    if "frames" in kwargs and kwargs["frames"]:
        kwargs["frames"] = frame_list(kwargs["frames"])
    else:
        kwargs["frames"] = None

    # Pop new-pipeline-only flags that track doesn't use. NOTE: `gui` is NOT
    # popped — legacy run_inference accepts+honors it (predict.py sets
    # predictor.gui, switching to JSON-per-line progress); popping it silently
    # dropped `track --gui` GUI integration (#583).
    kwargs.pop("paf_workers", None)
    kwargs.pop("cpu_workers", None)
    kwargs.pop("stream_to_file", None)
    kwargs.pop("write_interval", None)
    # `--runtime` selects the exported-model runtime for `sleap-nn predict`;
    # `track` only runs trained checkpoints, so it is inert here.
    kwargs.pop("runtime", None)
    # New-flow-only flags, inert here. `track` cannot do centroid-only
    # inference; a lone centroid model is rejected downstream by run_inference
    # with a message pointing to `sleap-nn predict`.
    kwargs.pop("centroid_only", None)
    kwargs.pop("centroid_peak_threshold", None)
    kwargs.pop("centroid_output", None)
    kwargs.pop("filter_min_centroid_distance", None)
    # SAM prompted-mask flags are new-flow-only (legacy run_inference rejects
    # them); inert here.
    kwargs.pop("mask_backend", None)
    kwargs.pop("sam_checkpoint", None)
    kwargs.pop("sam_model_type", None)
    kwargs.pop("sam_prompt_mode", None)
    kwargs.pop("sam_anchor_ind", None)
    kwargs.pop("sam_disjointify_masks", None)
    kwargs.pop("sam3_model_id", None)
    kwargs.pop("overlay_path", None)

    return run_inference(**kwargs)


# ──────────────────────────────────────────────────────────────────────────
# ``sleap-nn predict`` unified inference command
# ──────────────────────────────────────────────────────────────────────────
#
# ``predict`` and ``track`` share an option list and dispatch to one
# implementation. The option list is built programmatically below
# (``_INFERENCE_OPTIONS``) so the commands stay in lockstep — adding
# a flag in one place updates all of them.
#
# ``infer`` is kept as a hidden backward-compatible alias that emits a
# deprecation warning and delegates to the same implementation.


def _run_inference_impl(**kwargs):
    """Implementation for ``sleap-nn predict`` (new pipeline only).

    Coerces tuple-shaped multi-options into lists, parses the
    ``--frames`` string into a list of int frame indices, and routes to
    the new :class:`Predictor`-based pipeline.
    """
    from sleap_nn import redirect_logs_to_stderr
    from sleap_nn.legacy_predict import frame_list

    if kwargs.get("gui"):
        redirect_logs_to_stderr()

    paf_workers = kwargs.pop("paf_workers", 0) or 0
    cpu_workers = kwargs.pop("cpu_workers", None)
    stream_to_file = kwargs.pop("stream_to_file", None)
    write_interval = kwargs.pop("write_interval", None)
    if cpu_workers is not None:
        import warnings

        warnings.warn(
            "--cpu-workers is deprecated; use --paf-workers.",
            DeprecationWarning,
            stacklevel=2,
        )
        if paf_workers == 0:
            paf_workers = cpu_workers
    if write_interval is not None and stream_to_file is None:
        raise click.UsageError(
            "--write-interval is only meaningful together with --stream-to-file."
        )

    if "model_paths" in kwargs and kwargs["model_paths"]:
        kwargs["model_paths"] = list(kwargs["model_paths"])
    else:
        kwargs["model_paths"] = None

    if "frames" in kwargs and kwargs["frames"]:
        kwargs["frames"] = frame_list(kwargs["frames"])
    else:
        kwargs["frames"] = None

    # Tracker flags the selected tracker family would ignore, on every route.
    _check_tracker_flags(kwargs)

    # ── Embedding (re-ID) path: persist appearance vectors into a .slp ──
    # An `embedding` model emits appearance vectors, not poses/masks, so it does not go
    # through the normal Labels-producing flow; it attaches `sio.Embedding` vectors to
    # the source detections and writes a .slp. A fused
    # `-m centroid [-m centered_instance] -m <embedding>` command runs the detection
    # stack first and then embeds + (optionally) tracks the detections it returns, in
    # memory.
    save_embeddings = kwargs.pop("save_embeddings", "none") or "none"
    if _has_embedding_model(kwargs.get("model_paths")):
        # The embedding (re-ID) path is in-memory only; it does not stream to file and
        # has no SAM mask stage. Reject those flags up front (they precede the generic
        # stream-to-file / mask_backend guards below) so they are not silently ignored.
        if stream_to_file is not None:
            raise click.UsageError(
                "--stream-to-file is not supported for `embedding` (re-ID) models; "
                "the embedding path is in-memory. Use -o/--output_path to name the "
                "output."
            )
        if kwargs.get("mask_backend"):
            raise click.UsageError(
                "--mask_backend (SAM) is not supported with an `embedding` (re-ID) "
                "model."
            )
        # ``--tracking`` (WF2) embeds every detection and tracks by appearance into a
        # tracked .slp. Without tracking, ``--save_embeddings slp`` persists the vectors
        # into a .slp; the default (none) writes nothing, so require one or the other.
        tracking = bool(kwargs.get("tracking"))
        if save_embeddings == "none" and not tracking:
            raise click.UsageError(
                "The provided model is an `embedding` (re-ID) model; pass "
                "--save_embeddings slp to persist the appearance vectors into a .slp, "
                "or --tracking to track detections by appearance (cosine similarity) "
                "into a .slp."
            )
        tracker_config = None
        if tracking:
            # An embedding model tracks by appearance. With NO --appearance_weight
            # that means appearance-only association, so default
            # --features/--scoring to embeddings/cosine_sim (the user can still
            # override). Injected into kwargs so _build_tracker_config records them
            # as explicit.
            #
            # With --appearance_weight the appearance vector is a COMPLEMENTARY cue
            # blended into a GEOMETRIC score, so these defaults must NOT be
            # injected: `features="embeddings"` + a weight is rejected (blending
            # appearance with itself), and `cosine_sim` as the geometric 1-w term
            # would score the cosine of ravel'd pixel coordinates (also rejected).
            # Leaving both unset lets apply_tracking's normal keypoints/oks (or
            # single-node) resolution apply.
            #
            # Classic tracker only: a MOT --tracker has its own appearance trackers
            # (`features="embeddings"` is a classic-tracker mode it refuses).
            if (kwargs.get("tracker") or "classic") == "classic" and not kwargs.get(
                "appearance_weight"
            ):
                if not kwargs.get("features"):
                    kwargs["features"] = "embeddings"
                if not kwargs.get("scoring_method"):
                    kwargs["scoring_method"] = "cosine_sim"
            tracker_config = _build_tracker_config(kwargs)
            # Validate NOW, before the detection stack and the embedding pass run.
            # `apply_tracking` is the last step of these routes, so an incoherent
            # combination would otherwise raise after minutes of inference, with
            # the detections discarded on the way out.
            _validate_tracker_config_early(
                tracker_config,
                single_node_detections=_detection_stack_is_single_node(
                    kwargs.get("model_paths"), bool(kwargs.get("centroid_only"))
                ),
                data_path=kwargs.get("data_path"),
                model_paths=kwargs.get("model_paths"),
            )
        return _run_embeddings(
            kwargs,
            save_embeddings=save_embeddings,
            tracker_config=tracker_config,
            paf_workers=paf_workers,
        )
    if save_embeddings != "none":
        # Allowed on a `.slp` input even without an embedding model: that input may
        # already CARRY appearance vectors (from an earlier `--save_embeddings slp`
        # run), and the guide's recommended weight sweep retracks one such file at
        # several weights. Without this there was no opt-in on that route, so every
        # tracked output silently lost the vectors it had been tracked on and could
        # not be retracked again.
        _, _src_suffix, _ = _resolve_data_path(kwargs.get("data_path") or "")
        if _src_suffix != ".slp":
            raise click.UsageError(
                "--save_embeddings needs either an `embedding` (re-ID) model (to "
                "compute the appearance vectors) or a .slp input that already "
                "carries them."
            )
    # ``None`` = preserve any vectors the input carried; ``--save_embeddings none``
    # is only an explicit STRIP when the user asked for it on the command line.
    _ctx = click.get_current_context(silent=True)
    save_embedding_vectors = None
    if save_embeddings == "slp":
        save_embedding_vectors = True
    elif _ctx is not None:
        from click.core import ParameterSource

        if _ctx.get_parameter_source("save_embeddings") == ParameterSource.COMMANDLINE:
            save_embedding_vectors = False
    kwargs["save_embedding_vectors"] = save_embedding_vectors

    # The SAM mask path is in-memory only (it masks an existing .slp); it does not
    # use the streaming Predictor. Guard here so the combo fails with a SAM-aware
    # message instead of _run_stream_to_file's misleading "--model_paths is
    # required" (the SAM path actually forbids --model_paths).
    if stream_to_file is not None and kwargs.get("mask_backend"):
        raise click.UsageError(
            "--mask_backend is not supported with --stream-to-file; the SAM mask "
            "path runs in-memory on an existing .slp. Run without --stream-to-file."
        )

    # Exported ONNX/TRT model directories run through the in-memory flow only.
    _mps = kwargs["model_paths"]
    if (
        stream_to_file is not None
        and _mps
        and len(_mps) == 1
        and _is_export_dir(_mps[0])
    ):
        raise click.UsageError(
            "--stream-to-file is not supported for exported ONNX/TensorRT models. "
            "Run without --stream-to-file, or use a trained checkpoint directory."
        )

    # ── Stream-to-file path: new Predictor + IncrementalLabelsWriter ───
    if stream_to_file is not None:
        return _run_stream_to_file(
            kwargs,
            stream_to_file=stream_to_file,
            write_interval=write_interval or 500,
            paf_workers=paf_workers,
        )

    return _run_in_memory_new_flow(kwargs, paf_workers=paf_workers)


def _resolve_device(value: object) -> str:
    """Resolve a CLI ``--device`` value to a concrete torch device string.

    The legacy :func:`sleap_nn.legacy_predict.run_inference` resolves ``"auto"``
    before any checkpoint loading; the new flow needs the same so
    ``torch.load(map_location="auto")`` doesn't blow up on the legacy
    factory loader.
    """
    if hasattr(value, "type"):
        value = str(value)
    if value in (None, "", "auto"):
        import torch

        if torch.cuda.is_available():
            return "cuda"
        if hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
            return "mps"
        return "cpu"
    return str(value)


def _build_preprocess_config(kwargs: dict):
    """Build an OmegaConf preprocess override from CLI flags, or ``None``."""
    from omegaconf import OmegaConf

    overrides = {
        "ensure_rgb": kwargs.get("ensure_rgb"),
        "ensure_grayscale": kwargs.get("ensure_grayscale"),
        "max_height": kwargs.get("max_height"),
        "max_width": kwargs.get("max_width"),
        "scale": kwargs.get("input_scale"),
        "crop_size": kwargs.get("crop_size"),
    }
    if any(v is not None for v in overrides.values()):
        return OmegaConf.create(overrides)
    return None


def _build_filter_config(kwargs: dict) -> "object":
    """Build a :class:`FilterConfig` from the CLI ``--filter_*`` flags.

    Returns ``None`` when every knob is at its default — the
    :class:`Predictor`'s default ``FilterConfig()`` is the no-op
    identity, so we save a few attrs constructions in the common case.
    """
    from sleap_nn.inference.filters import FilterConfig

    overlapping = bool(kwargs.get("filter_overlapping"))
    min_visible_nodes = int(kwargs.get("filter_min_visible_nodes") or 0)
    min_visible_node_fraction = float(
        kwargs.get("filter_min_visible_node_fraction") or 0.0
    )
    min_mean_node_score = float(kwargs.get("filter_min_mean_node_score") or 0.0)
    min_instance_score = float(kwargs.get("filter_min_instance_score") or 0.0)
    min_centroid_distance = float(kwargs.get("filter_min_centroid_distance") or 0.0)
    if not (
        overlapping
        or min_visible_nodes
        or min_visible_node_fraction
        or min_mean_node_score
        or min_instance_score
        or min_centroid_distance
    ):
        return None
    return FilterConfig(
        overlapping=overlapping,
        overlapping_method=kwargs.get("filter_overlapping_method", "iou"),
        overlapping_threshold=float(
            kwargs.get("filter_overlapping_threshold", 0.8) or 0.8
        ),
        min_visible_nodes=min_visible_nodes,
        min_visible_node_fraction=min_visible_node_fraction,
        min_mean_node_score=min_mean_node_score,
        min_instance_score=min_instance_score,
        min_centroid_distance=min_centroid_distance,
    )


def _detection_stack_is_single_node(model_paths, centroid_only: bool = False) -> bool:
    """Whether a detection stack will emit a SINGLE-NODE (centroid) skeleton.

    A centroid-only stack collapses to ``Skeleton(['centroid'])`` (#586), which
    :func:`~sleap_nn.inference.tracking.apply_tracking` tracks with
    ``euclidean_dist`` -- an unbounded score that cannot be blended with an
    appearance similarity. Knowing this up front lets the embedding route reject
    the combination before the detection stack runs, instead of after.

    Returns ``False`` when it cannot be determined (an unreadable config, an export
    directory, or no detection stack at all); the check it feeds is an early-exit
    convenience and ``apply_tracking`` validates the resolved values regardless.
    """
    from sleap_nn.config.utils import get_model_type_from_cfg, resolve_model_dir
    from sleap_nn.inference.loaders import _load_training_config

    if centroid_only:
        return True
    detection_dirs = [m for m in (model_paths or []) if not _is_embedding_model(m)]
    if not detection_dirs:
        return False
    try:
        types = {
            get_model_type_from_cfg(
                config=_load_training_config(resolve_model_dir(m))[0]
            )
            for m in detection_dirs
            if not _is_export_dir(m)
        }
    except Exception:  # noqa: BLE001 -- best effort; apply_tracking still validates
        return False
    return types == {"centroid"}


# Which carrier a detection stack's output holds, by model type, in the order
# `load_model_assets` / `Predictor` dispatch a stack: the first type present picks
# the layer that runs. The segmentation layers emit masks only (no keypoint
# instances); every other layer emits poses only.
_DETECTION_STACK_CARRIERS = (
    ("single_instance", "pose"),
    ("bottomup", "pose"),
    ("multi_class_bottomup", "pose"),
    ("bottomup_segmentation", "mask"),
    ("semantic_segmentation", "mask"),
    ("centered_instance_segmentation", "mask"),
    ("centroid", "pose"),
    ("centered_instance", "pose"),
    ("multi_class_topdown", "pose"),
)


def _detection_stack_output(detection_dirs, centroid_only: bool = False):
    """``(carrier, model_types)`` a fused route's detection stack will emit.

    ``carrier`` is ``"pose"`` or ``"mask"`` (see ``_DETECTION_STACK_CARRIERS``), or
    ``None`` when it cannot be determined (an export directory, an unreadable
    config, an unknown model type): the early check it feeds then stays silent and
    ``apply_tracking`` validates the real labels.
    """
    from sleap_nn.config.utils import get_model_type_from_cfg, resolve_model_dir
    from sleap_nn.inference.loaders import _load_training_config

    try:
        if any(_is_export_dir(m) for m in detection_dirs):
            return None, []
        types = [
            get_model_type_from_cfg(
                config=_load_training_config(resolve_model_dir(m))[0]
            )
            for m in detection_dirs
        ]
    except Exception:  # noqa: BLE001 -- best effort; apply_tracking still validates
        return None, []
    if centroid_only:
        # A centroid model's peaks, whatever else the stack holds.
        return ("pose" if "centroid" in types else None), types
    for model_type, carrier in _DETECTION_STACK_CARRIERS:
        if model_type in types:
            return carrier, types
    return None, types


def _check_fused_tracking_early(
    tracker_config: "object",
    detection_dirs,
    embedding_dir,
    centroid_only: bool,
    vectors_kept: bool = False,
) -> None:
    """Refuse a run that ``apply_tracking`` would refuse, BEFORE it detects.

    The fused route (and the plain inference route, ``embedding_dir=None``) tracks
    last, after the detection stack (and the embedding pass). What tracking will be
    handed is known up front: the carrier the detection stack emits (its model
    types), and the carrier the embedder puts its vectors on (the one the model
    was trained on when the output holds it, else the other; see
    :func:`~sleap_nn.data.custom_datasets.predict_embedding_carrier`). So the
    carrier rules :func:`~sleap_nn.inference.tracking.check_tracking_plan` shares
    with ``apply_tracking`` -- e.g. a segmentation stack's masks cannot be tracked
    with a pose ``--features``, nor a pose stack's poses with ``--features
    masks`` -- fail here instead of after the inference.

    Args:
        tracker_config: The tracker configuration.
        detection_dirs: The detection stack's model directories.
        embedding_dir: The embedding model's directory, or ``None`` (no
            embedding pass: no vectors).
        centroid_only: ``--centroid_only``.
        vectors_kept: Whether the vectors persist in the output
            (``--save_embeddings slp``).
    """
    from sleap_nn.config.utils import resolve_model_dir
    from sleap_nn.data.custom_datasets import (
        embedding_preferred_carrier,
        predict_embedding_carrier,
    )
    from sleap_nn.inference.loaders import _load_training_config
    from sleap_nn.inference.tracking import MASK_CARRIER, check_tracking_plan

    carrier, types = _detection_stack_output(detection_dirs, centroid_only)
    if carrier is None:
        return
    vector_carrier = None
    if embedding_dir is not None:
        try:
            preferred = embedding_preferred_carrier(
                _load_training_config(resolve_model_dir(embedding_dir))[0]
            )
        except Exception:  # noqa: BLE001 -- best effort; the embedding pass loads it
            preferred = None
        vector_carrier = predict_embedding_carrier({carrier}, preferred)
    try:
        check_tracking_plan(
            tracker_config,
            has_masks=carrier == MASK_CARRIER,
            has_predicted_instances=carrier != MASK_CARRIER,
            vector_carrier=vector_carrier,
            vectors_from="the only carrier the detection stack emits",
            vectors_kept=vectors_kept,
        )
    except ValueError as e:
        raise click.UsageError(
            f"the detection stack ({', '.join(types)}) emits "
            f"{carrier} detections only, and they cannot be tracked as configured: "
            f"{e}"
        ) from e


def _check_tracker_flags(kwargs: dict) -> None:
    """Refuse tracker flags the selected tracker family would silently ignore.

    Runs before any route (embedding, retrack, inference): ``--tracker`` other than
    classic (or ``--link_tracklets``) without ``--tracking``; MOT-only flags with
    the classic tracker; and classic-only flags given on the command line with a
    MOT tracker (their defaults are not an error, so this needs the click
    context; a programmatic call without one leaves it to
    :func:`~sleap_nn.inference.tracking.validate_mot_config`).

    Raises:
        click.UsageError: Naming the offending flags.
    """
    tracker = kwargs.get("tracker") or "classic"
    tracking = bool(kwargs.get("tracking"))
    if not tracking:
        if tracker != "classic":
            raise click.UsageError(
                f"--tracker {tracker} only applies with --tracking (-t); add -t to "
                "track, or drop --tracker."
            )
        if kwargs.get("link_tracklets"):
            raise click.UsageError(
                "--link_tracklets only applies with --tracking (-t); add -t to "
                "track, or drop --link_tracklets."
            )
    mot_given = [
        name for name in _MOT_ONLY_FLAGS if kwargs.get(name) not in (None, (), [])
    ]
    if tracker == "classic":
        from sleap_nn.inference.tracking import CLASSIC_LINKING_MOT_PARAMS

        if (
            "mot_param" in mot_given
            and kwargs.get("link_tracklets")
            and all(
                str(text).partition("=")[0].strip() in CLASSIC_LINKING_MOT_PARAMS
                for text in kwargs["mot_param"]
            )
        ):
            # The classic tracker's identity linking reads these keys.
            mot_given.remove("mot_param")
        if mot_given:
            raise click.UsageError(
                f"{', '.join('--' + n for n in mot_given)} only appl"
                f"{'ies' if len(mot_given) == 1 else 'y'} to the MOT trackers; pass "
                f"--tracker ({' / '.join(_TRACKER_CHOICES[1:])}) or drop "
                f"{'it' if len(mot_given) == 1 else 'them'}."
                + (
                    " (With --link_tracklets, the classic tracker's identity "
                    "linking reads "
                    + " / ".join(f"--mot_param {k}" for k in CLASSIC_LINKING_MOT_PARAMS)
                    + ".)"
                    if "mot_param" in mot_given
                    else ""
                )
            )
        return
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return
    from click.core import ParameterSource

    from sleap_nn.inference.tracking import CLASSIC_ONLY_OPTIONS

    classic_flags = ["candidates_method"] + [
        "tracking_window_size" if name == "window_size" else name
        for name in CLASSIC_ONLY_OPTIONS
    ]
    given = [
        name
        for name in classic_flags
        if name in ctx.params
        and ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE
    ]
    if given:
        raise click.UsageError(
            f"{', '.join('--' + n for n in given)} "
            f"{'is an option' if len(given) == 1 else 'are options'} of the classic "
            f"tracker; --tracker {tracker} would ignore "
            f"{'it' if len(given) == 1 else 'them'}. Tune a MOT tracker with "
            "--track_buffer, --min_hits, --track_high_threshold, "
            "--track_low_threshold, --new_track_threshold, --min_match_similarity, "
            "--appearance_threshold, --link_tracklets, --max_tracks and --mot_param."
        )


def _validate_tracker_config_early(
    tracker_config: "object",
    single_node_detections: bool = False,
    *,
    data_path: Optional[str] = None,
    model_paths=None,
    check_appearance: bool = True,
) -> None:
    """Fail on an incoherent appearance/tracker config BEFORE any inference runs.

    ``apply_tracking`` is the LAST step of the embedding routes, so without this the
    detection stack and the embedding pass both complete -- minutes of GPU work,
    discarded -- before an unusable combination is reported.

    Runs the same :func:`~sleap_nn.tracking.tracker.validate_appearance_config`
    ``apply_tracking`` will run, on the values resolvable this early: an unset
    ``--scoring_method`` is resolved the way ``apply_tracking`` would for the
    detections we know are coming. Rules that need the labels (do any detections
    carry a vector? which carrier?) necessarily stay in ``apply_tracking``.

    Every route also runs :func:`~sleap_nn.inference.tracking.validate_mot_config`
    (options the tracker family would ignore, invalid MOT parameters), and refuses
    an appearance MOT tracker whose detections cannot carry re-ID vectors: no
    ``embedding`` model among ``model_paths`` while the detections are produced
    here (a video input, or any input with detection models).

    Args:
        tracker_config: The tracker configuration.
        single_node_detections: Whether the detection stack emits a single-node
            skeleton (resolves an unset ``--scoring_method``).
        data_path: The ``--data_path`` (enables the re-ID vector check).
        model_paths: The ``--model_paths``.
        check_appearance: Run the classic appearance rules (the embedding route);
            the other routes leave them to ``apply_tracking``.
    """
    from sleap_nn.inference.tracking import validate_mot_config
    from sleap_nn.tracking.tracker import validate_appearance_config

    try:
        validate_mot_config(tracker_config)
    except ValueError as e:
        raise click.UsageError(str(e)) from e
    if tracker_config.is_mot:
        if tracker_config.requires_vectors and data_path is not None:
            _, src_suffix, _ = _resolve_data_path(data_path)
            detects_here = bool(model_paths) or src_suffix.lower() != ".slp"
            if detects_here and not _has_embedding_model(model_paths):
                raise click.UsageError(
                    f"--tracker {tracker_config.tracker} associates by appearance, "
                    "which needs a re-ID vector on every detection, but no "
                    "`embedding` model is among --model_paths, so the detections "
                    "this run produces carry none. Add an embedding model "
                    "(detect + embed + track in one command), retrack a .slp that "
                    "already carries vectors, or track by geometry (--tracker "
                    "bytetrack / ocsort / sort)."
                )
        return
    if not check_appearance:
        return

    scoring_method = tracker_config.scoring_method
    if not tracker_config.scoring_method_explicit:
        if tracker_config.features == "embeddings":
            scoring_method = "cosine_sim"
        elif single_node_detections:
            scoring_method = "euclidean_dist"
    try:
        validate_appearance_config(
            features=tracker_config.features,
            scoring_method=scoring_method,
            appearance_weight=tracker_config.appearance_weight,
            use_flow=tracker_config.use_flow,
            use_kalman=tracker_config.use_kalman,
            euclidean_scale=tracker_config.euclidean_scale,
        )
    except ValueError as e:
        raise click.UsageError(str(e)) from e


def _build_tracker_config(kwargs: dict) -> "object":
    """Build a :class:`TrackerConfig` from the CLI ``--tracking_*`` flags.

    Replicates the legacy ``run_inference`` edge-layer defaulting (see
    ``sleap_nn/legacy_predict.py`` pre-#530) so the new ``predict`` flow behaves
    identically (#582):

    * ``--max_tracks`` forces ``--candidates_method local_queues`` (``max_tracks``
      is silently ignored by ``fixed_window``), overriding even an explicit
      ``--candidates_method fixed_window`` since that pairing is non-functional.
    * ``--post_connect_single_breaks`` / ``--tracking_pre_cull_to_target`` with
      only ``--max_instances`` (no explicit ``--tracking_target_instance_count``)
      derive the target count from ``max_instances`` instead of crashing /
      silently no-op'ing.
    * ``--post_connect_single_breaks`` with no ``--max_tracks`` derives
      ``max_tracks`` from ``max_instances`` (legacy track-only default).

    None of that applies to a MOT ``--tracker``: ``max_tracks`` is then the known
    animal count (closed-set identity linking) and is taken only from an explicit
    ``--max_tracks``. Every key is read unconditionally, before any conversion,
    so :func:`_tracker_option_keys` derives the full set of honored options.

    Raises:
        click.UsageError: A malformed ``--mot_param``.
    """
    from sleap_nn.inference.tracking import CLASSIC_TRACKER, TrackerConfig

    max_instances = kwargs.get("max_instances")
    target = kwargs.get("tracking_target_instance_count")
    max_tracks = kwargs.get("max_tracks")
    pre_cull = kwargs.get("tracking_pre_cull_to_target", 0)
    pcsb = kwargs.get("post_connect_single_breaks", False)
    use_kalman = kwargs.get("use_kalman", False)
    # MOT tracker options (read here, unconditionally -- see the docstring).
    tracker = kwargs.get("tracker") or CLASSIC_TRACKER
    mot_options = {
        name: kwargs.get(name)
        for name in (
            "track_buffer",
            "min_hits",
            "track_high_threshold",
            "track_low_threshold",
            "new_track_threshold",
            "min_match_similarity",
            "appearance_threshold",
        )
    }
    link_tracklets = bool(kwargs.get("link_tracklets", False))
    mot_param = kwargs.get("mot_param") or ()
    is_mot = tracker != CLASSIC_TRACKER

    mot_params = None
    if mot_param:
        from sleap_nn.tracking.mot.params import parse_mot_param

        mot_params = {}
        for text in mot_param:
            try:
                key, value = parse_mot_param(text)
            except ValueError as e:
                raise click.UsageError(f"--mot_param {text!r}: {e}") from e
            mot_params[key] = value

    # max_tracks is only honored by the local_queues candidate maker; fixed_window
    # silently ignores it. Whenever a track cap is requested, use local_queues so
    # the cap is enforced -- even if the user explicitly passed fixed_window, since
    # that combination is non-functional (the cap would be dropped). Logged at INFO
    # (sleap#2720, #582). Record explicitness so apply_tracking can default
    # mask-mode tracking to local_queues (much better identity on over-segmented
    # masks) unless the user explicitly picked a method. (Classic tracker only.)
    candidates_method_explicit = kwargs.get("candidates_method") is not None
    candidates_method = kwargs.get("candidates_method") or "fixed_window"
    if not is_mot and max_tracks is not None and candidates_method == "fixed_window":
        logger.info(
            f"max_tracks={max_tracks} requested; using "
            "candidates_method='local_queues' (fixed_window ignores max_tracks)."
        )
        candidates_method = "local_queues"

    # Legacy: post_connect_single_breaks defaults max_tracks from max_instances.
    if not is_mot and pcsb and max_tracks is None:
        max_tracks = max_instances

    # Legacy: post_connect / pre_cull derive the target count from max_instances
    # when not given explicitly (leaves target=None when both are None, so the
    # apply_tracking gate raises exactly as legacy did). Kalman tracking also
    # requires a target identity count, so derive it from max_instances too.
    if not is_mot and (pcsb or pre_cull or use_kalman) and target is None:
        target = max_instances

    # --features / --scoring_method default to None (sentinel for "user left the
    # default"). Record whether they were set so apply_tracking can substitute
    # single-node / centroid defaults; fall back to the historical
    # keypoints/oks defaults for the effective values when unset (#586).
    features = kwargs.get("features")
    scoring_method = kwargs.get("scoring_method")
    features_explicit = features is not None
    scoring_method_explicit = scoring_method is not None
    if features is None:
        features = "keypoints"
    if scoring_method is None:
        scoring_method = "oks"

    try:
        return TrackerConfig(
            window_size=kwargs.get("tracking_window_size", 5),
            min_new_track_points=kwargs.get("min_new_track_points", 0),
            candidates_method=candidates_method,
            min_match_points=kwargs.get("min_match_points", 0),
            features=features,
            scoring_method=scoring_method,
            features_explicit=features_explicit,
            scoring_method_explicit=scoring_method_explicit,
            candidates_method_explicit=candidates_method_explicit,
            scoring_reduction=kwargs.get("scoring_reduction", "mean"),
            robust_best_instance=kwargs.get("robust_best_instance", 1.0),
            oks_stddev=kwargs.get("oks_stddev", 0.025),
            appearance_weight=kwargs.get("appearance_weight", 0.0) or 0.0,
            euclidean_scale=kwargs.get("euclidean_scale"),
            track_matching_method=kwargs.get("track_matching_method", "hungarian"),
            max_tracks=max_tracks,
            use_flow=kwargs.get("use_flow", False),
            of_img_scale=kwargs.get("of_img_scale", 1.0),
            of_window_size=kwargs.get("of_window_size", 21),
            of_max_levels=kwargs.get("of_max_levels", 3),
            use_kalman=use_kalman,
            kf_track_features=kwargs.get("kf_track_features", "centroid"),
            kf_init_frame_count=kwargs.get("kf_init_frame_count", 10),
            kf_node_indices=kwargs.get("kf_node_indices"),
            kf_reset_gap_size=kwargs.get("kf_reset_gap_size", 5),
            tracking_target_instance_count=target,
            tracking_pre_cull_to_target=pre_cull,
            tracking_pre_cull_iou_threshold=kwargs.get(
                "tracking_pre_cull_iou_threshold", 0.0
            ),
            tracking_clean_instance_count=kwargs.get(
                "tracking_clean_instance_count", 0
            ),
            tracking_clean_iou_threshold=kwargs.get(
                "tracking_clean_iou_threshold", 0.0
            ),
            post_connect_single_breaks=pcsb,
            tracker=tracker,
            link_tracklets=link_tracklets,
            mot_params=mot_params,
            **mot_options,
        )
    except ValueError as e:
        # An out-of-range MOT option or an unknown --tracker / --mot_param key.
        raise click.UsageError(str(e)) from e


def _scope_labels_to_video(
    labels, video_index: int, frames=None, synthesize_missing: bool = False
):
    """Scope a ``Labels`` to one video (re-indexed to slot 0), optionally + frames.

    Returns ``(scoped_labels, target_video)``. Raises ``click.UsageError`` for an
    out-of-range ``video_index``. Carries the video's ``suggestions`` and the
    source ``provenance`` so ``--video_index`` composes with
    ``--only_suggested_frames`` / ``--frames`` and preserves input lineage
    (legacy parity, #583).

    A requested ``--frames`` index with no existing ``LabeledFrame`` is, by
    default, simply dropped (with a warning) -- ``labels.find()`` can only
    narrow, never add frames. When ``synthesize_missing=True``, such indices
    instead get an empty placeholder ``LabeledFrame`` (no instances, mirroring
    how ``LabelsProvider`` already synthesizes frames for
    ``--only_suggested_frames``) so real pixel-based inference can read that
    frame directly from ``target``'s backing video -- ``sio.Video`` already
    resolves an original ``frame_idx`` correctly for both a plain video and an
    embedded ``.pkg.slp`` (via its ``frame_map``), raising a clean
    ``IndexError`` if that particular frame was never embedded.
    ``synthesize_missing`` should stay ``False`` for annotation-based flows
    (retrack-only, ``--mask_backend``) where a frame with no instances is
    meaningless, not merely "not yet predicted".
    """
    import sleap_io as sio

    if video_index >= len(labels.videos):
        raise click.UsageError(
            f"--video_index {video_index} is out of range: the .slp has "
            f"{len(labels.videos)} video(s)."
        )
    target = labels.videos[video_index]
    wanted = set(frames) if frames else None
    target_lfs = labels.find(video=target)
    if wanted is None:
        lfs = list(target_lfs)
    else:
        existing_by_idx = {lf.frame_idx: lf for lf in target_lfs}
        missing = sorted(wanted - existing_by_idx.keys())
        if not synthesize_missing:
            # Ordered by frame_idx (matching the synthesize_missing branch
            # below), not by `target_lfs`'s original order -- a .slp's
            # labeled_frames are not guaranteed to already be frame_idx-sorted
            # (e.g. frames added out of sequence via the GUI), and the two
            # branches must agree so --stream-to-file's incremental write
            # order doesn't silently depend on synthesize_missing.
            lfs = [
                existing_by_idx[idx] for idx in sorted(wanted) if idx in existing_by_idx
            ]
        else:
            lfs = [
                (
                    existing_by_idx[idx]
                    if idx in existing_by_idx
                    else sio.LabeledFrame(video=target, frame_idx=idx, instances=[])
                )
                for idx in sorted(wanted)
            ]
        if missing:
            if synthesize_missing:
                logger.warning(
                    f"--frames requested {len(wanted)} frame index/indices for "
                    f"video {video_index}, but only "
                    f"{len(wanted) - len(missing)} already exist as labeled "
                    f"frames in the .slp; {len(missing)} will be read directly "
                    f"from the source video instead: {missing[:20]}"
                    f"{', ...' if len(missing) > 20 else ''}. A frame that "
                    f"isn't actually available in the video (e.g. a .pkg.slp "
                    f"missing that embedded frame) will be skipped with its "
                    f"own warning when read."
                )
            else:
                logger.warning(
                    f"--frames requested {len(wanted)} frame index/indices for "
                    f"video {video_index}, but only "
                    f"{len(wanted) - len(missing)} exist as labeled frames in "
                    f"the .slp; {len(missing)} requested index/indices have no "
                    f"matching labeled frame and will be skipped: "
                    f"{missing[:20]}{', ...' if len(missing) > 20 else ''}. "
                    f"--video_index/--frames on a .slp source can only select "
                    f"among already-labeled frames -- point --data_path at "
                    f"the video file directly to run inference on frames "
                    f"that aren't yet labeled."
                )
    suggestions = [
        s
        for s in (getattr(labels, "suggestions", None) or [])
        if s.video is target and (wanted is None or s.frame_idx in wanted)
    ]
    scoped = sio.Labels(
        videos=[target],
        skeletons=labels.skeletons,
        labeled_frames=lfs,
        suggestions=suggestions,
        provenance=dict(getattr(labels, "provenance", None) or {}),
    )
    return scoped, target


def _video_selection_from_kwargs(labels, video_index: int, kwargs: dict):
    """``--data_path x.slp --video_index N`` as a :class:`VideoSelection`.

    The selection is video ``N``'s own frames (all of them, or ``--frames``),
    filtered by the ``.slp``'s annotations -- so e.g. ``--exclude_user_labeled``
    means "every frame of the video except the user-labeled ones", matching the
    legacy ``track`` pipeline, rather than a subset of the frames the ``.slp``
    already holds. Raises ``click.UsageError`` for an out-of-range index.

    Returns ``None`` for a video embedded in a ``.pkg.slp``: it has no frames
    beyond those stored with its labels, so the caller keeps scoping it with
    :func:`_scope_labels_to_video` + ``LabelsProvider``, unchanged.
    """
    from sleap_nn.inference.providers import VideoSelection
    from sleap_nn.inference.run import _video_has_embedded_images

    if video_index >= len(labels.videos):
        raise click.UsageError(
            f"--video_index {video_index} is out of range: the .slp has "
            f"{len(labels.videos)} video(s)."
        )
    if _video_has_embedded_images(labels.videos[video_index]):
        return None
    return VideoSelection(
        labels=labels,
        video_index=video_index,
        frames=kwargs.get("frames"),
        only_labeled_frames=bool(kwargs.get("only_labeled_frames")),
        only_suggested_frames=bool(kwargs.get("only_suggested_frames")),
        exclude_user_labeled=bool(kwargs.get("exclude_user_labeled")),
        only_predicted_frames=bool(kwargs.get("only_predicted_frames")),
    )


def _is_embedding_model(model_path) -> bool:
    """Return ``True`` if ``model_path`` is an ``embedding`` (re-ID) model directory.

    Best-effort: loads the model's training config and checks its model type.
    Export directories / unreadable configs are treated as non-embedding.
    """
    from sleap_nn.config.utils import get_model_type_from_cfg, resolve_model_dir
    from sleap_nn.inference.loaders import _load_training_config

    try:
        if _is_export_dir(model_path):
            return False
        cfg, _ = _load_training_config(resolve_model_dir(model_path))
        return get_model_type_from_cfg(config=cfg) == "embedding"
    except Exception:  # noqa: BLE001 — fail open; only gate the exact case
        return False


def _has_embedding_model(model_paths) -> bool:
    """Return ``True`` if any entry in ``model_paths`` is an ``embedding`` model."""
    if not model_paths:
        return False
    return any(_is_embedding_model(mp) for mp in model_paths)


class _KeyRecordingDict(dict):
    """A ``dict`` that remembers which keys were read.

    Used to DERIVE the set of options `_build_tracker_config` honors instead of
    hard-coding it: every ``--tracking_*`` knob it grows is picked up
    automatically, which is what made a hand-maintained list unworkable.
    """

    def __init__(self, base=None):
        super().__init__(base or {})
        self.read: set = set()

    def get(self, key, default=None):
        """Record ``key`` and delegate."""
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        """Record ``key`` and delegate."""
        self.read.add(key)
        return super().__getitem__(key)


@functools.lru_cache(maxsize=1)
def _tracker_option_keys() -> frozenset:
    """The ``kwargs`` keys :func:`_build_tracker_config` reads.

    Probed by calling it against a key-recording dict, so the honored set tracks
    the tracker's options automatically.
    """
    probe = _KeyRecordingDict()
    try:
        _build_tracker_config(probe)
    except Exception:  # noqa: BLE001 -- the probe only needs the read keys
        pass
    return frozenset(probe.read)


# Options the LONE-embedding route honors, on top of the tracker options it
# derives from `_build_tracker_config` when `--tracking` is set. That route takes a
# `.slp` of detections and writes a `.slp` of vectors (and/or tracks), so anything
# outside this set has nowhere to go.
#
# An ALLOWLIST, but a computed one: the previous hand-written denylist named 8 of
# the ~107 `predict` options, so the other ~90 -- `--peak_threshold`,
# `--only_predicted_frames`, `--ensure_rgb`, `--output_format`, every
# `--tracking_*` flag passed WITHOUT `-t` -- passed validation and were silently
# ignored, which is the class of surprise #732 fixed for `predict`. The reason the
# allowlist was dropped (it would reject valid flags as the tracker gains knobs) is
# answered by deriving the tracker half rather than listing it.
_EMBEDDING_ROUTE_HONORED_OPTIONS = frozenset(
    {
        # Consumed by `_run_embeddings` / `predict_embeddings_to_slp`.
        "model_paths",
        "data_path",
        "output_path",
        "device",
        "batch_size",
        "save_embeddings",
        "tracking",
        "restore_source_videos",
        # Read for remote `.slp` inputs / rejected with their own message earlier.
        "headers",
        "stream_mode",
        "stream_to_file",
        "write_interval",
        "mask_backend",
        # Runtime/logging knobs that apply to any route.
        "cpu_workers",
        "queue_maxsize",
        "paf_workers",
        "gui",
    }
)

# Crops per forward pass for the embedding stage when `-b` is not given (`-b`
# defaults to 4 FRAMES for the detection stage). Matches
# `predict_embeddings_to_slp`'s own default.
_EMBEDDING_DEFAULT_CROP_BATCH = 64

# Why each unhonored option is unhonored, for the error message. Anything not
# listed falls back to the generic reason.
_EMBEDDING_ROUTE_OPTION_REASONS = {
    "frames": "frame scoping is not threaded into the embedding pass",
    "video_index": "frame scoping is not threaded into the embedding pass",
    "only_labeled_frames": "frame scoping is not threaded into the embedding pass",
    "only_suggested_frames": "frame scoping is not threaded into the embedding pass",
    "only_predicted_frames": "frame scoping is not threaded into the embedding pass",
    "exclude_user_labeled": "frame scoping is not threaded into the embedding pass",
    "max_height": "crop geometry comes from the trained config",
    "max_width": "crop geometry comes from the trained config",
    "crop_size": "crop geometry comes from the trained config",
    "input_scale": "crop geometry comes from the trained config",
    "ensure_rgb": "the input channels come from the trained config",
    "ensure_grayscale": "the input channels come from the trained config",
    "anchor_part": "crop centering comes from the trained config",
    "output_format": "the embedding route writes a .slp only",
    "embed": "the embedding route writes a .slp only",
    "video_dataset": "the embedding route reads detections from a .slp, not a video",
    "peak_threshold": "the embedding route detects nothing; it embeds existing detections",
}


# Output-shaping options the FUSED route cannot honor either: the detection stage
# writes nothing (its detections are handed over in memory), and the final output
# is always a `.slp` referencing the source video. Only values that would change
# the output are rejected; restating the default is harmless.
_FUSED_OUTPUT_OPTIONS = {
    "output_format": (
        lambda v: {str(f).lower() for f in (v or ("slp",))} != {"slp"},
        "the embedding route writes a .slp only",
    ),
    "embed": (
        lambda v: str(v or "false").lower() != "false",
        "the embedding route's .slp references the source video; frames are not "
        "embedded",
    ),
}


def _reject_unsupported_embedding_options(fused: bool, tracking: bool = False) -> None:
    """Fail on explicitly-set options the embedding route cannot honor.

    Silently ignoring them is the class of surprise #732 fixed for `predict`.

    Args:
        fused: True when a detection stack was passed alongside the embedding
            model. The detection stage then receives the full option set, so
            frame scoping and geometry ARE honored there; only the output-shaping
            options (``--output_format`` / ``--embed``), which no stage honors,
            are rejected.
        tracking: True when ``--tracking`` is set, which makes every option
            `_build_tracker_config` reads honored.
    """
    ctx = click.get_current_context(silent=True)
    if ctx is None:  # programmatic call, no CLI to police
        return
    from click.core import ParameterSource

    if fused:
        offenders = [
            name
            for name, (changes_output, _) in _FUSED_OUTPUT_OPTIONS.items()
            if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE
            and changes_output(ctx.params.get(name))
        ]
        if offenders:
            detail = "; ".join(
                f"--{name} ({_FUSED_OUTPUT_OPTIONS[name][1]})" for name in offenders
            )
            raise click.UsageError(
                f"the fused detect->embed route does not support {detail}. Its "
                "output is a .slp of the embedded (and optionally tracked) "
                "detections; convert it afterwards if you need another format."
            )
        return

    honored = set(_EMBEDDING_ROUTE_HONORED_OPTIONS)
    if tracking:
        honored |= _tracker_option_keys()
    offenders = sorted(
        name
        for name in ctx.params
        if name not in honored
        and ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE
    )
    if offenders:
        detail = "; ".join(
            f"--{name}"
            + (
                f" ({_EMBEDDING_ROUTE_OPTION_REASONS[name]})"
                if name in _EMBEDDING_ROUTE_OPTION_REASONS
                else ""
            )
            for name in offenders
        )
        extra = (
            ""
            if tracking
            else " (tracking options additionally require --tracking to be honored)"
        )
        raise click.UsageError(
            f"the embedding (re-ID) route does not support {detail}{extra}. It embeds "
            "every detection already present in --data_path. Pass a detection model "
            "alongside the embedding model to detect and embed in one command, in "
            "which case those options apply to the detection stage."
        )


def _run_embeddings(
    kwargs: dict,
    save_embeddings: str = "none",
    tracker_config: "object" = None,
    paf_workers: int = 0,
) -> "object":
    """Embed detections of an ``embedding`` model and persist the vectors into a ``.slp``.

    Attaches each detection's appearance vector (``sio.Embedding``, in the
    ``identity_embedding`` slot) to its
    source detection and writes a ``.slp``. Every detection is embedded, tracked or
    not. With
    ``tracker_config`` (``--tracking``, WF2) the detections are then tracked
    into a tracked ``.slp``; ``save_embeddings`` then
    decides whether the vectors persist in it (``"slp"``) or are stripped (``"none"`` =
    tracks only).

    **Fused detect→embed:** when ``--model_paths`` carries a detection stack (centroid
    and/or centered_instance) ALONGSIDE the embedding model, the detection stack is run
    first on ``--data_path`` and the ``sio.Labels`` it returns are embedded +
    (optionally) tracked in memory — equivalent to the two-step
    ``detect → .slp → embed+track``, fused into a single command.
    """
    from sleap_nn.inference.embedding import (
        EmbeddingInputError,
        predict_embeddings_to_slp,
    )

    if not kwargs.get("data_path"):
        raise click.UsageError(
            "--data_path is required for --save_embeddings / --tracking on an "
            "embedding model."
        )

    model_paths = list(kwargs["model_paths"])
    embedding_dirs = [m for m in model_paths if _is_embedding_model(m)]
    detection_dirs = [m for m in model_paths if not _is_embedding_model(m)]
    if len(embedding_dirs) > 1:
        raise click.UsageError(
            f"got {len(embedding_dirs)} `embedding` (re-ID) models "
            f"({', '.join(map(str, embedding_dirs))}); pass exactly one. Each "
            "detection has a single appearance-vector slot."
        )
    tracking = tracker_config is not None
    _reject_unsupported_embedding_options(fused=bool(detection_dirs), tracking=tracking)
    if (
        tracking
        and save_embeddings == "none"
        and not (tracker_config.uses_appearance or tracker_config.runs_linking)
    ):
        # Geometry-only tracking that neither uses nor keeps the vectors: the
        # embedding pass would run and its output be thrown away. (With
        # --save_embeddings slp, "persist vectors, track by geometry" is a real
        # combination and is allowed.)
        if tracker_config.is_mot:
            raise click.UsageError(
                f"--tracker {tracker_config.tracker} tracks by geometry only, so the "
                "embedding model's vectors would be computed and then discarded. "
                "Use an appearance tracker (--tracker botsort / deepocsort / "
                "deepsort / strongsort), add --link_tracklets (or --max_tracks N) "
                "for appearance-based identity linking, or add --save_embeddings "
                "slp to keep the vectors."
            )
        raise click.UsageError(
            f"--features {tracker_config.features} tracks by geometry only, so the "
            "embedding model's vectors would be computed and then discarded. Drop "
            "--features to track by appearance, add --appearance_weight to blend "
            "appearance into the geometric score, add --link_tracklets for "
            "appearance-based identity linking, use an appearance tracker "
            "(--tracker botsort / deepocsort), or add --save_embeddings slp to "
            "keep the vectors."
        )
    if tracking and detection_dirs:
        # Before the detection stack runs (`apply_tracking` is the last step).
        _check_fused_tracking_early(
            tracker_config,
            detection_dirs,
            embedding_dirs[0],
            centroid_only=bool(kwargs.get("centroid_only")),
            vectors_kept=save_embeddings == "slp",
        )

    data_path = kwargs["data_path"]
    src, src_suffix, src_is_url = _resolve_data_path(data_path)
    remote_kwargs = _build_remote_kwargs(kwargs)
    output_path = kwargs.get("output_path")
    if detection_dirs:
        # `predict_embeddings_to_slp` refuses `-o` over the input's frame source
        # before its embedding pass, but on the fused route the detection stack
        # runs first -- check before it does.
        _refuse_overwriting_input_early(src, output_path, "slp")
    detections = None
    scoped_video_name = None
    if detection_dirs:
        # FUSED: run the detection stack (centroid [+ centered_instance]) on the raw
        # input, then embed (+track) the detections it returns. Exactly the two-step
        # `detect -> .slp -> embed+track` path, fused into one command.
        #
        # The detections are handed over IN MEMORY: `_run_in_memory_new_flow`
        # returns predict()'s `sio.Labels`, and `predict_embeddings_to_slp` accepts
        # them directly. The earlier version wrote them to a temp .slp and re-parsed
        # it, which (a) coupled the fused route to `--output_format` -- with
        # `analysis_h5` the .slp was never written and the re-parse raised
        # FileNotFoundError -- (b) silently discarded any analysis h5 of the
        # intermediate detections into the deleted tmpdir, (c) honored `--embed` on
        # a throwaway file, and (d) paid a full HDF5 serialize/parse round-trip.
        det_kwargs = dict(kwargs)
        det_kwargs["model_paths"] = detection_dirs
        det_kwargs["tracking"] = False  # detect only; the embedding path tracks
        det_kwargs["output_path"] = None  # no user-facing output for this stage
        click.echo(
            f"[fused] detecting with {len(detection_dirs)} model(s), then "
            "embedding the detections..."
        )
        detections = _run_in_memory_new_flow(
            det_kwargs, paf_workers=paf_workers, save_output=False
        )
        if detections is None:
            raise click.UsageError(
                "the fused detect->embed route got no detections back from the "
                "detection stage."
            )
        video_index = kwargs.get("video_index")
        if src_suffix == ".slp" and video_index is not None and detections.videos:
            # Name the output after the scoped video, as `predict` does, so runs on
            # different `--video_index` of one project do not overwrite each other.
            scoped_video_name = _scoped_video_name(detections.videos[0], video_index)
    elif src_suffix.lower() != ".slp":
        # LONE: the embedding model embeds EXISTING detections, so the input must be
        # a .slp. Checked on the URL's path, not the raw string, so a signed URL
        # (`x.slp?sig=...`) is accepted.
        raise click.UsageError(
            f"--data_path must be a .slp of detections to embed, got {data_path!r}. "
            "A lone embedding (re-ID) model attaches appearance vectors to "
            "detections that already exist; to run on a video, pass a detection "
            "model (centroid / centered_instance) alongside the embedding model so "
            "the detections are produced first."
        )
    # One default for both routes, off the ORIGINAL input: `<input>.<kind>.slp`,
    # URL-aware (`_default_predictions_path` drops a URL's directory -- it cannot
    # be written next to -- and never lets `Path()` collapse `scheme://`).
    if not output_path:
        output_path = _default_embedding_output_path(
            src, src_is_url, tracking=tracking, scoped_video_name=scoped_video_name
        )

    # The embedding stage batches CROPS, not frames: `-b` defaults to 4 for the
    # detection stage's frames, which starves the embedder. Unless -b was given,
    # use `predict_embeddings_to_slp`'s own crop batch.
    batch_size = kwargs.get("batch_size", 4) or 4
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        from click.core import ParameterSource

        if ctx.get_parameter_source("batch_size") != ParameterSource.COMMANDLINE:
            batch_size = _EMBEDDING_DEFAULT_CROP_BATCH

    try:
        out = predict_embeddings_to_slp(
            model_paths=embedding_dirs,
            data_path=src,
            labels=detections,
            output_path=output_path,
            device=_resolve_device(kwargs.get("device")),
            batch_size=batch_size,
            save_embeddings=save_embeddings,
            tracker_config=tracker_config,
            restore_source_videos=bool(kwargs.get("restore_source_videos", False)),
            remote_kwargs=remote_kwargs or None,
        )
    except EmbeddingInputError as e:
        raise click.UsageError(str(e)) from e

    if tracker_config is not None:
        click.echo(f"Wrote tracked labels to {out}")
    else:
        click.echo(f"Wrote embeddings to {out}")
    return out


def _is_export_dir(path: str) -> bool:
    """True if ``path`` is a directory holding an exported ONNX/TRT model.

    A single ``--model_paths`` entry that is a directory containing
    ``model.onnx`` or ``model.trt`` is an exported model and routes to the
    ONNX/TensorRT runtime instead of checkpoint loading. The exporter writes
    these artifacts to a dedicated directory (never alongside ``best.ckpt``),
    so this never misfires on a checkpoint directory.
    """
    from pathlib import Path

    p = Path(path)
    return p.is_dir() and ((p / "model.onnx").exists() or (p / "model.trt").exists())


# Remote URL schemes sleap-io 0.8.0 can load directly (fsspec for ``.slp``, PyAV
# for video). Mirrors ``sleap_io.io._remote._URL_SCHEMES``; kept local to avoid
# importing a private symbol (pinned by the ``sleap-io>=0.8.0,<0.9.0`` fence).
# Single-letter schemes (e.g. a Windows ``C:`` drive) are intentionally absent,
# so absolute Windows paths are treated as local.
_REMOTE_URL_SCHEMES = frozenset({"http", "https", "s3", "gs", "gcs", "az", "abfs"})


def _is_remote_url(data_path: object) -> bool:
    """Return ``True`` if ``data_path`` is a remote URL sleap-io can load."""
    from urllib.parse import urlparse

    s = str(data_path)
    return bool(s) and urlparse(s).scheme.lower() in _REMOTE_URL_SCHEMES


def _resolve_data_path(data_path: object) -> "tuple[str, str, bool]":
    """Resolve a ``--data_path`` to ``(source_str, suffix, is_url)``.

    Local paths are normalized through :class:`pathlib.Path` (unchanged
    behavior). Remote URLs are passed through verbatim — ``Path()`` collapses
    ``scheme://`` (and flips separators to backslashes on Windows), corrupting
    the URL before it reaches sleap-io's URL-aware loaders. A URL's suffix is
    taken from its path component so ``.slp`` vs. video routing still works and
    any query string / fragment is ignored.
    """
    from pathlib import Path
    from urllib.parse import urlparse

    if _is_remote_url(data_path):
        s = str(data_path)
        return s, Path(urlparse(s).path).suffix, True
    p = Path(data_path)
    return str(p), p.suffix, False


def _default_predictions_path(
    source_str: str, is_url: bool, scoped_video_name: "Optional[str]" = None
) -> str:
    """Derive the default ``.slp`` output path from the input source.

    Local inputs write alongside the input (``<data_path>.slp``), matching legacy
    behavior. Remote inputs cannot be written next to the source, so the output
    lands in the current working directory under the URL's basename.
    """
    from pathlib import Path
    from urllib.parse import urlparse

    base = (
        Path(urlparse(source_str).path).name or "predictions" if is_url else source_str
    )
    if scoped_video_name is not None:
        return f"{Path(base).with_suffix('')}.{scoped_video_name}.predictions.slp"
    return f"{base}.slp"


def _default_embedding_output_path(
    source_str: str,
    is_url: bool,
    tracking: bool,
    scoped_video_name: "Optional[str]" = None,
) -> str:
    """Derive the embedding route's default output path from the input source.

    ``<input>.tracked.slp`` when tracking, else ``<input>.embeddings.slp`` -- the
    SAME convention :func:`~sleap_nn.inference.embedding.predict_embeddings_to_slp`
    uses, and the one default for both the lone and the fused route, so a fused
    run and a two-step run of the same input land on the same filename. Remote
    inputs go through :func:`_default_predictions_path`, which drops the URL's
    directory part (a URL cannot be written next to, and ``Path()`` would collapse
    ``scheme://``). A ``--video_index``-scoped run inserts the video's name, as
    ``predict`` does (``<input stem>.<video>.tracked.slp``), so runs on different
    videos of one project do not overwrite each other.
    """
    from pathlib import Path

    kind = "tracked" if tracking else "embeddings"
    base = _default_predictions_path(source_str, is_url)
    stem = base[: -len(".slp")] if base.endswith(".slp") else base
    if scoped_video_name is not None:
        return f"{Path(stem).with_suffix('')}.{scoped_video_name}.{kind}.slp"
    return f"{stem}.{kind}.slp"


def _scoped_video_name(video, video_index: int) -> str:
    """The name a ``--video_index``-scoped run inserts into its default output path.

    The video file's stem, or ``video_<index>`` when it has none. Shared by
    ``predict`` and the fused embedding route so the two name a scoped run alike.
    """
    from pathlib import Path

    filename = getattr(video, "filename", None)
    return Path(str(filename)).stem if filename else f"video_{video_index}"


def _build_remote_kwargs(kwargs: dict) -> dict:
    """Collect remote-loading options (``--headers`` / ``--stream-mode``).

    Returns a (possibly empty) mapping suitable for ``**``-forwarding to
    ``sio.load_slp`` / ``sio.load_video`` (and the providers' ``remote_kwargs``).
    """
    import json

    remote: dict = {}
    headers = kwargs.get("headers")
    if headers:
        try:
            parsed = json.loads(headers)
        except (TypeError, ValueError) as e:
            raise click.UsageError(
                "--headers must be a JSON object string, e.g. "
                '\'{"Authorization": "Bearer ..."}\' '
                f"(got {headers!r}): {e}"
            )
        if not isinstance(parsed, dict):
            raise click.UsageError("--headers JSON must be an object (key/value map).")
        remote["headers"] = parsed
    stream_mode = kwargs.get("stream_mode")
    if stream_mode:
        remote["stream_mode"] = stream_mode
    return remote


_SLP_ONLY_FRAME_FILTER_FLAGS = (
    "only_labeled_frames",
    "only_suggested_frames",
    "exclude_user_labeled",
    "only_predicted_frames",
)


def _warn_ignored_slp_filters_for_non_slp_source(kwargs: dict, src_suffix: str) -> None:
    """Warn (not error) if a label-status frame filter is set for a non-``.slp`` source.

    ``--only_labeled_frames`` / ``--only_suggested_frames`` /
    ``--exclude_user_labeled`` / ``--only_predicted_frames`` select frames by
    annotation status, which fundamentally doesn't exist for a raw video --
    there's no way to know which frames are "predicted" or "user-labeled"
    without a ``.slp``. These flags are inert for a non-``.slp`` source: the
    inference dispatch below only reads them when building a source from a
    ``.slp``, so a video source runs full-video inference either way. This
    warns so that's not a silent surprise. Shared by both the in-memory and
    stream-to-file flows so the two call sites can't drift the way
    ``LabelsProvider`` vs. ``LabelsReader`` did.
    """
    if src_suffix == ".slp":
        return
    ignored = [f"--{flag}" for flag in _SLP_ONLY_FRAME_FILTER_FLAGS if kwargs.get(flag)]
    if ignored:
        logger.warning(
            f"{', '.join(ignored)} require a `.slp` --data_path (they filter "
            "frames by annotation status); the given source has no annotations "
            "to filter on, so these flags have no effect here. Running on all "
            "frames. Use --frames to subset a video by index instead, or pass "
            "the project instead (--data_path project.slp --video_index N) to "
            "filter the video's frames by its annotations."
        )


def _refuse_overwriting_input_early(source, output_path, output_format) -> None:
    """Refuse, as a usage error, an ``.slp`` output over the input's frame source.

    Called before any model load, inference or tracking; see
    :func:`sleap_nn.inference.run._refuse_overwriting_source_before_inference`.
    """
    from sleap_nn.inference.run import _refuse_overwriting_source_before_inference

    try:
        _refuse_overwriting_source_before_inference(source, output_path, output_format)
    except ValueError as e:
        raise click.UsageError(str(e)) from e


def _run_in_memory_new_flow(
    kwargs: dict, paf_workers: int, save_output: bool = True
) -> "object":
    """Run the new ``predict()`` flow synchronously and save the resulting Labels.

    Routes to :meth:`Predictor.retrack` for the tracking-only retrack
    case (no ``model_paths``, ``--tracking`` set, ``.slp`` data path);
    auto-detects an exported ONNX/TRT model directory in ``model_paths`` and
    routes it through the exported-model runtime; otherwise delegates to
    :func:`sleap_nn.inference.run.predict` for trained checkpoints.

    Args:
        kwargs: The ``predict`` command's parameters.
        paf_workers: Bottom-up PAF grouping worker count.
        save_output: When ``False``, nothing is written -- the ``sio.Labels`` is
            only returned. Used by the fused ``detect -> embed`` route, whose
            detections are an intermediate handed straight to the embedding pass.
            A ``kwargs["output_path"]`` of ``None`` cannot express this on its own:
            it is also how "the user did not pass -o" arrives, and that falls back
            to the auto-derived path.
    """
    from pathlib import Path

    from sleap_nn.inference.predictor import Predictor

    # The SAM mask path produces masks from existing poses; it never tracks.
    # Without this guard, `--mask_backend ... --tracking` (no --model_paths)
    # would fall into the retrack short-circuit below, which ignores
    # mask_backend and silently produces no masks. Fail loudly instead.
    if kwargs.get("mask_backend") and kwargs.get("tracking"):
        raise click.UsageError(
            "--tracking is not supported with --mask_backend; the SAM mask path "
            "operates on the existing poses in the input .slp only. Run them "
            "separately."
        )

    # The SAM mask path consumes a pose .slp / sio.Labels directly via
    # run_sam_segmentation, NOT the Provider/Predictor flow. The label-status
    # frame filters select inference frames by annotation status, which does not
    # map onto masking the poses already present; reject them clearly rather than
    # crash deep in run_sam_segmentation (which would ``Path()`` a LabelsProvider
    # -> TypeError). ``--video_index`` and ``--frames`` ARE supported (below).
    if kwargs.get("mask_backend"):
        _sam_unsupported = [
            f"--{flag}"
            for flag in (
                "only_labeled_frames",
                "only_suggested_frames",
                "exclude_user_labeled",
                "only_predicted_frames",
            )
            if kwargs.get(flag)
        ]
        if _sam_unsupported:
            raise click.UsageError(
                f"{', '.join(_sam_unsupported)} not supported with --mask_backend; "
                "it masks the poses already in the input .slp. Use --frames to "
                "subset frames, or pre-filter the .slp."
            )

    # ── Tracking-only retrack: no model_paths, --tracking on a .slp ────
    if not kwargs.get("model_paths") and kwargs.get("tracking"):
        return _run_retrack_only(kwargs, Predictor)

    from sleap_nn.inference.providers import LabelsProvider, VideoProvider
    from sleap_nn.inference.run import predict

    # Resolve the input: local paths normalize through Path(); remote URLs pass
    # through verbatim (Path() would corrupt scheme://). Remote auth/stream
    # options (--headers/--stream-mode) are forwarded to the URL-aware loaders.
    source_str, src_suffix, src_is_url = _resolve_data_path(kwargs["data_path"])
    _warn_ignored_slp_filters_for_non_slp_source(kwargs, src_suffix)
    remote_kwargs = _build_remote_kwargs(kwargs)

    # Build source: use a provider when CLI-specific filtering or
    # video kwargs are needed, otherwise pass the raw path.
    has_slp_filters = any(
        kwargs.get(k)
        for k in (
            "only_labeled_frames",
            "only_suggested_frames",
            "exclude_user_labeled",
            "only_predicted_frames",
        )
    )
    # Suffix for the auto-derived output filename when --video_index scopes a
    # single video of a multi-video .slp (legacy parity, so per-video runs don't
    # collide on one output path). Stays None for the non-video_index case. #583.
    scoped_video_name = None
    video_index = kwargs.get("video_index")
    if src_suffix == ".slp" and video_index is not None:
        import sleap_io as sio

        # Scope to the requested video (re-indexed to slot 0 so its frames map to
        # videos[0] and avoid an out-of-range video index in packaging). The
        # frames pass through a pre-built LabelsProvider, so the real Video is not
        # re-attached on output (same as the has_slp_filters path); the output is
        # video-name-suffixed instead. Carries suggestions + the --frames filter.
        # For real pixel-based inference (not --mask_backend, which masks
        # existing poses and has nothing to do with un-annotated frames),
        # synthesize placeholder frames for --frames indices that aren't
        # already labeled so they're read straight from the video instead of
        # silently dropped (matches what `sleap-nn track` does when given a
        # model, minus its all-or-nothing failure mode -- see LabelsProvider).
        slp_labels = sio.load_slp(source_str, **remote_kwargs)
        if kwargs.get("mask_backend"):
            # run_sam_segmentation accepts a sio.Labels directly; pass the scoped
            # Labels (not a provider, which it cannot consume). Masking works on
            # the poses already present, so no frames are synthesized.
            source, target_video = _scope_labels_to_video(
                slp_labels, video_index, frames=kwargs.get("frames")
            )
        else:
            # Real inference: the video's own frames, filtered by annotations.
            source = _video_selection_from_kwargs(slp_labels, video_index, kwargs)
            if source is not None:
                target_video = source.video
            else:
                # Embedded .pkg.slp video: scope to its labeled frames, reading
                # any --frames index that isn't labeled straight from the package.
                scoped, target_video = _scope_labels_to_video(
                    slp_labels,
                    video_index,
                    frames=kwargs.get("frames"),
                    synthesize_missing=True,
                )
                source = LabelsProvider(
                    labels=scoped,
                    batch_size=kwargs.get("batch_size", 4),
                    only_labeled_frames=bool(kwargs.get("only_labeled_frames")),
                    only_suggested_frames=bool(kwargs.get("only_suggested_frames")),
                    exclude_user_labeled=bool(kwargs.get("exclude_user_labeled")),
                    only_predicted_frames=bool(kwargs.get("only_predicted_frames")),
                )
        scoped_video_name = _scoped_video_name(target_video, video_index)
    elif src_suffix == ".slp" and has_slp_filters:
        source = LabelsProvider(
            labels=source_str,
            batch_size=kwargs.get("batch_size", 4),
            only_labeled_frames=bool(kwargs.get("only_labeled_frames")),
            only_suggested_frames=bool(kwargs.get("only_suggested_frames")),
            exclude_user_labeled=bool(kwargs.get("exclude_user_labeled")),
            only_predicted_frames=bool(kwargs.get("only_predicted_frames")),
            remote_kwargs=remote_kwargs or None,
        )
    elif src_suffix != ".slp" and (
        kwargs.get("video_dataset")
        or kwargs.get("video_input_format", "channels_last") != "channels_last"
        or remote_kwargs
    ):
        source = VideoProvider(
            video=source_str,
            batch_size=kwargs.get("batch_size", 4),
            frames=kwargs.get("frames"),
            dataset=kwargs.get("video_dataset"),
            input_format=kwargs.get("video_input_format"),
            remote_kwargs=remote_kwargs or None,
        )
    elif src_is_url and src_suffix == ".slp" and remote_kwargs:
        # A bare remote .slp would otherwise be loaded by predict() without the
        # remote kwargs; load it here with them and pass the Labels object so
        # predict()'s frame selection (which keys on a Labels source the same way
        # it does on a .slp path) is preserved.
        import sleap_io as sio

        source = sio.load_slp(source_str, **remote_kwargs)
    else:
        source = source_str

    peak_thresh = kwargs.get("peak_threshold", 0.2)
    centroid_thresh = kwargs.get("centroid_peak_threshold") or peak_thresh

    # Auto-detect an exported ONNX/TRT model directory: a single --model_paths
    # entry containing model.onnx/model.trt runs through the exported-model
    # runtime. Multiple paths are always trained checkpoints (top-down).
    _mps = kwargs["model_paths"]
    export_dir = (
        _mps[0] if _mps and len(_mps) == 1 and _is_export_dir(_mps[0]) else None
    )

    predict_kwargs: dict = {
        "model_paths": kwargs["model_paths"],
        "device": _resolve_device(kwargs.get("device")),
        "batch_size": kwargs.get("batch_size", 4),
        "paf_workers": paf_workers,
        "peak_threshold": peak_thresh,
        "centroid_threshold": centroid_thresh,
        "keypoint_threshold": peak_thresh,
        "integral_refinement": kwargs.get("integral_refinement", "integral"),
        "integral_patch_size": kwargs.get("integral_patch_size", 5),
        "max_instances": kwargs.get("max_instances"),
        "anchor_part": kwargs.get("anchor_part"),
        "frames": kwargs.get("frames"),
        "clean_empty_frames": bool(kwargs.get("no_empty_frames")),
        "output_path": (
            (
                kwargs.get("output_path")
                or _default_predictions_path(source_str, src_is_url, scoped_video_name)
            )
            if save_output
            else None
        ),
        "output_format": kwargs.get("output_format") or ("slp",),
        "embed": kwargs.get("embed") or "false",
        "restore_source_videos": kwargs.get("restore_source_videos", False),
        "save_embedding_vectors": kwargs.get("save_embedding_vectors"),
        # Bottom-up PAF grouping knobs (inert for non-bottom-up models). #583.
        "max_edge_length_ratio": kwargs.get("max_edge_length_ratio", 0.25),
        "dist_penalty_weight": kwargs.get("dist_penalty_weight", 1.0),
        "n_points": kwargs.get("n_points", 10),
        "min_instance_peaks": kwargs.get("min_instance_peaks", 0),
        "min_line_scores": kwargs.get("min_line_scores", 0.25),
        # Bottom-up segmentation knobs (inert for non-segmentation models).
        "fg_threshold": kwargs.get("fg_threshold", 0.5),
        "bbox_nms_iou": kwargs.get("bbox_nms_iou"),
        "min_mask_area": kwargs.get("min_mask_area", 0),
        "center_nms_kernel": kwargs.get("center_nms_kernel", 3),
        "mask_cleanup": kwargs.get("mask_cleanup", False),
        "mask_cleanup_radius": kwargs.get("mask_cleanup_radius", 0),
        "distance_gate_alpha": kwargs.get("distance_gate_alpha"),
        "merge_fragments": kwargs.get("merge_fragments", False),
        "merge_method": kwargs.get("merge_method", "greedy"),
        "merge_thresholds": kwargs.get("merge_thresholds", (0.85, 0.6, 0.4)),
        "merge_w_valley": kwargs.get("merge_w_valley", 1.0),
        "merge_w_offset": kwargs.get("merge_w_offset", 0.25),
        "merge_dilate": kwargs.get("merge_dilate", 1),
        "full_res_masks": kwargs.get("full_res_masks", False),
        "mask_output": kwargs.get("mask_output", "mask"),
        "polygon_epsilon": kwargs.get("polygon_epsilon", 0.01),
    }
    # SAM prompted-mask producer (§1.4): when --mask_backend is set, masks are
    # produced from the poses already in the input .slp (no trained seg model).
    # run.predict() short-circuits on mask_backend and ignores the inert model
    # knobs carried in predict_kwargs. No --tracking, so this path is not caught
    # by the retrack short-circuit above. model_paths stays empty (the SAM path
    # rejects model_paths), so do not pass --model_paths alongside --mask_backend.
    if kwargs.get("mask_backend"):
        predict_kwargs["mask_backend"] = kwargs["mask_backend"]
        predict_kwargs["sam_checkpoint"] = kwargs.get("sam_checkpoint")
        predict_kwargs["sam_model_type"] = kwargs.get("sam_model_type", "vit_h")
        predict_kwargs["sam_prompt_mode"] = kwargs.get("sam_prompt_mode", "pose")
        predict_kwargs["sam_anchor_ind"] = kwargs.get("sam_anchor_ind")
        predict_kwargs["sam_disjointify_masks"] = bool(
            kwargs.get("sam_disjointify_masks")
        )
        predict_kwargs["sam3_model_id"] = kwargs.get("sam3_model_id", "facebook/sam3")
        predict_kwargs["overlay_path"] = kwargs.get("overlay_path")

    preprocess_config = _build_preprocess_config(kwargs)
    if preprocess_config is not None:
        predict_kwargs["preprocess_config"] = preprocess_config
    if kwargs.get("backbone_ckpt_path"):
        predict_kwargs["backbone_ckpt_path"] = kwargs["backbone_ckpt_path"]
    if kwargs.get("head_ckpt_path"):
        predict_kwargs["head_ckpt_path"] = kwargs["head_ckpt_path"]
    if kwargs.get("tracking"):
        tracker_config = _build_tracker_config(kwargs)
        # Before the models load: options the tracker family would ignore, and an
        # appearance MOT tracker whose detections cannot carry re-ID vectors. (The
        # classic appearance rules stay in apply_tracking on this route.)
        _validate_tracker_config_early(
            tracker_config,
            data_path=kwargs.get("data_path"),
            model_paths=kwargs.get("model_paths"),
            check_appearance=False,
        )
        if kwargs.get("model_paths"):
            # The carrier rules, from the carrier the detection stack will emit
            # (e.g. `--features masks` on a pose model): the predictions are
            # built from the model output alone, whatever the input holds.
            _check_fused_tracking_early(
                tracker_config,
                list(kwargs["model_paths"]),
                None,
                centroid_only=bool(kwargs.get("centroid_only")),
            )
        predict_kwargs["tracker_config"] = tracker_config
    if kwargs.get("centroid_only"):
        predict_kwargs["centroid_only"] = True
    if kwargs.get("centroid_output") and kwargs["centroid_output"] != "instance":
        predict_kwargs["emit_centroid"] = kwargs["centroid_output"]
    filter_config = _build_filter_config(kwargs)
    if filter_config is not None:
        predict_kwargs["filter_config"] = filter_config

    if export_dir is not None:
        # Route to the exported ONNX/TRT runtime. Exported graphs bake peak
        # finding and refinement at export time, so the checkpoint-oriented
        # construction/prediction-time knobs are dropped (the baked values are
        # used, mirroring the old `export predict` command). The bottom-up
        # grouping knobs (min_instance_peaks/min_line_scores), max_instances,
        # emit_centroid, paf_workers, filtering, and tracking still apply and
        # are forwarded by run.predict() to from_export_dir.
        predict_kwargs["model_paths"] = None
        predict_kwargs["export_dir"] = export_dir
        predict_kwargs["runtime"] = (kwargs.get("runtime") or "auto").lower()
        for _k in (
            "peak_threshold",
            "centroid_threshold",
            "keypoint_threshold",
            "integral_refinement",
            "integral_patch_size",
            "anchor_part",
            "max_edge_length_ratio",
            "dist_penalty_weight",
            "n_points",
            "fg_threshold",
            "min_mask_area",
            "mask_cleanup_radius",
            "full_res_masks",
            "mask_output",
            "polygon_epsilon",
            "backbone_ckpt_path",
            "head_ckpt_path",
            "preprocess_config",
            "centroid_only",
        ):
            predict_kwargs.pop(_k, None)

    # `-o` naming a file the input reads its frames from (e.g. the input .pkg.slp)
    # would destroy those frames. Refuse before the model loads, not only in
    # `save_predictions` after the whole pass (which stays as the backstop).
    _refuse_overwriting_input_early(
        source, predict_kwargs["output_path"], predict_kwargs["output_format"]
    )

    if kwargs.get("gui"):
        predict_kwargs["progress_callback"] = _gui_progress_callback()
        if kwargs.get("tracking"):
            predict_kwargs["tracking_progress_callback"] = _gui_progress_callback()
        return _run_guarded(lambda: predict(source, **predict_kwargs), gui=True)

    # Non-gui: show a Rich progress bar (parity with legacy `track`'s default
    # progress UX; the plumbing was wired but no callback was attached). #583.
    progress = _make_rich_progress()
    predict_kwargs["progress_callback"] = _rich_task_callback(progress, "Predicting...")
    if kwargs.get("tracking"):
        predict_kwargs["tracking_progress_callback"] = _rich_task_callback(
            progress, "Tracking..."
        )
    try:
        return _run_guarded(lambda: predict(source, **predict_kwargs), gui=False)
    finally:
        progress.stop()


def _run_retrack_only(kwargs: dict, predictor_cls) -> "object":
    """Pure-tracking retrack of an existing ``.slp`` (no inference)."""
    from pathlib import Path

    import sleap_io as sio

    source_str, src_suffix, src_is_url = _resolve_data_path(kwargs["data_path"])
    remote_kwargs = _build_remote_kwargs(kwargs)
    if src_suffix != ".slp":
        raise click.UsageError(
            "Tracking-only mode requires --data_path to be a .slp file. "
            "Pass --model_paths to run inference + tracking."
        )

    labels = sio.load_slp(source_str, **remote_kwargs)

    # Scope by --video_index (raises on out-of-range, like the inference paths)
    # and/or --frames, carrying suggestions + the source provenance. #583.
    video_index = kwargs.get("video_index")
    frames = kwargs.get("frames")
    if video_index is not None:
        labels, _ = _scope_labels_to_video(labels, video_index, frames=frames)
    elif frames:
        wanted = set(frames)
        labels = sio.Labels(
            videos=labels.videos,
            skeletons=labels.skeletons,
            labeled_frames=[
                lf for lf in labels.labeled_frames if lf.frame_idx in wanted
            ],
            suggestions=labels.suggestions,
            provenance=dict(getattr(labels, "provenance", None) or {}),
        )

    # Resolved up front so an output that would overwrite the input's frame source
    # is refused before tracking runs, not only when the result is saved.
    output_path = kwargs.get("output_path") or _default_predictions_path(
        source_str, src_is_url
    )
    output_format = kwargs.get("output_format") or ("slp",)
    _refuse_overwriting_input_early(labels, output_path, output_format)

    from sleap_nn.inference.provenance import (
        build_tracking_only_provenance,
        carry_tracking_record,
    )
    from sleap_nn.inference.tracking import tracker_config_params

    tracker_config = _build_tracker_config(kwargs)
    _validate_tracker_config_early(
        tracker_config,
        data_path=source_str,
        model_paths=None,
        check_appearance=False,
    )

    if kwargs.get("gui"):
        tracking_cb = _gui_progress_callback()
    else:
        _progress = _make_rich_progress()
        tracking_cb = _rich_task_callback(_progress, "Tracking...")

    # Snapshot the input's provenance BEFORE tracking: tracking works in place and
    # replaces (or removes) the input's own `provenance["tracking"]` record, which
    # belongs in the output's input lineage.
    input_provenance = dict(getattr(labels, "provenance", None) or {})
    _start = datetime.now()
    _gui = bool(kwargs.get("gui"))
    try:
        out = _run_guarded(
            lambda: predictor_cls.retrack(
                labels,
                tracker_config,
                clean_empty_frames=bool(kwargs.get("no_empty_frames")),
                progress_callback=tracking_cb,
            ),
            gui=_gui,
        )
    finally:
        if not _gui:
            _progress.stop()
    # Attach tracking-only provenance to the retracked .slp (legacy parity —
    # apply_tracking leaves provenance to the caller, and the legacy track path
    # set it; the new retrack flow previously saved with empty provenance). #583.
    out.provenance = carry_tracking_record(
        build_tracking_only_provenance(
            input_provenance=input_provenance,
            input_path=source_str,
            start_time=_start,
            end_time=datetime.now(),
            tracking_params=tracker_config_params(tracker_config),
            frames_processed=len(out.labeled_frames),
        ),
        out,
        tracker_config,
    )
    from sleap_nn.inference.run import save_predictions

    save_predictions(
        out,
        output_path,
        output_format=output_format,
        embed=kwargs.get("embed") or "false",
        restore_source_videos=kwargs.get("restore_source_videos", False),
        save_embedding_vectors=kwargs.get("save_embedding_vectors"),
    )
    return out


def _gui_progress_callback():
    """Build a JSON-progress emitter compatible with the legacy ``--gui`` mode.

    Emits one JSON line per batch with ``n_processed`` / ``n_total`` /
    ``rate`` / ``eta``, throttled to ~4Hz so a downstream GUI process
    can read progress via stdout. Matches the format used by the legacy
    ``Predictor._predict_generator_gui`` exactly.
    """
    import json
    from time import time as _now

    state = {"start": _now(), "last": 0.0, "processed_at_last": 0}

    def cb(processed: int, total: int) -> None:
        now = _now()
        is_last = total > 0 and processed >= total
        if not is_last and (now - state["last"]) < 0.25:
            return
        elapsed = now - state["start"]
        rate = processed / elapsed if elapsed > 0 else 0.0
        remaining = max(total - processed, 0) if total > 0 else 0
        eta = remaining / rate if rate > 0 else 0.0
        print(
            json.dumps(
                {
                    "n_processed": processed,
                    "n_total": total if total > 0 else None,
                    "rate": round(rate, 1),
                    "eta": round(eta, 1),
                }
            ),
            flush=True,
        )
        state["last"] = now

    return cb


def _emit_gui_error(exc: BaseException) -> None:
    """Emit a structured JSON error line on stdout for a ``--gui`` consumer.

    Mirrors ``_gui_progress_callback``'s JSON-per-line schema (one line,
    flushed immediately) so a GUI's per-line stdout reader can tell an error
    line apart from a progress line with the same simple parse -- check for
    an ``"error"`` key instead of ``"n_processed"``. Without this, a runtime
    failure (CUDA OOM, corrupt checkpoint, mid-stream decode error, ...) was
    only ever visible as a raw Python traceback (Bug 2).
    """
    import json

    print(
        json.dumps({"error": True, "type": type(exc).__name__, "message": str(exc)}),
        flush=True,
    )


def _run_guarded(fn, *, gui: bool):
    """Call ``fn()``; in ``--gui`` mode, emit a structured error line before re-raising on failure.

    The exception always propagates unchanged (same type, same traceback,
    same non-zero exit code) -- this only adds a machine-readable signal on
    stdout ahead of it when ``gui=True``. Non-``--gui`` behavior (a raw
    traceback via loguru + Python's default handling) is intentionally
    unchanged; a human at a terminal doesn't need a JSON line.
    """
    try:
        return fn()
    except Exception as exc:
        if gui:
            _emit_gui_error(exc)
        raise


def _make_fps_column(window_s: float = 5.0, time_fn=None):
    """Build a Rich ``ProgressColumn`` that shows frames/sec over a window.

    Reports throughput across a trailing ``window_s``-second window rather
    than the whole-run average, so model warmup / the slow first batch don't
    drag the number down — it answers "how fast is it *now*". Renders ``--``
    until two samples spanning a positive interval accrue (#610).

    Samples ``(time, task.completed)`` on each ``render`` and keys the sample
    history by ``task.id``, so one shared column correctly serves both the
    "Predicting..." and "Tracking..." tasks. ``rich`` is imported lazily so
    it doesn't slow ``--help``. ``time_fn`` defaults to ``time.monotonic`` and
    is injectable for deterministic tests.
    """
    from collections import deque
    from time import monotonic

    from rich.progress import ProgressColumn
    from rich.text import Text

    if time_fn is None:
        time_fn = monotonic

    class _FPSColumn(ProgressColumn):
        def __init__(self, window_s: float, time_fn):
            super().__init__()
            self.window_s = window_s
            self._time_fn = time_fn
            self._samples: dict = {}  # task_id -> deque[(t, completed)]

        def render(self, task) -> Text:
            samples = self._samples.setdefault(task.id, deque())
            t = self._time_fn()
            samples.append((t, float(task.completed)))
            while samples and t - samples[0][0] > self.window_s:
                samples.popleft()
            if len(samples) < 2:
                return Text("-- fps", style="progress.percentage")
            (t0, c0), (t1, c1) = samples[0], samples[-1]
            dt = t1 - t0
            if dt <= 0:
                return Text("-- fps", style="progress.percentage")
            return Text(f"{(c1 - c0) / dt:5.1f} fps", style="progress.percentage")

    return _FPSColumn(window_s, time_fn)


def _make_rich_progress():
    """Build a shared Rich ``Progress`` instance for the ``predict`` path.

    Returns the ``Progress`` (already started) — the caller MUST stop it
    in a ``finally`` block. Counts are in frames (#610), so the windowed
    FPS column reads as true frames/sec.
    """
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    progress = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        TaskProgressColumn(),
        MofNCompleteColumn(),
        _make_fps_column(),
        "ETA:",
        TimeRemainingColumn(),
        "Elapsed:",
        TimeElapsedColumn(),
        refresh_per_second=4,
    )
    progress.start()
    return progress


def _rich_task_callback(progress, description: str = "Predicting..."):
    """Build a callback that drives a task on an existing ``Progress``.

    Returns ``callback(processed, total)`` that lazily adds a task with
    *description* to *progress* on the first call and updates it on each
    subsequent call. This allows the task to appear only when the phase
    actually starts (e.g. tracking may not run at all).
    """
    state: dict = {"task": None}

    def cb(processed: int, total: int) -> None:
        if state["task"] is None:
            state["task"] = progress.add_task(description, total=total or None)
        elif total and total > 0:
            progress.update(state["task"], total=total)
        progress.update(state["task"], completed=processed)

    return cb


def _rich_progress_callback():
    """Build a Rich progress bar callback for the non-``--gui`` ``predict`` path.

    Returns ``(callback, progress)`` where ``callback(processed, total)`` has
    the ``(processed_frames, total_frames)`` signature the new pipeline uses.
    The ``Progress`` is started immediately (so "Predicting..." shows right
    away) and the caller MUST stop it in a ``finally`` block so the bar closes
    cleanly on success or error. A ``total <= 0`` (length-less provider)
    renders an indeterminate bar.

    ``rich`` is imported lazily so it doesn't slow ``--help``; the columns
    mirror the legacy ``track`` look-and-feel without importing the heavy
    legacy ``predictors`` module. Progress is counted in frames, so the
    count / percent / ETA / FPS are all batch-size-invariant (#610). #583.
    """
    progress = _make_rich_progress()
    cb = _rich_task_callback(progress, "Predicting...")
    return cb, progress


def _run_stream_to_file(
    kwargs: dict,
    stream_to_file: str,
    write_interval: int,
    paf_workers: int,
) -> str:
    """Build a new ``Predictor`` and stream predictions to ``stream_to_file``.

    Handles the ``--stream-to-file`` CLI path (PR 12). Restricted to the
    cases the new factory + ``Predictor.predict_to_file`` support today:
    inference on a video / labels file, no tracking, default frame
    selection. Anything richer raises ``UsageError`` and points at the
    legacy ``--no-stream-to-file`` path.
    """
    if kwargs.get("tracking"):
        raise click.UsageError(
            "--stream-to-file does not yet support --tracking; tracking "
            "lands in a follow-up PR. Drop --stream-to-file to use the "
            "legacy in-memory path with tracking."
        )
    if kwargs.get("no_empty_frames"):
        raise click.UsageError(
            "--no_empty_frames is incompatible with --stream-to-file: "
            "streaming writes each batch to disk and cannot drop empty "
            "frames after the fact. Drop --stream-to-file to use it."
        )
    if any(str(f).lower() != "slp" for f in (kwargs.get("output_format") or ("slp",))):
        raise click.UsageError(
            "--stream-to-file only supports --output_format slp. Drop "
            "--stream-to-file to write analysis HDF5 via the in-memory path."
        )
    if (kwargs.get("embed") or "false") != "false" or (
        kwargs.get("restore_source_videos", False) is True
    ):
        raise click.UsageError(
            "--embed / --restore_source_videos are not supported with "
            "--stream-to-file: the incremental writer always saves with "
            "no embedding and .pkg.slp references preserved. Drop "
            "--stream-to-file to control embedding."
        )
    if not kwargs.get("model_paths"):
        raise click.UsageError("--model_paths is required for --stream-to-file.")
    data_path = kwargs.get("data_path")
    if not data_path:
        raise click.UsageError("--data_path is required for --stream-to-file.")
    # Warn early (before loading a model) if a label-status frame filter is
    # set for a non-`.slp` source -- same check as the in-memory flow.
    _early_source, _early_src_suffix, _ = _resolve_data_path(data_path)
    _warn_ignored_slp_filters_for_non_slp_source(kwargs, _early_src_suffix)
    # Streaming over a file the input reads its frames from (e.g. the input
    # .pkg.slp) destroys those frames, and this path has no save-time check.
    _refuse_overwriting_input_early(_early_source, stream_to_file, "slp")

    from pathlib import Path

    from sleap_nn.inference.predictor import Predictor
    from sleap_nn.inference.providers import LabelsProvider, VideoProvider

    factory_kwargs = {
        "device": _resolve_device(kwargs.get("device")),
        "peak_threshold": kwargs.get("peak_threshold", 0.2),
        "integral_refinement": kwargs.get("integral_refinement", "integral"),
        "integral_patch_size": kwargs.get("integral_patch_size", 5),
        "batch_size": kwargs.get("batch_size", 4),
        "max_instances": kwargs.get("max_instances"),
        "return_confmaps": False,
        "anchor_part": kwargs.get("anchor_part"),
        "paf_workers": paf_workers,
        # Bottom-up PAF grouping knobs (inert for non-bottom-up models). #583.
        "max_edge_length_ratio": kwargs.get("max_edge_length_ratio", 0.25),
        "dist_penalty_weight": kwargs.get("dist_penalty_weight", 1.0),
        "n_points": kwargs.get("n_points", 10),
        "min_instance_peaks": kwargs.get("min_instance_peaks", 0),
        "min_line_scores": kwargs.get("min_line_scores", 0.25),
        # Bottom-up segmentation knobs (inert for non-segmentation models).
        "fg_threshold": kwargs.get("fg_threshold", 0.5),
        "bbox_nms_iou": kwargs.get("bbox_nms_iou"),
        "min_mask_area": kwargs.get("min_mask_area", 0),
        "center_nms_kernel": kwargs.get("center_nms_kernel", 3),
        "mask_cleanup": kwargs.get("mask_cleanup", False),
        "mask_cleanup_radius": kwargs.get("mask_cleanup_radius", 0),
        "distance_gate_alpha": kwargs.get("distance_gate_alpha"),
        "merge_fragments": kwargs.get("merge_fragments", False),
        "merge_method": kwargs.get("merge_method", "greedy"),
        "merge_thresholds": kwargs.get("merge_thresholds", (0.85, 0.6, 0.4)),
        "merge_w_valley": kwargs.get("merge_w_valley", 1.0),
        "merge_w_offset": kwargs.get("merge_w_offset", 0.25),
        "merge_dilate": kwargs.get("merge_dilate", 1),
        "full_res_masks": kwargs.get("full_res_masks", False),
        "mask_output": kwargs.get("mask_output", "mask"),
        "polygon_epsilon": kwargs.get("polygon_epsilon", 0.01),
    }
    preprocess_config = _build_preprocess_config(kwargs)
    if preprocess_config is not None:
        factory_kwargs["preprocess_config"] = preprocess_config
    if kwargs.get("backbone_ckpt_path"):
        factory_kwargs["backbone_ckpt_path"] = kwargs["backbone_ckpt_path"]
    if kwargs.get("head_ckpt_path"):
        factory_kwargs["head_ckpt_path"] = kwargs["head_ckpt_path"]
    if kwargs.get("centroid_only"):
        factory_kwargs["centroid_only"] = True
    if kwargs.get("centroid_output") and kwargs["centroid_output"] != "instance":
        factory_kwargs["emit_centroid"] = kwargs["centroid_output"]
    filter_config = _build_filter_config(kwargs)
    if filter_config is not None:
        factory_kwargs["filter_config"] = filter_config

    predictor = Predictor.from_model_paths(kwargs["model_paths"], **factory_kwargs)

    source_str, src_suffix, _src_is_url = _resolve_data_path(data_path)
    remote_kwargs = _build_remote_kwargs(kwargs)
    video_index = kwargs.get("video_index")
    if src_suffix == ".slp" and video_index is not None:
        # Scope streaming inference to the requested video of a multi-video .slp:
        # its own frames (all, or --frames), filtered by the .slp's annotations.
        # --stream-to-file always runs real model inference (--model_paths is
        # required above), so this is the same selection as the in-memory flow.
        import sleap_io as sio

        slp_labels = sio.load_slp(source_str, **remote_kwargs)
        provider = _video_selection_from_kwargs(slp_labels, video_index, kwargs)
        if provider is None:
            # Embedded .pkg.slp video: scope to its labeled frames, as before.
            scoped, _target_video = _scope_labels_to_video(
                slp_labels,
                video_index,
                frames=kwargs.get("frames"),
                synthesize_missing=True,
            )
            provider = LabelsProvider(
                labels=scoped,
                batch_size=kwargs.get("batch_size", 4),
                only_labeled_frames=bool(kwargs.get("only_labeled_frames")),
                only_suggested_frames=bool(kwargs.get("only_suggested_frames")),
                exclude_user_labeled=bool(kwargs.get("exclude_user_labeled")),
                only_predicted_frames=bool(kwargs.get("only_predicted_frames")),
            )
    elif src_suffix == ".slp":
        provider = LabelsProvider(
            labels=source_str,
            batch_size=kwargs.get("batch_size", 4),
            only_labeled_frames=bool(kwargs.get("only_labeled_frames")),
            only_suggested_frames=bool(kwargs.get("only_suggested_frames")),
            exclude_user_labeled=bool(kwargs.get("exclude_user_labeled")),
            only_predicted_frames=bool(kwargs.get("only_predicted_frames")),
            remote_kwargs=remote_kwargs or None,
        )
    else:
        provider = VideoProvider(
            video=source_str,
            batch_size=kwargs.get("batch_size", 4),
            frames=kwargs.get("frames"),
            dataset=kwargs.get("video_dataset"),
            input_format=kwargs.get("video_input_format"),
            remote_kwargs=remote_kwargs or None,
        )

    if kwargs.get("gui"):
        return _run_guarded(
            lambda: predictor.predict_to_file(
                provider,
                path=str(stream_to_file),
                write_interval=write_interval,
                progress_callback=_gui_progress_callback(),
            ),
            gui=True,
        )

    # Non-gui: Rich progress bar, stopped cleanly in finally (#583).
    cb, progress = _rich_progress_callback()
    try:
        return _run_guarded(
            lambda: predictor.predict_to_file(
                provider,
                path=str(stream_to_file),
                write_interval=write_interval,
                progress_callback=cb,
            ),
            gui=False,
        )
    finally:
        progress.stop()


def _common_inference_options(f):
    """Apply the shared inference flag list to a click command function.

    Defined as a function-level decorator (not a ``@click.option`` chain)
    so the same option set can be reused across ``predict`` / ``track``
    without copy-pasting ~70 decorator lines per command.
    """
    decorators = [
        click.option(
            "--data_path",
            "-i",
            type=str,
            required=True,
            help="Path to data to predict on. A local Labels (.slp) file or video, "
            "or a remote URL (http(s)://, s3://, gs://, gcs://, az://, abfs://) to "
            "a .slp or video that sleap-io can load.",
        ),
        click.option(
            "--headers",
            type=str,
            default=None,
            help="JSON object of HTTP headers for a remote --data_path URL, e.g. "
            '\'{"Authorization": "Bearer <token>"}\'. Forwarded to the remote '
            "loader; ignored for local inputs.",
        ),
        click.option(
            "--stream-mode",
            "--stream_mode",
            "stream_mode",
            type=str,
            default=None,
            help="Remote read strategy for a --data_path URL (forwarded to "
            "sleap-io's loader, e.g. 'auto'/'stream'/'download'). Ignored for "
            "local inputs.",
        ),
        click.option(
            "--model_paths",
            "-m",
            multiple=True,
            help="Path to a trained model directory, or to its best.ckpt or training_config.yaml/.json file (all resolve to the model directory). Multiple models may be passed (each preceded by --model_paths).",
        ),
        click.option(
            "--output_path",
            "-o",
            type=str,
            default=None,
            help="Output filename. Defaults to '[data_path].slp'.",
        ),
        click.option(
            "--output_format",
            type=click.Choice(["slp", "analysis_h5"], case_sensitive=False),
            multiple=True,
            default=("slp",),
            help="Output format(s); repeat the flag to write several. 'slp' "
            "(SLEAP labels file, the default) and/or 'analysis_h5' (SLEAP "
            "Analysis HDF5, one '.analysis.h5' per video). E.g. "
            "'--output_format slp --output_format analysis_h5'.",
        ),
        click.option(
            "--embed",
            type=click.Choice(["auto", "true", "false"], case_sensitive=False),
            default="false",
            help="Image-embedding policy for a .slp output: 'false' (default; "
            "never embed, backreference source media), 'true' (embed images "
            "into a self-contained .pkg.slp-style file), or 'auto' (embed iff "
            "the input was itself an embedded .pkg.slp). Only applies to .slp output.",
        ),
        click.option(
            "--restore_source_videos/--no-restore_source_videos",
            "restore_source_videos",
            default=False,
            help="On a non-embedding .slp save, keep references to the input "
            ".pkg.slp file(s) (default) -- the pixels are already there, and "
            "the pre-embedding source video is often unavailable. Use "
            "--restore_source_videos to instead restore references to the "
            "original pre-embedding source video files, when recorded. "
            "Ignored when embedding.",
        ),
        click.option(
            "--save_embeddings",
            "save_embeddings",
            type=click.Choice(["none", "slp"]),
            default="none",
            help="Whether to persist each detection's appearance (re-ID) vector "
            "into the output .slp, attached to its source detection via the "
            "sleap-io `Embedding` data model. 'slp' writes the vectors; 'none' "
            "(default) does not. With an `embedding` model + --tracking, 'none' "
            "yields tracks only while 'slp' keeps the vectors alongside the "
            "assigned tracks; without --tracking, use 'slp' to write a .slp of "
            "appearance vectors. On a .slp input that ALREADY carries vectors (no "
            "embedding model needed), the vectors are preserved by default -- pass "
            "'none' explicitly to strip them, e.g. to retrack the same file at "
            "several --appearance_weight values and keep the chain going.",
        ),
        click.option(
            "--device",
            "-d",
            type=str,
            default="auto",
            help="Device on which to allocate tensors. One of (cpu, cuda, mps, auto).",
        ),
        click.option(
            "--batch_size",
            "-b",
            type=int,
            default=4,
            help="Number of frames to predict at a time.",
        ),
        click.option(
            "--runtime",
            type=click.Choice(["auto", "onnx", "tensorrt"], case_sensitive=False),
            default="auto",
            help="Runtime for an exported ONNX/TensorRT model directory passed to "
            "--model_paths. 'auto' prefers TensorRT, falls back to ONNX. Ignored "
            "for trained checkpoints.",
        ),
        click.option(
            "--tracking",
            "-t",
            is_flag=True,
            default=False,
            help="Run tracking on predicted instances.",
        ),
        click.option(
            "--centroid_only",
            "--centroid-only",
            "centroid_only",
            is_flag=True,
            default=False,
            help=(
                "Force centroid-only output. Required only when both a "
                "centroid and a centered-instance model are configured but "
                "you want centroid-only predictions; if model_paths contains "
                "a single centroid model, this mode is auto-detected. For a "
                "model trained on a multi-node skeleton, output collapses to a "
                "single-node 'centroid' skeleton; use --centroid-output to "
                "choose the representation."
            ),
        ),
        click.option(
            "--centroid-output",
            "--centroid_output",
            "centroid_output",
            type=click.Choice(["instance", "centroid", "both"]),
            default="instance",
            show_default=True,
            help=(
                "Centroid-only output representation: 'instance' (single-node "
                "PredictedInstance, loadable by the current frontend), "
                "'centroid' (sio.PredictedCentroid in LabeledFrame.centroids), "
                "or 'both'. Only meaningful for centroid-only models."
            ),
        ),
        click.option(
            "-n",
            "--max_instances",
            type=int,
            default=None,
            help="Cap on instances per frame for multi-instance models.",
        ),
        click.option(
            "--backbone_ckpt_path",
            type=str,
            default=None,
            help="Override path to the backbone .ckpt.",
        ),
        click.option(
            "--head_ckpt_path",
            type=str,
            default=None,
            help="Override path to the head .ckpt.",
        ),
        click.option("--max_height", type=int, default=None),
        click.option("--max_width", type=int, default=None),
        click.option("--input_scale", type=float, default=None),
        click.option(
            "--ensure_rgb/--no-ensure_rgb",
            default=None,
            help="Force RGB conversion of input frames.",
        ),
        click.option(
            "--ensure_grayscale/--no-ensure_grayscale",
            default=None,
            help="Force grayscale conversion of input frames.",
        ),
        click.option("--anchor_part", type=str, default=None),
        click.option("--only_labeled_frames", is_flag=True, default=False),
        click.option("--only_suggested_frames", is_flag=True, default=False),
        click.option("--exclude_user_labeled", is_flag=True, default=False),
        click.option("--only_predicted_frames", is_flag=True, default=False),
        click.option("--no_empty_frames", is_flag=True, default=False),
        click.option("--video_index", type=int, default=None),
        click.option("--video_dataset", type=str, default=None),
        click.option(
            "--video_input_format",
            type=str,
            default="channels_last",
        ),
        click.option(
            "--frames",
            type=str,
            default="",
            help="Frame list as comma-separated or hyphen range (e.g., 1,2,3 or 1-3).",
        ),
        click.option("--integral_patch_size", type=int, default=5),
        click.option("--max_edge_length_ratio", type=float, default=0.25),
        click.option("--dist_penalty_weight", type=float, default=1.0),
        click.option("--n_points", type=int, default=10),
        click.option("--min_instance_peaks", type=float, default=0),
        click.option("--min_line_scores", type=float, default=0.25),
        click.option(
            "--bbox_nms_iou",
            "--bbox-nms-iou",
            "bbox_nms_iou",
            type=float,
            default=None,
            help="Class-wise IoU-NMS threshold for bounding-box detectors "
            "(bbox_centernet / bbox_ssd). Default: 0.45 for SSD, off for "
            "CenterNet; 1.0 disables it. --peak_threshold is the detection "
            "score threshold and --max_instances the per-frame cap.",
        ),
        click.option(
            "--fg_threshold",
            "--fg-threshold",
            "fg_threshold",
            type=float,
            default=0.5,
            help="Foreground probability threshold for binarizing the "
            "segmentation map (bottom-up / semantic segmentation models).",
        ),
        click.option(
            "--min_mask_area",
            "--min-mask-area",
            "min_mask_area",
            type=int,
            default=0,
            help="Drop predicted masks smaller than this many original-image "
            "pixels to suppress over-segmentation (bottom-up / semantic "
            "segmentation models). 0 disables. Measured at output-stride "
            "resolution and converted from original-pixel units.",
        ),
        click.option(
            "--center_nms_kernel",
            "--center-nms-kernel",
            "center_nms_kernel",
            type=int,
            default=3,
            help="Odd window size for instance-center peak NMS; larger values "
            "merge nearby duplicate centers (bottom-up segmentation models "
            "only).",
        ),
        click.option(
            "--mask_cleanup/--no-mask_cleanup",
            "--mask-cleanup/--no-mask-cleanup",
            "mask_cleanup",
            default=False,
            help="Keep only each predicted mask's largest connected component "
            "and fill interior holes (bottom-up segmentation models only).",
        ),
        click.option(
            "--mask_cleanup_radius",
            "--mask-cleanup-radius",
            "mask_cleanup_radius",
            type=int,
            default=0,
            help="When --mask_cleanup is set, also apply a morphological "
            "open->close with an elliptical kernel of this radius (output-stride "
            "pixels) before keep-largest-CC/fill-holes; despeckles and closes "
            "pinholes. 0 keeps the keep-largest+fill behavior (bottom-up "
            "segmentation models only).",
        ),
        click.option(
            "--distance_gate_alpha",
            "--distance-gate-alpha",
            "distance_gate_alpha",
            type=float,
            default=None,
            help="Adaptive distance-gate strength: drop foreground pixels whose "
            "offset-predicted center exceeds alpha*sqrt(area/pi) from their "
            "assigned center (a scale-free stray-pixel/phantom filter). Unset "
            "(default) keeps the byte-for-byte argmin grouping. Recommended "
            "dense-mice value ~0.5; opt-in, validate before relying on it "
            "(bottom-up segmentation models only).",
        ),
        click.option(
            "--merge_fragments/--no-merge_fragments",
            "--merge-fragments/--no-merge-fragments",
            "merge_fragments",
            default=False,
            help="Re-fuse over-segmented animal halves via a region-adjacency "
            "graph (center-valley + offset-agreement affinity) before "
            "--min_mask_area, while keeping genuinely-touching distinct animals "
            "apart. Default off (byte-for-byte today). Pairs well with "
            "--distance_gate_alpha and --min_mask_area (bottom-up segmentation "
            "models only).",
        ),
        click.option(
            "--merge_method",
            "--merge-method",
            "merge_method",
            type=click.Choice(["greedy", "multicut"]),
            default="greedy",
            help="Fragment-merge agglomeration: 'greedy' (default, recommended "
            "decreasing-threshold) or 'multicut' (greedy correlation "
            "clustering). Inert unless --merge_fragments (bottom-up segmentation "
            "models only).",
        ),
        click.option(
            "--merge_thresholds",
            "--merge-thresholds",
            "merge_thresholds",
            type=_CommaFloatTuple(),
            default=(0.85, 0.6, 0.4),
            help="Comma-separated decreasing affinity thresholds for the greedy "
            "fragment-merge phases (default '0.85,0.6,0.4'). Keep the floor >=0.4 "
            "to avoid bridging distinct animals. Inert unless --merge_fragments "
            "(bottom-up segmentation models only).",
        ),
        click.option(
            "--merge_w_valley",
            "--merge-w-valley",
            "merge_w_valley",
            type=float,
            default=1.0,
            help="Weight on the center-valley ridge term of the fragment-merge "
            "affinity (load-bearing: protects touching animals). Default 1.0. "
            "Inert unless --merge_fragments (bottom-up segmentation models only).",
        ),
        click.option(
            "--merge_w_offset",
            "--merge-w-offset",
            "merge_w_offset",
            type=float,
            default=0.25,
            help="Weight on the offset-agreement term of the fragment-merge "
            "affinity. Default 0.25. Inert unless --merge_fragments (bottom-up "
            "segmentation models only).",
        ),
        click.option(
            "--merge_dilate",
            "--merge-dilate",
            "merge_dilate",
            type=int,
            default=1,
            help="Dilation iterations for the fragment-merge contact test "
            "(output-stride pixels). Default 1; clamped to a minimum of 1 "
            "(the grouped masks are mutually exclusive, so a zero-dilation "
            "contact test would disable the merge). Inert unless "
            "--merge_fragments (bottom-up segmentation models only).",
        ),
        click.option(
            "--full_res_masks/--no-full_res_masks",
            "--full-res-masks/--no-full-res-masks",
            "full_res_masks",
            default=False,
            help="Encode predicted segmentation masks at full ORIGINAL "
            "resolution instead of the model output-stride grid. Default off: "
            "output-stride encoding is ~stride^2 smaller and lossless at model "
            "resolution, carrying the image mapping via sio scale/offset. Enable "
            "only for legacy consumers that read mask.data assuming original "
            "resolution (bottom-up segmentation models only).",
        ),
        click.option(
            "--mask_output",
            "--mask-output",
            "mask_output",
            type=click.Choice(["mask", "polygon", "both"]),
            default="mask",
            help="Predicted-mask output representation: 'mask' (RLE "
            "SegmentationMask in LabeledFrame.masks, default), 'polygon' "
            "(Douglas-Peucker-simplified sio.PredictedROI into LabeledFrame.rois "
            "only), or 'both' (exact mask + simplified ROI for interop). "
            "polygon/both are CPU-heavy on noisy masks (cost scales with RLE-run "
            "count) — pair with --mask_cleanup. Bottom-up / semantic segmentation "
            "models.",
        ),
        click.option(
            "--polygon_epsilon",
            "--polygon-epsilon",
            "polygon_epsilon",
            type=float,
            default=0.01,
            help="Douglas-Peucker simplification tolerance for --mask_output "
            "polygon/both, as a fraction of each contour's perimeter. Larger = "
            "coarser polygons. 0 disables simplification (bottom-up segmentation "
            "models only).",
        ),
        # SAM prompted-mask producer ───────────────────────────────────
        # These produce masks from the poses already in the input .slp; no
        # trained seg model is involved, so they are mutually exclusive with
        # --model_paths (do not pass it). Inert unless --mask_backend is set.
        click.option(
            "--mask_backend",
            "--mask-backend",
            "mask_backend",
            type=click.Choice(["sam", "sam3"], case_sensitive=False),
            default=None,
            help="Produce instance masks from the poses in the input .slp using "
            "a SAM backend: 'sam' (SAM1, needs --sam_checkpoint) or 'sam3' "
            "(needs --sam3_model_id). No trained segmentation model is used, so "
            "do not pass --model_paths. Off by default.",
        ),
        click.option(
            "--sam_checkpoint",
            "--sam-checkpoint",
            "sam_checkpoint",
            type=str,
            default=None,
            help="Path to the SAM1 checkpoint (required for --mask_backend sam).",
        ),
        click.option(
            "--sam_model_type",
            "--sam-model-type",
            "sam_model_type",
            type=str,
            default="vit_h",
            help="SAM1 model registry key (e.g. 'vit_h', 'vit_l', 'vit_b').",
        ),
        click.option(
            "--sam_prompt_mode",
            "--sam-prompt-mode",
            "sam_prompt_mode",
            type=click.Choice(["pose", "centroid", "box"]),
            default="pose",
            help="How poses are turned into SAM prompts: 'pose' (all keypoints "
            "as point prompts), 'centroid' (single anchor point), or 'box' "
            "(instance bounding box).",
        ),
        click.option(
            "--sam_anchor_ind",
            "--sam-anchor-ind",
            "sam_anchor_ind",
            type=int,
            default=None,
            help="Centroid anchor node index for --sam_prompt_mode centroid.",
        ),
        click.option(
            "--sam_disjointify_masks",
            "--sam-disjointify-masks",
            "sam_disjointify_masks",
            is_flag=True,
            default=False,
            help="Make per-frame masks disjoint when a frame has >=2 instances.",
        ),
        click.option(
            "--sam3_model_id",
            "--sam3-model-id",
            "sam3_model_id",
            type=str,
            default="facebook/sam3",
            help="Hugging Face model id for the gated SAM3 backend "
            "(--mask_backend sam3).",
        ),
        click.option(
            "--overlay_path",
            "--overlay-path",
            "overlay_path",
            type=str,
            default=None,
            help="Optional review-overlay PNG path written by the SAM mask "
            "path (--mask_backend).",
        ),
        click.option(
            "--queue_maxsize",
            type=int,
            default=32,
            hidden=True,
            help="[no-op] Retained for CLI compatibility; ignored by the new "
            "inference pipeline (which has no frame-buffer queue). The legacy "
            "`sleap-nn track` path still honors it.",
        ),
        click.option("--crop_size", type=int, default=None),
        click.option(
            "--peak_threshold",
            "--peak-conf-threshold",
            "peak_threshold",
            type=float,
            default=0.2,
            help="Min confmap value for a valid peak. --peak-conf-threshold is an alias.",
        ),
        click.option(
            "--centroid_peak_threshold",
            type=float,
            default=None,
            help=(
                "Override peak threshold for the centroid stage only (top-down). "
                "Defaults to --peak_threshold when not set."
            ),
        ),
        click.option("--filter_overlapping", is_flag=True, default=False),
        click.option(
            "--filter_overlapping_method",
            type=click.Choice(["iou", "oks"]),
            default="iou",
        ),
        click.option("--filter_overlapping_threshold", type=float, default=0.8),
        click.option("--filter_min_visible_nodes", type=int, default=0),
        click.option("--filter_min_visible_node_fraction", type=float, default=0.0),
        click.option("--filter_min_mean_node_score", type=float, default=0.0),
        click.option("--filter_min_instance_score", type=float, default=0.0),
        click.option(
            "--filter_min_centroid_distance",
            type=float,
            default=0.0,
            help=(
                "Centroid-only de-duplication radius in pixels: greedy NMS drops "
                "any predicted centroid within this distance of a higher-scored "
                "kept centroid. 0 disables. Use this (not --filter_overlapping) "
                "for centroid-only output, since bbox-IoU/OKS are degenerate for "
                "single points."
            ),
        ),
        click.option("--integral_refinement", type=str, default="integral"),
        click.option("--tracking_window_size", type=int, default=5),
        click.option("--min_new_track_points", type=int, default=0),
        # Default None (not "fixed_window") so _build_tracker_config can tell
        # "user didn't choose a method" from an explicit choice, and default it
        # to local_queues when --max_tracks is set (#582).
        click.option("--candidates_method", type=str, default=None),
        click.option("--min_match_points", type=int, default=0),
        # Default None (not "keypoints"/"oks") so _build_tracker_config can tell
        # "user left the default" from an explicit choice, mirroring the
        # --candidates_method default=None pattern. A single-node / centroid
        # model then resolves these to centroids/euclidean_dist in
        # apply_tracking (#586).
        click.option(
            "--features",
            type=str,
            default=None,
            help="Feature for track association: one of keypoints, centroids, "
            "bboxes, masks, embeddings. Left unset, single-node/centroid models "
            "resolve to 'centroids' and bottom-up segmentation (mask) models to "
            "'masks'. 'embeddings' tracks by the 'reid' appearance vector attached "
            "by the embedding model (auto-pairs with cosine_sim).",
        ),
        click.option(
            "--scoring_method",
            type=str,
            default=None,
            help="Track association scoring method: one of oks, cosine_sim, "
            "iou, mask_iou, euclidean_dist. Left unset, single-node/centroid "
            "models resolve to 'euclidean_dist', segmentation (mask) models "
            "to 'mask_iou', and '--features embeddings' to 'cosine_sim'.",
        ),
        click.option(
            "--appearance_weight",
            type=float,
            default=0.0,
            help="Weight given to APPEARANCE (re-ID embedding cosine similarity) when "
            "blended with the geometric association score: 0.0 (default) is geometry "
            "only and inert; 0.15-0.5 uses appearance as a complementary cue, which "
            "beats either alone on dense continuous video; 1.0 is appearance only. "
            "Requires embeddings in the input (see --save_embeddings) -- a run with "
            "none is rejected, not silently degraded. Pair it with a GEOMETRIC "
            "--features ('--features embeddings' is already appearance-only) and a "
            "BOUNDED --scoring_method (oks / iou / mask_iou); 'euclidean_dist' is "
            "negative pixels, so it must be mapped through a bounded kernel first "
            "-- pass --euclidean_scale, which centroid-only (single-node) "
            "detections need since they auto-select that metric.",
        ),
        click.option(
            "--euclidean_scale",
            type=float,
            default=None,
            help="Length scale in PIXELS for blending appearance into a "
            "`euclidean_dist` geometric score: the geometric similarity becomes "
            "exp(-distance / scale), a bounded (0, 1] value comparable to the "
            "appearance cosine. Pass the typical inter-frame displacement of one "
            "animal (the distance at which geometric similarity falls to ~0.37); "
            "`sleap_nn.evaluation.motion_diagnostic` reports it as `median_step_px` "
            "when run on TRACKED labels (tracked ground truth, or a geometry-only "
            "tracking run). REQUIRED with "
            "--appearance_weight when the score is `euclidean_dist` (which is what "
            "single-node/centroid detections auto-select) and ignored otherwise -- "
            "a geometry-only distance run is unaffected.",
        ),
        click.option("--scoring_reduction", type=str, default="mean"),
        click.option("--robust_best_instance", type=float, default=1.0),
        click.option("--track_matching_method", type=str, default="hungarian"),
        click.option(
            "--max_tracks",
            type=int,
            default=None,
            help="Classic tracker: cap on the number of tracks (forces "
            "--candidates_method local_queues). MOT trackers: the known number of "
            "animals; identity linking then leaves at most this many tracks per "
            "video (closed set).",
        ),
        click.option("--use_flow", is_flag=True, default=False),
        click.option("--of_img_scale", type=float, default=1.0),
        click.option("--of_window_size", type=int, default=21),
        click.option("--of_max_levels", type=int, default=3),
        click.option("--use_kalman", is_flag=True, default=False),
        click.option(
            "--kf_track_features",
            type=click.Choice(["centroid", "keypoints"]),
            default="centroid",
        ),
        click.option(
            "--oks_stddev",
            type=float,
            default=None,
            help="Per-keypoint spread of the OKS track-association score. Unset: "
            "0.025 for the classic tracker, 0.1 for the MOT trackers, which read "
            "it only with OKS scoring (--scoring_method oks).",
        ),
        click.option("--kf_init_frame_count", type=int, default=10),
        click.option(
            "--kf_node_indices", type=str, default=None, callback=_parse_int_list
        ),
        click.option("--kf_reset_gap_size", type=int, default=5),
        click.option("--post_connect_single_breaks", is_flag=True, default=False),
        click.option("--tracking_target_instance_count", type=int, default=None),
        click.option("--tracking_pre_cull_to_target", type=int, default=0),
        click.option("--tracking_pre_cull_iou_threshold", type=float, default=0),
        click.option("--tracking_clean_instance_count", type=int, default=0),
        click.option("--tracking_clean_iou_threshold", type=float, default=0),
        # Modern MOT trackers (`--tracker` other than classic) ────────────
        # All default None ("the tracker's preset") so that `_build_tracker_config`
        # passes only what the user set.
        click.option(
            "--tracker",
            type=click.Choice(_TRACKER_CHOICES),
            default="classic",
            show_default=True,
            help="Tracker run by --tracking. 'classic': the candidate-window "
            "tracker (--tracking_window_size, --candidates_method, ...). Modern MOT "
            "trackers (Kalman motion model; they never drop a detection): sort, "
            "bytetrack, ocsort associate by geometry; deepsort, strongsort, "
            "botsort, deepocsort also by appearance and need re-ID vectors from an "
            "`embedding` model. Tune them with --track_buffer ... --mot_param.",
        ),
        click.option(
            "--track_buffer",
            type=int,
            default=None,
            help="MOT trackers: frames a lost track is kept for re-association "
            "(preset: 30).",
        ),
        click.option(
            "--min_hits",
            type=int,
            default=None,
            help="MOT trackers: matches before a new track is confirmed; its "
            "earlier detections are then labeled too (preset: 2-3 per tracker).",
        ),
        click.option(
            "--track_high_threshold",
            type=float,
            default=None,
            help="MOT trackers: detection score (mean point confidence) above "
            "which a detection is high-confidence, in [0, 1].",
        ),
        click.option(
            "--track_low_threshold",
            type=float,
            default=None,
            help="MOT trackers: detections scoring at or below this are ignored, "
            "in [0, 1].",
        ),
        click.option(
            "--new_track_threshold",
            type=float,
            default=None,
            help="MOT trackers: minimum score for an unmatched detection to start "
            "a track, in [0, 1].",
        ),
        click.option(
            "--min_match_similarity",
            type=float,
            default=None,
            help="MOT trackers: minimum geometric similarity (IoU / OKS / centroid, "
            "in [0, 1]) for a first-stage match.",
        ),
        click.option(
            "--appearance_threshold",
            type=_AppearanceThreshold(),
            default=None,
            help="Appearance MOT trackers: minimum cosine similarity for appearance "
            "to support a match, or 'auto' (the default preset's): calibrated per "
            "video, and appearance is not used where it does not tell the animals "
            "apart.",
        ),
        click.option(
            "--link_tracklets",
            is_flag=True,
            default=False,
            help="Identity linking after tracking each video (any --tracker): "
            "re-joins tracks broken by gaps or occlusions (by appearance where the "
            "video's calibration allows, else by position) and corrects identity "
            "swaps at crossings. Implied by --max_tracks with a MOT tracker.",
        ),
        click.option(
            "--mot_param",
            "mot_param",
            multiple=True,
            metavar="KEY=VALUE",
            help="MOT trackers: override any MOT parameter (repeatable), e.g. "
            "--mot_param preset=paper --mot_param gallery_size=50, "
            "normalize_scores=false (score thresholds on raw scores), or "
            "body_size=40 (animal size in px for centroid-only models) (see "
            "sleap_nn.tracking.mot.params.MOTParams). With --tracker classic, only "
            "time_base and body_size, with --link_tracklets (read by the identity "
            "linking).",
        ),
        click.option("--gui", is_flag=True, default=False),
        # New PR 10 flags ─────────────────────────────────────────────
        click.option(
            "--paf-workers",
            "paf_workers",
            type=int,
            default=0,
            help=(
                "Number of CPU worker processes for the bottom-up PAF "
                "grouping stage. 0 (default) keeps grouping in-process. "
                "Replaces --cpu-workers (kept as an alias for one cycle)."
            ),
        ),
        click.option(
            "--cpu-workers",
            "cpu_workers",
            type=int,
            default=None,
            help="[DEPRECATED] Use --paf-workers.",
        ),
        click.option(
            "--stream-to-file",
            "stream_to_file",
            type=str,
            default=None,
            help=(
                "Write predictions to this .slp path via the new "
                "Predictor.predict_to_file flow. Heavy intermediate tensors "
                "(confmaps/PAFs) are dropped per batch; the .slp is written "
                "once at the end."
            ),
        ),
        click.option(
            "--write-interval",
            "write_interval",
            type=int,
            default=None,
            help=(
                "How often (in frames) to slim+convert buffered outputs to "
                "LabeledFrames when --stream-to-file is set. Default: 500."
            ),
        ),
    ]
    for d in reversed(decorators):
        f = d(f)
    return f


@cli.command(context_settings=CONTEXT_SETTINGS)
@_common_inference_options
def predict(**kwargs):
    """Run inference on videos or labels files.

    Single unified inference entry point.
    """
    return _run_inference_impl(**kwargs)


@cli.command("infer", hidden=True, context_settings=CONTEXT_SETTINGS)
@_common_inference_options
def infer(**kwargs):
    """Deprecated alias for ``predict``. Use ``sleap-nn predict`` instead."""
    import warnings

    warnings.warn(
        "sleap-nn infer is deprecated. Use sleap-nn predict instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return _run_inference_impl(**kwargs)


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--ground_truth_path",
    "-g",
    type=str,
    required=True,
    help="Path to ground truth labels file (.slp)",
)
@click.option(
    "--predicted_path",
    "-p",
    type=str,
    required=True,
    help="Path to predicted labels file (.slp)",
)
@click.option("--save_metrics", "-s", type=str, help="Path to save metrics (.npz file)")
@click.option(
    "--oks_stddev",
    type=float,
    default=0.025,
    help="Standard deviation for OKS calculation",
)
@click.option("--oks_scale", type=float, help="Scale factor for OKS calculation")
@click.option(
    "--match_threshold", type=float, default=0.0, help="Threshold for instance matching"
)
@click.option(
    "--user_labels_only/--no-user_labels_only",
    default=True,
    help="Only evaluate user-labeled frames (default: True)",
)
@click.option(
    "--match_method",
    type=click.Choice(["oks", "centroid", "mask", "semantic", "bbox", "auto"]),
    default="auto",
    help=(
        "Matching method: 'oks' (full-skeleton), 'centroid' (single-point "
        "pixel-distance), 'mask' (instance-segmentation mask IoU), 'semantic' "
        "(whole-frame foreground IoU/clDice, no matching), 'bbox' (COCO box AP of "
        "predicted bounding boxes), or 'auto' (bbox when the predictions are "
        "boxes only, centroid when the prediction skeleton is single-node). "
        "Default: auto."
    ),
)
@click.option(
    "--bbox_source",
    type=click.Choice(["auto", "bboxes", "instances", "masks"]),
    default="auto",
    help=(
        "bbox mode: where ground-truth boxes come from (user boxes, or derived "
        "from poses / masks). Pass the model's data_config.bbox_source."
    ),
)
@click.option(
    "--bbox_padding",
    type=float,
    default=0.0,
    help=(
        "bbox mode: pixels of padding on ground-truth boxes derived from poses or "
        "masks (when the ground truth has no boxes). Pass the model's "
        "data_config.bbox_padding."
    ),
)
@click.option(
    "--anchor_part",
    type=str,
    default=None,
    help=(
        "GT skeleton node used to compute ground-truth centroids in centroid "
        "mode. Defaults to the mean of visible nodes when absent (#586)."
    ),
)
@click.option(
    "--centroid_method",
    type=click.Choice(["center_of_mass", "bbox_center", "geometric_median", "anchor"]),
    default=None,
    help=(
        "How ground-truth centroids are derived in centroid mode. Defaults to "
        "the anchor node when --anchor_part is given, else the mean of visible "
        "nodes. Pass the value the model was TRAINED with (its "
        "head_configs.centroid.confmaps.centroid_method) so the metric compares "
        "like with like (#586)."
    ),
)
@click.option(
    "--centroid_fallback",
    type=click.Choice(["center_of_mass", "bbox_center", "geometric_median"]),
    default=None,
    help=(
        "Reduce method used when the --anchor_part node is not visible. "
        "Default: center_of_mass."
    ),
)
def eval(**kwargs):
    """Run evaluation workflow."""
    from sleap_nn.evaluation import run_evaluation

    run_evaluation(**kwargs)


@cli.command(context_settings=CONTEXT_SETTINGS)
def system():
    """Display system information and GPU status.

    Shows Python version, platform, PyTorch version, CUDA availability,
    driver version with compatibility check, GPU details, and package versions.
    """
    from sleap_nn.system_info import print_system_info

    print_system_info()


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("path", type=str)
def info(path):
    """Display model configuration and evaluation metrics.

    PATH can be a trained model directory or a training config YAML file.

    If a model directory is given, shows config summary, training results,
    evaluation metrics (if available), and files in the directory.

    If a config YAML is given, shows only the config summary.

    Examples:
        sleap-nn info path/to/model_dir

        sleap-nn info path/to/training_config.yaml
    """
    from sleap_nn.model_info import print_model_info

    print_model_info(path)


def _require_finite(ctx, param, value):
    """Click callback: refuse ``nan`` / ``inf`` (a ``FloatRange`` lets them through)."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"must be a finite number, got {value!r}.")
    return value


@cli.command("eval-tracking", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--ground_truth_path",
    "-g",
    type=str,
    required=True,
    help="Path to tracked ground truth labels file (.slp)",
)
@click.option(
    "--predicted_path",
    "-p",
    type=str,
    required=True,
    help="Path to tracked predicted labels file (.slp)",
)
@click.option(
    "--save_metrics", "-s", type=str, help="Path to save metrics (.json file)"
)
@click.option(
    "--carrier",
    type=click.Choice(["auto", "pose", "mask"]),
    default="auto",
    help=(
        "What carries identity: 'pose' (instances, matched by OKS, or by "
        "centroid distance for single-node skeletons), 'mask' (segmentation "
        "masks, matched by IoU), or 'auto' (the carrier the prediction's tracks "
        "are on -- the one with more tracked detections, ties to pose). A "
        "detection without a track takes the track of its linked instance or "
        "mask. Default: auto."
    ),
)
@click.option(
    "--match_threshold",
    type=float,
    default=None,
    help=(
        "Matching threshold for a predicted detection to count as matched to a "
        "ground-truth one: minimum OKS (pose) or mask IoU (mask), or -- for "
        "single-node (centroid) skeletons, which match by distance -- the "
        "maximum centroid distance in PIXELS. Default: 0.5 for OKS/IoU, 50 px "
        "for distance (as in `sleap-nn eval --match_method centroid`)."
    ),
)
@click.option(
    "--mt_threshold",
    type=float,
    default=0.8,
    help=(
        "Coverage at or above which a GT trajectory is mostly-tracked (MT). "
        "Legacy identity block only; the TrackEval `mot` block always uses its "
        "fixed MT > 0.8."
    ),
)
@click.option(
    "--ml_threshold",
    type=float,
    default=0.2,
    help=(
        "Coverage below which a GT trajectory is mostly-lost (ML). Legacy "
        "identity block only; the TrackEval `mot` block always uses its fixed "
        "ML < 0.2."
    ),
)
@click.option(
    "--user_labels_only/--no-user_labels_only",
    default=False,
    help=(
        "Drop predicted detections from the GROUND-TRUTH side (default: False, "
        "unlike `sleap-nn eval`). Tracked ground truth is usually predicted "
        "poses with tracks assigned afterwards, so filtering by type would "
        "discard it. Pass this only for user-labeled GT that also carries "
        "stale predictions from an earlier run."
    ),
)
@click.option(
    "--global_identity/--per_video_identity",
    default=False,
    help=(
        "Score track names as GLOBAL identities shared across videos (names "
        "from a multi-class ID model, or a project proofread with one name per "
        "animal): a trajectory then spans every video, and keeping an animal's "
        "name from one video to the next is part of the score. Default: per "
        "video -- each (video, track name) is its own trajectory, since "
        "trackers name tracks per video."
    ),
)
@click.option(
    "--oks_stddev",
    type=click.FloatRange(min=0, min_open=True),
    default=0.025,
    show_default=True,
    callback=_require_finite,
    help=(
        "Per-keypoint spread of the OKS used to match poses (both the identity "
        "and the MOT metrics); a finite number > 0. Larger values match looser "
        "poses. Ignored for masks and single-node skeletons."
    ),
)
def eval_tracking(**kwargs):
    """Evaluate identity persistence of a tracked prediction.

    Scores whether tracks keep the right identity across frames -- ID switches,
    IDF1, MT/PT/ML, fragmentation and track purity -- against tracked ground
    truth. Complements `sleap-nn eval`, which scores detection and localization
    but says nothing about identity.

    Also reports TrackEval-faithful CLEAR-MOT, IDF1 and HOTA (the "mot" block of
    the saved JSON), numbers comparable to published MOT results. Where both
    blocks name the same metric they can differ: the legacy identity block uses
    sleap-nn's own definitions.

    Both files must be tracked: ground truth needs `track` set on the detections
    to score, and the prediction needs tracks from `sleap-nn track` or
    `sleap-nn predict -t`. Exits non-zero when nothing is scoreable (no tracked
    prediction, no frame in common, or no tracked ground truth).

    Examples:
        sleap-nn eval-tracking -g gt.slp -p tracked.slp

        sleap-nn eval-tracking -g gt.slp -p tracked.slp --carrier mask -s ids.json
    """
    from sleap_nn.evaluation import NothingToScoreError, run_identity_evaluation

    try:
        run_identity_evaluation(**kwargs, raise_if_empty=True)
    except NothingToScoreError as e:
        raise click.ClickException(str(e)) from e


def _register_export_commands():
    """Lazily import and register the export command."""
    from sleap_nn.export.cli import export as export_command

    cli.add_command(export_command)


@cli.command(context_settings=CONTEXT_SETTINGS)
@click.argument("slp_path", type=str, required=False, default=None)
@click.option(
    "--output",
    "-o",
    type=str,
    default=None,
    help="Output path for the generated config file(s).",
)
@click.option(
    "--auto",
    is_flag=True,
    default=False,
    help="Auto-generate config without interactive TUI.",
)
@click.option(
    "--pipeline",
    type=click.Choice(
        [
            "single_instance",
            "centroid",
            "bottomup",
            "topdown",
            "multi_class_bottomup",
            "multi_class_topdown",
            "bbox_centernet",
            "bbox_ssd",
            "topdown_bbox_centernet",
            "topdown_bbox_ssd",
        ]
    ),
    default=None,
    help=(
        "Override model pipeline type. 'centroid' generates a single STANDALONE "
        "centroid config (one point per animal); 'topdown' generates paired "
        "centroid + centered_instance configs; 'bbox_centernet' / 'bbox_ssd' "
        "generate a bounding-box detector trained on boxes derived from the poses; "
        "'topdown_bbox_centernet' / 'topdown_bbox_ssd' generate paired detector + "
        "centered_instance configs whose crops are the detected boxes "
        "(crop_mode: bbox)."
    ),
)
@click.option(
    "--show-yaml",
    is_flag=True,
    default=False,
    help="Print generated YAML to stdout.",
)
def config(
    slp_path,
    output,
    auto,
    pipeline,
    show_yaml,
):
    """Generate training configuration for a SLEAP file.

    **[Experimental]** This feature is experimental and may change in future releases.

    Launch an interactive TUI to configure training, or use --auto to
    generate a config with smart defaults based on your data.

    Examples:
        # Interactive TUI
        sleap-nn config labels.slp

        # Auto-generate config
        sleap-nn config labels.slp --auto -o config.yaml

        # Auto-generate with overrides
        sleap-nn config labels.slp --auto --pipeline bottomup

        # Box detector + box-scaled centered-instance pair
        sleap-nn config labels.slp --auto --pipeline topdown_bbox_centernet -o cfg.yaml
    """
    from sleap_nn.config_generator.generator import ConfigGenerator

    # Auto mode (non-interactive)
    if auto:
        if not slp_path:
            click.echo("Error: SLP_PATH is required for --auto mode", err=True)
            raise SystemExit(1)

        gen = ConfigGenerator.from_slp(slp_path)
        gen.auto()

        # Apply overrides
        if pipeline:
            # 'topdown' is a CLI alias for the centroid STAGE (is_topdown=True),
            # which triggers paired centroid + centered_instance generation.
            # 'centroid' is the STANDALONE single-config centroid model
            # (is_topdown=False), emitted via the "centroid_only" pipeline.
            if pipeline == "topdown":
                gen.pipeline("centroid")
            elif pipeline == "centroid":
                gen.pipeline("centroid_only")
            else:
                gen.pipeline(pipeline)

        if show_yaml:
            click.echo(gen.to_yaml())
        elif output:
            gen.save(output)
            if gen.is_topdown:
                # "centroid" (or "detector" for topdown_bbox_*), then "instance".
                for stage, stage_path in gen.topdown_paths(output):
                    click.echo(f"Saved {stage} config to: {stage_path}")
            else:
                click.echo(f"Saved config to: {output}")
        else:
            # Default output path
            slp_stem = Path(slp_path).stem
            output_path = Path(slp_path).parent / f"{slp_stem}_config.yaml"
            gen.save(str(output_path))
            if gen.is_topdown:
                for stage, stage_path in gen.topdown_paths(str(output_path)):
                    click.echo(f"Saved {stage} config to: {stage_path}")
            else:
                click.echo(f"Saved config to: {output_path}")
        return

    # Interactive TUI mode
    try:
        from sleap_nn.config_generator.tui.app import launch_tui

        launch_tui(slp_path)
    except ImportError as e:
        click.echo(f"Error: TUI dependencies not available: {e}", err=True)
        click.echo("Install with: pip install textual", err=True)
        raise SystemExit(1)


if __name__ == "__main__":
    cli()
