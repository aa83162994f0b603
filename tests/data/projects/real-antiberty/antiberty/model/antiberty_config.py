# Num params = 13150233
antiberty_sm_config = {
    "hidden_size": 512,
    "intermediate_size": 2048,
    "max_position_embeddings": 512,
    "num_attention_heads": 8,
    "num_hidden_layers": 4,
}
# Num params = 25759769
antiberty_md_config = {
    "hidden_size": 512,
    "intermediate_size": 2048,
    "max_position_embeddings": 512,
    "num_attention_heads": 8,
    "num_hidden_layers": 8,
}
# Num params = 38369305
antiberty_lg_config = {
    "hidden_size": 512,
    "intermediate_size": 2048,
    "max_position_embeddings": 512,
    "num_attention_heads": 8,
    "num_hidden_layers": 12,
}
# Num params = 86062105
antiberty_xl_config = {
    "hidden_size": 768,
    "intermediate_size": 3072,
    "max_position_embeddings": 512,
    "num_attention_heads": 12,
    "num_hidden_layers": 12,
}
