from xturing.engines.lora_engine.lora import (
    LoraConfig,
    LoraModel,
    prepare_model_for_int8_training,
)
