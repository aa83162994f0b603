from pytorch_pfn_extras.profiler._record import record  # NOQA
from pytorch_pfn_extras.profiler._record import record_function  # NOQA
from pytorch_pfn_extras.profiler._record import record_iterable  # NOQA
from pytorch_pfn_extras.profiler._time_summary import TimeSummary  # NOQA
from pytorch_pfn_extras.profiler._time_summary import get_time_summary  # NOQA
from pytorch_pfn_extras.profiler._tracing import (  # NOQA
    ChromeTracer,
    TraceableDataset,
    Tracer,
    clear_tracer,
    enable_global_trace,
    enable_thread_trace,
    get_tracer,
    load_chrome_trace_as_json,
)
