from petals.client.config import ClientConfig
from petals.client.inference_session import InferenceSession
from petals.client.remote_sequential import RemoteSequential
from petals.client.routing import NoSpendingPolicy, RemoteSequenceManager, SpendingPolicyBase
