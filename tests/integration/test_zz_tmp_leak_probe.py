import pytest
import tests.integration.test_no_secrets_in_logs as t
from tests.integration.test_no_secrets_in_logs import test_no_known_secret_value_appears_in_any_log_line as inner

def test_probe(tmp_path, moto_server, secrets_client, dynamodb_session_env, monkeypatch):
    monkeypatch.setattr(t, "TRAFFIC", t.TRAFFIC.replace("from mcp_lambda import handler  # noqa", "import mcp_lambda.observability as _o; _o.redact = lambda text: text\nfrom mcp_lambda import handler  # noqa"))
    with pytest.raises(AssertionError) as e:
        inner(tmp_path, moto_server, secrets_client, dynamodb_session_env)
    print("PROBE:", str(e.value)[:1500])
