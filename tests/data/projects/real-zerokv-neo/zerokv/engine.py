"""HF `generate` integration: Dynamic (FP), HF QuantizedCache, or ZeroKV cache."""

from __future__ import annotations

import logging
import time
from enum import Enum
from typing import Any, Dict, Generator, List, Optional, Union

import torch
from transformers import GenerationConfig, TextIteratorStreamer

from zerokv.attention_score_hooks import AttentionHHState, register_attention_hh_hooks, remove_hooks
from zerokv.cache import build_zerokv_cache
from zerokv.profiles import load_profile_optional
from zerokv.hadamard import MAX_FWHT_REST_DIM
from zerokv.heavy_hitter_bridge import attach_zerokv_heavy_hitter_provider
from zerokv.kv_report import estimate_zerokv_cache_footprint
from zerokv.loader import load_model_with_fallback, pick_device
from zerokv.metrics import cleanup_after_inference, get_memory_stats, kv_cache_bytes_from_model
from zerokv.profiler import ZeroKVProfiler
from zerokv.user_metrics import build_user_friendly_report

logger = logging.getLogger("zerokv.engine")


class KVMode(str, Enum):
    DYNAMIC_FP = "dynamic_fp"
    HF_QUANTIZED = "hf_quantized"
    ZEROKV = "zerokv"


class ZeroKVEngine:
    def __init__(
        self,
        model_id: str = "Qwen/Qwen2.5-0.5B-Instruct",
        kv_mode: KVMode = KVMode.DYNAMIC_FP,
        zerokv_sliding_window: int = 256,
        zerokv_outlier_fraction: Optional[float] = None,
        zerokv_adaptive_windows: bool = True,
        zerokv_hadamard_rest: bool = True,
        zerokv_max_fwht_rest_dim: Optional[int] = None,
        zerokv_heavy_hitter_budget: int = 0,
        zerokv_attention_heavy_hitter: bool = False,
        zerokv_min_prompt_tokens: int = 0,
        zerokv_profile_path: Optional[str] = None,
        zerokv_online_adapt: bool = False,
        zerokv_online_adapt_lr: float = 0.05,
        zerokv_online_adapt_momentum: float = 0.9,
        zerokv_online_adapt_reset_interval: int = 0,
    ):
        self.model_id = model_id
        self.kv_mode = KVMode(kv_mode) if not isinstance(kv_mode, KVMode) else kv_mode
        self.zerokv_sliding_window = zerokv_sliding_window
        self.zerokv_outlier_fraction = zerokv_outlier_fraction
        self.zerokv_adaptive_windows = zerokv_adaptive_windows
        self.zerokv_hadamard_rest = zerokv_hadamard_rest
        self.zerokv_max_fwht_rest_dim = (
            int(zerokv_max_fwht_rest_dim) if zerokv_max_fwht_rest_dim is not None else MAX_FWHT_REST_DIM
        )
        self.zerokv_heavy_hitter_budget = max(0, int(zerokv_heavy_hitter_budget))
        self.zerokv_attention_heavy_hitter = bool(zerokv_attention_heavy_hitter)
        self.zerokv_min_prompt_tokens = max(0, int(zerokv_min_prompt_tokens))
        self.zerokv_profile_path = zerokv_profile_path
        self._zerokv_profile = load_profile_optional(zerokv_profile_path) if zerokv_profile_path else None
        self.zerokv_online_adapt = bool(zerokv_online_adapt)
        self.zerokv_online_adapt_lr = float(zerokv_online_adapt_lr)
        self.zerokv_online_adapt_momentum = float(zerokv_online_adapt_momentum)
        self.zerokv_online_adapt_reset_interval = max(0, int(zerokv_online_adapt_reset_interval))
        self.model = None
        self.tokenizer = None
        self.load_tag = ""
        self._device = pick_device()
        self._last_kv_report: Optional[Dict[str, Any]] = None
        self._last_generation: Optional[Dict[str, Any]] = None
        self._last_zerokv_bypass: Optional[str] = None

    def initialize(self) -> "ZeroKVEngine":
        self.model, self.tokenizer, self.load_tag = load_model_with_fallback(self.model_id, device=self._device)
        logger.info("Loaded %s via %s on %s", self.model_id, self.load_tag, self._device)
        return self

    def _generation_config(self) -> Optional[GenerationConfig]:
        if self.kv_mode != KVMode.HF_QUANTIZED:
            return None
        try:
            gc = GenerationConfig.from_model_config(self.model.config)
            gc.cache_implementation = "quantized"
            gc.cache_config = {
                "config": self.model.config,
                "backend": "quanto",
                "nbits": 4,
                "q_group_size": 64,
                "residual_length": self.zerokv_sliding_window,
            }
            return gc
        except Exception as e:
            logger.warning("HF quantized cache unavailable (%s); falling back to dynamic FP.", e)
            return None

    def _zerokv_past_for_prompt(self, prompt_token_len: int) -> Any:
        """
        When ``zerokv_min_prompt_tokens > 0`` and the prompt is shorter, skip ZeroKV and use
        dynamic FP KV so short-context runs avoid dequant overhead and tail-dominated "negative compression".
        """
        if self.zerokv_min_prompt_tokens > 0 and prompt_token_len < self.zerokv_min_prompt_tokens:
            self._last_zerokv_bypass = "short_prompt"
            logger.info(
                "ZeroKV: prompt_len=%d < zerokv_min_prompt_tokens=%d → FP KV (bypass)",
                prompt_token_len,
                self.zerokv_min_prompt_tokens,
            )
            return None

        try:
            return build_zerokv_cache(
                self.model.config,
                sliding_window=self.zerokv_sliding_window,
                outlier_fraction=self.zerokv_outlier_fraction,
                adaptive_sliding_window=self.zerokv_adaptive_windows,
                hadamard_rest=self.zerokv_hadamard_rest,
                max_fwht_rest_dim=self.zerokv_max_fwht_rest_dim,
                heavy_hitter_budget=self.zerokv_heavy_hitter_budget,
                profile=self._zerokv_profile,
                online_adapt=self.zerokv_online_adapt,
                online_adapt_lr=self.zerokv_online_adapt_lr,
                online_adapt_momentum=self.zerokv_online_adapt_momentum,
                online_adapt_reset_interval=self.zerokv_online_adapt_reset_interval,
            )
        except RuntimeError as e:
            if "out of memory" in str(e).lower() or "cuda" in str(e).lower():
                self._last_zerokv_bypass = "oom_fallback"
                logger.warning(
                    "ZeroKV: OOM during cache build → falling back to conservative settings"
                )
                return build_zerokv_cache(
                    self.model.config,
                    sliding_window=128,
                    outlier_fraction=0.15,
                    adaptive_sliding_window=False,
                    hadamard_rest=False,
                    max_fwht_rest_dim=256,
                    heavy_hitter_budget=0,
                    profile=None,
                    online_adapt=False,
                )
            raise

    def _use_attention_hh_for_zerokv(self, past_key_values: Any) -> bool:
        return (
            self.kv_mode == KVMode.ZEROKV
            and self.zerokv_attention_heavy_hitter
            and past_key_values is not None
            and self.zerokv_heavy_hitter_budget > 0
        )

    def speculative_generate(
        self,
        prompt: str,
        draft_model_id: str = "",
        *,
        max_new_tokens: int = 128,
        temperature: float = 0.7,
        top_p: float = 0.9,
        do_sample: bool = True,
        use_chat_template: bool = True,
        num_draft_tokens: int = 4,
    ) -> Dict[str, Any]:
        """Speculative decoding with ZeroKV KV cache on both target and draft models.

        Uses HF's `assisted_generation` under the hood. Both models get ZeroKV
        compressed KV caches for memory efficiency.
        """
        if self.model is None:
            raise RuntimeError("Call initialize() first.")

        from transformers import AutoModelForCausalLM, AutoTokenizer

        draft_id = draft_model_id or self._infer_draft_model_id()
        logger.info("Loading draft model: %s", draft_id)
        draft_model, draft_tok, _ = load_model_with_fallback(draft_id, device=self._device)
        draft_model.eval()

        tpl = getattr(self.tokenizer, "chat_template", None)
        if use_chat_template and tpl and hasattr(self.tokenizer, "apply_chat_template"):
            messages = [{"role": "user", "content": prompt}]
            prompt_text = self.tokenizer.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True
            )
        else:
            prompt_text = prompt

        inputs = self.tokenizer(prompt_text, return_tensors="pt")
        inputs = {k: v.to(self.model.device) for k, v in inputs.items()}
        prompt_len = int(inputs["input_ids"].shape[1])

        target_cache = self._zerokv_past_for_prompt(prompt_len)
        draft_cache = build_zerokv_cache(
            draft_model.config,
            sliding_window=self.zerokv_sliding_window,
            outlier_fraction=self.zerokv_outlier_fraction,
            adaptive_sliding_window=self.zerokv_adaptive_windows,
            hadamard_rest=self.zerokv_hadamard_rest,
            max_fwht_rest_dim=self.zerokv_max_fwht_rest_dim,
            heavy_hitter_budget=self.zerokv_heavy_hitter_budget,
            profile=self._zerokv_profile,
            online_adapt=False,
        )

        gen_kw = dict(
            max_new_tokens=max_new_tokens,
            pad_token_id=self.tokenizer.pad_token_id,
            eos_token_id=self.tokenizer.eos_token_id,
            do_sample=do_sample,
            assistant_model=draft_model,
            assistant_past_key_values=draft_cache,
        )
        if do_sample:
            gen_kw["temperature"] = max(temperature, 1e-5)
            gen_kw["top_p"] = top_p
        else:
            gen_kw["temperature"] = None

        t0 = time.perf_counter()
        handles: List[Any] = []
        snap: Dict[str, Any] = {}
        try:
            if target_cache is not None and self._use_attention_hh_for_zerokv(target_cache):
                hh_state = AttentionHHState()
                attach_zerokv_heavy_hitter_provider(target_cache, hh_state.make_provider())
                handles = register_attention_hh_hooks(self.model, hh_state)
                snap = self._snapshot_attn_implementation()
            gen_out = self.model.generate(
                **inputs,
                past_key_values=target_cache,
                return_dict_in_generate=True,
                **gen_kw,
            )
        finally:
            remove_hooks(handles)
            self._restore_attn_implementation(snap)

        dt = time.perf_counter() - t0
        seq = gen_out.sequences
        text = self.tokenizer.decode(seq[0], skip_special_tokens=True)
        n_new = int(seq.shape[1] - prompt_len)
        tps = round(n_new / dt, 2) if dt > 0 and n_new > 0 else 0.0

        report = {
            "text": text,
            "new_tokens": n_new,
            "wall_seconds": round(dt, 3),
            "tokens_per_second": tps,
            "speculative": True,
            "draft_model": draft_id,
            "num_draft_tokens": num_draft_tokens,
        }

        if target_cache is not None:
            report["kv_report"] = estimate_zerokv_cache_footprint(target_cache)

        self._last_generation = {
            "new_tokens": n_new,
            "wall_seconds": round(dt, 3),
            "tokens_per_second": tps,
            "streamed": False,
            "speculative": True,
        }
        cleanup_after_inference()
        return report

    def _infer_draft_model_id(self) -> str:
        """Infer a smaller draft model from the current model ID."""
        mid = self.model_id
        if "7B" in mid or "7b" in mid:
            return mid.replace("7B", "0.5B").replace("7b", "0.5b")
        if "13B" in mid or "13b" in mid or "14B" in mid or "14b" in mid:
            return mid.replace("13B", "1.5B").replace("13b", "1.5b").replace("14B", "1.5B").replace("14b", "1.5b")
        if "1.5B" in mid or "1.5b" in mid:
            return mid.replace("1.5B", "0.5B").replace("1.5b", "0.5b")
        if "3B" in mid or "3b" in mid:
            return mid.replace("3B", "0.5B").replace("3b", "0.5b")
        return mid.replace("Instruct", "base").rsplit("-", 1)[0] + "-0.5B"

    def batch_generate(
        self,
        prompts: List[str],
        *,
        max_new_tokens: int = 128,
        temperature: float = 0.7,
        top_p: float = 0.9,
        do_sample: bool = True,
        use_chat_template: bool = True,
    ) -> List[Dict[str, Any]]:
        """Process multiple prompts in a single batched forward pass.

        All prompts are tokenized, padded, and decoded together.
        Each prompt gets its own ZeroKV KV cache layer state.
        """
        if self.model is None:
            raise RuntimeError("Call initialize() first.")

        if not prompts:
            return []

        if len(prompts) == 1:
            result = self.generate(
                prompts[0],
                max_new_tokens=max_new_tokens,
                temperature=temperature,
                top_p=top_p,
                do_sample=do_sample,
                use_chat_template=use_chat_template,
            )
            return [{"prompt": prompts[0], "text": result}]

        processed = []
        for p in prompts:
            tpl = getattr(self.tokenizer, "chat_template", None)
            if use_chat_template and tpl and hasattr(self.tokenizer, "apply_chat_template"):
                messages = [{"role": "user", "content": p}]
                prompt_text = self.tokenizer.apply_chat_template(
                    messages, tokenize=False, add_generation_prompt=True
                )
            else:
                prompt_text = p
            processed.append(prompt_text)

        tokenized = self.tokenizer(
            processed,
            return_tensors="pt",
            padding=True,
            truncation=True,
        )
        tokenized = {k: v.to(self.model.device) for k, v in tokenized.items()}
        prompt_lens = tokenized["attention_mask"].sum(dim=1).tolist()

        past_key_values = None
        if self.kv_mode == KVMode.ZEROKV:
            max_prompt_len = max(prompt_lens)
            past_key_values = self._zerokv_past_for_prompt(max_prompt_len)

        gen_kw = dict(
            max_new_tokens=max_new_tokens,
            pad_token_id=self.tokenizer.pad_token_id,
            eos_token_id=self.tokenizer.eos_token_id,
            do_sample=do_sample,
        )
        if do_sample:
            gen_kw["temperature"] = max(temperature, 1e-5)
            gen_kw["top_p"] = top_p
        else:
            gen_kw["temperature"] = None

        t0 = time.perf_counter()
        handles: List[Any] = []
        snap: Dict[str, Any] = {}
        try:
            if past_key_values is not None and self._use_attention_hh_for_zerokv(past_key_values):
                hh_state = AttentionHHState()
                attach_zerokv_heavy_hitter_provider(past_key_values, hh_state.make_provider())
                handles = register_attention_hh_hooks(self.model, hh_state)
                snap = self._snapshot_attn_implementation()
            gen_out = self.model.generate(
                **tokenized,
                past_key_values=past_key_values,
                return_dict_in_generate=True,
                **gen_kw,
            )
        finally:
            remove_hooks(handles)
            self._restore_attn_implementation(snap)

        dt = time.perf_counter() - t0
        sequences = gen_out.sequences
        batch_size = len(prompts)

        results = []
        for i in range(batch_size):
            prompt_len = int(prompt_lens[i])
            output_ids = sequences[i, prompt_len:]
            text = self.tokenizer.decode(output_ids, skip_special_tokens=True)
            n_new = int(output_ids.shape[0])
            results.append({
                "prompt": prompts[i],
                "text": text,
                "new_tokens": n_new,
            })

        total_tokens = sum(r["new_tokens"] for r in results)
        tps = round(total_tokens / dt, 2) if dt > 0 and total_tokens > 0 else 0.0

        self._last_generation = {
            "new_tokens": total_tokens,
            "wall_seconds": round(dt, 3),
            "tokens_per_second": tps,
            "streamed": False,
            "batch_size": batch_size,
        }

        if self.kv_mode == KVMode.ZEROKV and past_key_values is not None:
            self._last_kv_report = estimate_zerokv_cache_footprint(past_key_values)

        cleanup_after_inference()
        return results

    def compare_greedy_baseline(self, prompt: str, max_new_tokens: int = 32) -> Dict[str, Any]:
        return (
            self.kv_mode == KVMode.ZEROKV
            and self.zerokv_attention_heavy_hitter
            and past_key_values is not None
            and self.zerokv_heavy_hitter_budget > 0
        )

    def _snapshot_attn_implementation(self) -> Dict[str, Any]:
        cfg = self.model.config
        snap: Dict[str, Any] = {}
        for k in ("_attn_implementation", "attn_implementation"):
            if hasattr(cfg, k):
                snap[k] = getattr(cfg, k)
                setattr(cfg, k, "eager")
        return snap

    def _restore_attn_implementation(self, snap: Dict[str, Any]) -> None:
        cfg = self.model.config
        for k, v in snap.items():
            if hasattr(cfg, k):
                setattr(cfg, k, v)

    def _stream_generate(
        self,
        inputs: Dict[str, Any],
        gen_kw: Dict[str, Any],
        past_key_values: Any,
        generation_config: Optional[GenerationConfig],
    ) -> Generator[str, None, None]:
        """Separate generator so `generate()` without streaming stays a normal function."""
        streamer = TextIteratorStreamer(self.tokenizer, skip_prompt=True, skip_special_tokens=True)
        gk = {**gen_kw, "streamer": streamer}
        import threading

        holder: Dict[str, Any] = {}
        prompt_len = int(inputs["input_ids"].shape[1])
        t0 = time.perf_counter()

        def _run() -> None:
            handles: List[Any] = []
            snap: Dict[str, Any] = {}
            try:
                if past_key_values is not None and self._use_attention_hh_for_zerokv(past_key_values):
                    hh_state = AttentionHHState()
                    attach_zerokv_heavy_hitter_provider(past_key_values, hh_state.make_provider())
                    handles = register_attention_hh_hooks(self.model, hh_state)
                    snap = self._snapshot_attn_implementation()
                with torch.inference_mode():
                    out = self.model.generate(
                        **inputs,
                        past_key_values=past_key_values,
                        generation_config=generation_config,
                        return_dict_in_generate=True,
                        **gk,
                    )
                    holder["gen_out"] = out
            except Exception as e:
                holder["error"] = e
                logger.exception("Streaming generate failed: %s", e)
            finally:
                remove_hooks(handles)
                self._restore_attn_implementation(snap)

        t = threading.Thread(target=_run)
        t.start()
        try:
            for text in streamer:
                yield text
        finally:
            t.join()
            dt = time.perf_counter() - t0
            err = holder.get("error")
            gen_out = holder.get("gen_out")
            if err is not None or gen_out is None:
                self._last_generation = None
                self._last_kv_report = None
            else:
                seq = gen_out.sequences
                n_new = int(seq.shape[1] - prompt_len)
                tps = round(n_new / dt, 2) if dt > 0 and n_new > 0 else 0.0
                self._last_generation = {
                    "new_tokens": n_new,
                    "wall_seconds": round(dt, 3),
                    "tokens_per_second": tps,
                    "streamed": True,
                }
                if n_new > 0 and dt > 0:
                    logger.info(
                        "Streamed %d tokens in %.2fs (%.2f tok/s)", n_new, dt, n_new / dt
                    )
                if (
                    self.kv_mode == KVMode.ZEROKV
                    and self._last_zerokv_bypass is None
                    and getattr(gen_out, "past_key_values", None) is not None
                ):
                    self._last_kv_report = estimate_zerokv_cache_footprint(gen_out.past_key_values)
                else:
                    self._last_kv_report = None
            cleanup_after_inference()

    @torch.inference_mode()
    def generate(
        self,
        prompt: str,
        *,
        max_new_tokens: int = 128,
        temperature: float = 0.7,
        top_p: float = 0.9,
        do_sample: bool = True,
        stream: bool = False,
        use_chat_template: bool = True,
    ) -> Union[str, Generator[str, None, None]]:
        if self.model is None:
            raise RuntimeError("Call initialize() first.")

        tpl = getattr(self.tokenizer, "chat_template", None)
        if use_chat_template and tpl and hasattr(self.tokenizer, "apply_chat_template"):
            messages = [{"role": "user", "content": prompt}]
            prompt_text = self.tokenizer.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True
            )
        else:
            prompt_text = prompt

        inputs = self.tokenizer(prompt_text, return_tensors="pt")
        inputs = {k: v.to(self.model.device) for k, v in inputs.items()}

        gen_kw: Dict[str, Any] = dict(
            max_new_tokens=max_new_tokens,
            pad_token_id=self.tokenizer.pad_token_id,
            eos_token_id=self.tokenizer.eos_token_id,
            do_sample=do_sample,
        )
        if do_sample:
            gen_kw["temperature"] = max(temperature, 1e-5)
            gen_kw["top_p"] = top_p
        else:
            gen_kw["temperature"] = None

        self._last_zerokv_bypass = None
        generation_config = self._generation_config()
        prompt_len = int(inputs["input_ids"].shape[1])
        past_key_values = None
        if self.kv_mode == KVMode.ZEROKV:
            past_key_values = self._zerokv_past_for_prompt(prompt_len)
        elif self.kv_mode == KVMode.HF_QUANTIZED and generation_config is None:
            past_key_values = None

        if stream:
            self._last_kv_report = None
            self._last_generation = None
            return self._stream_generate(inputs, gen_kw, past_key_values, generation_config)

        handles: List[Any] = []
        snap: Dict[str, Any] = {}
        t0 = time.perf_counter()
        try:
            if past_key_values is not None and self._use_attention_hh_for_zerokv(past_key_values):
                hh_state = AttentionHHState()
                attach_zerokv_heavy_hitter_provider(past_key_values, hh_state.make_provider())
                handles = register_attention_hh_hooks(self.model, hh_state)
                snap = self._snapshot_attn_implementation()
            gen_out = self.model.generate(
                **inputs,
                past_key_values=past_key_values,
                generation_config=generation_config,
                return_dict_in_generate=True,
                **gen_kw,
            )
        finally:
            remove_hooks(handles)
            self._restore_attn_implementation(snap)
        dt = time.perf_counter() - t0
        seq = gen_out.sequences
        text = self.tokenizer.decode(seq[0], skip_special_tokens=True)
        n_new = seq.shape[1] - inputs["input_ids"].shape[1]
        tps = round(n_new / dt, 2) if dt > 0 and n_new > 0 else 0.0
        self._last_generation = {
            "new_tokens": int(n_new),
            "wall_seconds": round(dt, 3),
            "tokens_per_second": tps,
            "streamed": False,
        }
        if n_new > 0 and dt > 0:
            logger.info("Generated %d tokens in %.2fs (%.2f tok/s)", n_new, dt, n_new / dt)

        if (
            self.kv_mode == KVMode.ZEROKV
            and self._last_zerokv_bypass is None
            and getattr(gen_out, "past_key_values", None) is not None
        ):
            self._last_kv_report = estimate_zerokv_cache_footprint(gen_out.past_key_values)
        else:
            self._last_kv_report = None

        cleanup_after_inference()
        return text

    def compare_greedy_baseline(self, prompt: str, max_new_tokens: int = 32) -> Dict[str, Any]:
        """Same greedy decode with Dynamic FP vs current KV mode (sanity check)."""
        if self.model is None:
            raise RuntimeError("Call initialize() first.")

        saved = self.kv_mode
        results: Dict[str, Any] = {}

        def _one(mode: KVMode) -> List[int]:
            self.kv_mode = mode
            inputs = self.tokenizer(prompt, return_tensors="pt")
            inputs = {k: v.to(self.model.device) for k, v in inputs.items()}
            plen = int(inputs["input_ids"].shape[1])
            past = None
            if mode == KVMode.ZEROKV:
                saved_bypass = self._last_zerokv_bypass
                self._last_zerokv_bypass = None
                past = self._zerokv_past_for_prompt(plen)
                self._last_zerokv_bypass = saved_bypass
            gc = self._generation_config() if mode == KVMode.HF_QUANTIZED else None
            out = self.model.generate(
                **inputs,
                max_new_tokens=max_new_tokens,
                do_sample=False,
                temperature=None,
                pad_token_id=self.tokenizer.pad_token_id,
                eos_token_id=self.tokenizer.eos_token_id,
                past_key_values=past,
                generation_config=gc,
            )
            cleanup_after_inference()
            return out[0].tolist()

        ref = _one(KVMode.DYNAMIC_FP)
        results["dynamic_fp_ids"] = ref
        try:
            cur = _one(saved)
            results[f"{saved.value}_ids"] = cur
            results["token_match"] = ref == cur
        finally:
            self.kv_mode = saved
        return results

    def stats(self) -> Dict[str, Any]:
        s = {
            "model_id": self.model_id,
            "load_tag": self.load_tag,
            "kv_mode": self.kv_mode.value,
            "zerokv_sliding_window": self.zerokv_sliding_window,
            "zerokv_adaptive_windows": self.zerokv_adaptive_windows,
            "zerokv_hadamard_rest": self.zerokv_hadamard_rest,
            "zerokv_max_fwht_rest_dim": self.zerokv_max_fwht_rest_dim,
            "zerokv_heavy_hitter_budget": self.zerokv_heavy_hitter_budget,
            "zerokv_attention_heavy_hitter": self.zerokv_attention_heavy_hitter,
            "zerokv_min_prompt_tokens": self.zerokv_min_prompt_tokens,
            "zerokv_profile_path": self.zerokv_profile_path,
            "zerokv_bypass_last": self._last_zerokv_bypass,
        }
        s["memory"] = get_memory_stats()
        if self.model is not None:
            s["kv_theory_fp16"] = kv_cache_bytes_from_model(self.model, seq_len=1024)
        if self._last_kv_report is not None:
            s["kv_measured_zerokv"] = self._last_kv_report
        if self._last_generation is not None:
            s["last_generation"] = self._last_generation
        s["user_friendly"] = build_user_friendly_report(s, lang="tr")
        return s
