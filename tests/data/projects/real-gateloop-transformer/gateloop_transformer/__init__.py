from gateloop_transformer.gateloop_transformer import (
    CausalFullAttention,
    GateLoopedAttention,
    Transformer
)

from gateloop_transformer.simplified_gate_loop import (
    SimpleGateLoopLayer
)
