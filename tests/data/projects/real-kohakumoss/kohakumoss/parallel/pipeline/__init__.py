"""Pipeline parallelism: the process-group engine (`distributed`), the single-process
threaded pipeline, the stage split, heterogeneous balancing and the model parts."""
