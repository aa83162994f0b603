from scalellm._C.llm_handler import LLMHandler, Message, Priority
from scalellm._C.output import (LogProb, LogProbData, RequestOutput,
                                SequenceOutput, Status, StatusCode, Usage)
from scalellm._C.sampling_params import SamplingParams

# Defined in scalellm/csrc/module.cpp
def get_metrics() -> str: ...

__all__ = [
    "Message",
    "LogProb",
    "LogProbData",
    "Priority",
    "RequestOutput",
    "SamplingParams",
    "SequenceOutput",
    "Status",
    "StatusCode",
    "Usage",
    "LLMHandler",
    "get_metrics",
]
