"""The subcommands of ``envsnap``, one module per family; cli.py assembles them into the group."""
