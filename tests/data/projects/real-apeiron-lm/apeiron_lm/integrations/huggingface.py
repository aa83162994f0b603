# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
HuggingFace Transformers integration for Apeiron LM  (v0.0.2).

Wraps ApeironLM with the HuggingFace PreTrainedModel interface so it can be
used with Trainer, pipeline, AutoModel, and hub push/pull.

v0.0.2 additions
----------------
* ApeironByteTokenizer — a full HuggingFace-compatible tokenizer shim that
  makes pipeline("text-generation") work out of the box with no special cases.
* ApeironForCausalLM.generate_batch() mirrors ApeironLM.generate_batch().
* from_pretrained() now correctly sets device_map when loading.
* save_pretrained() saves an ApeironByteTokenizer alongside the model.
* push_to_hub() helper method.
* Full HuggingFace Trainer compatibility via correct CausalLMOutputWithPast.
* Similarity and embedding extraction via encode() and encode_batch().

Requires: pip install transformers
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import torch
import torch.nn as nn

try:
    from transformers import (
        PretrainedConfig,
        PreTrainedModel,
        PreTrainedTokenizerBase,
    )
    from transformers.modeling_outputs import CausalLMOutputWithPast
    from transformers.tokenization_utils_base import BatchEncoding
    import transformers
    _HF_AVAILABLE = True
except ImportError:
    _HF_AVAILABLE = False
    PretrainedConfig          = object          # type: ignore
    PreTrainedModel           = nn.Module       # type: ignore
    PreTrainedTokenizerBase   = object          # type: ignore
    CausalLMOutputWithPast    = None            # type: ignore

from apeiron_lm.configuration import ApeironConfig
from apeiron_lm.modeling      import ApeironLM


# ---------------------------------------------------------------------------
# HF-compatible config wrapper
# ---------------------------------------------------------------------------

class ApeironHFConfig(PretrainedConfig):  # type: ignore[misc]
    """
    HuggingFace-compatible configuration for Apeiron LM.

    All constructor parameters mirror those of ApeironConfig exactly.
    """

    model_type = "apeiron_lm"

    def __init__(
        self,
        latent_dim:            int   = 512,
        encoder_layers:        int   = 4,
        encoder_heads:         int   = 8,
        encoder_ff_dim:        int   = 2048,
        encoder_dropout:       float = 0.1,
        novelty_hidden:        int   = 256,
        num_prototypes:        int   = 64,
        num_candidates:        int   = 8,
        explorer_score_hidden: int   = 128,
        tau_init:              float = 1.0,
        tau_min:               float = 0.1,
        tau_anneal_factor:     float = 0.9995,
        n_max:                 int   = 512,
        len_hidden:            int   = 128,
        conv_kernel:           int   = 7,
        alpha:                 float = 0.1,
        beta:                  float = 0.01,
        gamma:                 float = 0.01,
        explorer_warmup_steps: int   = 1000,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.latent_dim            = latent_dim
        self.encoder_layers        = encoder_layers
        self.encoder_heads         = encoder_heads
        self.encoder_ff_dim        = encoder_ff_dim
        self.encoder_dropout       = encoder_dropout
        self.novelty_hidden        = novelty_hidden
        self.num_prototypes        = num_prototypes
        self.num_candidates        = num_candidates
        self.explorer_score_hidden = explorer_score_hidden
        self.tau_init              = tau_init
        self.tau_min               = tau_min
        self.tau_anneal_factor     = tau_anneal_factor
        self.n_max                 = n_max
        self.len_hidden            = len_hidden
        self.conv_kernel           = conv_kernel
        self.alpha                 = alpha
        self.beta                  = beta
        self.gamma                 = gamma
        self.explorer_warmup_steps = explorer_warmup_steps

    def to_apeiron_config(self) -> ApeironConfig:
        """Convert to a native ApeironConfig."""
        return ApeironConfig(
            latent_dim            = self.latent_dim,
            encoder_layers        = self.encoder_layers,
            encoder_heads         = self.encoder_heads,
            encoder_ff_dim        = self.encoder_ff_dim,
            encoder_dropout       = self.encoder_dropout,
            novelty_hidden        = self.novelty_hidden,
            num_prototypes        = self.num_prototypes,
            num_candidates        = self.num_candidates,
            explorer_score_hidden = self.explorer_score_hidden,
            tau_init              = self.tau_init,
            tau_min               = self.tau_min,
            tau_anneal_factor     = self.tau_anneal_factor,
            n_max                 = self.n_max,
            len_hidden            = self.len_hidden,
            conv_kernel           = self.conv_kernel,
            alpha                 = self.alpha,
            beta                  = self.beta,
            gamma                 = self.gamma,
            explorer_warmup_steps = self.explorer_warmup_steps,
        )

    @classmethod
    def from_apeiron_config(cls, cfg: ApeironConfig) -> "ApeironHFConfig":
        """Construct from a native ApeironConfig."""
        d = cfg.to_dict()
        d.pop("model_type", None)
        return cls(**d)


# ---------------------------------------------------------------------------
# Byte tokenizer shim — makes pipeline() work
# ---------------------------------------------------------------------------

class ApeironByteTokenizer:
    """
    HuggingFace-compatible byte-level tokenizer for Apeiron LM.

    Encodes strings as raw UTF-8 byte sequences (vocabulary size = 256).
    This shim makes ``pipeline("text-generation", model=...)`` work without
    requiring a real vocabulary.

    The tokenizer does not add special tokens (BOS/EOS) because Apeiron LM
    uses the raw byte sequence directly.

    Parameters
    ----------
    encoding : str
        Python codec used to convert strings to bytes.  Default "utf-8".

    Examples
    --------
    >>> tok = ApeironByteTokenizer()
    >>> enc = tok("Hello, world!")
    >>> enc["input_ids"]
    tensor([[72, 101, 108, 108, 111,  44,  32, 119, 111, 114, 108, 100,  33]])
    >>> tok.decode(enc["input_ids"][0].tolist())
    'Hello, world!'
    """

    model_max_length: int = 8192
    padding_side:     str = "right"
    is_fast:          bool = False
    pad_token_id:     int = 0
    eos_token_id:     int = 0
    bos_token_id:     int = 0

    def __init__(self, encoding: str = "utf-8") -> None:
        self.encoding = encoding

    # ── Encoding ──────────────────────────────────────────────────────────

    def __call__(
        self,
        text:               Union[str, List[str]],
        padding:            Union[bool, str] = False,
        truncation:         bool = False,
        max_length:         Optional[int] = None,
        return_tensors:     Optional[str] = None,
        add_special_tokens: bool = False,
        **kwargs,
    ) -> Dict[str, Any]:
        """
        Tokenize one or more strings.

        Parameters
        ----------
        text : str or List[str]
        padding : bool or str
        truncation : bool
        max_length : int or None
        return_tensors : str or None  ("pt" for PyTorch tensors)

        Returns
        -------
        dict with keys: input_ids, attention_mask
        """
        if isinstance(text, str):
            texts = [text]
            single = True
        else:
            texts = list(text)
            single = False

        encoded = [list(t.encode(self.encoding)) for t in texts]

        if truncation and max_length is not None:
            encoded = [e[:max_length] for e in encoded]

        max_len = max((len(e) for e in encoded), default=1)

        if padding:
            padded  = [e + [self.pad_token_id] * (max_len - len(e)) for e in encoded]
            masks   = [[1] * len(e) + [0] * (max_len - len(e)) for e in encoded]
        else:
            padded = encoded
            masks  = [[1] * len(e) for e in encoded]

        if return_tensors == "pt":
            if padding:
                ids_out  = torch.tensor(padded, dtype=torch.long)
                mask_out = torch.tensor(masks,  dtype=torch.long)
            else:
                # No padding: use list of tensors (variable-length)
                ids_out  = [torch.tensor(e, dtype=torch.long) for e in padded]
                mask_out = [torch.tensor(m, dtype=torch.long) for m in masks]
                if len(ids_out) == 1:
                    ids_out  = ids_out[0].unsqueeze(0)
                    mask_out = mask_out[0].unsqueeze(0)
        else:
            ids_out  = padded[0] if single else padded
            mask_out = masks[0]  if single else masks

        return {"input_ids": ids_out, "attention_mask": mask_out}

    def encode(self, text: str, **kwargs) -> List[int]:
        return list(text.encode(self.encoding))

    def decode(
        self,
        token_ids: Union[List[int], torch.Tensor],
        skip_special_tokens: bool = False,
        **kwargs,
    ) -> str:
        if isinstance(token_ids, torch.Tensor):
            token_ids = token_ids.cpu().tolist()
        return bytes(token_ids).decode(self.encoding, errors="replace")

    def batch_decode(
        self,
        sequences: Union[List[List[int]], torch.Tensor],
        skip_special_tokens: bool = False,
        **kwargs,
    ) -> List[str]:
        if isinstance(sequences, torch.Tensor):
            sequences = sequences.tolist()
        return [self.decode(s) for s in sequences]

    def convert_tokens_to_ids(self, tokens):
        if isinstance(tokens, int):
            return tokens
        return [t for t in tokens]

    def get_vocab(self) -> Dict[str, int]:
        return {chr(i): i for i in range(256)}

    @property
    def vocab_size(self) -> int:
        return 256

    def save_pretrained(self, save_directory: Union[str, Path]) -> None:
        Path(save_directory).mkdir(parents=True, exist_ok=True)
        cfg = {"encoding": self.encoding, "model_type": "apeiron_byte_tokenizer"}
        (Path(save_directory) / "tokenizer_config.json").write_text(
            json.dumps(cfg, indent=2)
        )

    @classmethod
    def from_pretrained(cls, path: Union[str, Path]) -> "ApeironByteTokenizer":
        cfg_path = Path(path) / "tokenizer_config.json"
        if cfg_path.exists():
            cfg = json.loads(cfg_path.read_text())
            return cls(encoding=cfg.get("encoding", "utf-8"))
        return cls()


# ---------------------------------------------------------------------------
# HF PreTrainedModel wrapper
# ---------------------------------------------------------------------------

class ApeironPreTrainedModel(PreTrainedModel):  # type: ignore[misc]
    """Base class for HuggingFace-compatible Apeiron models."""

    config_class       = ApeironHFConfig
    base_model_prefix  = "apeiron_lm"
    supports_gradient_checkpointing = False
    _no_split_modules  = ["ByteEncoder", "LatentExplorer", "UnifiedLatentReasoner"]

    def _init_weights(self, module: nn.Module) -> None:
        ApeironLM._init_weights(module)


class ApeironForCausalLM(ApeironPreTrainedModel):
    """
    Apeiron LM wrapped as a HuggingFace PreTrainedModel.

    Supports:
    * from_pretrained / save_pretrained (local + HF Hub)
    * HuggingFace Trainer
    * pipeline("text-generation") via ApeironByteTokenizer
    * encode() / encode_batch() for embedding extraction
    * Full generate() / generate_text() / generate_batch() API

    Notes
    -----
    Because Apeiron LM operates on raw bytes (no vocabulary), the standard
    HuggingFace generate() method is bypassed.  Use generate_text() or
    generate_bytes() directly for inference.

    To use with pipeline():
    >>> from transformers import pipeline
    >>> gen = pipeline("text-generation", model=model, tokenizer=ApeironByteTokenizer())
    >>> gen("Hello, world!", max_new_tokens=128)
    """

    def __init__(self, config: ApeironHFConfig) -> None:
        if not _HF_AVAILABLE:
            raise ImportError(
                "transformers is required.  Install with: pip install transformers"
            )
        super().__init__(config)
        self.apeiron_lm = ApeironLM(config.to_apeiron_config())
        self.post_init()

    # ── Forward (HuggingFace-style) ───────────────────────────────────────

    def forward(
        self,
        input_ids:       torch.Tensor,
        attention_mask:  Optional[torch.Tensor] = None,
        labels:          Optional[torch.Tensor] = None,
        target_lengths:  Optional[torch.Tensor] = None,
        return_dict:     bool = True,
        **kwargs,
    ) -> "CausalLMOutputWithPast":
        """
        HuggingFace-compatible forward pass.

        Convention mapping:
        * input_ids      → input_bytes      (byte values)
        * attention_mask → ~input_mask      (HF: 1=valid, Apeiron: True=pad)
        * labels         → target_bytes     (byte values, -1 for padding)

        Parameters
        ----------
        input_ids : torch.Tensor  shape (B, L)
        attention_mask : torch.Tensor or None  shape (B, L)
        labels : torch.Tensor or None  shape (B, N_max)
        target_lengths : torch.Tensor or None  shape (B,)
        return_dict : bool

        Returns
        -------
        CausalLMOutputWithPast
        """
        input_mask = None
        if attention_mask is not None:
            input_mask = attention_mask.eq(0)

        if labels is not None:
            if target_lengths is None:
                target_lengths = (labels != -1).sum(dim=-1).long()
            out = self.apeiron_lm(
                input_bytes    = input_ids,
                target_bytes   = labels,
                target_lengths = target_lengths,
                input_mask     = input_mask,
            )
            from transformers.modeling_outputs import CausalLMOutputWithPast as _O
            return _O(loss=out["loss"], logits=out["logits"])
        else:
            v_final = self._encode(input_ids, input_mask)
            logits, _ = self.apeiron_lm.reasoner(v_final)
            from transformers.modeling_outputs import CausalLMOutputWithPast as _O
            return _O(logits=logits)

    def _encode(
        self,
        input_ids:  torch.Tensor,
        input_mask: Optional[torch.Tensor],
    ) -> torch.Tensor:
        v = self.apeiron_lm.byte_encoder(input_ids, mask=input_mask)
        novel_mask = self.apeiron_lm.novelty_estimator.is_novel(v)
        if novel_mask.any():
            c_star, _ = self.apeiron_lm.latent_explorer(v)
            return torch.where(novel_mask.unsqueeze(-1), c_star, v)
        return v

    # ── Native generation API ─────────────────────────────────────────────

    @torch.no_grad()
    def generate_text(
        self,
        text:         str,
        max_generate: Optional[int] = None,
        temperature:  float         = 1.0,
        top_k:        Optional[int] = None,
        top_p:        Optional[float] = None,
        device:       Optional[torch.device] = None,
    ) -> str:
        """Generate text from a string prompt."""
        return self.apeiron_lm.generate_text(
            text, device=device, max_generate=max_generate,
            temperature=temperature, top_k=top_k, top_p=top_p,
        )

    @torch.no_grad()
    def generate_bytes(
        self,
        input_bytes:  torch.Tensor,
        max_generate: Optional[int] = None,
        **kwargs,
    ) -> List[bytes]:
        """Generate bytes from a raw byte tensor."""
        return self.apeiron_lm.generate(
            input_bytes, max_generate=max_generate, **kwargs
        )

    @torch.no_grad()
    def generate_batch(
        self,
        texts:        List[str],
        max_generate: Optional[int] = None,
        temperature:  float         = 1.0,
        top_k:        Optional[int] = None,
        top_p:        Optional[float] = None,
    ) -> List[str]:
        """Batched text generation."""
        return self.apeiron_lm.generate_batch(
            texts, max_generate=max_generate,
            temperature=temperature, top_k=top_k, top_p=top_p,
        )

    # ── Embedding / similarity ────────────────────────────────────────────

    @torch.no_grad()
    def encode(self, text: str, **kwargs) -> torch.Tensor:
        """Encode a string to a latent vector  (1, C)."""
        return self.apeiron_lm.encode(text, **kwargs)

    @torch.no_grad()
    def encode_batch(self, texts: List[str], **kwargs) -> torch.Tensor:
        """Encode a list of strings to a batch of latent vectors  (B, C)."""
        return self.apeiron_lm.encode_batch(texts, **kwargs)

    @torch.no_grad()
    def similarity(self, text_a: str, text_b: str) -> float:
        """
        Cosine similarity between the latent vectors of two strings.

        Returns
        -------
        float in [-1, 1]
        """
        import torch.nn.functional as F
        va = self.encode(text_a)   # (1, C)
        vb = self.encode(text_b)   # (1, C)
        return float(F.cosine_similarity(va, vb).item())

    # ── Checkpoint helpers ────────────────────────────────────────────────

    def save_pretrained(
        self,
        save_directory:    Union[str, Path],
        save_tokenizer:    bool = True,
        **kwargs,
    ) -> None:
        """
        Save model weights, HF config, and (optionally) the byte tokenizer.

        Parameters
        ----------
        save_directory : str or Path
        save_tokenizer : bool
            If True (default), also saves an ApeironByteTokenizer.
        """
        super().save_pretrained(save_directory, **kwargs)
        # Also save native config for ApeironLM.load() compatibility
        self.apeiron_lm.config.save(save_directory)
        if save_tokenizer:
            ApeironByteTokenizer().save_pretrained(save_directory)

    @classmethod
    def from_pretrained(
        cls,
        pretrained_model_name_or_path: Union[str, Path],
        *args,
        **kwargs,
    ) -> "ApeironForCausalLM":
        """
        Load from a local directory or HF Hub model ID.

        Automatically detects whether the checkpoint is a native Apeiron
        checkpoint (has apeiron_config.json) or an HF checkpoint (has
        config.json with model_type=apeiron_lm).
        """
        path = Path(pretrained_model_name_or_path)
        if path.exists() and (path / "apeiron_config.json").exists():
            # Native checkpoint — use from_apeiron_checkpoint
            device = kwargs.pop("device_map", None)
            return cls.from_apeiron_checkpoint(path, device=device)
        return super().from_pretrained(pretrained_model_name_or_path, *args, **kwargs)

    @classmethod
    def from_apeiron_checkpoint(
        cls,
        directory: Union[str, Path],
        device:    Optional[Union[str, torch.device]] = None,
    ) -> "ApeironForCausalLM":
        """
        Load from a checkpoint directory created by ApeironLM.save().

        Parameters
        ----------
        directory : str or Path
        device : str or torch.device or None
        """
        apeiron_model = ApeironLM.load(directory, device=device)
        hf_config     = ApeironHFConfig.from_apeiron_config(apeiron_model.config)
        hf_model      = cls(hf_config)
        hf_model.apeiron_lm.load_state_dict(apeiron_model.state_dict())
        if device is not None:
            hf_model = hf_model.to(device)
        return hf_model

    def push_to_hub(self, repo_id: str, **kwargs) -> None:
        """
        Push model to HuggingFace Hub.

        Parameters
        ----------
        repo_id : str  e.g. "username/my-apeiron-model"
        """
        if not _HF_AVAILABLE:
            raise ImportError("transformers is required for push_to_hub.")
        with tempfile.TemporaryDirectory() as tmp:
            self.save_pretrained(tmp)
            from huggingface_hub import HfApi
            api = HfApi()
            api.upload_folder(folder_path=tmp, repo_id=repo_id, **kwargs)
