"""The command line: the only layer that reads argv, prints and exits."""
