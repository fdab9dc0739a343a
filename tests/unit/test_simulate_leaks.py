"""`make simulate` on a tool whose text leaks a hidden field: INVALID, naming the field, never its value."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLINIC = """
from mcp_lambda.tools import Business, ToolResult, entities, tool

DOCTOR = {"doctor_id": "d-7", "entity_type": "doctor", "name": "Dr. Wang", "phone": "+86 138 0013 8000"}


@tool(description="Use to find a doctor.")
def find_doctor(tell_phone: bool = False) -> ToolResult:
    text = f"Dr. Wang, call {DOCTOR['phone']}." if tell_phone else "Found Dr. Wang."
    return entities([DOCTOR], text=text)


BUSINESS = Business(name="clinic", tools=[find_doctor])
"""
CLINIC_MANIFEST = """
tools:
  find_doctor: {output: {kind: entities, entity_types: [doctor]}}
entities:
  doctor:
    schema:
      doctor_id: {type: string, is_entity_id: true}
      name: {type: string}
      phone: {type: string, llm_visible: false}
"""


def _simulate(tmp_path: Path, arguments: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "businesses" / "clinic").mkdir(parents=True, exist_ok=True)
    (tmp_path / "businesses" / "clinic" / "__init__.py").write_text(CLINIC)
    (tmp_path / "manifest").mkdir(exist_ok=True)
    (tmp_path / "manifest" / "clinic.yaml").write_text(CLINIC_MANIFEST)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "dev"), str(ROOT), str(tmp_path)]),
        "MANIFEST_DIR": str(tmp_path / "manifest"),
    }
    command = [sys.executable, "-m", "mcp_lambda_dev.simulate", "--business", "clinic"]
    return subprocess.run(
        [*command, "--tool", "find_doctor", "--args", arguments, "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_a_hidden_value_in_the_text_is_invalid_and_the_field_is_named(tmp_path: Path) -> None:
    done = _simulate(tmp_path, '{"tell_phone": true}')

    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["verdict"] == "invalid"
    assert report["violations"] == [
        "find_doctor: entities[0].phone: the field is llm_visible: false, but its value is in the result's text "
        "(content), which the model reads"
    ]
    assert "138 0013" not in json.dumps(report["violations"])


def test_the_model_view_shows_the_projection_without_the_hidden_field(tmp_path: Path) -> None:
    done = _simulate(tmp_path, "{}")

    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["verdict"] == "valid"
    assert (
        report["model_view"]["text"]
        == 'Found Dr. Wang.\n{"entities":[{"doctor_id":"d-7","name":"Dr. Wang"}]}'
    )
    assert "+86" not in json.dumps(report["model_view"])
