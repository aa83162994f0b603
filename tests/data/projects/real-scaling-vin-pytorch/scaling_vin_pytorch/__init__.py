from scaling_vin_pytorch.vin import (
    ScalableVIN,
    ActionSelector,
    ValueIteration,
    DynamicValueIteration,
    AttentionValueIteration,
    ValueIterationNetwork
)
