from typing import Dict, Union, Literal, Any, Annotated, List
from pydantic import (
    Field,
    field_validator,
    model_validator,
    computed_field,
    TypeAdapter,
)

import eole
from eole.constants import PositionEncodingType, ActivationFunction, ModelType
from eole.config.config import Config


class EmbeddingsConfig(Config):
    embedding_type: Literal["standard", "roberta"] = Field(default="standard", description="Embedding block type.")
    src_word_vec_size: int = Field(default=512, description="Word embedding size for src.")
    tgt_word_vec_size: int = Field(default=512, description="Word embedding size for tgt.")
    word_vec_size: int = Field(default=-1, description="Word embedding size for src and tgt.")
    # Freeze word vectors
    freeze_word_vecs_enc: bool = Field(default=False, description="Freeze word embeddings on the encoder side.")
    freeze_word_vecs_dec: bool = Field(default=False, description="Freeze word embeddings on the encoder side.")
    position_encoding: bool = Field(
        default=False,
        description="Absolute position encoding, see position_encoding_type. " "Necessary for non-RNN style models.",
    )
    position_encoding_type: PositionEncodingType | None = Field(
        default=PositionEncodingType.SinusoidalInterleaved,
        description="Type of positional encoding.",
    )
    n_positions: int | None = Field(
        default=None,
        description="Two cases"
        "Case 1: Absolute number of positions to learn "
        "position embeddings on (position_encoding_type: Learned)"
        "Case 2: Max Relative Positions"
        "In the case of position_encoding_type: Relative",
    )
    position_shift: int | None = Field(
        default=0,
        description="Positions IDS shift before making position embed " "dirty patch to cover for xlm-roberta-xl",
    )
    normalize: bool | None = Field(
        default=False,
        description="Enable embeddings scaling. "
        "Not always necessary, but useful for some model compatibility, e.g. gemma. "
        "https://datascience.stackexchange.com/a/87909",
    )
    embedding_layer_norm: bool = Field(
        default=False,
        description="Apply LayerNorm in embedding block (RoBERTa/XLM-R style).",
    )
    token_type_vocab_size: int = Field(
        default=0,
        description=(
            "Token type vocabulary size for RoBERTa-style embedding block. "
            "Values below 1 are treated as 1, matching all-zero token type ids."
        ),
    )

    @model_validator(mode="after")
    def validate_embeddings(self):
        if self.position_encoding_type in [
            PositionEncodingType.Learned,
            PositionEncodingType.Relative,
        ]:
            assert self.n_positions is not None, (
                "n_positions must be set if position_encoding_type "
                f"is {PositionEncodingType.Learned} or {PositionEncodingType.Relative}"
            )
        elif self.position_encoding_type in [
            PositionEncodingType.SinusoidalInterleaved,
            PositionEncodingType.SinusoidalConcat,
        ]:
            assert not (self.normalize), "embeddings normalization is already handled in PositionalEncoding"
        return self


class EncoderConfig(Config):
    """Abstract class for all encoders"""

    encoder_type: str | None = Field(default="rnn", description="Type of encoder layer(s) to use.")
    layers: int = Field(default=2, description="Number of layers in the encoder.")
    hidden_size: int = Field(default=512, description="Size of encoder hidden states.")

    # This field should be set at EmbeddingsConfig level but will be copied here for cases
    # where input size to the rnn is different to the hidden size
    src_word_vec_size: int = Field(default=512, description="Word embedding size for src.")

    @property
    def data_type(self) -> str:
        return "text"


class DecoderConfig(Config):
    """Abstract class for all decoders"""

    decoder_type: str | None = Field(default="rnn", description="Type of decoder layer(s) to use.")
    layers: int = Field(default=2, description="Number of layers in the decoder.")
    hidden_size: int = Field(default=512, description="Size of decoder hidden states.")

    # This field should be set at EmbeddingsConfig level but will be copied here for cases
    # where input size to the rnn is different to the hidden size
    tgt_word_vec_size: int = Field(default=512, description="Word embedding size for tgt.")
    coverage_attn: bool = Field(default=False, description="Train a coverage attention layer.")
    with_cross_attn: bool = Field(default=False, description="Decoder uses cross-attention with encoder outputs.")
    lambda_coverage: float = Field(default=0.0, description="Lambda value for coverage loss of See et al (2017)")
    global_attention: Literal["dot", "general", "mlp", None] = Field(
        default="general",
        description="The attention type to use. (Luong=general, Bahdanau=MLP)",
    )
    global_attention_function: Literal["softmax", "sparsemax"] = Field(
        default="softmax", description="Global attention function to use."
    )

    @model_validator(mode="after")
    def _validate_decoder_config(self):
        return self


class RnnConfig(Config):
    """Just to facilitate testing discriminator stuff."""

    bridge: bool = Field(
        default=False,
        description="Have an additional layer between the last encoder state "
        "and the first decoder state (RNN specific).",
    )
    rnn_type: Literal["LSTM", "GRU"] = Field(
        default="LSTM", description="The gate type to use in the RNNs."
    )  # this should be homogenized with available encoder classes (use some registry? or at least a clean Enum somewhere) # noqa: E501


class RnnEncoderConfig(RnnConfig, EncoderConfig):
    encoder_type: Literal["rnn", "brnn"] = Field(default="rnn")


class RnnDecoderConfig(RnnConfig, DecoderConfig):
    decoder_type: Literal["rnn"] = Field(default="rnn")
    context_gate: Literal["source", "target", "both", None] = Field(
        default=None, description="Type of context gate to use."
    )
    bidirectional_encoder: bool | None = False


class CnnConfig(Config):
    cnn_kernel_width: int = Field(
        default=3,
        description="Size of windows in the cnn, the kernel_size is " "(cnn_kernel_width, 1) in convolution layers.",
    )


class CnnEncoderConfig(CnnConfig, EncoderConfig):
    encoder_type: Literal["cnn"] = Field(default="cnn")


class CnnDecoderConfig(CnnConfig, DecoderConfig):
    decoder_type: Literal["cnn"] = Field(default="cnn")


class MeanEncoderConfig(EncoderConfig):
    encoder_type: Literal["mean"] = Field(default="mean")


class RotaryPositionConfig(Config):
    """
    Configuration for rotary position embeddings used in transformer models.
    """

    rotary_interleave: bool = Field(
        default=True,
        description="Interleave the head dimensions when rotary embeddings are applied. "
        "Otherwise the head dimensions are sliced in half. "
        "(True= Llama from Meta (original), "
        "False= used by all HuggingFace models)",
    )
    rotary_theta: int = Field(
        default=10000,
        description="Rotary theta base length, 1e4 for Llama2.Mistral, 1e6 for Mixtral",
    )
    rotary_dim: int = Field(
        default=0,
        description="Rotary dim when model requires it to be different to head dim.",
    )
    scaling_type: str | None = Field(
        default=None,
        description="Specifies the type of RoPE scaling to be applied, if any.",
    )
    alpha: float | None = Field(None, description="alpha factor by which to scale rope theta.")
    xdrope_section: List[int] | None = Field(None, description="Sections for XDRope mappings")
    scaling_factor: float | None = Field(default=8.0, description="Factor by which to scale RoPE embeddings.")
    low_freq_factor: float | None = Field(
        default=1.0,
        description="Scaling factor applied to the lower frequency components of RoPE.",
    )
    high_freq_factor: float | None = Field(
        default=4.0,
        description="Scaling factor applied to the higher frequency components of RoPE.",
    )
    original_max_position_embeddings: int | None = Field(
        default=8192,
        description="Original maximum position embeddings for RoPE scaling.",
    )
    rotary_theta_local: int = Field(
        default=10000,
        description="Rotary theta base length for local rotary layers",
    )
    interleave_local: int = Field(
        default=0,
        description="Local rotary layers each 1/N layers",
    )
    tmax_index: int = Field(
        default=0,
        description="tmax indexing, 0 for all cases except gemma 3 = 1",
    )
    rotary_dim_global: int = Field(
        default=0,
        description="Rotary dimension for global (full_attention) layers when different from rotary_dim. "
        "Used by Gemma4 where full_attention layers use a smaller rotary dimension "
        "(partial_rotary_factor * global_head_dim). 0 means use rotary_dim or dim_per_head.",
    )
    partial_rotary_factor: float = Field(
        default=0.0,
        description="Fraction of global_head_dim used for rotation in 'proportional' RoPE (Gemma4 full_attention). "
        "When > 0, the inv_freq is computed with global_head_dim as denominator and zero-padded so that "
        "cos/sin covers all global_head_dim dimensions (zero-freq dims get identity rotation). "
        "0.0 means standard full rotation (no partial rotation).",
    )
    multidimensional_rope: bool = Field(
        default=False,
        description="Use multidimensional RoPE application matching HF's apply_multidimensional_rope "
        "(Gemma4 vision encoder). Splits the head into spatial chunks and applies rotate_half "
        "within each chunk, rather than pairing first-half/second-half as standard RoPE does.",
    )


class TransformerConfig(Config):
    """
    This base TransformerConfig class regroups parameters than can
    both be set at model level or either encoder/decoder level.
    BaseModelConfig._override_values validator overrides
    encoder/decoder values with model values if relevant.
    """

    max_position_embeddings: int = Field(
        default=8192,
        description="Model's maximum position embeddings (designed training capacity). "
        "At inference the user may set context_length ≤ max_position_embeddings to reduce "
        "KV-cache and RoPE table size; setting context_length > max_position_embeddings raises an error. "
        "For 'dynamic' NTK scaling without an explicit alpha, the scaling factor is derived from "
        "context_length / original_max_position_embeddings at init time (torch.compile-compatible).",
    )
    sliding_window: int = Field(default=0, description="Sliding window for transformer self-attention.")
    heads: int = Field(default=8, description="Number of heads for transformer self-attention.")
    transformer_ff: int = Field(default=2048, description="Size of hidden transformer feed-forward.")
    moe_transformer_ff: int | None = Field(default=None, description="Size of hidden moe transformer feed-forward.")
    relative_positions_buckets: int = Field(
        default=0,
        description="Enable relative position bias "
        "(https://github.com/google-research/text-to-text-transfer-transformer).",
    )
    mlp_activation_fn: ActivationFunction = Field(
        default=ActivationFunction.relu,
        description="The activation function to use in MLP layer.",
    )
    layer_norm: Literal["standard", "standardFP32", "rms", "gemma-rms"] = Field(
        default="standard",
        description="Type of layer normalization in transformer architecture.",
    )
    norm_eps: float = Field(default=1e-5, description="Layer norm epsilon.")
    shared_layer_norm: bool = Field(
        default=False,
        description="Use a shared layer_norm in parallel residual attention. "
        "Note: must be True for Falcon 7B, False for Falcon 40B, "
        "same for GPT-J and GPT-NeoX models.",
    )
    ffn_layernorm: bool = Field(
        default=False,
        description="Add pre/post_feedforward_layernorm around MLP forward. " "Note: introduced for gemma2 support.",
    )
    add_qkvbias: bool = Field(
        default=False,
        description="Add bias to nn.Linear of Query/Key/Value in MHA. "
        "Note: this will add bias to output projection layer too by default. "
        "Can be disabled with `add_final_linear_bias`.",
    )
    add_key_bias: bool | None = Field(
        default=None,
        description="Add bias to Key projection in MHA. "
        "Defaults to add_qkvbias when not set. "
        "Set to False for models like Whisper where K has no bias.",
    )
    query_norm: bool = Field(
        default=False,
    )
    key_norm: bool = Field(
        default=False,
    )
    value_norm: bool = Field(
        default=False,
    )
    qk_norm_post_rope: bool = Field(
        default=False,
    )
    add_final_linear_bias: bool = Field(default=False, description="Add bias to nn.Linear of final_linear in MHA.")
    heads_kv: int | None = Field(
        default=None,
        description="Number of heads for KV. heads_kv=heads if None, else number of heads for KV" "(e.g. Falcon 40B)",
    )
    head_dim: int | None = Field(
        default=None,
        description="Head dimension when this needs to be different vs hidden_size // heads",
    )
    attn_scaling: float | None = Field(
        default=None,
        description="Attention scaling factor, when None uses 1/sqrt(head_dim) by default",
    )
    add_ffnbias: bool = Field(default=False, description="Add bias to nn.Linear of MLP FFN.")
    parallel_residual: bool = Field(
        default=False,
        description="Use parallel residual in decoder layer. " "Note: this is used by GPT-J / Falcon Architecture.",
    )
    num_experts: int = Field(default=0, description="Number of experts for MoE models.")
    num_shared_experts: int = Field(default=0, description="Number of shared experts for MoE models (DeepSeekv2).")
    shared_expert_gate: bool = Field(
        default=False,
        description="Apply sigmoid-gated shared expert output (Qwen3.5 MoE style). "
        "When True, a linear gate is applied: output += sigmoid(gate(x)) * shared_expert(x).",
    )
    first_k_dense_replace: int = Field(default=0, description="Number of layers using Dense instead of MoE")
    num_experts_per_tok: int = Field(default=2, description="Number of experts per token.")
    moe_softmax_after: bool = Field(default=False, description="Usually softmax is before topk, Mixtral does it after.")
    moe_renormalize: bool = Field(default=False, description="Qwen renormalize expert weights after softmax.")
    q_gating: bool = Field(
        default=False,
        description="Enable gated query in attention (Qwen3.5 style). "
        "Q projection has doubled output size; output is multiplied by sigmoid(gate).",
    )
    # These fields are set at EmbeddingsConfig level but will be copied here to be accessible in MHA
    position_encoding_type: PositionEncodingType | None = Field(
        default=PositionEncodingType.SinusoidalInterleaved,
        description="Type of positional encoding.",
    )
    interpolate_mode: str | None = Field(
        default=None,
        description=(
            "Interpolation mode for position embeddings. "
            "If None: position_embeddings is a lookup table based on n_positions. "
            "If string (e.g., 'bilinear'): position_embedding is a learned grid using interpolation."
            " (see Vision.py encoder)"
        ),
    )
    n_positions: int | None = Field(
        default=None,
        description="Two cases"
        "Case 1: Absolute number of positions to learn "
        "position embeddings on (position_encoding_type: Learned)"
        "Case 2: Max Relative Positions"
        "In the case of position_encoding_type: Relative",
    )
    rope_config: RotaryPositionConfig | None = Field(default=None, description="Rotary position config, if relevant.")

    @model_validator(mode="after")
    def _validate_transformer_config(self):

        if self.position_encoding_type == PositionEncodingType.Rotary:
            if self.rope_config is None:
                self.rope_config = RotaryPositionConfig()

        if self.add_qkvbias and "add_final_linear_bias" not in self.model_fields_set:
            self.update(add_final_linear_bias=True)
        return self

    @computed_field
    @property
    def dim_per_head(self) -> int:
        if self.head_dim is not None:
            return self.head_dim
        else:
            return self.hidden_size // self.heads


# could eole.encoders.TransformerEncoder class inherit from this? (it seems not unfortunately)
class TransformerEncoderConfig(TransformerConfig, EncoderConfig):
    encoder_type: Literal["transformer"] = Field(
        default="transformer"
    )  # not sure it's fully proper use, but inspired from docs -- https://docs.pydantic.dev/latest/concepts/fields/#discriminator # noqa: E501
    encoder_layer_style: Literal["standard", "postnorm", "roberta"] = Field(
        default="standard",
        description="Encoder layer style: standard pre-norm or post-norm (RoBERTa/XLM-R).",
    )
    final_encoder_layer_norm: bool = Field(
        default=True,
        description="Apply final encoder LayerNorm after all layers.",
    )


class TransformerDecoderConfig(TransformerConfig, DecoderConfig):
    decoder_type: Literal["transformer"] = Field(default="transformer")

    aan_useffn: bool = Field(default=False, description="Turn on the FFN layer in the AAN decoder.")
    # some guided alignment specific opts were omitted here (put back for backcompat)
    alignment_layer: int = Field(default=-2, description="Layer number which has to be supervised.")
    alignment_heads: int = Field(
        default=0,
        description="Number of cross attention heads per layer to supervise with.",
    )
    full_context_alignment: bool = Field(
        default=False,
        description="Whether alignment is conditioned on full target context.",
    )
    lambda_align: float = Field(
        default=0.0,
        description="Lambda value for alignement loss of Garg et al, 2019 " "(https://arxiv.org/abs/1909.02074)",
    )
    LM_type: Literal["causal", "prefix"] = Field(
        default="causal",
        description="TransformerDecoder LM type (causal = classic, or prefix LM https://arxiv.org/pdf/2308.06912)",
    )
    layer_types: List[str] | None = Field(
        default=None,
        description="Per-layer types for hybrid architectures (e.g. Qwen3.5, Gemma4). "
        "Supported values: 'full_attention', 'sliding_attention', 'linear_attention'. "
        "When None, all layers use full attention.",
    )
    global_head_dim: int | None = Field(
        default=None,
        description="Head dimension for 'full_attention' layers when different from head_dim. "
        "Used by Gemma4 where full_attention layers use a larger head_dim than sliding_attention layers.",
    )
    global_heads_kv: int | None = Field(
        default=None,
        description="Number of KV heads for 'full_attention' layers when different from heads_kv. "
        "Used by Gemma4. When None, falls back to heads_kv.",
    )
    linear_conv_kernel_dim: int = Field(
        default=4,
        description="Convolution kernel size for linear attention layers (Qwen3.5 GatedDeltaNet).",
    )
    linear_key_head_dim: int = Field(
        default=128,
        description="Key head dimension for linear attention layers (Qwen3.5 GatedDeltaNet).",
    )
    linear_value_head_dim: int = Field(
        default=128,
        description="Value head dimension for linear attention layers (Qwen3.5 GatedDeltaNet).",
    )
    linear_num_key_heads: int = Field(
        default=16,
        description="Number of key heads for linear attention layers (Qwen3.5 GatedDeltaNet).",
    )
    linear_num_value_heads: int = Field(
        default=32,
        description="Number of value heads for linear attention layers (Qwen3.5 GatedDeltaNet).",
    )

    num_mtp_heads: int = Field(
        default=0,
        description="Number of Multi-Token Prediction auxiliary heads (0 = disabled). "
        "Each head predicts one extra future token during training. "
        "See https://arxiv.org/abs/2412.19437 (DeepSeek-V3).",
    )
    mtp_lambda: float = Field(
        default=0.1,
        description="Loss weight applied to the average of MTP auxiliary head losses. "
        "Only used when num_mtp_heads > 0.",
    )
    mtp_emb_norm: bool = Field(
        default=False,
        description="Apply an MTP-specific normalization to target embeddings "
        "before combining them with hidden states.",
    )

    @model_validator(mode="after")
    def _validate_transformer_decoder_config(self):
        # move to specific decoder config ?
        # this is not working right now if enc_layers is overridden by model level config
        # if self.lambda_align > 0.0:
        #     assert (
        #         self.decoder_type == "transformer"
        #     ), "Only transformer is supported to joint learn alignment."
        #     assert (
        #         self.alignment_layer < self.dec_layers
        #         and self.alignment_layer >= -self.dec_layers
        #     ), f"N° alignment_layer ({self.alignment_layer}) should be smaller "\
        #         "than number of layers ({self.dec_layers})."
        #     logger.info(
        #         "Joint learn alignment at layer [{}] "
        #         "with {} heads in full_context '{}'.".format(
        #             self.alignment_layer,
        #             self.alignment_heads,
        #             self.full_context_alignment,
        #         )
        #     )

        # When head_dim is explicitly set (e.g. Qwen3.5 MoE: head_dim=256,
        # heads=24, hidden_size=5120), the projection size is heads*head_dim
        # which may differ from hidden_size, so skip the divisibility check.
        if self.head_dim is None:
            assert (
                self.hidden_size % self.heads == 0
            ), "Transformer Model dimension {} must be divisible by the number of heads {}".format(
                self.hidden_size, self.heads
            )
        return self


class AudioEncoderConfig(TransformerConfig, EncoderConfig):
    """Configuration for audio encoder."""

    encoder_type: Literal["audio"] = Field(default="audio")
    num_mel_bins: int = Field(default=80, description="Number of mel spectrogram bins.")
    max_source_positions: int = Field(
        default=1500, description="Maximum number of source positions (time frames after conv stem)."
    )
    # Audio encoder uses learned positional embeddings in the encoder itself, not RoPE
    position_encoding_type: PositionEncodingType | None = Field(default=None)
    # Audio signal processing
    sample_rate: int = Field(default=16000, description="Audio sample rate in Hz.")
    chunk_length: int = Field(default=30, description="Audio chunk length in seconds.")
    n_fft: int = Field(default=400, description="FFT window size for mel spectrogram.")
    hop_length: int = Field(default=160, description="Hop length for mel spectrogram.")
    timestamp_resolution: float = Field(default=0.02, description="Time resolution per timestamp token in seconds.")

    @property
    def data_type(self) -> str:
        return "audio"


class VisionEncoderConfig(TransformerConfig, EncoderConfig):
    """
    Based on mistral-community/pixtral-12b, might evolve later.
    """

    encoder_type: Literal["vision"] = Field(default="vision")

    @property
    def data_type(self) -> str:
        return "vision"

    # default to Pixtral 12B settings, might change later
    num_channels: int | None = 3
    image_size: int | None = 1024
    patch_size: int | None = 16
    image_token_id: int | None = 10  # pixtral uses 10, gemma3 uses 262144
    image_token_id_list: List[int] | None = Field(default=None, description="includes other image_token ids")
    mm_tokens_per_image: int | None = 256  # added for gemma3
    layernorm_pre: bool = True  # True for pixtral/mistral/deepseek False for gemma3/hunyuan
    layernorm_post: bool = False  # False for pixtral/mistral/deepseek/hunyuan True for gemma3
    patch_conv_bias: bool = False  # False for pixtral/mistral True for gemma3

    encoder_sam: bool = False  # True for DeepSeekOCR (Segment Anything Model as 1st step)
    use_class_embedding: bool = False
    pooling_kernel_size: int = 1  # avg-pool kernel for vision adapter (1=no pool, 3=Gemma4)

    # Qwen3.5 VL / Qwen3 VL style options
    temporal_patch_size: int = Field(
        default=1,
        description="Temporal kernel size for Conv3D patch embedding. "
        "When >1 a nn.Conv3d is used (e.g. Qwen3.5 VL uses 2).",
    )
    num_position_embeddings: int | None = Field(
        default=None,
        description="Size of the absolute position embedding table "
        "(Qwen3.5 VL uses 2304 = 48×48). When set together with "
        "position_encoding_type=Rotary both absolute embeddings and "
        "2D RoPE are applied.",
    )
    position_embedding_size: int | None = Field(
        default=None,
        description="Size of the learnable 2D position embedding table per axis "
        "(Gemma4 uses 10240). When set, a parameter of shape "
        "[2, position_embedding_size, hidden_size] is created and added to "
        "patch embeddings using (x, y) patch coordinates.",
    )
    standardize: bool = Field(
        default=False,
        description="When True, apply learned std_bias/std_scale normalization "
        "to the encoder output (Gemma4 31B dense model).",
    )


# use Field with default= + description would be more readable
# was inheriting from VocabConfig, but removed for now to facilitate inference tests
# could we have different BaseModelConfig classes (inheriting from a base one)
# for different architectures / model types?
class BaseModelConfig(Config):
    # some experiments around nested config
    embeddings: EmbeddingsConfig = Field(
        default_factory=EmbeddingsConfig,
        description="Contains most of the args useful to build the Embeddings module.",
    )
    encoder: (
        Union[
            TransformerEncoderConfig,
            RnnEncoderConfig,
            CnnEncoderConfig,
            MeanEncoderConfig,
            VisionEncoderConfig,
            AudioEncoderConfig,
        ]
        | None
    ) = Field(
        default=None,
        discriminator="encoder_type",
        description="Major parameters of an encoder.",
    )  # we shall use discriminators here
    decoder: (
        Union[
            TransformerDecoderConfig,
            RnnDecoderConfig,
            CnnDecoderConfig,
        ]
        | None
    ) = Field(
        default=None,
        discriminator="decoder_type",
        description="Major parameters of a decoder.",
    )  # we shall use discriminators here

    # model level stuff that may override enc/dec level
    hidden_size: int = Field(
        default=-1,
        description="Size of hidden states. Overwrites [encoder/decoder].hidden_size if set.",
    )
    word_vec_size: int = Field(default=-1, description="Word embedding size for src and tgt.")
    layers: int = Field(
        default=-1,
        description="Number of layers in both encoder and decoder " "(will overwrite enc_layers/dec_layers).",
    )
    transformer_ff: int = Field(default=-1, description="Size of hidden transformer feed-forward.")
    moe_transformer_ff: int | None = Field(default=None, description="Size of hidden moe transformer feed-forward.")

    share_decoder_embeddings: bool = Field(
        default=False,
        description="Use a share weight matrix for the input and output " "word embeddings in the decoder.",
    )
    share_embeddings: bool = Field(
        default=False,
        description="Share the word embeddings between encoder and decoder. "
        "Need to use shared vocabulary for this option.",
    )
    input_feed: int = Field(
        default=1,
        description="Feed the context vector at each time step as additional input "
        "(via concatenation with the word embeddings) to the decoder.",
    )  # is this useful / working anymore?
    generator_function: Literal["softmax", "sparsemax"] = Field(
        default="softmax",
        description="Which function to use for generating probabilities " "over the target vocabulary.",
    )
    generator_bias: bool = Field(
        default=True,
        description="Control whether or not the generator Linear module has bias weights.",
    )
    adapter_bias: bool = Field(
        default=False,
        description="Control whether or not the adapter module has bias weights.",
    )
    projector_activation_fn: ActivationFunction | None = Field(
        default=ActivationFunction.relu,
        description="The activation function to use in adapter projector layer.",
    )
    spatial_merge_size: int | None = Field(
        default=1,
        description="Control the presence and size of patch merger (Mistral3)",
    )

    add_estimator: bool = Field(default=False, description="Add estimator layer")
    estimator_type: Literal["average", "last_token", "first_token"] = Field(
        default="average",
        description="Which hidden_states to use to feed the estimator",
    )

    left_pad: bool = Field(default=False, description="Enable left-padding, useful for some LLMs.")
    huggingface_model: str | None = Field(default=None, description="Original huggingface model.")
    eole_version: str | None = Field(
        default=eole.__version__,
        description="Eole version used to convert/train/save the model.",
    )

    # @computed_field()
    # @property
    # def brnn(self) -> bool:
    #     if self.encoder is not None:
    #         return self.encoder.encoder_type == "brnn"

    @field_validator("spatial_merge_size")
    @classmethod
    def validate_merge_size(cls, v: int | None) -> int:
        return 1 if v is None else v

    @property
    def model_type(self) -> ModelType:
        if self.decoder is None:
            return ModelType.ENCODER
        elif self.encoder is None:
            return ModelType.DECODER
        else:
            return ModelType.ENCODER_DECODER

    @field_validator("encoder", "decoder", "embeddings", mode="before")
    @classmethod
    def str_to_dict(cls, v) -> Dict:
        if isinstance(v, str):
            # not sure about this patch to allow forcing encoder/decoder to None
            if v == "None":
                return None
            w = eval(v)
            return w
        return v

    # @field_validator("decoder", mode="before")
    # @classmethod
    # def str_to_dict(cls, v) -> Dict:
    #     if isinstance(v, str):
    #         return eval(v)
    #     return v

    architecture: str | None = None

    @model_validator(mode="before")
    @classmethod
    def default_architecture(cls, data: Any) -> Any:
        if not (isinstance(data, dict)):
            return data
        if "architecture" not in data.keys():
            data["architecture"] = "custom"
        return data

    def update_model_opts(self):
        update_dict = {}
        """
        if self.embeddings.position_encoding_type == PositionEncodingType.Rotary:
            if not self.rope_config:
                update_dict["rope_config"] = RotaryPositionConfig()
                rope_config = update_dict["rope_config"]
            else:
                rope_config = self.rope_config
        else:
            rope_config = None
        """

        if self.embeddings is not None and self.embeddings.word_vec_size > 0:
            update_dict["embeddings"] = {
                "src_word_vec_size": self.embeddings.word_vec_size,
                "tgt_word_vec_size": self.embeddings.word_vec_size,
            }
        if self.embeddings is not None and "embeddings" in update_dict.keys():
            self.embeddings.update(**update_dict.pop("embeddings"))

        if getattr(self.encoder, "encoder_type", None) == "brnn" and self.decoder.decoder_type == "rnn":
            if "decoder" not in update_dict:
                update_dict["decoder"] = {}
            update_dict["decoder"]["bidirectional_encoder"] = True

        if self.encoder is not None and hasattr(self.encoder, "src_word_vec_size"):
            update_dict["encoder"] = {"src_word_vec_size": self.embeddings.src_word_vec_size}
            if getattr(self.encoder, "encoder_type", None) == "transformer":
                update_dict["encoder"].update(
                    {
                        "position_encoding_type": self.embeddings.position_encoding_type,
                        "n_positions": self.embeddings.n_positions,
                        # "rope_config": rope_config,
                    }
                )
                update_dict["position_encoding_type"] = self.embeddings.position_encoding_type
        if self.encoder is not None and "encoder" in update_dict.keys():
            self.encoder.update(**update_dict.pop("encoder"))

        if self.decoder is not None:
            if "decoder" not in update_dict:
                update_dict["decoder"] = {}
            update_dict["decoder"]["tgt_word_vec_size"] = self.embeddings.tgt_word_vec_size
            if getattr(self.decoder, "decoder_type", None) == "transformer":
                update_dict["decoder"].update(
                    {
                        "position_encoding_type": self.embeddings.position_encoding_type,
                        "n_positions": self.embeddings.n_positions,
                        # "rope_config": rope_config,
                    }
                )
                update_dict["position_encoding_type"] = self.embeddings.position_encoding_type

        if self.decoder is not None and "decoder" in update_dict.keys():
            self.decoder.update(**update_dict.pop("decoder"))

        self.update(**update_dict)

        # causing some weird recursion issue in unit test, to investigate
        # if self.encoder is not None:
        #     self.brnn = self.encoder.encoder_type == "brnn"

    @model_validator(mode="after")
    def _override_values(self):
        # aggregate all fields in a single dict,
        # and update once to prevent validation mismatch
        embeddings_fields = {}
        encoder_fields = {}
        decoder_fields = {}
        for field in self.model_fields_set:
            if hasattr(self.embeddings, field) and field not in self.embeddings.model_fields_set:
                embeddings_fields[field] = getattr(self, field)
            if hasattr(self.encoder, field) and field not in self.encoder.model_fields_set:
                encoder_fields[field] = getattr(self, field)
            if hasattr(self.decoder, field) and field not in self.decoder.model_fields_set:
                decoder_fields[field] = getattr(self, field)
        if self.embeddings is not None:
            self.embeddings.update(**embeddings_fields)
        if self.encoder is not None:
            self.encoder.update(**encoder_fields)
        if self.decoder is not None:
            self.decoder.update(**decoder_fields)
        return self

    @model_validator(mode="after")
    def _validate_model_config(self):
        self.update_model_opts()

        # encoder and decoder should be same sizes
        if self.encoder is not None and self.decoder is not None:
            if isinstance(self.encoder, (VisionEncoderConfig, AudioEncoderConfig)):
                pass
            else:
                same_size = self.encoder.hidden_size == self.decoder.hidden_size
                assert same_size, "The encoder and decoder must have the same hidden size for seq2seq models."

        if self.share_embeddings:
            if self.encoder is None or self.decoder is None:
                raise AssertionError("--share_embeddings is for EncoderDecoder models only.")

        return self


class CustomModelConfig(TransformerConfig, BaseModelConfig):
    """
    Wrap anything that does not fit a set common architecture.
    """

    architecture: Literal["custom"] = Field(default="custom")


class RnnModelConfig(RnnConfig, BaseModelConfig):
    architecture: Literal["rnn"] = Field(default="rnn")

    @model_validator(mode="before")
    @classmethod
    def encoder_decoder_type(cls, data: Any) -> Any:
        # patch to allow transparent setting of encoder/decoder_type
        if not (isinstance(data, dict)):
            return data
        if "encoder" in data.keys():
            data["encoder"]["encoder_type"] = "rnn"
        else:
            data["encoder"] = {"encoder_type": "rnn"}
        if "decoder" in data.keys():
            data["decoder"]["decoder_type"] = "rnn"
        else:
            data["decoder"] = {"decoder_type": "rnn"}
        return data

    @model_validator(mode="before")
    @classmethod
    def default_architecture(cls, data: Any) -> Any:
        if not (isinstance(data, dict)):
            return data
        if "architecture" not in data.keys():
            data["architecture"] = "rnn"
        return data


class CnnModelConfig(CnnConfig, BaseModelConfig):
    architecture: Literal["cnn"] = Field(default="cnn")

    @model_validator(mode="before")
    @classmethod
    def encoder_decoder_type(cls, data: Any) -> Any:
        # we shall probably factorize this in BaseModelConfig
        # patch to allow transparent setting of encoder/decoder_type
        if not (isinstance(data, dict)):
            return data
        if "encoder" in data.keys():
            data["encoder"]["encoder_type"] = "cnn"
        else:
            data["encoder"] = {"encoder_type": "cnn"}
        if "decoder" in data.keys():
            data["decoder"]["decoder_type"] = "cnn"
        else:
            data["decoder"] = {"decoder_type": "cnn"}
        return data

    @model_validator(mode="before")
    @classmethod
    def default_architecture(cls, data: Any) -> Any:
        if not (isinstance(data, dict)):
            return data
        if "architecture" not in data.keys():
            data["architecture"] = "cnn"
        return data


class TransformerModelConfig(TransformerConfig, BaseModelConfig):
    """
    Facilitate setting some transformer specific params at model level.
    """

    architecture: Literal["transformer"] = Field(default="transformer")

    @model_validator(mode="before")
    @classmethod
    def encoder_decoder_type(cls, data: Any) -> Any:
        # patch to allow transparent setting of encoder/decoder_type
        if not (isinstance(data, dict)):
            return data
        if "encoder" in data.keys():
            data["encoder"]["encoder_type"] = "transformer"
        else:
            data["encoder"] = {"encoder_type": "transformer"}
        if "decoder" in data.keys():
            data["decoder"]["decoder_type"] = "transformer"
        else:
            data["decoder"] = {"decoder_type": "transformer"}
        return data

    @model_validator(mode="before")
    @classmethod
    def default_architecture(cls, data: Any) -> Any:
        if not (isinstance(data, dict)):
            return data
        if "architecture" not in data.keys():
            data["architecture"] = "transformer"
        return data

    @model_validator(mode="after")
    def _validate_transformer(self):
        return self


class TransformerLMModelConfig(TransformerConfig, BaseModelConfig):
    """
    Facilitate setting some transformer specific params at model level.
    """

    architecture: Literal["transformer_lm"] = Field(default="transformer_lm")

    # force encoder to None in TransformerLM case
    encoder: None = Field(default=None, description="Major parameters of an encoder.")

    @model_validator(mode="before")
    @classmethod
    def encoder_decoder_type(cls, data: Any) -> Any:
        # patch to allow transparent setting of encoder/decoder_type
        if not (isinstance(data, dict)):
            return data
        if "decoder" in data.keys():
            data["decoder"]["decoder_type"] = "transformer"
        else:
            data["decoder"] = {"decoder_type": "transformer"}
        return data

    @model_validator(mode="before")
    @classmethod
    def default_architecture(cls, data: Any) -> Any:
        if not (isinstance(data, dict)):
            return data
        if "architecture" not in data.keys():
            data["architecture"] = "transformer_lm"
        return data

    @model_validator(mode="after")
    def _validate_transformer(self):
        # duplicate with TransformerModelConfig, might merge at some point
        return self


class VisionTransformerLMModelConfig(TransformerConfig, BaseModelConfig):
    architecture: Literal["vision_transformer_lm"] = Field(default="vision_transformer_lm")

    adapter: str | None = Field(default="llava", description="Adapter type to use in the model.")

    @model_validator(mode="before")
    @classmethod
    def encoder_decoder_type(cls, data: Any) -> Any:
        # patch to allow transparent setting of encoder/decoder_type
        if not (isinstance(data, dict)):
            return data
        if "encoder" in data.keys():
            data["encoder"]["encoder_type"] = "vision"
        else:
            data["encoder"] = {"encoder_type": "vision"}
        if "decoder" in data.keys():
            data["decoder"]["decoder_type"] = "transformer"
        else:
            data["decoder"] = {"decoder_type": "transformer"}
        return data

    @model_validator(mode="before")
    @classmethod
    def default_architecture(cls, data: Any) -> Any:
        if not (isinstance(data, dict)):
            return data
        if "architecture" not in data.keys():
            data["architecture"] = "vision_transformer_lm"
        return data

    @model_validator(mode="after")
    def _validate_vision_transformer(self):
        # assert not (self.add_estimator), "Estimator layer not supported in Vision Transformer"
        return self

    @property
    def image_size(self):
        return self.encoder.image_size

    @property
    def patch_size(self):
        return self.encoder.patch_size


class WhisperModelConfig(TransformerConfig, BaseModelConfig):
    """Configuration for Whisper speech-to-text models."""

    architecture: Literal["whisper"] = Field(default="whisper")
    suppress_tokens: List[int] | None = Field(
        default=None,
        description="List of token IDs to suppress during audio decoding.",
    )
    begin_suppress_tokens: List[int] | None = Field(
        default=None,
        description="List of token IDs to suppress at the first generated position.",
    )
    no_timestamps_token_id: int | None = Field(
        default=None,
        description="Token ID for the no-timestamps token in audio models.",
    )
    word_timestamp_heads: List[List[int]] | None = Field(
        default=None,
        description="List of [layer, head] pairs for word-level timestamp extraction "
        "(mapped from alignment_heads in HF generation_config).",
    )
    median_filter_width: int = Field(
        default=7,
        description="Median filter width for word-level timestamp smoothing.",
    )

    @model_validator(mode="before")
    @classmethod
    def encoder_decoder_type(cls, data: Any) -> Any:
        if not (isinstance(data, dict)):
            return data
        if "encoder" in data.keys():
            data["encoder"]["encoder_type"] = "audio"
        else:
            data["encoder"] = {"encoder_type": "audio"}
        if "decoder" in data.keys():
            data["decoder"]["decoder_type"] = "transformer"
        else:
            data["decoder"] = {"decoder_type": "transformer"}
        return data

    @model_validator(mode="before")
    @classmethod
    def default_architecture(cls, data: Any) -> Any:
        if not (isinstance(data, dict)):
            return data
        if "architecture" not in data.keys():
            data["architecture"] = "whisper"
        return data


class TransformerEncoderModelConfig(TransformerConfig, BaseModelConfig):
    """
    Facilitate setting some transformer specific params at model level.
    """

    architecture: Literal["transformer_encoder"] = Field(default="transformer_encoder")

    # force decoder to None in TransformerEncoder case
    decoder: None = Field(default=None, description="Major parameters of a decoder.")

    @model_validator(mode="before")
    @classmethod
    def encoder_decoder_type(cls, data: Any) -> Any:
        # patch to allow transparent setting of encoder/decoder_type
        if not (isinstance(data, dict)):
            return data
        if "encoder" in data.keys():
            data["encoder"]["encoder_type"] = "transformer"
        else:
            data["encoder"] = {"encoder_type": "transformer"}
        return data

    @model_validator(mode="before")
    @classmethod
    def default_architecture(cls, data: Any) -> Any:
        if not (isinstance(data, dict)):
            return data
        if "architecture" not in data.keys():
            data["architecture"] = "transformer_encoder"
        return data

    @model_validator(mode="after")
    def _validate_transformer(self):
        # duplicate with TransformerModelConfig, might merge at some point
        if getattr(self.embeddings, "position_encoding", False) and self.max_relative_positions != 0:
            raise ValueError(
                "Cannot use absolute and relative position encoding at the"
                "same time. Use either --position_encoding=true for legacy"
                "absolute position encoding or --max_realtive_positions with"
                " -1 for Rotary, or > 0 for Relative Position Representations"
                "as in https://arxiv.org/pdf/1803.02155.pdf"
            )
        return self


class TransformerEncoderScorerModelConfig(BaseModelConfig):
    architecture: Literal["transformer_encoder_scorer"] = Field(default="transformer_encoder_scorer")
    encoder: TransformerEncoderConfig | None = Field(
        default_factory=TransformerEncoderConfig,
        description="Transformer encoder settings for encoder scorer models.",
    )
    decoder: None = Field(default=None, description="Encoder scorer models do not use a decoder.")
    embeddings: EmbeddingsConfig = Field(
        default_factory=EmbeddingsConfig,
        description="Embedding settings for encoder scorer models.",
    )

    scoring_type: Literal["comet", "pooled_regression"] = Field(default="comet")
    pretrained_model: str = Field(default="xlm-roberta-large")
    class_identifier: Literal[
        "regression_metric", "referenceless_regression_metric", "unified_metric", "xcomet_metric"
    ] = Field(default="regression_metric")
    requires_reference: bool = Field(default=True)
    pool: Literal["avg", "max", "cls"] = Field(default="avg")
    layer: str = Field(default="mix")
    layer_transformation: Literal["softmax", "sparsemax"] = Field(default="softmax")
    layer_norm: bool = Field(default=False)
    input_segments: List[str] = Field(default_factory=lambda: ["mt", "src", "ref"])
    word_layer: int | None = Field(default=None)
    error_labels: List[str] = Field(default_factory=lambda: ["minor", "major", "critical"])
    input_weights_spans: List[float] = Field(default_factory=lambda: [0.1667, 0.3333, 0.5])
    score_weights: List[float] = Field(default_factory=lambda: [0.12, 0.33, 0.33, 0.22])
    decoding_threshold: float | None = Field(default=None)
    hidden_sizes: List[int] = Field(default_factory=lambda: [3072, 1024])
    activations: str = Field(default="Tanh")
    final_activation: str | None = Field(default=None)
    dropout: float = Field(default=0.1)
    norm_eps: float = Field(default=1e-5)
    encoder_architecture: Literal["XLMRobertaForMaskedLM", "XLMRobertaXLForMaskedLM"] = Field(
        default="XLMRobertaForMaskedLM"
    )

    @model_validator(mode="before")
    @classmethod
    def encoder_decoder_type(cls, data: Any) -> Any:
        if not (isinstance(data, dict)):
            return data
        if "encoder" in data.keys():
            data["encoder"]["encoder_type"] = "transformer"
        else:
            data["encoder"] = {"encoder_type": "transformer"}
        return data

    @model_validator(mode="before")
    @classmethod
    def default_architecture(cls, data: Any) -> Any:
        if not (isinstance(data, dict)):
            return data
        if "architecture" not in data.keys():
            data["architecture"] = "transformer_encoder_scorer"
        return data

    @model_validator(mode="after")
    def sync_family_fields(self):
        if self.scoring_type == "comet":
            expected_requires_reference = self.class_identifier == "regression_metric" or (
                self.class_identifier == "unified_metric" and "ref" in self.input_segments
            )
            if self.requires_reference != expected_requires_reference:
                object.__setattr__(self, "requires_reference", expected_requires_reference)
            if self.class_identifier == "xcomet_metric":
                if self.error_labels != ["minor", "major", "critical"]:
                    raise ValueError("xcomet_metric expects error_labels=['minor', 'major', 'critical'].")
                if len(self.input_weights_spans) != 3:
                    raise ValueError("xcomet_metric expects exactly 3 input_weights_spans values.")
                if len(self.score_weights) != 4:
                    raise ValueError("xcomet_metric expects exactly 4 score_weights values.")
        elif self.scoring_type == "pooled_regression":
            if len(self.input_segments) != 1:
                raise ValueError("pooled_regression expects exactly one input segment.")
            if self.class_identifier == "unified_metric":
                raise ValueError("pooled_regression does not support class_identifier='unified_metric'.")
            if self.requires_reference:
                raise ValueError("pooled_regression should set requires_reference=false.")
        return self


class TransformerEncoderDecoderScorerModelConfig(TransformerModelConfig):
    architecture: Literal["transformer_encoder_decoder_scorer"] = Field(default="transformer_encoder_decoder_scorer")
    scoring_type: str = Field(default="token_regression")
    input_mode: str = Field(default="reference")
    default_input_mode: str = Field(default="reference")
    supported_input_modes: List[str] = Field(default_factory=lambda: ["reference"])
    input_templates: Dict[str, str] = Field(default_factory=lambda: {"reference": "{src} {tgt} {ref}"})
    requires_reference: bool = Field(default=True)
    strip_eos: bool = Field(default=True)
    score_token_id: int = Field(default=250089)
    score_position: int = Field(default=0)
    decoder_input_length: int = Field(default=2)
    score_min: float = Field(default=0.0)
    score_max: float = Field(default=25.0)
    max_length: int = Field(default=1536)
    output_scale: bool = Field(default=True)

    @model_validator(mode="before")
    @classmethod
    def default_architecture(cls, data: Any) -> Any:
        if not (isinstance(data, dict)):
            return data
        if "architecture" not in data.keys():
            data["architecture"] = "transformer_encoder_decoder_scorer"
        return data

    @model_validator(mode="after")
    def validate_decoder_scoring(self):
        if not self.supported_input_modes:
            raise ValueError("supported_input_modes must not be empty.")
        if self.default_input_mode not in self.supported_input_modes:
            raise ValueError("default_input_mode must be included in supported_input_modes.")
        if self.input_mode not in self.supported_input_modes:
            raise ValueError("input_mode must be included in supported_input_modes.")
        missing_templates = [mode for mode in self.supported_input_modes if mode not in self.input_templates]
        if missing_templates:
            raise ValueError("input_templates must define every supported_input_mode.")
        if self.decoder_input_length < 1:
            raise ValueError("decoder_input_length must be >= 1.")
        if self.score_position < 0:
            raise ValueError("score_position must be >= 0.")
        if self.score_position >= self.decoder_input_length:
            raise ValueError("score_position must be < decoder_input_length.")
        return self


# Facilitate transparent instanciation from dumped fields
# https://stackoverflow.com/a/76538571
ModelConfig = Annotated[
    Union[
        TransformerModelConfig,
        TransformerLMModelConfig,
        VisionTransformerLMModelConfig,
        WhisperModelConfig,
        TransformerEncoderModelConfig,
        TransformerEncoderScorerModelConfig,
        TransformerEncoderDecoderScorerModelConfig,
        RnnModelConfig,
        CnnModelConfig,
        CustomModelConfig,
    ],
    Field(discriminator="architecture"),  # noqa: F821
]

build_model_config = TypeAdapter(ModelConfig).validate_python
