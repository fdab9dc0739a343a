"""`make skill`: a draft from the manifest that passes the lint, and a re-run that never overwrites an edit."""

from __future__ import annotations

import hashlib
from pathlib import Path

from scripts.skill_draft import DRAFT_DIGEST, NEW_DRAFT, write_draft
from scripts.skill_lint import facts_of

from mcp_lambda.composition import load_business
from mcp_lambda.skills.lint import lint_skills


def test_the_draft_says_what_the_framework_knows_and_passes_the_lint(tmp_path: Path) -> None:
    status, path = write_draft("demo", skills_dir=tmp_path)
    assert (status, path) == ("created", tmp_path / "demo-tools" / "SKILL.md")
    text = path.read_text()
    assert text.startswith("---\nname: demo-tools\ndescription: ")
    assert (
        "- Needs `origin`: if the user has not given it, ask for it before calling." in text
    )  # required args
    assert "- The user sees it as a card: do not repeat what the card shows in prose" in text  # card bindings
    assert "You may narrow this list to the items that fit" in text  # llm_modifiable products
    assert "`duration_minutes` (Door-to-door minutes)" in text  # visible fields, with what they mean
    assert "- Never name `entity_type`, `deeplink` to the user" in text  # hidden ones, never to be named
    assert "It can run in the background as a task" in text  # export_trip_plan
    assert "call `get_job_status` with that `job_id`" in text  # its follow-up as a job, in a session
    assert "| 40001 | missing destination | ask user |" in text  # codes with their suggested action
    assert "| 50101 | inventory not configured | skip and continue |" in text  # the call site's own action
    facts = facts_of("demo", load_business("demo"), env_file=tmp_path / "none")
    assert lint_skills(tmp_path, facts) == []


def test_a_rerun_replaces_an_unedited_draft_and_keeps_an_edited_one(tmp_path: Path) -> None:
    _, path = write_draft("demo", skills_dir=tmp_path)
    drafted = path.read_text()
    assert write_draft("demo", skills_dir=tmp_path) == ("unchanged", path)

    # Unedited but older (the manifest changed since): replaced, and the digest kept follows.
    path.write_text("---\nname: demo-tools\ndescription: an older draft\n---\n")
    (path.parent / DRAFT_DIGEST).write_text(hashlib.sha256(path.read_bytes()).hexdigest() + "\n")
    assert write_draft("demo", skills_dir=tmp_path) == ("updated", path)
    assert path.read_text() == drafted

    # Edited by its author: left alone; the new draft goes beside it, out of the skill.
    edited = drafted + "\nAlways confirm the stops before exporting.\n"
    path.write_text(edited)
    status, new = write_draft("demo", skills_dir=tmp_path)
    assert (status, new.name) == ("kept", NEW_DRAFT)
    assert path.read_text() == edited and new.read_text() == drafted

    assert write_draft("demo", skills_dir=tmp_path, force=True) == ("updated", path)
    assert path.read_text() == drafted and not new.exists()
