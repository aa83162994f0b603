from .fttransformer_config import DefaultFTTransformerConfig
from .mambatab_config import DefaultMambaTabConfig
from .mambattention_config import DefaultMambAttentionConfig
from .mambular_config import DefaultMambularConfig
from .mlp_config import DefaultMLPConfig
from .ndtf_config import DefaultNDTFConfig
from .node_config import DefaultNODEConfig
from .resnet_config import DefaultResNetConfig
from .saint_config import DefaultSAINTConfig
from .tabm_config import DefaultTabMConfig
from .tabtransformer_config import DefaultTabTransformerConfig
from .tabularnn_config import DefaultTabulaRNNConfig
from .autoint_config import DefaultAutoIntConfig
from .trompt_config import DefaultTromptConfig
from .base_config import BaseConfig
from .enode_config import DefaultENODEConfig
from .tangos_config import DefaultTangosConfig
from .modernnca_config import DefaultModernNCAConfig

__all__ = [
    "DefaultModernNCAConfig",
    "DefaultTangosConfig",
    "DefaultENODEConfig",
    "DefaultTromptConfig",
    "DefaultAutoIntConfig",
    "DefaultFTTransformerConfig",
    "DefaultMLPConfig",
    "DefaultMambAttentionConfig",
    "DefaultMambaTabConfig",
    "DefaultMambularConfig",
    "DefaultNDTFConfig",
    "DefaultNODEConfig",
    "DefaultResNetConfig",
    "DefaultSAINTConfig",
    "DefaultTabMConfig",
    "DefaultTabTransformerConfig",
    "DefaultTabulaRNNConfig",
    "BaseConfig",
]
