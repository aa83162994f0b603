from litserve.test_examples.openai_spec_example import (
    OpenAIBatchContext,
    TestAPI,
    TestAPIWithCustomEncode,
    TestAPIWithStructuredOutput,
    TestAPIWithToolCalls,
)
from litserve.test_examples.simple_example import SimpleBatchedAPI, SimpleLitAPI, SimpleStreamAPI, SimpleTorchAPI

__all__ = [
    "SimpleLitAPI",
    "SimpleBatchedAPI",
    "SimpleTorchAPI",
    "TestAPI",
    "TestAPIWithCustomEncode",
    "TestAPIWithStructuredOutput",
    "TestAPIWithToolCalls",
    "OpenAIBatchContext",
    "SimpleStreamAPI",
]
