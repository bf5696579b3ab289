"""Subcommands of the ``trackerlab`` CLI, one module each (see ``trackerlab.commands.cli``)."""
