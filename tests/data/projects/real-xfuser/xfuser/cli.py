"""
xDiT CLI entry point.

This module provides a console script that launches xDiT with distributed
training support, equivalent to:
    torchrun --nproc_per_node=N xfuser/runner.py <args>

"""

import math
import sys
import os
import signal
import subprocess
from typing import List, Optional, Tuple

# Torchrun-specific arguments that should be extracted and not passed to the runner
TORCHRUN_ARGS = {
    "--nnodes": "1",
    "--node_rank": "0",
    "--master_addr": "localhost",
    "--master_port": "29500",
    "--nproc_per_node": None,  # Will be computed
}


def get_nproc_from_args(args: List[str]) -> int:
    """
    Infer the number of processes from the command line arguments.
    """
    degree_args = ["--ulysses_degree", "--tensor_parallel_degree", "--ring_degree", "--pipefusion_parallel_degree", "--data_parallel_degree"]
    degree_args = degree_args + [arg.replace("_", "-") for arg in degree_args]
    degrees = []
    i = 0
    while i < len(args):
        arg = args[i]
        matched = False

        # Check for --arg=value format
        for prefix in degree_args:
            if arg.startswith(f"{prefix}="):
                degrees.append(int(arg.split("=", 1)[1]))
                matched = True
                break

        if not matched:
            # Check for --arg value format
            for prefix in degree_args:
                if arg == prefix and i + 1 < len(args):
                    degrees.append(int(args[i + 1]))
                    i += 1  # Skip the value
                    break

        # Check for --use_cfg_parallel
        if arg == "--use_cfg_parallel" or arg == "--use_cfg_parallel=True":
            degrees.append(2)  # Assume 2 for cfg parallel if enabled

        i += 1

    return math.prod(degrees) if degrees else 1


def extract_torchrun_args(args: List[str]) -> Tuple[dict, List[str]]:
    """
    Extract torchrun-specific arguments from the command line args.

    Returns:
        Tuple of (torchrun_args dict, remaining runner args)
    """
    torchrun_values = dict(TORCHRUN_ARGS)  # Copy defaults
    runner_args = []

    i = 0
    while i < len(args):
        arg = args[i]
        matched = False

        for torchrun_arg in TORCHRUN_ARGS:
            # Handle --arg=value format
            if arg.startswith(f"{torchrun_arg}="):
                torchrun_values[torchrun_arg] = arg.split("=", 1)[1]
                matched = True
                break
            # Handle --arg value format
            elif arg == torchrun_arg and i + 1 < len(args):
                torchrun_values[torchrun_arg] = args[i + 1]
                i += 1  # Skip the value
                matched = True
                break

        if not matched:
            runner_args.append(arg)
        i += 1

    return torchrun_values, runner_args


def main(args: Optional[List[str]] = None) -> None:
    """
    Main entry point for the xdit CLI.

    Launches distributed training by wrapping torchrun as a subprocess.
    """
    if args is None:
        args = sys.argv[1:]

    # Extract torchrun args and get runner args
    torchrun_values, runner_args = extract_torchrun_args(args)

    # Infer nproc if not explicitly provided
    if torchrun_values["--nproc_per_node"] is None:
        torchrun_values["--nproc_per_node"] = str(get_nproc_from_args(runner_args))

    runner_module = "xfuser.runner"

    # Build the torchrun command
    cmd = [
        sys.executable, "-m", "torch.distributed.run",
        f"--nproc_per_node={torchrun_values['--nproc_per_node']}",
        f"--nnodes={torchrun_values['--nnodes']}",
        f"--node_rank={torchrun_values['--node_rank']}",
        f"--master_addr={torchrun_values['--master_addr']}",
        f"--master_port={torchrun_values['--master_port']}",
        "-m", runner_module,
    ] + runner_args

    # Start the subprocess with a new process group so we can kill all children
    process = subprocess.Popen(
        cmd,
        start_new_session=True,  # Create new process group
    )

    def signal_handler(signum, frame):
        """Handle Ctrl+C by killing the entire process group."""
        print("\nReceived interrupt signal, terminating all processes...")
        try:
            # Kill the entire process group
            os.killpg(os.getpgid(process.pid), signal.SIGTERM)
        except ProcessLookupError:
            pass  # Process already terminated
        sys.exit(1)

    # Register signal handlers
    signal.signal(signal.SIGINT, signal_handler)
    signal.signal(signal.SIGTERM, signal_handler)

    # Wait for the process to complete
    return_code = process.wait()
    sys.exit(return_code)


if __name__ == "__main__":
    main()
