"""
Sykra Architecture - TPU Inference Pipeline (PyTorch/XLA)
============================================================================
NEDEN GEREKLİ? (TPU'da inference neden "aşırı yavaş"?)
----------------------------------------------------------------------------
PyTorch/XLA "lazy tensor + JIT derleme" modeliyle çalışır: bir işlem grafiği
biriktirilir ve xm.mark_step() (ya da bir .item()/senkronizasyon noktası)
tetiklendiğinde o grafik XLA tarafından DERLENİP çalıştırılır.

HuggingFace'in standart model.generate() akışı, her yeni token'da KV-cache'i
şöyle büyütür (bkz. modeling_sykra.py -> SykraFullAttention.forward):

    k = torch.cat([past_state[0], k], dim=2)   # cache uzunluğu +1

Tensor şekli HER ADIMDA değiştiği (1, 2, 3, ... N) için XLA aynı grafiği asla
yeniden kullanamaz -- HER TEK TOKEN İÇİN BAŞTAN DERLER. Bir derleme, tek bir
forward'dan onlarca-yüzlerce kat pahalı olabilir. N token üretmek ~N derleme +
N forward demektir. Bu, tam olarak gözlemlediğiniz "aşırı yavaş" davranıştır
ve modelin kendisiyle değil, saf XLA/derleme mekaniğiyle ilgilidir.

ÇÖZÜM: Sabit boyutlu ("static-shape" / "bucketed") KV-cache
----------------------------------------------------------------------------
  - PREFILL (prompt işleme): standart model.model(...) TEK SEFER çağrılır,
    tek sefer derlenir (prompt sabit bir "bucket" uzunluğuna soldan
    pad'lendiği için farklı prompt'larla tekrar çağrıldığında da AYNI
    derlemeyi yeniden kullanır).
  - DECODE (token-token üretim): k/v cache tensörleri baştan
    (max_prompt_len + max_new_tokens) boyutunda SABİT olarak ayrılır.
    Her adımda cache'e yazma torch.cat DEĞİL, torch.where tabanlı maskeli
    bir "scatter" ile yapılır; pozisyon bilgisi bir PYTHON INT değil bir
    TENSÖR (device üzerinde) olarak taşınır. Sonuç: her decode adımının XLA
    grafiği BİREBİR AYNI yapıya sahiptir -> XLA yalnızca İLK adımda derler,
    sonraki TÜM adımlarda derlenmiş programı YENİDEN KULLANIR.

Gated DeltaNet (SykraDeltaLayer) katmanları bu sorunu zaten YAŞAMAZ: O(1)
recurrent-step modunda state (S) zaten sabit (head_dim x head_dim) boyutlu,
sequence uzunluğuna göre BÜYÜMEZ. Bu yüzden delta katmanları burada hiç
değiştirilmeden, olduğu gibi kullanılıyor (bkz. _forward_recurrent_step).
Sorun SADECE Full Attention katmanlarının klasik büyüyen KV-cache'inden
kaynaklanıyor; bu dosya sadece ONU sabitliyor.

ÖNEMLİ: model.to_tpu() (TPUGatedDeltaLayer) burada KULLANILMIYOR. O katman
yalnızca paralel/chunkwise ileri yol sunar, tek-token recurrent decode
DESTEKLEMEZ (tpu_train.py'nin docstring'inde de belirtildi). Bu dosya
ağırlıkları STANDART (GPU/CPU ile birebir aynı) mimariye yükler; TPU'da
eğitilip kaydedilen ağırlıklar da state_dict düzeyinde uyumlu olduğu için
sorunsuz yüklenir.

KAPSAM NOTU: Kod, tek prompt (batch_size=1) üretimi için tam olarak
doğrulanmıştır. Batch>1 desteği vardır ancak TÜM prompt'ların aynı bucket
uzunluğuna pad'lendiği ve tek tek EOS takibi yapılmadığı varsayılır
(hepsi max_new_tokens kadar üretilir).

DÜRÜSTLÜK NOTU: Bu ortamda gerçek bir TPU/XLA cihazı bulunmadığı için
(sandbox disk/torch_xla kısıtı) script gerçek donanımda ÇALIŞTIRILARAK
doğrulanamadı; sözdizimi ve mantık adım adım elle doğrulandı. Gerçek TPU'da
ilk küçük bir denemeyle (kısa prompt, --max_new_tokens 10-20,
--benchmark ile karşılaştırmalı) doğrulamanızı öneririm.
"""

import os
import sys
import time
import argparse
import logging
from typing import Optional, Tuple, List, Any

import torch
import torch.nn as nn
import torch.nn.functional as F

from transformers import AutoTokenizer, AutoConfig, AutoModelForCausalLM

# Optional XLA imports with graceful error handling
try:
    import torch_xla
    import torch_xla.core.xla_model as xm
    _XLA_AVAILABLE = True
except ImportError:
    _XLA_AVAILABLE = False

# Relative / absolute import compatibility
try:
    from .configuration_sykra import SykraConfig
    from .modeling_sykra import SykraForCausalLM, rotate_half, repeat_kv
except (ImportError, ValueError):
    from configuration_sykra import SykraConfig
    from modeling_sykra import SykraForCausalLM, rotate_half, repeat_kv

logging.basicConfig(
    format="[%(asctime)s] [%(levelname)s] %(message)s",
    datefmt="%Y-%m-%d %H:%M:%S",
    level=logging.INFO,
)
logger = logging.getLogger("sykra.tpu_inference")

try:
    AutoConfig.register("sykra", SykraConfig)
    AutoModelForCausalLM.register(SykraConfig, SykraForCausalLM)
except ValueError:
    pass


def _require_xla() -> None:
    if not _XLA_AVAILABLE:
        raise RuntimeError(
            "\n[TPU Environment Error] 'torch_xla' bulunamadı / import edilemedi.\n"
            "  pip install torch-xla\n"
            "Veya TPU destekli bir Google Cloud VM / Colab TPU runtime içinde çalıştığınızdan emin olun."
        )


# =====================================================================
# 0b. XLA derleme sayacı -- "hâlâ recompile oluyor mu?" sorusunu TAHMİN
#     etmek yerine ÖLÇMEK için. met.metric_data() imzası torch_xla
#     sürümleri arası değiştiği için metin raporunu parse ediyoruz;
#     bu, farklı sürümlerde de kırılmadan çalışır.
# =====================================================================
def _compile_count() -> Optional[int]:
    if not _XLA_AVAILABLE:
        return None
    try:
        import torch_xla.debug.metrics as met
        import re
        report = met.metrics_report()
        m = re.search(r"Metric:\s*CompileTime.*?TotalSamples:\s*(\d+)", report, re.DOTALL)
        return int(m.group(1)) if m else None
    except Exception:
        return None


# =====================================================================
# 1. Pozisyon-tabanlı RoPE (tek token, TENSÖR pozisyon -- python int DEĞİL)
# =====================================================================
def _rope_single_position(inv_freq: torch.Tensor, position: torch.Tensor, dtype: torch.dtype):
    """
    position: 0-boyutlu (skaler) TENSÖR. Python int kullanılmaz, çünkü her
    farklı python int değeri XLA grafiğine farklı bir SABİT olarak gömülür ve
    bu da adım başına yeniden derlemeye yol açar. Tensör olarak taşınan
    pozisyon ise sadece bir "girdi değeri" olur, grafi yapısı değişmez.
    """
    freqs = position.to(torch.float32) * inv_freq.to(torch.float32)      # (head_dim/2,)
    emb = torch.cat([freqs, freqs], dim=-1)                              # (head_dim,)
    cos = emb.cos().to(dtype)[None, None, None, :]                       # (1,1,1,head_dim)
    sin = emb.sin().to(dtype)[None, None, None, :]
    return cos, sin


def _apply_rope_single(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    return (x * cos) + (rotate_half(x) * sin)


# =====================================================================
# 2. Full Attention için sabit boyutlu ("static-shape") decode adımı
# =====================================================================
def static_full_attention_decode_step(
    self_attn: nn.Module,
    hidden_states: torch.Tensor,          # (bsz, 1, hidden_size) - normlanmış
    position: torch.Tensor,               # 0-boyutlu tensör: bu yeni token'ın mutlak pozisyonu
    valid_start: torch.Tensor,             # 0-boyutlu tensör: soldaki pad uzunluğu (bu pozisyondan önceki her şey maskelenir)
    k_cache: torch.Tensor,                # (bsz, num_kv_heads, max_total_len, head_dim)
    v_cache: torch.Tensor,
    max_total_len: int,
) -> Tuple[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]:
    bsz = hidden_states.shape[0]
    num_heads = self_attn.num_heads
    num_kv_heads = self_attn.num_kv_heads
    head_dim = self_attn.head_dim
    device = hidden_states.device

    q = self_attn.q_proj(hidden_states).view(bsz, 1, num_heads, head_dim).transpose(1, 2)
    k_new = self_attn.k_proj(hidden_states).view(bsz, 1, num_kv_heads, head_dim).transpose(1, 2)
    v_new = self_attn.v_proj(hidden_states).view(bsz, 1, num_kv_heads, head_dim).transpose(1, 2)

    cos, sin = _rope_single_position(self_attn.rotary_emb.inv_freq, position, q.dtype)
    q = _apply_rope_single(q, cos, sin)
    k_new = _apply_rope_single(k_new, cos, sin)

    # ---- Sabit-boyutlu cache'e YAZMA: torch.cat YOK, maskeli torch.where VAR ----
    write_idx = torch.arange(max_total_len, device=device).view(1, 1, max_total_len, 1)
    write_mask = write_idx == position.view(1, 1, 1, 1)                  # (1,1,max_total_len,1)
    k_cache = torch.where(write_mask, k_new.expand(bsz, num_kv_heads, max_total_len, head_dim), k_cache)
    v_cache = torch.where(write_mask, v_new.expand(bsz, num_kv_heads, max_total_len, head_dim), v_cache)

    k_rep = repeat_kv(k_cache, self_attn.num_kv_groups)                  # (bsz, num_heads, max_total_len, head_dim)
    v_rep = repeat_kv(v_cache, self_attn.num_kv_groups)

    # ---- Sabit-boyutlu causal + padding maskesi (yine tensör karşılaştırmalı) ----
    pos_ids = torch.arange(max_total_len, device=device).view(1, 1, 1, max_total_len)
    valid = (pos_ids >= valid_start.view(1, 1, 1, 1)) & (pos_ids <= position.view(1, 1, 1, 1))
    attn_mask = torch.zeros(1, 1, 1, max_total_len, device=device, dtype=q.dtype)
    attn_mask = attn_mask.masked_fill(~valid, torch.finfo(q.dtype).min)

    attn_out = F.scaled_dot_product_attention(q, k_rep, v_rep, attn_mask=attn_mask, dropout_p=0.0, is_causal=False)
    attn_out = attn_out.transpose(1, 2).contiguous().view(bsz, 1, -1)
    out = self_attn.out_proj(attn_out)

    return out, (k_cache, v_cache)


# =====================================================================
# 3. XLA-dostu örnekleme (multinomial yerine Gumbel-max: XLA'da daha
#    güvenilir/hızlı lowered oluyor)
# =====================================================================
def sample_next_token(
    logits: torch.Tensor,           # (bsz, vocab_size)
    do_sample: bool,
    temperature: float,
    top_k: int,
    top_p: float,
) -> torch.Tensor:
    """
    ÖNEMLİ - İKİ TÜR PARAMETRE VAR, İKİSİ AYNI ŞEY DEĞİL:

    1) YAPISAL (structural) parametreler -- do_sample, ve top_k/top_p'nin
       AÇIK mı KAPALI mı olduğu (top_k>0 ?, 0<top_p<1 ?). Bunlar Python
       'if' ile hangi OP'LARIN grafiğe gireceğini belirler. Aynı generator
       (ve dolayısıyla aynı derlenmiş XLA programı) için bu üçü ÇAĞRILAR
       ARASINDA SABİT kalmalı -- örn. bir istekte top_p=0.9, sonrakinde
       top_p=1.0 (yani kapalı) kullanmak farklı bir grafik = YENİDEN DERLEME
       demektir. Aynı şekilde top_k'nin SAYISAL değeri de aslında YAPISAL:
       torch.topk(logits, top_k, ...) çağrısındaki top_k bir TENSÖR ŞEKLİ
       belirlediği için tensöre çevrilemez; top_k=40 ile top_k=50 arası
       geçiş de bir recompile'dır.
    2) SAYISAL (numeric) parametreler -- temperature ve top_p'nin (açıkken)
       DEĞERİ. Bunlar aşağıda .to(logits.device) ile TENSÖRE çevriliyor;
       böylece Python float olarak grafiğe SABİT/LITERAL gömülmek yerine
       birer "girdi değeri" oluyorlar. Sonuç: aynı generator'da temperature
       0.7'den 1.2'ye, top_p 0.9'dan 0.95'e değişse bile -- top_k/top_p AÇIK
       KALDIĞI sürece -- YENİDEN DERLEME TETİKLENMEZ.
    """
    if not do_sample:
        return torch.argmax(logits, dim=-1, keepdim=True)

    device = logits.device
    temp_t = torch.as_tensor(temperature, dtype=torch.float32, device=device).clamp_min(1e-5)
    logits = logits.to(torch.float32) / temp_t

    if top_k is not None and top_k > 0:
        top_k = min(top_k, logits.shape[-1])   # ŞEKİL parametresi -> kasıtlı olarak Python int
        topk_vals, _ = torch.topk(logits, top_k, dim=-1)
        min_keep = topk_vals[:, -1, None]
        logits = torch.where(logits < min_keep, torch.full_like(logits, float("-inf")), logits)

    if top_p is not None and 0.0 < top_p < 1.0:
        top_p_t = torch.as_tensor(top_p, dtype=torch.float32, device=device)   # artık literal değil
        sorted_logits, sorted_idx = torch.sort(logits, descending=True, dim=-1)
        probs = F.softmax(sorted_logits, dim=-1)
        cum_probs = torch.cumsum(probs, dim=-1)
        remove = cum_probs > top_p_t
        remove[:, 1:] = remove[:, :-1].clone()
        remove[:, 0] = False
        sorted_logits = sorted_logits.masked_fill(remove, float("-inf"))
        logits = torch.full_like(logits, float("-inf")).scatter(-1, sorted_idx, sorted_logits)

    # Gumbel-max: argmax(logits + Gumbel noise) == categorical sampling(softmax(logits))
    u = torch.rand_like(logits).clamp_min(1e-20)
    gumbel = -torch.log(-torch.log(u))
    return torch.argmax(logits + gumbel, dim=-1, keepdim=True)


# =====================================================================
# 4. TPU Static Generator
# =====================================================================
class TPUStaticGenerator:
    """
    Sabit-boyutlu ("bucketed") KV-cache ile TPU üzerinde tekrar-derlemesiz
    autoregressive üretim. model, TPU'ya-özel to_tpu() DÖNÜŞÜMÜ YAPILMADAN
    (standart mimariyle) yüklenmelidir.

    ÖNEMLİ - max_len NEDEN TEK GERÇEK PARAMETRE:
    XLA grafiği k_cache/v_cache tensörlerinin SABİT boyutuna göre derlenir.
    Bu boyut = max_len. max_prompt_len ve max_new_tokens'ı birbirinden
    bağımsız iki sayı olarak almak (eskiden yapıldığı gibi, total=sum)
    kullanıcının farkında olmadan modelin max_position_embeddings değerini
    aşan bir bucket'a düşmesine izin verir; bu durumda RoPE, modelin hiç
    görmediği pozisyonlara ekstrapolasyon yapar (sessiz kalite bozulması,
    çökme değil -- bu yüzden fark edilmesi zor ve tehlikeli).
    Burada max_len TEK sabit bütçe: prompt bucket'ı = max_len - max_new_tokens
    olarak bu bütçeden pay alır, aşamaz.
    """

    def __init__(
        self,
        model: SykraForCausalLM,
        tokenizer: Any,
        device: torch.device,
        max_len: int,
        max_new_tokens: int,
    ):
        if max_new_tokens < 1:
            raise ValueError(f"max_new_tokens en az 1 olmalı (verilen: {max_new_tokens}).")
        if max_new_tokens >= max_len:
            raise ValueError(
                f"max_new_tokens ({max_new_tokens}) >= max_len ({max_len}). "
                "Prompt için en az 1 token'lık pay kalmalı; max_len'i artırın "
                "veya max_new_tokens'ı azaltın."
            )

        model_max_pos = getattr(getattr(model, "config", None), "max_position_embeddings", None)
        if model_max_pos is not None and max_len > model_max_pos:
            logger.warning(
                f"max_len ({max_len}), modelin max_position_embeddings değerini "
                f"({model_max_pos}) aşıyor. RoPE, modelin eğitim/tasarım sırasında "
                f"görmediği pozisyonlara ekstrapolasyon yapacak -> çıktı kalitesi "
                f"sessizce bozulabilir. max_len={model_max_pos} olarak sınırlandırılıyor."
            )
            max_len = model_max_pos
            if max_new_tokens >= max_len:
                raise ValueError(
                    f"max_new_tokens ({max_new_tokens}), modelin max_position_embeddings "
                    f"sınırına ({model_max_pos}) sığmıyor (prompt için pay kalmıyor)."
                )

        self.model = model
        self.tokenizer = tokenizer
        self.device = device
        self.max_len = max_len
        self.max_new_tokens = max_new_tokens
        # Prompt bucket'ı, toplam sabit bütçeden üretim için ayrılan payın
        # geri kalanı -- iki bağımsız sayı DEĞİL, tek max_len'in bir türevi.
        self.max_prompt_len = max_len - max_new_tokens
        self.max_total_len = max_len
        self._sampling_signature: Optional[Tuple] = None   # yapısal örnekleme imzası (bkz. generate())

    def _prefill(self, prompt_ids: torch.Tensor):
        bsz, cur_len = prompt_ids.shape
        pad_id = self.tokenizer.pad_token_id

        if cur_len >= self.max_prompt_len:
            if cur_len > self.max_prompt_len:
                logger.warning(
                    f"Prompt {cur_len} token, ama max_len - max_new_tokens = "
                    f"{self.max_prompt_len} token'lık pay var. En eski "
                    f"{cur_len - self.max_prompt_len} token kırpılıyor. Tüm prompt'u "
                    f"korumak için --max_len'i artırın veya --max_new_tokens'ı azaltın."
                )
            # En sondaki max_prompt_len token'ı al (en eski bağlam kırpılır)
            prompt_ids = prompt_ids[:, -self.max_prompt_len:]
            attn_mask = torch.ones(bsz, self.max_prompt_len, dtype=torch.long)
        else:
            pad_len = self.max_prompt_len - cur_len
            pad = torch.full((bsz, pad_len), pad_id, dtype=torch.long)
            attn_mask = torch.cat(
                [torch.zeros(bsz, pad_len, dtype=torch.long), torch.ones(bsz, cur_len, dtype=torch.long)], dim=1
            )
            prompt_ids = torch.cat([pad, prompt_ids], dim=1)   # SOL taraf padding -> son pozisyon her zaman sabit index'te

        prompt_ids = prompt_ids.to(self.device)
        attn_mask = attn_mask.to(self.device)

        with torch.no_grad(), torch.autocast(device_type="xla", dtype=torch.bfloat16):
            hidden_states, next_cache = self.model.model(
                input_ids=prompt_ids, attention_mask=attn_mask, use_cache=True
            )
            logits = self.model.lm_head(hidden_states[:, -1:, :])[:, -1, :]

        xm.mark_step()

        pad_len_host = int((attn_mask[0] == 0).sum().item())
        return next_cache, logits, pad_len_host

    def _init_static_state(self, next_cache):
        delta_states: List[Any] = [None] * len(self.model.model.layers)
        kv_caches: List[Any] = [None] * len(self.model.model.layers)

        for idx, layer in enumerate(self.model.model.layers):
            entry = next_cache[idx]
            if layer.is_full_attention:
                k_prompt, v_prompt = entry
                bsz, num_kv_heads, plen, head_dim = k_prompt.shape
                k_cache = torch.zeros(bsz, num_kv_heads, self.max_total_len, head_dim, device=self.device, dtype=k_prompt.dtype)
                v_cache = torch.zeros(bsz, num_kv_heads, self.max_total_len, head_dim, device=self.device, dtype=v_prompt.dtype)
                k_cache[:, :, :plen, :] = k_prompt
                v_cache[:, :, :plen, :] = v_prompt
                kv_caches[idx] = (k_cache, v_cache)
            else:
                delta_states[idx] = entry   # S tensörü zaten sabit (head_dim x head_dim) boyutlu

        return delta_states, kv_caches

    @torch.no_grad()
    def generate(
        self,
        prompt: str,
        max_new_tokens: Optional[int] = None,
        do_sample: bool = True,
        temperature: float = 0.7,
        top_k: int = 40,
        top_p: float = 0.9,
        stop_on_eos: bool = True,
    ) -> str:
        max_new_tokens = max_new_tokens or self.max_new_tokens
        eos_id = self.tokenizer.eos_token_id

        # ---- Yapısal örnekleme imzası kontrolü (bkz. sample_next_token docstring) ----
        top_k_enabled = top_k is not None and top_k > 0
        top_p_enabled = top_p is not None and 0.0 < top_p < 1.0
        sampling_sig = (do_sample, top_k_enabled, top_k if top_k_enabled else None, top_p_enabled)
        if self._sampling_signature is not None and self._sampling_signature != sampling_sig:
            logger.warning(
                f"[XLA] Örnekleme YAPISI önceki çağrıdan farklı: "
                f"{self._sampling_signature} -> {sampling_sig}. "
                "(do_sample / top_k>0 / top_p açık-kapalı, decode adımının grafiğini "
                "YAPISAL olarak değiştirir -> bu çağrı için YENİDEN DERLEME beklenir. "
                "temperature ve top_p'nin SAYISAL değeri artık tensör olduğu için "
                "serbestçe değişebilir; sorun bu üç anahtarın AÇIK/KAPALI durumudur.)"
            )
        self._sampling_signature = sampling_sig

        compile_before_prefill = _compile_count()
        prompt_ids = self.tokenizer(prompt, return_tensors="pt").input_ids
        next_cache, last_logits, pad_len_host = self._prefill(prompt_ids)
        compile_after_prefill = _compile_count()
        bsz = prompt_ids.shape[0]

        valid_start = torch.tensor(pad_len_host, device=self.device, dtype=torch.long)
        position = torch.tensor(self.max_prompt_len - 1, device=self.device, dtype=torch.long)

        delta_states, kv_caches = self._init_static_state(next_cache)

        next_token = sample_next_token(last_logits, do_sample, temperature, top_k, top_p)
        generated_tokens = [next_token]

        compile_step_time = None
        steady_times: List[float] = []
        compile_before_decode = compile_after_prefill
        recompile_warned = False

        for step in range(max_new_tokens - 1):
            t0 = time.time()
            position = position + 1
            hidden = self.model.model.embed_tokens(next_token)

            with torch.autocast(device_type="xla", dtype=torch.bfloat16):
                for idx, layer in enumerate(self.model.model.layers):
                    residual = hidden
                    normed = layer.input_layernorm(hidden)

                    if layer.is_full_attention:
                        k_cache, v_cache = kv_caches[idx]
                        attn_out, kv_caches[idx] = static_full_attention_decode_step(
                            layer.self_attn, normed, position, valid_start,
                            k_cache, v_cache, self.max_total_len,
                        )
                    else:
                        attn_out, delta_states[idx] = layer.delta_layer(
                            normed, past_state=delta_states[idx], use_cache=True
                        )

                    hidden = residual + attn_out
                    residual = hidden
                    hidden = residual + layer.mlp(layer.post_attention_layernorm(hidden))

                hidden = self.model.model.norm(hidden)
                logits = self.model.lm_head(hidden)[:, -1, :]

            xm.mark_step()
            elapsed = time.time() - t0

            compile_now = _compile_count()
            if compile_before_decode is not None and compile_now is not None:
                expected_max = compile_before_decode + 1   # decode grafiği yalnız step==0'da 1 kez derlenmeli
                if compile_now > expected_max and not recompile_warned:
                    logger.warning(
                        f"[XLA] BEKLENMEYEN YENİDEN DERLEME: adım {step}'de derleme sayacı "
                        f"{compile_before_decode} -> {compile_now} (beklenen tavan: {expected_max}). "
                        "Decode grafiğinin şekli/yapısı hâlâ adımlar arasında değişiyor -- "
                        "olası nedenler: bsz'nin değişmesi, next_token/position/valid_start "
                        "şekillerinin sabit kalmaması, ya da bu generate() çağrısına özgü "
                        "yeni bir Python-seviyeli dal (if) eklenmiş olması."
                    )
                    recompile_warned = True

            if step == 0:
                compile_step_time = elapsed   # ilk adım derleme içerir, ayrı raporla
            else:
                steady_times.append(elapsed)

            next_token = sample_next_token(logits, do_sample, temperature, top_k, top_p)
            generated_tokens.append(next_token)

            if stop_on_eos and bsz == 1 and eos_id is not None and int(next_token.item()) == eos_id:
                break

        if compile_step_time is not None:
            logger.info(f"İlk decode adımı (derleme dahil): {compile_step_time * 1000:.1f} ms")
        if steady_times:
            avg = sum(steady_times) / len(steady_times)
            logger.info(f"Sonraki {len(steady_times)} adımın ortalaması (derlenmiş, yeniden kullanılan): {avg * 1000:.2f} ms/token")

        compile_after_decode = _compile_count()
        if compile_before_prefill is not None and compile_after_decode is not None:
            total_compiles = compile_after_decode - compile_before_prefill
            verdict = "SAĞLIKLI (tam olarak 2 beklenir: 1x prefill + 1x decode)" if total_compiles <= 2 else "SORUNLU -- hâlâ fazladan derleme var"
            logger.info(
                f"[XLA derleme özeti] Bu generate() çağrısında toplam {total_compiles} kez derleme oldu "
                f"(prefill dahil). Durum: {verdict}"
            )

        all_tokens = torch.cat(generated_tokens, dim=1)
        return self.tokenizer.decode(all_tokens[0].tolist(), skip_special_tokens=True)


# =====================================================================
# 5. (Opsiyonel) Karşılaştırma: naif dinamik-cache generate() vs static
# =====================================================================
def run_naive_benchmark(model, tokenizer, device, prompt: str, max_new_tokens: int) -> float:
    """Standart HF generate() ile (büyüyen KV-cache, her adımda yeniden derleme) süre ölçer."""
    prompt_ids = tokenizer(prompt, return_tensors="pt").input_ids.to(device)
    t0 = time.time()
    with torch.no_grad():
        _ = model.generate(
            prompt_ids,
            max_new_tokens=max_new_tokens,
            use_cache=True,
            do_sample=False,
            pad_token_id=tokenizer.eos_token_id,
        )
    xm.mark_step()
    return time.time() - t0


# =====================================================================
# 6. Giriş noktası
# =====================================================================
def run_inference(args: argparse.Namespace) -> None:
    _require_xla()

    # ÖNEMLİ: initialize_cache HERHANGİ bir XLA hesaplamasından ÖNCE çağrılmalı.
    # Bu, derlenmiş programı DİSKE yazar -- aynı grafiği bir sonraki process
    # başlatışınızda (script'i yeniden çalıştırdığınızda) SIFIRDAN derlemek
    # yerine diskten okur. "Her çalıştırmada N dakika bekliyorum" şikayetinin
    # process-yeniden-başlatma kaynaklı kısmı budur; in-memory JIT cache
    # process kapanınca sıfırlanır, persistent cache sıfırlanmaz.
    xla_cache_dir = getattr(args, "xla_cache_dir", None)
    if xla_cache_dir:
        import torch_xla.runtime as xr
        xr.initialize_cache(xla_cache_dir, readonly=False)
        logger.info(f"XLA kalıcı derleme önbelleği etkin: {xla_cache_dir}")

    torch.manual_seed(args.seed)
    device = xm.xla_device()

    logger.info(f"Model yükleniyor: {args.model_dir}")
    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer_name or args.model_dir)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token

    # DİKKAT: burada model.to_tpu() ÇAĞRILMIYOR -- standart (recurrent decode
    # destekleyen) SykraDeltaLayer + Full Attention mimarisi kullanılıyor.
    model = AutoModelForCausalLM.from_pretrained(args.model_dir).to(device)
    model.eval()

    generator = TPUStaticGenerator(
        model, tokenizer, device,
        max_len=args.max_len,
        max_new_tokens=args.max_new_tokens,
    )
    logger.info(
        f"Sabit bucket: max_len={generator.max_len} "
        f"(prompt payı={generator.max_prompt_len} + üretim payı={generator.max_new_tokens})"
    )

    logger.info("Static-cache üretim başlıyor (ilk adım derleme içerir, normaldir)...")
    t0 = time.time()
    text = generator.generate(
        args.prompt,
        max_new_tokens=args.max_new_tokens,
        do_sample=args.do_sample,
        temperature=args.temperature,
        top_k=args.top_k,
        top_p=args.top_p,
    )
    static_elapsed = time.time() - t0

    logger.info(f"Prompt : '{args.prompt}'")
    logger.info(f"Çıktı  :\n{text}\n")
    logger.info(f"[Static-cache] Toplam süre: {static_elapsed:.2f}s ({args.max_new_tokens} token)")

    if args.benchmark:
        logger.info("Karşılaştırma için naif (dinamik cache, torch.cat tabanlı) generate() çalıştırılıyor...")
        logger.info("Bu yol her adımda yeniden derleme yapacağı için YAVAŞ olması BEKLENİR.")
        naive_elapsed = run_naive_benchmark(model, tokenizer, device, args.prompt, args.max_new_tokens)
        logger.info(f"[Naif dinamik-cache] Toplam süre: {naive_elapsed:.2f}s ({args.max_new_tokens} token)")
        if static_elapsed > 0:
            logger.info(f"Hızlanma (naif / static): {naive_elapsed / max(static_elapsed, 1e-6):.2f}x")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Sykra: TPU Static-Cache Inference Pipeline (torch.cat yerine sabit-boyutlu, tekrar-derlemesiz KV-cache)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--model_dir", type=str, required=True, help="Eğitilmiş Sykra model checkpoint dizini (train_and_generate.py veya tpu_train.py çıktısı).")
    parser.add_argument("--tokenizer_name", type=str, default=None, help="Tokenizer adı/yolu. Boş bırakılırsa model_dir'den yüklenir.")
    parser.add_argument("--prompt", type=str, default="Sykra architecture is", help="Üretim için prompt metni.")
    parser.add_argument("--max_len", type=int, default=256, help="TOPLAM sabit bucket uzunluğu (prompt + üretim). XLA k/v-cache grafiği bu boyuta göre BİR KEZ derlenir; modelin max_position_embeddings değerini aşarsa otomatik olarak ona sınırlandırılır. Farklı çağrılarda AYNI değeri kullanmak derleme yeniden kullanımını artırır.")
    parser.add_argument("--max_new_tokens", type=int, default=64, help="Üretilecek yeni token sayısı. Prompt için ayrılan pay = max_len - max_new_tokens (bu paydan büyük prompt'lar en eski uçtan kırpılır).")
    parser.add_argument("--do_sample", action="store_true", default=True, help="Stokastik örnekleme (Gumbel-max, XLA-dostu).")
    parser.add_argument("--temperature", type=float, default=0.7, help="Örnekleme sıcaklığı.")
    parser.add_argument("--top_k", type=int, default=40, help="Top-k eşiği.")
    parser.add_argument("--top_p", type=float, default=0.9, help="Top-p (nucleus) eşiği.")
    parser.add_argument("--seed", type=int, default=42, help="Rastgelelik tohumu.")
    parser.add_argument("--benchmark", action="store_true", help="Ek olarak naif (dinamik cache) generate() ile süre karşılaştırması yap.")
    parser.add_argument("--xla_cache_dir", type=str, default=None, help="Verilirse, XLA derleme sonuçları bu dizine KALICI olarak yazılır/okunur -- script'i yeniden başlattığınızda aynı grafiği sıfırdan derlemek yerine diskten yükler (bkz. torch_xla.runtime.initialize_cache).")
    return parser.parse_args()


if __name__ == "__main__":
    cli_args = parse_args()
    run_inference(cli_args)