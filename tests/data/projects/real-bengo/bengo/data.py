"""Dataset formatting and causal labels, including prompt-only masking."""
from pathlib import Path


def _string(row, key, allow_empty=False):
    value = row.get(key)
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise ValueError(f"Dataset field {key!r} must be a {'possibly empty ' if allow_empty else 'nonempty '}string")
    return value


def encode_row(row, tokenizer, dataset_format, max_length):
    prompt = None
    if dataset_format == "alpaca":
        instruction = _string(row, "instruction")
        context = row.get("input", "")
        if not isinstance(context, str):
            raise ValueError("Alpaca input must be a string")
        prompt = f"### Instruction:\n{instruction}\n\n"
        if context.strip():
            prompt += f"### Input:\n{context}\n\n"
        prompt += "### Response:\n"
        completion = _string(row, "output")
    elif dataset_format == "prompt_completion":
        prompt = _string(row, "prompt")
        completion = _string(row, "completion")
    elif dataset_format == "text":
        text = _string(row, "text")
    elif dataset_format == "messages":
        messages = row.get("messages")
        if not isinstance(messages, list) or not messages:
            raise ValueError("messages must be a nonempty list")
        for message in messages:
            if not isinstance(message, dict) or message.get("role") not in {"system", "user", "assistant"}:
                raise ValueError("Each message needs a system, user, or assistant role")
            _string(message, "content")
        if not getattr(tokenizer, "chat_template", None):
            raise ValueError("messages format requires a tokenizer chat_template")
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=False)
    else:
        raise ValueError(f"Unsupported dataset format: {dataset_format}")

    def ids(value):
        return tokenizer(value, add_special_tokens=False)["input_ids"]

    if prompt is not None:
        # Encode segments separately: target starts exactly at this token boundary.
        prefix, target = ids(prompt), ids(completion)
        tokens = prefix + target
        labels = [-100] * len(prefix) + target.copy()
    else:
        tokens = ids(text)
        labels = tokens.copy()
    eos = tokenizer.eos_token_id
    if eos is not None and (not tokens or tokens[-1] != eos):
        tokens.append(eos)
        labels.append(eos)
    tokens, labels = tokens[:max_length], labels[:max_length]
    # The model shifts labels internally. A target at position zero is insufficient.
    if len(tokens) < 2 or not any(x != -100 for x in labels[1:]):
        raise ValueError("Row has no trainable target after truncation; increase max_length or shorten the prompt")
    return {"input_ids": tokens, "attention_mask": [1] * len(tokens), "labels": labels}


def load_training_data(config, tokenizer, source=None, split=None):
    from datasets import load_dataset

    source = source or config.dataset
    split = split or config.split
    path = Path(source)
    if path.is_file():
        suffix = path.suffix.lower()
        if suffix not in {".json", ".jsonl", ".parquet"}:
            raise ValueError("Local dataset must be .json, .jsonl, or .parquet")
        dataset = load_dataset("parquet" if suffix == ".parquet" else "json",
                               data_files={split: str(path)}, split=split, streaming=config.streaming)
    else:
        if source.endswith((".json", ".jsonl", ".parquet")):
            raise FileNotFoundError(source)
        dataset = load_dataset(source, name=config.dataset_config, split=split, streaming=config.streaming)
    if not config.streaming and len(dataset) == 0:
        raise ValueError("Dataset is empty")
    columns = dataset.column_names
    if columns is None:
        first = next(iter(dataset), None)
        if first is None:
            raise ValueError("Dataset is empty")
        columns = list(first)
    dataset = dataset.map(
        lambda row: encode_row(row, tokenizer, config.dataset_format, config.max_length),
        remove_columns=columns,
    )
    if config.streaming:
        dataset = dataset.shuffle(seed=config.seed, buffer_size=config.shuffle_buffer)
    return dataset


class CausalCollator:
    """Right-pad; never mask real EOS tokens even when PAD and EOS are identical."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    def __call__(self, features):
        import torch

        if self.tokenizer.padding_side != "right":
            raise ValueError("Training requires right padding")
        batch = self.tokenizer.pad(
            [{"input_ids": f["input_ids"], "attention_mask": f["attention_mask"]} for f in features],
            padding=True, return_tensors="pt",
        )
        width = batch["input_ids"].shape[1]
        batch["labels"] = torch.tensor(
            [f["labels"] + [-100] * (width - len(f["labels"])) for f in features], dtype=torch.long,
        )
        return batch
