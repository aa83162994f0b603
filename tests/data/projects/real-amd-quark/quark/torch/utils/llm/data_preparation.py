#
# Copyright (C) 2023 - 2026 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#

from __future__ import annotations

from io import BytesIO
from typing import Any

from quark.common.utils.import_utils import (
    is_datasets_available,
    is_pil_available,
    is_requests_available,
    is_torch_available,
    is_transformers_available,
)
from quark.common.utils.log import ScreenLogger

logger = ScreenLogger(__name__)
if is_requests_available():
    import requests  # type: ignore[import-untyped]

if is_datasets_available():
    from datasets import load_dataset

if is_pil_available():
    from PIL import Image

if is_torch_available():
    import torch
    from torch.utils.data import DataLoader, Dataset, Subset, TensorDataset
if is_transformers_available():
    from transformers import (  # type: ignore[attr-defined]
        AutoTokenizer,
        PreTrainedTokenizer,
        default_data_collator,
    )


def get_pileval(
    tokenizer: PreTrainedTokenizer, nsamples: int, seqlen: int, device: str | None, seed: int = 0
) -> DataLoader[torch.Tensor]:
    dataset = load_dataset("mit-han-lab/pile-val-backup", split="validation").shuffle(seed=seed)

    samples = []
    n_run = 0
    for data in dataset:
        line_encoded = tokenizer.encode(data["text"].strip())
        if 0 < len(line_encoded) <= seqlen:
            sample = torch.tensor([line_encoded], device=device)
            samples.append(sample)
            n_run += 1
        if n_run == nsamples:
            break

    # Concatenate all samples and split according to block size
    cat_samples = torch.cat(samples, dim=1)
    n_split = cat_samples.shape[1] // seqlen

    # Create training dataset by splitting concatenated samples
    train_dataset = [cat_samples[:, i * seqlen : (i + 1) * seqlen] for i in range(n_split)]

    # Create batched samples
    batch_inps = torch.cat(train_dataset, dim=0)

    return batch_inps


def get_wikitext2(
    tokenizer: PreTrainedTokenizer, nsamples: int, seqlen: int, device: str | None, seed: int = 0
) -> DataLoader[torch.Tensor]:
    traindata = load_dataset("Salesforce/wikitext", "wikitext-2-raw-v1", split="train")
    trainenc = tokenizer("\n\n".join(traindata["text"]), return_tensors="pt")
    trainenc = trainenc.to(device)

    import random

    random.seed(seed)
    torch.random.manual_seed(seed)

    traindataset = []
    for _ in range(nsamples):
        i = random.randint(0, trainenc.input_ids.shape[1] - seqlen - 1)
        j = i + seqlen
        inp = trainenc.input_ids[:, i:j]
        attention_mask = torch.ones_like(inp)
        traindataset.append({"input_ids": inp, "attention_mask": attention_mask})
    batch_inps = torch.cat([sample["input_ids"] for sample in traindataset], dim=0)
    return batch_inps


def get_calib_dataloader_for_benchmark(
    dataset_name: str = "pileval_for_awq_benchmark",
    tokenizer: AutoTokenizer | None = None,
    batch_size: int = 1,
    num_calib_data: int = 128,
    seqlen: int = 2048,
    device: str = "cpu",
    drop_last: bool = True,
) -> DataLoader[torch.Tensor]:
    if dataset_name == "pileval_for_awq_benchmark":
        samples = get_pileval(tokenizer, num_calib_data, seqlen, device, seed=42)
        if batch_size != len(samples):
            logger.warning(
                f"For AWQ benchmark, batch_size should be {len(samples)}. Changing batch_size to {len(samples)}."
            )
            batch_size = len(samples)
    elif dataset_name == "wikitext_for_gptq_benchmark":
        samples = get_wikitext2(tokenizer, num_calib_data, seqlen, device)
    else:
        raise NotImplementedError

    calib_dataloader: DataLoader[list[dict[str, torch.Tensor]]] = DataLoader(
        samples, batch_size=batch_size, shuffle=False, drop_last=drop_last
    )  # type: ignore

    return calib_dataloader


def get_calib_dataloader_to_tensor(
    dataset_name: str = "cnn_dailymail",
    tokenizer: AutoTokenizer | None = None,
    batch_size: int = 1,
    num_calib_data: int = 512,
    seqlen: int = 512,
    shuffle: bool = False,
    device: str | None = None,
    drop_last: bool = True,
) -> DataLoader[torch.Tensor]:
    if dataset_name == "pileval":
        dataset = load_dataset("mit-han-lab/pile-val-backup", split="validation")
        text_data = dataset["text"][:num_calib_data]
    elif dataset_name in ("cnn_dailymail", "abisee/cnn_dailymail"):
        dataset = load_dataset("abisee/cnn_dailymail", name="3.0.0", split="train")
        text_data = dataset["article"][:num_calib_data]
    elif dataset_name in ("wikitext", "Salesforce/wikitext"):
        dataset = load_dataset("Salesforce/wikitext", "wikitext-2-raw-v1", split="train")
        text_data = dataset["text"][:num_calib_data]
    else:
        raise NotImplementedError

    batch_encoded = tokenizer(text_data, return_tensors="pt", padding=True, truncation=True, max_length=seqlen)  # type: ignore[operator]
    if device:
        batch_encoded = batch_encoded.to(device)
    batch_encoded = batch_encoded["input_ids"]

    calib_dataloader = DataLoader(batch_encoded, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)

    return calib_dataloader


def get_calib_dataloader_to_dict(
    dataset_name: str = "cnn_dailymail",
    tokenizer: AutoTokenizer | None = None,
    batch_size: int = 1,
    num_calib_data: int = 512,
    seqlen: int = 512,
    device: str | None = None,
) -> DataLoader[dict[str, torch.Tensor]]:
    def make_data_block(
        examples: dict[str, list[str]],
        tokenizer: AutoTokenizer | None = None,
        prompt_col_name: str = "",
        max_length: int = 512,
    ) -> dict[str, list[list[torch.Tensor]]]:
        res: dict[str, list[list[torch.Tensor]]] = tokenizer(  # type: ignore[operator]
            examples[prompt_col_name], padding=True, truncation=True, max_length=max_length
        )
        return res

    def my_collate_fn(blocks: list[dict[str, list[list[str]]]]) -> dict[str, torch.Tensor]:
        data_batch = {}
        data_batch["input_ids"] = torch.Tensor([block["input_ids"] for block in blocks])
        if device:
            data_batch["input_ids"] = data_batch["input_ids"].to(device)
        return data_batch

    if dataset_name == "pileval":
        dataset = load_dataset("mit-han-lab/pile-val-backup", split="validation")
        prompt_col_name = "text"
    elif dataset_name in ("cnn_dailymail", "abisee/cnn_dailymail"):
        dataset = load_dataset("abisee/cnn_dailymail", name="3.0.0", split="train")
        prompt_col_name = "article"
    elif dataset_name in ("wikitext", "Salesforce/wikitext"):
        dataset = load_dataset("Salesforce/wikitext", "wikitext-2-raw-v1", split="train")
        prompt_col_name = "text"
    else:
        raise NotImplementedError

    dataset = dataset.select(
        indices=list(range(min(len(dataset), num_calib_data))),
        keep_in_memory=True,
    )
    tokenized_datasets = dataset.map(
        make_data_block,
        batched=True,
        batch_size=len(dataset),
        num_proc=1,
        remove_columns=dataset.column_names,
        keep_in_memory=True,
        fn_kwargs={"tokenizer": tokenizer, "prompt_col_name": prompt_col_name, "max_length": seqlen},
    )

    calib_dataloader = DataLoader(tokenized_datasets, batch_size=batch_size, collate_fn=my_collate_fn)

    return calib_dataloader


def get_ultrachat(
    dataset_name: str = "HuggingFaceH4/ultrachat_200k",
    tokenizer: AutoTokenizer | None = None,
    batch_size: int = 1,
    num_calib_data: int = 512,
    seqlen: int = 512,
    device: str | None = None,
    # Accepted for a uniform get_calib_dataloader(**kwargs) signature; unused because the DataLoader
    # below is built with batch_size=None (no auto-batching), so there is no remainder batch to drop.
    drop_last: bool = True,
) -> DataLoader[list[dict[str, torch.Tensor]]]:
    MAX_SEQUENCE_LENGTH = seqlen

    ds = load_dataset(dataset_name, split="train_sft")
    ds = ds.shuffle(seed=42).select(range(num_calib_data))

    def preprocess(example: Any) -> dict[str, str]:
        return {
            "text": tokenizer.apply_chat_template(  # type: ignore[attr-defined,union-attr]
                example["messages"],
                tokenize=False,
            )
        }

    ds = ds.map(preprocess)

    def tokenize(sample: Any) -> Any:
        return tokenizer(  # type: ignore[operator,misc]
            sample["text"],
            padding=False,
            max_length=MAX_SEQUENCE_LENGTH,
            truncation=True,
            add_special_tokens=False,
        )

    ds = ds.map(tokenize, remove_columns=ds.column_names)

    traindataset = []
    for i in range(len(ds["input_ids"])):
        inp = torch.tensor([ds["input_ids"][i]], device=device)
        attention_mask = torch.tensor([ds["attention_mask"][i]], device=device)
        traindataset.append({"input_ids": inp, "attention_mask": attention_mask})

    calib_dataloader: DataLoader[list[dict[str, torch.Tensor]]] = DataLoader(
        traindataset, batch_size=None, shuffle=False
    )  # type: ignore
    return calib_dataloader


def get_calib_dataloader(
    dataset_name: str, **kwargs: Any
) -> DataLoader[torch.Tensor] | DataLoader[list[dict[str, torch.Tensor]]] | DataLoader[dict[str, torch.Tensor]]:
    if dataset_name in ["pileval", "cnn_dailymail", "abisee/cnn_dailymail", "wikitext", "Salesforce/wikitext"]:
        return get_calib_dataloader_to_tensor(dataset_name, **kwargs)
    elif dataset_name in ["pileval_for_awq_benchmark", "wikitext_for_gptq_benchmark"]:
        return get_calib_dataloader_for_benchmark(dataset_name, **kwargs)
    elif "ultrachat" in dataset_name:
        return get_ultrachat(dataset_name, **kwargs)
    else:
        raise NotImplementedError


class ConcatDataset(Dataset):  # type: ignore[type-arg]
    def __init__(self, dataset: Any, max_length: int = 4096) -> None:
        self.dataset = dataset
        self.samples: list[dict[str, list[Any]]] = []
        buffer: dict[str, list[Any]] = {"input_ids": [], "attention_mask": [], "labels": []}
        for sample in self.dataset:
            buffer = {k: v + sample[k] for k, v in buffer.items()}
            while len(next(iter(buffer.values()))) > max_length:
                self.samples.append({k: v[:max_length] for k, v in buffer.items()})
                buffer = {k: v[max_length:] for k, v in buffer.items()}

    def __getitem__(self, idx: int) -> dict[str, list[Any]]:
        return self.samples[idx]

    def __len__(self) -> int:
        return len(self.samples)


def get_trainer_dataset(
    path: str,
    subset: str,
    tokenizer: Any,
    max_train_samples: int | None,
    max_eval_samples: int | None,
    seqlen: int = 1024,
) -> dict[str, Any]:
    def tokenize_add_label(sample: Any) -> dict[str, Any]:
        if path in ["wikitext", "Salesforce/wikitext"]:
            input_text = sample["text"]

        elif path in ["shibing624/AdvertiseGen"]:
            input_text = sample["content"] + sample["summary"]

        bos_token = tokenizer.bos_token or ""
        eos_token = tokenizer.eos_token or ""
        input_ids = tokenizer.encode(bos_token + input_text + eos_token, add_special_tokens=False)

        sample = {
            "input_ids": input_ids,
            "attention_mask": [1] * len(input_ids),
            "labels": input_ids,
        }
        return sample

    if path in ["wikitext", "Salesforce/wikitext"]:
        train_dataset = load_dataset(
            path="Salesforce/wikitext", name="wikitext-2-raw-v1", split=subset, trust_remote_code=True
        )
    elif path in ["shibing624/AdvertiseGen"]:
        train_dataset = load_dataset(path=path, split=subset, trust_remote_code=True)

    # Using wikitext as default eval_dataset
    eval_dataset = load_dataset("Salesforce/wikitext", "wikitext-2-raw-v1", split="test", trust_remote_code=True)

    if max_train_samples:
        max_train_samples = min(len(train_dataset), max_train_samples)
        train_dataset = train_dataset.select(range(max_train_samples))
        logger.info(f"select {max_train_samples} from training data to build train dataset ...")

    if max_eval_samples:
        max_eval_samples = min(len(eval_dataset), max_eval_samples)
        eval_dataset = eval_dataset.select(range(max_eval_samples))
        logger.info(f"select {max_eval_samples} from test data to build eval dataset ...")

    train_dataset = train_dataset.map(tokenize_add_label, remove_columns=list(train_dataset.features))
    train_dataset = ConcatDataset(train_dataset, seqlen)  # type: ignore[no-untyped-call]

    eval_dataset = eval_dataset.map(tokenize_add_label, remove_columns=list(eval_dataset.features))
    eval_dataset = ConcatDataset(eval_dataset, seqlen)  # type: ignore[no-untyped-call]
    return dict(train_dataset=train_dataset, data_collator=default_data_collator, eval_dataset=eval_dataset)


def get_dataset(path: str, subset: str, tokenizer: Any, seqlen: int) -> TensorDataset:
    if path in ["wikitext", "Salesforce/wikitext"]:
        text = load_dataset(path="Salesforce/wikitext", name="wikitext-2-raw-v1", split=subset)
        strtext = "\n\n".join(text["text"])
    elif path in ["shibing624/AdvertiseGen"]:
        text = load_dataset(path=path, split=subset)
        strtext = "\n\n".join(
            str(i[0]) + str(i[1]) for i in list(zip(list(text["content"]), list(text["summary"]), strict=False))
        )
    tokenized_text = tokenizer(strtext, return_tensors="pt")
    tokenized_text_len = tokenized_text.input_ids.shape[1]

    sample = []
    for i in range(0, tokenized_text_len - seqlen - 1, seqlen):
        sample.append(tokenized_text.input_ids[:, i : i + seqlen])
    sample = torch.dstack(sample).squeeze(0).permute(1, 0)

    dataset = TensorDataset(sample)
    return dataset


def get_loader(
    path: str,
    subset: str,
    tokenizer: Any,
    seqlen: int = 1024,
    num_batch: int = -1,
    batch_size: int = 1,
    shuffle: bool = False,
) -> DataLoader[Any]:
    dataset = get_dataset(path, subset, tokenizer, seqlen)  # type: ignore[no-untyped-call]
    data_size = len(dataset)

    if num_batch != -1:  # num_batch == -1 using the whole dataset
        sample_size = min(data_size, num_batch * batch_size)
        subset_indices = torch.randperm(data_size)[:sample_size]
        dataset = Subset(dataset, subset_indices)

    data_loader = DataLoader(dataset, batch_size=batch_size, shuffle=shuffle)
    return data_loader


# for VLM
def image_parser(image_file: str, sep: str = ",") -> list[str]:
    out = image_file.split(sep)
    return out


def load_image(image_file: str) -> Image.Image:
    if image_file.startswith("http") or image_file.startswith("https"):
        response = requests.get(image_file)
        image = Image.open(BytesIO(response.content)).convert("RGB")
    else:
        image = Image.open(image_file).convert("RGB")
    return image


def load_images(image_files: list[str]) -> list[Image.Image]:
    out: list[Image.Image] = []
    for image_file in image_files:
        image = load_image(image_file)  # type: ignore[no-untyped-call]
        out.append(image)
    return out


def _collate_blockwise_input_ids(batch: list[torch.Tensor]) -> torch.Tensor:
    """Squeeze ``[1, seqlen]`` -> ``[seqlen]`` and stack into ``[bs, seqlen]``."""
    squeezed: list[torch.Tensor] = []
    for t in batch:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"Expected torch.Tensor in blockwise calibration dataloader, got {type(t)}")
        if t.ndim == 2 and t.shape[0] == 1:
            t = t.squeeze(0)
        squeezed.append(t)
    return torch.stack(squeezed, dim=0)


def get_pile10k_dataloader(
    tokenizer: Any,
    train_size: int = 512,
    seqlen: int = 2048,
    seed: int = 0,
    batch_size: int = 8,
) -> tuple[DataLoader[torch.Tensor], None]:
    """Blockwise-tuning calibration dataloader over ``NeelNanda/pile-10k``.

    Matches the SignRound/AutoRound paper (arXiv 2309.05516, §4.1), which calibrates on
    ``NeelNanda/pile-10k`` (the first 10k samples of The Pile) with 512 samples of sequence
    length 2048. Samples ``train_size`` random ``seqlen`` windows from documents long enough,
    with a fixed ``seed``. Returns ``(train_loader, None)``; the ``train_loader`` yields
    ``[bs, seqlen]`` ``input_ids`` batches, the shape ``init_blockwise_algo`` consumes (same as
    the EfficientQAT blockwise dataloader). NB: distinct from :func:`get_pileval`, which uses
    ``mit-han-lab/pile-val-backup``.

    Callers feeding this into ``optimize_wrappers_signed_sgd`` (``autoround.py``) should pass
    ``batch_size=1`` -- that loop already re-batches cached loader items via its own
    ``AutoRoundConfig.batch_size``, so a ``batch_size`` here greater than 1 compounds the two
    levels (e.g. both left at their default of 8 would yield 64 sequences per optimization step,
    not 8).
    """
    import random

    logger.info("Getting pile-10k dataset...")
    traindata = load_dataset("NeelNanda/pile-10k", split="train")

    random.seed(seed)
    train_samples: list[torch.Tensor] = []
    for _ in range(train_size):
        while True:
            i = random.randint(0, len(traindata) - 1)
            trainenc = tokenizer(traindata[i]["text"], return_tensors="pt")
            if trainenc.input_ids.shape[1] >= seqlen + 1:
                break
        i = random.randint(0, trainenc.input_ids.shape[1] - seqlen - 1)
        train_samples.append(trainenc.input_ids[:, i : i + seqlen])

    train_loader: DataLoader[torch.Tensor] = DataLoader(
        train_samples, batch_size=batch_size, shuffle=False, drop_last=True, collate_fn=_collate_blockwise_input_ids
    )
    logger.info("Getting pile-10k dataset finished")
    return train_loader, None
