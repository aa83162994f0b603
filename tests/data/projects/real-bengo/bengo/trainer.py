import yaml
import os
from pathlib import Path

from .config import TrainConfig
from .yaml_config import save_config
from .data import CausalCollator, load_training_data


def resolve_runtime(config, torch):
    cuda = torch.cuda.is_available() and config.device != "cpu"
    if config.device == "cuda" and not cuda:
        raise RuntimeError("CUDA was requested, but no CUDA GPU is available")
    if config.method == "qlora" and not cuda:
        raise RuntimeError("QLoRA requires an NVIDIA GPU and CUDA-enabled PyTorch in this release")
    if cuda and torch.cuda.device_count() > 1:
        raise RuntimeError("v0.2 uses one GPU. Select one with CUDA_VISIBLE_DEVICES before starting Python")
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        raise RuntimeError("v0.2 supports one process / one device only; DDP/FSDP is not implemented")
    if config.precision == "auto":
        precision = ("bf16" if torch.cuda.is_bf16_supported() else "fp16") if cuda else "fp32"
    else:
        precision = config.precision
    if not cuda and precision != "fp32":
        raise ValueError("CPU training requires fp32")
    if cuda and precision == "bf16" and not torch.cuda.is_bf16_supported():
        raise ValueError("This GPU does not support bf16; select fp16")
    return cuda, precision, {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[precision]


class FineTuner:
    def __init__(self, config: TrainConfig, callbacks=None):
        self.config = config
        self.callbacks = list(callbacks or [])
        self.trainer = None
        self.tokenizer = None
        self.stats = {}

    def train(self, resume_from_checkpoint: str | None = None):
        """Train and save full weights or a PEFT adapter. Return Trainer metrics."""
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig
        from transformers import Trainer, TrainingArguments, set_seed

        c = self.config
        resume_from_checkpoint = resume_from_checkpoint or c.resume_from_checkpoint
        c.__post_init__()
        cuda, precision, dtype = resolve_runtime(c, torch)
        output = Path(c.output_dir)
        if output.exists() and any(output.iterdir()) and not resume_from_checkpoint:
            raise FileExistsError("Output directory is not empty; choose a new directory or resume a checkpoint")
        if resume_from_checkpoint and not Path(resume_from_checkpoint, "trainer_state.json").is_file():
            raise ValueError("Resume path must be a Trainer checkpoint with trainer_state.json")
        if resume_from_checkpoint:
            previous_path = Path(resume_from_checkpoint).parent / "bengo.yaml"
            if not previous_path.is_file():
                raise ValueError("Checkpoint parent must contain bengo.yaml from the original run")
            previous = yaml.safe_load(previous_path.read_text(encoding="utf-8"))
            for key in ("model_name", "revision", "method", "lora_rank", "lora_alpha", "target_modules",
                        "dataset", "dataset_format", "max_length", "batch_size", "gradient_accumulation_steps", "seed"):
                if previous.get(key) != getattr(c, key):
                    raise ValueError(f"Resume configuration differs: {key}")
        set_seed(c.seed)
        common = {"trust_remote_code": c.trust_remote_code}
        if c.revision:
            common["revision"] = c.revision
        tokenizer = AutoTokenizer.from_pretrained(c.model_name, **common)
        if tokenizer.pad_token_id is None:
            if tokenizer.eos_token_id is None:
                raise ValueError("Tokenizer needs a PAD or EOS token")
            tokenizer.pad_token = tokenizer.eos_token
        tokenizer.padding_side = "right"
        # Prepare data before allocating model weights (streaming maps are lazy).
        train_dataset = load_training_data(c, tokenizer)
        eval_dataset = load_training_data(c, tokenizer, c.eval_dataset, c.eval_split) if c.eval_dataset else None
        # Full fp16 training keeps FP32 master parameters for GradScaler.
        load_dtype = torch.float32 if c.method == "full" else dtype
        model_kwargs = dict(common, torch_dtype=load_dtype, low_cpu_mem_usage=True)
        if c.method == "qlora":
            try:
                import bitsandbytes  # noqa: F401
            except ImportError as exc:
                raise ImportError('Install QLoRA dependencies: pip install -e ".[qlora]"') from exc
            model_kwargs.update(
                device_map={"": torch.cuda.current_device()},
                quantization_config=BitsAndBytesConfig(
                    load_in_4bit=True, bnb_4bit_quant_type="nf4",
                    bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=dtype,
                ),
            )
        elif cuda:
            # Prevent implicit DataParallel on multi-GPU hosts; v0.2 is single-device.
            model_kwargs["device_map"] = {"": torch.cuda.current_device()}
        model = AutoModelForCausalLM.from_pretrained(c.model_name, **model_kwargs)
        if c.method != "qlora" and (getattr(model, "is_quantized", False) or
                                    getattr(model.config, "quantization_config", None)):
            raise ValueError("Full/LoRA mode requires a non-quantized base model")
        model.config.use_cache = False
        model.config.pad_token_id = tokenizer.pad_token_id
        if c.method != "full":
            from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
            if c.method == "qlora":
                model = prepare_model_for_kbit_training(
                    model, use_gradient_checkpointing=c.gradient_checkpointing,
                    gradient_checkpointing_kwargs={"use_reentrant": False},
                )
            model = get_peft_model(model, LoraConfig(
                task_type="CAUSAL_LM", r=c.lora_rank, lora_alpha=c.lora_alpha,
                lora_dropout=c.lora_dropout, target_modules=c.target_modules, bias="none",
            ))
        else:
            model.requires_grad_(True)
        total = sum(p.numel() for p in model.parameters())
        trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
        if trainable == 0:
            raise RuntimeError("No trainable parameters; check target_modules")
        self.stats = {"method": c.method, "precision": precision, "trainable": trainable, "total": total}
        if not self.callbacks:
            print(f"Method={c.method}; precision={precision}; trainable={trainable:,}; stored parameter elements={total:,}")
        args = TrainingArguments(
            output_dir=c.output_dir, per_device_train_batch_size=c.batch_size,
            per_device_eval_batch_size=1, gradient_accumulation_steps=c.gradient_accumulation_steps,
            num_train_epochs=c.epochs, max_steps=c.max_steps,
            learning_rate=c.effective_learning_rate, warmup_ratio=c.warmup_ratio,
            weight_decay=c.weight_decay, lr_scheduler_type="cosine",
            bf16=precision == "bf16", fp16=precision == "fp16", use_cpu=not cuda,
            gradient_checkpointing=c.gradient_checkpointing,
            gradient_checkpointing_kwargs={"use_reentrant": False},
            optim=c.optim or ("paged_adamw_8bit" if c.method == "qlora" else "adamw_torch"),
            logging_steps=c.logging_steps, save_steps=c.save_steps,
            save_total_limit=c.save_total_limit, save_strategy="steps",
            eval_strategy="steps" if eval_dataset is not None else "no",
            eval_steps=c.save_steps, prediction_loss_only=True,
            report_to="none", seed=c.seed, data_seed=c.seed,
            dataloader_pin_memory=cuda, remove_unused_columns=False,
            disable_tqdm=bool(self.callbacks),
        )
        trainer = Trainer(model=model, args=args, train_dataset=train_dataset,
                          eval_dataset=eval_dataset, processing_class=tokenizer,
                          data_collator=CausalCollator(tokenizer),
                          callbacks=self.callbacks or None)
        if self.callbacks:
            # Trainer falls back to PrinterCallback when tqdm is off; one reporter is enough.
            from transformers.trainer_callback import PrinterCallback, ProgressCallback
            for reporter in (PrinterCallback, ProgressCallback):
                trainer.remove_callback(reporter)
        self.trainer, self.tokenizer = trainer, tokenizer
        output.mkdir(parents=True, exist_ok=True)
        save_config(c, output / "bengo.yaml")
        try:
            result = trainer.train(resume_from_checkpoint=resume_from_checkpoint)
        except torch.cuda.OutOfMemoryError as exc:
            raise RuntimeError(
                "GPU out of memory. Use QLoRA, batch_size=1, shorten max_length, "
                "reduce lora_rank or choose a smaller model. Increasing accumulation alone does not reduce microbatch memory."
            ) from exc
        trainer.save_model(c.output_dir)
        tokenizer.save_pretrained(c.output_dir)
        trainer.save_state()
        trainer.save_metrics("train", result.metrics)
        save_config(c, output / "bengo.yaml")
        return result.metrics

    @staticmethod
    def merge_adapter(adapter_path: str, output_dir: str):
        """Reload a base on CPU in FP32 and merge the adapter; requires ample RAM."""
        import torch
        from peft import PeftConfig, PeftModel
        from transformers import AutoModelForCausalLM, AutoTokenizer

        output = Path(output_dir)
        if output.exists() and any(output.iterdir()):
            raise FileExistsError("Merge output directory must be empty")
        config = PeftConfig.from_pretrained(adapter_path)
        metadata = Path(adapter_path, "bengo.yaml")
        revision = yaml.safe_load(metadata.read_text(encoding="utf-8")).get("revision") if metadata.exists() else None
        base = AutoModelForCausalLM.from_pretrained(
            config.base_model_name_or_path, revision=revision,
            torch_dtype=torch.float32, device_map={"": "cpu"}, low_cpu_mem_usage=True,
        )
        merged = PeftModel.from_pretrained(base, adapter_path).merge_and_unload(safe_merge=True)
        merged.config.use_cache = True
        merged.save_pretrained(output_dir, safe_serialization=True)
        AutoTokenizer.from_pretrained(adapter_path).save_pretrained(output_dir)
