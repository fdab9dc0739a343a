"""Where the downstream circuit states live: Powertools' circuit-breaker persistence contract, in this process
(`memory.py`) or in the protection table shared by the fleet (`dynamodb.py`); `base.py` is their contract.

The circuit breaker itself (one circuit per host, its transitions, logs and metrics) is `mcp_lambda.downstream`.
Nothing is imported here: both backends import Powertools' persistence package (and so boto3), which only the
first outbound call pays for.
"""
