from rl4co.models.common.transductive.base import TransductiveModel
