"""Command-line interface."""

import logging

import omegaconf
from lightning.pytorch import callbacks as pytorch_callbacks
from lightning.pytorch import cli

from .. import callbacks, data, models, trainers

# Register OmegaConf resolvers here.
omegaconf.OmegaConf.register_new_resolver("multiply", lambda x, y: x * y)
omegaconf.OmegaConf.register_new_resolver("add", lambda x, y: x + y)


class YoyodyneCLI(cli.LightningCLI):
    """The Yoyodyne CLI interface.

    Use with `--help` to see the full list of options.
    """

    def add_arguments_to_parser(
        self, parser: cli.LightningArgumentParser
    ) -> None:
        parser.add_lightning_class_args(
            pytorch_callbacks.ModelCheckpoint,
            "checkpoint",
            required=False,
        )
        parser.add_lightning_class_args(
            callbacks.PredictionWriter,
            "prediction",
            required=False,
        )
        parser.link_arguments(
            "data.target_vocab_size",
            "model.init_args.target_vocab_size",
            apply_on="instantiate",
        )
        # Just needed for the transducer to create the expert.
        parser.link_arguments(
            "data.index",
            "model.init_args.index",
            apply_on="instantiate",
        )
        parser.link_arguments(
            "data.max_source_length",
            "model.init_args.max_source_length",
            apply_on="instantiate",
        )
        parser.link_arguments(
            "data.max_features_length",
            "model.init_args.max_features_length",
            apply_on="instantiate",
        )
        parser.link_arguments(
            "data.max_target_length",
            "model.init_args.max_target_length",
            apply_on="instantiate",
        )
        parser.link_arguments(
            "data.target_sep",
            "prediction.target_sep",
            apply_on="instantiate",
        )
        parser.link_arguments(
            "data.vocab_size",
            "model.init_args.vocab_size",
            apply_on="instantiate",
        )
        parser.link_arguments(
            "data.model_dir",
            "trainer.logger.init_args.save_dir",
            apply_on="instantiate",
        )


def main() -> None:
    logging.basicConfig(
        format="%(levelname)s: %(asctime)s - %(message)s",
        datefmt="%d-%b-%y %H:%M:%S",
        level="INFO",
    )
    _run_cli()


def python_interface(args: cli.ArgsType | None = None) -> None:
    """Interface to use models through Python."""
    return _run_cli(args)


def _run_cli(args: cli.ArgsType | None = None) -> None:
    YoyodyneCLI(
        models.BaseModel,
        data.DataModule,
        parser_kwargs={"parser_mode": "omegaconf"},
        save_config_callback=None,
        subclass_mode_model=True,
        trainer_class=trainers.Trainer,
        trainer_defaults={
            "callbacks": [callbacks.CompactModelSummary()],
            "enable_model_summary": False,
        },
        args=args,
    )
