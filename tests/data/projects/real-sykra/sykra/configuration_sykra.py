# configuration_sykra.py
from transformers.configuration_utils import PretrainedConfig

class SykraConfig(PretrainedConfig):
    model_type = "sykra"
    keys_to_ignore_at_inference = ["past_key_values"]

    def __init__(
        self,
        vocab_size: int = 50257,
        hidden_size: int = 2048,
        intermediate_size: int = 5632,
        num_hidden_layers: int = 16,
        num_attention_heads: int = 16,
        num_key_value_heads: int = 4,    # GQA 4:1
        head_dim: int = 128,
        # chunk_size: chunkwise paralel eğitim blok boyutu. ÖNEMLİ: 64 (eski
        # varsayılan) matris-tersi hesabında (invert_unit_lower_triangular)
        # bilinen bir kararsızlık kaynağıdır -- M'nin girdileri 1'e
        # yaklaştığında (beta->1) ara terimler kombinatoryal olarak büyüyor
        # (bkz. modeling_sykra.py, invert_unit_lower_triangular docstring'i
        # ve Qualcomm AI Research arXiv:2606.06034). 16, bu riski kökten
        # azaltan, literatürde de (Huawei GDN Tri-Inverse: max blok 16x16)
        # kullanılan güvenli bir varsayılan.
        chunk_size: int = 64,
        hidden_act: str = "silu",
        max_position_embeddings: int = 8192,
        initializer_range: float = 0.02,
        rms_norm_eps: float = 1e-6,
        use_cache: bool = True,
        delta_ratio: int = 3,            # 3 Delta : 1 Full Attention
        tie_word_embeddings: bool = False,
        rope_theta: float = 500000.0,
        attention_dropout: float = 0.0,
        delta_min_decay: float = 1e-3,   # alpha = exp(log_alpha) taban: alpha asla 1.0'a ulaşamaz
        delta_max_state_norm: float = 1e4,  # recurrent state S için Frobenius norm üst sınırı (NaN/inf taşma koruması)
        delta_max_beta: float = 0.9,     # beta (delta-update gücü) taban: M matrisi asla tam-dejenere olamaz
        **kwargs,
    ):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.num_key_value_heads = num_key_value_heads
        self.head_dim = head_dim
        self.chunk_size = chunk_size
        self.hidden_act = hidden_act
        self.max_position_embeddings = max_position_embeddings
        self.initializer_range = initializer_range
        self.rms_norm_eps = rms_norm_eps
        self.use_cache = use_cache
        self.delta_ratio = delta_ratio
        self.rope_theta = rope_theta
        self.attention_dropout = attention_dropout
        self.delta_min_decay = delta_min_decay
        self.delta_max_state_norm = delta_max_state_norm
        self.delta_max_beta = delta_max_beta

        super().__init__(
            tie_word_embeddings=tie_word_embeddings,
            **kwargs,
        )