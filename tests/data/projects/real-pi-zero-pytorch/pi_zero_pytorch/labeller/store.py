"""Intent-level operations over the labeller's replay buffer.

Routes talk to this store instead of poking at raw buffer arrays, so the
buffer schema (defined by `storage.init_replay_buffer`) is handled in one
place.
"""

import logging
from typing import Dict, List, Optional, Tuple

import numpy as np
import torch

from .errors import ApiError
from .state import AppState, app_state

logger = logging.getLogger(__name__)


def nan_to_none(values: List[float]) -> List[Optional[float]]:
    """NaN is not valid JSON; the UI treats None as 'not computed'."""
    return [None if isinstance(v, float) and np.isnan(v) else v for v in values]


class EpisodeStore:
    # Fixed by the buffer schema in `storage.init_replay_buffer`
    ACTION_HORIZON = 16
    ACTION_DIM = 6

    def __init__(self, state: AppState):
        self._state = state

    # ---- access -------------------------------------------------------

    @property
    def has_data(self) -> bool:
        return self._state.replay_buffer is not None

    @property
    def buffer(self):
        if self._state.replay_buffer is None:
            raise ApiError("ReplayBuffer not initialized", status_code=409)
        return self._state.replay_buffer

    def resolve(self, filename: str) -> int:
        """Map a video filename to its episode index in the replay buffer."""
        if not self.has_data:
            raise ApiError("ReplayBuffer not initialized", status_code=409)
        episode_id = self._state.video_to_episode.get(filename)
        if episode_id is None:
            raise ApiError(f"Video {filename} not found in buffer", status_code=404)
        return episode_id

    def task_keys(self) -> List[str]:
        return list(self._state.recap_config.get('tasks', {}).keys())

    # ---- listing ------------------------------------------------------

    def video_infos(self) -> List[dict]:
        if not self.has_data:
            return []
        return [
            {
                "filename": filename,
                "url": f"/videos/{filename}",
                "frames": int(self.buffer.meta_data['episode_lens'][ep_id].item()),
                "num_views": int(self._state.num_views),
            }
            for filename, ep_id in self._state.video_to_episode.items()
        ]

    def all_labels(self) -> Dict[str, dict]:
        if not self.has_data:
            return {}

        buffer = self.buffer
        keys = self.task_keys()

        result = {}
        for filename, episode_id in self._state.video_to_episode.items():
            task_idx = buffer.meta_data['task_id'][episode_id].item()
            result[filename] = {
                "task_completed": buffer.meta_data['task_completed'][episode_id].item(),
                "marked_timestep": buffer.meta_data['marked_timestep'][episode_id].item(),
                "task_id": keys[task_idx] if 0 <= task_idx < len(keys) else None,
                "returns": nan_to_none(buffer.data['returns'][episode_id].tolist()),
                "value": nan_to_none(buffer.data['value'][episode_id].tolist()),
                "advantages": nan_to_none(buffer.data['advantages'][episode_id].tolist()),
                "advantage_ids": buffer.data['advantage_ids'][episode_id].tolist(),
                "is_expert_intervention": buffer.meta_data['is_expert_intervention'][episode_id].item(),
                "expert_segment": buffer.data['expert_segment'][episode_id].tolist(),
                "invalidated": buffer.meta_data['invalidated'][episode_id].item(),
            }
        return result

    # ---- labelling ----------------------------------------------------

    def label(self, episode_id: int, timestep: int, success: bool, penalty: float) -> List[Optional[float]]:
        """Mark the outcome of an episode at a timestep and recompute its returns."""
        buffer = self.buffer

        reward = 0.0 if success else penalty
        buffer.store_datapoint(episode_id, timestep, 'reward', torch.tensor(reward))
        buffer.store_meta_datapoint(episode_id, 'fail', not success)
        buffer.store_meta_datapoint(episode_id, 'task_completed', 1 if success else 0)
        buffer.store_meta_datapoint(episode_id, 'marked_timestep', timestep)

        self._clear_derived(episode_id)
        returns = self._write_returns(episode_id, timestep)
        buffer.flush()
        return returns

    def reset(self, episode_id: int):
        """Clear all labelling state for an episode."""
        buffer = self.buffer

        buffer.store_meta_datapoint(episode_id, 'fail', False)
        buffer.store_meta_datapoint(episode_id, 'task_completed', -1)
        buffer.store_meta_datapoint(episode_id, 'marked_timestep', -1)
        buffer.store_meta_datapoint(episode_id, 'task_id', torch.tensor(-1))
        buffer.store_meta_datapoint(episode_id, 'is_expert_intervention', False)

        buffer.data['returns'][episode_id] = float('nan')
        buffer.data['advantage_ids'][episode_id] = -1
        buffer.data['expert_segment'][episode_id] = False
        self._clear_derived(episode_id)

        buffer.flush()

    def mark_intervention(self, episode_id: int, timestep: int) -> dict:
        """Everything up to the marked timestep is expert controlled; expert
        interventions count as ground-truth positives in RECAP."""
        buffer = self.buffer

        buffer.store_meta_datapoint(episode_id, 'is_expert_intervention', True)

        expert_mask = buffer.data['expert_segment'][episode_id]
        expert_mask[:timestep + 1] = True
        buffer.data['expert_segment'][episode_id] = expert_mask

        adv_ids = buffer.data['advantage_ids'][episode_id]
        adv_ids[:timestep + 1] = 1
        buffer.data['advantage_ids'][episode_id] = adv_ids

        buffer.flush()
        return {"expert_segment": expert_mask.tolist(), "advantage_ids": adv_ids.tolist()}

    def assign_task(self, episode_id: int, task_key: str):
        keys = self.task_keys()
        if task_key not in keys:
            raise ApiError(f"Task {task_key} not found in config", status_code=404)

        self.buffer.store_meta_datapoint(episode_id, 'task_id', torch.tensor(keys.index(task_key)))
        self.buffer.flush()

    # ---- actions ------------------------------------------------------

    def get_action(self, episode_id: int, timestep: int) -> List[float]:
        # actions shape: (episodes, timesteps, horizon, action_dim); expose
        # the first action of the horizon for editing.
        return self.buffer.data['actions'][episode_id, timestep, 0].tolist()

    def set_action(self, episode_id: int, timestep: int, action: List[float]):
        """A hand-edited action is an expert correction: mark the timestep as
        an expert segment with a positive advantage id."""
        buffer = self.buffer

        if len(action) != self.ACTION_DIM:
            raise ApiError(f"Invalid action dimension. Expected {self.ACTION_DIM}, got {len(action)}")

        buffer.data['actions'][episode_id, timestep, 0] = np.asarray(action, dtype=np.float32)

        expert_mask = buffer.data['expert_segment'][episode_id]
        expert_mask[timestep] = True
        buffer.data['expert_segment'][episode_id] = expert_mask

        adv_ids = buffer.data['advantage_ids'][episode_id]
        adv_ids[timestep] = 1
        buffer.data['advantage_ids'][episode_id] = adv_ids

        buffer.flush()

    # ---- returns / advantage pipeline ---------------------------------

    def recalculate_returns(self, episode_id: int) -> List[Optional[float]]:
        buffer = self.buffer

        if buffer.meta_data['task_completed'][episode_id].item() == -1:
            raise ApiError("Video not labelled yet", status_code=409)

        marked_timestep = buffer.meta_data['marked_timestep'][episode_id].item()
        returns = self._write_returns(episode_id, marked_timestep)
        self._clear_derived(episode_id)
        buffer.flush()
        return returns

    def advantage_cutoff(self, percentile: float) -> Tuple[float, int]:
        """Global advantage percentile across all episodes."""
        all_advs = self.buffer.data['advantages']
        valid_advs = all_advs[~np.isnan(all_advs)]
        if len(valid_advs) == 0:
            raise ApiError("No advantages calculated yet", status_code=409)
        return float(np.percentile(valid_advs, percentile)), len(valid_advs)

    def binarize(self, episode_id: int, cutoff: float) -> List[int]:
        """1 if >= cutoff, 0 if < cutoff, -1 where no advantage was computed."""
        buffer = self.buffer
        advs = buffer.data['advantages'][episode_id]

        adv_ids = np.full(advs.shape, -1, dtype=int)
        valid_mask = ~np.isnan(advs)
        adv_ids[valid_mask] = (advs[valid_mask] >= cutoff).astype(int)

        buffer.data['advantage_ids'][episode_id] = adv_ids
        buffer.flush()

        logger.info(
            "binarized episode %d with cutoff %.4f: %d pos / %d neg",
            episode_id, cutoff, int(np.sum(adv_ids == 1)), int(np.sum(adv_ids == 0)),
        )
        return adv_ids.tolist()

    def invalidate(self, episode_id: int, cutoff: float) -> bool:
        """RECAP invalidates the whole episode if any advantage falls at or
        below the cutoff."""
        buffer = self.buffer
        advs = buffer.data['advantages'][episode_id]
        valid_mask = ~np.isnan(advs)
        is_invalid = bool((advs[valid_mask] <= cutoff).any())

        buffer.store_meta_datapoint(episode_id, 'invalidated', is_invalid)
        buffer.flush()
        return is_invalid

    # ---- export -------------------------------------------------------

    def export_arrays(self) -> Tuple[dict, dict]:
        buffer = self.buffer
        data = {name: buffer.data[name][:] for name in buffer.data.keys()}
        meta = {name: buffer.meta_data[name][:] for name in buffer.meta_data.keys()}
        return data, meta

    # ---- internals ----------------------------------------------------

    def _max_duration(self, episode_id: int) -> float:
        """Max episode length of the assigned task (1.0 if unassigned)."""
        task_idx = self.buffer.meta_data['task_id'][episode_id].item()
        keys = self.task_keys()
        if 0 <= task_idx < len(keys):
            return self._state.recap_config['tasks'][keys[task_idx]].get('max_episode_length', 1.0)
        return 1.0

    def _clear_derived(self, episode_id: int):
        """Value/advantage estimates are stale whenever labels change."""
        buffer = self.buffer
        buffer.data['value'][episode_id] = float('nan')
        buffer.data['advantages'][episode_id] = float('nan')
        buffer.store_meta_datapoint(episode_id, 'invalidated', False)

    def _write_returns(self, episode_id: int, marked_timestep: int) -> List[Optional[float]]:
        """RECAP returns: negative time-to-completion, normalized by the
        task's max duration."""
        buffer = self.buffer
        timesteps = buffer.data['returns'].shape[1]
        returns = torch.full((timesteps,), float('nan'))

        max_duration = self._max_duration(episode_id)
        for t in range(marked_timestep + 1):
            returns[t] = float(t - marked_timestep) / max_duration

        buffer.data['returns'][episode_id] = returns.numpy()
        return nan_to_none(returns.tolist())


store = EpisodeStore(app_state)
