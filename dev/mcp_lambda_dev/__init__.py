"""Development-only code, never deployed: the `make run` server, the simulator's projection, dev businesses.

`dev/` sits beside `src/` (the Lambda CodeUri) and is on PYTHONPATH only for make targets, tests and scripts.
"""
