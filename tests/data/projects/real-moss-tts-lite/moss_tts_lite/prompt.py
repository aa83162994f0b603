"""Build MOSS-TTS direct-TTS model inputs from raw text."""

import os

import torch

from moss_tts_lite.bpe import QwenBPE
from moss_tts_lite.normalizer import normalize_tts_text

__all__ = ["build_tts_prompt", "build_continuation_prompt", "apply_delay_pattern",
           "default_tokenizer", "MODEL_DIR"]

def _default_model_dir() -> str:
    """Repo-relative dev default; pip installs must pass a tokenizer or set the env var."""
    env = os.environ.get("MOSS_TTS_MODEL_DIR") or os.environ.get("MOSS_MIN_MODEL_DIR")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        os.pardir, "models", "MOSS-TTS-v1.5")

MODEL_DIR = _default_model_dir()

N_VQ = 32
AUDIO_PAD_CODE = 1024

# the 8 optional fields keep their reference string form ("None" when unset)
_USER_INST = ("<user_inst>\n- Reference(s):\n{reference}\n- Instruction:\n{instruction}\n"
              "- Tokens:\n{tokens}\n- Quality:\n{quality}\n- Sound Event:\n{sound_event}\n"
              "- Ambient Sound:\n{ambient_sound}\n- Language:\n{language}\n- Text:\n{text}\n"
              "</user_inst>")

AUDIO_START_TOKEN = "<|audio_start|>"
AUDIO_END_TOKEN = "<|audio_end|>"
ASSISTANT_GEN_SLOT_TOKEN = "<|audio_assistant_gen_slot|>"
ASSISTANT_DELAY_SLOT_TOKEN = "<|audio_assistant_delay_slot|>"
_AUDIO_START_ID, _AUDIO_END_ID = 151652, 151653
_GEN_SLOT_ID, _DELAY_SLOT_ID = 151656, 151662

_DEFAULT_TOKENIZER: QwenBPE | None = None

def default_tokenizer() -> QwenBPE:
    """Lazy singleton QwenBPE for MODEL_DIR (fast-tokenizer added tokens)."""
    global _DEFAULT_TOKENIZER
    if _DEFAULT_TOKENIZER is None:
        if not os.path.isfile(os.path.join(MODEL_DIR, "vocab.json")):
            raise FileNotFoundError(
                f"no tokenizer at {MODEL_DIR!r}. Pass tokenizer=<QwenBPE> to "
                f"build_tts_prompt, or set MOSS_TTS_MODEL_DIR to the MOSS-TTS-v1.5 "
                f"checkpoint directory (it must contain vocab.json/merges.txt).")
        tok_json = os.path.join(MODEL_DIR, "tokenizer.json")
        _DEFAULT_TOKENIZER = QwenBPE(
            os.path.join(MODEL_DIR, "vocab.json"), os.path.join(MODEL_DIR, "merges.txt"),
            tok_json if os.path.exists(tok_json)
            else os.path.join(MODEL_DIR, "added_tokens.json"))
    return _DEFAULT_TOKENIZER

def _render_user_inst(text, reference=None, instruction=None, tokens=None, quality=None,
                      sound_event=None, ambient_sound=None, language=None) -> str:
    """UserMessage; every unset field renders as the literal 'None'."""
    return _USER_INST.format(
        reference=reference, instruction=instruction, tokens=tokens, quality=quality,
        sound_event=sound_event, ambient_sound=ambient_sound, language=language, text=text)

def _apply_chat_template_user(content: str) -> str:
    """chat_template: a user turn immediately followed by an open assistant turn."""
    return f"<|im_start|>user\n{content}<|im_end|>\n<|im_start|>assistant\n"

def _unified(text_ids: list[int], audio: torch.Tensor | None = None) -> torch.Tensor:
    """[1, n, 33]: text in ch0, then 32 audio channels (PAD unless `audio` given)."""
    n = len(text_ids)
    t = torch.tensor(text_ids, dtype=torch.long).unsqueeze(1)
    a = torch.full((n, N_VQ), AUDIO_PAD_CODE, dtype=torch.long) if audio is None else audio
    return torch.cat([t, a], dim=1).unsqueeze(0)

def build_tts_prompt(text: str, language: str | None = None, tokens: int | None = None,
                     normalizer=None, tokenizer=None) -> dict:
    """Text -> TTS model inputs (single sample, no padding)."""
    tok = tokenizer if tokenizer is not None else default_tokenizer()
    norm = normalizer if normalizer is not None else normalize_tts_text
    ids = tok.encode(_apply_chat_template_user(
        _render_user_inst(norm(text), tokens=tokens, language=language)))
    return {"input_ids": _unified(ids),
            "attention_mask": torch.ones(1, len(ids), dtype=torch.bool)}

def apply_delay_pattern(codes: torch.Tensor, pad_code: int = AUDIO_PAD_CODE) -> torch.Tensor:
    """Verbatim port of MossTTSDelayProcessor: row i shifts channel i down by i."""
    delayed = torch.full((codes.shape[0] + codes.shape[1] - 1, codes.shape[1]),
                         pad_code, dtype=codes.dtype, device=codes.device)
    for i in range(codes.shape[1]):
        delayed[i:i + codes.shape[0], i] = codes[:, i]
    return delayed

def _assistant_audio_block(n_frames: int) -> str:
    """_replace_audio_placeholders: one gen slot per frame, then the delay ramp."""
    if n_frames == 0:
        return f"{AUDIO_START_TOKEN}{AUDIO_END_TOKEN}"
    return (f"{AUDIO_START_TOKEN}{ASSISTANT_GEN_SLOT_TOKEN * n_frames}"
            f"{ASSISTANT_DELAY_SLOT_TOKEN * (N_VQ - 1)}{AUDIO_END_TOKEN}")

def build_continuation_prompt(text: str, language: str | None = None,
                              prefix_codes: torch.Tensor | None = None,
                              tokens: int | None = None, normalizer=None,
                              tokenizer=None) -> dict:
    """Text + reference-audio codes -> continuation model inputs."""
    if (not isinstance(prefix_codes, torch.Tensor) or prefix_codes.dim() != 2
            or prefix_codes.shape[1] != N_VQ):
        raise ValueError(
            f"prefix_codes must be a Tensor[T, {N_VQ}], got "
            f"{type(prefix_codes).__name__} "
            f"{tuple(prefix_codes.shape) if isinstance(prefix_codes, torch.Tensor) else ''}")
    n_frames = int(prefix_codes.shape[0])
    if n_frames < N_VQ:
        raise ValueError(f"prefix_codes needs >= {N_VQ} rows for the delay ramp, got {n_frames}")
    tok = tokenizer if tokenizer is not None else default_tokenizer()
    norm = normalizer if normalizer is not None else normalize_tts_text
    for tok_str, want in ((AUDIO_START_TOKEN, _AUDIO_START_ID), (AUDIO_END_TOKEN, _AUDIO_END_ID),
                          (ASSISTANT_GEN_SLOT_TOKEN, _GEN_SLOT_ID),
                          (ASSISTANT_DELAY_SLOT_TOKEN, _DELAY_SLOT_ID)):
        if tok.encode(tok_str) != [want]:
            raise ValueError(f"tokenizer maps {tok_str!r} to {tok.encode(tok_str)}, "
                             f"expected [{want}]")
    content = _render_user_inst(norm(text), tokens=tokens, language=language)

    user = _unified(tok.encode(f"<|im_start|>user\n{content}<|im_end|>\n"))
    asst_ids = tok.encode(f"<|im_start|>assistant\n"
                          f"{_assistant_audio_block(n_frames)}<|im_end|>\n")
    starts = [i for i, t in enumerate(asst_ids) if t == _AUDIO_START_ID]
    ends = [i for i, t in enumerate(asst_ids) if t == _AUDIO_END_ID]
    if len(starts) != 1 or len(ends) != 1:
        raise ValueError(f"expected exactly one audio_start/audio_end in the "
                         f"assistant block, got {len(starts)}/{len(ends)}")
    head = int(starts[0]) + 1

    # audio ch0..31: PAD up to audio_start, then the delay pattern minus its trailing ramp
    delay = apply_delay_pattern(prefix_codes.detach().to(torch.long).cpu(), AUDIO_PAD_CODE)
    pad_head = torch.full((head, N_VQ), AUDIO_PAD_CODE, dtype=torch.long)
    audio = torch.cat([pad_head, delay[:-(N_VQ - 1), :]], dim=0)
    text_ch = torch.tensor(asst_ids, dtype=torch.long).unsqueeze(1)[:audio.shape[0]]
    asst = torch.cat([text_ch, audio], dim=1)

    unified = torch.cat([user[0], asst], dim=0)
    return {"input_ids": unified.unsqueeze(0),
            "attention_mask": torch.ones(1, int(unified.shape[0]), dtype=torch.bool)}
