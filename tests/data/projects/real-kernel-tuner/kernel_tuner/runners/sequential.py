"""The default runner for sequentially tuning the parameter space."""

import logging
from datetime import datetime, timezone
from time import perf_counter

from kernel_tuner.core import DeviceInterface
from kernel_tuner.runners.runner import Runner
from kernel_tuner.util import ErrorConfig, Timer, print_config_output, process_metrics, store_cache, copy_without_benchmark_timings, check_result_type


class SequentialRunner(Runner):
    """SequentialRunner is used for tuning with a single process/thread."""

    def __init__(self, kernel_source, kernel_options, device_options, iterations, observers):
        """Instantiate the SequentialRunner.

        :param kernel_source: The kernel source
        :type kernel_source: kernel_tuner.core.KernelSource

        :param kernel_options: A dictionary with all options for the kernel.
        :type kernel_options: kernel_tuner.interface.Options

        :param device_options: A dictionary with all options for the device on which the kernel should be tuned.
        :type device_options: kernel_tuner.interface.Options

        :param iterations: The number of iterations used for benchmarking each kernel instance.
        :type iterations: int
        """
        # detect language and create high-level device interface
        super().__init__()

        self.dev = DeviceInterface(kernel_source, iterations=iterations, observers=observers, **device_options)
        self.units = self.dev.units
        self.quiet = device_options.quiet
        self.kernel_source = kernel_source
        self.warmed_up = False if self.dev.requires_warmup else True
        self.simulation_mode = False
        self.kernel_options = kernel_options

        # move data to the GPU
        self.gpu_args = self.dev.ready_argument_list(kernel_options.arguments)

    def get_device_info(self):
        """ Return the backend used by this runner. """
        return self.dev

    def get_environment(self, tuning_options):
        env = self.dev.get_environment()
        return env

    def run(self, parameter_space, tuning_options):
        """Iterate through the entire parameter space using a single Python process.

        :param parameter_space: The parameter space as an iterable.
        :type parameter_space: iterable

        :param tuning_options: A dictionary with all options regarding the tuning process.
        :type tuning_options: kernel_tuner.interface.Options

        :returns: A list of dictionaries for executed kernel configurations and their execution times.
        :rtype: dict()

        """
        logging.debug("sequential runner started for " + self.kernel_options.kernel_name)

        results = []
        worker_time = 0
        warmup_time = 0

        # iterate over parameter space
        for element in parameter_space:
            # If the time limit is exceeded, just skip this element. Add `None` to
            # indicate to CostFunc that no result is available for this config.
            if tuning_options.budget.is_done():
                results.append(None)
                continue

            tuning_options.budget.add_evaluations(1)
            params = dict(zip(tuning_options.tune_params.keys(), element))
            result = None

            # check if configuration is in the cache
            x_int = ",".join([str(i) for i in element])
            if tuning_options.cache and x_int in tuning_options.cache:
                cache_entry = tuning_options.cache[x_int]
                params.update(copy_without_benchmark_timings(cache_entry))
            else:
                # attempt to warmup the GPU by running the first config in the parameter space and ignoring the result
                if not self.warmed_up:
                    warmup_timer = Timer()
                    self.dev.compile_and_benchmark(
                        self.kernel_source, self.gpu_args, params, self.kernel_options, tuning_options
                    )
                    self.warmed_up = True
                    warmup_time = warmup_timer.get()

                result = self.dev.compile_and_benchmark(
                    self.kernel_source, self.gpu_args, params, self.kernel_options, tuning_options
                )

                # Collect total time spent by worker in seconds
                worker_time += (
                    result["compile_time"] + result["verification_time"] + result["benchmark_time"]
                ) / 1000

                assert check_result_type(result)

                params.update(result)

                if '__error__' in result:
                    logging.debug("kernel configuration was skipped silently due to compile or runtime failure")

            # only compute metrics on configs that have not errored
            if tuning_options.metrics and '__error__' not in params:
                params = process_metrics(params, tuning_options.metrics)

            params["timestamp"] = str(datetime.now(timezone.utc))

            if result:
                # print configuration to the console
                print_config_output(tuning_options.tune_params, params, self.quiet, tuning_options.metrics, self.units)

                # add configuration to cache
                store_cache(x_int, params, tuning_options.cachefile, tuning_options.cache)

            assert check_result_type(params)

            # all visited configurations are added to results to provide a trace for optimization strategies
            results.append(params)

        # Count the number of valid results
        num_valid_results = sum(bool(r) for r in results)

        if num_valid_results > 0:
            strategy_time = self.accumulated_strategy_time
            self.accumulated_strategy_time = 0

            # get the framework time by estimating based on other times
            total_time = self.timer.get_and_reset() - warmup_time
            framework_time = max(total_time - strategy_time - worker_time, 0)

            # Amortize the time over all the results
            for result in results:
                if result:
                    # Time must be in ms
                    result["strategy_time"] = 1000 * strategy_time / num_valid_results
                    result["framework_time"] = 1000 * framework_time / num_valid_results

        return results
