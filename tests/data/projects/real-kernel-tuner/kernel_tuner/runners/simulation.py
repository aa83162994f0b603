"""The simulation runner for sequentially tuning the parameter space based on cached data."""
import logging
from collections import namedtuple
from time import perf_counter
from warnings import warn

from kernel_tuner import util
from kernel_tuner.runners.runner import Runner


_SimulationDevice = namedtuple("_SimulationDevice", ["max_threads", "env", "quiet"])


class SimulationDevice(_SimulationDevice):
    """Simulated device used by simulation runner."""

    @property
    def name(self):
        return self.env["device_name"]

    @name.setter
    def name(self, value):
        self.env["device_name"] = value
        if not self.quiet:
            print("Simulating: " + value)

    def get_environment(self):
        return self.env


class SimulationRunner(Runner):
    """SimulationRunner is used for tuning with a single process/thread."""

    def __init__(self, kernel_source, kernel_options, device_options, iterations, observers):
        """Instantiate the SimulationRunner.

        :param kernel_source: The kernel source
        :type kernel_source: kernel_tuner.core.KernelSource

        :param kernel_options: A dictionary with all options for the kernel.
        :type kernel_options: kernel_tuner.interface.Options

        :param device_options: A dictionary with all options for the device on which the kernel should be tuned.
        :type device_options: kernel_tuner.interface.Options

        :param iterations: The number of iterations used for benchmarking each kernel instance.
        :type iterations: int
        """
        super().__init__()
        self.quiet = device_options.quiet
        # NOTE(maric): had to increase max_threas so the default restraints would pass
        self.dev = SimulationDevice(1_000_000_000, dict(device_name="Simulation"), self.quiet)

        self.kernel_source = kernel_source
        self.simulation_mode = True
        self.kernel_options = kernel_options

        self.total_simulated_time = 0
        self.visited_results = set()
        self.units = {}

    def get_device_info(self):
        """ Return the backend used by this runner. """
        return self.dev

    def get_environment(self, tuning_options):
        env = self.dev.get_environment()
        env["simulation"] = True
        env["simulated_time"] = self.total_simulated_time
        return env

    def run(self, parameter_space, tuning_options):
        """Iterate through the entire parameter space using a single Python process.

        :param parameter_space: The parameter space as an iterable.
        :type parameter_space: iterable

        :param tuning_options: A dictionary with all options regarding the tuning process.
        :type tuning_options: kernel_tuner.iterface.Options

        :returns: A list of dictionaries for executed kernel configurations and their execution times.
        :rtype: dict()
        """
        logging.debug("simulation runner started for " + self.kernel_options.kernel_name)

        results = []

        # iterate over parameter space
        for element in parameter_space:

            # Append `None` to indicate that the tuning budget has been exceeded
            if tuning_options.budget.is_done():
                results.append(None)
                continue

            # check if element is in the cache
            key = ",".join([str(i) for i in element])

            if key in tuning_options.cache:
                # Get from cache and create a copy
                result = dict(tuning_options.cache[key])

                # only compute metrics on configs that have not errored
                if tuning_options.metrics and "__error__" not in result:
                    result = util.process_metrics(result, tuning_options.metrics)

                # Simulate behavior of sequential runner that when a configuration is
                # served from the cache by the sequential runner, the compile_time,
                # verification_time, and benchmark_time are set to 0.
                # This step is only performed in the simulation runner when a configuration
                # is served from the cache beyond the first time. That is, when the
                # configuration is already counted towards the unique_results.
                if key in self.visited_results:
                    result = util.copy_without_benchmark_timings(result)
                else:
                    # configuration is evaluated for the first time, print to the console
                    util.print_config_output(tuning_options.tune_params, result, self.quiet, tuning_options.metrics, self.units)
                    self.visited_results.add(key)
                    tuning_options.budget.add_evaluations(1)

                # add simulated time if info is available
                try:
                    self.total_simulated_time += result["compile_time"] + result["verification_time"] + result["benchmark_time"]
                except KeyError:
                    pass

                # Simulate the evaluation of this configuration
                if tuning_options.budget.time_limit:
                    try:
                        tuning_options.budget.add_time(milliseconds=result["compile_time"])
                        tuning_options.budget.add_time(milliseconds=result["verification_time"])
                        tuning_options.budget.add_time(milliseconds=result["benchmark_time"])
                    except KeyError:
                        raise RuntimeError(
                            "Cannot use simulation mode with a time limit on a cache file that does not have full compile, verification, and benchmark timings on all configurations"
                        )

                results.append(result)
                continue

            # if the configuration is not in the cache and not within restrictions, simulate an InvalidConfig with warning
            params_dict = dict(zip(tuning_options['tune_params'].keys(), element))
            check = util.check_restrictions(tuning_options.restrictions, params_dict, True)
            if not check:
                result = util.copy_without_benchmark_timings(params_dict)
                result["__error__"] = util.InvalidConfig()
                results.append(result)
                warn(f"Configuration {element} not in cache, does not pass restrictions. Will be treated as an InvalidConfig, but make sure you are evaluating the correct cache file.")
                continue

            # if the configuration is not in the cache and passes restrictions, return a ValueError
            err_string = f"kernel configuration {element} not in cache, does {'' if check else 'not '}pass extra restriction check ({check})"
            logging.debug(err_string)
            raise ValueError(f"{err_string} - in simulation mode, all configurations must be present in the cache")

        num_valid_results = sum(bool(r) for r in results)
        if num_valid_results:
            total_time = self.timer.get_and_reset()

            strategy_time = self.accumulated_strategy_time
            self.accumulated_strategy_time = 0

            framework_time = max(total_time - strategy_time, 0)

            # Amortize the time over all the results
            for result in results:
                if result:
                    # Time must be in ms
                    result["strategy_time"] = 1000 * strategy_time / num_valid_results
                    result["framework_time"] = 1000 * framework_time / num_valid_results


        return results
