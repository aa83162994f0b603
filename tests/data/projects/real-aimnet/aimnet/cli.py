import sys

import click

from .calculators.model_registry import clear_assets, download_assets


@click.group()
def cli():
    """AIMNet2 command line tool"""


# Always available commands
cli.add_command(clear_assets, name="clear_model_cache")
cli.add_command(download_assets, name="download")


# Register convert command (doesn't need heavy training dependencies)
try:
    from .models.convert import convert_legacy_jpt

    cli.add_command(convert_legacy_jpt, name="convert")
except ImportError:

    @cli.command(name="convert")
    def convert_stub():
        """Convert legacy JIT model to new format (requires aimnet[train])"""
        click.echo(
            "Training dependencies not installed.\nInstall with: pip install 'aimnet[train]' — or on conda: conda install -c conda-forge pytorch-ignite omegaconf wandb",
            err=True,
        )
        sys.exit(1)


def _missing_train_deps(exc: ImportError):
    click.echo(
        f"Training dependencies not installed or incomplete: {exc}\nInstall with: pip install 'aimnet[train]' — or on conda: conda install -c conda-forge pytorch-ignite omegaconf wandb",
        err=True,
    )
    sys.exit(1)


@cli.command(name="train")
@click.option(
    "--config",
    type=click.Path(exists=True),
    default=None,
    multiple=True,
    help="Path to the extra configuration file (overrides values, can be specified multiple times).",
)
@click.option(
    "--model",
    type=click.Path(exists=True),
    default=None,
    help="Path to the model definition file. Defaults to the bundled AIMNet2 model YAML.",
)
@click.option("--load", type=click.Path(exists=True), default=None, help="Path to the model weights to load.")
@click.option("--save", type=click.Path(), default=None, help="Path to save the model weights.")
@click.option("--no-default-config", is_flag=True, default=False)
@click.argument("args", type=str, nargs=-1)
def train_cmd(config, model, load=None, save=None, args=None, no_default_config=False):
    """Train AIMNet2 model."""
    try:
        from .train.train import _default_model, train
    except ImportError as exc:
        _missing_train_deps(exc)
    train.callback(config, model or _default_model, load, save, args, no_default_config)  # type: ignore[union-attr]


@cli.command(name="export")
@click.argument("weights", type=click.Path(exists=True))
@click.argument("output", type=str)
@click.option("--model", "-m", type=click.Path(exists=True), required=True, help="Path to model definition YAML file")
@click.option("--sae", "-s", type=click.Path(exists=True), required=True, help="Path to the SAE YAML file")
@click.option(
    "--needs-coulomb/--no-coulomb",
    default=None,
    help="Override Coulomb detection. --no-coulomb is invalid for detected sr_embedded Coulomb.",
)
@click.option(
    "--needs-dispersion/--no-dispersion",
    default=None,
    help="Override dispersion detection. Enabled dispersion requires complete D3 parameters.",
)
@click.option(
    "--model-import-path",
    "model_import_paths",
    multiple=True,
    help="Explicitly trust an exact constructor path or namespace for this local export.",
)
def export_cmd(weights, output, model, sae, needs_coulomb, needs_dispersion, model_import_paths):
    """Export trained model to distributable state dict format."""
    try:
        from .train.export_model import export_model
    except ImportError as exc:
        _missing_train_deps(exc)
    export_model.callback(  # type: ignore[union-attr]
        weights,
        output,
        model,
        sae,
        needs_coulomb,
        needs_dispersion,
        model_import_paths,
    )


@cli.command(name="calc_sae")
@click.option("--samples", type=int, default=100000, help="Max number of samples to consider.")
@click.argument("ds", type=str)
@click.argument("output", type=str)
def calc_sae_cmd(ds, output, samples=100000):
    """Calculate energy SAE for a dataset."""
    try:
        from .train.calc_sae import calc_sae
    except ImportError as exc:
        _missing_train_deps(exc)
    calc_sae.callback(ds, output, samples)  # type: ignore[union-attr]


@cli.command(name="info")
def info_cmd():
    """Show environment and kernel-path diagnostics."""
    import torch
    import warp as wp

    from . import __version__
    from .calculators.model_registry import get_cache_dir
    from .kernels import WARP_CUDA_AVAILABLE, load_ops

    click.echo(f"aimnet        {__version__}")
    click.echo(f"torch         {torch.__version__} (CUDA available: {torch.cuda.is_available()})")
    click.echo(f"warp-lang     {wp.config.version} (CUDA devices: {wp.get_cuda_device_count()})")
    ops = load_ops()
    click.echo(f"registered ops: {', '.join(ops) if ops else 'NONE'}")
    if torch.cuda.is_available() and not WARP_CUDA_AVAILABLE:
        click.echo("WARNING: torch has CUDA but warp-lang does not — AEV will use the pure-torch fallback path.")
    click.echo(f"model cache   {get_cache_dir()}")


if __name__ == "__main__":
    import logging

    logging.basicConfig(level=logging.INFO)
    cli()
