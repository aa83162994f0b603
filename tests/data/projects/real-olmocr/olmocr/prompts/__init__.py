from .prompts import (
    PageResponse,
    build_finetuning_prompt,
    build_no_anchoring_v4_yaml_prompt,
    build_no_anchoring_yaml_prompt,
    build_openai_silver_data_prompt,
    extract_raw_text,
    openai_response_format_schema,
)
