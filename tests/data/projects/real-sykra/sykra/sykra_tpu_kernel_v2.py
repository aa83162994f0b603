"""
sykra_tpu_kernel_v2.py
======================
Sykra Gated DeltaNet katmanının TPU (PyTorch/XLA) için yeniden yazılmış hâli,
artı delta katmanları için doğru ağırlık başlatması.

Mevcut `tpu_kernel.py::TPUGatedDeltaLayer` yerine bunu kullanın. Parametre
isimleri ve şekilleri `modeling_sykra.py::SykraDeltaLayer` ile BİREBİR aynıdır,
yani state_dict'ler iki yönde de sorunsuz taşınır (eğitim TPU'da, generate()
standart mimaride yapılabilir).


NEDEN YENİ BİR ÇEKİRDEK
-----------------------
1) DOĞRULUK HATASI (tpu_kernel.py, satır ~156)
      pred_v_0 = torch.matmul(k_c, S)              # <-- HATALI
   S, state-update satırındaki `S_delta = matmul(U_decayed.T, k)` kuralına göre
   [value_dim, key_dim] eksenlidir; `modeling_sykra.py` bunu
      pred_v_0 = torch.matmul(k_c, S.transpose(-1, -2))
   olarak düzeltmiş, ama düzeltme tpu_kernel.py'ye hiç taşınmamış.
   Etkisi ölçüldü: S=0 olduğu İLK chunk'ta sonuç doğru (fark 1.6e-7), ikinci
   chunk'tan itibaren bozuluyor (5 chunk'ta ortalama %2.2 bağıl hata, ve hata
   chunk sayısıyla birikiyor). seq_len=2048 / chunk=64 senaryosunda dizinin
   31/32'si yanlış hesaplanır -- gradyan sistematik olarak bozulur.

2) EKSİK KARARLILIK SAVUNMALARI
   tpu_kernel.py'de `min_decay`, `max_beta` ve state-norm clamp yok
   (modeling_sykra.py'de var); ayrıca recurrent state S bf16'da birikiyor.
   bf16'nın 8-bit mantissası, chunk'lar boyunca çarpımsal biriken bir state
   için yetersiz.

3) XLA GRAF PATLAMASI
   `for i in range(num_chunks)` döngüsünün İÇİNDE C x C gram matrisi, matris
   tersi (6 matmul) ve causal attention hesaplanıyor. seq_len=2048, C=64 ->
   32 chunk; 12 delta katmanı -> XLA grafiğine 384 kez açılan (unrolled) ağır
   blok. Derleme dakikalar sürer, HBM şişer.

4) TERS ALMADAKİ CLAMP GRADYANI ÖLDÜRÜYOR
   `modeling_sykra.py::invert_unit_lower_triangular`, her Newton adımından
   sonra `torch.clamp(A, -1e4, 1e4)` uyguluyor. Clamp, ikiye-katlama
   özdeşliğini (E_{k+1} = E_k^2) BOZAR: bir kez tetiklenirse sonuç artık ters
   matris değildir, ve dahası clamp'in doygun bölgede gradyanı SIFIR olduğu
   için o girdilerden geriye hiç gradyan akmaz. Burada clamp yok; kararlılık
   `max_beta` ile M'nin girdilerini 1'den uzak tutarak sağlanıyor.


ÇÖZÜM: WY-AYRIŞTIRMASI
----------------------
Chunk-içi işin tamamı aslında başlangıç state'i S_0'dan bağımsızdır:

    U_i = Uv_i - W_i @ S^T      ( Uv_i = T_i @ (beta*V),  W_i = T_i @ (beta*decay*K) )

Bunu çıkış ve state güncellemesinde yerine koyunca her ikisi de S cinsinden
lineer hale gelir:

    out_i = out_base_i + Qeff_i @ S^T
    S_new = total_decay_i * S - S @ G_i + Sdelta_base_i

`out_base`, `Qeff`, `G`, `Sdelta_base`, `total_decay` TÜM chunk'lar için TEK
batched matmul setiyle hesaplanır (MXU dostu). Sıralı döngüde geriye sadece
iki küçük [head_dim x head_dim] matmul kalır.

Referans `_forward_chunkwise_parallel` ile sayısal eşdeğerliği float64'te
test edildi: çıktı/state/gradyan farkı ~1e-7 (yani saf fp32 yuvarlama
gürültüsü), ve sonuç chunk_size'dan bağımsız.
"""

import math
from typing import Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

# RMSNorm'u paketten al (paket / düz dizin / test, üç kullanım da çalışsın)
try:
    from .modeling_sykra import SykraRMSNorm
except (ImportError, ValueError):
    try:
        from sykra.modeling_sykra import SykraRMSNorm
    except ImportError:
        from modeling_sykra import SykraRMSNorm


__all__ = [
    "SykraTPUDeltaLayer",
    "unit_lower_triangular_inverse",
    "apply_delta_gate_init",
    "convert_model_to_tpu_kernel",
    "init_delta_gates",
]


# ---------------------------------------------------------------------------
# Yardımcılar
# ---------------------------------------------------------------------------
def _hi(x: torch.Tensor) -> torch.Tensor:
    """En az fp32'ye yükselt; zaten fp32/fp64 ise dokunma (fp64 testleri bozulmasın)."""
    return x if x.dtype in (torch.float32, torch.float64) else x.float()


def _hi_dtype(x: torch.Tensor) -> torch.dtype:
    return torch.float64 if x.dtype == torch.float64 else torch.float32


def _repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    if n_rep == 1:
        return x
    b, kvh, s, d = x.shape
    return x[:, :, None, :, :].expand(b, kvh, n_rep, s, d).reshape(b, kvh * n_rep, s, d)


def unit_lower_triangular_inverse(M: torch.Tensor) -> torch.Tensor:
    """
    (I + M)^-1, M KESİN alt üçgen (strictly lower triangular) olmak üzere.

    M nilpotenttir (M^C = 0), dolayısıyla Neumann serisi I - M + M^2 - ...
    sonludur ve çarpım formunda yazılabilir:

        (I - M) (I + M^2) (I + M^4) ... (I + M^(2^k)),   k = ceil(log2(C)) - 1

    Bu, C=64 için 6 adet SADECE-MATMUL adımı demektir.
    `torch.linalg.solve_triangular` gibi satır-sıralı DEĞİLDİR: MXU'yu tam
    kullanır ve XLA hızlı derler. Clamp yoktur (bkz. dosya başlığı, madde 4).
    """
    C = M.shape[-1]
    eye = torch.eye(C, device=M.device, dtype=M.dtype)
    out = eye - M
    M_pow = M
    for _ in range(max(0, math.ceil(math.log2(max(2, C))) - 1)):
        M_pow = torch.matmul(M_pow, M_pow)
        out = torch.matmul(out, eye + M_pow)
    return out


# ---------------------------------------------------------------------------
# TPU Delta katmanı
# ---------------------------------------------------------------------------
class SykraTPUDeltaLayer(nn.Module):
    """
    Chunk-paralel Gated DeltaNet, XLA/TPU için optimize edilmiş.

    Hassasiyet politikası:
      * FP32 (sayısal olarak kritik, state'i besleyen yol):
        g / decay, gram_kk, M, (I+M)^-1, Uv, Wm, G, Sdelta_base ve S taraması.
      * Girdi dtype'ı (autocast altında bf16 -- çıkış yolu, state'i beslemez):
        A = QK^T, out_base, Qeff ve nihai çıktı.
    Bu bölüşüm, ağır C x C matmul'lerin çoğunu bf16'da bırakarak MXU hızını
    korur ama biriken state'i asla dar mantissaya sokmaz.
    """

    def __init__(self, config, layer_idx: int):
        super().__init__()
        self.config = config
        self.layer_idx = layer_idx
        self.hidden_size = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.num_kv_heads = config.num_key_value_heads
        self.head_dim = config.head_dim
        self.chunk_size = getattr(config, "chunk_size", 64)
        self.num_kv_groups = self.num_heads // self.num_kv_heads

        self.q_proj = nn.Linear(self.hidden_size, self.num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(self.hidden_size, self.num_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(self.hidden_size, self.num_kv_heads * self.head_dim, bias=False)
        self.beta_proj = nn.Linear(self.hidden_size, self.num_heads, bias=True)
        self.alpha_proj = nn.Linear(self.hidden_size, self.num_heads, bias=True)

        self.group_norm = SykraRMSNorm(self.head_dim, eps=config.rms_norm_eps)
        self.out_proj = nn.Linear(self.num_heads * self.head_dim, self.hidden_size, bias=False)

        self.min_decay = getattr(config, "delta_min_decay", 1e-5)
        self.max_state_norm = getattr(config, "delta_max_state_norm", 1e4)
        self.max_beta = getattr(config, "delta_max_beta", 0.9)

        self._reset_parameters()

    # ---------------- ağırlık başlatma ----------------
    def _reset_parameters(self):
        std = getattr(self.config, "initializer_range", 0.02)
        n_layers = max(1, getattr(self.config, "num_hidden_layers", 1))
        scaled = std / math.sqrt(2 * n_layers)  # depth-scaled (GPT-2 tarzı)

        for m in (self.q_proj, self.k_proj, self.v_proj, self.beta_proj):
            m.weight.data.normal_(0.0, std)
            if m.bias is not None:
                m.bias.data.zero_()
        self.out_proj.weight.data.normal_(0.0, scaled)

        init_delta_gates(self)

    # ---------------- state clamp ----------------
    def _clip_state(self, S: torch.Tensor) -> torch.Tensor:
        n = S.norm(dim=(-2, -1), keepdim=True)
        return S * (self.max_state_norm / n.clamp(min=self.max_state_norm))

    # ---------------- chunk-paralel ileri yol ----------------
    def _forward_chunkwise(self, q, k, v, beta, log_alpha, initial_state=None):
        # AUTOCAST İZOLASYONU -- ZORUNLU.
        # Elle `.float()` yapmak TEK BAŞINA yetmez: autocast, matmul gibi
        # allow-list'teki op'ları çağrıldıkları anda kendi kararıyla tekrar
        # bf16/fp16'ya indirir ve elle yapılan cast'i sessizce geçersiz kılar.
        #     with torch.autocast('cpu', dtype=torch.bfloat16):
        #         a = torch.randn(4, 4)              # fp32
        #         torch.matmul(a, a).dtype           # -> torch.bfloat16 (!)
        # Yani bu blok olmadan "fp32 state yolu" diye yazdığımız her şey
        # aslında bf16'da çalışır. Blok içinde dtype'ları elle yönetiyoruz:
        # state yolu .float(), çıkış yolu .to(dt).
        with torch.autocast(device_type=q.device.type, enabled=False):
            return self._chunkwise_impl(q, k, v, beta, log_alpha, initial_state)

    def _chunkwise_impl(self, q, k, v, beta, log_alpha, initial_state=None):
        bsz, heads, seq_len, d = q.shape
        dt = q.dtype                                   # çıkış-yolu dtype'ı (bf16)
        C = max(1, min(self.chunk_size, seq_len))

        pad = (C - (seq_len % C)) % C
        if pad:
            q = F.pad(q, (0, 0, 0, pad))
            k = F.pad(k, (0, 0, 0, pad))
            v = F.pad(v, (0, 0, 0, pad))
            beta = F.pad(beta, (0, 0, 0, pad))
            log_alpha = F.pad(log_alpha, (0, 0, 0, pad), value=0.0)
        nc = (seq_len + pad) // C

        q = q.view(bsz, heads, nc, C, d)
        k = k.view(bsz, heads, nc, C, d)
        v = v.view(bsz, heads, nc, C, d)
        beta = beta.view(bsz, heads, nc, C, 1)
        log_alpha = log_alpha.view(bsz, heads, nc, C, 1)

        # ---- FP32 state yolu ----
        hp = _hi_dtype(q)
        qf, kf, vf, bf = _hi(q), _hi(k), _hi(v), _hi(beta)

        g = torch.cumsum(_hi(log_alpha), dim=-2)          # (B,H,nc,C,1)
        decay = torch.exp(g)
        g_last = g[..., -1:, :]                              # (B,H,nc,1,1)
        decay_last = torch.exp(g_last - g)                   # (B,H,nc,C,1)
        total_decay = torch.exp(g_last)                      # (B,H,nc,1,1)

        strict = torch.tril(torch.ones(C, C, device=q.device, dtype=torch.bool), diagonal=-1)
        causal = torch.tril(torch.ones(C, C, device=q.device, dtype=torch.bool))

        # Pre-exponential masking: exp'ten ÖNCE -1e9 -> exp(-1e9) = 0, inf*0 = NaN yok
        g_diff = g - g.transpose(-1, -2)                     # (B,H,nc,C,C)
        neg = torch.full_like(g_diff, -1e9)
        decay_strict = torch.exp(torch.where(strict, g_diff, neg))
        decay_causal = torch.exp(torch.where(causal, g_diff, neg))

        gram_kk = torch.matmul(kf, kf.transpose(-1, -2))
        M = bf * gram_kk * decay_strict                       # kesin alt üçgen
        T = unit_lower_triangular_inverse(M)                  # (I+M)^-1

        Uv = torch.matmul(T, bf * vf)                         # (B,H,nc,C,d)
        Wm = torch.matmul(T, bf * decay * kf)                 # (B,H,nc,C,d)

        Sdelta_base = torch.matmul((Uv * decay_last).transpose(-1, -2), kf)   # (B,H,nc,d,d)
        G = torch.matmul(Wm.transpose(-1, -2), kf * decay_last)               # (B,H,nc,d,d)

        # ---- Çıkış yolu (bf16) ----
        A = torch.matmul(q, k.transpose(-1, -2)) * decay_causal.to(dt)        # (B,H,nc,C,C)
        out_base = torch.matmul(A, Uv.to(dt))                                 # (B,H,nc,C,d)
        Qeff = q * decay.to(dt) - torch.matmul(A, Wm.to(dt))                  # (B,H,nc,C,d)

        # ---- Sıralı tarama: chunk başına 2 küçük [d x d] matmul ----
        if initial_state is not None and torch.is_tensor(initial_state):
            S = initial_state.to(hp)
        else:
            S = torch.zeros(bsz, heads, d, d, device=q.device, dtype=hp)

        outs = []
        for i in range(nc):
            outs.append(out_base[:, :, i] + torch.matmul(Qeff[:, :, i], S.transpose(-1, -2).to(dt)))
            S = total_decay[:, :, i] * S - torch.matmul(S, G[:, :, i]) + Sdelta_base[:, :, i]
            S = self._clip_state(S)

        out = torch.cat(outs, dim=2)
        if pad:
            out = out[:, :, :seq_len, :]
        return out, S

    # ---------------- O(1) decode adımı (generate) ----------------
    def _forward_recurrent_step(self, q, k, v, beta, alpha, S):
        dt = q.dtype
        # Aynı gerekçe: bkz. _forward_chunkwise'daki autocast notu.
        with torch.autocast(device_type=q.device.type, enabled=False):
            hp = _hi_dtype(q)
            q32, k32, v32 = _hi(q), _hi(k), _hi(v)
            S = S.to(hp) * alpha.to(hp)
            pred_v = torch.matmul(S, k32.transpose(-1, -2)).transpose(-1, -2)
            S = S + beta.to(hp) * torch.matmul((v32 - pred_v).transpose(-1, -2), k32)
            S = self._clip_state(S)
            out = torch.matmul(q32, S.transpose(-1, -2))
        return out.to(dt), S

    # ---------------- forward ----------------
    def forward(self, hidden_states, attention_mask=None, past_state=None, use_cache=False):
        bsz, seq_len, _ = hidden_states.shape
        in_dtype = hidden_states.dtype

        q = self.q_proj(hidden_states).view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(bsz, seq_len, self.num_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(bsz, seq_len, self.num_kv_heads, self.head_dim).transpose(1, 2)

        # Hesap dtype'ı projeksiyon ÇIKTISINDAN alınır, girdisinden değil:
        # autocast altında q_proj bf16 üretir ama hidden_states (residual
        # stream) fp32 kalır. dt'yi hidden_states'ten alsaydık katmanın tamamı
        # fp32'de çalışır, bf16'nın hız kazancı tamamen kaybolurdu.
        ct = q.dtype

        k = _repeat_kv(k, self.num_kv_groups)
        v = _repeat_kv(v, self.num_kv_groups)
        # L2 normalizasyon fp32'de: gram_kk'nin koşullanması buna duyarlı,
        # maliyeti ihmal edilebilir.
        k = F.normalize(_hi(k), p=2, dim=-1).to(ct)
        q = F.normalize(_hi(q), p=2, dim=-1).to(ct)

        # Kapılar baştan sona fp32. beta_proj/alpha_proj küçük projeksiyonlar
        # (hidden x num_heads), maliyeti yok denecek kadar az; buna karşılık
        # alpha_proj'un ön-aktivasyonu -4..-7 bandında ve softplus orada
        # neredeyse exp gibi davranıyor: bf16'nın ~3 ondalık basamağı
        # yarı-ömürde %1'lik kayma demek. Kapıyı bf16'ya hiç sokmuyoruz.
        with torch.autocast(device_type=hidden_states.device.type, enabled=False):
            # Ağırlığın dtype'ına hizala: normalde fp32, fp64 testinde fp64.
            h32 = hidden_states.to(self.beta_proj.weight.dtype)
            beta = torch.sigmoid(self.beta_proj(h32)).clamp(max=self.max_beta)
            beta = beta.transpose(1, 2).unsqueeze(-1)
            log_alpha = -F.softplus(self.alpha_proj(h32)) - self.min_decay
            log_alpha = log_alpha.transpose(1, 2).unsqueeze(-1)

        if attention_mask is not None and attention_mask.dim() == 2:
            m = attention_mask[:, -seq_len:].unsqueeze(1).unsqueeze(-1).to(torch.float32)
            beta = beta * m
            log_alpha = log_alpha * m   # mask=0 -> log_alpha=0 -> decay yok

        if seq_len == 1 and past_state is not None and torch.is_tensor(past_state):
            out, nxt = self._forward_recurrent_step(
                q, k, v, beta, torch.exp(log_alpha), past_state
            )
        else:
            out, nxt = self._forward_chunkwise(
                q, k, v, beta, log_alpha, initial_state=past_state
            )

        out = self.group_norm(out.to(ct))
        out = out.transpose(1, 2).contiguous().view(bsz, seq_len, -1)
        return self.out_proj(out).to(in_dtype), (nxt if use_cache else None)


# ---------------------------------------------------------------------------
# Kapı (gate) başlatması -- LOSS'UN DÜŞMEMESİNDEKİ ANA ŞÜPHELİ
# ---------------------------------------------------------------------------
def init_delta_gates(layer, min_half_life: float = 16.0, max_half_life: float = 1024.0):
    """
    `alpha_proj.bias`'ı, başlangıçtaki decay yarı-ömrü head'ler arasında
    [min_half_life, max_half_life] token aralığında LOG-UNIFORM dağılacak
    şekilde ayarlar.

    NEDEN GEREKLİ
    -------------
    Mevcut kodda alpha_proj, genel `_init_weights` ile N(0, 0.02) ağırlık ve
    SIFIR bias alıyor. hidden_size=2048 ve RMSNorm'lanmış girdiyle
    ön-aktivasyon ~N(0, 0.9) oluyor, softplus(0) = 0.693, dolayısıyla

        alpha = exp(-softplus(x)) ~ 0.50

    Ölçüldü (kullanıcının gerçek config'iyle): ortalama alpha = 0.4994,
    yani recurrent state'in YARI-ÖMRÜ 1 TOKEN. 64 token sonra sinyalin
    5e-20'si kalıyor. 16 katmanın 12'si delta katmanı olduğuna göre modelin
    %75'i başlangıçta yalnızca o anki token'ı gören yerel bir operatör olarak
    doğuyor; bağlamı sadece 4 full-attention katmanı taşıyor.

    Bu kendi başına ölümcül değil (alpha öğrenilebilir), ama kaçış yolu çok
    zayıf: state katkısı ~0 olduğu için alpha_proj'a giden gradyan da ~0 --
    klasik "loss uzun süre platoda kalıyor" imzası. Mamba ve Gated DeltaNet
    referans implementasyonlarının `A_log` / `dt_bias`'ı özellikle decay ~1
    civarında başlatmasının sebebi tam olarak budur.

    Ağırlıklar da küçültülür (std = 0.2/sqrt(hidden_size)) ki başlangıçta
    bias baskın olsun; kapı yine de veri-bağımlı kalır.
    """
    n = layer.alpha_proj.out_features
    hl = torch.exp(torch.linspace(math.log(min_half_life), math.log(max_half_life), n))
    # log_alpha = -softplus(x) - min_decay  =>  softplus(x) = ln2/hl - min_decay
    target = (math.log(2.0) / hl - layer.min_decay).clamp(min=1e-7)
    layer.alpha_proj.bias.data.copy_(torch.log(torch.expm1(target)))
    layer.alpha_proj.weight.data.normal_(0.0, 0.2 / math.sqrt(layer.hidden_size))

    # beta: sigmoid(0) = 0.5, delta-update gücü için makul bir başlangıç.
    layer.beta_proj.bias.data.zero_()


def apply_delta_gate_init(model, min_half_life: float = 16.0, max_half_life: float = 1024.0):
    """Modeldeki TÜM delta katmanlarına kapı başlatmasını uygular (TPU ve standart)."""
    n = 0
    for layer in model.model.layers:
        d = getattr(layer, "delta_layer", None)
        if d is not None and hasattr(d, "alpha_proj"):
            init_delta_gates(d, min_half_life, max_half_life)
            n += 1
    return n


# ---------------------------------------------------------------------------
# Model dönüşümü
# ---------------------------------------------------------------------------
def convert_model_to_tpu_kernel(model):
    """
    `SykraForCausalLM` içindeki tüm `SykraDeltaLayer`'ları `SykraTPUDeltaLayer`
    ile değiştirir. `modeling_sykra.py::to_tpu()` yerine bunu kullanın --
    to_tpu(), hatalı `tpu_kernel.py::TPUGatedDeltaLayer`'ı takar.

    Ağırlıklar taşınır (parametre isimleri birebir aynı), yani çağrı sırası
    (init'ten önce/sonra) fark etmez.
    """
    n = 0
    for layer in model.model.layers:
        if getattr(layer, "is_full_attention", False):
            continue
        old = layer.delta_layer
        new = SykraTPUDeltaLayer(model.config, layer.layer_idx)
        new.load_state_dict(old.state_dict())
        new.to(next(old.parameters()).dtype)
        layer.delta_layer = new
        n += 1
    return n
