import os
from pathlib import Path
from typing import Annotated, Any, Optional

from everyvoice.config.preprocessing_config import PreprocessingConfig
from everyvoice.config.shared_types import (
    BaseModelWithContact,
    BaseTrainingConfig,
    ConfigModel,
    init_context,
)
from everyvoice.config.text_config import TextConfig
from everyvoice.config.type_definitions import (
    DatasetTextRepresentation,
    TargetTrainingTextRepresentationLevel,
)
from everyvoice.config.utils import PossiblyRelativePath, load_partials
from everyvoice.model.vocoder.HiFiGAN_iSTFT_lightning.hfgl.config import (
    HiFiGANModelConfig,
)
from everyvoice.utils import load_config_from_json_or_yaml_path
from pydantic import Field, FilePath, ValidationInfo, field_validator, model_validator

LATEST_VERSION: str = "0.1"

_LOCAL_PATH_WARNING = (
    " Warning: this path is expanded (via os.path.expandvars and os.path.expanduser)"
    " when the config is loaded, and the resolved absolute path is what gets embedded in saved checkpoints."
    " This may make your checkpoints less portable to other machines."
    " Environment variables (e.g. $HOME or ${MY_MODELS}) and '~' are supported."
)


def _expand_local_path(v: Any) -> Any:
    """Expand ~ and environment variables in a path string before pydantic coerces it to Path."""
    if isinstance(v, str):
        return os.path.expandvars(os.path.expanduser(v))
    return v


def _default_pretrained_symbols() -> list[str]:
    """Return the symbol list bundled with the pretrained StyleTTS2 text encoder."""
    from ..text_utils import symbols

    return list(symbols)


# ---------------------------------------------------------------------------
# Pretrained backbone paths
# ---------------------------------------------------------------------------


class StyleTTS2JDCConfig(ConfigModel):
    """Source for the JDC F0 extractor checkpoint."""

    repo_id: str = Field(
        default="everyvoice/styletts2-jdc-f0",
        description="HuggingFace repo ID for the JDC F0 extractor.",
    )
    filename: str = Field(
        default="bst.t7",
        description="Filename of the checkpoint within the HuggingFace repo.",
    )
    local_path: Optional[Path] = Field(
        default=None,
        description="Local path to the checkpoint. If set, overrides repo_id/filename."
        + _LOCAL_PATH_WARNING,
    )

    @field_validator("local_path", mode="before")
    @classmethod
    def expand_local_path(cls, v: Any) -> Any:
        return _expand_local_path(v)


class StyleTTS2ASRConfig(ConfigModel):
    """Source for the ASR text-aligner checkpoint."""

    repo_id: str = Field(
        default="everyvoice/styletts2-asr-aligner",
        description="HuggingFace repo ID for the ASR text-aligner.",
    )
    checkpoint_filename: str = Field(
        default="epoch_00080.pth",
        description="Filename of the model checkpoint within the HuggingFace repo.",
    )
    config_filename: str = Field(
        default="config.yml",
        description="Filename of the model config within the HuggingFace repo.",
    )
    local_checkpoint: Optional[Path] = Field(
        default=None,
        description="Local path to the checkpoint file. If set, overrides repo_id/checkpoint_filename."
        + _LOCAL_PATH_WARNING,
    )
    local_config: Optional[Path] = Field(
        default=None,
        description="Local path to the config file. If set, overrides repo_id/config_filename."
        + _LOCAL_PATH_WARNING,
    )

    @field_validator("local_checkpoint", "local_config", mode="before")
    @classmethod
    def expand_local_paths(cls, v: Any) -> Any:
        return _expand_local_path(v)


class StyleTTS2PLBERTConfig(ConfigModel):
    """Source for the PLBERT text encoder checkpoint."""

    repo_id: str = Field(
        default="papercup-ai/multilingual-pl-bert",
        description="HuggingFace repo ID for the PLBERT text encoder.",
    )
    checkpoint_filename: str = Field(
        default="step_1100000.t7",
        description="Filename of the checkpoint within the HuggingFace repo.",
    )
    config_filename: str = Field(
        default="config.yml",
        description="Filename of the model config within the HuggingFace repo.",
    )
    local_checkpoint: Optional[Path] = Field(
        default=None,
        description="Local path to the checkpoint file. If set, overrides repo_id/checkpoint_filename."
        + _LOCAL_PATH_WARNING,
    )
    local_config: Optional[Path] = Field(
        default=None,
        description="Local path to the config file. If set, overrides repo_id/config_filename."
        + _LOCAL_PATH_WARNING,
    )

    @field_validator("local_checkpoint", "local_config", mode="before")
    @classmethod
    def expand_local_paths(cls, v: Any) -> Any:
        return _expand_local_path(v)


# ---------------------------------------------------------------------------
# OOD data sources
# ---------------------------------------------------------------------------


class OODDataHFSource(ConfigModel):
    """A HuggingFace-hosted out-of-distribution (OOD) text file."""

    repo_id: str = Field(
        description="HuggingFace repository ID, e.g. 'everyvoice/ood-english'."
    )
    filename: str = Field(
        default="ood.txt", description="Filename within the repository."
    )
    revision: Optional[str] = Field(
        default=None, description="Git revision (branch, tag, or commit SHA) to pin."
    )


class OODDataSource(ConfigModel):
    """A single per-language out-of-distribution (OOD) data source — either a local file or a HuggingFace repo file."""

    local_path: Optional[PossiblyRelativePath] = Field(
        default=None,
        description="Path to a local plain-text file (one utterance per line).",
    )
    hf: Optional[OODDataHFSource] = Field(
        default=None,
        description="HuggingFace-hosted file to download via huggingface_hub.",
    )
    text_representation: DatasetTextRepresentation = Field(
        default=DatasetTextRepresentation.characters,
        description=(
            "The text representation of the source data. "
            "Use 'characters' if the file contains raw text (G2P will be applied if available). "
            "Use 'phones' if already IPA-transcribed (G2P skipped). "
            "Use 'arpabet' if in ARPAbet notation (converted to IPA, G2P skipped)."
        ),
    )

    @field_validator("local_path", mode="before")
    @classmethod
    def expand_local_path(cls, v: Any) -> Any:
        return _expand_local_path(v)

    @model_validator(mode="after")
    def check_exactly_one_source(self) -> "OODDataSource":
        if self.local_path is None and self.hf is None:
            raise ValueError(
                "Exactly one of 'local_path' or 'hf' must be set on OODDataSource."
            )
        if self.local_path is not None and self.hf is not None:
            raise ValueError(
                "Only one of 'local_path' or 'hf' may be set on OODDataSource."
            )
        return self


class StyleTTS2PretrainedConfig(ConfigModel):
    """Sources for the frozen pretrained models used by StyleTTS2."""

    f0: StyleTTS2JDCConfig = Field(
        default_factory=StyleTTS2JDCConfig,
        description="JDC F0 extractor source (HuggingFace repo or local path).",
    )
    asr: StyleTTS2ASRConfig = Field(
        default_factory=StyleTTS2ASRConfig,
        description="ASR text-aligner source (HuggingFace repo or local paths).",
    )
    plbert: StyleTTS2PLBERTConfig = Field(
        default_factory=StyleTTS2PLBERTConfig,
        description="PLBERT text encoder source (HuggingFace repo or local paths).",
    )
    pretrained_symbols: list[str] = Field(
        default_factory=_default_pretrained_symbols,
        description=(
            "Ordered symbol list that matches the pretrained text-encoder embedding table. "
            "The index of each symbol here is its embedding-table row. "
            "Override only if you are using a custom pretrained text encoder."
        ),
    )


# ---------------------------------------------------------------------------
# Decoder (reuses HiFiGANModelConfig, extended for iSTFTNet)
# ---------------------------------------------------------------------------


class StyleTTS2DecoderConfig(HiFiGANModelConfig):
    """HiFiGAN/iSTFTNet decoder config for StyleTTS2.

    Inherits all HiFiGAN fields. ``istft_layer=True`` selects iSTFTNet;
    ``istft_layer=False`` selects plain HiFiGAN. The extra iSTFT fields
    are only used when ``istft_layer=True``.

    Note: ``activation_function``, ``msd_layers``, and ``mpd_layers`` are
    inherited but not forwarded to StyleTTS2 — discriminators are configured
    separately inside the StyleTTS2 model builder.
    """

    # TODO: these settings are configured for a sampling rate of 22050 and hop size of 256
    #       but we should try training and consider changing back to 24000 and 300 to match the original StyleTTS2
    # iSTFTNet defaults tuned for EveryVoice's default fft_hop_size=256:
    #   prod(upsample_rates) × gen_istft_hop_size = 8 × 8 (upsample rates) × 4 (hop size) = 256
    # These values are already defined in HiFiGANModelConfig, but they need different defaults.
    upsample_rates: list[int] = Field(default=[8, 8])
    upsample_kernel_sizes: list[int] = Field(default=[16, 16])
    istft_layer: bool = Field(
        default=True,
    )
    gen_istft_n_fft: int = Field(
        default=16,
        description="FFT size for the iSTFTNet generator. Only used when istft_layer=True.",
    )
    gen_istft_hop_size: int = Field(
        default=4,
        description="Hop size for the iSTFTNet generator. Only used when istft_layer=True.",
    )


# ---------------------------------------------------------------------------
# SLM (speech language model)
# ---------------------------------------------------------------------------


class StyleTTS2SLMConfig(ConfigModel):
    model: str = Field(
        default="microsoft/wavlm-base-plus",
        description="HuggingFace model ID for the speech language model.",
    )
    sr: int = Field(default=16000, description="Sampling rate expected by the SLM.")
    hidden: int = Field(default=768, description="Hidden size of the SLM.")
    nlayers: int = Field(default=13, description="Number of layers in the SLM.")
    initial_channel: int = Field(
        default=64, description="Initial channels of the SLM discriminator head."
    )


# ---------------------------------------------------------------------------
# Diffusion
# ---------------------------------------------------------------------------


class StyleTTS2DiffusionTransformerConfig(ConfigModel):
    num_layers: int = 3
    num_heads: int = 8
    head_features: int = 64
    multiplier: int = 2


class StyleTTS2DiffusionDistConfig(ConfigModel):
    sigma_data: float = Field(
        default=0.2,
        description="Placeholder when estimate_sigma_data=False.",
    )
    estimate_sigma_data: bool = Field(
        default=True,
        description="Estimate sigma_data from each batch instead of using the fixed value.",
    )
    mean: float = -3.0
    std: float = 1.0


class StyleTTS2DiffusionConfig(ConfigModel):
    embedding_mask_proba: float = 0.1
    transformer: StyleTTS2DiffusionTransformerConfig = Field(
        default_factory=StyleTTS2DiffusionTransformerConfig
    )
    dist: StyleTTS2DiffusionDistConfig = Field(
        default_factory=StyleTTS2DiffusionDistConfig
    )


# ---------------------------------------------------------------------------
# Model architecture
# ---------------------------------------------------------------------------


class StyleTTS2ModelConfig(ConfigModel):
    """Architecture hyperparameters for StyleTTS2.

    Note: ``n_mels`` and ``n_token`` are intentionally absent — they are
    derived at runtime from ``preprocessing.audio.n_mels`` and
    ``len(TextProcessor(text).symbols)`` respectively in the translation layer.
    """

    multispeaker: bool = Field(
        default=False,
        description="Enable multi-speaker conditioning.",
    )
    multilingual: bool = Field(
        default=False,
        description=(
            "Enable multi-language conditioning via a learned language embedding, "
            "concatenated into the text encoder, prosodic BERT path, style encoders, "
            "and diffusion conditioning. Requires a 'language' column in your filelists. "
            "See https://aclanthology.org/2026.eacl-short.16/ for the method this is based on."
        ),
    )
    language_embedding_dim: int = Field(
        default=64,
        description="Dimensionality of the per-language embedding when multilingual=True.",
    )
    target_text_representation_level: TargetTrainingTextRepresentationLevel = Field(
        default=TargetTrainingTextRepresentationLevel.characters,
        description=(
            "Whether to train on 'characters' or 'ipa_phones'. "
            "Must match the representation used during everyvoice preprocess."
        ),
    )
    dim_in: int = Field(default=64, description="Input channel dimension.")
    hidden_dim: int = Field(default=512, description="Main hidden dimension.")
    max_conv_dim: int = Field(
        default=512, description="Maximum convolutional dimension."
    )
    n_layer: int = Field(default=3, description="Number of style encoder layers.")
    max_dur: int = Field(
        default=50, description="Maximum duration (frames) for a single phoneme."
    )
    style_dim: int = Field(default=128, description="Style vector dimension.")
    dropout: float = Field(default=0.2)
    decoder: StyleTTS2DecoderConfig = Field(default_factory=StyleTTS2DecoderConfig)
    slm: StyleTTS2SLMConfig = Field(default_factory=StyleTTS2SLMConfig)
    diffusion: StyleTTS2DiffusionConfig = Field(
        default_factory=StyleTTS2DiffusionConfig
    )


# ---------------------------------------------------------------------------
# Loss weights
# ---------------------------------------------------------------------------


class StyleTTS2LossConfig(ConfigModel):
    lambda_mel: float = Field(
        default=5.0, description="Mel reconstruction loss weight."
    )
    lambda_gen: float = Field(default=1.0, description="Generator (GAN) loss weight.")
    lambda_slm: float = Field(
        default=1.0, description="SLM feature-matching loss weight."
    )
    lambda_mono: float = Field(
        default=1.0, description="Monotonic alignment loss weight (stage 1 TMA)."
    )
    lambda_s2s: float = Field(
        default=1.0, description="Sequence-to-sequence loss weight (stage 1 TMA)."
    )
    tma_epoch: int = Field(
        default=50, description="Epoch at which TMA training begins (stage 1)."
    )
    lambda_f0: float = Field(
        default=1.0, description="F0 reconstruction loss weight (stage 2)."
    )
    lambda_norm: float = Field(
        default=1.0, description="Norm reconstruction loss weight (stage 2)."
    )
    lambda_dur: float = Field(
        default=1.0, description="Duration loss weight (stage 2)."
    )
    lambda_ce: float = Field(
        default=20.0,
        description="Duration predictor cross-entropy loss weight (stage 2).",
    )
    lambda_sty: float = Field(
        default=1.0, description="Style reconstruction loss weight (stage 2)."
    )
    lambda_diff: float = Field(
        default=1.0, description="Score-matching (diffusion) loss weight (stage 2)."
    )
    diff_epoch: int = Field(
        default=20,
        description="Epoch at which style diffusion training begins (stage 2).",
    )
    joint_epoch: int = Field(
        default=50,
        description="Epoch at which joint (decoder + style encoder) training begins (stage 2).",
    )


# ---------------------------------------------------------------------------
# Optimizer
# ---------------------------------------------------------------------------


class StyleTTS2OptimizerConfig(ConfigModel):
    lr: float = Field(default=1e-4, description="General learning rate.")
    bert_lr: float = Field(default=1e-5, description="Learning rate for PLBERT.")
    ft_lr: float = Field(
        default=1e-5,
        description="Learning rate for acoustic modules during stage 2 / fine-tuning.",
    )


# ---------------------------------------------------------------------------
# SLM adversarial training
# ---------------------------------------------------------------------------


class StyleTTS2SLMAdvConfig(ConfigModel):
    min_len: int = Field(
        default=100, description="Minimum sample length for SLM adversarial loss."
    )
    max_len: int = Field(
        default=500, description="Maximum sample length for SLM adversarial loss."
    )
    batch_percentage: float = Field(
        default=0.5,
        description="Fraction of the batch to use for SLM adversarial loss (to save memory).",
    )
    iter: int = Field(
        default=10,
        description="Update the SLM discriminator every this many generator steps.",
    )
    thresh: float = Field(
        default=5.0,
        description="Gradient norm threshold above which gradients are scaled.",
    )
    scale: float = Field(
        default=0.01,
        description="Gradient scaling factor applied to predictor/diffusion gradients from the SLM discriminator.",
    )
    sig: float = Field(
        default=1.5, description="Sigma for differentiable duration modelling."
    )


# ---------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------


class StyleTTS2TrainingConfig(BaseTrainingConfig):
    """Training hyperparameters for StyleTTS2.

    Inherits shared fields from BaseTrainingConfig: batch_size,
    ckpt_steps/ckpt_epochs, val_check_interval, max_epochs/max_steps,
    finetune_checkpoint (→ pretrained_model), training_filelist (→ data_params.train_data),
    validation_filelist (→ data_params.val_data), logger, and data workers.
    """

    batch_size: int = Field(
        default=2,
        description="The number of samples to include in each batch when training. If you are running out of memory, consider lowering your batch_size.",
    )
    save_top_k_ckpts: int = Field(
        default=1,
        description="The number of checkpoints to save. StyleTTS2 checkpoints are large, and automating the top-k checkpoints is difficult. For this reason, we typically only save the last checkpoint.",
    )
    # TODO: Do we even need stage 1 and stage 2 to be separated from the training routine now that multi-gpu training is possible?
    epochs_1st: int = Field(
        default=200, description="Number of epochs for stage 1 (pre-training)."
    )
    epochs_2nd: int = Field(
        default=100, description="Number of epochs for stage 2 (joint training)."
    )
    max_len: int = Field(
        default=800,
        description="Maximum clip length in Mel frames used during training. You can lower this or your batch size if you run into out-of-memory errors. Advanced: In time, this is equal to max_len * (hop_length / sampling rate). e.g. with a max_len of 800, a hop length of 300 and a sampling rate of 24kHz, this is equal to ten seconds (800 * (300 / 24000)).",
    )
    first_stage_path: str = Field(
        default="checkpoints/stage-1-last.ckpt",
        description="Filename (relative to log_dir) where the stage 1 checkpoint is saved. "
        "The default matches the checkpoint '--mode first' training produces automatically.",
    )
    second_stage_load_pretrained: bool = Field(
        default=True,
        description="If True, load the stage 1 checkpoint when starting stage 2 training.",
    )
    load_only_params: bool = Field(
        default=False,
        description="If True, load only model parameters from a checkpoint (skip optimizer state and epoch number).",
    )
    root_path: PossiblyRelativePath = Field(
        default=".",
        validate_default=True,
        description="Root directory that audio file paths in the filelist are relative to.",
    )
    ood_raw_data: dict[str, OODDataSource] = Field(
        default_factory=dict,
        description=(
            "Per-language sources of raw out-of-distribution (OOD) text, keyed by ISO language code (e.g. 'eng'). "
            "Each source is a local plain-text file with a 'phones' or 'characters' header, or a HuggingFace repo file. "
            "Run 'everyvoice preprocess text-to-wav' to tokenize these into "
            "{preprocessing.save_dir}/ood/{lang}.psv before training."
        ),
    )
    use_validation_as_ood: bool = Field(
        default=False,
        description=(
            "Fall back to the validation split as out-of-distribution (OOD) reference text when no preprocessed "
            "OOD data is found. Acceptable in applied settings but pollutes the train/val "
            "split — do not use when reporting research results."
        ),
    )
    OOD_min_length: int = Field(
        default=50,
        description="Minimum text length (characters) when sampling OOD validation texts.",
    )
    optimizer: StyleTTS2OptimizerConfig = Field(
        default_factory=StyleTTS2OptimizerConfig
    )
    losses: StyleTTS2LossConfig = Field(default_factory=StyleTTS2LossConfig)
    slmadv: StyleTTS2SLMAdvConfig = Field(default_factory=StyleTTS2SLMAdvConfig)


# ---------------------------------------------------------------------------
# Root config
# ---------------------------------------------------------------------------


class StyleTTS2Config(BaseModelWithContact):
    VERSION: Annotated[str, Field(init_var=False)] = LATEST_VERSION

    model: StyleTTS2ModelConfig = Field(
        default_factory=StyleTTS2ModelConfig,
        description="Model architecture configuration.",
    )
    path_to_model_config_file: Optional[FilePath] = Field(
        default=None, description="Path to an external model configuration file."
    )

    training: StyleTTS2TrainingConfig = Field(
        default_factory=StyleTTS2TrainingConfig,
        description="Training hyperparameter configuration.",
    )
    path_to_training_config_file: Optional[FilePath] = Field(
        default=None, description="Path to an external training configuration file."
    )

    preprocessing: PreprocessingConfig = Field(
        default_factory=PreprocessingConfig,
        description="Preprocessing configuration (audio settings, dataset paths).",
    )
    path_to_preprocessing_config_file: Optional[FilePath] = Field(
        default=None,
        description="Path to an external preprocessing configuration file.",
    )

    text: TextConfig = Field(
        default_factory=TextConfig,
        description="Text processing configuration (symbols, G2P, cleaners).",
    )
    path_to_text_config_file: Optional[FilePath] = Field(
        default=None, description="Path to an external text configuration file."
    )

    pretrained: StyleTTS2PretrainedConfig = Field(
        default_factory=StyleTTS2PretrainedConfig,
        description="Paths to frozen pretrained backbone models.",
    )

    @model_validator(mode="after")
    def check_decoder_hop_alignment(self) -> "StyleTTS2Config":
        from math import prod

        hop = self.preprocessing.audio.fft_hop_size
        dec = self.model.decoder
        if dec.istft_layer:
            effective_hop = prod(dec.upsample_rates) * dec.gen_istft_hop_size
            if effective_hop != hop:
                raise ValueError(
                    f"Decoder effective hop length ({effective_hop} = "
                    f"prod(upsample_rates={dec.upsample_rates}) × "
                    f"gen_istft_hop_size={dec.gen_istft_hop_size}) does not match "
                    f"preprocessing.audio.fft_hop_size ({hop}). "
                    "The decoder must produce exactly fft_hop_size audio samples per "
                    "mel frame, otherwise the decoder output and ground-truth audio "
                    "will have mismatched lengths during training. "
                    f"For fft_hop_size={hop}, choose upsample_rates and gen_istft_hop_size "
                    f"such that their product equals {hop} "
                    "(e.g. upsample_rates=[8, 8], upsample_kernel_sizes=[16, 16], "
                    "gen_istft_hop_size=4, gen_istft_n_fft=16 for hop=256). "
                    "Set these under model.decoder in your config."
                )
        return self

    @model_validator(mode="after")
    def check_symbols_in_pretrained(self) -> "StyleTTS2Config":
        from everyvoice.text.text_processor import TextProcessor
        from everyvoice.text.utils import declared_content_symbols

        tp = TextProcessor(
            self.text,
            target_text_representation_level=self.model.target_text_representation_level,
        )
        pretrained_set = set(self.pretrained.pretrained_symbols)
        ev_symbols = declared_content_symbols(tp)
        missing = [s for s in ev_symbols if s not in pretrained_set]
        if missing:
            raise ValueError(
                f"The following symbols declared in your TextConfig are not present in "
                f"the pretrained StyleTTS2 text-encoder symbol table: {missing}. "
                f"Change them in your text, remove them from your TextConfig, or run "
                f"'everyvoice check pretrained-symbols --config <this config>' to get "
                f"suggested 'to_replace' substitutions for the closest pretrained symbols."
            )
        return self

    @model_validator(mode="before")  # type: ignore
    def load_partials(self: dict[Any, Any], info: ValidationInfo):  # type: ignore[misc]
        config_path = (
            info.context.get("config_path", None) if info.context is not None else None
        )
        return load_partials(
            self,
            ("model", "training", "preprocessing", "text"),
            config_path=config_path,
        )

    @model_validator(mode="before")
    @classmethod
    def check_and_upgrade_checkpoint(cls, data: Any) -> Any:
        from packaging.version import Version

        ckpt_version = Version(data.get("VERSION", "0.0"))
        if ckpt_version > Version(LATEST_VERSION):
            raise ValueError(
                "Your config was created with a newer version of EveryVoice. "
                "Please update your software."
            )
        return data

    @staticmethod
    def load_config_from_path(path: Path) -> "StyleTTS2Config":
        config = load_config_from_json_or_yaml_path(path)
        with init_context({"config_path": path}):
            config = StyleTTS2Config(**config)
        return config
