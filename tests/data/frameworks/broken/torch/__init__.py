"""A torch whose import fails: the error text of compat-rules.md B5.2 (LD_LIBRARY_PATH shadowing)."""

raise ImportError(
    "/opt/venv/lib/python3.11/site-packages/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: "
    "undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12"
)
