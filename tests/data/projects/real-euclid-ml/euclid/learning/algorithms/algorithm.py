from euclid.settings import xp


from euclid.core.tensor import Tensor


class RLAlgorithm:

    name = "RL Algorithm"

    def __init__(self):
        pass

    def _prepare_state(self, state):
        return Tensor(xp.asarray(state).reshape(1, -1))

    def _normalize_probabilities(self, probabilities):
        probabilities = xp.asarray(probabilities).reshape(-1)
        total_probability = float(probabilities.sum())

        if total_probability <= 0.0:
            raise ValueError("Action probabilities must sum to a positive value")

        return probabilities / total_probability



    def select_action(self, network, state):
        """
        Sample an action and return ``(action, action_probability)``.

        The probability is detached from autograd because it belongs to the
        policy that generated the trajectory, not the policy being optimized
        later.
        """
        raise NotImplementedError

    def compute_loss(self, network, episode):
        """
        Compute the learning signal.
        """
        raise NotImplementedError
