"""Training loop for RL agents.

Provides BaseTrain, which orchestrates the rollout-update cycle:
collect experience, compute GAE, run the update_weights callable,
and repeat.
"""

import os
import sys
import time
import warnings
try:
    import psutil
    _PSUTIL_AVAILABLE = True
except ImportError:
    _PSUTIL_AVAILABLE = False
import numpy as np
import imageio
import torch
import gymnasium as gym
from dataclasses import dataclass, asdict
try:
    import wandb
except ImportError:
    wandb = None  # type: ignore[assignment]
from tqdm import tqdm
from typing import Callable, Any
from torch import Tensor
from torch import optim
from torch.optim.lr_scheduler import LambdaLR
try:
    from torch.utils.tensorboard import SummaryWriter
except ImportError:
    SummaryWriter = None  # type: ignore[misc,assignment]
from zerorl.helpers.agent import BaseAgent
from zerorl.buffer import Buffer
from zerorl.config import TrainConfig, AlgoConfig
from zerorl.processing import NormMeanStd
from zerorl.errors import EmptyBufferError, assert_agent_contract
from zerorl.functions import vectorize_env


"""Profiling metrics captured during a training step."""


@dataclass
class ProfileMetrics:
    fps: float
    rollout_ms: float
    update_ms: float
    vram_allocated_gb: float
    vram_peak_gb: float
    ram_mb: float


class BaseTrain:
    """Training loop coordinating agent, environment, and weight updates.

    Orchestrates the rollout-update cycle: collect experience via
    rollout_phase(), compute GAE, run the update_weights callable,
    and repeat. Handles observation normalization, logging, and
    model saving.
    """

    def __init__(self,
                 agent: BaseAgent,
                 env: Any,
                 buffer: Buffer,
                 update_weights: Callable,
                 config: TrainConfig,
                 algo_config: AlgoConfig | None = None,
                 optimizer: optim.Optimizer | None = None,
                 schedule_func: Callable[[int], float] | None = None,
                 render_mode: str | None = None,
                 require_buffer_size: int = 10):
        """Initialize the training loop.

        Args:
            agent: Neural network policy to train.
            env: Environment to collect experience from.
            buffer: Pre-allocated buffer for rollout data.
            update_weights: Callable that computes the weight update from
                collected rollout data. Signature:
                (agent, buffer, scheduler, optimizer, last_output, algo_config) -> dict[str, Tensor].
            config: Training configuration (device, paths, hyperparams).
            algo_config: Algorithm hyperparameters (passed to update_weights).
            optimizer: Optional optimizer. If None, creates Adam with algo_config.lr.
            schedule_func: Custom LR schedule function (overrides default linear decay).
                Takes current_step and returns a learning rate multiplier.
            render_mode: Render mode for the environment.
            require_buffer_size: Minimum buffer size before an update is allowed.
        """
        super().__init__()
        torch.set_float32_matmul_precision('high')
        self.config = config
        self.num_envs = self.config.num_envs
        self.agent = agent.to(self.config.device)
        assert_agent_contract(self.agent,
                        {"get_action": "Your agent should have the method `get_action`"})
        self.env = env
        if not isinstance(env, gym.vector.VectorEnv) and not getattr(env, "auto_reset", False):
            self.env = vectorize_env(self.env, self.num_envs, render_mode)
        self.state = Tensor()
        self.buffer = buffer
        self.update_weights = update_weights
        self.algo_config = algo_config
        self.optimizer: optim.Optimizer

        if optimizer is None:
            lr = getattr(self.algo_config, 'lr', 3e-4)
            self.optimizer = optim.Adam(self.agent.parameters(), lr=lr, eps=1e-5)
        else:
            self.optimizer = optimizer

        obs_ = getattr(env, "single_observation_space", env.observation_space)
        obs_shape = obs_.shape
        if obs_shape is None:
            raise ValueError("NormMeanStd requires environment with a defined observation shape")

        if schedule_func is None:
            schedule_func = lambda current_step: 1.0 - (current_step / self.config.num_update)
        self.scheduler = LambdaLR(self.optimizer, schedule_func)

        self.require_buffer_size = require_buffer_size
        self.normalizer = NormMeanStd(obs_shape, config.device)
        tb_log_dir = os.path.join(self.config.model_save_path, "tensorboard")
        self.current_episode_reward: Tensor | None = None
        self.episode_rewards: list[float] = []
        self.env_device = getattr(self.env, "device", "cpu")
        if SummaryWriter is not None:
            tb_log_dir = os.path.join(self.config.model_save_path, "tensorboard")
            self.tb_writer = SummaryWriter(tb_log_dir)
        else:
            self.tb_writer = None #type: ignore[assignment]

        self.debug = self.config.debug
        if self.debug:
            sys.stderr.write("\033[96mzeroRL DEBUG MODE ENABLED. torch.compile is disabled.\033[0m\n")
            torch.autograd.set_detect_anomaly(True)
            obs_space = getattr(env, "single_observation_space", env.observation_space)
            act_space = getattr(env, "single_action_space", env.action_space)
                        
            from zerorl.debug import check_tensor, check_shape, check_reward_scale
            def _env_hook(data_: dict[str, Tensor], step: int):
                for k, v in data_.items():
                    check_tensor(v, k , step)
                    if k in ["state", "next_state"]:
                        check_shape(v, (self.num_envs, *obs_space.shape), k, step)
                    elif k == "action":
                        check_shape(v, (self.num_envs, *act_space.shape), k, step)
                    else:
                        check_shape(v, (self.num_envs,), k, step)

                check_reward_scale(data_["reward"], step)

            self._hook_env_check_ = _env_hook
        else:
            self._hook_env_check_ = lambda data_, step : None


    def rollout_phase(self) -> dict[str, Tensor] | None:
        """Collect experience by running the agent in the environment.

        Stores each transition in the buffer and resets on episode end.
        After the rollout, computes the bootstrap value for GAE.

        Uses self.state internally as the starting observation.
        """
        dev = self.config.device
        state_tensor = self.state
        if state_tensor.dim() == 1: state_tensor = state_tensor.unsqueeze(0)
        if self.current_episode_reward is None:
            self.current_episode_reward = torch.zeros(self.num_envs, device=dev)

        for i in range(self.config.rollout_steps):
            if self.config.normalize:
                self.normalizer.update(state_tensor)
                state_norm = self.normalizer.normalize(state_tensor)
            else:
                state_norm = state_tensor
            with torch.inference_mode():
                outputs: dict[str, Tensor] = self.agent.get_action(state_norm) #type: ignore[operator]
                action = outputs["action"]
                if str(self.env_device).startswith("cuda"):
                    action_input: np.ndarray | Tensor = action
                else:
                    action_input = action.cpu().numpy()

            # Gymnasium v1 step() returns: obs, reward, terminated, truncated, info
            # terminated = episode naturally ended; truncated = cut short by time limit
            next_state, reward, done, truncate, info = self.env.step(action_input)
            done_trunc = done | truncate
            done_tensor = torch.as_tensor(done_trunc, dtype=torch.float32, device=dev)
            trunc_tensor = torch.as_tensor(truncate, dtype=torch.float32, device=dev)
            reward_tensor = torch.as_tensor(reward, dtype=torch.float32, device=dev)
            next_state_tensor = torch.as_tensor(next_state, dtype=torch.float32, device=dev)

            if reward_tensor.dim() == 0:
                next_state_tensor = next_state_tensor.unsqueeze(0)
                reward_tensor = reward_tensor.unsqueeze(0)
                done_tensor = done_tensor.unsqueeze(0)
                trunc_tensor = trunc_tensor.unsqueeze(0)
            
            data_ = {"state": state_norm, "next_state": next_state_tensor,
                     "done": done_tensor, "truncated": trunc_tensor,
                     "reward": reward_tensor, **outputs}
            self._hook_env_check_(data_, i)
            self.buffer.insert(
                state = state_norm,
                reward = reward_tensor,
                done = done_tensor,
                truncated = trunc_tensor,
                **outputs
            )
            self.current_episode_reward += reward_tensor
            finished = (done_tensor > 0) | (trunc_tensor > 0)

            if finished.any():
                finished_rewards = self.current_episode_reward[finished]
                self.episode_rewards.extend(finished_rewards.tolist())
                self.current_episode_reward[finished] = 0.0

            state_tensor = next_state_tensor
            if state_tensor.dim() == 1: state_tensor = state_tensor.unsqueeze(0)

        if "value" in self.buffer.data:
            with torch.inference_mode():
                if self.config.normalize:
                    state_norm = self.normalizer.normalize(state_tensor)
                else:
                    state_norm = state_tensor
                next_output = self.agent.get_action(state_norm) #type: ignore[operator]
        else:
            next_output = None
        self.state = state_tensor
        return next_output

    
    #Profiler display
    def _log_profile_metrics(self, step: int, metrics: ProfileMetrics):
        sys.stderr.write(
                f"\n\033[94m[Profile] Step {step} | FPS: {metrics.fps:.0f} | "
                f"Rollout: {metrics.rollout_ms:.1f}ms | Update: {metrics.update_ms:1f}ms |"
                f"VRAM: {metrics.vram_allocated_gb:.2f}GB (Peak: {metrics.vram_peak_gb:.2f}GB) | "
                f"RAM: {metrics.ram_mb:.0f}MB\033[0m\n"
                )


    def _log_metrics(self, metrics: dict, step: int, use_wandb: bool, use_tb: bool):
        """Log training metrics to wandb and/or TensorBoard.

        Args:
            metrics: Dict of metric names to values (floats or Tensors).
            step: Current training step.
            use_wandb: Whether to log to Weights & Biases.
            use_tb: Whether to log to TensorBoard.
        """
        clean_metrics: dict[str, float] = {}
        tensor_keys: list[str]  = []
        tensor_vals: list[Tensor] = []

        for k, v in metrics.items():
            if isinstance(v, Tensor):
                tensor_keys.append(f"train/{k}")
                tensor_vals.append(v)
            else:
                clean_metrics[k] = float(v)
            
        if tensor_vals:
            cpu_vals = torch.stack(tensor_vals).cpu().numpy()
            for k, v in zip(tensor_keys, cpu_vals):
                clean_metrics[k] = float(v)

        if use_wandb:
            if wandb is None:
                raise ImportError("`wandb` is not installed. Install it with: pip install wandb")
            wandb.log(clean_metrics, step=step) #type: ignore[attr-defined]

        if use_tb:
            if self.tb_writer is None:
                raise ImportError("`tensorboard` is not installed. Install it with: pip install tensorboard")
            for key, value in clean_metrics.items():
                self.tb_writer.add_scalar(key, value, step)


    def train(self, *, save_model: bool = False, use_wandb: bool = False, use_tb: bool = False):
        """Run the full training loop.

        Repeats rollout -> update_weights -> log -> clear for num_update steps.

        Args:
            save_model: Whether to save the agent weights after training.
            use_wandb: Whether to log to Weights & Biases.
            use_tb: Whether to log to TensorBoard.
        """
        #Configure env
        is_profile = self.config.profile
        is_cuda = self.config.device ==  torch.device("cuda") and torch.cuda.is_available()
        sync = torch.cuda.synchronize
        if is_profile: sys.stderr.write("\033[96mZeroRL Profiler Enabled (TIME & VRAM).\033[0m\n")
        state, _ = self.env.reset()
        self.state = torch.as_tensor(state, dtype=torch.float32, device=self.config.device)
        if use_wandb:
            if wandb is None:
                raise ImportError("`wandb` is not installed. Install it with: pip install wandb")
            wandb.init(project=self.config.project_name, config={"Train Configs": self.config.__dict__, #type: ignore[attr-defined]
                     "Hyper Parameters": self.algo_config.__dict__ if self.algo_config else {}}) 
        for step in tqdm(range(self.config.num_update)):
            if is_profile:
                if is_cuda :
                    sync()
                    torch.cuda.reset_peak_memory_stats()
                t_start = time.perf_counter()

            last_output = self.rollout_phase()

            if is_profile:
                if is_cuda: sync()
                t_rollout = time.perf_counter()

            if self.buffer.size < self.require_buffer_size:
                raise EmptyBufferError(self.buffer.size, self.require_buffer_size)
            
            if self.debug:
                self.algo_config._debug_mode = True #type: ignore
                weights_before = {k: v.clone() for k, v in self.agent.state_dict().items()}
            
            losses = self.update_weights(
                            agent = self.agent,
                            buffer = self.buffer,
                            scheduler = self.scheduler,
                            optimizer = self.optimizer,
                            last_output = last_output,
                            algo_config = self.algo_config)

            if self.debug:
                weights_after = self.agent.state_dict()
                changed = any(not torch.allclose(weights_before[k], weights_after[k]) for k in weights_before)
                if not changed:
                    sys.stderr.write(
                            "\n\033[93m [DEBUG ALERT] Model weights did not change after update_weights()!\n"
                            "Did you forget to call `optimizer.step()` in your update function ?[0m\n"
                            )
               
            if is_profile:
                if is_cuda: sync()
                t_end = time.perf_counter()
                if _PSUTIL_AVAILABLE:
                    ram_kb = psutil.Process(os.getpid()).memory_info().rss
                    ram_mb = ram_kb / (1024 ** 2) if ram_kb > 0 else 0.0
                else:
                    warnings.warn("Profiles are running but they are unable to capture the state of ram, install psutil")
                    ram_mb = 0.0

                profile_data = ProfileMetrics(
                    fps= (self.config.rollout_steps * self.num_envs) / (t_end - t_start),
                    rollout_ms = (t_rollout - t_start) * 1000,
                    update_ms = (t_end - t_rollout) * 1000,
                    vram_allocated_gb = torch.cuda.memory_allocated() / (1024 ** 3) if is_cuda else 0.0,
                    vram_peak_gb = torch.cuda.max_memory_allocated() / (1024 ** 3) if is_cuda else 0.0,
                    ram_mb = ram_mb
                    )
                self._log_profile_metrics(step, profile_data)

            if len(self.episode_rewards) > 0:
                recent = self.episode_rewards[-10:]
                mean_reward = float(np.mean(recent))
            else:
                mean_reward = 0.0

            metrics = {"train/mean_episode_reward": mean_reward,
                        "train/learning_rate": self.optimizer.param_groups[0]['lr']}
            if use_wandb and is_profile:
                for k, v in asdict(profile_data).items(): metrics[f"profile/{k}"] = v
            for k, v in losses.items(): metrics[k] = v
            self._log_metrics(metrics, step, use_wandb, use_tb)
            self.buffer.clear()

        self.env.close()
        #Close Wandb or TensorBoard
        if use_wandb and wandb is not None: wandb.finish() #type: ignore[attr-defined]
        if use_tb and self.tb_writer is not None: self.tb_writer.close()
        #Save model
        if save_model: self.save_model()


    def test(self, iterations: int = 1, gif_path: str | None = None):
        """Evaluate the agent and save a GIF of its behavior.
        
        Args:
            iterations: Number of iterations.
            gif_path: Path to save the GIF.
        """
        env_spec = self.env
        #check if env has .env or .spec attributs
        if isinstance(env_spec, gym.vector.VectorEnv):
            try:
                env_spec = env_spec.envs[0].spec.id
            except:
                env_spec = env_spec.envs[0]

        env = vectorize_env(env_spec, render_mode = "rgb_array")
        frames: Any = []
        self.agent.eval()
        for i in range(iterations):
            done_or_trunc = False
            state, _ = env.reset() #type: ignore
            while not done_or_trunc:
                state_tensor = torch.as_tensor(state, dtype=torch.float32, device=self.config.device)
                if state_tensor.dim() == 1: state_tensor = state_tensor.unsqueeze(0)
                if self.config.normalize:
                    self.normalizer.update(state_tensor)
                    state_norm = self.normalizer.normalize(state_tensor)
                else:
                    state_norm = state_tensor

                with torch.inference_mode():
                    outputs: dict[str, Tensor] = self.agent.get_action(state_norm)
                    if str(self.env_device).startswith("cuda"):
                        action_input: np.ndarray | Tensor = outputs["action"]
                    else:
                        action_input = outputs["action"].cpu().numpy()

                next_state, _, terminated, truncated, _ = env.step(action_input) #type: ignore

                #capture frames
                frame = env.render()
                if frame is not None: frames.append(frame[0])
                done_or_trunc = bool(np.any(terminated) or np.any(truncated))
                state = next_state

            #save to gif
            if gif_path is None:
                gif_path = f"./{self.config.project_name}_{i}.gif"
            else:
                gif_path = f"./{gif_path}_{i}.gif"
            imageio.mimsave(gif_path, frames, fps=25)
            self.env.close()


    def save_model(self):
        """Save agent weights to the path in config.model_path."""
        os.makedirs(os.path.dirname(self.config.model_path), exist_ok=True)
        torch.save(self.agent.state_dict(), self.config.model_path)
