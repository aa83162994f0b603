from recbole.quick_start.quick_start import (
    run,
    run_recbole,
    objective_function,
    load_data_and_model,
    run_recboles,
)
