"""dattri.benchmark for pre-defined tasks."""
