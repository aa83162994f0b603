# modeling_sykra.py
import math
from typing import Optional, Tuple, Union, List, Any
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers.modeling_utils import PreTrainedModel
from transformers.generation import GenerationMixin
from transformers.modeling_outputs import CausalLMOutputWithPast
from transformers.activations import ACT2FN

from .configuration_sykra import SykraConfig


# ==========================================
# 1. Normalizasyon ve RoPE
# ==========================================
class SykraRMSNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return (self.weight * hidden_states).to(input_dtype)


class SykraRotaryEmbedding(nn.Module):
    def __init__(self, dim: int, max_position_embeddings: int = 8192, base: float = 500000.0):
        super().__init__()
        self.dim = dim
        self.base = base
        inv_freq = 1.0 / (self.base ** (torch.arange(0, self.dim, 2, dtype=torch.int64).float() / self.dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    @torch.no_grad()
    def forward(self, x: torch.Tensor, seq_len: int):
        t = torch.arange(seq_len, device=x.device, dtype=self.inv_freq.dtype)
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos()[None, None, :, :], emb.sin()[None, None, :, :]


def rotate_half(x: torch.Tensor):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor):
    cos = cos.to(q.dtype)
    sin = sin.to(q.dtype)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed.to(q.dtype), k_embed.to(k.dtype)


def repeat_kv(hidden_states: torch.Tensor, n_rep: int) -> torch.Tensor:
    if n_rep == 1:
        return hidden_states
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def invert_unit_lower_triangular(M: torch.Tensor, num_iters: Optional[int] = None, clamp_val: Optional[float] = None) -> torch.Tensor:
    """
    (I + M)^-1, M KESİN alt üçgen. Sonuç hesabı TAM (yaklaşık değil).

    QWEN 3.5 YAKLAŞIMI: torch_chunk_gated_delta_rule, bu tersi Neumann serisi /
    Newton ikiye-katlama ile DEĞİL, forward-substitution ile alır (FLA çekirdekleri
    de 16x16 bloklarda aynısını fp32'de yapar). Sebep sayısal: M'nin girdileri
    büyüdüğünde (korele k, yüksek beta, yavaş decay) Neumann kısmi toplamlarının
    tek tek terimleri çok büyür ve sonuç katastrofik iptal ile bozulur. Ölçüm
    (fp32, C=64, korele k=0.7, beta=0.9): eski Newton+clamp en fazla 2e-2 mutlak
    hata, forward-substitution 6e-7. Ayrıca eski yoldaki her-adım clamp(+-1e4),
    ikiye-katlama özdeşliğini bozuyor ve doygun bölgede gradyanı sıfırlıyordu.

    GPU/CPU: torch.linalg.solve_triangular(unitriangular=True) -- Qwen'in döngüsüyle
    aynı matematik, tek batched çağrı. XLA/TPU: satır-sıralı solve MXU'yu
    kullanmadığı için matmul-only çarpım formu (I-M)(I+M^2)(I+M^4)... kullanılır
    (clamp YOK).

    num_iters / clamp_val: eski çağrılarla uyumluluk için kabul edilir, KULLANILMAZ.
    Girdi fp32 (veya fp64) olmalı; çağıran autocast'i kapatmış olmalı.
    """
    C = M.shape[-1]
    eye = torch.eye(C, device=M.device, dtype=M.dtype)
    if M.device.type == "xla":
        out = eye - M
        M_pow = M
        for _ in range(max(0, math.ceil(math.log2(max(2, C))) - 1)):
            M_pow = torch.matmul(M_pow, M_pow)
            out = torch.matmul(out, eye + M_pow)
        return out
    return torch.linalg.solve_triangular(eye + M, eye.expand_as(M), upper=False, unitriangular=True)


def init_delta_gates(layer, min_half_life: float = 16.0, max_half_life: float = 1024.0):
    """
    alpha_proj.bias'ı, başlangıç decay yarı-ömrü head'ler arasında
    [min_half_life, max_half_life] token aralığında LOG-UNIFORM olacak şekilde
    ayarlar (Mamba2 / FLA GatedDeltaNet referans init'inin, Sykra'nın
    `log_alpha = -softplus(alpha_proj(h)) - min_decay` parametrizasyonuna
    karşılığı; `sykra_tpu_kernel_v2.init_delta_gates` ile AYNI).

    NEDEN: genel _init_weights alpha_proj'u N(0, 0.02) ağırlık + SIFIR bias ile
    başlatıyor. hidden=2048'de ön-aktivasyon ~N(0, 0.9), softplus(0)=0.69 ->
    alpha ~ 0.50/token. Ölçüm (numpy, gerçek config): bir 64'lük chunk'ın sonunda
    kalan toplam decay medyanı 2.6e-24 ve head'lerin %100'ünde < 1e-3. Yani
    state'in chunk-arası ve uzun-menzil yolu başlangıçta sayısal olarak SIFIR:
    fp16'da literal underflow, fp32'de bile gradyan yok. Qwen3.5'in HF dosyasındaki
    from-scratch init'i (A~U(0,16), dt_bias=1) bunu daha da kötüleştirir (head'lerin
    %94'ü sıfır), o yüzden onu değil referans (dt log-uniform) init'i kullanıyoruz.
    """
    n = layer.alpha_proj.out_features
    hl = torch.exp(torch.linspace(math.log(min_half_life), math.log(max_half_life), n))
    # log_alpha = -softplus(x) - min_decay  =>  softplus(x) = ln2/hl - min_decay
    target = (math.log(2.0) / hl - layer.min_decay).clamp(min=1e-7)
    layer.alpha_proj.bias.data.copy_(torch.log(torch.expm1(target)))
    # Ağırlıklar küçük: başlangıçta bias baskın, kapı yine de veri-bağımlı.
    layer.alpha_proj.weight.data.normal_(0.0, 0.2 / math.sqrt(layer.hidden_size))
    layer.beta_proj.bias.data.zero_()


def extract_layer_past(past_key_values: Any, layer_idx: int) -> Optional[Any]:
    if past_key_values is None:
        return None
    if isinstance(past_key_values, (list, tuple)):
        return past_key_values[layer_idx] if layer_idx < len(past_key_values) else None
    if hasattr(past_key_values, "layers") and hasattr(past_key_values.layers, "__getitem__"):
        return past_key_values.layers[layer_idx] if layer_idx < len(past_key_values.layers) else None
    if hasattr(past_key_values, "__getitem__"):
        try:
            return past_key_values[layer_idx]
        except Exception:
            pass
    return None


# ==========================================
# 2. GERÇEK CHUNK-PARALEL GATED DELTANET
# ==========================================
class SykraDeltaLayer(nn.Module):
    def __init__(self, config: SykraConfig, layer_idx: int):
        super().__init__()
        self.config = config
        self.layer_idx = layer_idx
        self.hidden_size = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.num_kv_heads = config.num_key_value_heads
        self.head_dim = config.head_dim
        self.chunk_size = config.chunk_size
        self.num_kv_groups = self.num_heads // self.num_kv_heads

        self.q_proj = nn.Linear(self.hidden_size, self.num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(self.hidden_size, self.num_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(self.hidden_size, self.num_kv_heads * self.head_dim, bias=False)
        
        self.beta_proj = nn.Linear(self.hidden_size, self.num_heads, bias=True)
        self.alpha_proj = nn.Linear(self.hidden_size, self.num_heads, bias=True)
        
        self.group_norm = SykraRMSNorm(self.head_dim, eps=config.rms_norm_eps)
        self.out_proj = nn.Linear(self.num_heads * self.head_dim, self.hidden_size, bias=False)

        # ------------------------------------------------------------------
        # NaN/inf taşma düzeltmesi (kalıcı, dtype'dan bağımsız çözüm):
        #
        # min_decay: alpha = exp(log_alpha) değerinin hiçbir zaman tam 1.0'a
        #   ("hiç unutma") ulaşmasını engeller. Eğitim sırasında alpha_proj,
        #   uzun bağlam kurmak için log_alpha -> 0 (alpha -> 1) yönüne çok
        #   hızlı kayabiliyor; bu durumda decay etkisi kayboluyor ve recurrent
        #   state S, chunk'lar boyunca toplamsal olarak SINIRSIZ büyüyor.
        #   Sabit bir taban ekleyince S, geometrik seri argümanıyla
        #   matematiksel olarak sınırlı bir üst değere yakınsar.
        #
        # max_state_norm: her chunk/adım sonunda S'in Frobenius normuna
        #   üst sınır -- S'i orig_dtype'a (fp16) cast etmeden hemen önce
        #   uygulanan son savunma hattı. min_decay teorik üst sınırı
        #   garantilese de, bu clamp ani (transient) sıçramalara karşı ekstra
        #   güvence sağlıyor ve olası bir taşmayı sessiz 'inf' yerine sonlu/
        #   satüre bir değere çeviriyor.
        #
        # İkisi de config üzerinden özelleştirilebilir (yoksa güvenli
        # varsayılanlar kullanılır), böylece config dosyasını değiştirmeye
        # gerek kalmıyor.
        # ------------------------------------------------------------------
        # min_decay ve max_state_norm: bkz. yukarıdaki açıklama.
        self.min_decay = getattr(config, "delta_min_decay", 1e-3)
        self.max_state_norm = getattr(config, "delta_max_state_norm", 1e4)

        # ------------------------------------------------------------------
        # YENİ (kök-neden #2): max_beta.
        #
        # Asıl patlama kaynağı alpha değil, beta imiş. M = beta * (K@K^T) *
        # decay_mat_strict matrisinin girdileri 1'e yaklaştıkça (beta -> 1,
        # yani "tam delta update" -- k vektörleri de zaten normalize
        # olduğundan gram_kk zaten <=1), invert_unit_lower_triangular
        # içindeki Newton ikiye-katlama/Neumann serisi ARA terimleri
        # kombinatoryal olarak patlıyor (bkz. C(d-1,n-1) büyümesi, chunk=64
        # için FP16'da güvenli terim sayısı yalnızca ~6). Bu, referans
        # Gated DeltaNet implementasyonunda da (fla-org/flash-linear-
        # attention #389: "gate/beta 1'e sabitlenince kararsız") ve
        # literatürde (Qualcomm AI Research, arXiv:2606.06034 -- 64x64
        # matris tersi, FP16'da ciddi kararsızlık) belgelenmiş, mimariye
        # özgü bir sınırlama; dtype ya da min_decay fix'i bunu düzeltmiyor.
        # beta'yı kesin olarak 1'in altında tutmak (ör. <=0.9) M'nin asla
        # tam-dejenere olmamasını garantiliyor.
        # ------------------------------------------------------------------
        self.max_beta = getattr(config, "delta_max_beta", 0.9)

    def _clip_state(self, S: torch.Tensor) -> torch.Tensor:
        """S'in Frobenius normunu max_state_norm ile sınırlar (in-place değil)."""
        state_norm = S.norm(dim=(-2, -1), keepdim=True)
        return S * (self.max_state_norm / state_norm.clamp(min=self.max_state_norm))

    def _forward_recurrent_step(self, q, k, v, beta, alpha, S):
        """Inference için O(1) Adımı"""
        orig_dtype = q.dtype
        # AMP GÜVENLİĞİ: q/k/v/beta/alpha ve gelen S (chunkwise'ın döndürdüğü
        # gibi) orig_dtype'da (ör. fp16) gelebilir. Mixed-precision eğitim/
        # generate sırasında autocast aktifken, tensörleri elle .to(float32)
        # yapmak TEK BAŞINA yetmez -- autocast, matmul gibi op'ları çağrıldığı
        # anda kendi kararına göre yine fp16'ya indirebilir (chunkwise yolda
        # NaN'a sebep olan da tam olarak buydu). Bu yüzden hem fp32'ye
        # yükseltiyoruz HEM DE autocast'i bu blok için tamamen kapatıyoruz.
        with torch.autocast(device_type=q.device.type, enabled=False):
            q_f32 = q.to(torch.float32)
            k_f32 = k.to(torch.float32)
            v_f32 = v.to(torch.float32)
            beta_f32 = beta.to(torch.float32)
            alpha_f32 = alpha.to(torch.float32)
            S = S.to(torch.float32) * alpha_f32
            k_col = k_f32.transpose(-1, -2)
            pred_v = torch.matmul(S, k_col).transpose(-1, -2)
            delta_v = v_f32 - pred_v
            S = S + beta_f32 * torch.matmul(delta_v.transpose(-1, -2), k_f32)
            # Chunkwise yoldakiyle tutarlı savunma hattı: uzun üretimlerde
            # (generation, KV-cache ile tek-token adımları) S'in taşmasını engeller.
            S = self._clip_state(S)
            out = torch.matmul(q_f32, S.transpose(-1, -2))
        # QWEN 3.5 ile aynı: recurrent state cache'te fp32 kalır (Qwen,
        # last_recurrent_state'i fp32 döndürür). Eskiden S.to(fp16) idi: üretim
        # boyunca her adımda state fp16'ya yuvarlanıp sıfıra yakın girdiler
        # (subnormal/underflow) siliniyordu. Çıktı da fp32; çağıran norm'dan
        # SONRA compute dtype'ına indirir.
        return out, S

    def _forward_chunkwise_parallel(self, q, k, v, beta, log_alpha, initial_state=None):
        """
        AMP GÜVENLİĞİ: Bu fonksiyon içeride kritik ara değerleri (k_c_f32, M,
        invert_unit_lower_triangular, S, ...) elle fp32'ye yükseltiyor. Ama
        mixed-precision eğitim sırasında autocast aktifken bu TEK BAŞINA
        yetmiyor -- autocast, matmul gibi allow-list'teki op'ları çağrıldığı
        anda kendi kararına göre tekrar fp16'ya indiriyor ve elle yapılan
        cast'i geçersiz kılıyor. Sonuç: invert_unit_lower_triangular gibi
        hassas yerlerde sessiz hassasiyet kaybı ve ilk ~100 adımda NaN.
        Çözüm: bu fonksiyonun tamamını autocast'ten tamamen izole etmek --
        orig_dtype'da kalması amaçlanan ara değerler (intra_attn, out_intra
        vb.) zaten kendi dtype'ında hesaplanmaya devam ediyor, autocast'i
        kapatmak SADECE "sessiz yeniden-fp16'laştırma"yı engelliyor.
        """
        with torch.autocast(device_type=q.device.type, enabled=False):
            return self._forward_chunkwise_parallel_impl(q, k, v, beta, log_alpha, initial_state=initial_state)

    def _forward_chunkwise_parallel_impl(self, q, k, v, beta, log_alpha, initial_state=None):
        bsz, heads, seq_len, d = q.shape
        # QWEN 3.5 ile aynı: q/k/v/beta/g'nin HEPSİ en baştan fp32 (Qwen:
        # `.to(torch.float32)`), çekirdeğin hiçbir yerinde fp16'ya inilmez ve
        # ancak norm'dan sonra, katman çıkışında compute dtype'ına dönülür.
        # Eskiden decay / decay_mat_causal / U / S_for_output / intra-inter
        # matmul'ları orig_dtype'da (fp16 çalışmada) hesaplanıyordu: exp(g) < 6e-8
        # olan her değer sessizce 0 oluyordu.
        q, k, v, beta = (x.to(torch.float32) for x in (q, k, v, beta))
        C = min(self.chunk_size, seq_len) if seq_len > 0 else self.chunk_size
        C = max(1, C)

        pad_len = (C - (seq_len % C)) % C
        if pad_len > 0:
            q = F.pad(q, (0, 0, 0, pad_len))
            k = F.pad(k, (0, 0, 0, pad_len))
            v = F.pad(v, (0, 0, 0, pad_len))
            beta = F.pad(beta, (0, 0, 0, pad_len))
            log_alpha = F.pad(log_alpha, (0, 0, 0, pad_len), value=0.0)

        total_len = seq_len + pad_len
        num_chunks = total_len // C

        q = q.view(bsz, heads, num_chunks, C, d)
        k = k.view(bsz, heads, num_chunks, C, d)
        v = v.view(bsz, heads, num_chunks, C, d)
        beta = beta.view(bsz, heads, num_chunks, C, 1)
        
        # 1. Numerik Kararlılık: Decay ve kümülatif toplamı FP32'de hesapla
        log_alpha = log_alpha.view(bsz, heads, num_chunks, C, 1).to(torch.float32)
        g = torch.cumsum(log_alpha, dim=-2)                     # (B, H, num_chunks, C, 1) [FP32]
        decay_f32 = torch.exp(g)                                # (B, H, num_chunks, C, 1) [FP32]

        # ------------------------------------------------------------------
        # NaN / patlama düzeltmesi: recurrent state S artık DAİMA FP32'de
        # tutuluyor. Önceki versiyonda S orig_dtype'da (gerçek FP16
        # senaryosunda dar dinamik aralıkla, ~±65504) chunk'lar arasında
        # çarpımsal olarak birikiyordu (S = decay*S + S_delta) ve birkaç
        # chunk/katman sonra taşabiliyordu. Ayrıca M ve v_base'e giren
        # gram_kk / pred_v_0 gibi ara değerler de fp16'da hesaplanıp SADECE
        # Newton iterasyonuna girmeden hemen önce fp32'ye çevriliyordu --
        # o noktaya gelene kadar hassasiyet kaybı/taşma çoktan olmuş
        # olabiliyordu. Şimdi state'e giren her şey en baştan fp32'de.
        # ------------------------------------------------------------------
        if initial_state is not None and torch.is_tensor(initial_state):
            S = initial_state.to(torch.float32)
        else:
            S = torch.zeros(bsz, heads, d, d, device=q.device, dtype=torch.float32)

        # Maskeler
        strict_lower_mask = torch.tril(torch.ones(C, C, device=q.device, dtype=torch.bool), diagonal=-1)
        causal_mask = torch.tril(torch.ones(C, C, device=q.device, dtype=torch.bool))

        chunk_outputs = []

        for i in range(num_chunks):
            q_c = q[:, :, i]                # (B, H, C, d)  [FP32]
            k_c = k[:, :, i]                # (B, H, C, d)  [FP32]
            v_c = v[:, :, i]                # (B, H, C, d)  [FP32]
            b_c = beta[:, :, i]             # (B, H, C, 1)  [FP32]
            g_c = g[:, :, i]                # (B, H, C, 1)  [FP32]
            decay_c = decay_f32[:, :, i]    # (B, H, C, 1)  [FP32]

            # State'e giren her şeyin fp32 kopyası (roundtrip hassasiyet kaybı olmadan)
            k_c_f32 = k_c.to(torch.float32)
            b_c_f32 = b_c.to(torch.float32)
            v_c_f32 = v_c.to(torch.float32)
            decay_c_f32 = decay_f32[:, :, i]

            # 2. Pre-Exponential Masking (inf * 0 = NaN engeli):
            # Fark matrisini hesapla ve üst üçgeni exp'ten önce -inf yap -> exp(-inf) = 0.0
            g_diff = g_c - g_c.transpose(-1, -2) # (B, H, C, C) [FP32]
            g_diff_lower = torch.where(strict_lower_mask, g_diff, torch.full_like(g_diff, -1e9))
            decay_mat_strict = torch.exp(g_diff_lower)  # [FP32] -- artık erken cast YOK, M tamamen fp32 kalıyor

            g_diff_causal = torch.where(causal_mask, g_diff, torch.full_like(g_diff, -1e9))
            decay_mat_causal = torch.exp(g_diff_causal)  # [FP32]

            # 3. Unit Lower Triangular Matris M: M = beta * (K @ K^T) * decay_mat_strict -- TAMAMEN FP32
            gram_kk = torch.matmul(k_c_f32, k_c_f32.transpose(-1, -2))
            M = b_c_f32 * gram_kk * decay_mat_strict

            # 4. V_base = beta * (v - decay * S_0 @ k) -- TAMAMEN FP32 (S artık zaten fp32)
            # DÜZELTME: S, state-update satırındaki S_delta = matmul(U_decayed.T, k)
            # kuralına göre [value_dim, key_dim] eksenli. out_inter zaten
            # S.transpose(-1,-2) ile key eksenini contract ediyor; burada da
            # aynı eksen sırası kullanılmalı (eksik transpose, çok-chunk'lı /
            # cache'li senaryolarda sessizce yanlış sonuç üretiyordu).
            pred_v_0 = torch.matmul(k_c_f32, S.transpose(-1, -2))
            v_base = b_c_f32 * (v_c_f32 - decay_c_f32 * pred_v_0)

            # 5. Paralel Çözüm: satır-sıralı solve_triangular (MXU kullanmaz,
            #    yavaş derlenir) YERİNE matmul-only Newton ikiye-katlama.
            #    M kesin-alt-üçgen -> (I+M) nilpotent-perturbe, ceil(log2(C))
            #    adımda TAM tersi bulunur (bkz. invert_unit_lower_triangular).
            #    M ve v_base zaten fp32 girdiği için burada ekstra cast yok.
            A_inv = invert_unit_lower_triangular(M)  # Qwen'in forward-substitution'ı ile aynı matematik, clamp YOK
            U_f32 = torch.matmul(A_inv, v_base)      # [FP32] -- state güncellemesi bunu kullanacak
            # Son savunma hattı: orig_dtype'a (fp16) inmeden önce clamp -- taşma
            # durumunda sessiz 'inf' yerine sonlu/satüre bir değer üretir.
            U = torch.clamp(U_f32, -self.max_state_norm, self.max_state_norm)  # fp32 kalır

            # 6. Intra & Inter Chunk Çıktıları (FP32)
            intra_attn = torch.matmul(q_c, k_c.transpose(-1, -2)) * decay_mat_causal
            out_intra = torch.matmul(intra_attn, U)
            S_for_output = torch.clamp(S, -self.max_state_norm, self.max_state_norm)  # fp32 kalır
            out_inter = torch.matmul(q_c * decay_c, S_for_output.transpose(-1, -2))

            chunk_outputs.append(out_intra + out_inter)

            # 7. State Güncellemesi -- TAMAMEN FP32, hiç aşağı cast edilmeden birikiyor
            decay_last = torch.exp(g_c[:, :, -1:, :] - g_c)  # [FP32]
            U_decayed = U_f32 * decay_last
            S_delta = torch.matmul(U_decayed.transpose(-1, -2), k_c_f32)
            total_decay_chunk = torch.exp(g_c[:, :, -1:, :]).squeeze(-2).unsqueeze(-1)  # [FP32]
            S = total_decay_chunk * S + S_delta

            # Savunma hattı: state normunu her chunk sonunda sınırla. min_decay
            # (bkz. forward()) teorik üst sınırı garantiliyor; bu clamp ani
            # sıçramalara karşı ekstra güvence ve S'in fp32 içinde bile aşırı
            # büyümesini engelliyor.
            S = self._clip_state(S)

        out = torch.cat(chunk_outputs, dim=2)
        if pad_len > 0:
            out = out[:, :, :seq_len, :]
        # Hem çıktı hem cache state'i fp32 döner (Qwen ile aynı); fp16'ya iniş
        # yalnızca forward() içinde, group_norm'dan SONRA yapılır.
        return out, torch.clamp(S, -self.max_state_norm, self.max_state_norm)


    def forward(
        self,
        hidden_states: torch.Tensor,
        attention_mask: Optional[torch.Tensor] = None,
        past_state: Optional[torch.Tensor] = None,
        use_cache: bool = False,
    ) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
        bsz, seq_len, _ = hidden_states.shape

        q = self.q_proj(hidden_states).view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(bsz, seq_len, self.num_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(bsz, seq_len, self.num_kv_heads, self.head_dim).transpose(1, 2)

        k = repeat_kv(k, self.num_kv_groups)
        v = repeat_kv(v, self.num_kv_groups)

        # Compute dtype'ı projeksiyon ÇIKTISINDAN alınır (autocast altında fp16,
        # saf-fp16 çalışmada fp16, fp32 çalışmada fp32). Çekirdek fp32'de çalışır,
        # katman çıkışı bu dtype'a norm'dan SONRA indirilir.
        compute_dtype = v.dtype

        # QWEN 3.5: q/k L2-normu fp32'de (Qwen l2norm: x * rsqrt(sum(x^2) + eps)).
        k = F.normalize(k.float(), p=2, dim=-1)
        q = F.normalize(q.float(), p=2, dim=-1)

        # QWEN 3.5: `g = -A_log.float().exp() * softplus(a.float() + dt_bias)` --
        # kapılar baştan sona fp32 ("fp16'da .float() olmazsa A -inf olabilir"
        # yorumu). Burada da beta_proj/alpha_proj'un ön-aktivasyonu, sigmoid ve
        # softplus autocast DIŞINDA, fp32 ağırlık/girdiyle hesaplanır. Eskiden
        # alpha_proj çıktısı fp16 idi; decay hızı log-uzayda üstel etkilediği için
        # fp16 yuvarlaması yavaş head'lerde (softplus ~ 1e-3) yarı-ömrü kaydırıyordu.
        with torch.autocast(device_type=hidden_states.device.type, enabled=False):
            h32 = hidden_states.float()
            beta_pre = F.linear(h32, self.beta_proj.weight.float(), self.beta_proj.bias.float())
            alpha_pre = F.linear(h32, self.alpha_proj.weight.float(), self.alpha_proj.bias.float())
            # max_beta: bkz. __init__ (artık kesin tersle zorunlu değil; TPU v2 çekirdeği için korunuyor).
            beta = torch.sigmoid(beta_pre).clamp(max=self.max_beta).transpose(1, 2).unsqueeze(-1)
            # min_decay: alpha asla tam 1.0'a ulaşamaz -- bkz. __init__.
            log_alpha = (-F.softplus(alpha_pre) - self.min_decay).transpose(1, 2).unsqueeze(-1)

        # Padding Mask Entegrasyonu
        if attention_mask is not None:
            if attention_mask.dim() == 2:
                cur_mask = attention_mask[:, -seq_len:].unsqueeze(1).unsqueeze(-1).to(beta.dtype)
            elif attention_mask.dim() == 4:
                cur_mask = (attention_mask >= 0).float()[:, :, -seq_len:, -seq_len:]
            else:
                cur_mask = attention_mask[:, :, -seq_len:, :]

            beta = beta * cur_mask
            log_alpha = torch.where(cur_mask == 0, torch.zeros_like(log_alpha), log_alpha)

        if seq_len == 1 and past_state is not None and torch.is_tensor(past_state):
            alpha = torch.exp(log_alpha)
            out, next_state = self._forward_recurrent_step(q, k, v, beta, alpha, past_state)
        else:
            out, next_state = self._forward_chunkwise_parallel(q, k, v, beta, log_alpha, initial_state=past_state)

        # Norm fp32 girdi üzerinde (SykraRMSNorm içeride zaten fp32 hesaplar); fp16'ya
        # ancak norm'dan SONRA, birim ölçekli değerlerle iniyoruz. Eskiden `out`
        # norm'dan ÖNCE fp16'ya iniyordu: küçük çekirdek çıktıları (decay'li
        # head'ler) 6e-8 altında 0 oluyor, rsqrt(eps) ile büyütülemiyordu.
        out = self.group_norm(out).to(compute_dtype)
        out = out.transpose(1, 2).contiguous().view(bsz, seq_len, -1)
        return self.out_proj(out), (next_state if use_cache else None)


# ==========================================
# 3. FULL SELF-ATTENTION
# ==========================================
class SykraFullAttention(nn.Module):
    def __init__(self, config: SykraConfig, layer_idx: int):
        super().__init__()
        self.config = config
        self.layer_idx = layer_idx
        self.hidden_size = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.num_kv_heads = config.num_key_value_heads
        self.head_dim = config.head_dim
        self.num_kv_groups = self.num_heads // self.num_kv_heads

        self.q_proj = nn.Linear(self.hidden_size, self.num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(self.hidden_size, self.num_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(self.hidden_size, self.num_kv_heads * self.head_dim, bias=False)
        self.out_proj = nn.Linear(self.num_heads * self.head_dim, self.hidden_size, bias=False)

        self.rotary_emb = SykraRotaryEmbedding(self.head_dim, max_position_embeddings=config.max_position_embeddings, base=config.rope_theta)

    def forward(
        self,
        hidden_states: torch.Tensor,
        attention_mask: Optional[torch.Tensor] = None,
        past_state: Optional[Tuple[torch.Tensor, torch.Tensor]] = None,
        use_cache: bool = False,
    ) -> Tuple[torch.Tensor, Optional[Tuple[torch.Tensor, torch.Tensor]]]:
        bsz, seq_len, _ = hidden_states.shape

        q = self.q_proj(hidden_states).view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(bsz, seq_len, self.num_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(bsz, seq_len, self.num_kv_heads, self.head_dim).transpose(1, 2)

        kv_seq_len = k.shape[-2]
        if past_state is not None and isinstance(past_state, (tuple, list)):
            kv_seq_len += past_state[0].shape[-2]

        cos, sin = self.rotary_emb(v, kv_seq_len)
        cos, sin = cos[:, :, -seq_len:, :], sin[:, :, -seq_len:, :]
        q, k = apply_rotary_pos_emb(q, k, cos, sin)

        if past_state is not None and isinstance(past_state, (tuple, list)):
            k = torch.cat([past_state[0], k], dim=2)
            v = torch.cat([past_state[1], v], dim=2)

        present_key_value = (k, v) if use_cache else None

        k = repeat_kv(k, self.num_kv_groups)
        v = repeat_kv(v, self.num_kv_groups)

        actual_kv_len = k.shape[-2]
        attn_mask = None

        if attention_mask is not None and attention_mask.dim() == 2:
            pad_mask = (1.0 - attention_mask[:, None, None, :actual_kv_len].to(q.dtype)) * torch.finfo(q.dtype).min
            if seq_len > 1:
                causal_mask = torch.triu(
                    torch.full((seq_len, actual_kv_len), float("-inf"), device=q.device, dtype=q.dtype),
                    diagonal=1 + (actual_kv_len - seq_len)
                )
                attn_mask = causal_mask[None, None, :, :] + pad_mask
            else:
                attn_mask = pad_mask
        elif seq_len > 1:
            attn_mask = torch.triu(
                torch.full((seq_len, actual_kv_len), float("-inf"), device=q.device, dtype=q.dtype),
                diagonal=1 + (actual_kv_len - seq_len)
            )[None, None, :, :]

        attn_output = F.scaled_dot_product_attention(
            q, k, v,
            attn_mask=attn_mask,
            dropout_p=self.config.attention_dropout if self.training else 0.0,
            is_causal=False
        )

        attn_output = attn_output.transpose(1, 2).contiguous().view(bsz, seq_len, -1)
        return self.out_proj(attn_output), present_key_value


# ==========================================
# 4. SwiGLU MLP
# ==========================================
class SykraMLP(nn.Module):
    def __init__(self, config: SykraConfig):
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)
        self.act_fn = ACT2FN[config.hidden_act]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


# ==========================================
# 5. Sykra Decoder Block
# ==========================================
class SykraDecoderLayer(nn.Module):
    def __init__(self, config: SykraConfig, layer_idx: int):
        super().__init__()
        self.layer_idx = layer_idx
        self.is_full_attention = ((layer_idx + 1) % (config.delta_ratio + 1) == 0)

        if self.is_full_attention:
            self.self_attn = SykraFullAttention(config, layer_idx)
            self.delta_layer = None
        else:
            self.delta_layer = SykraDeltaLayer(config, layer_idx)
            self.self_attn = None

        self.mlp = SykraMLP(config)
        self.input_layernorm = SykraRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = SykraRMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(
        self,
        hidden_states: torch.Tensor,
        attention_mask: Optional[torch.Tensor] = None,
        past_state: Optional[Union[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]] = None,
        use_cache: bool = False,
    ) -> Tuple[torch.Tensor, Optional[Union[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]]]:
        
        residual = hidden_states
        normed = self.input_layernorm(hidden_states)

        if self.is_full_attention:
            attn_out, next_state = self.self_attn(
                normed, attention_mask=attention_mask, past_state=past_state, use_cache=use_cache
            )
        else:
            attn_out, next_state = self.delta_layer(
                normed, attention_mask=attention_mask, past_state=past_state, use_cache=use_cache
            )

        hidden_states = residual + attn_out

        residual = hidden_states
        hidden_states = residual + self.mlp(self.post_attention_layernorm(hidden_states))
        return hidden_states, next_state


# ==========================================
# 6. SykraModel & CausalLM
# ==========================================
class SykraPreTrainedModel(PreTrainedModel):
    config_class = SykraConfig
    base_model_prefix = "model"
    supports_gradient_checkpointing = True

    def _init_weights(self, module):
        std = self.config.initializer_range
        if isinstance(module, (nn.Linear, nn.Embedding)):
            module.weight.data.normal_(mean=0.0, std=std)
            if hasattr(module, "bias") and module.bias is not None:
                module.bias.data.zero_()


class SykraModel(SykraPreTrainedModel):
    def __init__(self, config: SykraConfig):
        super().__init__(config)
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([SykraDecoderLayer(config, idx) for idx in range(config.num_hidden_layers)])
        self.norm = SykraRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.gradient_checkpointing = False
        self.post_init()
        # post_init() -> self.apply(self._init_weights) TÜM Linear katmanları
        # aynı sabit std (initializer_range) ile başlatır, katman derinliğinden
        # bağımsız. Bu, residual stream'e yazan çıkış projeksiyonları (attention/
        # delta out_proj, MLP down_proj) için derin modellerde bir soruna yol
        # açar -- bkz. _init_depth_scaled_weights docstring'i. Bu yüzden genel
        # init'ten SONRA, sadece bu projeksiyonları depth-scaled std ile
        # yeniden başlatıyoruz.
        self._init_depth_scaled_weights()
        self._init_delta_gates()

    def _init_delta_gates(self):
        """Tüm delta katmanlarına çok-ölçekli (multi-timescale) decay init'i uygular."""
        for layer in self.layers:
            if layer.delta_layer is not None and hasattr(layer.delta_layer, "alpha_proj"):
                init_delta_gates(layer.delta_layer)

    def _init_depth_scaled_weights(self):
        """
        GPT-2 tarzı depth-scaled init (bkz. Radford ve ark., "Language Models
        are Unsupervised Multitask Learners", Bölüm 2.3): residual stream'e
        YAZAN çıkış projeksiyonlarının (attention/delta out_proj, MLP
        down_proj) başlangıç std'sini 1/sqrt(2*num_hidden_layers) ile
        küçültür.

        NEDEN GEREKLİ: Her katman residual stream'e `residual = residual +
        katman_çıktısı` şeklinde katkı biriktiriyor (üzerine yazmıyor,
        ekliyor). _init_weights tüm Linear'ları katman sayısından bağımsız
        sabit bir std ile başlattığı için, residual stream'in varyansı
        derinlikle ~sqrt(num_hidden_layers) oranında büyür ama her katmanın
        eklediği miktar sabit kalır. Sonuç: derin modellerde (örn. 32 katman)
        her katmanın nihai çıktıya oransal etkisi, sığ modellere (örn. 12
        katman) göre daha küçük olur -- gradyanlar orantısız zayıflar ve loss
        düşüşü yavaşlar (katmanın "kapasitesi" değil, init'in derinlikle
        ölçeklenmemiş olması sorumlu).

        Bu fonksiyon residual'a yazmayan projeksiyonlara (embedding, q/k/v,
        beta_proj, alpha_proj, gate_proj, up_proj) DOKUNMAZ -- onlar genel
        _init_weights'teki sabit std ile kalmaya devam eder, çünkü onlar
        residual stream'e doğrudan katkı biriktirmiyor.
        """
        std = self.config.initializer_range
        scaled_std = std / math.sqrt(2 * max(1, self.config.num_hidden_layers))

        for layer in self.layers:
            if layer.self_attn is not None:
                layer.self_attn.out_proj.weight.data.normal_(mean=0.0, std=scaled_std)
            if layer.delta_layer is not None:
                layer.delta_layer.out_proj.weight.data.normal_(mean=0.0, std=scaled_std)
            layer.mlp.down_proj.weight.data.normal_(mean=0.0, std=scaled_std)

    def get_input_embeddings(self):
        return self.embed_tokens

    def set_input_embeddings(self, value):
        self.embed_tokens = value

    def forward(
        self,
        input_ids: torch.LongTensor = None,
        attention_mask: Optional[torch.Tensor] = None,
        past_key_values: Optional[Any] = None,
        use_cache: Optional[bool] = None,
    ):
        use_cache = use_cache if use_cache is not None else self.config.use_cache
        hidden_states = self.embed_tokens(input_ids)
        next_cache = [] if use_cache else None

        for idx, layer in enumerate(self.layers):
            layer_past = extract_layer_past(past_key_values, idx)
            
            if self.gradient_checkpointing and self.training:
                def create_custom_forward(module):
                    def custom_forward(*inputs):
                        return module(*inputs)
                    return custom_forward
                
                hidden_states, next_layer_cache = torch.utils.checkpoint.checkpoint(
                    create_custom_forward(layer),
                    hidden_states,
                    attention_mask,
                    layer_past,
                    use_cache,
                    use_reentrant=False,
                )
            else:
                hidden_states, next_layer_cache = layer(
                    hidden_states,
                    attention_mask=attention_mask,
                    past_state=layer_past,
                    use_cache=use_cache,
                )

            if use_cache:
                next_cache.append(next_layer_cache)

        hidden_states = self.norm(hidden_states)
        return hidden_states, tuple(next_cache) if use_cache else None


class SykraForCausalLM(SykraPreTrainedModel, GenerationMixin):
    _tied_weights_keys = {"lm_head.weight": "model.embed_tokens.weight"}
    _supports_cache_class = False

    def __init__(self, config: SykraConfig):
        super().__init__(config)
        self.model = SykraModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

        # =====================================================================
        # 🛡️ VERSİYONDAN BAĞIMSIZ AÇIK GÜVENLİK AĞI (EXPLICIT WEIGHT TYING)
        # =====================================================================
        # Transformers versiyonu ne olursa olsun tie_word_embeddings aktifse
        # bellekteki işaretçiyi (pointer/storage) doğrudan eşitler.
        if getattr(config, "tie_word_embeddings", False):
            self.lm_head.weight = self.model.embed_tokens.weight

        # Bu sınıfın post_init()'i genel _init_weights'i bir kez daha tetikleyebilir
        # (transformers sürümüne göre); kapı init'inin üzerine yazılmadığından emin ol.
        # Idempotent: aynı dağılımdan yeniden örnekler.
        self.model._init_delta_gates()

    def get_input_embeddings(self):
        return self.model.embed_tokens

    def set_input_embeddings(self, value):
        self.model.embed_tokens = value

    def get_output_embeddings(self):
        return self.lm_head

    def set_output_embeddings(self, new_embeddings):
        self.lm_head = new_embeddings

    def tie_weights(self, *args, **kwargs):
        """
        Transformers'ın eski/yeni tüm sürümlerine (recompute_mapping vb.) uyumlu
        ve weight tying bağını asla koparmayan açık güvenlik ağı.
        """
        super().tie_weights(*args, **kwargs)
        if getattr(self.config, "tie_word_embeddings", False):
            self.lm_head.weight = self.model.embed_tokens.weight

    def to_tpu(self):
        """
        Modeldeki standart Delta katmanlarını TPU-native Pure-GEMM katmanlarıyla
        değiştirir. Weight init, TPUGatedDeltaLayer'ın kendi __init__'i içinde
        (_reset_parameters ile) otomatik uygulanır.
        """
        try:
            from .tpu_kernel import TPUGatedDeltaLayer
        except ImportError:
            from tpu_kernel import TPUGatedDeltaLayer

        for layer in self.model.layers:
            if not layer.is_full_attention:
                # DİKKAT: Burada artık ekstra bir `.apply(self._init_weights)`
                # ÇAĞIRMIYORUZ. TPUGatedDeltaLayer._reset_parameters() zaten
                # kendi out_proj'unu depth-scaled std ile başlatıyor (bkz.
                # tpu_kernel.py); generic self._init_weights sabit std
                # kullandığı için burada çağrılsaydı depth-scaled fix'i
                # sessizce ezip geçersiz kılardı.
                layer.delta_layer = TPUGatedDeltaLayer(self.config, layer.layer_idx)

        return self

    def forward(
        self,
        input_ids: torch.LongTensor = None,
        attention_mask: Optional[torch.Tensor] = None,
        past_key_values: Optional[Any] = None,
        labels: Optional[torch.LongTensor] = None,
        use_cache: Optional[bool] = None,
        return_dict: Optional[bool] = True,
        **kwargs,
    ) -> Union[Tuple, CausalLMOutputWithPast]:
        
        hidden_states, next_cache = self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            past_key_values=past_key_values,
            use_cache=use_cache,
        )

        logits = self.lm_head(hidden_states)

        loss = None
        if labels is not None:
            shift_logits = logits[..., :-1, :].contiguous()
            shift_labels = labels[..., 1:].contiguous()
            loss = F.cross_entropy(shift_logits.view(-1, self.config.vocab_size), shift_labels.view(-1))

        if not return_dict:
            output = (logits, next_cache)
            return ((loss,) + output) if loss is not None else output

        return CausalLMOutputWithPast(
            loss=loss,
            logits=logits,
            past_key_values=next_cache,
        )

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):
        if past_key_values is not None:
            input_ids = input_ids[:, -1:]
        return {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "past_key_values": past_key_values,
            "use_cache": kwargs.get("use_cache", True),
        }