from dataclasses import asdict, dataclass
import math


@dataclass
class TrainConfig:
    model_name: str
    dataset: str
    output_dir: str = "outputs/run"
    method: str = "qlora"
    dataset_format: str = "alpaca"
    dataset_config: str | None = None
    split: str = "train"
    eval_dataset: str | None = None
    eval_split: str = "train"
    streaming: bool = False
    shuffle_buffer: int = 1000
    max_length: int = 512
    batch_size: int = 1
    gradient_accumulation_steps: int = 16
    epochs: float = 1.0
    max_steps: int = -1
    learning_rate: float | None = None
    warmup_ratio: float = 0.0
    weight_decay: float = 0.01
    lora_rank: int = 8
    lora_alpha: int = 16
    lora_dropout: float = 0.05
    target_modules: str | list[str] = "all-linear"
    gradient_checkpointing: bool = True
    precision: str = "auto"
    device: str = "auto"
    optim: str | None = None
    logging_steps: int = 10
    save_steps: int = 100
    save_total_limit: int = 2
    seed: int = 42
    revision: str | None = None
    trust_remote_code: bool = False
    resume_from_checkpoint: str | None = None

    def __post_init__(self):
        for name in ("streaming", "gradient_checkpointing", "trust_remote_code"):
            if type(getattr(self, name)) is not bool:
                raise ValueError(f"{name} must be true or false, without quotes")
        for name in ("dataset_config", "eval_dataset", "optim", "revision", "resume_from_checkpoint"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ValueError(f"{name} must be null or a nonempty string")
        choices = {
            "method": {"full", "lora", "qlora"},
            "dataset_format": {"text", "alpaca", "prompt_completion", "messages"},
            "precision": {"auto", "fp32", "fp16", "bf16"},
            "device": {"auto", "cpu", "cuda"},
        }
        for name, allowed in choices.items():
            if not isinstance(getattr(self, name), str) or getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {sorted(allowed)}")
        for name in ("model_name", "dataset", "output_dir", "split", "eval_split"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise ValueError(f"{name} must be a nonempty string")
        for name in ("max_length", "batch_size", "gradient_accumulation_steps", "lora_rank",
                     "lora_alpha", "logging_steps", "save_steps", "save_total_limit", "shuffle_buffer"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"{name} must be a positive integer")
        if self.max_length < 2:
            raise ValueError("max_length must be at least 2")
        if type(self.max_steps) is not int or (self.max_steps != -1 and self.max_steps <= 0):
            raise ValueError("max_steps must be -1 or a positive integer")
        for name in ("epochs", "learning_rate"):
            value = getattr(self, name)
            if name == "epochs" and value is None:
                raise ValueError("epochs must be numeric")
            if value is not None and (type(value) not in (int, float) or not math.isfinite(value) or value <= 0):
                raise ValueError(f"{name} must be finite and positive")
        for name in ("lora_dropout", "warmup_ratio"):
            if type(getattr(self, name)) not in (int, float) or not 0 <= getattr(self, name) < 1:
                raise ValueError(f"{name} must be in [0, 1)")
        if type(self.weight_decay) not in (int, float) or not math.isfinite(self.weight_decay) or self.weight_decay < 0:
            raise ValueError("weight_decay must be finite and nonnegative")
        if not self.target_modules or (isinstance(self.target_modules, list) and
                not all(isinstance(x, str) and x for x in self.target_modules)):
            raise ValueError("target_modules must be a nonempty regex or list of module names")
        if not isinstance(self.target_modules, (str, list)):
            raise ValueError("target_modules must be a string or list")
        if self.streaming and self.max_steps < 1:
            raise ValueError("streaming=True requires positive max_steps")
        if self.streaming and self.eval_dataset:
            raise ValueError("Streaming evaluation is unsupported; use a separate non-streaming run")
        if self.method == "qlora" and self.device == "cpu":
            raise ValueError("This release requires an NVIDIA CUDA GPU for QLoRA")
        if self.device == "cpu" and self.precision not in {"auto", "fp32"}:
            raise ValueError("CPU training uses fp32 in this release")

    @property
    def effective_learning_rate(self):
        if self.learning_rate is not None:
            return self.learning_rate
        return 2e-5 if self.method == "full" else 2e-4

    def to_dict(self):
        return asdict(self)
