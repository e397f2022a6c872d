"""The command line: ``masques games | play | replay | bench | solve``."""
